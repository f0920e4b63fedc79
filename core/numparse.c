/* SPDX-License-Identifier: MIT */
/* dynid decimal-to-double parsing (numparse.h): dy_strtod gives strtod's
 * double, end pointer and errno, without strtod's cost on the 17-digit
 * numbers dynid and most loggers write.
 *
 * The text is read as w * 10^q with w the (at most 19) significant digits.
 * Then, in turn:
 *  - Clinger's fast path: w <= 2^53 and |q| <= 22 are both exact doubles,
 *    so one correctly rounded multiply or divide is the answer;
 *  - Eisel-Lemire (D. Lemire, "Number Parsing at a Gigabyte per Second",
 *    Software: Practice and Experience 51(8), 2021; N. Mushtak and
 *    D. Lemire, "Fast number parsing without fallback", 2023): w, shifted
 *    so its top bit is set, times a 128-bit truncation of 5^q gives the
 *    leading bits of the value; the checks of the published algorithm say
 *    when those bits cannot decide the rounding, and the answer is then
 *    strtod's;
 *  - strtod for everything else: more than 19 significant digits, powers
 *    outside [-342, 308], results that are subnormal, zero from a nonzero
 *    value or infinite (strtod also sets errno = ERANGE for those, which
 *    callers read), hexadecimal, inf, nan, leading blanks, no number.
 *
 * The powers of five are computed once, at the first call that needs them
 * (pthread_once), with exact multi-word integer arithmetic: 5^q itself for
 * q >= 0, and floor(2^1024 / 5^n) for q = -n < 0, of which the leading 128
 * bits are kept. */
#include "core/numparse.h"
#include <float.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ 64 x 64 -> 128 bits */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
/* the product a * b as its high and low 64-bit words */
static inline void mul64(uint64_t a, uint64_t b, uint64_t* hi, uint64_t* lo) {
  const u128 p = (u128)a * b;
  *hi = (uint64_t)(p >> 64);
  *lo = (uint64_t)p;
}
#else
static inline void mul64(uint64_t a, uint64_t b, uint64_t* hi, uint64_t* lo) {
  const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
#endif

/* leading zero bits of x != 0 */
static inline int clz64(uint64_t x) {
#if defined(__GNUC__)
  return __builtin_clzll(x);
#else
  int n = 0;
  while (!(x >> 63)) { x <<= 1; n++; }
  return n;
#endif
}

/* ------------------------------------------------ the powers of five */

#define Q_MIN (-342)   /* below: w 10^q < 2^64 10^-343 rounds to zero */
#define Q_MAX 308      /* above: w 10^q >= 10^309 overflows */
#define NQ (Q_MAX - Q_MIN + 1)

/* per q: T, 5^q scaled by a power of two into [2^127, 2^128) (truncated;
 * for -27 <= q < 0 rounded up instead, as the published algorithm has it),
 * as hi and lo words; and f = floor(q log2 10), the binary exponent of
 * 10^q, exactly */
static uint64_t pow5_hi[NQ], pow5_lo[NQ];
static int16_t pow5_f[NQ];
static pthread_once_t pow5_once = PTHREAD_ONCE_INIT;
static atomic_int pow5_ready;

/* multi-word integers: 32-bit words, least significant first */
#define BIG_WORDS 33   /* 2^1024 needs 33; 5^308 (716 bits) 23 */

/* bit i of x (0 beyond its words) */
static int big_bit(const uint32_t* x, long i) {
  return i >= 0 && i < 32L * BIG_WORDS ? (int)(x[i >> 5] >> (i & 31)) & 1 : 0;
}

/* the number of bits of x (0 for x == 0) */
static long big_bits(const uint32_t* x) {
  for (int k = BIG_WORDS - 1; k >= 0; k--)
    if (x[k]) {
      long b = 32;
      while (!(x[k] >> (b - 1))) b--;
      return 32L * k + b;
    }
  return 0;
}

/* the 128 bits of x from bit s up (s < 0: x shifted left by -s) */
static void big_take128(const uint32_t* x, long s, uint64_t* hi, uint64_t* lo) {
  *hi = *lo = 0;
  for (int i = 127; i >= 0; i--) {
    const uint64_t b = (uint64_t)big_bit(x, s + i);
    if (i >= 64) *hi |= b << (i - 64);
    else *lo |= b << i;
  }
}

static void pow5_init(void) {
  uint32_t x[BIG_WORDS];
  /* q >= 0: x = 5^q, its leading 128 bits (exact up to 5^55 < 2^128) */
  memset(x, 0, sizeof x);
  x[0] = 1;
  for (int q = 0; q <= Q_MAX; q++) {
    const long L = big_bits(x);
    big_take128(x, L - 128, &pow5_hi[q - Q_MIN], &pow5_lo[q - Q_MIN]);
    pow5_f[q - Q_MIN] = (int16_t)(L - 1 + q);   /* floor(log2 5^q) + q */
    uint64_t carry = 0;
    for (int k = 0; k < BIG_WORDS; k++) {
      const uint64_t v = 5 * (uint64_t)x[k] + carry;
      x[k] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  /* q = -n < 0: x = floor(2^1024 / 5^n) (dividing the previous one by 5
   * gives it exactly), which has 1025 - z bits where z is the number of
   * bits of 5^n: its leading 128 bits are floor(2^(z+127) / 5^n), and
   * floor(log2 5^-n) = -z */
  memset(x, 0, sizeof x);
  x[BIG_WORDS - 1] = 1;
  for (int n = 1; n <= -Q_MIN; n++) {
    uint64_t rem = 0;
    for (int k = BIG_WORDS - 1; k >= 0; k--) {
      const uint64_t v = (rem << 32) | x[k];
      x[k] = (uint32_t)(v / 5);
      rem = v % 5;
    }
    const long L = big_bits(x), z = 1025 - L;
    uint64_t hi, lo;
    big_take128(x, L - 128, &hi, &lo);
    if (n <= 27) { lo++; hi += lo == 0; }   /* 2^(z+127) / 5^n is no integer: this is its ceiling */
    pow5_hi[-n - Q_MIN] = hi;
    pow5_lo[-n - Q_MIN] = lo;
    pow5_f[-n - Q_MIN] = (int16_t)(-z - n);
  }
  atomic_store_explicit(&pow5_ready, 1, memory_order_release);
}

/* ------------------------------------------------ Eisel-Lemire */

/* w * 10^q (w != 0, Q_MIN <= q <= Q_MAX) rounded to the nearest double
 * into *out, when that is a normal double and the 128-bit product decides
 * it: 1; else 0 (strtod decides). */
static int eisel_lemire(uint64_t w, int q, double* out) {
  if (!atomic_load_explicit(&pow5_ready, memory_order_acquire)) pthread_once(&pow5_once, pow5_init);
  const int i = q - Q_MIN;
  const int lz = clz64(w);
  w <<= lz;
  /* w T = hi 2^128 + lo 2^64 + (the low word, never needed). First w times
   * T's high word; T's low word adds less than 2^64 to lo, so at most one
   * carry into hi, which reaches the 54 bits used only when hi's lowest 9
   * bits are all ones: only then is the second product needed. */
  uint64_t hi, lo, h2, l2;
  mul64(w, pow5_hi[i], &hi, &lo);
  int full = 0;
  if ((hi & 0x1FF) == 0x1FF) {
    mul64(w, pow5_lo[i], &h2, &l2);
    lo += h2;
    hi += lo < h2;
    full = 1;
  }
  /* T is truncated there (5^q not exact in 128 bits, and not rounded up):
   * the true product may be larger by one unit of lo, carrying into hi
   * when lo is all ones. Mushtak and Lemire prove this never changes the
   * result; the check costs nothing, and strtod settles it. */
  if (lo == UINT64_MAX && (q < -27 || q > 55)) return 0;
  /* the product is in [2^190, 2^192): its top bit is bit 63 or 62 of hi.
   * m: the 53 bits of the double and one more, for rounding */
  const int upper = (int)(hi >> 63), sh = upper + 9;
  uint64_t m = hi >> sh;
  /* the value is in [2^E, 2^(E+1)), E = floor(q log2 10) + 63 + upper - lz;
   * be = E + 1023, the biased exponent */
  int be = pow5_f[i] + 63 + upper - lz + 1023;
  if (be < 1) return 0;   /* below DBL_MIN: subnormal or zero, rounded differently; ERANGE */
  /* halfway between two doubles (the rounding bit set, nothing below it)
   * with the even one below: round down. An exact halfway value is
   * possible only for -4 <= q <= 23 (w < 2^64 holds no factor 5^5 beside
   * 54 significant bits, and 5^24 > 2^54); there the product is exact
   * (5^q < 2^64: T's low word is 0) or, for q < 0 with T rounded up,
   * exact in hi and lo once both products are taken. */
  if (lo == 0 && q >= -4 && q <= 23 && (m & 3) == 1 && (m << sh) == hi) {
    if (!full) mul64(w, pow5_lo[i], &h2, &l2);
    if (full || h2 == 0) m &= ~(uint64_t)1;   /* else the second product puts bits below: above halfway */
  }
  m += m & 1;   /* round half up (ties to even were made "below" just above) */
  m >>= 1;
  if (m >> 53) { m >>= 1; be++; }   /* rounded up to 2^53: the next binade */
  if (be >= 2047) return 0;   /* overflow: inf, ERANGE */
  const uint64_t bits = (uint64_t)be << 52 | (m & ((1ull << 52) - 1));
  memcpy(out, &bits, sizeof bits);
  return 1;
}

/* ------------------------------------------------ the text */

static inline int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* the 8 digits at p as one number: pairs, then quadruples, then all eight
 * combined in the lanes of one 64-bit word (the first digit in the lowest
 * byte, as a little-endian load puts it) */
static inline uint64_t eight_digits(const char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  v -= 0x3030303030303030ull;               /* bytes 0..9 */
  v = v * 10 + (v >> 8);                     /* byte 2k: 10 d[2k] + d[2k+1] */
  v &= 0x00FF00FF00FF00FFull;
  v = v * 100 + (v >> 16);                   /* 16-bit lane 2k: four digits */
  v &= 0x0000FFFF0000FFFFull;
  return (uint32_t)(v * 10000 + (v >> 32));  /* all eight */
}

/* the digits from *pp on appended to w (wrapping beyond 19 significant
 * digits, which the caller refuses), *pp moved past them. Each byte is
 * checked to be a digit before it is read in a block of eight, so nothing
 * past the terminating NUL is read. */
static inline uint64_t read_digits(const char** pp, uint64_t w) {
  const char* p = *pp;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) && is_digit(p[4]) &&
         is_digit(p[5]) && is_digit(p[6]) && is_digit(p[7])) {
    w = w * 100000000u + eight_digits(p);
    p += 8;
  }
#endif
  while (is_digit(*p)) w = 10 * w + (uint64_t)(*p++ - '0');
  *pp = p;
  return w;
}

double dy_strtod(const char* s, char** end) {
  const char* p = s;
  const int neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  /* the digits before and after the point as one integer w (wrapping when
   * there are more than 19 significant ones: then strtod decides), q the
   * power of ten it is scaled by, nd the significant digits (from the
   * first nonzero one) */
  const char* const d0 = p;
  while (*p == '0') p++;
  const char* const i0 = p;
  uint64_t w = read_digits(&p, 0);
  long nd = p - i0, q = 0;
  int any = p > d0;
  if (*p == '.') {
    const char* f0 = ++p;
    if (!nd) while (*p == '0') p++;   /* zeros before the first significant digit only scale */
    const char* f1 = p;
    w = read_digits(&p, w);
    nd += p - f1;
    q = -(long)(p - f0);
    any |= p > f0;
  }
  /* no digit (blanks, inf, nan, "", "-", "."), too many, or hexadecimal */
  if (!any || nd > 19 || (*p | 0x20) == 'x') return strtod(s, end);
  if ((*p | 0x20) == 'e') {   /* an exponent only with a digit; else the 'e' is not read */
    const char* r = p + 1;
    const int eneg = *r == '-';
    if (*r == '-' || *r == '+') r++;
    if (is_digit(*r)) {
      long ev = 0;
      for (; is_digit(*r); r++)
        if (ev < 100000) ev = 10 * ev + (*r - '0');   /* beyond, over- or underflow anyway */
      q += eneg ? -ev : ev;
      p = r;
    }
  }
  double x;
  if (w == 0) x = 0;   /* exactly zero whatever the exponent: strtod sets no errno either */
#if FLT_EVAL_METHOD == 0   /* doubles evaluated in double precision: no double rounding */
  else if (q >= -22 && q <= 22 && w <= (1ull << 53)) {
    static const double P10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
      1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    x = (double)w;
    x = q < 0 ? x / P10[-q] : x * P10[q];
  }
#endif
  else if (q < Q_MIN || q > Q_MAX || !eisel_lemire(w, (int)q, &x)) return strtod(s, end);
  if (end) *end = (char*)p;
  return neg ? -x : x;
}
