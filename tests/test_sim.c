/* SPDX-License-Identifier: MIT */
/* dynid tests: the forward simulation's linearly implicit integrator
 * (verify/sim.h), each result against an independent computation:
 *  - accuracy on non-stiff random arms (revolute and prismatic, viscous
 *    friction): against classical RK4 at 64 fixed substeps per sample on
 *    dy_fd_chol (CRBA and Cholesky, not the ABA the integrator calls);
 *  - stability on a stiff arm (a last link 1e4 times lighter, with viscous
 *    friction: time constant far below the step): against the same RK4 at
 *    a step 100 times below that time constant, the integrator taking a
 *    few steps per sample where explicit RK4 at its step diverges;
 *  - Coulomb friction on one joint of tiny inertia, against the closed
 *    form: sliding from rest (exponential approach to (tau - FC) / FV) and
 *    sticking (|tau| < FC: the creep bound of sim.h);
 *  - a model that cannot be simulated (negative inertia) fails cleanly. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "verify/sim.h"

/* classical RK4 at sub fixed substeps over dt, torque held, qdd from
 * dy_fd_chol; 0, or 1 when a Cholesky fails */
static int rk4_ref(const dyModel* m, dyData* d, const double* par, double* q, double* qd,
                   const double* tau, double dt, int sub) {
  const int n = m->n;
  const double h = dt / sub;
  for (int s = 0; s < sub; s++) {
    double k[4][DY_MAXJ], v[4][DY_MAXJ], qt[DY_MAXJ];
    memcpy(v[0], qd, sizeof(double) * n);
    memcpy(qt, q, sizeof(double) * n);
    for (int st = 0; st < 4; st++) {
      if (dy_fd_chol(m, d, par, qt, v[st], tau, k[st])) return 1;
      if (st == 3) break;
      const double c = st < 2 ? 0.5*h : h;
      for (int j = 0; j < n; j++) { qt[j] = q[j] + c*v[st][j]; v[st + 1][j] = qd[j] + c*k[st][j]; }
    }
    for (int j = 0; j < n; j++) {
      q[j] += h/6 * (v[0][j] + 2*v[1][j] + 2*v[2][j] + v[3][j]);
      qd[j] += h/6 * (k[0][j] + 2*k[1][j] + 2*k[2][j] + k[3][j]);
    }
  }
  return 0;
}

/* a torque that holds the arm roughly against gravity plus a wiggle */
static void drive(const dyModel* m, dyData* d, const double* q, double t, double* tau) {
  dy_rnea(m, d, m->par, q, NULL, NULL, tau);
  for (int j = 0; j < m->n; j++) tau[j] += 2*sin(7*t + j);
}

/* ns samples of dt from (q, qd): the integrator against RK4 at sub
 * substeps; the largest differences in q and qd, and the steps taken */
static void run_pair(const dyModel* m, int ns, double dt, int sub, const double* q0, const double* qd0,
                     double* eq, double* eqd, long* steps) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  dyvSim* s = dyv_sim_make(m, m->par);
  double q[DY_MAXJ], qd[DY_MAXJ], qr[DY_MAXJ], qdr[DY_MAXJ], tau[DY_MAXJ];
  memcpy(q, q0, sizeof(double) * n); memcpy(qr, q0, sizeof(double) * n);
  memcpy(qd, qd0, sizeof(double) * n); memcpy(qdr, qd0, sizeof(double) * n);
  *eq = *eqd = 0;
  int bad = !s;
  for (int i = 0; i < ns && !bad; i++) {
    drive(m, d, qr, i*dt, tau);
    bad = dyv_sim_advance(s, q, qd, tau, dt) || rk4_ref(m, d, m->par, qr, qdr, tau, dt, sub);
    for (int j = 0; j < n; j++) { *eq = fmax(*eq, fabs(q[j] - qr[j])); *eqd = fmax(*eqd, fabs(qd[j] - qdr[j])); }
  }
  CHECK(!bad, "simulation and reference ran");
  *steps = s ? s->steps : 0;
  dyv_sim_free(s);
  dy_free_data(d);
}

/* Global error <= the sum of the local errors, each <= the tolerance,
 * times the growth e^(L T) of an error over the run (T = 0.1 s, L of the
 * order of the arm's frequencies, ~10/s): 3 covers it. The reference's
 * own error (RK4 at 31 us: h^4 ~ 1e-18 per step) is negligible. */
static void check_accuracy(void) {
  for (int c = 0; c < 6; c++) {
    dyModel* m = th_random_model(4, 0.25, 0.3, 1);
    for (int j = 0; j < m->n; j++) m->par[DY_NPAR_LINK*m->n + DY_NPAR_JNT*j + DY_FC] = 0;
    double q[DY_MAXJ], qd[DY_MAXJ], eq, eqd;
    long steps;
    th_random_state(m->n, q, qd, NULL);
    run_pair(m, 50, 0.002, 64, q, qd, &eq, &eqd, &steps);
    CHECK(eq <= 3 * steps * DYV_SIM_TOLQ && eqd <= 3 * steps * DYV_SIM_TOLQD,
          "random arm %d: |q - q_RK4| %.3g rad, |qd - qd_RK4| %.3g rad/s over %ld steps", c, eq, eqd, steps);
    CHECK(eq < 1e-5, "random arm %d: within 1e-5 rad of RK4 (%.3g)", c, eq);
    dy_free_model(m);
  }
}

/* the largest eigenvalue of M^-1 D (D = diag FV) at q, by the power
 * method on M^-1 D (positive: similar to D^1/2 M^-1 D^1/2) */
static double stiff_rate(const dyModel* m, const double* q) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  double x[DY_MAXJ], y[DY_MAXJ], z[DY_MAXJ], lam = 0;
  for (int j = 0; j < n; j++) x[j] = 1;
  for (int it = 0; it < 200; it++) {
    for (int j = 0; j < n; j++) y[j] = m->par[DY_NPAR_LINK*n + DY_NPAR_JNT*j + DY_FV] * x[j];
    /* z = M^-1 y: forward dynamics with qd = 0, no gravity and bias removed */
    double zero[DY_MAXJ] = {0}, g0[DY_MAXJ];
    dy_fd_chol(m, d, m->par, q, zero, zero, g0);
    dy_fd_chol(m, d, m->par, q, zero, y, z);
    double nz = 0;
    for (int j = 0; j < n; j++) { z[j] -= g0[j]; nz = fmax(nz, fabs(z[j])); }
    lam = nz;
    for (int j = 0; j < n; j++) x[j] = z[j] / nz;
  }
  dy_free_data(d);
  return lam;
}

/* 20 explicit RK4 steps of h from (q, qd) under tau: the largest |qd| */
static double rk4_run(const dyModel* m, const double* q0, const double* qd0, const double* tau, double h) {
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], r = 0;
  memcpy(q, q0, sizeof(double) * m->n); memcpy(qd, qd0, sizeof(double) * m->n);
  for (int k = 0; k < 20 && !rk4_ref(m, d, m->par, q, qd, tau, h, 1); k++) {}
  for (int j = 0; j < m->n; j++) r = isfinite(qd[j]) ? fmax(r, fabs(qd[j])) : INFINITY;
  dy_free_data(d);
  return r;
}

/* A 3-DoF arm whose last link is 1e5 times lighter (all ten parameters
 * scaled: still a physical body) with viscous friction 1 N m s on its
 * joint: the rate lambda of M^-1 FV is checked to make the case stiff
 * (lambda dt > 500: explicit RK4, stable for h lambda < 2.8, would need
 * lambda dt / 2.8 steps per sample). The reference RK4 runs at
 * h = 0.1 / lambda (stable; its error on the decaying fast mode is
 * (h lambda)^5 / 120 ~ 1e-7 of it per step). The integrator must agree
 * within the bound of check_accuracy. Each torque jump (every sample)
 * starts a boundary layer of width 1 / lambda in the light joint's
 * velocity, which the step control resolves from a step of about
 * 1 / lambda growing geometrically (x3 at most per step) back to dt: some
 * 2 log2(lambda dt) steps per sample, not lambda dt / 2.8. Explicit RK4
 * at the integrator's average step diverges. */
static void check_stiff(void) {
  dyModel* m = th_random_model(3, 0, 0.3, 1);
  const int n = m->n, ns = 10;
  const double dt = 0.002;
  for (int k = 0; k < DY_NPAR_LINK; k++) m->par[DY_NPAR_LINK*(n-1) + k] *= 1e-5;
  for (int j = 0; j < n; j++) m->par[DY_NPAR_LINK*n + DY_NPAR_JNT*j + DY_FC] = 0;
  m->par[DY_NPAR_LINK*n + DY_NPAR_JNT*(n-1) + DY_IA] = 0;
  m->par[DY_NPAR_LINK*n + DY_NPAR_JNT*(n-1) + DY_FV] = 1;
  double q[DY_MAXJ], qd[DY_MAXJ], tau[DY_MAXJ], eq, eqd;
  long steps;
  th_random_state(n, q, qd, NULL);
  const double lam = stiff_rate(m, q);
  CHECK(lam * dt > 500, "the case is stiff: rate of M^-1 D %.3g /s, step %g s", lam, dt);
  int sub = (int)fmin(ceil(dt * lam * 10), 50000);
  run_pair(m, ns, dt, sub, q, qd, &eq, &eqd, &steps);
  CHECK(eq <= 3 * steps * DYV_SIM_TOLQ && eqd <= 3 * steps * DYV_SIM_TOLQD,
        "stiff arm: |q - q_RK4| %.3g rad, |qd - qd_RK4| %.3g rad/s over %ld steps", eq, eqd, steps);
  CHECK(steps <= ns * (4 + 2 * log2(lam * dt)), "stiff arm: %ld steps for %d samples (explicit RK4 needs > %.0f)", steps, ns,
        ns * dt * lam / 2.8);
  dyData* d = dy_make_data(m);
  drive(m, d, q, 0, tau);
  dy_free_data(d);
  double r = rk4_run(m, q, qd, tau, dt * ns / (double)steps);
  CHECK(!(r < 1e3), "explicit RK4 at the same average step diverges (|qd| %.3g)", r);
  dy_free_model(m);
}

/* one revolute joint about the vertical (no gravity torque) with inertia
 * 1e-5 kg m^2 (time constant I / FV = 5e-5 s), FV 0.2, FC 0.5 */
static dyModel* coulomb_joint(void) {
  dyModel* m = dy_make_model(1);
  m->jnt_type[0] = DY_REVOLUTE;
  double* p = m->par;
  p[DY_XX] = p[DY_YY] = p[DY_ZZ] = 1e-5;
  p[DY_M] = 0.1;
  p[DY_NPAR_LINK + DY_FV] = 0.2;
  p[DY_NPAR_LINK + DY_FC] = 0.5;
  m->has_friction = 1;
  snprintf(m->source, sizeof m->source, "coulomb-joint");
  dy_set_const(m);
  return m;
}

/* the creep velocity of a sticking joint: FV v + FC tanh(v / v_eps) = tau
 * by bisection */
static double creep(double fv, double fc, double tau) {
  double lo = 0, hi = DYV_SIM_VEPS * 20;
  for (int k = 0; k < 200; k++) {
    double v = 0.5 * (lo + hi);
    if (fv * v + fc * tanh(v / DYV_SIM_VEPS) > tau) hi = v; else lo = v;
  }
  return 0.5 * (lo + hi);
}

/* Sliding from rest under tau = 1 > FC: I qdd = tau - FC - FV qd gives
 * qd = v (1 - e^(-t/T)), q = v (t - T (1 - e^(-t/T))), v = (tau - FC) / FV,
 * T = I / FV (the smoothing acts only while qd < 4 v_eps, some 1e-8 s:
 * negligible); bound as in check_accuracy. Sticking under tau = 0.3 < FC:
 * the creep velocity is a fixed point of every step (qdd = 0 there, so q
 * advances by exactly h qd), reached after the transient, whose decay an
 * L-stable step leaves at round-off. */
static void check_coulomb(void) {
  dyModel* m = coulomb_joint();
  const double dt = 0.005, I = 1e-5, fv = 0.2, fc = 0.5, Tc = I / fv;
  for (int c = 0; c < 2; c++) {
    const double tau = c ? 0.3 : 1.0;
    dyvSim* s = dyv_sim_make(m, m->par);
    double q = 0, qd = 0, t = 0, q10 = 0;
    int bad = !s;
    for (int i = 0; i < 20 && !bad; i++, t += dt) {
      if (i == 10) q10 = q;
      bad = dyv_sim_advance(s, &q, &qd, &tau, dt);
    }
    CHECK(!bad, "one joint with Coulomb friction, tau %g: simulated", tau);
    if (!bad && !c) {
      const double v = (tau - fc) / fv, e = exp(-t / Tc);
      CHECK(fabs(qd - v*(1 - e)) <= 3 * s->steps * DYV_SIM_TOLQD && fabs(q - v*(t - Tc*(1 - e))) <= 3 * s->steps * DYV_SIM_TOLQ,
            "sliding: q %.9g vs %.9g, qd %.9g vs %.9g (%ld steps)", q, v*(t - Tc*(1 - e)), qd, v*(1 - e), s->steps);
      CHECK(s->steps <= 200, "sliding: %ld steps for 20 samples of 250 time constants", s->steps);
    } else if (!bad) {
      const double vc = creep(fv, fc, tau);
      CHECK_REL(qd, vc, 1e-9, "sticking: the creep velocity");
      CHECK_REL((q - q10) / (10 * dt), vc, 1e-9, "sticking: creeping at that velocity over the last 10 samples");
      CHECK(vc <= DYV_SIM_VEPS * atanh(tau / fc), "creep within sim.h's bound v_eps atanh(|tau|/FC)");
    }
    dyv_sim_free(s);
  }
  dy_free_model(m);
}

/* a link of negative inertia: no step succeeds, q and qd are left as given */
static void check_failure(void) {
  dyModel* m = coulomb_joint();
  m->par[DY_ZZ] = -1e-3;
  dyvSim* s = dyv_sim_make(m, m->par);
  double q = 0.25, qd = 0.5, tau = 1;
  CHECK(s && dyv_sim_advance(s, &q, &qd, &tau, 0.01) == 1 && q == 0.25 && qd == 0.5,
        "negative inertia: the step fails and the state is kept");
  dyv_sim_free(s);
  dy_free_model(m);
}

int main(void) {
  check_accuracy();
  check_stiff();
  check_coulomb();
  check_failure();
  return test_report();
}
