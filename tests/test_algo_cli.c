/* SPDX-License-Identifier: MIT */
/* dynid tests: --algo of dynid id, inertia and fd. Every algorithm computes
 * the same quantity ([Lin91], [LinFang99], [Saha99], [Renaud] and the core), so on each
 * shipped model and on a random states file (three states) the program's
 * outputs must have the same header and one row per state, every row
 * agreeing with the default algorithm's to round-off (1e-9 relative to the
 * row's largest entry: %.17g output, O(n) sums of O(1) products); and with
 * --params (an identified PARAMS file) too. The library-level agreement is
 * tested in test_verify/test_lin; this tests the program's wiring. */
#include "testhelp.h"
#include <string.h>
#include <sys/wait.h>

#define MAXV 4096
#define MAXROWS 8

/* An output table: its header line and every data row as numbers. */
typedef struct {
  char head[65536];
  int rows, cols;             /* data rows; values per row (the same on every row) */
  double v[MAXROWS][MAXV];
} table_t;

/* run a command and read its output: the first line is the header, every
 * following line one row of numbers. 0, or -1 if the command failed, a row
 * has another number of values than the first, or there are too many. */
static int run_table(const char* cmd, table_t* t) {
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  static char line[65536];
  int bad = 0;
  t->head[0] = 0; t->rows = 0; t->cols = -1;
  if (fgets(line, sizeof line, p)) snprintf(t->head, sizeof t->head, "%s", line);
  while (fgets(line, sizeof line, p)) {
    if (t->rows == MAXROWS) { bad = 1; continue; }
    int k = 0;
    for (char* s = strtok(line, ",\n"); s && k < MAXV; s = strtok(NULL, ",\n")) {
      char* end;
      t->v[t->rows][k++] = strtod(s, &end);
      if (end == s) bad = 1;   /* not a number */
    }
    if (t->cols >= 0 && k != t->cols) bad = 1;
    t->cols = k;
    t->rows++;
  }
  if (pclose(p) || bad) return -1;
  return 0;
}

/* both commands print the same header and `rows` rows (one per state) that
 * agree row by row: each row to 1e-9 of its own largest entry, so that a
 * row of small values is not hidden behind a row of large ones */
static void compare(const char* what, const char* base_cmd, const char* alt_cmd, int rows) {
  static table_t a, b;
  int ra = run_table(base_cmd, &a), rb = run_table(alt_cmd, &b);
  CHECK(ra == 0 && rb == 0 && a.rows == rows && b.rows == rows && a.cols > 0 && a.cols == b.cols &&
        !strcmp(a.head, b.head), "%s: outputs (%d and %d rows of %d and %d values, want %d rows; "
        "headers %s): %s", what, a.rows, b.rows, a.cols, b.cols, rows,
        strcmp(a.head, b.head) ? "differ" : "agree", alt_cmd);
  if (ra || rb || a.rows != rows || b.rows != rows || a.cols <= 0 || a.cols != b.cols) return;
  for (int r = 0; r < rows; r++) {
    double scale = 0, worst = 0;
    for (int i = 0; i < a.cols; i++) scale = fmax(scale, fabs(a.v[r][i]));
    for (int i = 0; i < a.cols; i++) {
      double d = fabs(a.v[r][i] - b.v[r][i]);
      worst = d == d ? fmax(worst, d) : INFINITY;   /* a NaN fails */
    }
    CHECK(worst <= 1e-9 * fmax(scale, 1e-300), "%s row %d: largest difference %.3g (scale %.3g)", what,
          r + 1, worst, scale);
  }
}

/* the algorithms of `dynid id --algo` and `dynid inertia --algo` */
static const char* const id_algos[] = {"ne-base", "renaud", "saha", "lin91"};
static const char* const inertia_algos[] = {"lin1", "lin2", "lin3", "lin4", "lin5", "lin91", "saha"};

/* three random states of n joints into the file st */
static void write_random_states(const char* st, int n) {
  FILE* f = fopen(st, "w");
  for (int k = 0; k < 3; k++)
    for (int j = 1; j <= n; j++) fprintf(f, "%s%s%d", k || j > 1 ? "," : "", k == 0 ? "q" : k == 1 ? "qd" : "qdd", j);
  fputc('\n', f);
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < 3 * n; k++) fprintf(f, "%s%.17g", k ? "," : "", th_uniform(-2, 2));
    fputc('\n', f);
  }
  fclose(f);
}

/* every --algo of id and inertia on model at the states st against the default */
static void check_model_algos(const char* model, const char* st) {
  char b1[512], b2[512], what[128];
  for (int a = 0; a < 4; a++) {
    snprintf(b1, sizeof b1, "./dynid id %s %s 2>/dev/null", model, st);
    snprintf(b2, sizeof b2, "./dynid id %s %s --algo %s 2>/dev/null", model, st, id_algos[a]);
    snprintf(what, sizeof what, "%s id --algo %s", model, id_algos[a]);
    compare(what, b1, b2, 3);
  }
  for (int a = 0; a < 7; a++) {
    snprintf(b1, sizeof b1, "./dynid inertia %s %s 2>/dev/null", model, st);
    snprintf(b2, sizeof b2, "./dynid inertia %s %s --algo %s 2>/dev/null", model, st, inertia_algos[a]);
    snprintf(what, sizeof what, "%s inertia --algo %s", model, inertia_algos[a]);
    compare(what, b1, b2, 3);
  }
}

/* identified parameters: simulate, identify, then every algorithm on the
 * realisation of the PARAMS file, at one state written into st */
static void check_params_algos(const char* st) {
  const char* M = "datasets/models/puma560.csv";
  int r = system("./dynid simulate datasets/models/puma560.csv fourier --seed 5 --noise 0.01 "
                 "-o build/tests/algo_log.csv 2>/dev/null && ./dynid identify datasets/models/puma560.csv "
                 "build/tests/algo_log.csv --friction -o build/tests/algo_params.csv 2>/dev/null");
  CHECK(r == 0, "simulate and identify for --params (status %d)", r);
  FILE* f = fopen(st, "w");
  fprintf(f, "q1,q2,q3,q4,q5,q6,qd1,qd2,qd3,qd4,qd5,qd6,qdd1,qdd2,qdd3,qdd4,qdd5,qdd6\n"
             "0.3,-0.2,0.5,1,-1,0.4,0.5,-0.5,1,0.2,0.1,-0.3,1,-2,0.5,1,2,-1\n");
  fclose(f);
  char b1[512], b2[512];
  for (int a = 0; a < 4; a++) {
    snprintf(b1, sizeof b1, "./dynid id %s %s --params build/tests/algo_params.csv 2>/dev/null", M, st);
    snprintf(b2, sizeof b2, "./dynid id %s %s --params build/tests/algo_params.csv --algo %s 2>/dev/null", M, st,
             id_algos[a]);
    compare(id_algos[a], b1, b2, 1);
  }
  snprintf(b1, sizeof b1, "./dynid inertia %s %s --params build/tests/algo_params.csv 2>/dev/null", M, st);
  for (int a = 1; a <= 5; a++) {
    char what[32];
    snprintf(b2, sizeof b2, "./dynid inertia %s %s --params build/tests/algo_params.csv --algo lin%d 2>/dev/null",
             M, st, a);
    snprintf(what, sizeof what, "identified lin%d", a);
    compare(what, b1, b2, 1);
  }
}

/* dynid bench --ops: every paper's row, beside its formula */
static void check_bench_ops(void) {
  static const char* const rows[] = {"lin_fang_F1_onhand_type1,", "lin_fang_F5_onhand_type1,",
                                     "lin_fang_F3_onhand_type2,", "lin_fang_F4_onhand_type2,",
                                     "lin_fang_table7_type1,", "lin_fang_table7_type2,", "lin_fang_F2_type2,",
                                     "renaud,181,127,", "renaud_simplified,", "saha_id_general,",
                                     "saha_fd_general,", "lin91_H_general,"};
  FILE* p = popen("./dynid bench --ops 2>/dev/null", "r");
  static char out[1 << 16];
  size_t len = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[len] = 0;
  if (p) pclose(p);
  for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
    CHECK(strstr(out, rows[k]) != NULL, "bench --ops: no row %s", rows[k]);
}

int main(void) {
  static const char* const models[] = {"datasets/models/puma560.csv", "datasets/models/panda.csv",
                                       "datasets/models/renaud6r.csv", "datasets/urdf/kuka_lwr4.urdf"};
  const char* st = "build/tests/algo_states.csv";
  for (int mi = 0; mi < 4; mi++) {
    write_random_states(st, mi == 0 || mi == 2 ? 6 : 7);
    check_model_algos(models[mi], st);
  }
  check_params_algos(st);
  check_bench_ops();
  /* an unknown algorithm is bad usage */
  int r = system("./dynid id datasets/models/puma560.csv build/tests/algo_states.csv --algo nope >/dev/null 2>&1");
  CHECK(WEXITSTATUS(r) == 2, "unknown --algo exits 2 (got %d)", WEXITSTATUS(r));
  return test_report();
}
