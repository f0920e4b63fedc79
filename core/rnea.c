/* SPDX-License-Identifier: MIT */
/* dynid core: recursive Newton-Euler inverse dynamics in link frames. */
#include "core/dynamics.h"
#include "core/mathu.h"
#include "core/transmission.h"
#include "core/util.h"
#include <string.h>

/* util.h (here, where the kernels' -O3 of the Makefile applies: at -O2
 * the variants of this small function were not vectorised); the
 * base-parameter Newton-Euler's single calls take it; static:
 * Clang 14 makes no symbol for an exported multiversioned function */
DY_CLONES
static void sincos8_clone(double* s, double* c, const double* x) { dyu_sincos8(s, c, x); }

void dy_sincos8(double s[8], double c[8], const double x[8]) { sincos8_clone(s, c, x); }

/* (libm's cos and sin here: the batch kernels' dyu_sincos8 is within 2
 * ulp of them, and the one-state results, which estimators and their
 * tests are tuned on, keep their bits) */
void dy_frames(const dyModel* m, dyData* d, const double* q) {
  for (int j = 0; j < m->n; j++) {
    double th = m->dh_theta[j], dd = m->dh_d[j];
    if (m->jnt_type[j] == DY_REVOLUTE) th += q[j]; else dd += q[j];
    double ca = m->cos_alpha[j], sa = m->sin_alpha[j], ct = cos(th), st = sin(th);
    double *R = d->R + 9*j, *p = d->p + 3*j;
    /* Rx(alpha) Rz(theta), p = Rx(alpha) (a, 0, 0) + Rx(alpha) Rz(theta) (0, 0, d) */
    R[0] = ct;      R[1] = -st;     R[2] = 0;
    R[3] = ca*st;   R[4] = ca*ct;   R[5] = -sa;
    R[6] = sa*st;   R[7] = sa*ct;   R[8] = ca;
    p[0] = m->dh_a[j]; p[1] = -sa*dd; p[2] = ca*dd;
  }
}

void dy_kinematics(const dyModel* m, dyData* d, const double* qd, const double* qdd,
                   const double g[3]) {
  const int n = m->n;
  double w0[3] = {0, 0, 0}, wd0[3] = {0, 0, 0}, vd0[3] = {-g[0], -g[1], -g[2]};
  for (int j = 0; j < n; j++) {
    const double *R = d->R + 9*j, *p = d->p + 3*j;
    double *w = d->w + 3*j, *wd = d->wd + 3*j, *vd = d->vd + 3*j;
    const double *wp = j ? d->w + 3*(j-1) : w0;
    const double *wdp = j ? d->wd + 3*(j-1) : wd0;
    const double *vdp = j ? d->vd + 3*(j-1) : vd0;
    double qdj = qd ? qd[j] : 0, qddj = qdd ? qdd[j] : 0;

    /* vd = R^T (vd' + wd' x p + w' x (w' x p)) */
    double t[3], u[3];
    dyu_cross(t, wp, p);
    dyu_cross(u, wp, t);
    dyu_addCross(u, wdp, p);
    u[0] += vdp[0]; u[1] += vdp[1]; u[2] += vdp[2];
    dyu_mulMatTVec3(vd, R, u);

    double wr[3];                     /* parent's w in frame j */
    dyu_mulMatTVec3(wr, R, wp);
    dyu_mulMatTVec3(wd, R, wdp);
    if (m->jnt_type[j] == DY_REVOLUTE) {
      /* w = wr + qd z, wd = R^T wd' + qdd z + wr x qd z */
      w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2] + qdj;
      wd[0] += wr[1]*qdj; wd[1] -= wr[0]*qdj; wd[2] += qddj;
    } else {
      /* w = wr, vd += qdd z + 2 wr x qd z */
      w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2];
      vd[0] += 2*wr[1]*qdj; vd[1] -= 2*wr[0]*qdj; vd[2] += qddj;
    }
  }
}

/* Newton-Euler with the frames already in d (dy_frames) */
void dy_rnea_frames(const dyModel* m, dyData* d, const double* par, const double* qd,
                    const double* qdd, const double g[3], int joint, double* tau) {
  const int n = m->n;
  dy_kinematics(m, d, qd, qdd, g);

  /* link wrenches: F = M vd + wd x MS + w x (w x MS);  N = J wd + w x J w + MS x vd */
  for (int j = 0; j < n; j++) {
    const double *w = d->w + 3*j, *wd = d->wd + 3*j, *vd = d->vd + 3*j;
    const double* pl = par + DY_NPAR_LINK*j;
    const double J[6] = {pl[DY_XX], pl[DY_XY], pl[DY_XZ], pl[DY_YY], pl[DY_YZ], pl[DY_ZZ]};
    const double* ms = pl + DY_MX;
    double *F = d->f + 3*j, *N = d->nm + 3*j, t[3];
    dyu_cross(t, w, ms);
    dyu_cross(F, w, t);
    dyu_addCross(F, wd, ms);
    F[0] += pl[DY_M]*vd[0]; F[1] += pl[DY_M]*vd[1]; F[2] += pl[DY_M]*vd[2];
    dyu_mulSym6Vec(t, J, w);
    dyu_cross(N, w, t);
    dyu_mulSym6Vec(t, J, wd);
    N[0] += t[0]; N[1] += t[1]; N[2] += t[2];
    dyu_addCross(N, ms, vd);
  }

  /* backward pass: f_j = F_j + R f_{j+1}, n_j = N_j + R n_{j+1} + p x R f_{j+1} */
  for (int j = n - 1; j >= 0; j--) {
    double *F = d->f + 3*j, *N = d->nm + 3*j;
    tau[j] = m->jnt_type[j] == DY_REVOLUTE ? N[2] : F[2];
    if (j > 0) {
      const double *R = d->R + 9*j, *p = d->p + 3*j;
      double rf[3], rn[3];
      dyu_mulMatVec3(rf, R, F);
      dyu_mulMatVec3(rn, R, N);
      double *Fp = d->f + 3*(j-1), *Np = d->nm + 3*(j-1);
      Fp[0] += rf[0]; Fp[1] += rf[1]; Fp[2] += rf[2];
      Np[0] += rn[0]; Np[1] += rn[1]; Np[2] += rn[2];
      dyu_addCross(Np, p, rf);
    }
  }

  /* joint terms: armature, viscous, Coulomb, offset */
  if (joint) {
    const double* pj = par + DY_NPAR_LINK*n;
    for (int j = 0; j < n; j++, pj += DY_NPAR_JNT) {
      double qdj = qd ? qd[j] : 0, qddj = qdd ? qdd[j] : 0;
      tau[j] += pj[DY_IA]*qddj + pj[DY_FV]*qdj + pj[DY_FC]*dyu_sign(qdj) + pj[DY_FO];
    }
    dy_motor_tau(m, par, qd, qdd, tau);   /* the coupled motors (none: nothing) */
  }
}

void dy_rnea_g(const dyModel* m, dyData* d, const double* par, const double* q,
               const double* qd, const double* qdd, const double g[3], int joint,
               double* tau) {
  dy_frames(m, d, q);
  dy_rnea_frames(m, d, par, qd, qdd, g, joint, tau);
}

void dy_rnea(const dyModel* m, dyData* d, const double* par, const double* q,
             const double* qd, const double* qdd, double* tau) {
  dy_rnea_g(m, d, par, q, qd, qdd, m->gravity, 1, tau);
}

void dy_bias(const dyModel* m, dyData* d, const double* par, const double* q,
             const double* qd, double* b) {
  dy_rnea_g(m, d, par, q, qd, NULL, m->gravity, 1, b);
}
