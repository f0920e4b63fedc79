/* SPDX-License-Identifier: MIT */
/* dynid verify: executed operation counts of the efficient algorithms
 * beside the papers' tables.
 *
 * The counts come from the counting variants (names ending in _ops) that a
 * second, counting build of each algorithm file provides (verify/kernels.h
 * describes the scheme and the counting rules): they execute the same code
 * paths as the fast versions and add what they execute to a dyvOps. */
#ifndef DYNID_OPCOUNT_H
#define DYNID_OPCOUNT_H

#include <stdio.h>
#include "core/model.h"

/* multiplications (divisions included) and additions (subtractions
 * included) executed; the counting variants add to it */
typedef struct dyvOps_ { long mul, add; } dyvOps;

/* Counted operations of one call of each verified algorithm on model m with
 * parameter vector par (14n; structurally zero entries are what the
 * base-parameter Newton-Euler skips; pass a realisation P beta) and the
 * zero-mask taken from par itself. Filled with -1 where not available. */
typedef struct {
  long lin91_H_mul, lin91_H_add;    /* Lin 1991 inertia matrix H */
  long lin91_Hb_mul, lin91_Hb_add;  /* Lin 1991 H and bias vector b */
  long nebase_mul, nebase_add;      /* base-parameter Newton-Euler */
  long nefull_mul, nefull_add;      /* same code, no parameter treated as zero */
} dyvOpCounts;

/* Count one call of each algorithm at a fixed generic state (counts do not
 * depend on the state except through sign tests, which cost nothing). */
void dyv_opcount(dyvOpCounts* out, const dyModel* m, const double* par);

/* Give m a general geometry, the case the papers' operation-count tables
 * assume: for joints 2..n, alpha_j = 0.3 + 0.2 j rad (none of 0, +-pi/2,
 * pi), a_j = 0.1 + 0.05 j m, d_j = 0.1 + 0.03 j m; joint 1 is kept (its
 * axis along gravity, as the tables take it). Calls dy_set_const. */
void dyv_general_geometry(dyModel* m);

/* [Renaud]'s 6R example (its geometry and grouped augmented-body
 * parameters, the nonzero ones set to arbitrary values): the model behind
 * its count of 181 M + 127 A; simplified != 0: with y*5 - z*6 as one
 * parameter (z*6 = 0), behind its 164 M + 115 A. Free with dy_free_model;
 * NULL if out of memory. */
dyModel* dyv_renaud_model(int simplified);

/* Print the counts for model m (nominal parameters and, if P is given
 * (row-major npar x nb realisation map of a base set, npar = 10n or 14n),
 * the parameters it leaves structurally nonzero) beside the papers' formulas:
 * [Lin91] Table I (H, n rotational joints: (10.5n^2+38.5n-85) M +
 * (6n^2+39n-70) A) and its H+b count ((23n^2+44n-82) M + (15n^2+40n-70) A),
 * [Renaud]'s 181 M + 127 A for its 6R example (164 + 115 simplified), by
 * his algorithm (verify/renaud.h) and by the base-parameter Newton-Euler.
 * Returns 0. */
int dyv_opcount_report(FILE* f, const dyModel* m, const double* P, int npar, int nb);

/* The structural zeros of the QR-pivot base set of m (zero: 14n entries,
 * 1 = not a pivot column of the stacked Newton-Euler regressor over 40
 * random states, friction columns included iff m->has_friction). Returns
 * the number of base parameters, or -1. */
int dyv_qr_zero_mask(unsigned char* zero, const dyModel* m);

#endif
