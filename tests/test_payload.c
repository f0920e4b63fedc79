/* SPDX-License-Identifier: MIT */
/* dynid tests: the payload (ident/payload.h, `dynid payload`).
 *  1. the map A: the torque of the model with a load merged into link n by
 *     the parallel-axis theorem from its centre of mass (not by A) minus
 *     the torque without equals Y_n A phi_T on random states and random tip
 *     frames, to 1e-10 relative; the physical form and its Jacobian;
 *  2. end to end: the Panda without a load simulated and identified, the
 *     load merged into link 7 in a model table, the loaded log simulated
 *     with the same friction, `dynid payload` recovers it, with the
 *     identity tip and with a rotated, offset tip ('#! tip' line); with
 *     torque noise the truth lies within 3 std;
 *  3. --mass fixes the mass;
 *  4. a log where only joint 1 moves leaves parameters undetermined (empty
 *     rows) and refuses a URDF;
 *  5. bad inputs: one line, nothing written. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "ident/payload.h"
#include "ident/log.h"
#include "ident/regressor.h"
#include <string.h>

#define DIR "build/tests/payload"
#define PANDA "datasets/models/panda.csv"

/* the load of the end-to-end tests, in the tip frame */
static const double LM = 2.47, LC[3] = {0.025, 0.173, 0.047};
static const double LI[6] = {0.012, 0.001, -0.0015, 0.008, 0.0005, 0.015};

/* a rotation from a unit quaternion of random numbers, row-major */
static void random_rot(double R[9]) {
  double w = th_uniform(-1, 1), x = th_uniform(-1, 1), y = th_uniform(-1, 1), z = th_uniform(-1, 1);
  double s = sqrt(w*w + x*x + y*y + z*z);
  w /= s; x /= s; y /= s; z /= s;
  double M[9] = {1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y),
                 2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x),
                 2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)};
  memcpy(R, M, sizeof M);
}

/* add a load (m, c, Ic in the tip frame T) to link n of par, physically:
 * its centre of mass and inertia carried into frame n, then the
 * parallel-axis theorem to O_n (independent of dyi_payload_map) */
static void merge_load(const dyModel* m, double* par, double lm, const double c[3], const double Ic[6]) {
  const double* R = m->tip_T;
  const double* p = m->tip_T + 9;
  double cn[3], I[9] = {Ic[0], Ic[1], Ic[2], Ic[1], Ic[3], Ic[4], Ic[2], Ic[4], Ic[5]}, RI[9], In[9];
  for (int a = 0; a < 3; a++) cn[a] = R[a*3]*c[0] + R[a*3 + 1]*c[1] + R[a*3 + 2]*c[2] + p[a];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      RI[a*3 + b] = 0;
      for (int k = 0; k < 3; k++) RI[a*3 + b] += R[a*3 + k] * I[k*3 + b];
    }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      In[a*3 + b] = 0;
      for (int k = 0; k < 3; k++) In[a*3 + b] += RI[a*3 + k] * R[b*3 + k];
    }
  const double cc = cn[0]*cn[0] + cn[1]*cn[1] + cn[2]*cn[2];
  double* L = par + 10 * (m->n - 1);
  static const int ra[6] = {0, 0, 0, 1, 1, 2}, rb[6] = {0, 1, 2, 1, 2, 2};
  for (int i = 0; i < 6; i++) L[i] += In[ra[i]*3 + rb[i]] + lm * ((ra[i] == rb[i]) * cc - cn[ra[i]]*cn[rb[i]]);
  for (int a = 0; a < 3; a++) L[6 + a] += lm * cn[a];
  L[9] += lm;
}

/* 1. A against Newton-Euler with merged parameters; the physical form */
static void test_map(void) {
  dyModel* m;
  char err[DY_ERRSZ];
  CHECK(dy_load_model(PANDA, &(dyLoadOpt){0}, &m, err, sizeof err) == 0, "load %s: %s", PANDA, err);
  if (!m) return;
  const int n = m->n, np = dy_npar(m);
  dyData* d = dy_make_data(m);
  double* par = malloc(sizeof(double) * (size_t)np);
  double* Y = malloc(sizeof(double) * (size_t)(n * dyi_ncols(m, 0)));
  double worst = 0, worst_phys = 0, worst_jac = 0;
  for (int trial = 0; trial < 20; trial++) {
    random_rot(m->tip_T);
    for (int a = 0; a < 3; a++) m->tip_T[9 + a] = th_uniform(-0.3, 0.3);
    double lm = th_uniform(0.1, 5), c[3], Ic[6], phi[10], A[100];
    for (int a = 0; a < 3; a++) c[a] = th_uniform(-0.2, 0.2);
    double B[9];   /* Ic = B B^T + 0.001 I: positive definite */
    for (int k = 0; k < 9; k++) B[k] = th_uniform(-0.1, 0.1);
    static const int ra[6] = {0, 0, 0, 1, 1, 2}, rb[6] = {0, 1, 2, 1, 2, 2};
    for (int i = 0; i < 6; i++)
      Ic[i] = B[ra[i]*3]*B[rb[i]*3] + B[ra[i]*3 + 1]*B[rb[i]*3 + 1] + B[ra[i]*3 + 2]*B[rb[i]*3 + 2] + 0.001*(ra[i] == rb[i]);
    dyi_payload_phys_to_std(lm, c, Ic, phi);
    dyi_payload_map(m->tip_T, A);
    memcpy(par, m->par, sizeof(double) * (size_t)np);
    merge_load(m, par, lm, c, Ic);
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
    th_random_state(n, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, t0);
    dy_rnea(m, d, par, q, qd, qdd, t1);
    dyi_regressor(m, d, q, qd, qdd, 0, Y, n);
    const double* Yn = Y + (size_t)n * 10 * (n - 1);
    double big = 0, dif = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int l = 0; l < 10; l++)
        for (int k = 0; k < 10; k++) s += Yn[i + n*l] * A[l*10 + k] * phi[k];
      big = fmax(big, fabs(t1[i] - t0[i]));
      dif = fmax(dif, fabs(s - (t1[i] - t0[i])));
    }
    worst = fmax(worst, dif / big);
    /* the physical form back, and its Jacobian against central differences */
    double phys[10], J[100];
    dyi_payload_std_to_phys(phi, phys, J);
    double want[10] = {lm, c[0], c[1], c[2], Ic[0], Ic[1], Ic[2], Ic[3], Ic[4], Ic[5]};
    for (int k = 0; k < 10; k++) worst_phys = fmax(worst_phys, fabs(phys[k] - want[k]));
    for (int k = 0; k < 10; k++) {
      double hp[10], hm[10], pp[10], pm[10], h = 1e-6 * fmax(1e-3, fabs(phi[k]));
      memcpy(hp, phi, sizeof hp); memcpy(hm, phi, sizeof hm);
      hp[k] += h; hm[k] -= h;
      dyi_payload_std_to_phys(hp, pp, NULL);
      dyi_payload_std_to_phys(hm, pm, NULL);
      for (int i = 0; i < 10; i++)
        worst_jac = fmax(worst_jac, fabs((pp[i] - pm[i]) / (2*h) - J[i*10 + k]) / fmax(1, fabs(J[i*10 + k])));
    }
  }
  CHECK(worst <= 1e-10, "Y_n A phi_T vs NE(merged) - NE: relative %.3g", worst);
  CHECK(worst_phys <= 1e-12, "physical form round trip: %.3g", worst_phys);
  CHECK(worst_jac <= 1e-6, "Jacobian of the physical form vs differences: %.3g", worst_jac);
  free(par);
  free(Y);
  dy_free_data(d);
  dy_free_model(m);
}

/* the rows name,value,std of a payload CSV: value and std NaN when empty;
 * the number of rows read */
static int read_load(const char* path, double v[10], double s[10]) {
  for (int k = 0; k < 10; k++) v[k] = s[k] = NAN;
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char line[512];
  int k = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || !strncmp(line, "name,", 5)) continue;
    char* a = strchr(line, ',');
    if (!a || k >= 10) break;
    char* b = strchr(a + 1, ',');
    if (!b) break;
    if (b > a + 1) v[k] = strtod(a + 1, NULL);
    if (b[1] != '\n' && b[1] != 0) s[k] = strtod(b + 1, NULL);
    k++;
  }
  fclose(f);
  return k;
}

/* the model MODEL with the load merged into link n, written to out */
static int write_loaded(const char* model, const char* out) {
  dyModel* m;
  char err[DY_ERRSZ];
  if (dy_load_model(model, &(dyLoadOpt){0}, &m, err, sizeof err)) return -1;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  merge_load(m, par, LM, LC, LI);
  int r = dy_write_model(out, m, par, "test_payload: the Panda with a load on its tip", err, sizeof err);
  free(par);
  dy_free_model(m);
  return r;
}

/* lines on standard error of the last run */
static int err_lines(void) {
  const char* s = th_slurp(DIR "/stderr");
  int k = 0;
  for (; *s; s++) k += *s == '\n';
  return k;
}

/* 2, 3. end to end on the model tag (panda or panda_tip) */
static void test_truth(const char* model, const char* tag) {
  char cmd[2048], arm[256], loaded[256], lmodel[256], out[256];
  snprintf(arm, sizeof arm, DIR "/%s_arm.csv", tag);
  snprintf(loaded, sizeof loaded, DIR "/%s_loaded.csv", tag);
  snprintf(lmodel, sizeof lmodel, DIR "/%s_loaded_model.csv", tag);
  snprintf(out, sizeof out, DIR "/%s_load.csv", tag);
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --friction --duration 20 --rate 500 --seed 1 -o " DIR
           "/%s_unloaded.csv && ./dynid identify %s " DIR "/%s_unloaded.csv --friction --quiet -o %s", model, tag, model,
           tag, arm);
  CHECK(th_run(DIR, cmd) == 0, "%s: simulate and identify the arm: %s", tag, th_slurp(DIR "/stderr"));
  CHECK(write_loaded(model, lmodel) == 0, "%s: write the loaded model", tag);
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --friction --duration 20 --rate 500 --seed 2 -o %s", lmodel,
           loaded);
  CHECK(th_run(DIR, cmd) == 0, "%s: simulate the loaded arm: %s", tag, th_slurp(DIR "/stderr"));
  snprintf(cmd, sizeof cmd, "./dynid payload %s %s %s -o %s", model, arm, loaded, out);
  CHECK(th_run(DIR, cmd) == 0, "%s: payload: %s", tag, th_slurp(DIR "/stderr"));
  CHECK(strstr(th_slurp(DIR "/stderr"), "payload 2.47"), "%s: summary: %s", tag, th_slurp(DIR "/stderr"));
  /* the load raises joint 3's gravity torque 1.8x: not another arm */
  CHECK(!strstr(th_slurp(DIR "/stderr"), "gravity torque"), "%s: a heavy load read as another arm: %s", tag,
        th_slurp(DIR "/stderr"));
  double v[10], s[10];
  CHECK(read_load(out, v, s) == 10, "%s: 10 rows in %s", tag, out);
  CHECK(strstr(th_slurp(out), "# undetermined: none"), "%s: all determined", tag);
  CHECK(fabs(v[0] - LM) <= 0.01 * LM, "%s: mass %.6g vs %.6g (1 %%)", tag, v[0], LM);
  double dc = 0, di = 0;
  for (int a = 0; a < 3; a++) dc = fmax(dc, fabs(v[1 + a] - LC[a]));
  for (int k = 0; k < 6; k++) di = fmax(di, fabs(v[4 + k] - LI[k]));
  CHECK(dc <= 0.005, "%s: centre of mass off by %.3g m (5 mm)", tag, dc);
  /* 1e-4 kg m^2, about 1 % of the smallest principal moment (0.008): the
   * data are noise-free, so the only error is the reader's low-pass of q (a
   * 10 Hz Butterworth on a 0.1 Hz trajectory) in both logs, ~1e-6 kg m^2
   * here; a wrong term of A (a parallel-axis term m |p|^2 ~ 0.03 kg m^2, a
   * product of inertia's sign ~ 0.002) is 20x or more larger */
  CHECK(di <= 1e-4, "%s: inertia off by %.3g kg m^2 (1e-4)", tag, di);

  /* the URDF fragment: a link with the values, a fixed joint to the tip link */
  snprintf(cmd, sizeof cmd, "./dynid payload %s %s %s --quiet -o %s.urdf", model, arm, loaded, out);
  char upath[300];
  snprintf(upath, sizeof upath, "%s.urdf", out);
  CHECK(th_run(DIR, cmd) == 0, "%s: payload -o .urdf: %s", tag, th_slurp(DIR "/stderr"));
  const char* u = th_slurp(upath);
  CHECK(strstr(u, "<mass value=\"2.47") && strstr(u, "<inertial>") && strstr(u, "type=\"fixed\"") &&
            strstr(u, "<parent link=\"tip\"/>"), "%s: URDF fragment: %.300s", tag, u);

  /* 3. --mass fixes the mass */
  snprintf(cmd, sizeof cmd, "./dynid payload %s %s %s --mass 2.47 -o %s.mass.csv", model, arm, loaded, out);
  CHECK(th_run(DIR, cmd) == 0, "%s: payload --mass: %s", tag, th_slurp(DIR "/stderr"));
  char mpath[300];
  snprintf(mpath, sizeof mpath, "%s.mass.csv", out);
  CHECK(read_load(mpath, v, s) == 10 && v[0] == 2.47 && s[0] == 0, "%s: --mass: m = %.17g std %g", tag, v[0], s[0]);
  dc = 0;
  for (int a = 0; a < 3; a++) dc = fmax(dc, fabs(v[1 + a] - LC[a]));
  CHECK(dc <= 0.005, "%s: --mass: centre of mass off by %.3g m", tag, dc);
  CHECK(strstr(th_slurp(mpath), "mass fixed by --mass"), "%s: --mass said in the header", tag);
}

/* 2 with noise: the loaded log with torque noise, the truth within 3 std
 * (the arm identified without noise: the std covers the loaded log's noise,
 * not the arm's PARAMS, README says so) */
static void test_noise(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "./dynid simulate " DIR "/panda_tip_loaded_model.csv fourier --friction --duration 20 "
           "--rate 500 --seed 3 --noise 0.5 -o " DIR "/noisy.csv && ./dynid payload " DIR "/panda_tip.csv " DIR
           "/panda_tip_arm.csv " DIR "/noisy.csv -o " DIR "/noisy_load.csv");
  CHECK(th_run(DIR, cmd) == 0, "noise: %s", th_slurp(DIR "/stderr"));
  double v[10], s[10], want[10] = {LM, LC[0], LC[1], LC[2], LI[0], LI[1], LI[2], LI[3], LI[4], LI[5]};
  CHECK(read_load(DIR "/noisy_load.csv", v, s) == 10, "noise: rows");
  for (int k = 0; k < 10; k++)
    CHECK(fabs(v[k] - want[k]) <= 3 * s[k] && s[k] > 0, "noise: %s = %.6g +- %.3g, truth %.6g",
          dyi_payload_phys_name(k), v[k], s[k], want[k]);
}

/* 4. only joint 1 moves: the residual sees few combinations */
static void test_undetermined(void) {
  FILE* f = fopen(DIR "/j1.csv", "w");
  CHECK(f != NULL, "write the joint-1 trajectory");
  if (!f) return;
  static const double q0[7] = {0, -0.3, 0, -2.0, 0, 1.8, 0.7};
  fprintf(f, "t");
  for (int k = 0; k < 3; k++)
    for (int j = 1; j <= 7; j++) fprintf(f, ",%s%d", k == 0 ? "q" : k == 1 ? "qd" : "qdd", j);
  fprintf(f, "\n");
  for (int i = 0; i < 5000; i++) {
    double t = i / 500.0, w = 2 * M_PI * 0.3;
    fprintf(f, "%.17g", t);
    for (int j = 0; j < 7; j++) fprintf(f, ",%.17g", j ? q0[j] : 1.2 * sin(w*t));
    for (int j = 0; j < 7; j++) fprintf(f, ",%.17g", j ? 0 : 1.2 * w * cos(w*t));
    for (int j = 0; j < 7; j++) fprintf(f, ",%.17g", j ? 0 : -1.2 * w * w * sin(w*t));
    fprintf(f, "\n");
  }
  fclose(f);
  CHECK(th_run(DIR, "./dynid simulate " DIR "/panda_loaded_model.csv " DIR "/j1.csv --friction -o " DIR "/j1log.csv && "
                    "./dynid payload " PANDA " " DIR "/panda_arm.csv " DIR "/j1log.csv -o " DIR "/j1load.csv") == 0,
        "joint 1 only: %s", th_slurp(DIR "/stderr"));
  double v[10], s[10];
  int rows = read_load(DIR "/j1load.csv", v, s), empty = 0;
  for (int k = 0; k < 10; k++) empty += isnan(v[k]) && isnan(s[k]);
  CHECK(rows == 10 && empty > 0, "joint 1 only: %d rows, %d empty", rows, empty);
  const char* t = th_slurp(DIR "/j1load.csv");
  CHECK(strstr(t, "# undetermined: ") && !strstr(t, "# undetermined: none"), "joint 1 only: header lists them");
  CHECK(strstr(th_slurp(DIR "/stderr"), "undetermined: ") && !strstr(th_slurp(DIR "/stderr"), "undetermined: none"),
        "joint 1 only: the summary lists them");
  CHECK(th_run(DIR, "./dynid payload " PANDA " " DIR "/panda_arm.csv " DIR "/j1log.csv -o " DIR "/j1.urdf") == 1 &&
            err_lines() == 1 && strstr(th_slurp(DIR "/stderr"), "does not determine") && !fopen(DIR "/j1.urdf", "r"),
        "joint 1 only: no URDF, one line: %s", th_slurp(DIR "/stderr"));
}

/* 5. bad inputs: one line on standard error, exit 1 (2 for usage), no output */
static void test_bad(void) {
  static const struct { const char* args; int rc; const char* says; } cases[] = {
      {"tests/bad/model_nan.csv " DIR "/panda_arm.csv " DIR "/panda_loaded.csv", 1, "NaN"},
      {"datasets/models/puma560.csv " DIR "/panda_arm.csv " DIR "/panda_loaded.csv", 1, "another model"},
      {PANDA " " DIR "/panda_arm.csv " DIR "/j1.csv", 1, "tau"},
      {PANDA " " DIR "/panda_arm.csv " DIR "/panda_loaded.csv --rows 1..5", 1, "too few"},
      {PANDA " " DIR "/panda_arm.csv " DIR "/panda_loaded.csv --mass -2", 2, "--mass"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char cmd[1024];
    remove(DIR "/bad_out.csv");
    snprintf(cmd, sizeof cmd, "./dynid payload %s -o " DIR "/bad_out.csv", cases[i].args);
    int rc = th_run(DIR, cmd);
    const char* e = th_slurp(DIR "/stderr");
    FILE* f = fopen(DIR "/bad_out.csv", "r");
    CHECK(rc == cases[i].rc && strstr(e, cases[i].says) && (cases[i].rc == 2 || err_lines() == 1) && !f,
          "bad input %s: status %d, %s", cases[i].args, rc, e);
    if (f) fclose(f);
  }
}

/* the load's torque (merged model minus the arm, both nominal: friction
 * cancels) at the reader's own states of rows a..b of log, into lt (n per
 * row, row-major from row a). 0, or -1. */
static int load_torque(const char* log, long a, long b, double* lt) {
  dyModel* m;
  char err[DY_ERRSZ];
  if (dy_load_model(PANDA, &(dyLoadOpt){0}, &m, err, sizeof err)) return -1;
  const int n = m->n;
  double* p1 = malloc(sizeof(double) * (size_t)dy_npar(m));
  memcpy(p1, m->par, sizeof(double) * (size_t)dy_npar(m));
  merge_load(m, p1, LM, LC, LI);
  dyData* d = dy_make_data(m);
  dyiLogOpt o;
  dyi_log_defaults(&o);
  o.row_first = a; o.row_last = b;
  dyiLogReader* r = dyi_log_open(log, n, &o, err, sizeof err);
  dyiSample smp;
  long got = 0;
  while (r && dyi_log_next(r, &smp, err, sizeof err) == 1 && smp.row >= a && smp.row <= b) {
    double t0[DY_MAXJ], t1[DY_MAXJ];
    dy_rnea(m, d, m->par, smp.q, smp.qd, smp.qdd, t0);
    dy_rnea(m, d, p1, smp.q, smp.qd, smp.qdd, t1);
    for (int j = 0; j < n; j++) lt[(smp.row - a) * n + j] = t1[j] - t0[j];
    got++;
  }
  if (r) dyi_log_close(r);
  free(p1); dy_free_data(d); dy_free_model(m);
  return got == b - a + 1 ? 0 : -1;
}

/* 2 on a real log: the shipped Panda recording (t, q1..7, qd1..7, tau1..7),
 * the arm identified on its first 14 s, a simulated load's torque added to
 * the measured torque of the rest (at the states the reader derives, so the
 * load is exactly what the estimator sees): what is left is the arm
 * model's own error on unseen data (held-out 2.8 %), as on a real arm */
static void test_shipped(void) {
  enum { A = 14001, B = 20544, N7 = 7 };
  CHECK(system("zcat datasets/panda/exciting_traj.csv.gz | sed '1s/^t_s,/t,/' > " DIR "/plog.csv") == 0, "plog");
  CHECK(th_run(DIR, "./dynid identify " PANDA " " DIR "/plog.csv --rows 1..14000 --friction --quiet -o " DIR
                    "/real_arm.csv") == 0, "identify the shipped Panda: %s", th_slurp(DIR "/stderr"));
  double* lt = malloc(sizeof(double) * (B - A + 1) * N7);
  CHECK(load_torque(DIR "/plog.csv", A, B, lt) == 0, "the load's torque at the reader's states");
  FILE* in = fopen(DIR "/plog.csv", "r");
  FILE* out = fopen(DIR "/ploaded.csv", "w");
  char line[4096];
  for (long row = 0; in && out && fgets(line, sizeof line, in); row++) {
    if (row < A || row > B) { fputs(line, out); continue; }
    double v[22];
    char* e = line;
    for (int k = 0; k < 22; k++) v[k] = strtod(k ? e + 1 : e, &e);
    for (int j = 0; j < N7; j++) v[15 + j] += lt[(row - A) * N7 + j];
    for (int k = 0; k < 22; k++) fprintf(out, "%s%.17g", k ? "," : "", v[k]);
    fputc('\n', out);
  }
  if (in) fclose(in);
  if (out) fclose(out);
  free(lt);
  CHECK(th_run(DIR, "./dynid payload " PANDA " " DIR "/real_arm.csv " DIR "/ploaded.csv --rows 14001..20544 -o " DIR
                    "/real_load.csv") == 0, "payload on the shipped log: %s", th_slurp(DIR "/stderr"));
  double v[10], sd[10], dc = 0;
  CHECK(read_load(DIR "/real_load.csv", v, sd) == 10, "shipped: 10 rows");
  for (int a = 0; a < 3; a++) dc = fmax(dc, fabs(v[1 + a] - LC[a]));
  printf("shipped Panda log + simulated %.2f kg load: mass %.4f kg (%+.2f %%), centre of mass off by %.2f mm\n", LM,
         v[0], 100 * (v[0] - LM) / LM, 1e3 * dc);
  CHECK(fabs(v[0] - LM) <= 0.01 * LM, "shipped: mass %.6g vs %.6g (1 %%)", v[0], LM);
  CHECK(dc <= 0.005, "shipped: centre of mass off by %.3g m (5 mm)", dc);
}

/* 6. the payload file read back (dyi_payload_read against the test's own
 * reader: the same doubles, bit for bit, and the same empty cells) and
 * shown by the report (--payload): the mass in kg and the centre of mass
 * in mm as %.6g of those doubles, the undetermined ones said; a bad file
 * refused with FILE:ROW:COL and no page written */
static void test_read_report(void) {
  static const char* const files[2] = {DIR "/panda_load.csv", DIR "/j1load.csv"};
  for (int f = 0; f < 2; f++) {
    double v[10], s[10], pv[10], ps[10];
    int det[10], same = 1, und = 0;
    char err[DY_ERRSZ];
    read_load(files[f], v, s);
    CHECK(dyi_payload_read(files[f], pv, ps, det, err, sizeof err) == 0, "read %s: %s", files[f], err);
    for (int k = 0; k < 10; k++) {
      same &= det[k] ? pv[k] == v[k] : isnan(v[k]);
      same &= isnan(s[k]) ? isnan(ps[k]) : ps[k] == s[k];
      und += !det[k];
    }
    CHECK(same, "%s: dyi_payload_read differs from the file's rows", files[f]);
    char cmd[1024], want[64];
    snprintf(cmd, sizeof cmd, "./dynid report " PANDA " " DIR "/panda_arm.csv " DIR "/panda_unloaded.csv --rows 1..1500 "
             "--horizon 0 --payload %s -o " DIR "/pr.html", files[f]);
    CHECK(th_run(DIR, cmd) == 0, "report --payload: %s", th_slurp(DIR "/stderr"));
    char* h = th_read_file(DIR "/pr.html");
    const char* sec = h ? strstr(h, "<h2 id=\"gains\">Payload") : NULL;
    CHECK(sec != NULL, "report: a payload section");
    if (!sec) { free(h); continue; }
    int n_und = 0;
    for (const char* p = sec; (p = strstr(p, "<td>undetermined</td>")); p++) n_und++;
    CHECK(n_und == und, "report: %d undetermined cells, the file has %d", n_und, und);
    if (det[0] && det[1]) {
      snprintf(want, sizeof want, "<td>%.6g</td>", v[0]);
      CHECK(strstr(sec, want) != NULL, "report: mass %s", want);
      snprintf(want, sizeof want, "<td>%.6g</td>", 1e3 * v[1]);
      CHECK(strstr(sec, want) != NULL, "report: cx in mm %s", want);
    }
    free(h);
  }
  FILE* b = fopen(DIR "/bad_load.csv", "w");
  if (b) { fputs("name,value,std\nm,2.5,0.1\nmass,1,\n", b); fclose(b); }
  remove(DIR "/pr.html");
  CHECK(th_run(DIR, "./dynid report " PANDA " " DIR "/panda_arm.csv " DIR "/panda_unloaded.csv --payload " DIR
                    "/bad_load.csv -o " DIR "/pr.html") == 1 && err_lines() == 1 &&
            strstr(th_slurp(DIR "/stderr"), "bad_load.csv:3:1: unknown payload parameter 'mass'") && !fopen(DIR "/pr.html", "r"),
        "a bad payload file: %s", th_slurp(DIR "/stderr"));
}

int main(void) {
  CHECK(system("mkdir -p " DIR) == 0, "mkdir " DIR);
  test_map();
  /* the Panda with a rotated, offset tip ('#! tip' line) */
  dyModel* m;
  char err[DY_ERRSZ];
  if (dy_load_model(PANDA, &(dyLoadOpt){0}, &m, err, sizeof err) == 0) {
    static const double T[12] = {0, -1, 0, 0.6, 0, 0.8, -0.8, 0, 0.6, 0.01, -0.02, 0.107};
    memcpy(m->tip_T, T, sizeof T);
    CHECK(dy_write_model(DIR "/panda_tip.csv", m, m->par, "test_payload: the Panda with a tip", err, sizeof err) == 0,
          "write panda_tip.csv: %s", err);
    dy_free_model(m);
  }
  test_truth(PANDA, "panda");
  test_truth(DIR "/panda_tip.csv", "panda_tip");
  test_noise();
  test_undetermined();
  test_bad();
  test_read_report();
  if (!TH_SANITIZED) test_shipped();   /* an identification of 14,000 rows: plain build only */
  return test_report();
}
