/* SPDX-License-Identifier: MIT */
/* dynid verify: Lin's base-frame composite body method ([Lin91], Fig. 3);
 * equations in lin91.h. Compiled twice (verify/kernels.h): as itself and
 * with DY_COUNT_OPS (the counting variants *_ops), which run the same code
 * paths.
 *
 * Indices are 0-based: joint j, frame j (Lin's j+1); R_j = Rx(alpha_j)
 * Rz(theta_j) takes frame j to frame j-1. The point O is O_0 (Lin's choice;
 * H and b do not depend on it): s_0 = 0, sh_0 = 0, and theta_0 enters only
 * through gravity in frame 0, so its sin/cos are computed only for b, and
 * not even then when g is along z and alpha_0 is 0 or pi.
 *
 * Sweeps, O(n) storage: (T) sin/cos and twist classes (first: a libm call
 * inside a recursion would spill every register); (A) forward: s_j;
 * (B) backward: composite mh_j, ph_j, Jb_j. For H alone, (B) also carries
 * column k's momenta (e_k, a_k; prismatic k: mh_k u_k, ph_k x u_k) from
 * frame k back through the frames j < k, where (65) is a projection:
 * H_jk = a_z + s_y e_x - s_x e_y (revolute j: u_j = z, sh_j = (-s_y, s_x, 0))
 * or e_z (prismatic j). For H and b, (C) forward: the axes u_m^<j>, sh_m^<j>
 * and the velocity sums zeta_m qd_m of the joints m < j are carried into
 * frame j in place (eqs. 24, 27, 57), then column j of H (65) and the vectors
 * d_mj (66), accumulated into b_m and b_j as eq. (54) prescribes.
 * Every step rotates with one joint's R only: on an all-revolute arm one
 * dispatch on its twist class (DYV_BY_TWIST) per step selects code
 * specialised for that class; an arm with a prismatic joint runs the
 * general-twist code in (B) and (C) (exact cos/sin alpha, products counted).
 * Products with exact 0 or +-1 that are not executed (special twists, e_z = 0
 * of a revolute column, sh_0 = 0, s_0 = 0) are not counted. The Rz part of
 * R X R^T uses the double angle. */
#include "verify/lin91.h"
#include "verify/kernels.h"
#include <math.h>
#include <string.h>

#define L91_INL DYV_INL

/* per-call joint data and the sweeps' vectors (stack, no allocation) */
typedef struct {
  dyvOps* ops;                       /* the counters (counting variants), else NULL */
  double ct[DY_MAXJ], st[DY_MAXJ];   /* cos, sin theta_j */
  double ca[DY_MAXJ], sa[DY_MAXJ];   /* cos, sin alpha_j from the model, exact for special twists */
  double dj[DY_MAXJ];                /* d_j */
  int cls[DY_MAXJ + 1];              /* twist class of joint j (the model's) */
  double s[3*DY_MAXJ];               /* s_j */
  double ph[3*DY_MAXJ];              /* ph_j */
  double Jb[6*DY_MAXJ];              /* Jb_j (xx xy xz yy yz zz) */
  double mh[DY_MAXJ];                /* mh_j */
  double jz0;                        /* (Jb_0)_xx + (Jb_0)_yy = -(Jh_0)_zz */
  double V[6*DY_MAXJ];               /* (B) column momenta a_k, e_k; (C) u_m, sh_m */
  double zq[3*DY_MAXJ];              /* (C) zeta_m qd_m */
} l91W;

/* (A) s_j = R_j^T (s_{j-1} + c_j), c_j = (a_j, -sa d_j, ca d_j) (25) */
L91_INL void l91_s_step(const int cls, l91W* w, const dyModel* m, int j) {
  dyvOps* const ops = w->ops;
  const double dj = w->dj[j], a = m->dh_a[j], *sp = w->s + 3*(j-1);
  double c1 = 0, c2 = 0, v[3];
  switch (cls) {
    case DY_TWIST_0: c2 = dj; break;
    case DY_TWIST_PI2: c1 = -dj; break;
    case DY_TWIST_MPI2: c1 = dj; break;
    case DY_TWIST_PI: c2 = -dj; break;
    default: c1 = -w->sa[j]*dj; c2 = w->ca[j]*dj; DYV_OPS(2, 0);
  }
  if (j == 1) { v[0] = a; v[1] = c1; v[2] = c2; }   /* s_0 = 0 */
  else {
    v[0] = sp[0] + a; v[1] = sp[1]; v[2] = sp[2]; DYV_OPS(0, 1);
    if (cls == DY_TWIST_GENERAL || cls == DY_TWIST_PI2 || cls == DY_TWIST_MPI2) { v[1] += c1; DYV_OPS(0, 1); }
    if (cls == DY_TWIST_GENERAL || cls == DY_TWIST_0 || cls == DY_TWIST_PI) { v[2] += c2; DYV_OPS(0, 1); }
  }
  dyv_rot_t(ops, w->s + 3*j, v, w->ct[j], w->st[j], cls, w->ca[j], w->sa[j]);
}

/* H_jj = h + IA_j, the addition only for a rotor inertia (the paper's
 * arms have none) */
L91_INL double l91_plus_ia(dyvOps* ops, double h, double ia) {
  if (ia == 0) return h;
  DYV_OPS(0, 1);
  return h + ia;
}

/* (B) step j >= 1 (cls: class of joint j+1): composite j = own link j
 * about O + R_{j+1} (composite j+1) (19, 22, 28-30), with
 *   own: w = M s / 2 + h, Jb = J - tr(J)/2 E - (s w^T + w s^T), ph = M s + h;
 * H alone (colH): the columns k > j carried into frame j and projected on
 * joint j, then column j's momenta in frame j and H_jj. */
L91_INL void l91_bwd(const int cls, const int colH, const int allrev, l91W* w, const dyModel* m,
                     const double* par, int j, double* H) {
  dyvOps* const ops = w->ops;
  const int n = m->n;
  const double* pl = par + DY_NPAR_LINK*j;
  const double sx = w->s[3*j], sy = w->s[3*j+1], sz = w->s[3*j+2];
  if (colH && j < n - 1) {
    const int c = j + 1;
    const double ct = w->ct[c], st = w->st[c], ca = w->ca[c], sa = w->sa[c];
    /* columns k > j: a_k, e_k into frame j; H_jk (65) */
    const int rj = allrev || m->jnt_type[j] == DY_REVOLUTE;
    double* Hr = H + j*n + c;
    double* Hc = H + c*n + j;
    for (double* A = w->V + 6*c; A < w->V + 6*n; A += 6, Hr++, Hc += n) {
      double av[3], ev[3];
      dyv_rot_n(ops, av, A, ct, st, cls, ca, sa);
      dyv_rot_n(ops, ev, A + 3, ct, st, cls, ca, sa);
      A[0] = av[0]; A[1] = av[1]; A[2] = av[2]; A[3] = ev[0]; A[4] = ev[1]; A[5] = ev[2];
      double hv;
      if (rj) { hv = av[2] + sy*ev[0] - sx*ev[1]; DYV_OPS(2, 2); }
      else hv = ev[2];
      *Hr = *Hc = hv;
    }
  }
  double M = pl[DY_M];
  const double *h = pl + DY_MX, hm = 0.5*M;
  const double hs0 = hm*sx, hs1 = hm*sy, hs2 = hm*sz;
  const double w0 = hs0 + h[0], w1 = hs1 + h[1], w2 = hs2 + h[2];
  double J[6], P[3];
  /* off the diagonal, both forms: J - (s w^T + w s^T); P = M s + h = w + hs */
  J[1] = pl[DY_XY] - (sx*w1 + w0*sy);
  J[2] = pl[DY_XZ] - (sx*w2 + w0*sz);
  J[4] = pl[DY_YZ] - (sy*w2 + w1*sz);
  P[0] = w0 + hs0; P[1] = w1 + hs1; P[2] = w2 + hs2;
  if (colH) {
    /* H alone: the inertia tensor about O, Jh = J + 2 (s . w) E - (s w^T + w s^T) (23),
     * whose zz entry is all column j reads of the diagonal */
    const double t0 = sx*w0, t1 = sy*w1, t2 = sz*w2;
    J[0] = pl[DY_XX] + 2*(t1 + t2);
    J[3] = pl[DY_YY] + 2*(t0 + t2);
    J[5] = pl[DY_ZZ] + 2*(t0 + t1);
    DYV_OPS(1 + 3 + 6 + 6, 3 + 3 + 6 + 6);
  } else {
    /* with b: Jb = J - tr(J)/2 E - (s w^T + w s^T), which B of (64) reads */
    const double ht = 0.5*(pl[DY_XX] + pl[DY_YY] + pl[DY_ZZ]);
    J[0] = pl[DY_XX] - ht - 2*sx*w0;
    J[3] = pl[DY_YY] - ht - 2*sy*w1;
    J[5] = pl[DY_ZZ] - ht - 2*sz*w2;
    DYV_OPS(1 + 3 + 6 + 1 + 6, 3 + 3 + 6 + 2 + 6);
  }
  if (j < n - 1) {
    const int c = j + 1;
    const double ct = w->ct[c], st = w->st[c], ca = w->ca[c], sa = w->sa[c];
    double r[3], rj[6];
    dyv_rot_n(ops, r, w->ph + 3*c, ct, st, cls, ca, sa);
    P[0] += r[0]; P[1] += r[1]; P[2] += r[2];
    dyv_rot_sym(ops, rj, w->Jb + 6*c, ct, st, cls, ca, sa, 0);
    for (int k = 0; k < 6; k++) J[k] += rj[k];
    M += w->mh[c];
    DYV_OPS(0, 3 + 6 + 1);
  }
  double* Pw = w->ph + 3*j;
  double* Jw = w->Jb + 6*j;
  Pw[0] = P[0]; Pw[1] = P[1]; Pw[2] = P[2];
  for (int k = 0; k < 6; k++) Jw[k] = J[k];
  w->mh[j] = M;
  if (colH) {
    /* column j's momenta in frame j and H_jj */
    double* A = w->V + 6*j;
    double hjj;
    if (allrev || m->jnt_type[j] == DY_REVOLUTE) {
      /* e = z x ph - mh sh, a = Jh z + sh x ph (62, 63), sh = (-s_y, s_x, 0) */
      const double e0 = -P[1] + M*sy, e1 = P[0] - M*sx, a2 = J[5] - sy*P[1] - sx*P[0];
      A[3] = e0; A[4] = e1; A[5] = 0;
      A[0] = J[2] + sx*P[2]; A[1] = J[4] + sy*P[2]; A[2] = a2;
      hjj = a2 + sy*e0 - sx*e1;
      DYV_OPS(2 + 4 + 2, 2 + 4 + 2);
    } else {
      /* mh u, ph x u */
      A[3] = 0; A[4] = 0; A[5] = M;
      A[0] = P[1]; A[1] = -P[0]; A[2] = 0;
      hjj = M;
    }
    H[j*n + j] = l91_plus_ia(ops, hjj, par[DY_NPAR_LINK*n + DY_NPAR_JNT*j + DY_IA]);
  }
}

/* (R X R^T)_xx + (R X R^T)_yy for symmetric X, R = R_1 (joint 0's column) */
L91_INL double l91_sym_xxyy(dyvOps* ops, const int cls, const double* X, double c, double s,
                            double ca, double sa) {
  if (cls == DY_TWIST_0 || cls == DY_TWIST_PI) { DYV_OPS(0, 1); return X[0] + X[3]; }   /* trace of Rz X Rz^T */
  if (cls == DY_TWIST_PI2 || cls == DY_TWIST_MPI2) {
    /* (Rz X Rz^T)_xx + X_zz */
    DYV_OPS(6, 4);
    return c*(c*X[0] - s*X[1]) - s*(c*X[1] - s*X[3]) + X[5];
  }
  double o[6];
  dyv_rot_sym(ops, o, X, c, s, cls, ca, sa, 0);
  DYV_OPS(0, 1);
  return o[0] + o[3];
}

/* (R X R^T)_zz for symmetric X, R = R_1 (joint 0's entry of H alone, X =
 * Jh_1): the zz entry of dyv_rot_sym's formulas only (A1, A3; A5, A6, A7
 * for a general twist) */
L91_INL double l91_sym_zz(dyvOps* ops, const int cls, const double* X, double c, double s,
                          double ca, double sa) {
  if (cls == DY_TWIST_0 || cls == DY_TWIST_PI) return X[5];
  const double A1 = c*(X[0] - X[3]) - 2*s*X[1], A3 = X[0] - c*A1;
  DYV_OPS(4, 3);
  if (cls == DY_TWIST_PI2 || cls == DY_TWIST_MPI2) return A3;   /* rows y and z swap */
  const double A5 = s*X[2] + c*X[4], A7 = ca*((A3 - X[5])*ca - 2*sa*A5);
  DYV_OPS(6, 4);
  return A3 - A7;
}

/* (B), H alone, joint 0: only the z components in frame 0 are read */
L91_INL void l91_carry_H0(const int cls, l91W* w, const int* type, int n, double* H) {
  dyvOps* const ops = w->ops;
  const double ct = w->ct[1], st = w->st[1], ca = w->ca[1], sa = w->sa[1];
  const int o = type[0] == DY_REVOLUTE ? 0 : 3;
  for (int k = 1; k < n; k++) H[k] = H[k*n] = dyv_rot_n_z(ops, w->V + 6*k + o, ct, st, cls, ca, sa);
}

/* column j's vectors in frame j (revolute j): e, a, B of eqs. (62)-(64);
 * mh and ph for a prismatic j; zq: zeta_j qd_j (56) */
typedef struct {
  double ct, st, ca, sa;   /* joint j's theta and twist */
  double e0, e1, a0, a1, a2, B0, B1, B3, B4, B6, B7, B8, M, zq[3];
  const double* P;
  int rj;
} l91Col;

/* (C) H_mj (65) and d_mj (66) of joint m < j, with u_m, sh_m, zeta_m qd_m
 * carried into frame j first, and their terms of b (54): b_m += (zeta_j
 * qd_j) . d_mj here; returns (zeta_m^<j> qd_m) . d_mj, which b_j loses.
 * c comes by value: a copy the stores below cannot alias. */
L91_INL double l91_pair(const int cls, const int allrev, l91W* w, const int* type, int n, int j, int mm,
                        const l91Col cv, double* H, double* b) {
  const l91Col* c = &cv;
  dyvOps* const ops = w->ops;
  const double ct = c->ct, st = c->st, ca = c->ca, sa = c->sa;
  double* um = w->V + 6*mm;     /* u_m, then sh_m */
  double* shm = um + 3;
  double* zm = w->zq + 3*mm;
  const int rm = allrev || type[mm] == DY_REVOLUTE, rj = c->rj;
  const double *P = c->P, M = c->M;
  double u[3], sh[3] = {0, 0, 0}, z[3];
  dyv_rot_t(ops, u, um, ct, st, cls, ca, sa); um[0] = u[0]; um[1] = u[1]; um[2] = u[2];
  dyv_rot_t(ops, z, zm, ct, st, cls, ca, sa); zm[0] = z[0]; zm[1] = z[1]; zm[2] = z[2];
  const int hs = rm && mm > 0;    /* sh_0 = 0; sh of a prismatic joint unused */
  if (hs) { dyv_rot_t(ops, sh, shm, ct, st, cls, ca, sa); shm[0] = sh[0]; shm[1] = sh[1]; shm[2] = sh[2]; }
  double hmj, dv0, dv1, dv2 = 0;
  if (rm && rj) {
    hmj = c->a0*u[0] + c->a1*u[1] + c->a2*u[2]; DYV_OPS(3, 2);
    /* B u_m + sh_m x e (e_z = 0) */
    dv0 = c->B0*u[0] + c->B1*u[1];
    dv1 = c->B3*u[0] + c->B4*u[1];
    dv2 = c->B6*u[0] + c->B7*u[1] + c->B8*u[2];
    DYV_OPS(7, 4);
    if (hs) {
      hmj -= sh[0]*c->e0 + sh[1]*c->e1;
      dv0 -= sh[2]*c->e1; dv1 += sh[2]*c->e0; dv2 += sh[0]*c->e1 - sh[1]*c->e0;
      DYV_OPS(2 + 4, 2 + 4);
    }
  } else if (rj) {
    hmj = c->e0*u[0] + c->e1*u[1];
    dv0 = c->e1*u[2]; dv1 = -c->e0*u[2]; dv2 = c->e0*u[1] - c->e1*u[0];   /* e x u_m */
    DYV_OPS(2 + 4, 1 + 1);
  } else if (rm) {
    /* (u_m x ph)_z - mh (sh_m)_z;  z x (u_m x ph - mh sh_m) */
    hmj = u[0]*P[1] - u[1]*P[0];
    double v0 = u[1]*P[2] - u[2]*P[1], v1 = u[2]*P[0] - u[0]*P[2];
    DYV_OPS(6, 3);
    if (hs) { hmj -= M*sh[2]; v0 -= M*sh[0]; v1 -= M*sh[1]; DYV_OPS(3, 3); }
    dv0 = -v1; dv1 = v0;
  } else {
    hmj = M*u[2];
    dv0 = -M*u[1]; dv1 = M*u[0]; DYV_OPS(3, 0);
  }
  H[mm*n + j] = H[j*n + mm] = hmj;
  if (rj) {
    b[mm] += c->zq[0]*dv0 + c->zq[1]*dv1 + c->zq[2]*dv2;
    DYV_OPS(6, 6);
    return z[0]*dv0 + z[1]*dv1 + z[2]*dv2;
  }
  b[mm] += c->zq[0]*dv0 + c->zq[1]*dv1;
  DYV_OPS(4, 4);
  return z[0]*dv0 + z[1]*dv1;
}

/* (C) one forward step j >= 1: g and zeta into frame j, zeta_j qd_j (56),
 * column j's vectors e, a, B (62)-(64), H_jj and eta_j (67), then every
 * pair m < j (l91_pair) */
L91_INL void l91_fwd(const int cls, const int allrev, l91W* w, const int* type, int n, int j,
                     const double* qd, const double* pj, double g[3], double zeta[3],
                     double* H, double* b) {
  dyvOps* const ops = w->ops;
  const double ct = w->ct[j], st = w->st[j], ca = w->ca[j], sa = w->sa[j];
  const double sx = w->s[3*j], sy = w->s[3*j+1];
  const double* P = w->ph + 3*j;
  const double* Jj = w->Jb + 6*j;
  const double M = w->mh[j];
  l91Col c = {0};
  c.ct = ct; c.st = st; c.ca = ca; c.sa = sa;
  c.P = P; c.M = M; c.rj = allrev || type[j] == DY_REVOLUTE;
  const double qdj = qd[j];
  double t[3];
  dyv_rot_t(ops, t, g, ct, st, cls, ca, sa); g[0] = t[0]; g[1] = t[1]; g[2] = t[2];
  dyv_rot_t(ops, t, zeta, ct, st, cls, ca, sa);
  if (c.rj) { t[2] += qdj; DYV_OPS(0, 1); }
  c.zq[0] = t[0]*qdj; c.zq[1] = t[1]*qdj; c.zq[2] = t[2]*qdj; DYV_OPS(3, 0);
  memcpy(w->zq + 3*j, c.zq, sizeof c.zq);
  if (c.rj) { t[2] += qdj; DYV_OPS(0, 1); }
  zeta[0] = t[0]; zeta[1] = t[1]; zeta[2] = t[2];
  double* U = w->V + 6*j;
  U[0] = 0; U[1] = 0; U[2] = 1; U[3] = -sy; U[4] = sx; U[5] = 0;
  double bj, hjj;
  if (c.rj) {
    /* e = z x ph - mh sh, a = Jh z + sh x ph (62, 63), sh = (-s_y, s_x, 0) */
    c.e0 = -P[1] + M*sy; c.e1 = P[0] - M*sx;
    c.a0 = Jj[2] + sx*P[2]; c.a1 = Jj[4] + sy*P[2];
    c.a2 = -(Jj[0] + Jj[3]) - sy*P[1] - sx*P[0];
    /* B = -Jb [z x] + [sh x][ph x] = -Jb [z x] + ph sh^T - (sh . ph) E */
    const double sp = sx*P[1] - sy*P[0];
    c.B0 = -Jj[1] - P[0]*sy - sp; c.B1 = Jj[0] + P[0]*sx;
    c.B3 = -Jj[3] - P[1]*sy;      c.B4 = Jj[1] + P[1]*sx - sp;
    c.B6 = -Jj[4] - P[2]*sy;      c.B7 = Jj[2] + P[2]*sx; c.B8 = -sp;
    hjj = c.a2 + sy*c.e0 - sx*c.e1;
    bj = -(c.e0*g[0] + c.e1*g[1]);                              /* eta_j (67) */
    DYV_OPS(2 + 4 + 8 + 2 + 2, 2 + 5 + 9 + 2 + 1);
  } else {
    hjj = M;
    bj = -M*g[2]; DYV_OPS(1, 0);
  }
  H[j*n + j] = l91_plus_ia(ops, hjj, pj[DY_NPAR_JNT*j + DY_IA]);
  for (int mm = 0; mm < j; mm++) bj -= l91_pair(cls, allrev, w, type, n, j, mm, c, H, b);
  b[j] += bj; DYV_OPS(0, 1);
}

/* (T), (A): twist classes and cos, sin alpha from the model, d_j, sin/cos
 * theta_j, then s_j (25); joint 0 only for gravity, with b (g0: g^<0>
 * depends on theta_0). Returns 1 if every joint is revolute. */
L91_INL int l91_joints(l91W* w, const dyModel* m, const double* q, int withb, int* g0) {
  dyvOps* const ops = w->ops;
  const int n = m->n;
  const int* type = m->jnt_type;
  const double* gv = m->gravity;
  int allrev = type[0] == DY_REVOLUTE;
  *g0 = 0;
  if (withb) {
    w->cls[0] = dyv_twist_cs(m, 0, &w->ca[0], &w->sa[0]);
    *g0 = !(gv[0] == 0 && gv[1] == 0 && (w->cls[0] == DY_TWIST_0 || w->cls[0] == DY_TWIST_PI));
    if (*g0) {
      double th = m->dh_theta[0];
      if (type[0] == DY_REVOLUTE) {
        if (th != 0) { th += q[0]; DYV_OPS(0, 1); } else th = q[0];
      }
      sincos(th, &w->st[0], &w->ct[0]);
    }
  }
  w->s[0] = w->s[1] = w->s[2] = 0;
  for (int j = 1; j < n; j++) {
    w->cls[j] = dyv_twist_cs(m, j, &w->ca[j], &w->sa[j]);
    double th = m->dh_theta[j], dj = m->dh_d[j];
    /* theta_j = theta0 + q or d_j = d0 + q, no addition for a zero offset */
    double* x = type[j] == DY_REVOLUTE ? &th : &dj;
    if (type[j] != DY_REVOLUTE) allrev = 0;
    if (*x != 0) { *x += q[j]; DYV_OPS(0, 1); } else *x = q[j];
    w->dj[j] = dj;
    sincos(th, &w->st[j], &w->ct[j]);
  }
#define L91_S(k, b_) l91_s_step(k, w, m, j)
  for (int j = 1; j < n; j++) DYV_BY_TWIST(w->cls[j], L91_S)
#undef L91_S
  return allrev;
}

/* (B) composite bodies, backward (28)-(30), then joint 0 (s_0 = 0): ph_0
 * (b only), mh_0 and (Jb_0)_xx + (Jb_0)_yy; H alone (withb 0): the columns
 * carried down and projected, H_00 = -(Jh_0)_zz or mh_0, + IA */
L91_INL void l91_composite(l91W* w, const dyModel* m, const double* par, int withb, int allrev,
                           double* H) {
  dyvOps* const ops = w->ops;
  const int n = m->n;
  const int* type = m->jnt_type;
  w->cls[n] = DY_TWIST_0;    /* joint n - 1 has no child */
#define L91_B(k, b_) l91_bwd(k, 0, 1, w, m, par, j, H)
#define L91_BH(k, b_) l91_bwd(k, 1, 1, w, m, par, j, H)
  for (int j = n - 1; j >= 1; j--) {
    if (withb) { DYV_BY_TWIST(w->cls[j+1], L91_B) }
    else if (allrev) { DYV_BY_TWIST(w->cls[j+1], L91_BH) }
    else l91_bwd(DY_TWIST_GENERAL, 1, 0, w, m, par, j, H);   /* with a prismatic joint: general twist code */
  }
#undef L91_B
#undef L91_BH
  w->mh[0] = par[DY_M];
  /* own link 0 (s_0 = 0): Jb = J - tr(J)/2 E, (Jb)_xx + (Jb)_yy = -ZZ; H
   * alone carries Jh instead, (Jh)_zz = ZZ */
  w->jz0 = -par[DY_ZZ];
  if (withb) { w->ph[0] = par[DY_MX]; w->ph[1] = par[DY_MY]; w->ph[2] = par[DY_MZ]; }
  if (n > 1) {
    const double ct = w->ct[1], st = w->st[1], ca = w->ca[1], sa = w->sa[1];
    w->mh[0] += w->mh[1]; DYV_OPS(0, 1);
#define L91_XY(k, b_) w->jz0 += l91_sym_xxyy(ops, k, w->Jb + 6, ct, st, ca, sa)
#define L91_ZZ(k, b_) w->jz0 -= l91_sym_zz(ops, k, w->Jb + 6, ct, st, ca, sa)
    if (type[0] == DY_REVOLUTE && withb) { DYV_BY_TWIST(w->cls[1], L91_XY) DYV_OPS(0, 1); }
    else if (type[0] == DY_REVOLUTE) { DYV_BY_TWIST(w->cls[1], L91_ZZ) DYV_OPS(0, 1); }
#undef L91_XY
#undef L91_ZZ
    if (withb) {
      double r[3];
      dyv_rot_n(ops, r, w->ph + 3, ct, st, w->cls[1], ca, sa);
      dyv_add(ops, w->ph, r);
    } else {
#define L91_C0(k, b_) l91_carry_H0(k, w, type, n, H)
      DYV_BY_TWIST(w->cls[1], L91_C0)
#undef L91_C0
    }
  }
  H[0] = l91_plus_ia(ops, type[0] == DY_REVOLUTE ? -w->jz0 : w->mh[0], par[DY_NPAR_LINK*n + DY_IA]);
}

/* (C) forward: joint 0 (g^<0>, zeta_0 qd_0, eta_0), then each joint j
 * carries u_m, sh_m, zeta_m qd_m (m < j) into frame j and adds its terms
 * of H and b; the joint terms FV qd + FC sign(qd) + FO close b */
L91_INL void l91_forward(l91W* w, const dyModel* m, const double* par, const double* qdin,
                         int allrev, int g0, double* H, double* b) {
  dyvOps* const ops = w->ops;
  const int n = m->n;
  const int* type = m->jnt_type;
  const double *gv = m->gravity, *pj = par + DY_NPAR_LINK*n;
  double qd[DY_MAXJ], g[3], zeta[3];
  for (int j = 0; j < n; j++) qd[j] = qdin ? qdin[j] : 0;
  memset(b, 0, sizeof(double) * (size_t)n);
  if (g0) dyv_rot_t(ops, g, gv, w->ct[0], w->st[0], w->cls[0], w->ca[0], w->sa[0]);
  else { g[0] = 0; g[1] = 0; g[2] = w->cls[0] == DY_TWIST_0 ? gv[2] : -gv[2]; }
  w->V[0] = 0; w->V[1] = 0; w->V[2] = 1;
  zeta[0] = zeta[1] = zeta[2] = 0;
  if (type[0] == DY_REVOLUTE) {
    w->zq[0] = 0; w->zq[1] = 0; w->zq[2] = qd[0]*qd[0]; zeta[2] = 2*qd[0]; DYV_OPS(2, 0);
    /* e_0 = z x ph_0 */
    if (g0) { b[0] = w->ph[1]*g[0] - w->ph[0]*g[1]; DYV_OPS(2, 1); }
  } else {
    w->zq[0] = w->zq[1] = w->zq[2] = 0;
    b[0] = -w->mh[0]*g[2]; DYV_OPS(1, 0);
  }
#define L91_F(k, b_) l91_fwd(k, 1, w, type, n, j, qd, pj, g, zeta, H, b)
  for (int j = 1; j < n; j++) {
    if (allrev) { DYV_BY_TWIST(w->cls[j], L91_F) }
    else l91_fwd(DY_TWIST_GENERAL, 0, w, type, n, j, qd, pj, g, zeta, H, b);   /* general twist code */
  }
#undef L91_F
  for (int j = 0; j < n; j++) {
    const double qdj = qd[j];
    const double* pk = pj + DY_NPAR_JNT*j;
    b[j] += pk[DY_FV]*qdj + pk[DY_FC]*((qdj > 0) - (qdj < 0)) + pk[DY_FO];
    DYV_OPS(2, 3);
  }
}

/* H, and b if b is given (then H may be NULL: d->H holds it) */
static void DYV_FN(lin91_core)(dyvOps* ops, const dyModel* m, dyData* d, const double* par,
                               const double* q, const double* qd, double* H, double* b) {
  l91W w;
  int g0;
  w.ops = ops;
  const int allrev = l91_joints(&w, m, q, b != NULL, &g0);
  double* Hw = H ? H : d->H;
  l91_composite(&w, m, par, b != NULL, allrev, Hw);
  if (b) l91_forward(&w, m, par, qd, allrev, g0, Hw, b);
}

void DYV_FN(dyv_lin91_H)(DYV_OPS_PARAM const dyModel* m, dyData* d, const double* par,
                         const double* q, double* H) {
  DYV_OPS_LOCAL
  DYV_FN(lin91_core)(ops, m, d, par, q, NULL, H, NULL);
}

void DYV_FN(dyv_lin91_Hb)(DYV_OPS_PARAM const dyModel* m, dyData* d, const double* par,
                          const double* q, const double* qd, double* H, double* b) {
  DYV_OPS_LOCAL
  DYV_FN(lin91_core)(ops, m, d, par, q, qd, H, b);
}
