/* SPDX-License-Identifier: MIT */
/* dynid tests: core/util.h, the clock, the comparator, the generators,
 * the libraries loaded on first use, the huge-page and the fresh-page
 * allocations.
 *
 * Every random stream in dynid (test states, the rank tests of base sets,
 * excitation starts, bench states) is drawn from these generators, so a
 * change to one silently changes results. Their first outputs are checked
 * against values computed outside this code: splitmix64 from seed 0 gives
 * the reference sequence published with the generator (0xe220a8397b1dcdaf,
 * 0x6e789e6aa1b965f4, 0x06c45d188009454f); xorshift64* from state 1 and the
 * LCG (Knuth's MMIX constants) from state 0 were computed with Python's
 * arbitrary-precision integers from the recurrences written in util.h. */
#include "testhelp.h"
#include "core/util.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_generators(void) {
  static const unsigned long long sm[3] = {0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull, 0x06c45d188009454full};
  static const unsigned long long xs[3] = {0x47e4ce4b896cdd1dull, 0xabcfa6a8e079651dull, 0xb9d10d8feb731f57ull};
  static const unsigned long long lc[3] = {0x14057b7ef767814full, 0x1a08ee1184ba6d32ull, 0x9af678222e728119ull};
  unsigned long long s1 = 0, s2 = 1, s3 = 0;
  for (int i = 0; i < 3; i++) {
    unsigned long long a = dy_rng_splitmix(&s1), b = dy_rng_xorshift(&s2), c = dy_rng_lcg(&s3);
    CHECK(a == sm[i], "splitmix64 output %d: %016llx, reference %016llx", i + 1, a, sm[i]);
    CHECK(b == xs[i], "xorshift64* output %d: %016llx, reference %016llx", i + 1, b, xs[i]);
    CHECK(c == lc[i], "LCG64 output %d: %016llx, reference %016llx", i + 1, c, lc[i]);
  }
  /* u01: the top 53 bits over 2^53, so 0 and the largest output map to
   * 0 and 1 - 2^-53 exactly */
  CHECK(dy_rng_u01(0) == 0.0, "u01(0) = 0");
  CHECK(dy_rng_u01(~0ull) == 1.0 - 0x1p-53, "u01(max) = 1 - 2^-53: %.17g", dy_rng_u01(~0ull));
  /* uniform in [a, b): 10^5 draws stay inside and their mean is (a + b) / 2
   * within 5 standard errors ((b - a) / sqrt(12 N)) */
  unsigned long long s = 0x9E3779B97F4A7C15ull;
  const int N = 100000;
  double sum = 0, lo = 1e300, hi = -1e300;
  for (int i = 0; i < N; i++) {
    double u = dy_uniform(&s, -2, 3);
    sum += u;
    if (u < lo) lo = u;
    if (u > hi) hi = u;
  }
  CHECK(lo >= -2 && hi < 3, "uniform(-2, 3) inside: [%g, %g]", lo, hi);
  double se = 5 / sqrt(12.0 * N);
  CHECK(fabs(sum / N - 0.5) <= 5 * se, "uniform(-2, 3) mean %.6f vs 0.5 (5 se = %.4f)", sum / N, 5 * se);
}

static void check_sort_and_clock(void) {
  double v[64];
  unsigned long long s = 7;
  for (int i = 0; i < 64; i++) v[i] = dy_uniform(&s, -1e6, 1e6);
  v[3] = v[10];   /* ties */
  qsort(v, 64, sizeof v[0], dy_cmp_double);
  int sorted = 1;
  for (int i = 1; i < 64; i++) sorted &= v[i - 1] <= v[i];
  CHECK(sorted, "dy_cmp_double sorts ascending");
  double a = 1, b = 2;
  CHECK(dy_cmp_double(&a, &b) < 0 && dy_cmp_double(&b, &a) > 0 && dy_cmp_double(&a, &a) == 0,
        "dy_cmp_double signs");
  double t0 = dy_now_s(), t1 = t0;
  volatile double x = 0;
  for (int i = 0; i < 1000000 && t1 == t0; i++) { x += i; t1 = dy_now_s(); }
  CHECK(t1 > t0 && t1 - t0 < 1, "dy_now_s advances: %.3g s", t1 - t0);
}

/* dy_dlsyms: libm's cos and pow called through the table give libm's
 * values; a library that is not there (after one that is not either), and
 * a function the library lacks, give -1 and say what to install */
static void check_dlsyms(void) {
  char err[256] = "";
  dyFn fn[2];
  const char* const libm[] = {"libdynid-none.so.1", "libm.so.6", NULL};
  const char* const names[] = {"cos", "pow"};
  int rc = dy_dlsyms(libm, "libc6", names, 2, fn, err, sizeof err);
  CHECK(rc == 0, "dy_dlsyms: libm.so.6 after a name that does not load (%s)", err);
  if (rc == 0) {
    double (*c)(double);
    double (*p)(double, double);
    memcpy(&c, &fn[0], sizeof c);
    memcpy(&p, &fn[1], sizeof p);
    volatile double x = 0.7;
    CHECK(c(x) == cos(x) && p(x, 3.5) == pow(x, 3.5), "dy_dlsyms: cos and pow through the table are libm's");
  }
  const char* const none[] = {"libdynid-none.so.1", NULL};
  rc = dy_dlsyms(none, "dynid-none", names, 2, fn, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "libdynid-none.so.1") && strstr(err, "install the Debian package dynid-none"),
        "dy_dlsyms: a library that is not there: '%s'", err);
  const char* const bad[] = {"cos", "dynid_no_such_function"};
  rc = dy_dlsyms(libm + 1, "libc6", bad, 2, fn, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "dynid_no_such_function"), "dy_dlsyms: a function the library lacks: '%s'", err);
}

/* dy_malloc_huge: below 1 MiB any block; from 1 MiB on 2 MiB-aligned and
 * writable over its whole size (the rounding is the allocator's) */
static void check_huge(void) {
  const size_t sizes[] = {100, (size_t)1 << 20, 3u << 20, (5u << 20) + 17};
  for (int i = 0; i < 4; i++) {
    unsigned char* p = dy_malloc_huge(sizes[i]);
    CHECK(p != NULL, "dy_malloc_huge(%zu)", sizes[i]);
    if (!p) continue;
    if (sizes[i] >= (size_t)1 << 20)
      CHECK((uintptr_t)p % (2u << 20) == 0, "dy_malloc_huge(%zu): 2 MiB aligned", sizes[i]);
    memset(p, 0xA5, sizes[i]);
    CHECK(p[0] == 0xA5 && p[sizes[i] - 1] == 0xA5, "dy_malloc_huge(%zu): written whole", sizes[i]);
    free(p);
  }
}

/* dy_calloc_fresh: zeroed and writable whole, below and above the size
 * where it maps fresh pages; dy_free_fresh takes either back, and the
 * block it keeps comes back zeroed */
static void check_fresh(void) {
  const size_t sizes[] = {1, 1000, (size_t)256 << 10, (size_t)3 << 20};
  for (int i = 0; i < 4; i++) {
    unsigned char* p = dy_calloc_fresh(sizes[i]);
    CHECK(p != NULL, "dy_calloc_fresh(%zu)", sizes[i]);
    if (!p) continue;
    size_t nz = 0;
    for (size_t k = 0; k < sizes[i]; k++) nz += p[k] != 0;
    memset(p, 0x5A, sizes[i]);
    CHECK(nz == 0 && p[sizes[i] - 1] == 0x5A, "dy_calloc_fresh(%zu): zeroed (%zu nonzero), written whole",
          sizes[i], nz);
    dy_free_fresh(p, sizes[i]);
  }
  /* a block given back is kept for the next request of its size, and
   * comes back zeroed: some of its pages written, the rest never */
  const size_t big = (size_t)3 << 20;
  unsigned char* a = dy_calloc_fresh(big);
  CHECK(a != NULL, "dy_calloc_fresh(3 MiB)");
  if (!a) return;
  a[0] = 1; a[5 * 4096 + 17] = 2; a[big - 1] = 3;
  memset(a + (1u << 20), 0x77, 300000);
  dy_free_fresh(a, big);
  unsigned char* b = dy_calloc_fresh(big);
  size_t nz = 0;
  for (size_t k = 0; b && k < big; k++) nz += b[k] != 0;
  CHECK(b == a && nz == 0, "dy_calloc_fresh: the block given back reused (%s) and zeroed (%zu nonzero)",
        b == a ? "yes" : "no", nz);
  unsigned char* c = dy_calloc_fresh(big);   /* none kept now: a fresh one */
  CHECK(c != NULL && c != b, "dy_calloc_fresh: a second block while the first is held");
  dy_free_fresh(b, big);
  dy_free_fresh(c, big);
}

int main(void) {
  check_generators();
  check_sort_and_clock();
  check_dlsyms();
  check_huge();
  check_fresh();
  return test_report();
}
