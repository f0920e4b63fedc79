/* SPDX-License-Identifier: MIT */
/* dynid verify: Saha's DeNOC inverse dynamics and UDU^T forward dynamics
 * ([Saha99]) in modified-DH link frames; see saha.h for the equations.
 * The 6-vectors and 6x6 matrices of the paper are handled as their 3x3
 * blocks and 3-vectors: B_{i,i-1} t = (R^T w; R^T (v + w x c)), B^T w =
 * (R n + c x R f; R f), never a dense 6x6 product. Compiled twice
 * (verify/kernels.h): as itself and with DY_COUNT_OPS (the counting
 * variants *_ops). */
#include "verify/saha.h"
#include "core/dynamics.h"
#include "verify/kernels.h"
#include <string.h>

#ifndef DYNID_SAHA_COMMON
#define DYNID_SAHA_COMMON
/* joint i at the current q: cos, sin theta; twist class and cos, sin;
 * c = O_{i-1} -> O_i in frame i-1 = (a, -d sin alpha, d cos alpha) */
typedef struct { double ct, st, ca, sa, c[3]; int cls, rev; } shJ;
#endif

/* the joints at q; c is a constant of a revolute joint (not counted), 2 M
 * for a prismatic one of general twist */
static void DYV_FN(sh_joints)(dyvOps* ops, const dyModel* m, const double* q, shJ* J) {
  for (int i = 0; i < m->n; i++) {
    shJ* g = J + i;
    g->rev = m->jnt_type[i] == DY_REVOLUTE;
    const double th = m->dh_theta[i] + (g->rev ? q[i] : 0), d = m->dh_d[i] + (g->rev ? 0 : q[i]);
    g->ct = cos(th); g->st = sin(th);
    g->cls = dyv_twist_cs(m, i, &g->ca, &g->sa);
    g->c[0] = m->dh_a[i]; g->c[1] = -d*g->sa; g->c[2] = d*g->ca;
    if (!g->rev && !g->cls) DYV_OPS(2, 0);
  }
}

/* o = S v, S symmetric (xx xy xz yy yz zz) */
static inline void DYV_FN(sh_symvec)(dyvOps* ops, double o[3], const double* S, const double v[3]) {
  o[0] = S[0]*v[0] + S[1]*v[1] + S[2]*v[2];
  o[1] = S[1]*v[0] + S[3]*v[1] + S[4]*v[2];
  o[2] = S[2]*v[0] + S[4]*v[1] + S[5]*v[2];
  DYV_OPS(9, 6);
}

#define RT(o, v, g) dyv_rot_t(ops, o, v, (g)->ct, (g)->st, (g)->cls, (g)->ca, (g)->sa)
#define RN(o, v, g) dyv_rot_n(ops, o, v, (g)->ct, (g)->st, (g)->cls, (g)->ca, (g)->sa)

/* forward step i (section 5.1): angular part of nu_i, and xi_i = B xi_{i-1}
 * + Bdot nu_{i-1} + p_i qdd_i + Omega_i p_i qd_i as (wd; vd) at O_i */
static void DYV_FN(sh_forward)(dyvOps* ops, const dyModel* m, dyData* d, const shJ* g, int i, double qdi, double qddi) {
  double *w = d->w + 3*i, *wd = d->wd + 3*i, *vd = d->vd + 3*i, wr[3] = {0, 0, 0};
  if (i == 0) {
    const double mg[3] = {-m->gravity[0], -m->gravity[1], -m->gravity[2]};   /* eq. 32 */
    RT(vd, mg, g);
    wd[0] = wd[1] = wd[2] = 0;
  } else {
    const double *wp = w - 3, *wdp = wd - 3, *vdp = vd - 3;
    double t[3], u[3] = {vdp[0], vdp[1], vdp[2]};
    dyv_cross(ops, t, wp, g->c);
    dyv_add_cross(ops, u, wdp, g->c);
    dyv_add_cross(ops, u, wp, t);
    RT(vd, u, g);
    RT(wr, wp, g);
    RT(wd, wdp, g);
  }
  w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2];
  if (i == 0) {                       /* link 1: w and wd along z */
    if (g->rev) { w[2] = qdi; wd[2] = qddi; }
    else { vd[2] += qddi; DYV_OPS(0, 1); }
  } else if (g->rev) {                /* Omega p qd = (wr x z qd; 0) */
    w[2] += qdi;
    wd[0] += wr[1]*qdi; wd[1] -= wr[0]*qdi; wd[2] += qddi;
    DYV_OPS(2, 4);
  } else {                            /* (0; 2 wr x z qd): the sliding O_i */
    const double h = 2*qdi;
    vd[0] += h*wr[1]; vd[1] -= h*wr[0]; vd[2] += qddi;
    DYV_OPS(3, 3);
  }
}

/* the wrench of link i about O_i: M_i xi_i + Mdot_i nu_i =
 * (J wd + w x J w + MS x vd; m vd + wd x MS + w x (w x MS)) */
static void DYV_FN(sh_wrench)(dyvOps* ops, dyData* d, const double* p10, int i) {
  const double *w = d->w + 3*i, *wd = d->wd + 3*i, *vd = d->vd + 3*i, *ms = p10 + DY_MX;
  double *f = d->f + 3*i, *nm = d->nm + 3*i, Jw[3], a[3];
  DYV_FN(sh_symvec)(ops, nm, p10, wd);
  DYV_FN(sh_symvec)(ops, Jw, p10, w);
  dyv_add_cross(ops, nm, w, Jw);
  dyv_add_cross(ops, nm, ms, vd);
  f[0] = p10[DY_M]*vd[0]; f[1] = p10[DY_M]*vd[1]; f[2] = p10[DY_M]*vd[2];
  DYV_OPS(3, 0);
  dyv_add_cross(ops, f, wd, ms);
  dyv_cross(ops, a, w, ms);
  dyv_add_cross(ops, f, w, a);
}

/* joint terms IA qdd + FV qd + FC sign(qd) + FO */
static inline double DYV_FN(sh_joint)(dyvOps* ops, const double* pj, double qdi, double qddi) {
  if (pj[DY_IA] == 0 && pj[DY_FV] == 0 && pj[DY_FC] == 0 && pj[DY_FO] == 0) return 0;
  DYV_OPS(3, 4);
  return pj[DY_IA]*qddi + pj[DY_FV]*qdi + pj[DY_FC]*(qdi > 0 ? 1 : qdi < 0 ? -1 : 0) + pj[DY_FO];
}

/* inverse dynamics (dyv_saha_id) */
static void DYV_FN(sh_id)(dyvOps* ops, const dyModel* m, dyData* d, const double* par, const double* q,
                          const double* qd, const double* qdd, double* tau) {
  const int n = m->n;
  shJ J[DY_MAXJ];
  DYV_FN(sh_joints)(ops, m, q, J);
  for (int i = 0; i < n; i++) {
    DYV_FN(sh_forward)(ops, m, d, J + i, i, qd ? qd[i] : 0, qdd ? qdd[i] : 0);
    DYV_FN(sh_wrench)(ops, d, par + DY_NPAR_LINK*i, i);
  }
  /* backward: gamma_i = w*_i + B_{i+1,i}^T gamma_{i+1}, tau_i = p_i^T gamma_i */
  for (int i = n - 1; i >= 0; i--) {
    const double *f = d->f + 3*i, *nm = d->nm + 3*i;
    tau[i] = (J[i].rev ? nm[2] : f[2]) +
             DYV_FN(sh_joint)(ops, par + DY_NPAR_LINK*n + DY_NPAR_JNT*i, qd ? qd[i] : 0, qdd ? qdd[i] : 0);
    if (i == 0) break;
    double rf[3], rn[3];
    RN(rf, f, J + i);
    RN(rn, nm, J + i);
    dyv_add(ops, d->f + 3*(i-1), rf);
    dyv_add(ops, d->nm + 3*(i-1), rn);
    dyv_add_cross(ops, d->nm + 3*(i-1), J[i].c, rf);
  }
}

void DYV_FN(dyv_saha_id)(DYV_OPS_PARAM const dyModel* m, dyData* d, const double* par,
                         const double* q, const double* qd, const double* qdd, double* tau) {
  DYV_OPS_LOCAL
  DYV_FN(sh_id)(ops, m, d, par, q, qd, qdd, tau);
}

/* ----------------------------------------------- forward dynamics (5.2) */

/* articulated mass matrix of link k in 3x3 blocks: S11, S22 symmetric (xx
 * xy xz yy yz zz), S12 row-major; 21 doubles per link */
enum { SH_S11 = 0, SH_S12 = 6, SH_S22 = 15, SH_MH = 21 };

/* M_k about O_k: [J [MS x]; [MS x]^T m 1] */
static void sh_mass(double* A, const double* p10) {
  const double* s = p10 + DY_MX;
  memcpy(A + SH_S11, p10, 6 * sizeof(double));
  const double S[9] = {0, -s[2], s[1], s[2], 0, -s[0], -s[1], s[0], 0};
  memcpy(A + SH_S12, S, sizeof S);
  const double M[6] = {p10[DY_M], 0, 0, p10[DY_M], 0, p10[DY_M]};
  memcpy(A + SH_S22, M, sizeof M);
}

/* psih = Mh p (a column: no operation), mh = p^T psih + IA, psi = psih / mh */
static double DYV_FN(sh_psi)(dyvOps* ops, const double* A, int rev, double ia, double ph[6], double psi[6]) {
  if (rev) {
    ph[0] = A[SH_S11 + 2]; ph[1] = A[SH_S11 + 4]; ph[2] = A[SH_S11 + 5];
    ph[3] = A[SH_S12 + 6]; ph[4] = A[SH_S12 + 7]; ph[5] = A[SH_S12 + 8];
  } else {
    ph[0] = A[SH_S12 + 2]; ph[1] = A[SH_S12 + 5]; ph[2] = A[SH_S12 + 8];
    ph[3] = A[SH_S22 + 2]; ph[4] = A[SH_S22 + 4]; ph[5] = A[SH_S22 + 5];
  }
  double mh = ph[rev ? 2 : 5];
  if (ia != 0) { mh += ia; DYV_OPS(0, 1); }
  const double inv = 1 / mh;
  for (int r = 0; r < 6; r++) psi[r] = ph[r] * inv;
  DYV_OPS(7, 0);
  return mh;
}

/* A -= psih psi^T (eq. 50): 21 entries. Without armature, psi^T p = 1 and
 * A p = 0: row and column pk of A are zero (set, not computed). */
static void DYV_FN(sh_rank1)(dyvOps* ops, double* A, const double ph[6], const double psi[6], int pk, int zk) {
  static const int ij[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  for (int e = 0; e < 6; e++) {
    const int r = ij[e][0], s = ij[e][1];
    if (zk && (r == pk || s == pk)) A[SH_S11 + e] = 0;
    else { A[SH_S11 + e] -= ph[r] * psi[s]; DYV_OPS(1, 1); }
    if (zk && (3 + r == pk || 3 + s == pk)) A[SH_S22 + e] = 0;
    else { A[SH_S22 + e] -= ph[3 + r] * psi[3 + s]; DYV_OPS(1, 1); }
  }
  for (int r = 0; r < 3; r++)
    for (int s = 0; s < 3; s++) {
      if (zk && (r == pk || 3 + s == pk)) A[SH_S12 + 3*r + s] = 0;
      else { A[SH_S12 + 3*r + s] -= ph[r] * psi[3 + s]; DYV_OPS(1, 1); }
    }
}

/* R X R^T by the shared kernel for X with a zero third row and column
 * (X13 = X23 = X33 = 0: the joint's row of A without armature). This
 * step has always been reported as 1 M more than the kernel executes (6 M
 * for the Rz part where 5 run); the count is kept so that the reported
 * Table 2 counts stay what they were. */
static inline void DYV_FN(sh_rotSymZ)(dyvOps* ops, double o[6], const double X[6], const shJ* g) {
  dyv_rot_sym(ops, o, X, g->ct, g->st, g->cls, g->ca, g->sa, DYV_SYM_X3Z);
  DYV_OPS(1, 0);
}

/* P += B^T A B, B = B_{k,k-1} (eq. 50). With C = [c x] and ' the rotation
 * R X R^T: N22 = A22', N12 = A12' + C A22', N11 = A11' + C A21' - N12 C.
 * A12' from its symmetric and skew parts: R (S + [k x]) R^T = R S R^T +
 * [(R k) x]. */
static void DYV_FN(sh_transform)(dyvOps* ops, double* P, const double* A, const shJ* g, int pk, int zk) {
  double a11[6], a22[6], sy[6], k[3], kr[3], a12[9], n12[9];
  if (zk && pk == 2) DYV_FN(sh_rotSymZ)(ops, a11, A + SH_S11, g);
  else dyv_rot_sym(ops, a11, A + SH_S11, g->ct, g->st, g->cls, g->ca, g->sa, 0);
  if (zk && pk == 5) DYV_FN(sh_rotSymZ)(ops, a22, A + SH_S22, g);
  else dyv_rot_sym(ops, a22, A + SH_S22, g->ct, g->st, g->cls, g->ca, g->sa, 0);
  const double* B = A + SH_S12;
  sy[0] = B[0]; sy[3] = B[4]; sy[5] = B[8];
  sy[1] = 0.5*(B[1] + B[3]); k[2] = 0.5*(B[3] - B[1]);
  DYV_OPS(2, 2);
  if (zk) {       /* row 2 (revolute) or column 2 (prismatic) of S12 is zero */
    const int rv = pk == 2;
    sy[2] = 0.5*(rv ? B[2] : B[6]); sy[4] = 0.5*(rv ? B[5] : B[7]);
    DYV_OPS(2, 0);
    if (rv) { k[1] = sy[2]; k[0] = -sy[4]; }
    else { k[1] = -sy[2]; k[0] = sy[4]; }
  } else {
    sy[2] = 0.5*(B[2] + B[6]); sy[4] = 0.5*(B[5] + B[7]);
    k[0] = 0.5*(B[7] - B[5]); k[1] = 0.5*(B[2] - B[6]);
    DYV_OPS(4, 4);
  }
  double syr[6];
  dyv_rot_sym(ops, syr, sy, g->ct, g->st, g->cls, g->ca, g->sa, 0);
  RN(kr, k, g);
  a12[0] = syr[0]; a12[4] = syr[3]; a12[8] = syr[5];
  a12[1] = syr[1] - kr[2]; a12[3] = syr[1] + kr[2];
  a12[2] = syr[2] + kr[1]; a12[6] = syr[2] - kr[1];
  a12[5] = syr[4] - kr[0]; a12[7] = syr[4] + kr[0];
  DYV_OPS(0, 6);
  /* N12 = A12' + C A22': column s gets c x (A22' column s) */
  static const int sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  const double* c = g->c;
  for (int s = 0; s < 3; s++) {
    const double col[3] = {a22[sym[0][s]], a22[sym[1][s]], a22[sym[2][s]]};
    double x[3];
    dyv_cross(ops, x, c, col);
    for (int r = 0; r < 3; r++) n12[3*r + s] = a12[3*r + s] + x[r];
    DYV_OPS(0, 3);
  }
  /* N11_rs = A11'_rs + (c x A12'[s,:])_r + (c x N12[r,:])_s, r <= s */
  for (int r = 0; r < 3; r++)
    for (int s = r; s < 3; s++) {
      const int r1 = (r + 1) % 3, r2 = (r + 2) % 3, s1 = (s + 1) % 3, s2 = (s + 2) % 3;
      const double* as = a12 + 3*s;
      const double* nr = n12 + 3*r;
      P[SH_S11 + sym[r][s]] += a11[sym[r][s]] + (c[r1]*as[r2] - c[r2]*as[r1]) + (c[s1]*nr[s2] - c[s2]*nr[s1]);
      DYV_OPS(4, 5);
    }
  for (int e = 0; e < 9; e++) P[SH_S12 + e] += n12[e];
  for (int e = 0; e < 6; e++) P[SH_S22 + e] += a22[e];
  DYV_OPS(0, 15);
}

/* articulated mass matrices (eq. 50): psi (6n), mh (n) of joints n-1..0.
 * Returns 0 or k+1 if mh_k is not positive. */
static int DYV_FN(sh_articulate)(dyvOps* ops, const dyModel* m, const double* par, const shJ* J,
                                 double* psi, double* mh) {
  const int n = m->n;
  double art[SH_MH*DY_MAXJ];      /* the articulated mass matrices, SH_MH per link */
  for (int i = 0; i < n; i++) sh_mass(art + SH_MH*i, par + DY_NPAR_LINK*i);
  for (int k = n - 1; k >= 0; k--) {
    double* A = art + SH_MH*k;
    const double ia = par[DY_NPAR_LINK*n + DY_NPAR_JNT*k + DY_IA];
    double ph[6];
    const int pk = J[k].rev ? 2 : 5, zk = ia == 0;
    mh[k] = DYV_FN(sh_psi)(ops, A, J[k].rev, ia, ph, psi + 6*k);
    if (!(mh[k] > 0)) return k + 1;
    if (k == 0) break;
    DYV_FN(sh_rank1)(ops, A, ph, psi + 6*k, pk, zk);
    DYV_FN(sh_transform)(ops, art + SH_MH*(k-1), A, J + k, pk, zk);
  }
  return 0;
}

/* the three sweeps (34)-(37): tauh = U^-1 phi, taut = D^-1 tauh, qdd = U^-T taut */
static void DYV_FN(sh_solve)(dyvOps* ops, int n, const shJ* J, const double* psi, const double* mh,
                             const double* phi, double* th, double* qdd) {
  double e[6] = {0, 0, 0, 0, 0, 0};              /* eta_{i,i+1} */
  for (int i = n - 1; i >= 0; i--) {
    const int pk = J[i].rev ? 2 : 5;
    th[i] = phi[i] - e[pk];
    DYV_OPS(0, 1);
    double et[6];
    for (int k = 0; k < 6; k++) et[k] = psi[6*i + k] * th[i] + e[k];
    DYV_OPS(6, 6);
    if (i == 0) break;
    RN(e + 3, et + 3, J + i);                    /* B^T eta = (R n + c x R f; R f) */
    RN(e, et, J + i);
    dyv_add_cross(ops, e, J[i].c, e + 3);
  }
  double mu[6] = {0, 0, 0, 0, 0, 0};             /* mu_{i,i-1} */
  for (int i = 0; i < n; i++) {
    qdd[i] = th[i] / mh[i] - dyv_dot(ops, psi + 6*i, mu) - dyv_dot(ops, psi + 6*i + 3, mu + 3);
    DYV_OPS(1, 2);
    mu[J[i].rev ? 2 : 5] += qdd[i];
    DYV_OPS(0, 1);
    if (i + 1 == n) break;
    const shJ* g = J + i + 1;                    /* B mu = (R^T w; R^T (v + w x c)) */
    double u[3] = {mu[3], mu[4], mu[5]};
    dyv_add_cross(ops, u, mu, g->c);
    RT(mu + 3, u, g);
    double w[3] = {mu[0], mu[1], mu[2]};
    RT(mu, w, g);
  }
}

int DYV_FN(dyv_saha_fd)(DYV_OPS_PARAM const dyModel* m, dyData* d, const double* par,
                        const double* q, const double* qd, const double* tau, double* qdd) {
  DYV_OPS_LOCAL
  const int n = m->n;
  double phi[DY_MAXJ], psi[6*DY_MAXJ], mh[DY_MAXJ], th[DY_MAXJ];
  DYV_FN(sh_id)(ops, m, d, par, q, qd, NULL, phi);   /* phi = tau - C qd - g - friction */
  for (int i = 0; i < n; i++) phi[i] = tau[i] - phi[i];
  DYV_OPS(0, n);
  shJ J[DY_MAXJ];
  DYV_FN(sh_joints)(ops, m, q, J);
  const int info = DYV_FN(sh_articulate)(ops, m, par, J, psi, mh);
  if (info) return info;
  DYV_FN(sh_solve)(ops, n, J, psi, mh, phi, th, qdd);
  return 0;
}

#ifndef DY_COUNT_OPS
int dyv_saha_udu(const dyModel* m, dyData* d, const double* par, const double* q,
                 double* U, double* D) {
  (void)d;   /* the UDU^T factors need no scratch beyond the stack */
  dyvOps* const ops = NULL;
  const int n = m->n;
  shJ J[DY_MAXJ];
  sh_joints(ops, m, q, J);
  double psi[6*DY_MAXJ];
  const int info = sh_articulate(ops, m, par, J, psi, D);
  if (info) return info;
  /* U_ik = psi_k^T B_ki p_i: carry p_i up the chain */
  memset(U, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n; i++) {
    U[i*n + i] = 1;
    double v[6] = {0, 0, 0, 0, 0, 0};
    v[J[i].rev ? 2 : 5] = 1;
    for (int k = i + 1; k < n; k++) {
      double u[3] = {v[3], v[4], v[5]}, w[3] = {v[0], v[1], v[2]};
      dyv_add_cross(ops, u, w, J[k].c);
      RT(v + 3, u, J + k);
      RT(v, w, J + k);
      double s = 0;
      for (int r = 0; r < 6; r++) s += psi[6*k + r] * v[r];
      U[i*n + k] = s;
    }
  }
  return 0;
}
#endif
