/* SPDX-License-Identifier: MIT */
/* dynid verify: Newton-Euler on base parameters (see ne_base.h).
 * Compiled twice (verify/kernels.h): as itself, and with DY_COUNT_OPS (the
 * counting variant dyv_nebase_rnea_ops). */
#include "verify/ne_base.h"
#include "verify/kernels.h"
#include "core/transmission.h"
#include "core/mathu.h"
#include "core/util.h"
#include <math.h>
#include <string.h>

/* kind bits of no compiled kind: the generic step of the twist class */
#define NB_GENERIC 7

#ifndef DY_COUNT_OPS
/* the link flags of joint j: parameters not structurally zero (zero: 14n
 * entries or NULL), the components p_j = (a, -sin(alpha) d, cos(alpha) d)
 * can have (d varies for a prismatic joint) */
static int nb_flags(const dyModel* m, const unsigned char* zero, int j, double ca, double sa) {
  const int n = m->n;
  const unsigned char* z = zero ? zero + DY_NPAR_LINK*j : NULL;
  const unsigned char* zj = zero ? zero + DY_NPAR_LINK*n + DY_NPAR_JNT*j : NULL;
#define NZ(k) (!z || !z[k])
  int f = 0;
  if (NZ(DY_M)) f |= DYV_NB_M;
  if (NZ(DY_MX)) f |= DYV_NB_MSX;
  if (NZ(DY_MY)) f |= DYV_NB_MSY;
  if (NZ(DY_MZ)) f |= DYV_NB_MSZ;
  if (NZ(DY_XX) || NZ(DY_YY) || NZ(DY_ZZ) || NZ(DY_XY) || NZ(DY_XZ) || NZ(DY_YZ)) f |= DYV_NB_J;
  if (NZ(DY_XY) || NZ(DY_XZ) || NZ(DY_YZ)) f |= DYV_NB_JOFF;
  if (NZ(DY_YY)) f |= DYV_NB_YY;
#undef NZ
  if (!zj || !zj[0] || !zj[1] || !zj[2] || !zj[3]) f |= DYV_NB_FRIC;
  const int dnz = m->jnt_type[j] == DY_PRISMATIC || m->dh_d[j] != 0;
  if (m->dh_a[j] != 0) f |= DYV_NB_PX;
  if (dnz && sa != 0) f |= DYV_NB_PY;
  if (dnz && ca != 0) f |= DYV_NB_PZ;
  return f;
}

/* the kinds of joint j: DYV_KIND(twist, bits of p) for the compiled ones
 * (revolute joints of a special twist; forward also needs the link of the
 * khalil pattern (M = MZ = YY = 0), a revolute next joint and p_{j+1}
 * without both y and z), else DYV_KIND(twist, NB_GENERIC): the step that
 * reads the plan's flags, specialised on the twist alone */
static void nb_kinds(dyvNeBase* pl, int j) {
  const dyModel* m = pl->m;
  const int n = pl->n, cls = m->twist[j], rev = m->jnt_type[j] == DY_REVOLUTE;
  const int lf = pl->flags[j] & (DYV_NB_M | DYV_NB_MS | DYV_NB_J | DYV_NB_JOFF | DYV_NB_YY);
  const int fn = j + 1 < n ? pl->flags[j+1] : 0;
  pl->fkind[j] = pl->bkind[j] = DYV_KIND(cls, NB_GENERIC);
  if (!rev || cls == DY_TWIST_GENERAL) return;
  pl->bkind[j] = DYV_KIND(cls, (pl->flags[j] & DYV_NB_P) >> 6);
  if (lf == (DYV_NB_MSX | DYV_NB_MSY | DYV_NB_J | DYV_NB_JOFF) &&
      (j + 1 == n || m->jnt_type[j+1] == DY_REVOLUTE) && (fn & DYV_NB_P) >> 6 <= 5)
    pl->fkind[j] = DYV_KIND(cls, (fn & DYV_NB_P) >> 6);
}

void dyv_nebase_make(dyvNeBase* pl, const dyModel* m, const unsigned char* zero) {
  const int n = m->n;
  memset(pl, 0, sizeof *pl);
  pl->m = m;
  pl->n = n;
  memcpy(pl->g, m->gravity, sizeof pl->g);
  for (int j = 0; j < n; j++) {
    double ca, sa;
    dyv_twist_cs(m, j, &ca, &sa);
    pl->flags[j] = nb_flags(m, zero, j, ca, sa);
    pl->pc[3*j] = m->dh_a[j];
    pl->pc[3*j+1] = -sa*m->dh_d[j];
    pl->pc[3*j+2] = ca*m->dh_d[j];
    pl->ctc[j] = cos(m->dh_theta[j]); pl->stc[j] = sin(m->dh_theta[j]);
  }
  /* R_{0,1} rotates only -g (nothing is carried back into frame 0) */
  pl->trig0 = n > 0 && !(m->jnt_type[0] == DY_REVOLUTE && pl->g[0] == 0 && pl->g[1] == 0 &&
                         (m->twist[0] == DY_TWIST_0 || m->twist[0] == DY_TWIST_PI));
  for (int j = 0; j < n; j++) nb_kinds(pl, j);
  pl->nzero = 0;
  if (zero) for (int k = 0; k < dy_npar(m); k++) pl->nzero += zero[k] != 0;
}

void dyv_nebase_zero_from_P(unsigned char* zero, const dyModel* m, const double* P,
                            int npar, int nb) {
  const int np = dy_npar(m);
  for (int k = 0; k < np; k++) {
    int z = 1;
    if (k < npar)
      for (int i = 0; i < nb; i++) if (P[(size_t)k*nb + i] != 0) { z = 0; break; }
    zero[k] = (unsigned char)z;
  }
}

void dyv_nebase_zero_from_par(unsigned char* zero, const dyModel* m, const double* par) {
  for (int k = 0; k < dy_npar(m); k++) zero[k] = par[k] == 0;
}
#endif /* DY_COUNT_OPS */


/* gcc's SLP vectoriser packs and unpacks the 3-vectors here at a loss (the
 * scalar code is ~6 % fewer instructions): off for the recursion only */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#define DYV_NB_INLINE DYV_INL

/* p_j in frame j-1 (plan constant for a revolute joint; a prismatic one's
 * is formed from d_j = d0_j + q_j and kept in d->p for the backward pass) */
DYV_NB_INLINE const double* DYV_FN(nb_p)(dyvOps* ops, const dyvNeBase* pl, dyData* d, int j,
                                         const double* q) {
  const dyModel* m = pl->m;
  if (m->jnt_type[j] == DY_REVOLUTE) return pl->pc + 3*j;
  double* p = d->p + 3*j, ca, sa;
  const int gen = dyv_twist_cs(m, j, &ca, &sa) == DY_TWIST_GENERAL;
  const double dj = m->dh_d[j] + q[j];
  DYV_OPS(0, 1);
  p[0] = m->dh_a[j]; p[1] = 0; p[2] = 0;
  if (pl->flags[j] & DYV_NB_PY) { p[1] = -sa*dj; if (gen) DYV_OPS(1, 0); }
  if (pl->flags[j] & DYV_NB_PZ) { p[2] = ca*dj; if (gen) DYV_OPS(1, 0); }
  return p;
}

/* The wrench of link j (link flags f, compiled kind: known): F = M vd +
 * U MS, N = J wd + w x J w + MS x vd with U = [wd x] + [w x]^2 and the
 * products w01 = w_x w_y, w02, w12 already formed, into Fo, No. A sum
 * starts at 0, and an addition to that 0 is not counted (it is exact). */
DYV_NB_INLINE void DYV_FN(nb_wrench)(dyvOps* ops, const int f, const int known, const double* pl10,
                                     const double w[3], const double wd[3], const double vd[3],
                                     const double U[9], double w01, double w02, double w12,
                                     double* Fo, double* No) {
  double F[3] = {0, 0, 0}, N[3] = {0, 0, 0};
  int fset = 0, nset = 0;
  if (f & DYV_NB_M) {
    const double M = pl10[DY_M];
    F[0] = M*vd[0]; F[1] = M*vd[1]; F[2] = M*vd[2]; DYV_OPS(3, 0);
    fset = 1;
  }
  if (f & DYV_NB_J) {
    const double XX = pl10[DY_XX], YY = known && !(f & DYV_NB_YY) ? 0 : pl10[DY_YY],
                 ZZ = pl10[DY_ZZ];
    if (f & DYV_NB_JOFF) {
      /* YY's terms only where YY is not structurally zero (a constant test
       * in a compiled kind) */
      const double XY = pl10[DY_XY], XZ = pl10[DY_XZ], YZ = pl10[DY_YZ];
      double jw1 = XY*w[0] + YZ*w[2], jd1 = XY*wd[0] + YZ*wd[2];
      if (f & DYV_NB_YY) { jw1 += YY*w[1]; jd1 += YY*wd[1]; DYV_OPS(2, 2); }
      const double jw0 = XX*w[0] + XY*w[1] + XZ*w[2];
      const double jw2 = XZ*w[0] + YZ*w[1] + ZZ*w[2];
      N[0] = XX*wd[0] + XY*wd[1] + XZ*wd[2] + (w[1]*jw2 - w[2]*jw1);
      N[1] = jd1 + (w[2]*jw0 - w[0]*jw2);
      N[2] = XZ*wd[0] + YZ*wd[1] + ZZ*wd[2] + (w[0]*jw1 - w[1]*jw0);
      DYV_OPS(22, 16);
    } else {
      /* diagonal J: w x J w from the products of U */
      N[0] = XX*wd[0] + (ZZ - YY)*w12;
      N[1] = YY*wd[1] + (XX - ZZ)*w02;
      N[2] = ZZ*wd[2] + (YY - XX)*w01;
      DYV_OPS(6, 6);
    }
    nset = 1;
  }
  /* U MS and MS x vd per nonzero component k of MS:
   * (e_k x v)_{k+1} = -v_{k+2}, (e_k x v)_{k+2} = v_{k+1} (indices mod 3) */
#define DYV_MS_TERM(k, i1, i2) \
  if (f & (DYV_NB_MSX << (k))) { \
    const double x = pl10[DY_MX + (k)]; \
    if (fset) { F[0] += U[k]*x; F[1] += U[3+(k)]*x; F[2] += U[6+(k)]*x; } \
    else { F[0] = U[k]*x; F[1] = U[3+(k)]*x; F[2] = U[6+(k)]*x; } \
    if (nset) { N[i1] -= x*vd[i2]; N[i2] += x*vd[i1]; } \
    else { N[i1] = -(x*vd[i2]); N[i2] = x*vd[i1]; } \
    DYV_OPS(5, (fset ? 3 : 0) + (nset ? 2 : 0)); fset = nset = 1; \
  }
  DYV_MS_TERM(0, 1, 2)
  DYV_MS_TERM(1, 2, 0)
  DYV_MS_TERM(2, 0, 1)
#undef DYV_MS_TERM
  (void)fset; (void)nset;
  Fo[0] = F[0]; Fo[1] = F[1]; Fo[2] = F[2];
  No[0] = N[0]; No[1] = N[1]; No[2] = N[2];

}

/* One link of the forward pass, specialised by twist class cls (and by
 * kind, below). Link 2 after a revolute joint 1 is not specialised for its
 * parent's w, wd along z: that copy cost more (instructions, code size) than
 * the 4 M 4 A it skipped. In: w, wd of link j-1 and u = vd_{j-1} + U_{j-1} p_j
 * (frame j-1). Out: w, wd of link j and u = vd_j + U_j p_{j+1} (frame j);
 * F_j, N_j stored in d->f, d->nm; cs: cos, sin theta of every joint. */
DYV_NB_INLINE void DYV_FN(nb_fwd)(dyvOps* ops, const int cls, const int kf, const int kn,
                                  const dyvNeBase* pl, dyData* d, const double* cs,
                                  const double* par, int j,
                                  const double* q, const double* qd, const double* qdd,
                                  double w[3], double wd[3], double u[3]) {
  /* kf >= 0: compiled kind (revolute, link flags kf, p_{j+1} flags kn,
   * next joint revolute); kf < 0: all read from the plan */
  const int known = kf >= 0;
  const int f = known ? kf : pl->flags[j];
  const int fn = known ? kn : (j + 1 < pl->n ? pl->flags[j+1] : 0);
  const int rev = known || pl->m->jnt_type[j] == DY_REVOLUTE;
  /* cos, sin alpha are read by the general-twist code only */
  const double ca = pl->m->cos_alpha[j], sa = pl->m->sin_alpha[j], qdj = qd[j], qddj = qdd[j];
  const double ct = cs[2*j], st = cs[2*j+1];

  /* rates of the parent in frame j, vd_j = R^T u */
  double wr[3], wdr[3], vd[3];
  dyv_rot_t(ops, vd, u, ct, st, cls, ca, sa);
  dyv_rot_t(ops, wr, w, ct, st, cls, ca, sa);
  dyv_rot_t(ops, wdr, wd, ct, st, cls, ca, sa);
  if (rev) {
    w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2] + qdj;
    wd[0] = wdr[0] + wr[1]*qdj; wd[1] = wdr[1] - wr[0]*qdj; wd[2] = wdr[2] + qddj;
    DYV_OPS(2, 4);
  } else {
    w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2];
    wd[0] = wdr[0]; wd[1] = wdr[1]; wd[2] = wdr[2];
    const double q2 = 2*qdj;
    vd[0] += q2*wr[1]; vd[1] -= q2*wr[0]; vd[2] += qddj;
    DYV_OPS(3, 3);
  }

  /* U = [wd x] + [w x]^2, only the columns used */
  const int uc = ((f >> 1) | (fn >> 6)) & 7;   /* MS_k of link j or p_k of link j+1 */
  const double w01 = w[0]*w[1], w02 = w[0]*w[2], w12 = w[1]*w[2];
  DYV_OPS(3, 0);
  double U[9] = {0};
  if (uc) {
    const double w00 = w[0]*w[0], w11 = w[1]*w[1], w22 = w[2]*w[2];
    DYV_OPS(3, 0);
    if (uc & 1) { U[0] = -w11 - w22;  U[3] = w01 + wd[2]; U[6] = w02 - wd[1]; DYV_OPS(0, 3); }
    if (uc & 2) { U[1] = w01 - wd[2]; U[4] = -w00 - w22;  U[7] = w12 + wd[0]; DYV_OPS(0, 3); }
    if (uc & 4) { U[2] = w02 + wd[1]; U[5] = w12 - wd[0]; U[8] = -w00 - w11;  DYV_OPS(0, 3); }
  }

  DYV_FN(nb_wrench)(ops, f, known, par + DY_NPAR_LINK*j, w, wd, vd, U, w01, w02, w12,
                    d->f + 3*j, d->nm + 3*j);

  /* u = vd + U p_{j+1}, nonzero components of p only */
  u[0] = vd[0]; u[1] = vd[1]; u[2] = vd[2];
  if (fn & DYV_NB_P) {
    const double* p = known ? pl->pc + 3*(j+1) : DYV_FN(nb_p)(ops, pl, d, j + 1, q);
    if (fn & DYV_NB_PX) { u[0] += U[0]*p[0]; u[1] += U[3]*p[0]; u[2] += U[6]*p[0]; DYV_OPS(3, 3); }
    if (fn & DYV_NB_PY) { u[0] += U[1]*p[1]; u[1] += U[4]*p[1]; u[2] += U[7]*p[1]; DYV_OPS(3, 3); }
    if (fn & DYV_NB_PZ) { u[0] += U[2]*p[2]; u[1] += U[5]*p[2]; u[2] += U[8]*p[2]; DYV_OPS(3, 3); }
  }
}

/* One link of the backward pass, specialised by twist class cls of joint j.
 * In: f, nn = wrench at joint j (frame j). Out: wrench at joint j-1 (frame
 * j-1): f = F_{j-1} + R f,  nn = N_{j-1} + R nn + p_j x R f. */
DYV_NB_INLINE void DYV_FN(nb_bwd)(dyvOps* ops, const int cls, const int kb, const dyvNeBase* pl,
                                  dyData* d, const double* cs, int j, double f[3], double nn[3]) {
  /* kb >= 0: compiled kind (revolute, p_j flags kb); else from the plan */
  const dyModel* m = pl->m;
  const double ct = cs[2*j], st = cs[2*j+1];
  const double* p = kb >= 0 || m->jnt_type[j] == DY_REVOLUTE ? pl->pc + 3*j : d->p + 3*j;
  const int fl = kb >= 0 ? kb : pl->flags[j];
  double rf[3], rn[3];
  dyv_rot_n(ops, rf, f, ct, st, cls, m->cos_alpha[j], m->sin_alpha[j]);
  dyv_rot_n(ops, rn, nn, ct, st, cls, m->cos_alpha[j], m->sin_alpha[j]);
  const double *Fp = d->f + 3*(j-1), *Np = d->nm + 3*(j-1);
  f[0] = Fp[0] + rf[0]; f[1] = Fp[1] + rf[1]; f[2] = Fp[2] + rf[2];
  nn[0] = Np[0] + rn[0]; nn[1] = Np[1] + rn[1]; nn[2] = Np[2] + rn[2];
  DYV_OPS(0, 6);
  if (fl & DYV_NB_PX) { nn[1] -= p[0]*rf[2]; nn[2] += p[0]*rf[1]; DYV_OPS(2, 2); }
  if (fl & DYV_NB_PY) { nn[0] += p[1]*rf[2]; nn[2] -= p[1]*rf[0]; DYV_OPS(2, 2); }
  if (fl & DYV_NB_PZ) { nn[0] -= p[2]*rf[1]; nn[1] += p[2]*rf[0]; DYV_OPS(2, 2); }
}

/* tau_j from the wrench at joint j (frame j) and the joint parameters pj */
DYV_NB_INLINE double DYV_FN(nb_tau)(dyvOps* ops, const dyvNeBase* pl, int j, const double* pj,
                                    const double* qd, const double* qdd,
                                    const double f[3], const double nn[3]) {
  double t = pl->m->jnt_type[j] == DY_REVOLUTE ? nn[2] : f[2];
  if (pl->flags[j] & DYV_NB_FRIC) {
    const double qdj = qd[j], qddj = qdd[j];
    const double sg = qdj != 0 ? copysign(1.0, qdj) : 0;   /* sign(qd) */
    t += pj[DY_IA]*qddj + pj[DY_FV]*qdj + pj[DY_FC]*sg + pj[DY_FO];
    DYV_OPS(3, 4);
  }
  return t;
}

/* the compiled forward kinds: the special twists, p_{j+1} of the patterns a
 * revolute joint can have ((a, 0, 0), (0, -sa d, 0), (0, 0, ca d) and sums
 * of two of them; sa ca d != 0 only in the general class); backward: p_j
 * of the patterns of each class (x and z for alpha 0, pi; x and y for
 * +-pi/2) */
#define NB_P6_(X, CALL, k) X(k, 0, CALL) X(k, 1, CALL) X(k, 2, CALL) X(k, 3, CALL) X(k, 4, CALL) X(k, 5, CALL)
#define NB_FWD_KINDS(X, CALL) NB_P6_(X, CALL, DY_TWIST_0) NB_P6_(X, CALL, DY_TWIST_PI2) \
  NB_P6_(X, CALL, DY_TWIST_MPI2) NB_P6_(X, CALL, DY_TWIST_PI)
#define NB_XZ_(X, CALL, k) X(k, 0, CALL) X(k, 1, CALL) X(k, 4, CALL) X(k, 5, CALL)
#define NB_XY_(X, CALL, k) X(k, 0, CALL) X(k, 1, CALL) X(k, 2, CALL) X(k, 3, CALL)
#define NB_BWD_KINDS(X, CALL) NB_XZ_(X, CALL, DY_TWIST_0) NB_XY_(X, CALL, DY_TWIST_PI2) \
  NB_XY_(X, CALL, DY_TWIST_MPI2) NB_XZ_(X, CALL, DY_TWIST_PI)
/* link pattern of the compiled forward kinds: MX MY XX XY XZ YZ ZZ (M = MZ = YY = 0) */
#define DYV_NB_KL (DYV_NB_MSX | DYV_NB_MSY | DYV_NB_J | DYV_NB_JOFF)

/* link 1 on a revolute joint: w, wd along z_0; vd_1 = R^T (-g); only N_z
 * of link 1 is needed since its force and other moment components reach
 * no joint. Out: w, wd, u = vd_1 + U_1 p_2 with
 * U_1 = [[-qd^2, -qdd, 0], [qdd, -qd^2, 0], [0, 0, 0]] */
DYV_NB_INLINE void DYV_FN(nb_link1)(dyvOps* ops, const dyvNeBase* pl, dyData* d, const double* cs,
                                    const double* par, const double* q, const double* qd,
                                    const double* qdd, double w[3], double wd[3], double u[3]) {
  const dyModel* m = pl->m;
  const int f = pl->flags[0], cls = m->twist[0];
  double ct = 1, st = 0, vd[3];
  if (pl->trig0) { ct = cs[0]; st = cs[1]; }
  if (pl->g[0] == 0 && pl->g[1] == 0) dyv_rot_t_z(ops, vd, u[2], ct, st, cls, m->cos_alpha[0], m->sin_alpha[0]);
  else dyv_rot_t(ops, vd, u, ct, st, cls, m->cos_alpha[0], m->sin_alpha[0]);
  const double qd0 = qd[0], qdd0 = qdd[0];
  w[2] = qd0; wd[2] = qdd0;
  double nz = 0;
  int nset = 0;
  if (f & DYV_NB_J) { nz = par[DY_ZZ]*qdd0; DYV_OPS(1, 0); nset = 1; }
  if (f & DYV_NB_MSX) { nz += par[DY_MX]*vd[1]; DYV_OPS(1, nset); nset = 1; }
  if (f & DYV_NB_MSY) { nz -= par[DY_MY]*vd[0]; DYV_OPS(1, 1); }
  (void)nset;
  d->nm[0] = d->nm[1] = 0; d->nm[2] = nz;
  d->f[0] = d->f[1] = d->f[2] = 0;
  u[0] = vd[0]; u[1] = vd[1]; u[2] = vd[2];
  if (pl->n > 1) {
    const int fn = pl->flags[1];
    const double* p = DYV_FN(nb_p)(ops, pl, d, 1, q);
    if (fn & (DYV_NB_PX | DYV_NB_PY)) {
      const double q2 = qd0*qd0;
      DYV_OPS(1, 0);
      if (fn & DYV_NB_PX) { u[0] -= q2*p[0]; u[1] += qdd0*p[0]; DYV_OPS(2, 2); }
      if (fn & DYV_NB_PY) { u[0] -= qdd0*p[1]; u[1] -= q2*p[1]; DYV_OPS(2, 2); }
    }
  }
}

/* joint 1 below a revolute joint 1 (j = 1): tau_1, then only the z moment
 * of link 1 is used: nn_z = N_z + (R n)_z + (p x R f)_z */
DYV_NB_INLINE void DYV_FN(nb_joint1)(dyvOps* ops, const dyvNeBase* pl, dyData* d, const double* cs,
                                     double f[3], double nn[3]) {
  const dyModel* m = pl->m;
  const double ct = cs[2], st = cs[3], ca = m->cos_alpha[1], sa = m->sin_alpha[1];
  const double* p = m->jnt_type[1] != DY_REVOLUTE ? d->p + 3 : pl->pc + 3;
  const int cls = m->twist[1], fl = pl->flags[1];
  nn[2] = d->nm[2] + dyv_rot_n_z(ops, nn, ct, st, cls, ca, sa); DYV_OPS(0, 1);
  if (fl & (DYV_NB_PX | DYV_NB_PY)) {
    double rf[3];
    dyv_rot_n(ops, rf, f, ct, st, cls, ca, sa);
    nn[2] += p[0]*rf[1] - p[1]*rf[0];
    DYV_OPS(2, 2);
  }
}

/* the forward pass from link j0: w, wd of each link and u = vd + U p of
 * the next carried in registers; F_j, N_j into d->f, d->nm */
DYV_NB_INLINE void DYV_FN(nb_forward)(dyvOps* ops, const dyvNeBase* pl, dyData* d, const double* cs,
                                      const double* par, const double* q, const double* qd,
                                      const double* qdd, int j0, double w[3], double wd[3],
                                      double u[3]) {
  for (int j = j0; j < pl->n; j++) {
#define NB_FWD_(c, b_) DYV_FN(nb_fwd)(ops, c, -1, 0, pl, d, cs, par, j, q, qd, qdd, w, wd, u)
#define NB_FK_(c, pn) DYV_FN(nb_fwd)(ops, c, DYV_NB_KL, (pn) << 6, pl, d, cs, par, j, q, qd, qdd, w, wd, u)
    DYV_DISPATCH(pl->fkind[j], NB_FWD_KINDS, NB_FK_, DYV_BY_TWIST(DYV_KIND_TWIST(pl->fkind[j]), NB_FWD_))
#undef NB_FK_
#undef NB_FWD_
  }
}

/* the backward pass: tau_j of joints n-1 .. jb+1, each passing its wrench
 * to joint j-1 (nb_bwd); returns joint jb's parameters */
DYV_NB_INLINE const double* DYV_FN(nb_backward)(dyvOps* ops, const dyvNeBase* pl, dyData* d,
                                                const double* cs, const double* par, const double* qd,
                                                const double* qdd, int jb, double f[3], double nn[3],
                                                double* tau) {
  const int n = pl->n;
  const double* pj = par + DY_NPAR_LINK*n + DY_NPAR_JNT*(n-1);   /* joint j's parameters */
  for (int j = n - 1; j > jb; j--, pj -= DY_NPAR_JNT) {
    tau[j] = DYV_FN(nb_tau)(ops, pl, j, pj, qd, qdd, f, nn);
#define NB_BWD_(c, b_) DYV_FN(nb_bwd)(ops, c, -1, pl, d, cs, j, f, nn)
#define NB_BK_(c, pk) DYV_FN(nb_bwd)(ops, c, (pk) << 6, pl, d, cs, j, f, nn)
    DYV_DISPATCH(pl->bkind[j], NB_BWD_KINDS, NB_BK_, DYV_BY_TWIST(DYV_KIND_TWIST(pl->bkind[j]), NB_BWD_))
#undef NB_BK_
#undef NB_BWD_
  }
  return pj;
}

void DYV_FN(dyv_nebase_rnea)(DYV_OPS_PARAM const dyvNeBase* pl, dyData* d, const double* par,
                             const double* q, const double* qd, const double* qdd,
                             double* tau) {
  DYV_OPS_LOCAL
  const dyModel* m = pl->m;
  const int n = pl->n;
  static const double zeros[DY_MAXJ];
  if (!qd) qd = zeros;
  if (!qdd) qdd = zeros;
  if (n <= 0) return;
  const int rev0 = m->jnt_type[0] == DY_REVOLUTE;
  double w[3] = {0, 0, 0}, wd[3] = {0, 0, 0}, u[3] = {-pl->g[0], -pl->g[1], -pl->g[2]};

  /* cos, sin theta first: a call inside the recursion would spill the
   * rates it carries in registers */
  double cs[2*DY_MAXJ];
  for (int j0 = 0; j0 < n; j0 += 8) {   /* by 8 joints: dy_sincos8, as the batch kernel */
    double th[8], ct[8], st[8];
    for (int b = 0; b < 8; b++) {
      const int j = j0 + b;
      th[b] = j < n && m->jnt_type[j] == DY_REVOLUTE ? m->dh_theta[j] + q[j] : 0;
    }
    dy_sincos8(st, ct, th);
    for (int j = j0 > 0 || pl->trig0 ? j0 : 1; j < n && j < j0 + 8; j++) {
      double* c = cs + 2*j;
      if (m->jnt_type[j] == DY_REVOLUTE) { c[0] = ct[j - j0]; c[1] = st[j - j0]; DYV_OPS(0, 1); }
      else { c[0] = pl->ctc[j]; c[1] = pl->stc[j]; }
    }
  }

  if (rev0) DYV_FN(nb_link1)(ops, pl, d, cs, par, q, qd, qdd, w, wd, u);
  DYV_FN(nb_forward)(ops, pl, d, cs, par, q, qd, qdd, rev0 ? 1 : 0, w, wd, u);

  /* backward: joints down to jb propagate their wrench by nb_bwd; below,
   * joint 2 of a revolute joint 1 passes only the z moment on */
  double f[3], nn[3];
  memcpy(f, d->f + 3*(n-1), sizeof f);
  memcpy(nn, d->nm + 3*(n-1), sizeof nn);
  const int jb = rev0 ? 1 : 0;
  const double* pj = DYV_FN(nb_backward)(ops, pl, d, cs, par, qd, qdd, jb, f, nn, tau);
  if (rev0 && n > 1) {
    tau[1] = DYV_FN(nb_tau)(ops, pl, 1, pj, qd, qdd, f, nn);
    pj -= DY_NPAR_JNT;
    DYV_FN(nb_joint1)(ops, pl, d, cs, f, nn);
  }
  tau[0] = DYV_FN(nb_tau)(ops, pl, 0, pj, qd, qdd, f, nn);
  dy_motor_tau(m, par, qd, qdd, tau);   /* the coupled motors (none: nothing) */
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
