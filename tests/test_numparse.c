/* SPDX-License-Identifier: MIT */
/* dynid tests: the decimal-to-double parser dy_strtod (core/numparse.c)
 * against glibc's strtod, which it must equal exactly: the same double bit
 * for bit (memcmp, so -0 and the NaN payloads count), the same end pointer
 * and the same errno (ERANGE on overflow and underflow), on
 *  - random doubles printed with %.17g, %.16g, %.15g, %.9g, %.6e, %.3f and
 *    %g: bit patterns over the whole range (subnormals too) and values of
 *    the size logs hold;
 *  - random strings of 1 to 19 digits, with a random decimal point and
 *    exponents from -350 to 320 in every spelling;
 *  - the exact decimal midpoints between two adjacent doubles, written out
 *    with big-integer arithmetic of this file's own (a double is M 2^e, the
 *    midpoint (2M+1) 2^(e-1), which is (2M+1) 5^(1-e) / 10^(1-e) below 1):
 *    random ones over the whole range (hundreds of digits) and the short
 *    ones Eisel-Lemire decides itself (at most 19 digits, powers of ten
 *    from -4 to 23), each also nudged just above and below; the midpoint
 *    must give the even neighbour, the nudged ones the nearer one, which
 *    checks strtod and dy_strtod alike;
 *  - DBL_MAX, DBL_MIN, the smallest subnormal and their neighbours, zeros,
 *    1e-400, 1e400, long runs of digits, and malformed text;
 *  - four threads making the first calls at once (the table of powers of
 *    five is built at the first call).
 * The sweeps quarter under the sanitizers (TH_SWEEP). Nothing is timed. */
#include "testhelp.h"
#include "core/numparse.h"
#include <errno.h>
#include <float.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static unsigned long long rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) { return dy_rng_splitmix(&rs); }
static long rnd_in(long a, long b) { return a + (long)(rnd() % (uint64_t)(b - a + 1)); }

/* ------------------------------------------------ one comparison */

/* mismatches of the current group, and how many of them were shown */
static long bad, shown;

/* s through strtod and dy_strtod: 1 if value bits, end and errno agree
 * (errno preset to a value neither sets, alternately 0); else the case is
 * printed (the first 10 of a group) and 0 */
static int same(const char* s) {
  static int pre;
  pre ^= 1;
  char *e1, *e2;
  errno = pre ? 12345 : 0;
  const double a = strtod(s, &e1);
  const int er1 = errno;
  errno = pre ? 12345 : 0;
  const double b = dy_strtod(s, &e2);
  const int er2 = errno;
  if (!memcmp(&a, &b, sizeof a) && e1 == e2 && er1 == er2) return 1;
  bad++;
  if (shown++ < 10)
    fprintf(stderr, "  '%.80s'%s: strtod %a end +%ld errno %d, dy_strtod %a end +%ld errno %d\n", s,
            strlen(s) > 80 ? "..." : "", a, (long)(e1 - s), er1, b, (long)(e2 - s), er2);
  return 0;
}

/* the group's verdict: one check, with the count of cases */
static void group_done(const char* what, long n) {
  CHECK(bad == 0, "%s: %ld of %ld strings differ from strtod", what, bad, n);
  bad = shown = 0;
}

/* s must parse to exactly want (bit for bit) through both */
static void expect(const char* s, double want) {
  const double a = strtod(s, NULL), b = dy_strtod(s, NULL);
  CHECK(!memcmp(&a, &want, sizeof a) && !memcmp(&b, &want, sizeof b),
        "'%.60s': strtod %a, dy_strtod %a, expected %a", s, a, b, want);
}

/* ------------------------------------------------ random doubles */

static double bits_double(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }
static uint64_t double_bits(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }

static const char* const FMT[] = {"%.17g", "%.16g", "%.15g", "%.9g", "%.6e", "%.3f", "%g"};
#define NFMT (int)(sizeof FMT / sizeof FMT[0])

/* n doubles per format: half random bit patterns (finite), half of the
 * size logged signals have (|x| from 1e-9 to 1e4, either sign) */
static void test_printed(long n) {
  char buf[512];
  long cnt = 0;
  for (long i = 0; i < n; i++) {
    double x;
    if (i & 1) {
      do x = bits_double(rnd()); while (!isfinite(x));
    } else {
      x = (dy_rng_u01(rnd()) + 0.1) * pow(10, (double)rnd_in(-9, 3));
      if (rnd() & 1) x = -x;
    }
    for (int f = 0; f < NFMT; f++) {
      snprintf(buf, sizeof buf, FMT[f], x);
      same(buf);
      cnt++;
    }
  }
  group_done("random doubles printed with %.17g .. %g", cnt);
}

/* ------------------------------------------------ random digit strings */

/* 1..19 digits (sometimes with leading zeros or all zeros), a point at a
 * random place or none, an exponent from -350 to 320 written with e or E,
 * with or without sign and leading zeros, or none; a sign or none */
static void test_digits(long n) {
  char buf[128];
  for (long i = 0; i < n; i++) {
    char* p = buf;
    const int sg = (int)rnd_in(0, 3);
    if (sg == 1) *p++ = '-';
    if (sg == 2) *p++ = '+';
    const int nd = (int)rnd_in(1, 19), lead = rnd() % 8 == 0 ? (int)rnd_in(1, 4) : 0;
    const int zero = rnd() % 64 == 0;
    const int pt = rnd() % 6 == 0 ? -1 : (int)rnd_in(0, nd + lead);
    for (int k = 0; k < nd + lead; k++) {
      if (k == pt) *p++ = '.';
      *p++ = (char)('0' + (k < lead || zero ? 0 : k == lead ? rnd_in(1, 9) : rnd_in(0, 9)));
    }
    if (pt == nd + lead) *p++ = '.';
    if (rnd() % 8) {
      const long ex = rnd_in(-350, 320);
      *p++ = rnd() & 1 ? 'e' : 'E';
      if (ex < 0) *p++ = '-';
      else if (rnd() & 1) *p++ = '+';
      p += sprintf(p, rnd() % 4 ? "%ld" : "%03ld", labs(ex));
    }
    *p = 0;
    same(buf);
  }
  group_done("1..19 digits, exponents -350..320", n);
}

/* ------------------------------------------------ exact midpoints */

/* nonnegative integers in 32-bit words, least significant first */
typedef struct { int n; uint32_t w[96]; } bigint;

static void big_set(bigint* x, uint64_t v) {
  x->n = 0;
  while (v) { x->w[x->n++] = (uint32_t)v; v >>= 32; }
}

static void big_mul(bigint* x, uint32_t m) {
  uint64_t carry = 0;
  for (int k = 0; k < x->n; k++) {
    const uint64_t v = (uint64_t)x->w[k] * m + carry;
    x->w[k] = (uint32_t)v;
    carry = v >> 32;
  }
  if (carry) x->w[x->n++] = (uint32_t)carry;
}

/* x times 2^k (k >= 0) or times 5^-k (k < 0) */
static void big_scale(bigint* x, long k) {
  for (; k >= 31; k -= 31) big_mul(x, 1u << 31);
  if (k > 0) big_mul(x, 1u << k);
  for (; k <= -13; k += 13) big_mul(x, 1220703125u);   /* 5^13 */
  for (; k < 0; k++) big_mul(x, 5);
}

/* the decimal digits of x > 0 into out (NUL-terminated); their count */
static int big_decimal(const bigint* x0, char* out) {
  bigint x = *x0;
  uint32_t chunk[128];
  int nc = 0;
  while (x.n) {   /* divide by 10^9, least significant chunk first */
    uint64_t rem = 0;
    for (int k = x.n - 1; k >= 0; k--) {
      const uint64_t v = (rem << 32) | x.w[k];
      x.w[k] = (uint32_t)(v / 1000000000u);
      rem = v % 1000000000u;
    }
    while (x.n && !x.w[x.n - 1]) x.n--;
    chunk[nc++] = (uint32_t)rem;
  }
  int len = sprintf(out, "%u", chunk[nc - 1]);
  for (int c = nc - 2; c >= 0; c--) len += sprintf(out + len, "%09u", chunk[c]);
  return len;
}

/* odd * 2^k in decimal: digits D (no leading or trailing zero) and q with
 * the value D 10^q */
static int exact_decimal(uint64_t odd, long k, char* D, long* q) {
  bigint x;
  big_set(&x, odd);
  big_scale(&x, k);
  int len = big_decimal(&x, D);
  *q = k < 0 ? k : 0;
  while (len > 1 && D[len - 1] == '0') { D[--len] = 0; ++*q; }
  return len;
}

/* D 10^q written in style 0..3: "De<q>", "d.dddE<q'>", "0.Ddde<q''>", or
 * positional ("DDD000", "DD.D", "0.000D") when at most 40 zeros are
 * needed, else as style 0 */
static void write_dq(char* buf, const char* D, int len, long q, int style, int neg) {
  char* p = buf;
  if (neg) *p++ = '-';
  if (style == 1) {
    sprintf(p, "%c%s%sE%+ld", D[0], len > 1 ? "." : "", D + 1, q + len - 1);
    return;
  }
  if (style == 2) {
    sprintf(p, "0.%se%ld", D, q + len);
    return;
  }
  if (style == 3 && q >= 0 && q <= 40) {
    p += sprintf(p, "%s", D);
    for (long k = 0; k < q; k++) *p++ = '0';
    *p = 0;
    return;
  }
  if (style == 3 && q < 0 && -q < len) {
    p += sprintf(p, "%.*s.%s", (int)(len + q), D, D + len + q);
    return;
  }
  if (style == 3 && q < 0 && -q - len <= 40) {
    *p++ = '0'; *p++ = '.';
    for (long k = 0; k < -q - len; k++) *p++ = '0';
    sprintf(p, "%s", D);
    return;
  }
  sprintf(p, "%se%ld", D, q);
}

/* the midpoint odd 2^k between lo and hi = the next double up: written in
 * every style, it must give the even one of the two (or with hi
 * infinite, hi); nudged up by 10^(q-17) the upper one, down by as much the
 * lower one; and the same through strtod */
static long mid_cases;
static void test_midpoint(uint64_t odd, long k, double lo, double hi) {
  static char D[2048], buf[2200];
  long q;
  const int len = exact_decimal(odd, k, D, &q);
  const double even = double_bits(lo) & 1 ? hi : lo;   /* DBL_MAX is odd: inf above it */
  const int neg = (int)(rnd() & 1);
  for (int style = 0; style < 4; style++) {
    write_dq(buf, D, len, q, style, neg);
    mid_cases++;
    if (!same(buf)) continue;
    const double got = dy_strtod(buf, NULL);
    if (got != (neg ? -even : even)) {
      bad++;
      if (shown++ < 10) fprintf(stderr, "  midpoint '%.60s': %a, not the even neighbour %a\n", buf, got, even);
    }
  }
  /* just above and just below: D followed by 16 zeros and a 1, and D - 1
   * followed by 17 nines (D's last digit is not 0) */
  static char Dn[2100];
  snprintf(Dn, sizeof Dn, "%s00000000000000001", D);
  write_dq(buf, Dn, len + 17, q - 17, (int)(rnd() % 4), 0);
  mid_cases++;
  if (same(buf) && dy_strtod(buf, NULL) != hi) {
    bad++;
    if (shown++ < 10) fprintf(stderr, "  above midpoint '%.60s': not %a\n", buf, hi);
  }
  snprintf(Dn, sizeof Dn, "%s99999999999999999", D);
  Dn[len - 1]--;
  write_dq(buf, Dn, len + 17, q - 17, (int)(rnd() % 4), 0);
  mid_cases++;
  if (same(buf) && dy_strtod(buf, NULL) != lo) {
    bad++;
    if (shown++ < 10) fprintf(stderr, "  below midpoint '%.60s': not %a\n", buf, lo);
  }
  /* D with one more digit, either side of the midpoint by a tenth of D's
   * last place: no expectation beyond strtod's (may still be a tie's
   * neighbourhood), but Eisel-Lemire decides these when D is short */
  for (int up = 0; up < 2; up++) {
    snprintf(Dn, sizeof Dn, "%s%c", D, up ? '1' : '9');
    if (!up) Dn[len - 1]--;
    write_dq(buf, Dn, len + 1, q - 1, (int)(rnd() % 4), 0);
    mid_cases++;
    same(buf);
  }
}

/* the midpoint above x >= 0 finite: x = M 2^e, the midpoint (2M+1) 2^(e-1) */
static void midpoint_above(double x) {
  const uint64_t u = double_bits(x), be = u >> 52, frac = u & ((1ull << 52) - 1);
  const uint64_t M = be ? frac | 1ull << 52 : frac;
  const long e = be ? (long)be - 1075 : -1074;
  test_midpoint(2 * M + 1, e - 1, x, nextafter(x, INFINITY));
}

static void test_midpoints(long nrand, long nshort) {
  /* over the whole range: hundreds of digits, strtod's own path */
  for (long i = 0; i < nrand; i++) {
    double x;
    do x = fabs(bits_double(rnd())); while (!isfinite(x));
    midpoint_above(x);
  }
  group_done("exact midpoints over the whole range", mid_cases);
  mid_cases = 0;
  /* short ones: (2M+1) = 5^t r with r odd, times 2^k: for k < 0 the
   * digits are (2M+1) 5^-k (q = k >= -4); for k >= 0 r 5^(t-q) 2^(k-q)
   * with q = min(t, k) up to 23 */
  for (long i = 0; i < nshort; i++) {
    const int t = (int)rnd_in(0, 23);
    uint64_t p5 = 1;
    for (int j = 0; j < t; j++) p5 *= 5;
    const uint64_t rlo = ((1ull << 53) + p5 - 1) / p5, rhi = ((1ull << 54) - 1) / p5;
    uint64_t r = rlo + rnd() % (rhi - rlo + 1);
    if (!(r & 1)) r = r + 1 <= rhi ? r + 1 : r - 1;
    if (r < rlo) continue;
    const uint64_t odd = p5 * r;   /* in (2^53, 2^54), odd */
    const long k = rnd_in(-4, t + 6);
    const double lo = ldexp((double)(odd >> 1), (int)k + 1);   /* M 2^(k+1), exact */
    test_midpoint(odd, k, lo, nextafter(lo, INFINITY));
  }
  group_done("short exact midpoints (<= 19 digits, q in -4..23)", mid_cases);
  mid_cases = 0;
}

/* ------------------------------------------------ fixed cases */

static const char* const SPECIAL[] = {
  "0", "-0", "+0", "0.0", "-0.0", "00", ".0", "0.", "-0.", "0e0", "-0e-5", "0e-400", "-0e400",
  "0e99999999999999999999", "0.000000000000000000000000000000000000000000000000e-999",
  "1e-400", "-1e-400", "1e400", "-1e400", "1e308", "1e309", "-1e309", "1e-308", "1e-307",
  "1e-320", "1e-323", "1e-324", "2e-324", "3e-324", "5e-324", "-5e-324", "4e-324", "7e-324",
  "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
  "1.797693134862315708e308", "1.797693134862315807e308", "1.7976931348623157081e308",
  "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368",
  "2.2250738585072014e-308", "2.2250738585072013e-308", "2.2250738585072012e-308",
  "2.2250738585072011e-308", "2.225073858507201e-308", "2.2250738585072009e-308",
  "-2.2250738585072014e-308", "2.22507385850720138309e-308",
  "4.9406564584124654e-324", "4.9406564584124654417656879286822137236505980e-324",
  "2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324",
  "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
  "1.", ".5", "-.5", "+.5", "1e5", "1E+05", "1e-05", "1E-5", "+1", "-1", "1e+0", "1e-0", "1e0005",
  "1e0000000000000000000000000000005", "1e-99999999999999999999", "1e99999999999999999999",
  "-0.12345678901234567", "1.2345678901234567e-05", "0.1", "0.2", "0.3", "-2.5", "3.141592653589793",
  "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
  "9007199254740993.0000000000001", "18014398509481985", "1234567890123456789",
  "9999999999999999999", "10000000000000000000", "18446744073709551615",
  "18446744073709551616", "12345678901234567890", "1e22", "1e23", "1e-22", "1e-23",
  "8.98846567431158e307", "4.4501477170144023e-308", "4.4501477170144022e-308",
  "", "-", "+", ".", "-.", "+.", "e5", "E5", "-e5", ".e5", "1e", "1e+", "1e-", "1E", "1e+x", "1ex",
  "1.5e", "+-1", "-+1", "--1", "++1", "1.2.3", "1..2", "1,5", "1.5e3x", "123abc", "1 2", "1e5.5",
  "0x1p3", "0X1P3", "-0x1p3", "0x", "0xg", "0x.8p1", "0x1.8", "00x1p3", "nan", "NaN", "-nan",
  "nan(123)", "inf", "-inf", "+inf", "infinity", "INF", "-Infinity", "infinit",
  " 1.5", "\t-2", "\n3", "  .5e1", "1.5 ", "1.5\r", "\xc2\xa0" "1",
};

/* long runs of digits: n digits in several forms */
static void test_long_runs(void) {
  static char buf[4096];
  long cnt = 0;
  const int lens[] = {19, 20, 21, 25, 40, 100, 400, 800, 1500};
  for (int li = 0; li < (int)(sizeof lens / sizeof lens[0]); li++)
    for (int rep = 0; rep < 60; rep++) {
      const int n = lens[li];
      char* p = buf;
      const int pt = rep % 3 == 0 ? -1 : (int)rnd_in(0, n);
      for (int k = 0; k < n; k++) {
        if (k == pt) *p++ = '.';
        *p++ = (char)('0' + (rep % 5 == 1 ? (k == 0 ? 1 : 0) : rep % 5 == 2 ? 9 : rnd_in(0, 9)));
      }
      if (rep % 4 == 1) p += sprintf(p, "e%ld", rnd_in(-400, 330));
      *p = 0;
      same(buf);
      cnt++;
    }
  /* zeros before the digits: 0.000...0001234 and 000...0001234 */
  for (int z = 1; z <= 400; z += 7) {
    char* p = buf;
    p += sprintf(p, "0.");
    for (int k = 0; k < z; k++) *p++ = '0';
    sprintf(p, "%llu", (unsigned long long)(rnd() % 10000000000000000000ull));
    same(buf);
    p = buf;
    for (int k = 0; k < z; k++) *p++ = '0';
    sprintf(p, "%llu.5e-%d", (unsigned long long)(rnd() % 1000000000000000ull), z);
    same(buf);
    cnt += 2;
  }
  group_done("long runs of digits", cnt);
}

static void test_fixed(void) {
  for (int i = 0; i < (int)(sizeof SPECIAL / sizeof SPECIAL[0]); i++)
    CHECK(same(SPECIAL[i]), "'%.60s' differs from strtod", SPECIAL[i]);
  bad = shown = 0;
  /* values that must come out exactly, whoever parses them */
  expect("1.7976931348623157e308", DBL_MAX);
  expect("2.2250738585072014e-308", DBL_MIN);
  expect("4.9406564584124654e-324", bits_double(1));
  expect("-0", -0.0);
  expect("0.1", 0.1);
  expect("1e-400", 0.0);
  expect("1e400", INFINITY);
  expect("9007199254740993", 9007199254740992.0);   /* a tie: the even one below */
  expect("9007199254740995", 9007199254740996.0);   /* a tie: the even one above */
  /* end pointers where the number stops short of the text */
  const struct { const char* s; int end; } E[] = {
    {"1.", 2}, {"1e", 1}, {"1e+", 1}, {"1ex", 1}, {"1.5e-x", 3}, {"-.5x", 3}, {".", 0}, {"-", 0},
    {"e5", 0}, {"0x", 1}, {"1,5", 1}, {"12345678901234567890123x", 23}};
  for (int i = 0; i < (int)(sizeof E / sizeof E[0]); i++) {
    char* end;
    dy_strtod(E[i].s, &end);
    CHECK(end - E[i].s == E[i].end, "'%s': end at %ld, expected %d", E[i].s, (long)(end - E[i].s), E[i].end);
  }
  /* errno: ERANGE from strtod's cases, untouched otherwise */
  errno = 0; dy_strtod("1e400", NULL);
  CHECK(errno == ERANGE, "1e400: errno %d", errno);
  errno = 0; dy_strtod("1e-400", NULL);
  CHECK(errno == ERANGE, "1e-400: errno %d", errno);
  errno = 7; dy_strtod("-0.12345678901234567", NULL);
  CHECK(errno == 7, "a plain number changed errno to %d", errno);
  /* neighbours of the extremes, printed with 16 to 25 digits */
  char buf[64];
  long cnt = 0;
  const double X[] = {DBL_MAX, DBL_MIN, bits_double(1), bits_double(2), 1.0, 0.5, 1e-300, 1e300,
                      bits_double(0x000FFFFFFFFFFFFFull), 1e22, 1e23, 9007199254740992.0};
  for (int i = 0; i < (int)(sizeof X / sizeof X[0]); i++)
    for (int step = -3; step <= 3; step++) {
      double x = X[i];
      for (int k = 0; k < step; k++) x = nextafter(x, INFINITY);
      for (int k = 0; k > step; k--) x = nextafter(x, 0);
      if (!isfinite(x)) continue;
      for (int prec = 15; prec <= 25; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        same(buf);
        snprintf(buf, sizeof buf, "%.*e", prec - 1, -x);
        same(buf);
        cnt += 2;
      }
      midpoint_above(x);
      cnt += mid_cases;
      mid_cases = 0;
    }
  group_done("neighbours of DBL_MAX, DBL_MIN, the smallest subnormal, ...", cnt);
}

/* ------------------------------------------------ threads */

/* each thread parses numbers that need the table of powers of five from
 * its first call on, and counts the results that are not strtod's */
typedef struct { int id; long wrong; } threadJob;

static void* thread_parse(void* arg) {
  threadJob* job = arg;
  char buf[64];
  unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned long long)(job->id + 1);
  for (int i = 0; i < 20000; i++) {
    double x = bits_double(dy_rng_splitmix(&s));
    if (!isfinite(x)) continue;
    snprintf(buf, sizeof buf, "%.17g", x);
    const double a = strtod(buf, NULL), b = dy_strtod(buf, NULL);
    if (memcmp(&a, &b, sizeof a)) job->wrong++;
  }
  return NULL;
}

static void test_threads(void) {
  pthread_t th[4];
  threadJob job[4];
  int started = 0;
  long wrong = 0;
  for (int i = 0; i < 4; i++) {
    job[i].id = i; job[i].wrong = 0;
    if (pthread_create(&th[started], NULL, thread_parse, &job[i]) == 0) started++;
  }
  CHECK(started == 4, "started %d of 4 threads", started);
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) wrong += job[i].wrong;
  CHECK(wrong == 0, "threads: %ld results differ from strtod", wrong);
}

int main(void) {
  test_threads();   /* first: the threads make the first calls */
  test_fixed();
  test_long_runs();
  test_printed(TH_SWEEP(300000));
  test_digits(TH_SWEEP(2000000));
  test_midpoints(TH_SWEEP(5000), TH_SWEEP(150000));
  return test_report();
}
