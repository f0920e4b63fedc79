/* SPDX-License-Identifier: MIT */
/* dynid tests: drive gains with a payload of known mass (ident/gains.h).
 * The Panda (first axis vertical) with its friction, known gains K (N m
 * per ampere) and a 2.8 kg load whose centre of mass is 50 mm off the
 * flange axis, simulated by Newton-Euler with the load merged into link 7
 * by core's dy_linkpar_from_com (not by the estimator's map), on random
 * Fourier excitations within the joint limits (5 harmonics of 0.1 Hz),
 * 60 s at 100 Hz per recording, as arms log currents; the currents are
 * tau / K plus white noise of 2 % and 10 % of each joint's current RMS.
 *  1. the output-error gains against the K that made the data: within 1 %
 *     (2 % noise) and 3 % (10 %), the std covering the error;
 *  2. the plain least squares on [diag(i) -Y] on the same data: biased low,
 *     its bias growing with the noise while the output error's does not;
 *  3. with the estimated gains and the estimated arm, `payload`'s estimator
 *     on a third, fresh recording finds the load: mass within 1 %, centre
 *     of mass within 5 mm (the targets of a real arm's use).
 * The tip frame is frame 7 (the table has no '#! tip'). */
#include "testmodels.h"
#include "ident/base.h"
#include "ident/gains.h"
#include "ident/payload.h"
#include "ident/params.h"
#include "ident/traj.h"
#include <unistd.h>

#define PANDA "datasets/models/panda.csv"
#define DIR "build/tests/gains"
#define RATE 100.0        /* samples per second, as arms log currents */
#define K0LOW "22,35.2,15.84,19.36,3.96,2.64,2.2"   /* 0.88 KTRUE */
#define DUR 60.0          /* seconds per recording */

static const double KTRUE[7] = {25, 40, 18, 22, 4.5, 3, 2.5};
static const double LM = 2.8, LC[3] = {0.05, 0, 0.08};   /* 50 mm off the flange axis z */
static const double LI[6] = {0.006, 0.0002, -0.0004, 0.007, 0.0003, 0.004};

/* link 6 of par += the load (m, c, Ic in the tip frame = frame 6 here) by
 * the parallel-axis theorem from its centre of mass */
static void merge_load(const dyModel* m, double* par) {
  double phi[10];
  dy_linkpar_from_com(phi, LM, LC, LI);   /* core's, not the estimator's map */
  for (int k = 0; k < 10; k++) par[10 * (m->n - 1) + k] += phi[k];
}

/* the Panda as shipped: its limits bound the excitation, its friction
 * (fv, fc, fo) is simulated and identified */
static dyModel* panda(void) {
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  CHECK(dy_load_model(PANDA, &(dyLoadOpt){0}, &m, err, sizeof err) == 0, "load %s: %s", PANDA, err);
  if (m) CHECK(m->tip_T[0] == 1 && m->tip_T[4] == 1 && m->tip_T[8] == 1 && m->tip_T[9] == 0 && m->tip_T[10] == 0 &&
               m->tip_T[11] == 0, "the tip frame is frame 7");
  return m;
}

/* The currents of one recording: excitation seed, load on or off; cur
 * (ns x n, row-major) = tau / K, states into q, qd, qdd (ns x n) */
static int record(const dyModel* m, dyData* d, unsigned long long seed, int loaded, double dur, double* q, double* qd,
                  double* qdd, double* cur) {
  dyiFourier f;
  char err[DY_ERRSZ];
  if (dyi_fourier_random(&f, m, 5, 10, seed, err, sizeof err)) return -1;
  const int n = m->n, ns = (int)(dur * RATE);
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  if (loaded) merge_load(m, par);
  for (int k = 0; k < ns; k++) {
    double tau[DY_MAXJ];
    dyi_fourier_eval(&f, k / RATE, q + k*n, qd + k*n, qdd + k*n);
    dy_rnea(m, d, par, q + k*n, qd + k*n, qdd + k*n, tau);
    for (int j = 0; j < n; j++) cur[k*n + j] = tau[j] / KTRUE[j];
  }
  free(par);
  return ns;
}

/* white noise of level x each joint's current RMS over the samples (Box-Muller) */
static void add_noise(int n, int ns, double* cur, double level) {
  for (int j = 0; j < n; j++) {
    double ss = 0;
    for (int k = 0; k < ns; k++) ss += cur[k*n + j] * cur[k*n + j];
    const double sd = level * sqrt(ss / ns);
    for (int k = 0; k < ns; k++) {
      double u1 = th_uniform(1e-12, 1), u2 = th_uniform(0, 1);
      cur[k*n + j] += sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    }
  }
}

typedef struct {
  int ns;
  double *q, *qd, *qdd, *cur;
} rec;

static rec rec_make(const dyModel* m, dyData* d, unsigned long long seed, int loaded, double noise, double dur) {
  rec r;
  const size_t sz = sizeof(double) * (size_t)(dur * RATE) * (size_t)m->n;
  r.q = malloc(sz); r.qd = malloc(sz); r.qdd = malloc(sz); r.cur = malloc(sz);
  r.ns = record(m, d, seed, loaded, dur, r.q, r.qd, r.qdd, r.cur);
  if (r.ns > 0) add_noise(m->n, r.ns, r.cur, noise);
  return r;
}

static void rec_free(rec* r) { free(r->q); free(r->qd); free(r->qdd); free(r->cur); }

/* The load found by the payload estimator on loaded recording r with the
 * currents times gains K and the arm's standard parameters par (P beta). */
static void payload_check(const dyModel* m, const double* par, const double* K, const rec* r, double* mass,
                          double* dc) {
  char err[DY_ERRSZ];
  dyiPayload* p = dyi_payload_make(m, par, err, sizeof err);
  const int n = m->n;
  for (int k = 0; p && k < r->ns; k++) {
    double tau[DY_MAXJ];
    for (int j = 0; j < n; j++) tau[j] = K[j] * r->cur[k*n + j];
    dyi_payload_add(p, r->q + k*n, r->qd + k*n, r->qdd + k*n, tau);
  }
  dyiPayloadFit fit;
  *mass = NAN; *dc = NAN;
  if (p && !dyi_payload_solve(p, NAN, &fit, err, sizeof err)) {
    *mass = fit.phys[0];
    *dc = sqrt(pow(fit.phys[1] - LC[0], 2) + pow(fit.phys[2] - LC[1], 2) + pow(fit.phys[3] - LC[2], 2));
  }
  dyi_payload_free(p);
}

/* worst relative gain error over the estimated gains of fit (ls: the plain
 * least squares' instead) and the worst error in std of the estimate */
static double gain_err(const dyiGainsFit* f, int ls, double* zmax) {
  double w = 0;
  *zmax = 0;
  for (int j = 0; j < f->n; j++) {
    if (!f->gain_det[j]) continue;
    const double K = ls ? f->gain_ls[j] : f->gain[j];
    w = fmax(w, fabs(K / KTRUE[j] - 1));
    if (!ls) *zmax = fmax(*zmax, fabs(f->gain[j] - KTRUE[j]) / f->gain_std[j]);
  }
  return w;
}

/* A tighter bound on the relative std (0.45 %, at 10 % noise: between the
 * gains' std of 0.3-0.7 %) holds the gains it does not meet at K0 (here
 * 0.999 K): held ones equal K0 exactly with no std, the rest still
 * estimated within the bound. */
static void held_check(dyiGains* g, int n) {
  double K0[DY_MAXJ];
  for (int j = 0; j < n; j++) K0[j] = 0.999 * KTRUE[j];
  dyiGainsFit f;
  char err[DY_ERRSZ];
  CHECK(dyi_gains_solve(g, K0, 0.0045, &f, err, sizeof err) == 0, "solve: %s", err);
  int held = 0, ok = 1;
  for (int j = 0; j < n; j++) {
    if (f.gain_det[j]) { ok &= f.gain_std[j] <= 0.0045 * f.gain[j]; continue; }
    held++;
    ok &= f.gain[j] == K0[j] && f.gain_std[j] == 0 && !f.gain_null[j];
  }
  CHECK(ok && held > 0 && held < n, "held gains: %d held, consistent %d", held, ok);
}

/* One noise level: gains from an unloaded and a loaded recording, then the
 * load on a third; errors into e: OE gain, LS gain, mass, centre of mass. */
static void run_level(const dyModel* m, const dyiBase* b, double noise, double e[4], int* lslow) {
  char err[DY_ERRSZ];
  const int n = m->n;
  dyData* d = dy_make_data(m);
  rec r0 = rec_make(m, d, 11, 0, noise, DUR), r1 = rec_make(m, d, 12, 1, noise, DUR), r2 = rec_make(m, d, 13, 1, noise, DUR);
  dyiGains* g = dyi_gains_make(m, b, LM, err, sizeof err);
  CHECK(g && r0.ns > 0 && r1.ns > 0 && r2.ns > 0, "setup: %s", err);
  for (int k = 0; g && k < r0.ns; k++) dyi_gains_add(g, 0, r0.q + k*n, r0.qd + k*n, r0.qdd + k*n, r0.cur + k*n);
  for (int k = 0; g && k < r1.ns; k++) dyi_gains_add(g, 1, r1.q + k*n, r1.qd + k*n, r1.qdd + k*n, r1.cur + k*n);
  const double K0[7] = {1, 1, 1, 1, 1, 1, 1};
  dyiGainsFit f;
  int rc = g ? dyi_gains_solve(g, K0, 0.05, &f, err, sizeof err) : -1;
  CHECK(rc == 0, "solve: %s", err);
  for (int k = 0; k < 4; k++) e[k] = NAN;
  if (!rc) {
    double z, zls;
    e[0] = gain_err(&f, 0, &z);
    e[1] = gain_err(&f, 1, &zls);
    double* par = calloc((size_t)dy_npar(m), sizeof(double));
    for (int i = 0; i < b->npar; i++)
      for (int k = 0; k < b->nb; k++) par[i] += b->P[(size_t)i * b->nb + k] * f.beta[k];
    payload_check(m, par, f.gain, &r2, &e[2], &e[3]);
    e[2] = e[2] / LM - 1;
    free(par);
    int ndet = 0;
    for (int j = 0; j < n; j++) ndet += f.gain_det[j];
    printf("noise %2.0f %%: %d gains estimated, worst error %.3f %% (%.2f std), plain least squares %.3f %%; "
           "load %.4f kg (%+.3f %%), centre of mass off by %.2f mm; %d iterations\n", 100 * noise, ndet,
           100 * e[0], z, 100 * e[1], LM * (1 + e[2]), 100 * e[2], 1e3 * e[3], f.iter);
    *lslow = 1;
    for (int j = 0; j < n; j++) *lslow &= f.gain_ls[j] < KTRUE[j];
    CHECK(ndet == n, "only %d gains determined", ndet);
    if (noise > 0.05) held_check(g, n);
    CHECK(z < 4, "a gain's error is %.2f std", z);
  }
  dyi_gains_free(g);
  rec_free(&r0); rec_free(&r1); rec_free(&r2);
  dy_free_data(d);
}

/* 1-3 at 2 % and 10 % current noise */
static void test_levels(void) {
  dyModel* m = panda();
  if (!m) return;
  char err[DY_ERRSZ];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "base: %s", err);
  double e2[4], e10[4];
  int low2 = 0, low10 = 0;
  if (b) { run_level(m, b, 0.02, e2, &low2); run_level(m, b, 0.10, e10, &low10); }
  /* the targets: gains 1 % at 2 % noise, 3 % at 10 % */
  CHECK(e2[0] < 0.01, "gains at 2 %% noise: %.3g", e2[0]);
  CHECK(e10[0] < 0.03, "gains at 10 %% noise: %.3g", e10[0]);
  /* the plain least squares: every gain low, and more so with more noise
   * (the attenuation grows with the noise variance), while the output
   * error's stays within its std (checked in run_level) */
  CHECK(low2 && low10, "plain least squares not low on every joint: %d %d", low2, low10);
  CHECK(e2[1] > 0.05 && e10[1] > 3 * e2[1], "plain least squares' bias %.3g at 2 %%, %.3g at 10 %%", e2[1], e10[1]);
  /* the load with those gains: mass 1 %, centre of mass 5 mm */
  CHECK(fabs(e2[2]) < 0.01 && fabs(e10[2]) < 0.01, "mass %.3g %.3g", e2[2], e10[2]);
  CHECK(e2[3] < 0.005 && e10[3] < 0.005, "centre of mass %.3g %.3g m", e2[3], e10[3]);
  dyi_base_free(b);
  dy_free_model(m);
}

/* a recording as a LOG file: t, q, qd, qdd and the currents as tau */
static void write_log(const char* path, int n, const rec* r) {
  FILE* f = fopen(path, "w");
  if (!f) return;
  dyi_traj_header(f, n, 1);
  for (int k = 0; k < r->ns; k++)
    dyi_traj_row(f, n, k / RATE, r->q + k*n, r->qd + k*n, r->qdd + k*n, r->cur + k*n);
  fclose(f);
}

/* the payload's CSV rows m, cx, cy, cz into v; how many were read */
static int read_load(const char* path, double* v) {
  FILE* f = fopen(path, "r");
  char line[512];
  int got = 0;
  while (f && fgets(line, sizeof line, f)) {
    static const char* const nm[4] = {"m,", "cx,", "cy,", "cz,"};
    for (int k = 0; k < 4; k++)
      if (!strncmp(line, nm[k], strlen(nm[k]))) { v[k] = atof(line + strlen(nm[k])); got++; }
  }
  if (f) fclose(f);
  return got;
}

/* 4. the program: identify --estimate-gains writes GAIN rows that the
 * PARAMS reader takes apart from the base parameters; payload uses them
 * without --gain and finds the load of a fresh recording */
static void test_program(const dyModel* m) {
  dyData* d = dy_make_data(m);
  rec r0 = rec_make(m, d, 21, 0, 0.02, 20), r1 = rec_make(m, d, 22, 1, 0.02, 20), r2 = rec_make(m, d, 23, 1, 0.02, 20);
  write_log(DIR "/un.csv", m->n, &r0);
  write_log(DIR "/lo.csv", m->n, &r1);
  write_log(DIR "/lo2.csv", m->n, &r2);
  rec_free(&r0); rec_free(&r1); rec_free(&r2);
  dy_free_data(d);
  /* --gain: the start, about published gains (12 % low): scaled back */
  CHECK(th_run(DIR, "./dynid identify " PANDA " " DIR "/un.csv --payload-log " DIR "/lo.csv --payload-mass 2.8 "
               "--estimate-gains --friction --gain " K0LOW " -o " DIR "/gp.csv") == 0, "identify --estimate-gains: %s",
        th_slurp(DIR "/stderr"));
  CHECK(!strstr(th_slurp(DIR "/stderr"), "warning"), "warnings: %s", th_slurp(DIR "/stderr"));
  char err[DY_ERRSZ];
  dyiParams* p = dyi_params_read(DIR "/gp.csv", m, err, sizeof err);
  CHECK(p && p->gain, "read gp.csv: %s", p ? "no gains" : err);
  double worst = 0;
  for (int j = 0; p && p->gain && j < m->n; j++) worst = fmax(worst, fabs(p->gain[j] / KTRUE[j] - 1));
  CHECK(worst < 0.01, "program's gains off by %.3g", worst);
  if (p) CHECK(p->base->nb > 0 && !strncmp(p->base->name[p->base->nb - 1], "F", 1), "last base parameter %s",
               p->base->name[p->base->nb - 1]);
  dyi_params_free(p);
  CHECK(th_run(DIR, "./dynid payload " PANDA " " DIR "/gp.csv " DIR "/lo2.csv -o " DIR "/load.csv") == 0,
        "payload with the GAIN rows: %s", th_slurp(DIR "/stderr"));
  CHECK(strstr(th_slurp(DIR "/stderr"), "GAIN rows of"), "payload says whose gains: %s", th_slurp(DIR "/stderr"));
  double v[4] = {0};
  CHECK(read_load(DIR "/load.csv", v) == 4, "load.csv rows");
  CHECK(fabs(v[0] / LM - 1) < 0.01, "program's payload mass %.6g", v[0]);
  /* the arm identified again with those gains (--gain PARAMS): its PARAMS
   * carries them, and payload takes them from it */
  CHECK(th_run(DIR, "./dynid identify " PANDA " " DIR "/un.csv --gain " DIR "/gp.csv --friction --quiet -o " DIR
               "/arm2.csv") == 0, "identify --gain PARAMS: %s", th_slurp(DIR "/stderr"));
  double g1[DY_MAXJ], g2[DY_MAXJ], s1[DY_MAXJ], s2[DY_MAXJ];
  CHECK(dyi_params_read_gains(DIR "/gp.csv", m->n, g1, s1, err, sizeof err) == 1 &&
        dyi_params_read_gains(DIR "/arm2.csv", m->n, g2, s2, err, sizeof err) == 1 && !memcmp(g1, g2, sizeof(double) * 7) &&
        isnan(s2[0]), "arm2.csv carries gp.csv's gains: %s", err);
  CHECK(th_run(DIR, "./dynid payload " PANDA " " DIR "/arm2.csv " DIR "/lo2.csv -o " DIR "/load2.csv") == 0 &&
        read_load(DIR "/load2.csv", v) == 4 && fabs(v[0] / LM - 1) < 0.01, "payload with arm2.csv: %.6g %s", v[0],
        th_slurp(DIR "/stderr"));
  CHECK(hypot(hypot(v[1] - LC[0], v[2] - LC[1]), v[3] - LC[2]) < 0.005, "program's centre of mass %.4g %.4g %.4g",
        v[1], v[2], v[3]);
}

/* lines of text */
static int nlines(const char* s) {
  int k = 0;
  for (; *s; s++) k += *s == '\n';
  return k;
}

/* a command that must fail with status st, its message starting "dynid: "
 * and holding what, one line (usage errors: and the hint), no output */
static void must_fail(const char* cmd, int st, const char* what) {
  char full[2048];
  remove(DIR "/out.csv");
  snprintf(full, sizeof full, "%s -o " DIR "/out.csv", cmd);
  const int rc = th_run(DIR, full);
  const char* e = th_slurp(DIR "/stderr");
  CHECK(rc == st && !strncmp(e, "dynid: ", 7) && strstr(e, what) && nlines(e) == (st == 2 ? 2 : 1),
        "%s: status %d, stderr: %s", cmd, rc, e);
  CHECK(access(DIR "/out.csv", F_OK) != 0, "%s: wrote a file", cmd);
}

/* another arm's loaded recording: the KUKA LWR4 (7 joints too) with the
 * load, as currents */
static void write_other_arm(void) {
  dyModel* k = NULL;
  char err[DY_ERRSZ];
  CHECK(dy_load_model("datasets/urdf/kuka_lwr4.urdf", &(dyLoadOpt){0}, &k, err, sizeof err) == 0, "kuka: %s", err);
  if (!k) return;
  dyData* d = dy_make_data(k);
  rec r = rec_make(k, d, 24, 1, 0.02, 10);
  write_log(DIR "/other.csv", k->n, &r);
  rec_free(&r);
  dy_free_data(d);
  dy_free_model(k);
}

/* 5. bad input: one line each, nothing written */
static void test_bad(void) {
  CHECK(system("grep -v '^GAIN' " DIR "/gp.csv > " DIR "/nogain.csv && grep -v '^GAIN3' " DIR "/gp.csv > " DIR
               "/gain6.csv") == 0, "PARAMS without gains");
  must_fail("./dynid payload " PANDA " " DIR "/nogain.csv " DIR "/lo2.csv --gain " DIR "/nogain.csv", 1,
            "no GAIN rows");
  must_fail("./dynid validate " PANDA " " DIR "/gain6.csv " DIR "/lo2.csv", 1, "GAIN3 is missing");
  CHECK(system("sed 's/^GAIN7,/GAIN8,/' " DIR "/gp.csv > " DIR "/gain8.csv && sed 's/^GAIN3,/GAIN2,/' " DIR
               "/gp.csv > " DIR "/gain22.csv && sed 's/^GAIN3,[^,]*,/GAIN3,0,/' " DIR "/gp.csv > " DIR "/gain0.csv") == 0,
        "bad GAIN rows");
  must_fail("./dynid payload " PANDA " " DIR "/gain8.csv " DIR "/lo2.csv", 1, "GAIN1..GAIN7");
  must_fail("./dynid payload " PANDA " " DIR "/gain22.csv " DIR "/lo2.csv", 1, "GAIN2 given twice");
  must_fail("./dynid validate " PANDA " " DIR "/gain0.csv " DIR "/lo2.csv", 1, "must not be zero");
  /* --params of id reads a PARAMS file with GAIN rows as any other */
  CHECK(th_run(DIR, "./dynid id " PANDA " " DIR "/un.csv --params " DIR "/gp.csv -o " DIR "/tau.csv") == 0,
        "id --params with GAIN rows: %s", th_slurp(DIR "/stderr"));
  write_other_arm();
  must_fail("./dynid identify " PANDA " " DIR "/un.csv --payload-log " DIR "/other.csv --payload-mass 2.8 "
            "--estimate-gains --friction --gain " K0LOW, 1, "another arm");
  const char* id = "./dynid identify " PANDA " " DIR "/un.csv --payload-log " DIR "/lo.csv --estimate-gains ";
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s --payload-mass 0", id);
  must_fail(cmd, 2, "--payload-mass must be");
  snprintf(cmd, sizeof cmd, "%s --payload-mass -2.8", id);
  must_fail(cmd, 2, "--payload-mass must be");
  must_fail("./dynid identify " PANDA " " DIR "/un.csv --payload-mass 2.8 --estimate-gains", 2,
            "needs --payload-log");
  must_fail("./dynid identify " PANDA " --payload-log " DIR "/lo.csv --payload-mass 2.8 --estimate-gains", 2,
            "needs LOG");
  must_fail("./dynid identify " PANDA " " DIR "/un.csv --payload-log " DIR "/lo.csv --payload-mass 2.8", 2,
            "go with --estimate-gains");
}

int main(void) {
  CHECK(system("mkdir -p " DIR) == 0, "mkdir " DIR);
  /* the statistical targets (about 1 s of pure computation on no input)
   * in the plain build; under the sanitizers the program below runs the
   * same estimator on files */
  if (!TH_SANITIZED) test_levels();
  dyModel* m = panda();
  if (m) test_program(m);
  if (m) test_bad();
  dy_free_model(m);
  return test_report();
}
