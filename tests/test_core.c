/* SPDX-License-Identifier: MIT */
/* dynid tests: the core dynamics agree with themselves.
 *  - the CRBA inertia matrix equals the columns obtained from Newton-Euler
 *    (tau(qdd = e_k) - tau(qdd = 0)), symmetric, positive definite;
 *  - the bias vector equals Newton-Euler at qdd = 0 and
 *    M qdd + b equals Newton-Euler;
 *  - forward dynamics (Cholesky and ABA) of inverse dynamics return qdd;
 *  - a classic-DH table converted to modified DH keeps the forward
 *    kinematics, every link's mass, centre of mass and inertia seen from
 *    the base, and the gravity torques of hand-computed statics.
 * Tolerances: relative 1e-10 of the largest entry; these are O(n) sums of
 * O(1)-scaled products, so round-off is ~1e-14 and 1e-10 leaves margin
 * while catching any wrong term (which is O(1e-2) or larger). */
#include "testmodels.h"
#include "core/dynamics.h"
#include "core/io.h"

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static void check_model(const dyModel* m, const char* what) {
  int n = m->n;
  dyData* d = dy_make_data(m);
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
  dy_free_data(d);
}

/* a single body on a revolute joint about z with gravity along -y:
 * tau = (Izz_O) qdd + m g (cx cos q - cy sin q) -- hand-derived */
static void check_pendulum(void) {
  dyModel* m = dy_make_model(1);
  double c[3] = {0.3, 0.1, 0.05}, Ic[6] = {0.01, 0, 0, 0.02, 0, 0.03};
  dy_linkpar_from_com(m->par, 2.0, c, Ic);
  m->gravity[0] = 0; m->gravity[1] = -9.81; m->gravity[2] = 0;
  dyData* d = dy_make_data(m);
  double q = 0.7, qd = 1.3, qdd = -0.4, tau;
  dy_rnea(m, d, m->par, &q, &qd, &qdd, &tau);
  double izz = 0.03 + 2.0 * (0.3*0.3 + 0.1*0.1);
  double expect = izz * qdd + 2.0 * 9.81 * (0.3 * cos(q) - 0.1 * sin(q));
  CHECK_REL(tau, expect, 1e-12, "pendulum torque");
  dy_free_data(d);
  dy_free_model(m);
}

/* The classic DH test arm: alpha, a, theta, d, m, c (classic frame j),
 * Ic about the centre of mass in classic frame-j axes (ixx ixy ixz iyy iyz
 * izz); joint 3 prismatic. */
#define NCL 4
static const char cl_type[NCL] = {'R', 'R', 'P', 'R'};
static const double cl_row[NCL][13] = {
  {-1.5707963267948966, 0.1, 0, 0.4, 3, 0.01, 0.02, 0.03, 0.1, 0.001, 0.002, 0.12, 0.003},
  {0, 0.5, 0.3, 0.1, 2, 0.2, 0.01, 0, 0.02, 0, 0, 0.05, 0},
  {1.5707963267948966, 0, 0, 0.2, 1, 0, 0, 0.1, 0.01, 0, 0, 0.01, 0},
  {0.4, 0.05, 0, 0.3, 0.5, 0.0, 0.01, 0.02, 0.002, 0, 0, 0.002, 0}};
static const double cl_izz[NCL] = {0.09, 0.05, 0.005, 0.001};

/* classic frames 0..NCL in the base at q, by hand:
 *   T_{j-1,j} = Rz(theta_j) Tz(d_j) Tx(a_j) Rx(alpha_j),
 * theta_j += q_j (revolute) or d_j += q_j (prismatic); R row-major */
static void classic_frames(const double* q, double R[NCL + 1][9], double p[NCL + 1][3]) {
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(R[0], I, sizeof I);
  memset(p[0], 0, sizeof p[0]);
  for (int j = 0; j < NCL; j++) {
    int rev = cl_type[j] == 'R';
    double al = cl_row[j][0], a = cl_row[j][1], th = cl_row[j][2] + (rev ? q[j] : 0);
    double d = cl_row[j][3] + (rev ? 0 : q[j]), ct = cos(th), st = sin(th), ca = cos(al), sa = sin(al);
    double Rl[9] = {ct, -st * ca, st * sa, st, ct * ca, -ct * sa, 0, sa, ca}, pl[3] = {a * ct, a * st, d};
    for (int r = 0; r < 3; r++) {
      p[j + 1][r] = p[j][r];
      for (int c = 0; c < 3; c++) {
        R[j + 1][3 * r + c] = 0;
        for (int k = 0; k < 3; k++) R[j + 1][3 * r + c] += R[j][3 * r + k] * Rl[3 * k + c];
        p[j + 1][r] += R[j][3 * r + c] * pl[c];
      }
    }
  }
}

/* R S R^T of a symmetric S given as xx xy xz yy yz zz, full 3x3 out */
static void rot_sym(const double R[9], const double s6[6], double out[9]) {
  double S[9] = {s6[0], s6[1], s6[2], s6[1], s6[3], s6[4], s6[2], s6[4], s6[5]};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double v = 0;
      for (int k = 0; k < 3; k++) for (int l = 0; l < 3; l++) v += R[3 * r + k] * S[3 * k + l] * R[3 * c + l];
      out[3 * r + c] = v;
    }
}

/* At a state q: every link's mass, centre of mass and inertia about it,
 * seen from the base, are the same by the classic route (the table's
 * values through the hand-made classic frames) and by the converted model
 * (dy_linkpar_to_com of its parameters, placed by dy_fk in modified
 * frames). Then the gravity torques of dy_rnea (qd = qdd = 0) equal the
 * hand-computed statics of the classic centres of mass,
 *   tau_i = -z_{i-1} . sum_{k>=i} (c_k - o_{i-1}) x m_k g   (revolute),
 *   tau_i = -z_{i-1} . sum_{k>=i} m_k g                     (prismatic),
 * z_{i-1}, o_{i-1}: axis and origin of classic frame i-1. Tolerances:
 * 1e-12 (m, kg m^2: a few rotations of O(1) numbers, round-off ~1e-15) and
 * 1e-10 of the largest torque (O(n) sums; a wrong lever arm shows at 1e-2). */
static void check_classic_com(const dyModel* m, dyData* d, const double* q) {
  double Rc[NCL + 1][9], pc[NCL + 1][3], cw[NCL][3], g[3] = {0, 0, -9.81};
  classic_frames(q, Rc, pc);
  double ec = 0, ei = 0, em = 0, isc = 0;
  for (int j = 0; j < NCL; j++) {
    double mass, c[3], Ic[6], R[9], p[3], I1[9], I2[9], cm[3];
    const double* cc = cl_row[j] + 5;
    double ic6[6] = {cl_row[j][8], cl_row[j][9], cl_row[j][10], cl_row[j][11], cl_row[j][12], cl_izz[j]};
    dy_linkpar_to_com(m->par + DY_NPAR_LINK * j, &mass, c, Ic);
    dy_fk(m, q, j, R, p);
    for (int r = 0; r < 3; r++) {
      cw[j][r] = pc[j + 1][r] + Rc[j + 1][3 * r] * cc[0] + Rc[j + 1][3 * r + 1] * cc[1] + Rc[j + 1][3 * r + 2] * cc[2];
      cm[r] = p[r] + R[3 * r] * c[0] + R[3 * r + 1] * c[1] + R[3 * r + 2] * c[2];
      ec = fmax(ec, fabs(cm[r] - cw[j][r]));
    }
    rot_sym(Rc[j + 1], ic6, I1);
    rot_sym(R, Ic, I2);
    for (int k = 0; k < 9; k++) { ei = fmax(ei, fabs(I1[k] - I2[k])); isc = fmax(isc, fabs(I1[k])); }
    em = fmax(em, fabs(mass - cl_row[j][4]));
  }
  CHECK(em <= 1e-12 && ec <= 1e-12 && ei <= 1e-12 * isc, "classic-converted: link masses %.3g kg, "
        "centres of mass %.3g m, inertias about them %.3g kg m^2 from the classic ones", em, ec, ei);
  double zero[DY_MAXJ] = {0}, tau[DY_MAXJ], want[NCL], worst = 0, sc = 0;
  dy_rnea(m, d, m->par, q, zero, zero, tau);
  for (int i = 0; i < NCL; i++) {
    const double* z = Rc[i];   /* z_{i-1}: third column */
    double M[3] = {0, 0, 0};
    for (int k = i; k < NCL; k++) {
      double r[3] = {cw[k][0] - pc[i][0], cw[k][1] - pc[i][1], cw[k][2] - pc[i][2]}, f[3];
      for (int a = 0; a < 3; a++) f[a] = cl_row[k][4] * g[a];
      if (cl_type[i] == 'R') {
        M[0] += r[1] * f[2] - r[2] * f[1]; M[1] += r[2] * f[0] - r[0] * f[2]; M[2] += r[0] * f[1] - r[1] * f[0];
      } else for (int a = 0; a < 3; a++) M[a] += f[a];
    }
    want[i] = -(z[2] * M[0] + z[5] * M[1] + z[8] * M[2]);
    sc = fmax(sc, fabs(want[i]));
  }
  for (int i = 0; i < NCL; i++) worst = fmax(worst, fabs(tau[i] - want[i]));
  CHECK(worst <= 1e-10 * sc, "classic-converted: gravity torques vs statics of the classic centres of "
        "mass: %.3g (scale %.3g N m)", worst, sc);
}

/* classic DH table converted: FK agrees with the classic product, and the
 * links' mass distribution is carried into the modified frames unchanged */
static void check_classic(void) {
  const char* path = "build/tests/classic.csv";
  FILE* f = fopen(path, "w");
  fprintf(f, "# classic DH test arm\njoint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n");
  for (int j = 0; j < NCL; j++) {
    fprintf(f, "%d,%c", j + 1, cl_type[j]);
    for (int k = 0; k < 13; k++) fprintf(f, ",%.17g", cl_row[j][k]);
    fprintf(f, ",%.17g\n", cl_izz[j]);
  }
  fclose(f);
  dyLoadOpt opt = {0};
  opt.classic_dh = 1;
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  int r = dy_load_table(path, &opt, &m, err, sizeof err);
  CHECK(r == 0 && m && m->n == NCL, "classic table loads with %d joints: %s", r ? 0 : m->n, err);
  if (r || !m || m->n != NCL) { if (!r) dy_free_model(m); return; }
  CHECK(m->load_fk_err < 1e-12, "classic->modified FK difference %.3g", m->load_fk_err);
  dyData* d = dy_make_data(m);
  for (int trial = 0; trial < 5; trial++) {
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
    th_random_state(NCL, q, qd, qdd);
    check_classic_com(m, d, q);
  }
  dy_free_data(d);
  check_model(m, "classic-converted");
  dy_free_model(m);
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
    dy_free_model(m);
  }
  return test_report();
}
