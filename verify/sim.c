/* SPDX-License-Identifier: MIT */
/* dynid verify: forward simulation by a linearly implicit Rosenbrock-W
 * integrator (see sim.h for the formula, the Jacobian it uses and why). */
#include "verify/sim.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_GAMMA 0.29289321881345248   /* 1 / (2 + sqrt 2) */
#define SIM_E32 7.4142135623730951      /* 6 + sqrt 2 */

dyvSim* dyv_sim_make(const dyModel* m, const double* par) {
  const int n = m->n;
  dyvSim* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->m = m;
  s->d = dy_make_data(m);
  s->par = malloc(sizeof(double) * (size_t)dy_npar(m));
  s->H = malloc(sizeof(double) * (size_t)(2 * n * n));
  if (!s->d || !s->par || !s->H) { dyv_sim_free(s); return NULL; }
  memcpy(s->par, par, sizeof(double) * (size_t)dy_npar(m));
  for (int j = 0; j < n && m->has_friction; j++) {
    double* pj = s->par + DY_NPAR_LINK * n + DY_NPAR_JNT * j;
    s->fc[j] = pj[DY_FC];
    s->fv[j] = pj[DY_FV];
    pj[DY_FC] = 0;         /* Coulomb friction enters through the torque */
  }
  return s;
}

void dyv_sim_free(dyvSim* s) {
  if (!s) return;
  dy_free_data(s->d);
  free(s->par); free(s->H);
  free(s);
}

/* F = f(y) = (qd, qdd) for y = (q, qd) (2n each), the Coulomb torque
 * FC tanh(qd / v_eps) moved to the right-hand side; 0, or 1 when the
 * articulated-body inertia is not positive or qdd is not finite */
static int sim_f(dyvSim* s, const double* y, const double* tau, double* F) {
  const int n = s->m->n;
  double te[DY_MAXJ] = {0};
  for (int j = 0; j < n; j++) {
    te[j] = tau[j] - s->fc[j] * tanh(y[n + j] / DYV_SIM_VEPS);
  }
  if (dy_fd_aba(s->m, s->d, s->par, y, y + n, te, F + n)) return 1;
  for (int j = 0; j < n; j++) {
    if (!isfinite(F[n + j])) return 1;
    F[j] = y[n + j];
  }
  return 0;
}

/* W = I - h gamma J at y0 = (q0, qd0): H = M(q0), L = chol(M + h gamma D)
 * with D = diag(FV + FC / v_eps cosh^-2(qd0 / v_eps)) (lower, row-major); 0, or 1
 * when it is not positive definite */
static int sim_factor(dyvSim* s, const double* y0, double hg) {
  const int n = s->m->n;
  double *H = s->H, *L = s->H + n*n;
  dy_crba(s->m, s->d, s->par, y0, H);
  memcpy(L, H, sizeof(double) * (size_t)(n*n));
  for (int j = 0; j < n; j++) L[j*n + j] += hg * (s->fv[j] + s->fc[j] / DYV_SIM_VEPS * (1 - tanh(y0[n + j] / DYV_SIM_VEPS) * tanh(y0[n + j] / DYV_SIM_VEPS)));
  for (int j = 0; j < n; j++) {
    double* Lj = L + j*n;
    double d = Lj[j];
    for (int k = 0; k < j; k++) d -= Lj[k] * Lj[k];
    if (!(d > 0)) return 1;
    Lj[j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double* Li = L + i*n;
      double a = Li[j];
      for (int k = 0; k < j; k++) a -= Li[k] * Lj[k];
      Li[j] = a / Lj[j];
    }
  }
  return 0;
}

/* k = W^-1 r (2n): (M + h gamma D) k_qd = M r_qd, k_q = r_q + h gamma k_qd */
static void sim_solve(const dyvSim* s, double hg, const double* r, double* k) {
  const int n = s->m->n;
  const double *H = s->H, *L = s->H + n*n;
  double* x = k + n;
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int c = 0; c < n; c++) t += H[i*n + c] * r[n + c];
    for (int c = 0; c < i; c++) t -= L[i*n + c] * x[c];
    x[i] = t / L[i*n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = x[i];
    for (int c = i + 1; c < n; c++) t -= L[c*n + i] * x[c];
    x[i] = t / L[i*n + i];
  }
  for (int j = 0; j < n; j++) k[j] = r[j] + hg * x[j];
}

/* One step of size h from y0 (F0 = f(y0)) into y1 with F1 = f(y1); the
 * largest scaled error estimate in *err. 0, or 1 when a stage fails. */
static int sim_try(dyvSim* s, const double* y0, const double* F0, const double* tau, double h,
                   double* y1, double* F1, double* err) {
  const int n = s->m->n, N = 2*n;
  const double hg = h * SIM_GAMMA;
  double k1[2*DY_MAXJ], k2[2*DY_MAXJ], k3[2*DY_MAXJ], r[2*DY_MAXJ], Fm[2*DY_MAXJ], ym[2*DY_MAXJ];
  if (sim_factor(s, y0, hg)) return 1;
  sim_solve(s, hg, F0, k1);
  for (int i = 0; i < N; i++) ym[i] = y0[i] + 0.5*h*k1[i];
  if (sim_f(s, ym, tau, Fm)) return 1;
  for (int i = 0; i < N; i++) r[i] = Fm[i] - k1[i];
  sim_solve(s, hg, r, k2);
  for (int i = 0; i < N; i++) { k2[i] += k1[i]; y1[i] = y0[i] + h*k2[i]; }
  if (sim_f(s, y1, tau, F1)) return 1;
  for (int i = 0; i < N; i++) r[i] = F1[i] - SIM_E32*(k2[i] - Fm[i]) - 2*(k1[i] - F0[i]);
  sim_solve(s, hg, r, k3);
  double e = 0;
  for (int i = 0; i < N; i++) {
    double ei = fabs(h/6 * (k1[i] - 2*k2[i] + k3[i])) / (i < n ? DYV_SIM_TOLQ : DYV_SIM_TOLQD);
    e = ei > e ? ei : e;
  }
  *err = e;
  return 0;
}

int dyv_sim_advance(dyvSim* s, double* q, double* qd, const double* tau, double dt) {
  const int n = s->m->n;
  double y[2*DY_MAXJ], F[2*DY_MAXJ], y1[2*DY_MAXJ], F1[2*DY_MAXJ];
  const double hmin = dt * 1e-6;
  memcpy(y, q, sizeof(double) * n);
  memcpy(y + n, qd, sizeof(double) * n);
  if (sim_f(s, y, tau, F)) return 1;
  double t = 0, h = s->h > 0 ? s->h : dt;
  while (t < dt * (1 - 1e-12)) {
    /* the rest of the interval in equal steps of at most h: no sliver
     * of a step left at its end */
    double rest = dt - t, hs = rest / ceil(rest / h * (1 - 1e-9)), err;
    if (sim_try(s, y, F, tau, hs, y1, F1, &err)) {
      /* a stage left the region where the model is defined: shorter */
      s->rejected++;
      if (hs <= hmin) return 1;
      h = hs / 4;
      continue;
    }
    double grow = err > 0 ? 0.8 * cbrt(1 / err) : 3;
    grow = grow > 3 ? 3 : grow < 0.2 ? 0.2 : grow;
    if (err > 1 && hs > hmin) { s->rejected++; h = fmax(hs * grow, hmin); continue; }
    memcpy(y, y1, sizeof(double) * 2*n);
    memcpy(F, F1, sizeof(double) * 2*n);
    t += hs;
    s->steps++;
    /* a step shortened to fit the interval does not limit the next */
    h = hs < h && grow >= 1 ? fmax(h, hs * grow) : hs * grow;
  }
  s->h = h;
  memcpy(q, y, sizeof(double) * n);
  memcpy(qd, y + n, sizeof(double) * n);
  return 0;
}
