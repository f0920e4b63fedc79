/* SPDX-License-Identifier: MIT */
/* dynid tests: a harness in the spirit of Redis's testhelp.h.
 *   CHECK(cond, fmt, ...)  counts a pass or prints the failure with its file/line
 *   CHECK_REL(a, b, tol, what)  |a-b| <= tol * max(1, |b|)   (relative, floor 1)
 *   test_report()  prints "N passed, N failed" and returns the exit status
 * Every test binary ends with `return test_report();`; tests/run.sh sums.  */
#ifndef DYNID_TESTHELP_H
#define DYNID_TESTHELP_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "core/util.h"

/* one BLAS thread, as the dynid program runs (reports/main.c): results of
 * LAPACK calls in the tests and in the program then agree to the last bit
 * whether a test runs alone or under run.sh */
void openblas_set_num_threads(int num_threads);
__attribute__((constructor)) static void th_one_blas_thread(void) {
  if (!getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
}

static int th_passed, th_failed;

#define CHECK(cond, ...) do { \
  if (cond) th_passed++; \
  else { th_failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
         fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define CHECK_REL(a, b, tol, what) do { double th_a = (a), th_b = (b); \
  double th_s = fabs(th_b) > 1 ? fabs(th_b) : 1; \
  CHECK(fabs(th_a - th_b) <= (tol) * th_s, "%s: %.17g vs %.17g (rel %.3g > %.3g)", what, \
        th_a, th_b, fabs(th_a - th_b) / th_s, (double)(tol)); } while (0)

/* a sweep's size: under the sanitizers (make asan) a quarter of it, since a
 * memory error shows on the first cases and the plain build runs them all */
#if defined(__SANITIZE_ADDRESS__)
#define TH_SANITIZED 1
#else
#define TH_SANITIZED 0
#endif
#define TH_SWEEP(n) (TH_SANITIZED ? ((n) + 3) / 4 : (n))

static inline int test_report(void) {
  printf("%d passed, %d failed\n", th_passed, th_failed);
  return th_failed ? 1 : 0;
}

/* deterministic uniform random in [a, b) (xorshift64*) */
static unsigned long long th_rng = 88172645463325252ull;
static inline double th_uniform(double a, double b) { return dy_uniform(&th_rng, a, b); }
/* a shell command with its stdout and stderr into dir/stdout, dir/stderr;
 * the exit status, or -1 if it did not exit normally */
static inline int th_run(const char* dir, const char* cmd) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s >%s/stdout 2>%s/stderr", cmd, dir, dir) >= (int)sizeof buf) return -1;
  int r = system(buf);
  if (r == -1 || !WIFEXITED(r)) return -1;
  return WEXITSTATUS(r);
}

/* 1 when text holds nothing but the program's "dynid: wrote FILE (SIZE)"
 * lines (a command that succeeded without a warning) */
static inline int th_only_wrote(const char* text) {
  for (const char* s = text; *s;) {
    if (strncmp(s, "dynid: wrote ", 13)) return 0;
    const char* nl = strchr(s, '\n');
    if (!nl) return 0;
    s = nl + 1;
  }
  return 1;
}

/* whole file (first 64 kB) into one of two static buffers, alternating, so
 * that two files can be held at once; "" if absent */
static inline const char* th_slurp(const char* path) {
  static char bufs[2][1 << 16];
  static int which;
  char* buf = bufs[which ^= 1];
  FILE* f = fopen(path, "rb");
  buf[0] = 0;
  if (!f) return buf;
  size_t k = fread(buf, 1, sizeof bufs[0] - 1, f);
  buf[k] = 0;
  fclose(f);
  return buf;
}

/* the whole file, malloc'd and NUL-terminated (the caller frees it); NULL
 * if it cannot be read */
static inline char* th_read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

#endif
