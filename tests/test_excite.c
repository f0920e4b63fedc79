/* SPDX-License-Identifier: MIT */
/* dynid tests: excitation design (ident/excite.h).
 *  - every sample of the planned trajectory, checked here densely and
 *    independently of dyi_excite_check, respects the model's position,
 *    velocity and acceleration limits, and every joint uses its tightest
 *    limit to within 1 % of the margin asked (the limits are used exactly,
 *    not through conservative bounds); the analytic qd, qdd agree with
 *    finite differences of q (so the limits are checked on the true motion);
 *  - dyi_fourier_peak against a brute-force maximum over 10^5 instants;
 *  - the optimised condition number is below the first start's, and the
 *    same seed gives the same trajectory with 1 or 2 threads;
 *  - with --rest, qd and qdd are zero at t = 0 and t = period;
 *  - identification on a simulated noisy log of the planned trajectory gives
 *    smaller relative standard deviations than on a random trajectory of
 *    the same length (the whole point of planning);
 *  - the standard deviations dyi_excite_predict announces match the spread
 *    of OLS estimates over repeated noise draws on that trajectory (within
 *    20 % per parameter), and the estimates are unbiased. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "ident/excite.h"
#include "ident/estimate.h"
#include "ident/regressor.h"
#include "core/io.h"
#include "teststats.h"

static void set_limits(dyModel* m) {
  for (int j = 0; j < m->n; j++) {
    int pr = m->jnt_type[j] == DY_PRISMATIC;
    double c = th_uniform(-0.5, 0.5);
    m->jnt_qmin[j] = c - (pr ? 0.3 : th_uniform(1.5, 2.8));
    m->jnt_qmax[j] = c + (pr ? 0.3 : th_uniform(1.5, 2.8));
    m->jnt_qdmax[j] = pr ? 0.5 : th_uniform(1.5, 3);
    m->jnt_qddmax[j] = pr ? 3 : th_uniform(6, 15);
  }
}

/* dense independent limit check: the largest use of any limit (<= 1 ok) */
static double dense_use(const dyModel* m, const dyiFourier* f, double dur, double* fd_err,
                        double* juse) {
  double worst = 0, h = 1e-5, q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], qp[DY_MAXJ], qm[DY_MAXJ];
  double vp[DY_MAXJ], vm[DY_MAXJ];
  *fd_err = 0;
  for (int s = 0; s <= 20000; s++) {
    double t = dur * s / 20000.0;
    dyi_fourier_eval(f, t, q, qd, qdd);
    for (int j = 0; j < m->n; j++) {
      double mid = 0.5 * (m->jnt_qmin[j] + m->jnt_qmax[j]), half = 0.5 * (m->jnt_qmax[j] - m->jnt_qmin[j]);
      double u = fmax(fabs(q[j] - mid) / half, fmax(fabs(qd[j]) / m->jnt_qdmax[j], fabs(qdd[j]) / m->jnt_qddmax[j]));
      worst = fmax(worst, u);
      if (juse) juse[j] = s ? fmax(juse[j], u) : u;
    }
    if (s % 1000 == 0) {
      dyi_fourier_eval(f, t + h, qp, vp, NULL);
      dyi_fourier_eval(f, t - h, qm, vm, NULL);
      for (int j = 0; j < m->n; j++) {
        /* central differences: O(h^2) ~ 1e-10 relative, plus round-off ~1e-11 */
        *fd_err = fmax(*fd_err, fabs((qp[j] - qm[j]) / (2*h) - qd[j]) / fmax(1, fabs(qd[j])));
        *fd_err = fmax(*fd_err, fabs((vp[j] - vm[j]) / (2*h) - qdd[j]) / fmax(1, fabs(qdd[j])));
      }
    }
  }
  return worst;
}

/* OLS on a simulated noisy log of trajectory f: median and geometric mean
 * of the relative standard deviations [%] (the geometric mean compares the
 * two trajectories parameter by parameter on the same true values: it is
 * the ratio of the standard deviations, whatever each |beta| is) */
static void identify_spread(const dyModel* m, const dyiBase* b, const dyiFourier* f, double dur,
                            double rate, double noise, double* med, double* gm) {
  int n = m->n, npar = b->npar, nb = b->nb, block = 64;
  dyData* d = dy_make_data(m);
  dyiEstOpt opt;
  dyi_est_defaults(&opt);
  opt.block = block;
  opt.max_cond = 1e14;
  char err[DY_ERRSZ];
  dyiEstim* e = dyi_est_make(n, nb, &opt, err, sizeof err);
  double* Y = malloc(sizeof(double) * (size_t)n * npar);
  double* A = calloc((size_t)n * block * nb, sizeof(double));
  double* y = malloc(sizeof(double) * (size_t)n * block);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  long N = lround(dur * rate);
  int ns = 0;
  th_rng = 12345;
  for (long s = 0; s < N; s++) {
    dyi_fourier_eval(f, s / rate, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    dyi_regressor(m, d, q, qd, qdd, b->friction, Y, n);
    for (int i = 0; i < n; i++) {
      double g = 0;  /* Gaussian noise by Box-Muller from the test's generator */
      double u1 = th_uniform(1e-12, 1), u2 = th_uniform(0, 1);
      g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
      y[ns*n + i] = tau[i] + noise * g;
      for (int c = 0; c < nb; c++) {
        double acc = 0;
        for (int k = 0; k < npar; k++) acc += Y[i + (size_t)k*n] * b->P[(size_t)k*nb + c];
        A[(size_t)c * n * block + ns*n + i] = acc;
      }
    }
    if (++ns == block || s == N - 1) {
      dyi_est_add(e, A, n * block, y, ns, NULL, err, sizeof err);
      ns = 0;
    }
  }
  int r = dyi_est_solve(e, NULL, err, sizeof err);
  CHECK(r == 0, "identification on the trajectory: %s", err);
  double* rs = calloc((size_t)nb, sizeof(double));
  for (int c = 0; c < nb; c++) rs[c] = r ? INFINITY : e->rel_std_pct[c];
  for (int i = 1; i < nb; i++)
    for (int k = i; k > 0 && rs[k] < rs[k-1]; k--) { double t = rs[k]; rs[k] = rs[k-1]; rs[k-1] = t; }
  *med = rs[nb / 2];
  double lg = 0;
  for (int c = 0; c < nb; c++) lg += log(rs[c]);
  *gm = exp(lg / nb);
  free(rs); free(Y); free(A); free(y);
  dyi_est_free(e);
  dy_free_data(d);
}

/* dyi_fourier_peak against the largest of 10^5 evenly spaced samples */
static void test_peak(void) {
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    dyiFourier f;
    memset(&f, 0, sizeof f);
    f.n = 1; f.nh = 1 + trial % 7; f.wf = 2 * M_PI / th_uniform(2, 12);
    for (int l = 0; l < f.nh; l++) { f.a[l][0] = th_uniform(-1, 1); f.b[l][0] = th_uniform(-1, 1); }
    for (int d = 0; d < 3; d++) {
      double t, p = dyi_fourier_peak(&f, 0, d, &t), brute = 0, T = 2 * M_PI / f.wf;
      for (int s = 0; s < 100000; s++) brute = fmax(brute, fabs(dyi_fourier_deriv(&f, 0, d, T * s / 100000.0)));
      double v[3];
      dyi_fourier_eval(&f, t, v, v + 1, v + 2);
      CHECK(fabs(fabs(d ? v[d] : v[0] - f.q0[0]) - p) <= 1e-12 * p, "peak value is the series at its time");
      /* the brute force sees the peak within (pi L / 1e5)^2 / 2 relative */
      CHECK(p >= brute * (1 - 1e-13) && p <= brute * (1 + 1e-6), "trial %d d %d: peak %.15g vs sampled %.15g",
            trial, d, p, brute);
      worst = fmax(worst, (p - brute) / brute);
    }
  }
  printf("fourier peaks: largest excess over 10^5 samples %.3g (relative)\n", worst);
}

/* the base-parameter rows A (n N x nb, column-major) of the N samples of f at rate */
static void predict_rows(const dyModel* m, const dyiBase* b, const dyiFourier* f, long N, double rate, double* A) {
  const int n = m->n, nb = b->nb, np = b->npar;
  double* Y = malloc(sizeof(double) * (size_t)n * np);
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  for (long k = 0; k < N; k++) {
    dyi_fourier_eval(f, k / rate, q, qd, qdd);
    dyi_regressor(m, d, q, qd, qdd, 1, Y, n);
    for (int c = 0; c < nb; c++)
      for (int i = 0; i < n; i++) {
        double acc = 0;
        for (int kk = 0; kk < np; kk++) acc += Y[i + (size_t)kk * n] * b->P[(size_t)kk * nb + c];
        A[(size_t)c * n * N + k * n + i] = acc;
      }
  }
  dy_free_data(d);
  free(Y);
}

/* R = 300 draws of Gaussian noise sigma_j on the torques A beta: the OLS
 * estimates' spread against the predicted std sd, and their bias */
static void predict_draws(const dyiBase* b, int n, long N, const double* A, const double* beta, const double* sd,
                          const double* sigma) {
  const int nb = b->nb;
  char err[DY_ERRSZ];
  double* tau = malloc(sizeof(double) * (size_t)n * N), *y = malloc(sizeof(double) * (size_t)n * N);
  for (long row = 0; row < n * N; row++) {   /* the torque the model gives, through the base parameters */
    double acc = 0;
    for (int c = 0; c < nb; c++) acc += A[(size_t)c * n * N + row] * beta[c];
    tau[row] = acc;
  }
  dyiEstOpt eo;
  dyi_est_defaults(&eo);
  eo.block = (int)N;
  eo.max_cond = 1e14;
  dyiEstim* e = dyi_est_make(n, nb, &eo, err, sizeof err);
  enum { R = 300 };
  double* s1 = calloc(nb, sizeof(double)), *s2 = calloc(nb, sizeof(double));
  for (int rep = 0; rep < R && e; rep++) {
    for (long row = 0; row < n * N; row++) {
      double u1 = th_uniform(1e-12, 1), u2 = th_uniform(0, 1);
      y[row] = tau[row] + sigma[row % n] * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    }
    dyi_est_reset(e);
    if (dyi_est_add(e, A, (int)(n * N), y, (int)N, NULL, err, sizeof err) || dyi_est_solve(e, NULL, err, sizeof err)) {
      CHECK(0, "predict: OLS: %s", err);
      break;
    }
    for (int c = 0; c < nb; c++) { double dv = e->beta[c] - beta[c]; s1[c] += dv; s2[c] += dv * dv; }
  }
  double lo = INFINITY, hi = 0, bias = 0;
  for (int c = 0; c < nb; c++) {
    double mean = s1[c] / R, spread = sqrt((s2[c] - R * mean * mean) / (R - 1));
    double ratio = spread / sd[c];
    lo = fmin(lo, ratio); hi = fmax(hi, ratio);
    bias = fmax(bias, fabs(mean) / (sd[c] / sqrt(R)));
    CHECK(ratio > 0.8 && ratio < 1.2, "predict: %s: spread %.4g vs predicted std %.4g (ratio %.3f)", b->name[c],
          spread, sd[c], ratio);
  }
  CHECK(bias < 4.5, "predict: estimates unbiased (largest mean error %.2f standard errors)", bias);
  printf("predicted vs observed spread over %d draws, %d base parameters: ratio %.3f .. %.3f; "
         "largest mean error %.2f standard errors\n", R, nb, lo, hi, bias);
  dyi_est_free(e);
  free(tau); free(y); free(s1); free(s2);
}

/* Repeated noise draws on the planned trajectory: OLS estimates' spread
 * against dyi_excite_predict. The regressor is built once; each draw adds
 * fresh Gaussian noise of sigma_j to joint j's torque. */
static void test_predict(void) {
  char err[DY_ERRSZ];
  th_rng = 4242;
  dyModel* m = th_random_model(3, 0, 0.3, 1);
  set_limits(m);
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "predict: base set: %s", err);
  if (!b) { dy_free_model(m); return; }
  dyiExciteOpt o;
  dyi_excite_defaults(&o);
  o.rest = 1; o.screen = 0; o.starts = 1; o.maxeval = 60; o.polish = 0; o.seed = 3; o.threads = 2; o.hops = 0;
  dyiFourier f;
  dyiExciteInfo info = {0};
  int r = dyi_excite(m, b, &o, &f, &info, err, sizeof err);
  CHECK(r == 0, "predict: excite: %s", err);
  int n = m->n, nb = b->nb;
  double rate = 50, dur = o.period;
  long N = lround(dur * rate);
  double sigma[DY_MAXJ], fbsig[DY_MAXJ];
  int fb[DY_MAXJ];
  CHECK(dyi_excite_default_noise(m, &f, dur, rate, fbsig, fb) == 0, "default noise");
  for (int j = 0; j < n; j++)
    CHECK(fbsig[j] > 0 && isfinite(fbsig[j]), "default noise of joint %d positive (%g)", j + 1, fbsig[j]);
  for (int j = 0; j < n; j++) sigma[j] = 0.02 * (j + 1);     /* unequal: the sandwich formula matters */
  double* beta = malloc(sizeof(double) * nb), *sd = malloc(sizeof(double) * nb);
  r = dyi_excite_predict(m, b, &f, dur, rate, sigma, beta, sd, err, sizeof err);
  CHECK(r == 0, "predict: %s", err);
  /* rows of the whole recording */
  double* A = malloc(sizeof(double) * (size_t)n * N * nb);
  predict_rows(m, b, &f, N, rate, A);
  predict_draws(b, n, N, A, beta, sd, sigma);
  free(A); free(beta); free(sd);
  dyi_base_free(b);
  dy_free_model(m);
}

/* the planned trajectory f of trial: limits at every sample, every joint's
 * tightest limit used to within 1 % of the margin, analytic derivatives,
 * at rest at both ends with o->rest */
static void check_planned(const dyModel* m, const dyiFourier* f, const dyiExciteOpt* o, int trial) {
  const int n = m->n;
  double fd, juse[DY_MAXJ];
  double use = dense_use(m, f, 2 * o->period, &fd, juse);
  CHECK(use <= 1 + 1e-12, "trial %d: limits hold at every sample (largest use %.6f)", trial, use);
  for (int j = 0; j < n; j++)
    CHECK(juse[j] >= 0.99 * o->margin && juse[j] <= o->margin * (1 + 1e-9),
          "trial %d: joint %d uses %.5f of its tightest limit (margin %.2f)", trial, j + 1, juse[j], o->margin);
  CHECK(fd < 1e-6, "trial %d: qd, qdd agree with finite differences of q (%.3g)", trial, fd);
  if (o->rest) {
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], worst = 0;
    for (int k = 0; k < 2; k++) {
      dyi_fourier_eval(f, k * o->period, q, qd, qdd);
      for (int j = 0; j < n; j++) worst = fmax(worst, fmax(fabs(qd[j]), fabs(qdd[j])));
    }
    CHECK(worst < 1e-12, "trial %d: at rest at t = 0 and t = T (%.3g)", trial, worst);
  }
}

/* identification quality: the D-optimal design (which minimises the
 * generalised variance det cov) against a random trajectory of the same
 * length, on the same simulated noise level (o's criterion changed, info
 * overwritten) */
static void check_dopt(const dyModel* m, const dyiBase* b, dyiExciteOpt* o, dyiExciteInfo* info, int trial) {
  char err[DY_ERRSZ];
  const int n = m->n;
  dyiFourier fd_opt, f0;
  double fd;
  o->criterion = DYI_EXC_DOPT;
  int r = dyi_excite(m, b, o, &fd_opt, info, err, sizeof err);
  CHECK(r == 0 && info->logdet > info->logdet0, "trial %d: D-optimal log det %.4g above the first start's %.4g",
        trial, info->logdet, info->logdet0);
  double use = dense_use(m, &fd_opt, 2 * o->period, &fd, NULL);
  CHECK(use <= 1 + 1e-12, "trial %d: D-optimal trajectory within limits (largest use %.6f)", trial, use);
  dyi_fourier_random(&f0, m, o->nh, o->period, o->seed, err, sizeof err);
  for (int j = 0; j < n; j++) dyi_fourier_fit(&f0, m, j, o->margin);
  double med0, gm0, med1, gm1;
  identify_spread(m, b, &f0, o->period, 100, 0.05, &med0, &gm0);
  identify_spread(m, b, &fd_opt, o->period, 100, 0.05, &med1, &gm1);
  printf("trial %d (n=%d, nb=%d): cond %.4g -> %.4g; D-optimal: relative std geometric mean %.3g%% -> %.3g%%, "
         "median %.3g%% -> %.3g%%\n", trial, n, b->nb, info->cond0, info->cond, gm0, gm1, med0, med1);
  CHECK(gm1 < gm0, "trial %d: relative stds on the planned trajectory smaller (geometric mean %.3g%% < %.3g%%)",
        trial, gm1, gm0);
  CHECK(med1 < med0, "trial %d: median relative std smaller (%.3g%% vs %.3g%%)", trial, med1, med0);
}

/* excitation design on a random (3 + trial)-joint arm: the optimised cond,
 * the same trajectory with 2 threads, the planned trajectory, D-optimality */
static void excite_trial(int trial) {
  char err[DY_ERRSZ];
  th_rng = 1000 + trial;
  int n = 3 + trial;
  dyModel* m = th_random_model(n, trial == 1 ? 0.3 : 0, 0.3, trial % 2);
  set_limits(m);
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, m->has_friction, err, sizeof err);
  CHECK(b != NULL, "trial %d: base set: %s", trial, err);
  if (!b) { dy_free_model(m); return; }
  dyiExciteOpt o;
  dyi_excite_defaults(&o);
  o.screen = 4; o.starts = 2; o.maxeval = 60; o.polish = 40;   /* 4 screened, the best 2 go on */
  o.hops = 2; o.hop_rounds = 1; o.hop_eval = 30;                /* then 2 hops from the best */
  o.rest = trial % 2;
  o.seed = 7 + trial;
  o.criterion = trial == 2 ? DYI_EXC_COND_SCALED : DYI_EXC_COND;
  dyiFourier f, f2;
  dyiExciteInfo info = {0};
  int r = dyi_excite(m, b, &o, &f, &info, err, sizeof err);
  CHECK(r == 0, "trial %d: excite: %s", trial, err);
  if (r) { dyi_base_free(b); dy_free_model(m); return; }
  CHECK(info.cond < info.cond0, "trial %d: optimised cond %.4g below the first start's %.4g", trial, info.cond,
        info.cond0);
  if (trial < 2) {
    o.threads = 2;
    r = dyi_excite(m, b, &o, &f2, NULL, err, sizeof err);
    CHECK(r == 0 && !memcmp(&f, &f2, sizeof f), "trial %d: same seed, same trajectory with 2 threads", trial);
  }
  check_planned(m, &f, &o, trial);
  check_dopt(m, b, &o, &info, trial);
  dyi_base_free(b);
  dy_free_model(m);
}

/* the hop rounds on a random 4-joint arm with tiny budgets: a hop round
 * replaces the best point only when lower, so the result (no polish) is
 * never above the same search without hops, and is that search's
 * trajectory itself when no round improved; every hop search runs; the
 * same trajectory on 1 and 2 threads; the reported cond is that of the
 * trajectory returned (dyi_excite_eval, a workspace of its own) */
static void test_hops(void) {
  char err[DY_ERRSZ];
  th_rng = 777;
  dyModel* m = th_random_model(4, 0, 0.3, 1);
  set_limits(m);
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "hops: base set: %s", err);
  if (!b) { dy_free_model(m); return; }
  dyiExciteOpt o;
  dyi_excite_defaults(&o);
  /* weak local searches (15 evaluations), so that the hops can improve */
  o.rest = 1; o.screen = 6; o.starts = 2; o.maxeval = 15; o.polish = 0; o.seed = 12; o.threads = 1;
  o.hops = 0;
  dyiFourier f0, f1, f2;
  dyiExciteInfo i0 = {0}, i1 = {0}, i2 = {0};
  int r = dyi_excite(m, b, &o, &f0, &i0, err, sizeof err);
  CHECK(r == 0 && i0.hops == 0 && i0.hops_better == 0, "hops: none asked, none run (%d): %s", i0.hops, err);
  o.hops = 3; o.hop_rounds = 2; o.hop_eval = 45;
  r = dyi_excite(m, b, &o, &f1, &i1, err, sizeof err);
  CHECK(r == 0 && i1.hops == 6 && i1.hops_better >= 0 && i1.hops_better <= 2 && i1.starts_done == 2,
        "hops: 2 rounds of 3 run (%d hops, %d better, %d starts): %s", i1.hops, i1.hops_better, i1.starts_done, err);
  /* both values come out of the same SVD on W: equal to round-off */
  CHECK(i1.cond <= i0.cond * (1 + 1e-12), "hops: cond %.10g not above the search without hops %.10g", i1.cond,
        i0.cond);
  if (i1.hops_better == 0)
    CHECK(!memcmp(&f0, &f1, sizeof f0), "hops: no round better, the trajectory without hops kept");
  else
    CHECK(i1.cond < i0.cond, "hops: %d rounds better, cond %.6g below %.6g", i1.hops_better, i1.cond, i0.cond);
  double ce;
  dyi_excite_eval(m, b, &f1, o.nsamp, NULL, &ce, NULL, NULL, NULL);
  /* the same W, the same SVD: round-off apart */
  CHECK(fabs(ce - i1.cond) <= 1e-9 * i1.cond, "hops: cond reported %.10g, of the trajectory %.10g", i1.cond, ce);
  o.threads = 2;
  r = dyi_excite(m, b, &o, &f2, &i2, err, sizeof err);
  CHECK(r == 0 && !memcmp(&f1, &f2, sizeof f1) && i2.hops_better == i1.hops_better,
        "hops: the same trajectory with 2 threads");
  printf("hops: cond %.6g without, %.6g with (%d of 2 rounds better)\n", i0.cond, i1.cond, i1.hops_better);
  dyi_base_free(b);
  dy_free_model(m);
}

int main(void) {
  test_peak();
  test_hops();
  test_predict();
  for (int trial = 0; trial < 4; trial++) excite_trial(trial);
  return test_report();
}
