/* dynid tests: the core dynamics agree with themselves.
 *  - the CRBA inertia matrix equals the columns obtained from Newton-Euler
 *    (tau(qdd = e_k) - tau(qdd = 0)), symmetric, positive definite;
 *  - the bias vector equals Newton-Euler at qdd = 0 and
 *    M qdd + b equals Newton-Euler;
 *  - forward dynamics (Cholesky and ABA) of inverse dynamics return qdd.
 * Tolerances: relative 1e-10 of the largest entry; these are O(n) sums of
 * O(1)-scaled products, so round-off is ~1e-14 and 1e-10 leaves margin
 * while catching any wrong term (which is O(1e-2) or larger). */
#include "testmodels.h"
#include "dynamics.h"
#include "io.h"

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static void check_model(const dyModel* m, const char* what) {
  int n = m->n;
  dyData* d = dy_makeData(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
  double H[DY_MAXJ*DY_MAXJ], b[DY_MAXJ], e[DY_MAXJ], qdd2[DY_MAXJ];
  for (int trial = 0; trial < 5; trial++) {
    th_random_state(n, q, qd, qdd);
    dy_crba(m, d, m->par, q, H);
    /* columns of NE without velocity and gravity (friction offsets cancel) */
    double zero[3] = {0, 0, 0}, worst = 0, scale = maxabs(H, n*n);
    dy_rnea_g(m, d, m->par, q, NULL, NULL, zero, 1, t0);
    for (int k = 0; k < n; k++) {
      memset(e, 0, sizeof e); e[k] = 1;
      dy_rnea_g(m, d, m->par, q, NULL, e, zero, 1, t1);
      for (int i = 0; i < n; i++) worst = fmax(worst, fabs(t1[i] - t0[i] - H[i*n + k]));
    }
    CHECK(worst <= 1e-10 * scale, "%s: CRBA vs NE columns: %.3g (scale %.3g)", what, worst, scale);
    double asym = 0;
    for (int i = 0; i < n; i++) for (int k = 0; k < n; k++) asym = fmax(asym, fabs(H[i*n+k] - H[k*n+i]));
    CHECK(asym <= 1e-12 * scale, "%s: H symmetric: %.3g", what, asym);

    /* M qdd + b = tau */
    dy_bias(m, d, m->par, q, qd, b);
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    worst = 0;
    for (int i = 0; i < n; i++) {
      double s = b[i];
      for (int k = 0; k < n; k++) s += H[i*n + k] * qdd[k];
      worst = fmax(worst, fabs(s - tau[i]));
    }
    double ts = fmax(1, maxabs(tau, n));
    CHECK(worst <= 1e-10 * ts, "%s: M qdd + b vs NE: %.3g", what, worst);

    /* forward of inverse */
    int info = dy_fd_chol(m, d, m->par, q, qd, tau, qdd2);
    CHECK(info == 0, "%s: H positive definite (dpotrf info %d)", what, info);
    worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(qdd2[i] - qdd[i]));
    CHECK(worst <= 1e-8 * fmax(1, maxabs(qdd, n)), "%s: FD(chol) of ID: %.3g", what, worst);
    info = dy_fd_aba(m, d, m->par, q, qd, tau, qdd2);
    CHECK(info == 0, "%s: ABA info %d", what, info);
    worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(qdd2[i] - qdd[i]));
    CHECK(worst <= 1e-8 * fmax(1, maxabs(qdd, n)), "%s: FD(aba) of ID: %.3g", what, worst);
  }
  dy_freeData(d);
}

/* a single body on a revolute joint about z with gravity along -y:
 * tau = (Izz_O) qdd + m g (cx cos q - cy sin q) -- hand-derived */
static void check_pendulum(void) {
  dyModel* m = dy_makeModel(1);
  double c[3] = {0.3, 0.1, 0.05}, Ic[6] = {0.01, 0, 0, 0.02, 0, 0.03};
  dy_linkpar_from_com(m->par, 2.0, c, Ic);
  m->gravity[0] = 0; m->gravity[1] = -9.81; m->gravity[2] = 0;
  dyData* d = dy_makeData(m);
  double q = 0.7, qd = 1.3, qdd = -0.4, tau;
  dy_rnea(m, d, m->par, &q, &qd, &qdd, &tau);
  double izz = 0.03 + 2.0 * (0.3*0.3 + 0.1*0.1);
  double expect = izz * qdd + 2.0 * 9.81 * (0.3 * cos(q) - 0.1 * sin(q));
  CHECK_REL(tau, expect, 1e-12, "pendulum torque");
  dy_freeData(d);
  dy_freeModel(m);
}

/* classic DH table converted: FK agrees with the classic product */
static void check_classic(void) {
  const char* path = "build/tests/classic.csv";
  FILE* f = fopen(path, "w");
  fprintf(f, "# classic DH test arm\njoint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,-1.5707963267948966,0.1,0,0.4,3,0.01,0.02,0.03,0.1,0.001,0.002,0.12,0.003,0.09\n"
             "2,R,0,0.5,0.3,0.1,2,0.2,0.01,0,0.02,0,0,0.05,0,0.05\n"
             "3,P,1.5707963267948966,0,0,0.2,1,0,0,0.1,0.01,0,0,0.01,0,0.005\n"
             "4,R,0.4,0.05,0,0.3,0.5,0.0,0.01,0.02,0.002,0,0,0.002,0,0.001\n");
  fclose(f);
  dyLoadOpt opt = {0};
  opt.classic_dh = 1;
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  int r = dy_load_table(path, &opt, &m, err, sizeof err);
  CHECK(r == 0, "classic table loads: %s", err);
  if (r) return;
  CHECK(m->load_fk_err < 1e-12, "classic->modified FK difference %.3g", m->load_fk_err);
  /* the centre of mass of the last link, seen from the base, is the same
   * point whether computed in classic or in modified frames */
  check_model(m, "classic-converted");
  dy_freeModel(m);
}

int main(void) {
  check_pendulum();
  check_classic();
  for (int trial = 0; trial < 40; trial++) {
    int n = 1 + trial % 9;
    dyModel* m = th_random_model(n, trial % 3 ? 0.25 : 0.0, trial % 2 ? 0.5 : 0.0, trial % 4 == 0);
    char what[64];
    snprintf(what, sizeof what, "random chain %d (n=%d)", trial, n);
    check_model(m, what);
    dy_freeModel(m);
  }
  return test_report();
}
