/* dynid tests: the regressor Y(q,qd,qdd) of tau = Y pi.
 *  - Y pi equals Newton-Euler (dy_rnea) with the model's parameters,
 *    friction included, on random chains of revolute and prismatic joints;
 *  - every column k equals Newton-Euler run with the unit parameter vector
 *    e_k (an independent way to get the same matrix: NE is linear in pi);
 *  - the leading dimension works (a block written into a taller matrix
 *    leaves the other rows alone), NULL qd/qdd mean zero, and joint k's
 *    parameters never act on joints after k.
 * Tolerance: 1e-12 relative to the largest torque/column entry: both sides
 * are O(n) sums of O(1) products (round-off ~1e-15 n), while a wrong term is
 * O(1e-2) or more. */
#include "testmodels.h"
#include "dynamics.h"
#include "regressor.h"

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static void check_model(dyModel* m, const char* what) {
  int n = m->n, np = dyi_ncols(m, 1), ld = n + 3;
  dyData* d = dy_makeData(m);
  double* Y = malloc(sizeof(double) * (size_t)ld * (size_t)np);
  double* e = calloc((size_t)np, sizeof(double));
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], t1[DY_MAXJ];
  for (int trial = 0; trial < 4; trial++) {
    th_random_state(n, q, qd, qdd);
    if (trial == 3) qd[0] = 0;  /* sign(0) = 0 in both */
    for (int i = 0; i < ld*np; i++) Y[i] = 12345.0;
    dyi_regressor(m, d, q, qd, qdd, 1, Y + 1, ld);
    /* rows outside the block untouched */
    int untouched = 1;
    for (int k = 0; k < np; k++) {
      if (Y[ld*k] != 12345.0) untouched = 0;
      for (int i = n + 1; i < ld; i++) if (Y[i + ld*k] != 12345.0) untouched = 0;
    }
    CHECK(untouched, "%s: rows outside the block untouched", what);
    /* Y pi = NE */
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    double worst = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = 0; k < np; k++) s += Y[1 + i + ld*k] * m->par[k];
      worst = fmax(worst, fabs(s - tau[i]));
    }
    CHECK(worst <= 1e-12 * fmax(1, maxabs(tau, n)), "%s: Y pi vs NE: %.3g", what, worst);
    /* each column = NE with e_k */
    double cworst = 0, scale = 1, above = 0;
    for (int k = 0; k < np; k++) {
      e[k] = 1;
      dy_rnea(m, d, e, q, qd, qdd, t1);
      e[k] = 0;
      for (int i = 0; i < n; i++) {
        cworst = fmax(cworst, fabs(Y[1 + i + ld*k] - t1[i]));
        scale = fmax(scale, fabs(t1[i]));
        if (k < DY_NPAR_LINK*n && i > k / DY_NPAR_LINK) above = fmax(above, fabs(Y[1 + i + ld*k]));
      }
    }
    CHECK(cworst <= 1e-12 * scale, "%s: columns vs NE(e_k): %.3g (scale %.3g)", what, cworst, scale);
    CHECK(above == 0, "%s: link k acts on joints after k: %.3g", what, above);
  }
  /* without friction the first 10n columns are the same; NULL qd, qdd */
  th_random_state(n, q, NULL, NULL);
  dyi_regressor(m, d, q, NULL, NULL, 0, Y, n);
  double zero[DY_MAXJ] = {0};
  dy_rnea_g(m, d, m->par, q, zero, zero, m->gravity, 0, tau);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < DY_NPAR_LINK*n; k++) s += Y[i + n*k] * m->par[k];
    worst = fmax(worst, fabs(s - tau[i]));
  }
  CHECK(worst <= 1e-12 * fmax(1, maxabs(tau, n)), "%s: gravity-only regressor vs NE: %.3g", what, worst);
  CHECK(dyi_ncols(m, 0) == 10*n && dyi_ncols(m, 1) == 14*n, "%s: column counts", what);
  free(e); free(Y); dy_freeData(d);
}

int main(void) {
  char what[64];
  for (int t = 0; t < 30; t++) {
    int n = 1 + t % 8;
    dyModel* m = th_random_model(n, t < 10 ? 0.0 : 0.35, t % 3 == 0 ? 0.5 : 0.0, 1);
    snprintf(what, sizeof what, "random chain %d (n=%d)", t, n);
    check_model(m, what);
    dy_freeModel(m);
  }
  /* all prismatic, gravity off-axis */
  dyModel* m = th_random_model(4, 1.0, 0.3, 1);
  m->gravity[0] = 1; m->gravity[1] = -2; m->gravity[2] = -9;
  check_model(m, "prismatic chain");
  dy_freeModel(m);
  return test_report();
}
