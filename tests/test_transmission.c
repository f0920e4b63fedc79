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
 *    without options and motor side (currents) with --transmission, --gain
 *    per motor and --q-offset,
 *    gives the same estimate to rounding;
 *  - a coupled wrist (motor 6 turns joints 5 and 6) with known rotor
 *    inertia and friction: IAM6, FVM6, FCM6 recovered within the noise. */
#include "testhelp.h"
#include "core/io.h"
#include "core/transmission.h"
#include "ident/log.h"
#include "ident/regressor.h"
#include "core/dynamics.h"
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
/* motor current to motor torque, one per motor column (--gain) */
static const double GAIN[N6] = {0.5, 0.25, 0.125, 2, 4, 0.75};
#define GAIN_OPT "--gain 0.5,0.25,0.125,2,4,0.75"

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

/* ---------------------------------------------------------- the program */

#define MAXB 128
typedef struct { int nb; char name[MAXB][24]; double value[MAXB], std[MAXB]; } pfile;

/* name,value,std of a PARAMS file; 0 or -1 */
static int read_params(const char* path, pfile* p) {
  char* text = th_read_file(path);
  if (!text) return -1;
  p->nb = 0;
  int header = 1;
  for (char* line = strtok(text, "\n"); line && p->nb < MAXB; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    if (header) { header = 0; continue; }
    char* c1 = strchr(line, ',');
    if (!c1 || c1 - line >= 24) continue;
    if (!strncmp(line, "GAIN", 4)) continue;   /* the gains the run used, not base parameters */
    memcpy(p->name[p->nb], line, (size_t)(c1 - line));
    p->name[p->nb][c1 - line] = 0;
    char* e;
    p->value[p->nb] = strtod(c1 + 1, &e);
    p->std[p->nb] = strtod(e + 1, NULL);
    p->nb++;
  }
  free(text);
  return 0;
}

static double find_value(const pfile* p, const char* name, double* std) {
  for (int i = 0; i < p->nb; i++)
    if (!strcmp(p->name[i], name)) { if (std) *std = p->std[i]; return p->value[i]; }
  return NAN;
}

/* motor k's torque of a coupled motor with parameters mot (IAM FVM FCM)
 * added to the joint torque: tau += R_k^T (IAM R_k qdd + FVM R_k qd +
 * FCM sign(R_k qd)), written here from the definition */
static void add_motor(const double* mot, const double* qd, const double* qdd, double* tau) {
  for (int k = 0; k < N6; k++) {
    int nz = 0;
    for (int j = 0; j < N6; j++) nz += RW[k*N6 + j] != 0;
    if (nz < 2) continue;
    double a = 0, v = 0;
    for (int j = 0; j < N6; j++) { a += RW[k*N6 + j] * qdd[j]; v += RW[k*N6 + j] * qd[j]; }
    double tm = mot[0]*a + mot[1]*v + mot[2]*((v > 0) - (v < 0));
    for (int j = 0; j < N6; j++) tau[j] += RW[k*N6 + j] * tm;
  }
}

/* tau_m with R^T tau_m = tau, by Gauss-Jordan on [R^T | tau] (the test's own
 * solve, not the library's inverse) */
static void solve_RT(const double* tau, double* tm) {
  double A[N6][N6 + 1];
  for (int i = 0; i < N6; i++) {
    for (int j = 0; j < N6; j++) A[i][j] = RW[j*N6 + i];
    A[i][N6] = tau[i];
  }
  for (int k = 0; k < N6; k++) {
    int p = k;
    for (int i = k + 1; i < N6; i++) if (fabs(A[i][k]) > fabs(A[p][k])) p = i;
    for (int j = 0; j <= N6; j++) { double t = A[k][j]; A[k][j] = A[p][j]; A[p][j] = t; }
    for (int i = 0; i < N6; i++) {
      if (i == k) continue;
      double f = A[i][k] / A[k][k];
      for (int j = k; j <= N6; j++) A[i][j] -= f * A[k][j];
    }
  }
  for (int i = 0; i < N6; i++) tm[i] = A[i][N6] / A[i][i];
}

/* the joint-side log jpath (t, q, qd, qdd, tau) written motor side into
 * mpath: q_m = R (q - QOFF), qd_m = R qd, qdd_m = R qdd, tau_m from
 * R^T tau_m = tau + the coupled motor's torque (mot, NULL: none), written
 * as currents tau_m / GAIN */
static int to_motor(const char* jpath, const char* mpath, const double* mot) {
  FILE *in = fopen(jpath, "r"), *out = fopen(mpath, "w");
  if (!in || !out) { if (in) fclose(in); if (out) fclose(out); return -1; }
  char line[4096];
  int rows = 0;
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '#') continue;
    if (!rows++) { fputs(line, out); continue; }   /* t,q1..q6,qd1..,qdd1..,tau1.. */
    double x[1 + 4*N6], y[1 + 4*N6];
    char* s = line;
    for (int i = 0; i < 1 + 4*N6; i++) { x[i] = strtod(s, &s); if (*s == ',') s++; }
    double *q = x + 1, *qd = q + N6, *qdd = qd + N6, *tau = qdd + N6, qo[N6];
    for (int j = 0; j < N6; j++) qo[j] = q[j] - QOFF[j];
    if (mot) add_motor(mot, qd, qdd, tau);
    y[0] = x[0];
    for (int i = 0; i < N6; i++) {
      y[1 + i] = y[1 + N6 + i] = y[1 + 2*N6 + i] = 0;
      for (int j = 0; j < N6; j++) {
        y[1 + i] += RW[i*N6 + j] * qo[j];
        y[1 + N6 + i] += RW[i*N6 + j] * qd[j];
        y[1 + 2*N6 + i] += RW[i*N6 + j] * qdd[j];
      }
    }
    solve_RT(tau, y + 1 + 3*N6);
    for (int i = 0; i < N6; i++) y[1 + 3*N6 + i] /= GAIN[i];   /* logged as currents */
    for (int i = 0; i < 1 + 4*N6; i++) fprintf(out, "%.17g%c", y[i], i == 4*N6 ? '\n' : ',');
  }
  fclose(in);
  return fclose(out) ? -1 : 0;
}

/* dynid identify on PUMA 560 with the extra arguments, into PARAMS out */
static int identify(const char* log, const char* extra, const char* out, pfile* p) {
  char cmd[1024], path[128];
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/puma560.csv %s/%s %s -o %s/%s", tmp, log, extra, tmp, out);
  int rc = th_run(tmp, cmd);
  snprintf(path, sizeof path, "%s/stderr", tmp);
  CHECK(rc == 0, "%s: %s", cmd, th_slurp(path));
  snprintf(path, sizeof path, "%s/%s", tmp, out);
  return rc == 0 ? read_params(path, p) : -1;
}

/* motor side with --transmission and --q-offset against joint side: the
 * same estimate to rounding. The two logs differ by a map and its inverse
 * (relative rounding ~1e-15 per sample); least squares moves the estimate
 * by that times the condition number (3e5): 1e-6 of each parameter's
 * noise-driven std leaves three orders of margin. */
static void test_program_same(void) {
  static pfile pj, pm;
  char cmd[512], opts[256];
  snprintf(cmd, sizeof cmd, "./dynid simulate datasets/models/puma560.csv fourier --duration 10 --rate 200 "
           "--noise 0.01 -o %s/j.csv", tmp);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  char jp[128], mp[128];
  snprintf(jp, sizeof jp, "%s/j.csv", tmp);
  snprintf(mp, sizeof mp, "%s/m.csv", tmp);
  CHECK(to_motor(jp, mp, NULL) == 0, "motor-side log");
  snprintf(opts, sizeof opts, "--transmission %s/R.csv " GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g", tmp,
           QOFF[0], QOFF[1], QOFF[2], QOFF[3], QOFF[4], QOFF[5]);
  write_R("R.csv", RW, N6);
  if (identify("j.csv", "", "pj.csv", &pj) || identify("m.csv", opts, "pm.csv", &pm)) return;
  CHECK(pj.nb == pm.nb && pj.nb > 30, "%d and %d base parameters", pj.nb, pm.nb);
  int worst = 0;
  double wr = 0;
  for (int i = 0; i < pj.nb && i < pm.nb; i++) {
    double r = fabs(pj.value[i] - pm.value[i]) / pj.std[i];
    if (!(r <= wr)) { wr = r; worst = i; }
  }
  CHECK(wr < 1e-6 && !strcmp(pj.name[worst], pm.name[worst]), "motor side differs: %s %.17g vs %.17g (%.3g std)",
        pj.name[worst], pm.value[worst], pj.value[worst], wr);
}

/* the coupled wrist's motor: IAM6, FVM6, FCM6 recovered within 4 std (the
 * noise's 1e-2 N m on every joint) and within 1 % (their std is ~0.1 %) */
static void test_program_motor(void) {
  static pfile p;
  const double mot[3] = {2e-4, 1e-3, 0.05};   /* kg m^2, N m s/rad, N m (motor side) */
  char jp[128], mp[128], opts[256];
  snprintf(jp, sizeof jp, "%s/j.csv", tmp);
  snprintf(mp, sizeof mp, "%s/m2.csv", tmp);
  CHECK(to_motor(jp, mp, mot) == 0, "motor-side log");
  snprintf(opts, sizeof opts, "--transmission %s/R.csv " GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g --friction", tmp,
           QOFF[0], QOFF[1], QOFF[2], QOFF[3], QOFF[4], QOFF[5]);
  if (identify("m2.csv", opts, "pm2.csv", &p)) return;
  const char* names[3] = {"IAM6", "FVM6", "FCM6"};
  for (int i = 0; i < 3; i++) {
    double sd = NAN, v = find_value(&p, names[i], &sd);
    CHECK(fabs(v - mot[i]) <= 4 * sd && fabs(v - mot[i]) <= 0.01 * mot[i], "%s = %.6g +- %.3g, true %.6g",
          names[i], v, sd, mot[i]);
  }
  CHECK(isnan(find_value(&p, "IAM5", NULL)), "motor 5 turns one joint: no IAM5");
}

/* the last line of dir/stdout that starts with "all," (validate's overall
 * metrics), into buf */
static void all_line(char* buf, size_t sz) {
  char path[128];
  snprintf(path, sizeof path, "%s/stdout", tmp);
  const char* s = th_slurp(path);
  const char* a = strstr(s, "\nall,");
  snprintf(buf, sz, "%.*s", a ? (int)strcspn(a + 1, "\n") : 0, a ? a + 1 : "");
}

/* a model written with --model-out carries the transmission and the motors'
 * values (#! transmission, #! motors): validate with it alone gives the
 * metrics validate gives with the first model and --transmission */
static void test_model_file(void) {
  char cmd[1024], a[256], b[256];
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/puma560.csv %s/m2.csv --transmission %s/R.csv "
           GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g --friction --quiet -o %s/p.csv --model-out %s/mo.csv", tmp, tmp, QOFF[0],
           QOFF[1], QOFF[2], QOFF[3], QOFF[4], QOFF[5], tmp, tmp);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/puma560.csv %s/p.csv %s/m2.csv --transmission %s/R.csv "
           GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g", tmp, tmp, tmp, QOFF[0], QOFF[1], QOFF[2], QOFF[3], QOFF[4], QOFF[5]);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  all_line(a, sizeof a);
  snprintf(cmd, sizeof cmd, "./dynid validate %s/mo.csv %s/p.csv %s/m2.csv " GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g", tmp, tmp,
           tmp, QOFF[0], QOFF[1], QOFF[2], QOFF[3], QOFF[4], QOFF[5]);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  all_line(b, sizeof b);
  CHECK(a[0] && !strcmp(a, b), "validate with the written model: '%s', with --transmission: '%s'", b, a);
  /* the PARAMS file with the first model but without its transmission */
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/puma560.csv %s/p.csv %s/m2.csv", tmp, tmp);
  char path[128];
  snprintf(path, sizeof path, "%s/stderr", tmp);
  CHECK(th_run(tmp, cmd) == 1 && strstr(th_slurp(path), "unknown parameter 'IAM6' (a coupled motor's: give the "
        "transmission it was identified with, --transmission)"), "IAM6 without a transmission: %s", th_slurp(path));
}

/* the report of a set with coupled motors, on the model written with it:
 * the transmission's table holds the R the log was made with (row k motor
 * k, %.6g of the test's own matrix), motor 6 marked coupled, and the
 * motor's parameters in the base-parameter table with their units */
static void test_report_trans(void) {
  char cmd[512], path[128];
  snprintf(cmd, sizeof cmd, "./dynid report %s/mo.csv %s/p.csv %s/m2.csv " GAIN_OPT " --q-offset %g,%g,%g,%g,%g,%g "
           "--rows 1..600 --horizon 0 -o %s/r.html", tmp, tmp, tmp, QOFF[0], QOFF[1], QOFF[2], QOFF[3], QOFF[4],
           QOFF[5], tmp);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  snprintf(path, sizeof path, "%s/r.html", tmp);
  char* h = th_read_file(path);
  const char* t = h ? strstr(h, "<h3>Transmission</h3>") : NULL;
  CHECK(t != NULL, "report: a transmission table");
  if (t) {
    int found = 1;
    for (int k = 0; k < N6; k++) {   /* the row's cells, in order, right after its motor number */
      char cells[256];
      size_t L = (size_t)snprintf(cells, sizeof cells, "<tr><td>%d</td>", k + 1);
      for (int j = 0; j < N6; j++) L += (size_t)snprintf(cells + L, sizeof cells - L, "<td>%.6g</td>", RW[k*N6 + j]);
      found &= strstr(t, cells) != NULL;
    }
    CHECK(found, "report: R as the log was made with");
    /* each motor's gain right after its row's last entry, the offsets in
     * one row: the values this test passed (--gain, --q-offset) */
    int gains = 1;
    for (int k = 0; k < N6; k++) {
      char cells[64];
      snprintf(cells, sizeof cells, "<td>%.6g</td><td>%.6g</td><td class=\"t\">", RW[k*N6 + N6 - 1], GAIN[k]);
      char key[32];
      snprintf(key, sizeof key, "<tr><td>%d</td>", k + 1);
      const char* row = strstr(t, key);
      gains &= row && strstr(row, cells) && strstr(row, cells) < strstr(row, "</tr>");
    }
    CHECK(gains, "report: each motor's gain as given (--gain)");
    char offs[256];
    size_t L = (size_t)snprintf(offs, sizeof offs, "<tr><td>q offset [rad|m]</td>");
    for (int j = 0; j < N6; j++) L += (size_t)snprintf(offs + L, sizeof offs - L, "<td>%.6g</td>", QOFF[j]);
    CHECK(strstr(t, offs) != NULL, "report: the offsets as given (--q-offset): want %s", offs);
    CHECK(strstr(t, "<tr><td>6</td>") && strstr(strstr(t, "<tr><td>6</td>"), "yes: IAM, FVM, FCM"),
          "report: motor 6 coupled");
  }
  CHECK(h && strstr(h, "id=\"bp-IAM6\"><td class=\"l\">IAM6</td><td class=\"u\">kg&#183;m<sup>2</sup>") &&
            strstr(h, "id=\"bp-FVM6\"><td class=\"l\">FVM6</td><td class=\"u\">N&#183;m&#183;s/rad") &&
            strstr(h, "id=\"bp-FCM6\"><td class=\"l\">FCM6</td><td class=\"u\">N&#183;m<"),
        "report: the motor's parameters with their units");
  free(h);
}

/* a model table's directives: n x n numbers, motors only with a
 * transmission and as many as its coupled motors */
static void test_table_directives(void) {
  static const char* rows = "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
                            "1,R,0,0,0,0,1,0,0,0,1,0,0,1,0,1\n2,R,0,1,0,0,1,0,0,0,1,0,0,1,0,1\n";
  static const struct { const char* dir; const char* want; } C[] = {
    {"#! transmission, 1, 0, 0\n", ":1: 'transmission' takes 4 numbers (n x n for 2 joints"},
    {"#! transmission, 1, 2, 2, 4\n", ":1: singular transmission"},
    {"#! motors, 1, 2, 3\n", ":1: 'motors' without a 'transmission' directive"},
    {"#! transmission, 1, 0, 1, 1\n#! motors, 1, 2\n", ":2: 'motors' takes 3 numbers (IAM, FVM, FCM"}};
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    char text[1024], path[128], err[DY_ERRSZ] = "", want[256];
    snprintf(text, sizeof text, "%s%s", C[i].dir, rows);
    write_text("tab.csv", text);
    snprintf(path, sizeof path, "%s/tab.csv", tmp);
    snprintf(want, sizeof want, "%s%s", path, C[i].want);
    dyModel* m = NULL;
    int rc = dy_load_table(path, NULL, &m, err, sizeof err);
    CHECK(rc == -1 && !m && !strncmp(err, want, strlen(want)), "case %zu: '%s', want '%s'", i, err, want);
    dy_free_model(m);
  }
}

/* ------------------------------------------------- the dynamics, in C */

/* PUMA 560 with RW and motor parameters mot on its coupled motor 6, at a
 * random state: (1) the regressor with the motor columns times the full
 * vector equals Newton-Euler's torque (two computations of one linear
 * model; 1e-12 relative: a few rounding steps of terms of size 10..100);
 * (2) Newton-Euler's torque minus the same model without motors equals
 * this test's own R_6^T (...) (add_motor); (3) H from the CRBA equals the
 * columns tau(e_k) - tau(0) of Newton-Euler at zero velocity; (4) forward
 * dynamics then inverse returns the torque; (5) the batch regressor equals
 * the single one bit for bit (the same operations in the same order). */
static void test_dynamics(void) {
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_table("datasets/models/puma560.csv", NULL, &m, err, sizeof err)) { CHECK(0, "%s", err); return; }
  dyModel* m0 = dy_copy_model(m);
  CHECK(dy_set_transmission(m, RW, err, sizeof err) == 0 && m->nmot == 1 && dy_npar(m) == 14*N6 + 3, "R: %s", err);
  const double mot[3] = {2e-4, 1e-3, 0.05};
  memcpy(m->par + 14*N6, mot, sizeof mot);
  dyData* d = dy_make_data(m);
  int nc = dyi_ncols(m, 1);
  double Y[N6 * (17*N6)], q[N6], qd[N6], qdd[N6], t1[N6], t0[N6], ty[N6], tm[N6] = {0}, H[N6*N6], back[N6];
  double worst[5] = {0};
  for (int s = 0; s < 20; s++) {
    for (int j = 0; j < N6; j++) { q[j] = th_uniform(-2, 2); qd[j] = th_uniform(-2, 2); qdd[j] = th_uniform(-3, 3); }
    dyi_regressor(m, d, q, qd, qdd, 1, Y, N6);
    dy_rnea(m, d, m->par, q, qd, qdd, t1);
    dy_rnea(m0, d, m0->par, q, qd, qdd, t0);
    memset(tm, 0, sizeof tm);
    add_motor(mot, qd, qdd, tm);
    for (int i = 0; i < N6; i++) {
      ty[i] = 0;
      for (int k = 0; k < nc; k++) ty[i] += Y[i + N6*k] * m->par[k];
      worst[0] = fmax(worst[0], fabs(ty[i] - t1[i]) / (1 + fabs(t1[i])));
      worst[1] = fmax(worst[1], fabs(t1[i] - t0[i] - tm[i]) / (1 + fabs(t1[i])));
    }
    dy_crba(m, d, m->par, q, H);
    for (int k = 0; k < N6; k++) {
      double e[N6] = {0}, ta[N6], tb[N6];
      e[k] = 1;
      dy_rnea(m, d, m->par, q, NULL, e, ta);
      dy_rnea(m, d, m->par, q, NULL, NULL, tb);
      for (int i = 0; i < N6; i++) worst[2] = fmax(worst[2], fabs(H[i*N6 + k] - (ta[i] - tb[i])) / (1 + fabs(H[i*N6 + k])));
    }
    double acc[N6];
    CHECK(dy_fd_aba(m, d, m->par, q, qd, t1, acc) == 0, "forward dynamics");
    dy_rnea(m, d, m->par, q, qd, acc, back);
    for (int i = 0; i < N6; i++) worst[3] = fmax(worst[3], fabs(back[i] - t1[i]) / (1 + fabs(t1[i])));
  }
  CHECK(worst[0] < 1e-12 && worst[1] < 1e-12 && worst[2] < 1e-12 && worst[3] < 1e-10,
        "Y pi vs NE %.3g, motor torque %.3g, CRBA %.3g, fd round trip %.3g", worst[0], worst[1], worst[2], worst[3]);
  dyiRegBatch* w = dyi_regressor_batch_make(m, 1);
  double Yb[N6 * 17*N6 * 3], qb[N6*3], qdb[N6*3], qddb[N6*3];
  for (int i = 0; i < N6*3; i++) { qb[i] = th_uniform(-2, 2); qdb[i] = th_uniform(-2, 2); qddb[i] = th_uniform(-3, 3); }
  dyi_regressor_batch(m, w, 3, qb, qdb, qddb, Yb);
  /* the batch kernels take sin and cos from their own 8-lane routine (within
   * 2 ulp of libm's), so they agree to rounding, not to the bit */
  double dev = 0;
  for (int b = 0; b < 3; b++) {
    for (int j = 0; j < N6; j++) { q[j] = qb[j*3 + b]; qd[j] = qdb[j*3 + b]; qdd[j] = qddb[j*3 + b]; }
    dyi_regressor(m, d, q, qd, qdd, 1, Y, N6);
    for (int c = 0; c < nc; c++)
      for (int i = 0; i < N6; i++) dev = fmax(dev, fabs(Yb[(c*N6 + i)*3 + b] - Y[i + N6*c]) / (1 + fabs(Y[i + N6*c])));
  }
  CHECK(dev < 1e-13, "batch regressor with motor columns differs from the single one by %.3g", dev);
  dyi_regressor_batch_free(w);
  dy_free_data(d); dy_free_model(m); dy_free_model(m0);
}

/* --------------------------------------------------------------- URDF */

/* the shipped KUKA LWR4+ URDF with its transmissions replaced by trans,
 * loaded with --transmission urdf; NULL with err set */
static dyModel* kuka_with(const char* trans, char* err, int errsz) {
  char* text = th_read_file("datasets/urdf/kuka_lwr4.urdf");
  char path[128];
  snprintf(path, sizeof path, "%s/k.urdf", tmp);
  char* cut = text ? strstr(text, "<transmission") : NULL;
  if (!cut) { free(text); snprintf(err, (size_t)errsz, "no kuka URDF"); return NULL; }
  *cut = 0;
  FILE* f = fopen(path, "w");
  fprintf(f, "%s%s</robot>\n", text, trans);
  fclose(f);
  free(text);
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.urdf_trans = 1;
  dyModel* m = NULL;
  return dy_load_urdf(path, &o, &m, err, errsz) ? NULL : m;
}

#define TJ(name, extra) "<joint name=\"" name "\">" extra "</joint>"
#define TA(name, extra) "<actuator name=\"" name "\">" extra "</actuator>"
#define MR(x) "<mechanicalReduction>" x "</mechanicalReduction>"
#define ROLE(x) "<role>" x "</role>"

/* ros_control's three types as R: joint 1 simple (100), joints 2, 3 a
 * four-bar linkage (n_a = 20, 30; n_j = 4, 5), joints 5, 6 a differential
 * (n_a = 50, -40; n_j = 2, 3) given with its roles in reverse order;
 * expected rows written out from the velocity equations:
 *   simple   qd_a = 100 qd_1
 *   four-bar qd_a1 = 20*4 qd_2,  qd_a2 = 30 (qd_2 + 5 qd_3)
 *   diff     qd_a1 = 50 (2 qd_5 + 3 qd_6),  qd_a2 = -40 (2 qd_5 - 3 qd_6) */
static void test_urdf(void) {
  const char* T =
    "<transmission name=\"t1\"><type>transmission_interface/SimpleTransmission</type>"
    TJ("lwr_0_joint", "") TA("m1", MR("100")) "</transmission>\n"
    "<transmission name=\"t2\"><type>transmission_interface/FourBarLinkageTransmission</type>"
    TA("m2", ROLE("actuator1") MR("20")) TA("m3", ROLE("actuator2") MR("30"))
    TJ("lwr_1_joint", ROLE("joint1") MR("4")) TJ("lwr_2_joint", ROLE("joint2") MR("5")) "</transmission>\n"
    "<transmission name=\"t3\"><type>transmission_interface/DifferentialTransmission</type>"
    TA("m6", ROLE("actuator2") MR("-40")) TA("m5", ROLE("actuator1") MR("50"))
    TJ("lwr_5_joint", ROLE("joint2") MR("3") "<offset>0.1</offset>") TJ("lwr_4_joint", ROLE("joint1") MR("2"))
    "</transmission>\n";
  char err[DY_ERRSZ] = "";
  dyModel* m = kuka_with(T, err, sizeof err);
  CHECK(m != NULL, "URDF with transmissions: %s", err);
  if (!m) return;
  const int n = 7;
  double want[7*7] = {0};
  for (int j = 0; j < n; j++) want[j*n + j] = 1;
  want[0] = 100;
  want[1*n + 1] = 80;
  want[2*n + 1] = 30; want[2*n + 2] = 150;
  want[4*n + 4] = 100; want[4*n + 5] = 150;
  want[5*n + 4] = -80; want[5*n + 5] = 120;
  int same = m->has_trans && m->n == n;
  for (int i = 0; same && i < n*n; i++) same = m->trans[i] == want[i];
  CHECK(same, "R from the URDF's transmissions differs from the equations'");
  CHECK(m->nmot == 3 && m->mot_k[0] == 2 && m->mot_k[1] == 4 && m->mot_k[2] == 5, "coupled motors: %d", m->nmot);
  CHECK(strstr(m->notes, "3 transmissions read (1 simple, 1 differential, 1 four-bar linkage), 3 coupled motors")
        && strstr(m->notes, "<offset> is not applied"), "the note: %s", m->notes);
  dy_free_model(m);
  /* an unknown type and a transmission of no chain joint are refused */
  m = kuka_with("<transmission name=\"x\"><type>transmission_interface/BeltTransmission</type>"
                TJ("lwr_0_joint", "") TA("m", "") "</transmission>\n", err, sizeof err);
  CHECK(!m && strstr(err, "of type 'transmission_interface/BeltTransmission': dynid reads"), "%s", err);
  dy_free_model(m);
  m = kuka_with("<transmission name=\"x\"><type>SimpleTransmission</type>" TJ("elsewhere", "")
                TA("m", MR("0")) "</transmission>\n", err, sizeof err);
  CHECK(!m && strstr(err, "<mechanicalReduction>: '0' is not a non-zero finite number"), "%s", err);
  dy_free_model(m);
  m = kuka_with("", err, sizeof err);
  CHECK(!m && strstr(err, "--transmission urdf: no <transmission>"), "%s", err);
  dy_free_model(m);
}

/* R written into a URDF by dy_write_urdf and read back with
 * --transmission urdf (dyLoadOpt.urdf_trans); NULL with err set. The
 * writer's return into *wrc, its warning into w. */
static dyModel* urdf_round(const double* R, int* wrc, char* w, int wsz) {
  char err[DY_ERRSZ] = "", path[128];
  dyModel* m = NULL;
  if (dy_load_table("datasets/models/puma560.csv", NULL, &m, err, sizeof err) ||
      dy_set_transmission(m, R, err, sizeof err)) { CHECK(0, "%s", err); dy_free_model(m); return NULL; }
  snprintf(path, sizeof path, "%s/rt.urdf", tmp);
  FILE* f = fopen(path, "w");
  *wrc = dy_write_urdf(f, m, m->par, NULL, w, wsz);
  fclose(f);
  dy_free_model(m);
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.urdf_trans = 1;
  m = NULL;
  if (dy_load_urdf(path, &o, &m, err, sizeof err)) { CHECK(0, "reading back: %s", err); return NULL; }
  return m;
}

/* the largest |R_back - R| / |R| entry by entry (zeros must stay zero) */
static double trans_dev(const dyModel* m, const double* R) {
  double dev = m->has_trans ? 0 : INFINITY;
  for (int i = 0; m->has_trans && i < N6*N6; i++)
    dev = fmax(dev, R[i] == 0 ? (m->trans[i] == 0 ? 0 : INFINITY) : fabs(m->trans[i] - R[i]) / fabs(R[i]));
  return dev;
}

/* --model-out x.urdf: every form ros_control has, read back to the same R
 * within 1e-15 relative (the reader multiplies a reduction by a quotient
 * the writer formed: two roundings, 4.4e-16): simple rows (one a gear of
 * 1, which needs no element, one negative), a four-bar linkage either way
 * round, a differential; the 3x3 coupled wrist has no form: the one
 * warning names its rows, they read back as unit rows, the rest as R */
static void test_urdf_write(void) {
  static const double A[2][N6*N6] = {
    {62.6, 0, 0, 0, 0, 0,  0, 1, 0, 0, 0, 0,  0, 0, 53.7, 0, 0, 0,  0, 0, 20, 76, 0, 0,
     0, 0, 0, 0, 50, 30,  0, 0, 0, 0, 40, -24},
    {-62.6, 0, 0, 0, 0, 0,  0, 107.8, 0, 0, 0, 0,  0, 0, 53.7, 20, 0, 0,  0, 0, 0, 76, 0, 0,
     0, 0, 0, 0, 71.9, 0,  0, 0, 0, 0, 0, 76.7}};
  for (int c = 0; c < 2; c++) {
    int wrc = -2;
    char w[DY_ERRSZ] = "";
    dyModel* m = urdf_round(A[c], &wrc, w, sizeof w);
    double dev = m ? trans_dev(m, A[c]) : INFINITY;
    CHECK(wrc == 0 && dev <= 1e-15, "case %d: R read back from the URDF within %.3g (writer %d: %s)", c, dev, wrc, w);
    dy_free_model(m);
  }
  static const double RW3[N6*N6] = {62.6, 0, 0, 0, 0, 0,  0, 107.8, 0, 0, 0, 0,  0, 0, -53.7, 0, 0, 0,
                                    0, 0, 0, 76, 0, 0,  0, 0, 0, 60, 71.9, 0,  0, 0, 0, 50, -38.35, 76.7};
  double want[N6*N6];
  memcpy(want, RW3, sizeof want);
  for (int j = 0; j < N6; j++) want[4*N6 + j] = want[5*N6 + j] = 0;
  want[4*N6 + 4] = want[5*N6 + 5] = 1;
  int wrc = -2;
  char w[DY_ERRSZ] = "";
  dyModel* m = urdf_round(RW3, &wrc, w, sizeof w);
  double dev = m ? trans_dev(m, want) : INFINITY;
  CHECK(wrc == 1 && strstr(w, "transmission rows 5, 6 (motors turning several joints in no ros_control form") &&
        !strchr(w, '\n') && dev == 0, "3x3 wrist: writer %d, '%s', the rest read back within %.3g", wrc, w, dev);
  dy_free_model(m);
}

/* the first CSV field of each line of dir/stdout after its header line (not
 * '#'), joined by ' ' into buf; their count */
static int first_fields(char* buf, size_t sz) {
  char path[128];
  snprintf(path, sizeof path, "%s/stdout", tmp);
  const char* s = th_slurp(path);
  int cnt = 0, header = 1;
  size_t L = 0;
  buf[0] = 0;
  for (const char* l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
    if (*l == '#' || *l == '\n') continue;
    if (header) { header = 0; continue; }
    int w = (int)strcspn(l, ",\n");
    if (L + (size_t)w + 2 < sz) L += (size_t)snprintf(buf + L, sz - L, "%s%.*s", cnt ? " " : "", w, l);
    cnt++;
  }
  return cnt;
}

/* dynid excite --friction --transmission designs for the base set that
 * dynid base gives with the same options: the parameters whose expected
 * std it prints are base's, name for name and in order (the coupled
 * motors' IAM5..FCM6 among them), as many as the count it announces; and
 * that set is not the one without the transmission (6 fewer) */
static void test_excite_motors(void) {
  static char ex[4096], bs[4096];
  char cmd[512], path[128], want[64];
  write_R("R3.csv", (const double[N6*N6]){62.6, 0, 0, 0, 0, 0,  0, 107.8, 0, 0, 0, 0,  0, 0, -53.7, 0, 0, 0,
                                          0, 0, 0, 76, 0, 0,  0, 0, 0, 60, 71.9, 0,  0, 0, 0, 50, -38.35, 76.7}, N6);
  snprintf(cmd, sizeof cmd, "./dynid excite datasets/models/puma560.csv --friction --transmission %s/R3.csv --harmonics 3 "
           "--starts 1 --screen 0 --maxeval 10 --polish 0 --samples 40 --threads 1 -o %s/traj.csv", tmp, tmp);
  snprintf(path, sizeof path, "%s/stderr", tmp);
  CHECK(th_run(tmp, cmd) == 0, "%s: %s", cmd, th_slurp(path));
  int ne = first_fields(ex, sizeof ex);
  snprintf(want, sizeof want, "excite: %d base parameters (khalil)", ne);
  CHECK(strstr(th_slurp(path), want) != NULL, "excite announces %d base parameters: %s", ne, th_slurp(path));
  snprintf(cmd, sizeof cmd, "./dynid base datasets/models/puma560.csv --friction --transmission %s/R3.csv", tmp);
  CHECK(th_run(tmp, cmd) == 0, "%s", cmd);
  int nb = first_fields(bs, sizeof bs);
  CHECK(ne == nb && !strcmp(ex, bs) && strstr(ex, "IAM5") && strstr(ex, "FCM6"), "excite's set (%d) '%s' against "
        "base's (%d) '%s'", ne, ex, nb, bs);
  snprintf(cmd, sizeof cmd, "./dynid base datasets/models/puma560.csv --friction");
  CHECK(th_run(tmp, cmd) == 0 && first_fields(bs, sizeof bs) == nb - 6, "without the transmission: 6 fewer");
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_trans_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  test_reader();
  test_invert();
  test_program_same();
  if (!TH_SANITIZED) {   /* three more runs of the program: 0.5 s here, 2 s under the sanitizers */
    test_program_motor();
    test_model_file();
    test_report_trans();
    test_excite_motors();
  }
  test_table_directives();
  test_urdf();
  test_urdf_write();
  test_dynamics();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
  return test_report();
}
