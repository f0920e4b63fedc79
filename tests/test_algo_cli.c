/* dynid tests: --algo of dynid id, inertia and fd. Every algorithm computes
 * the same quantity ([Lin91], [LinFang99], [Saha99], [Renaud] and the core), so on each
 * shipped model and on a random states file the program's outputs must
 * agree with the default algorithm's to round-off (1e-9 relative to the
 * largest entry: %.17g output, O(n) sums of O(1) products); and with
 * --params (an identified PARAMS file) too. The library-level agreement is
 * tested in test_verify/test_lin; this tests the program's wiring. */
#include "testhelp.h"
#include <string.h>
#include <sys/wait.h>

#define MAXV 4096

/* run a command, read the last line of its output as numbers */
static int run_last(const char* cmd, double* v) {
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  char line[65536], last[65536] = "";
  while (fgets(line, sizeof line, p)) strcpy(last, line);
  int rc = pclose(p);
  if (rc) return -1;
  int k = 0;
  for (char* s = strtok(last, ",\n"); s && k < MAXV; s = strtok(NULL, ",\n")) v[k++] = strtod(s, NULL);
  return k;
}

static void compare(const char* what, const char* base_cmd, const char* alt_cmd) {
  static double a[MAXV], b[MAXV];
  int na = run_last(base_cmd, a), nb = run_last(alt_cmd, b);
  CHECK(na > 0 && na == nb, "%s: outputs (%d and %d values): %s", what, na, nb, alt_cmd);
  if (na <= 0 || na != nb) return;
  double scale = 0, worst = 0;
  for (int i = 0; i < na; i++) scale = fmax(scale, fabs(a[i]));
  for (int i = 0; i < na; i++) worst = fmax(worst, fabs(a[i] - b[i]));
  CHECK(worst <= 1e-9 * fmax(scale, 1e-300), "%s: largest difference %.3g (scale %.3g)", what, worst, scale);
}

int main(void) {
  const char* models[] = {"datasets/models/puma560.csv", "datasets/models/panda.csv",
                          "datasets/models/renaud6r.csv", "datasets/urdf/kuka_lwr4.urdf"};
  const char* st = "build/tests/algo_states.csv";
  for (int mi = 0; mi < 4; mi++) {
    int n = mi == 0 || mi == 2 ? 6 : 7;
    FILE* f = fopen(st, "w");
    for (int k = 0; k < 3; k++)
      for (int j = 1; j <= n; j++) fprintf(f, "%s%s%d", k || j > 1 ? "," : "", k == 0 ? "q" : k == 1 ? "qd" : "qdd", j);
    fputc('\n', f);
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < 3 * n; k++) fprintf(f, "%s%.17g", k ? "," : "", th_uniform(-2, 2));
      fputc('\n', f);
    }
    fclose(f);
    char b1[512], b2[512], what[128];
    const char* ids[] = {"ne-base", "renaud", "saha", "lin91"};
    for (int a = 0; a < 4; a++) {
      snprintf(b1, sizeof b1, "./dynid id %s %s 2>/dev/null", models[mi], st);
      snprintf(b2, sizeof b2, "./dynid id %s %s --algo %s 2>/dev/null", models[mi], st, ids[a]);
      snprintf(what, sizeof what, "%s id --algo %s", models[mi], ids[a]);
      compare(what, b1, b2);
    }
    const char* ins[] = {"lin1", "lin2", "lin3", "lin4", "lin5", "lin91", "saha"};
    for (int a = 0; a < 7; a++) {
      snprintf(b1, sizeof b1, "./dynid inertia %s %s 2>/dev/null", models[mi], st);
      snprintf(b2, sizeof b2, "./dynid inertia %s %s --algo %s 2>/dev/null", models[mi], st, ins[a]);
      snprintf(what, sizeof what, "%s inertia --algo %s", models[mi], ins[a]);
      compare(what, b1, b2);
    }
  }
  /* identified parameters: simulate, identify, then every algorithm on the
   * realisation of the PARAMS file */
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
  const char* ids[] = {"ne-base", "renaud", "saha", "lin91"};
  for (int a = 0; a < 4; a++) {
    snprintf(b1, sizeof b1, "./dynid id %s %s --params build/tests/algo_params.csv 2>/dev/null", M, st);
    snprintf(b2, sizeof b2, "./dynid id %s %s --params build/tests/algo_params.csv --algo %s 2>/dev/null", M, st, ids[a]);
    compare(ids[a], b1, b2);
  }
  snprintf(b1, sizeof b1, "./dynid inertia %s %s --params build/tests/algo_params.csv 2>/dev/null", M, st);
  for (int a = 1; a <= 5; a++) {
    char what[32];
    snprintf(b2, sizeof b2, "./dynid inertia %s %s --params build/tests/algo_params.csv --algo lin%d 2>/dev/null",
             M, st, a);
    snprintf(what, sizeof what, "identified lin%d", a);
    compare(what, b1, b2);
  }
  /* dynid bench --ops: every paper's row, beside its formula */
  {
    FILE* p = popen("./dynid bench --ops 2>/dev/null", "r");
    static char out[1 << 16];
    size_t len = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[len] = 0;
    if (p) pclose(p);
    const char* rows[] = {"lin_fang_F1_onhand_type1,", "lin_fang_F5_onhand_type1,", "lin_fang_F3_onhand_type2,",
                          "lin_fang_F4_onhand_type2,", "lin_fang_table7_type1,", "lin_fang_table7_type2,",
                          "lin_fang_F2_type2,", "renaud,181,127,", "renaud_simplified,", "saha_id_general,",
                          "saha_fd_general,", "lin91_H_general,"};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
      CHECK(strstr(out, rows[k]) != NULL, "bench --ops: no row %s", rows[k]);
  }
  /* an unknown algorithm is bad usage */
  r = system("./dynid id datasets/models/puma560.csv build/tests/algo_states.csv --algo nope >/dev/null 2>&1");
  CHECK(WEXITSTATUS(r) == 2, "unknown --algo exits 2 (got %d)", WEXITSTATUS(r));
  return test_report();
}
