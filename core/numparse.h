/* SPDX-License-Identifier: MIT */
/* dynid internal: decimal text to double, as strtod does it but faster on
 * the numbers logs hold (core/numparse.c). Not installed. */
#ifndef DYNID_NUMPARSE_H
#define DYNID_NUMPARSE_H

/* strtod(s, end) with the same result, bit for bit, the same *end (when end
 * is not NULL) and the same errno: a decimal number of at most 19
 * significant digits whose value is a normal double is converted here
 * (Clinger's fast path, then Eisel-Lemire), everything else (more digits,
 * hexadecimal, inf, nan, leading blanks, overflow, underflow, no number at
 * all) by strtod itself. Assumes what dynid never changes: the C locale's
 * decimal point and rounding to nearest. Thread-safe. */
double dy_strtod(const char* s, char** end);

#endif
