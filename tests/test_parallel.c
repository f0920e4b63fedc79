/* SPDX-License-Identifier: MIT */
/* dynid tests: parallel filtering and decimation (the identification
 * default), several logs in one estimate.
 *
 * Simulated logs of a UR5-like 6R (modified DH table written here: the
 * UR5's lengths, link masses and plausible centres of mass and inertias),
 * with viscous and Coulomb friction, torque noise 2 % of each joint's RMS
 * torque, along random Fourier trajectories (ident/traj.h), at 200 Hz and
 * 1 kHz. Held-out data: another trajectory, computed in memory, with and
 * without noise; the error is 100 ||tau_pred - tau|| / ||tau|| over all
 * joints, tau_pred from the realisation P beta by dy_rnea.
 *  - Default options (parallel filtering) against plain OLS on the exact
 *    logged q, qd, qdd (--cutoff none): held-out error within 5 % on noisy
 *    and within 0.1 percentage point on noise-free held-out data.
 *  - Logs with q only (derivatives computed by the reader): default options
 *    within 1.25x of that OLS.
 *  - Standard deviations after decimation: the whitened spread of the
 *    estimates over repeated noise draws on one trajectory against the
 *    estimated covariance (as in test_identify's filtered-std test).
 *  - Several logs: no filter runs across a file boundary: two different
 *    noise-free motions as two logs give the true parameters (1e-4, the
 *    signals' filter's accuracy), joined into one file they do not (the
 *    filters smear the jump); --rows one range per log; the PARAMS header
 *    lists every log. */
#include "testmodels.h"
#include "testlog.h"
#include "teststats.h"
#include "ident/base.h"
#include "core/dynamics.h"
#include "ident/identify.h"
#include "core/io.h"
#include "ident/log.h"
#include "ident/traj.h"
#include "core/util.h"
#include <string.h>
#include <unistd.h>

static char tmp[256];

/* a UR5-like arm in modified DH (lengths of the UR5, masses of its links;
 * centres of mass and inertias plausible, not the vendor's) */
static const char* UR5 =
  "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,ia,fv,fc,fo\n"
  "1,R,0,0,0,0.089159,3.7,0,-0.02,-0.01,0.0103,0,0,0.0103,0,0.0067,0,2.0,3.0,0\n"
  "2,R,1.5707963267948966,0,0,0,8.393,-0.2125,0,0.136,0.0151,0,0.002,0.1339,0,0.1339,0,2.0,3.0,0\n"
  "3,R,0,-0.425,0,0,2.275,-0.196,0,0.016,0.0041,0,0,0.0312,0,0.0312,0,1.5,2.0,0\n"
  "4,R,0,-0.39225,0,0.10915,1.219,0,0.01,0.01,0.0022,0,0,0.0021,0,0.0020,0,0.5,1.0,0\n"
  "5,R,1.5707963267948966,0,0,0.09465,1.219,0,-0.01,0.01,0.0022,0,0,0.0020,0,0.0021,0,0.5,1.0,0\n"
  "6,R,-1.5707963267948966,0,0,0.0823,0.1879,0,0,-0.02,0.0001,0,0,0.0001,0,0.0002,0,0.5,0.8,0\n";

static dyModel* ur5(void) {
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/ur5.csv", tmp);
  FILE* f = fopen(path, "w");
  fputs(UR5, f);
  fclose(f);
  dyModel* m = NULL;
  dyLoadOpt lo;
  memset(&lo, 0, sizeof lo);
  CHECK(dy_load_model(path, &lo, &m, err, sizeof err) == 0, "UR5-like model: %s", err);
  return m;
}

/* held-out error [%] of beta on trajectory f (noise sd, or none) */
static double heldout(const dyModel* m, const dyiBase* b, const double* beta, const dyiFourier* f,
                      double dur, double rate, const double* sd, unsigned long long seed) {
  int n = m->n;
  double par[14 * DY_MAXJ] = {0};
  for (int k = 0; k < b->npar; k++)
    for (int i = 0; i < b->nb; i++) par[k] += b->P[(size_t)k * (size_t)b->nb + (size_t)i] * beta[i];
  dyData* d = dy_make_data(m);
  unsigned long long s = seed * 7 + 1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], pr[DY_MAXJ], e2 = 0, t2 = 0;
  long N = lround(dur * rate);
  for (long k = 0; k < N; k++) {
    dyi_fourier_eval(f, k / rate, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    dy_rnea(m, d, par, q, qd, qdd, pr);
    for (int j = 0; j < n; j++) {
      if (sd) tau[j] += sd[j] * dyi_rng_gauss(&s);
      e2 += (pr[j] - tau[j]) * (pr[j] - tau[j]); t2 += tau[j] * tau[j];
    }
  }
  dy_free_data(d);
  return 100 * sqrt(e2 / t2);
}

static dyiEstim* identify(const dyModel* m, const dyiBase* b, const char* path, const dyiLogOpt* lo) {
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(path, m->n, lo, err, sizeof err);
  dyiEstim* e = r ? dyi_identify(m, b, r, NULL, NULL, err, sizeof err) : NULL;
  CHECK(e != NULL, "identify %s: %s", path, err);
  dyi_log_close(r);
  return e;
}

/* the targets at one rate: held-out errors, RMS over R noise draws (a
 * single draw's ratio varies by +-20 % either way) */
static void test_targets(double rate) {
  dyModel* m = ur5();
  if (!m) return;
  char err[DY_ERRSZ], lg[300], lq[300];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "khalil set: %s", err);
  if (!b) { dy_free_model(m); return; }
  enum { R = 4 };
  double dur = rate > 500 ? 20 : 30, sd[DY_MAXJ], acc[3][2] = {{0}};
  long rows[3] = {0};
  dyiFourier ft, fh;
  dyi_fourier_random(&ft, m, 5, 10.0, 31, err, sizeof err);
  dyi_fourier_random(&fh, m, 5, 10.0, 47, err, sizeof err);
  th_noise_sd(m, &ft, 10.0, 0.02, sd);
  snprintf(lg, sizeof lg, "%s/train.csv", tmp);
  snprintf(lq, sizeof lq, "%s/trainq.csv", tmp);
  dyiLogOpt lo[3];
  for (int k = 0; k < 3; k++) dyi_log_defaults(&lo[k]);
  lo[0].cutoff_hz = -1;   /* plain OLS on the exact samples */
  int ok = 1;
  for (int r = 0; r < R && ok; r++) {
    th_write_log(lg, m, &ft, dur, rate, sd, 5 + (unsigned)r, 0);
    th_write_log(lq, m, &ft, dur, rate, sd, 5 + (unsigned)r, 1);
    for (int k = 0; k < 3 && ok; k++) {
      dyiEstim* e = identify(m, b, k == 2 ? lq : lg, &lo[k]);
      if (!e) { ok = 0; break; }
      double en = heldout(m, b, e->beta, &fh, 10, rate, sd, 99), ec = heldout(m, b, e->beta, &fh, 10, rate, NULL, 0);
      acc[k][0] += en * en / R; acc[k][1] += ec * ec / R;
      rows[k] = e->samples;
      dyi_est_free(e);
    }
  }
  if (ok) {
    double on = sqrt(acc[0][0]), oc = sqrt(acc[0][1]), dn = sqrt(acc[1][0]), dc = sqrt(acc[1][1]);
    double qn = sqrt(acc[2][0]), qc = sqrt(acc[2][1]);
    printf("%g Hz, %d base parameters, %d draws: held-out error noisy / noise-free [%%]: OLS unfiltered "
           "%.3f / %.3f (%ld samples), default %.3f / %.3f (%ld rows), q only %.3f / %.3f\n", rate, b->nb,
           R, on, oc, rows[0], dn, dc, rows[1], qn, qc);
    CHECK(dn <= 1.05 * on, "%g Hz: default %.3f %% within 5 %% of OLS %.3f %% (noisy held-out)", rate, dn, on);
    CHECK(dc <= oc + 0.1, "%g Hz: default %.3f %% within 0.1 point of OLS %.3f %% (noise-free held-out)",
          rate, dc, oc);
    CHECK(qc <= 1.25 * oc && qn <= 1.25 * on, "%g Hz: q only %.3f / %.3f %% within 1.25x of OLS on exact "
          "derivatives %.3f / %.3f %%", rate, qn, qc, on, oc);
    /* the default cutoff measured on these noise-free logs is at most fs / 5: D >= 2 */
    CHECK(rows[1] <= rows[0] / 2, "%g Hz: decimated to %ld rows from %ld", rate, rows[1], rows[0]);
  }
  dyi_base_free(b);
  dy_free_model(m);
}

/* std of the default (parallel filtering, decimation, variance factor)
 * against the spread over R noise draws on one trajectory, the UR5-like
 * arm with friction at 200 Hz: whitened spread / std (chi^2 with p
 * dof, sd 1/sqrt(2 p) ~ 3 %) within [0.8, 1.25] */
static void test_std(void) {
  dyModel* m = ur5();
  if (!m) return;
  char err[DY_ERRSZ], lg[300];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  if (!b) { CHECK(0, "%s", err); dy_free_model(m); return; }
  enum { R = 10 };
  int p = b->nb, ok = 1;
  double sd[DY_MAXJ];
  double* beta = malloc(sizeof(double) * (size_t)(R * p));
  double* cov = malloc(sizeof(double) * (size_t)(R * p * p));
  dyiFourier ft;
  dyi_fourier_random(&ft, m, 5, 10.0, 31, err, sizeof err);
  th_noise_sd(m, &ft, 10.0, 0.02, sd);
  snprintf(lg, sizeof lg, "%s/std.csv", tmp);
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  for (int r = 0; r < R && ok; r++) {
    th_write_log(lg, m, &ft, 30, 200, sd, 700 + (unsigned)r, 0);
    dyiEstim* e = identify(m, b, lg, &lo);
    if (!e) { ok = 0; break; }
    memcpy(beta + (size_t)r * (size_t)p, e->beta, sizeof(double) * (size_t)p);
    memcpy(cov + (size_t)r * (size_t)(p * p), e->cov, sizeof(double) * (size_t)(p * p));
    dyi_est_free(e);
  }
  if (ok) {
    double mu[14 * DY_MAXJ], dv[14 * DY_MAXJ], s = 0, pm = 0;
    for (int k = 0; k < p; k++) {
      mu[k] = 0;
      for (int r = 0; r < R; r++) mu[k] += beta[(size_t)r * (size_t)p + (size_t)k] / R;
    }
    for (int r = 0; r < R; r++) {
      for (int k = 0; k < p; k++) dv[k] = beta[(size_t)r * (size_t)p + (size_t)k] - mu[k];
      s += chi2(cov + (size_t)r * (size_t)(p * p), dv, p);
    }
    for (int k = 0; k < p; k++) {
      double v = 0, es = 0;
      for (int r = 0; r < R; r++) {
        double d = beta[(size_t)r * (size_t)p + (size_t)k] - mu[k];
        v += d * d / (R - 1);
        es += cov[(size_t)r * (size_t)(p * p) + (size_t)(k * p + k)] / R;
      }
      pm += v / es;
    }
    double ratio = sqrt(s / ((R - 1) * p)), marg = sqrt(pm / p);
    CHECK(ratio > 0.8 && ratio < 1.25, "default options, %d draws: whitened spread/std %.3f", R, ratio);
    printf("std of the default (UR5-like, friction, 200 Hz): %d draws, %d parameters: whitened spread/std %.3f, "
           "marginal %.3f\n", R, p, ratio, marg);
  }
  free(beta); free(cov);
  dyi_base_free(b);
  dy_free_model(m);
}

/* rows the default keeps of a log stretch of N samples */
static long rows_of(const dyiLogInfo* li, long N) { return (N - 2 * li->guard + li->decim - 1) / li->decim; }

/* two different noise-free motions a and b2 as two logs: the stack is right
 * to the filters' accuracy (a filter across the boundary would mix two
 * motions that do not join); the first log's info into li */
static void check_two_logs(const dyModel* m, const dyiBase* b, const double* bt, const char* a, const char* b2,
                           dyiLogInfo* li) {
  char err[DY_ERRSZ];
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  dyiLogReader* rs[2] = {dyi_log_open(a, m->n, &lo, err, sizeof err), dyi_log_open(b2, m->n, &lo, err, sizeof err)};
  dyiEstim* e = rs[0] && rs[1] ? dyi_identify_logs(m, b, rs, 2, NULL, NULL, err, sizeof err) : NULL;
  CHECK(e != NULL, "two logs: %s", err);
  memset(li, 0, sizeof *li);
  if (rs[0]) dyi_log_info(rs[0], li);
  if (e) {
    double re = rel_err(e->beta, bt, b->nb);
    /* not round-off: the signals' Butterworth leaves 1e-3 of its edge
     * transient at the guard (log.c GUARD_TOL) */
    CHECK(re < 1e-4 && e->samples == 2 * rows_of(li, 2000), "two noise-free logs stacked: rel err %.3g, %ld "
          "rows (want %ld)", re, e->samples, 2 * rows_of(li, 2000));
  }
  dyi_est_free(e);
  dyi_log_close(rs[0]); dyi_log_close(rs[1]);
}

/* the same two motions joined into one file all: the filters run over the
 * jump between them, and the estimate is off */
static void check_joined(const dyModel* m, const dyiBase* b, const double* bt, const char* a, const char* b2,
                         const char* all) {
  char err[DY_ERRSZ];
  FILE* o = fopen(all, "w");
  FILE* ia = fopen(a, "r");
  FILE* ib = fopen(b2, "r");
  char line[4096];
  long k = 0;
  while (fgets(line, sizeof line, ia)) fputs(line, o);
  if (fgets(line, sizeof line, ib)) {}   /* header */
  while (fgets(line, sizeof line, ib)) {   /* times continue after the first file's */
    char* c = strchr(line, ',');
    fprintf(o, "%.17g%s", 10.0 + (double)k++ / 200, c);
  }
  fclose(o); fclose(ia); fclose(ib);
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  dyiLogReader* r1 = dyi_log_open(all, m->n, &lo, err, sizeof err);
  dyiEstim* e = r1 ? dyi_identify(m, b, r1, NULL, NULL, err, sizeof err) : NULL;
  double rejoin = e ? rel_err(e->beta, bt, b->nb) : 0;
  CHECK(e && rejoin > 1e-6, "one file joining the motions: rel err %.3g (the filters run across the jump)",
        rejoin);
  printf("two motions, noise-free: as two logs rel err < 1e-4, as one joined file %.3g\n", rejoin);
  dyi_est_free(e);
  dyi_log_close(r1);
}

/* the program: both logs listed, --rows per log, bad --rows lists */
static void check_logs_cli(const char* a, const char* b2, const char* out, const dyiLogInfo* li) {
  char cmd[1500];
  snprintf(cmd, sizeof cmd, "./dynid identify %s/ur5.csv %s %s --friction --rows 1..1500,501.. -o %s",
           tmp, a, b2, out);
  int rc = th_run(tmp, cmd);
  const char* txt = th_slurp(out);
  char la[400], lb[400];
  snprintf(la, sizeof la, "# log: %s\n", a);
  snprintf(lb, sizeof lb, "# log: %s\n", b2);
  CHECK(rc == 0 && strstr(txt, la) && strstr(txt, lb) && strstr(txt, "# rows: parallel filtering"),
        "identify A B: exit %d, both logs in the PARAMS header", rc);
  const char* sp = strstr(txt, "# samples: ");
  long ns = sp ? atol(sp + 11) : 0;
  CHECK(ns == 2 * rows_of(li, 1500), "--rows 1..1500,501..: %ld rows (want %ld)", ns, 2 * rows_of(li, 1500));
  snprintf(cmd, sizeof cmd, "./dynid identify %s/ur5.csv %s %s --friction --rows 1..10,2..3,4..5 -o %s",
           tmp, a, b2, out);
  CHECK(th_run(tmp, cmd) == 2, "three --rows ranges for two logs: bad usage");
  snprintf(cmd, sizeof cmd, "./dynid validate %s/ur5.csv %s %s --rows 1..10,2..3", tmp, out, a);
  CHECK(th_run(tmp, cmd) == 2, "a --rows list with one log: bad usage");
}

/* several logs: identify LOG1 LOG2 */
static void test_logs(void) {
  dyModel* m = ur5();
  if (!m) return;
  char err[DY_ERRSZ], a[300], b2[300], all[300], out[300];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  if (!b) { CHECK(0, "%s", err); dy_free_model(m); return; }
  double sd0[DY_MAXJ] = {0}, bt[14 * DY_MAXJ];
  for (int i = 0; i < b->nb; i++) {
    bt[i] = 0;
    for (int k = 0; k < b->npar; k++) bt[i] += b->B[(size_t)i * (size_t)b->npar + (size_t)k] * m->par[k];
  }
  dyiFourier f1, f2;
  dyi_fourier_random(&f1, m, 5, 10.0, 61, err, sizeof err);
  dyi_fourier_random(&f2, m, 5, 10.0, 62, err, sizeof err);
  snprintf(a, sizeof a, "%s/a.csv", tmp);
  snprintf(b2, sizeof b2, "%s/b.csv", tmp);
  snprintf(all, sizeof all, "%s/all.csv", tmp);
  snprintf(out, sizeof out, "%s/p.csv", tmp);
  th_write_log(a, m, &f1, 10, 200, sd0, 1, 0);
  th_write_log(b2, m, &f2, 10, 200, sd0, 1, 0);
  dyiLogInfo li;
  check_two_logs(m, b, bt, a, b2, &li);
  check_joined(m, b, bt, a, b2, all);
  check_logs_cli(a, b2, out, &li);
  dyi_base_free(b);
  dy_free_model(m);
}

static void test_200(void) { test_targets(200); }
static void test_1k(void) { test_targets(1000); }

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_test_parallel_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  void (*tests[])(void) = {test_200, test_1k, test_std, test_logs};
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    double t0 = dy_now_s();
    tests[i]();
    printf("section %zu: %.1f s\n", i, dy_now_s() - t0);
  }
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (!getenv("KEEP") && system(cmd)) {}
  return test_report();
}
