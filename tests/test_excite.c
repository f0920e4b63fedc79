/* dynid tests: excitation design (ident/excite.h).
 *  - every sample of the planned trajectory, checked here densely and
 *    independently of dyi_excite_check, respects the model's position,
 *    velocity and acceleration limits; the analytic qd, qdd agree with
 *    finite differences of q (so the limits are checked on the true motion);
 *  - the optimised condition number is below the starting guess's;
 *  - with --rest, qd and qdd are zero at t = 0 and t = period;
 *  - identification on a simulated noisy log of the planned trajectory gives
 *    smaller relative standard deviations than on the random starting
 *    trajectory of the same length (the whole point of planning). */
#include "testmodels.h"
#include "dynamics.h"
#include "excite.h"
#include "estimate.h"
#include "regressor.h"
#include "io.h"

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
static double dense_use(const dyModel* m, const dyFourier* f, double dur, double* fd_err) {
  double worst = 0, h = 1e-5, q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], qp[DY_MAXJ], qm[DY_MAXJ];
  double vp[DY_MAXJ], vm[DY_MAXJ];
  *fd_err = 0;
  for (int s = 0; s <= 20000; s++) {
    double t = dur * s / 20000.0;
    dyi_fourier_eval(f, t, q, qd, qdd);
    for (int j = 0; j < m->n; j++) {
      double mid = 0.5 * (m->jnt_qmin[j] + m->jnt_qmax[j]), half = 0.5 * (m->jnt_qmax[j] - m->jnt_qmin[j]);
      worst = fmax(worst, fabs(q[j] - mid) / half);
      worst = fmax(worst, fabs(qd[j]) / m->jnt_qdmax[j]);
      worst = fmax(worst, fabs(qdd[j]) / m->jnt_qddmax[j]);
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
static void identify_spread(const dyModel* m, const dyBase* b, const dyFourier* f, double dur,
                            double rate, double noise, double* med, double* gm) {
  int n = m->n, npar = b->npar, nb = b->nb, block = 64;
  dyData* d = dy_makeData(m);
  dyEstOpt opt;
  dyi_est_defaults(&opt);
  opt.block = block;
  opt.max_cond = 1e14;
  char err[DY_ERRSZ];
  dyEstim* e = dyi_est_make(n, nb, &opt, err, sizeof err);
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
  dy_freeData(d);
}

int main(void) {
  char err[DY_ERRSZ];
  for (int trial = 0; trial < 4; trial++) {
    th_rng = 1000 + trial;
    int n = 3 + trial;
    dyModel* m = th_random_model(n, trial == 1 ? 0.3 : 0, 0.3, trial % 2);
    set_limits(m);
    dyBase* b = dyi_base_compute(m, "khalil", m->has_friction, err, sizeof err);
    CHECK(b != NULL, "trial %d: base set: %s", trial, err);
    if (!b) { dy_freeModel(m); continue; }
    dyExciteOpt o;
    dyi_excite_defaults(&o);
    o.maxeval = 250;
    o.rest = trial % 2;
    o.seed = 7 + trial;
    dyFourier f, f0;
    dyExciteInfo info = {0};
    int r = dyi_excite(m, b, &o, &f, &info, err, sizeof err);
    CHECK(r == 0, "trial %d: excite: %s", trial, err);
    if (r) { dyi_base_free(b); dy_freeModel(m); continue; }
    CHECK(info.cond < info.cond0, "trial %d: optimised cond %.4g below the start's %.4g", trial, info.cond, info.cond0);
    double fd;
    double use = dense_use(m, &f, 2 * o.period, &fd);
    CHECK(use <= 1 + 1e-12, "trial %d: limits hold at every sample (largest use %.6f)", trial, use);
    CHECK(use > 0.5, "trial %d: the trajectory uses its limits (largest use %.3f)", trial, use);
    CHECK(fd < 1e-6, "trial %d: qd, qdd agree with finite differences of q (%.3g)", trial, fd);
    if (o.rest) {
      double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], worst = 0;
      for (int k = 0; k < 2; k++) {
        dyi_fourier_eval(&f, k * o.period, q, qd, qdd);
        for (int j = 0; j < n; j++) worst = fmax(worst, fmax(fabs(qd[j]), fabs(qdd[j])));
      }
      CHECK(worst < 1e-12, "trial %d: at rest at t = 0 and t = T (%.3g)", trial, worst);
    }
    /* identification quality: the D-optimal design (which minimises the
     * generalised variance det cov) against the random starting trajectory
     * of the same length, on the same simulated noise level */
    o.criterion = DYI_EXC_DOPT;
    dyFourier fd_opt;
    r = dyi_excite(m, b, &o, &fd_opt, &info, err, sizeof err);
    CHECK(r == 0 && info.logdet > info.logdet0, "trial %d: D-optimal log det %.4g above the start's %.4g",
          trial, info.logdet, info.logdet0);
    use = dense_use(m, &fd_opt, 2 * o.period, &fd);
    CHECK(use <= 1 + 1e-12, "trial %d: D-optimal trajectory within limits (largest use %.6f)", trial, use);
    dyi_fourier_random(&f0, m, o.nh, o.period, o.seed, err, sizeof err);
    for (int j = 0; j < n; j++) dyi_fourier_fit(&f0, m, j, o.margin);
    double med0, gm0, med1, gm1;
    identify_spread(m, b, &f0, o.period, 100, 0.05, &med0, &gm0);
    identify_spread(m, b, &fd_opt, o.period, 100, 0.05, &med1, &gm1);
    printf("trial %d (n=%d, nb=%d): cond %.4g -> %.4g; D-optimal: relative std geometric mean %.3g%% -> %.3g%%, "
           "median %.3g%% -> %.3g%%\n", trial, n, b->nb, info.cond0, info.cond, gm0, gm1, med0, med1);
    CHECK(gm1 < gm0, "trial %d: relative stds on the planned trajectory smaller (geometric mean %.3g%% < %.3g%%)",
          trial, gm1, gm0);
    CHECK(med1 < med0, "trial %d: median relative std smaller (%.3g%% vs %.3g%%)", trial, med1, med0);
    dyi_base_free(b);
    dy_freeModel(m);
  }
  return test_report();
}
