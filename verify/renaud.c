/* SPDX-License-Identifier: MIT */
/* dynid verify: Renaud's Newton-Euler on augmented bodies ([Renaud]); see
 * renaud.h for the steps. Compiled twice (verify/kernels.h): as itself and
 * with DY_COUNT_OPS (the counting variant, names with _ops). */
#include "verify/renaud.h"
#include "verify/kernels.h"
#include <math.h>
#include <string.h>

/* a 3-vector with the mask of its possibly nonzero components */
typedef struct { double v[3]; unsigned m; } rnV;
/* symmetric entries xx xy xz yy yz zz; (r, c) -> index */
static const int rn_sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};

/* components of u = Rz v that Rx(alpha) u needs for the components `out`
 * of the result (twist class ac) */
static unsigned rn_needU(unsigned out, int ac) {
  const int cz = ac != DY_TWIST_PI2 && ac != DY_TWIST_MPI2, sz = ac != DY_TWIST_0 && ac != DY_TWIST_PI;   /* cos, sin alpha nonzero */
  unsigned u = out & 1;
  if (((out & 2) && cz) || ((out & 4) && sz)) u |= 2;
  if (((out & 2) && sz) || ((out & 4) && cz)) u |= 4;
  return u;
}
/* components of v that R v = Rx Rz v needs (Rz mixes x and y) */
static __attribute__((unused)) unsigned rn_needN(unsigned out, int ac) {
  const unsigned u = rn_needU(out, ac);
  return (u & 3) ? (u & 4) | 3 : u;
}
/* components of v that R^T v = Rz^T Rx^T v needs for the components out */
static __attribute__((unused)) unsigned rn_needT(unsigned out, int ac) {
  const int cz = ac != DY_TWIST_PI2 && ac != DY_TWIST_MPI2, sz = ac != DY_TWIST_0 && ac != DY_TWIST_PI;
  const int w1 = (out & 3) != 0, w2 = (out & 4) != 0;
  return (unsigned)w1 | (unsigned)((w1 && cz) || (w2 && sz)) << 1 | (unsigned)((w1 && sz) || (w2 && cz)) << 2;
}
/* s = sum of products: k nonzero terms cost k M and k-1 A */
typedef struct { double s; int k; } rnAcc;
/* the loops over components and entries are unrolled and their tests of
 * the (per-plan constant) masks become straight-line branches: 1.7x fewer
 * instructions (callgrind, Panda: 9.3k per call, dy_rnea 4.8k) */
#define RN_UNROLL _Pragma("GCC unroll 3")

/* the per-call vectors of the recursion (stack, no allocation) */
typedef struct {
  double cs[DY_MAXJ][2];                /* cos, sin theta_i */
  double dl[DY_MAXJ][6], b[DY_MAXJ][9]; /* delta_i, b_i (row-major) */
  unsigned dm[DY_MAXJ], bm[DY_MAXJ];    /* their masks */
  rnV W[DY_MAXJ], A[DY_MAXJ], AL[DY_MAXJ], T[DY_MAXJ], P[DY_MAXJ];   /* w, a, alpha, t, p_{i,i+1} */
} rnWork;

static inline __attribute__((always_inline)) void DYV_FN(rn_mul)(dyvOps* ops, rnAcc* a, double x, double y) {
  const double p = x*y;
  DYV_OPS(1, a->k);
  a->s = a->k ? a->s + p : p; a->k = 1;
}
static inline __attribute__((always_inline)) void DYV_FN(rn_mulm)(dyvOps* ops, rnAcc* a, double x, double y) {
  const double p = x*y;
  DYV_OPS(1, a->k);
  a->s = a->k ? a->s - p : -p; a->k = 1;
}
static inline __attribute__((always_inline)) void DYV_FN(rn_add)(dyvOps* ops, rnAcc* a, double x) {
  DYV_OPS(0, a->k);
  a->s = a->k ? a->s + x : x; a->k = 1;
}

/* (o1, o2) = (c x - s y, s x + c y) for an angle of class k (1: 0, 2:
 * pi/2, 3: -pi/2, 4: pi, 0: general); mx, my: x, y possibly nonzero;
 * need: bit 0 o1, bit 1 o2. Returns the mask of (o1, o2). */
static inline __attribute__((always_inline)) unsigned DYV_FN(rn_rot2)(dyvOps* ops, double c, double s, int k, double x, int mx, double y, int my,
                                       unsigned need, double* o1, double* o2) {
  switch (k) {
    case DY_TWIST_0: *o1 = x; *o2 = y; return (unsigned)(mx | my << 1);
    case DY_TWIST_PI: *o1 = -x; *o2 = -y; return (unsigned)(mx | my << 1);
    case DY_TWIST_PI2: *o1 = -y; *o2 = x; return (unsigned)(my | mx << 1);
    case DY_TWIST_MPI2: *o1 = y; *o2 = -x; return (unsigned)(my | mx << 1);
  }
  rnAcc a = {0, 0}, b = {0, 0};
  if (need & 1) { if (mx) DYV_FN(rn_mul)(ops, &a, c, x); if (my) DYV_FN(rn_mulm)(ops, &a, s, y); }
  if (need & 2) { if (mx) DYV_FN(rn_mul)(ops, &b, s, x); if (my) DYV_FN(rn_mul)(ops, &b, c, y); }
  *o1 = a.s; *o2 = b.s;
  return (unsigned)(a.k | b.k << 1);
}
/* the inverse rotation: (c x + s y, -s x + c y) */
static inline __attribute__((always_inline)) unsigned DYV_FN(rn_irot2)(dyvOps* ops, double c, double s, int k, double x, int mx, double y, int my,
                                        unsigned need, double* o1, double* o2) {
  return DYV_FN(rn_rot2)(ops, c, -s, k == DY_TWIST_PI2 ? DY_TWIST_MPI2 : k == DY_TWIST_MPI2 ? DY_TWIST_PI2 : k, x, mx, y, my, need, o1, o2);
}

/* o = R^T v = Rz^T Rx^T v, components `need` */
static inline __attribute__((always_inline)) void DYV_FN(rn_rotT)(dyvOps* ops, const dyvRenaud* r, int i, double c, double s, const rnV* v,
                                   unsigned need, rnV* o) {
  double w1, w2;
  const unsigned m = v->m;
  const unsigned mw = DYV_FN(rn_irot2)(ops, r->m->cos_alpha[i], r->m->sin_alpha[i], r->m->twist[i], v->v[1], (m >> 1) & 1, v->v[2],
                                       (m >> 2) & 1, ((need & 3) ? 1 : 0) | ((need & 4) ? 2 : 0), &w1, &w2);
  const unsigned mo = DYV_FN(rn_irot2)(ops, c, s, r->tcls[i], v->v[0], m & 1, w1, mw & 1, need & 3,
                                       &o->v[0], &o->v[1]);
  o->v[2] = w2;
  o->m = (mo & 3) | (mw & 2) << 1;
}

/* o = R v = Rx Rz v, components `need` */
static inline __attribute__((always_inline)) void DYV_FN(rn_rotN)(dyvOps* ops, const dyvRenaud* r, int i, double c, double s, const rnV* v,
                                   unsigned need, rnV* o) {
  double u0, u1;
  const unsigned m = v->m, nu = rn_needU(need, r->m->twist[i]);
  const unsigned mu = DYV_FN(rn_rot2)(ops, c, s, r->tcls[i], v->v[0], m & 1, v->v[1], (m >> 1) & 1,
                                      (nu & 1) | (nu & 2), &u0, &u1);
  const unsigned mo = DYV_FN(rn_rot2)(ops, r->m->cos_alpha[i], r->m->sin_alpha[i], r->m->twist[i], u1, (mu >> 1) & 1, v->v[2],
                                      (m >> 2) & 1, (need >> 1) & 3, &o->v[1], &o->v[2]);
  o->v[0] = u0;
  o->m = (mu & 1) | mo << 1;
}

/* p_{i,i+1} in frame i: (a, -d sa, d ca) of joint i+1, d varying if prismatic */
static inline __attribute__((always_inline)) void DYV_FN(rn_p)(dyvOps* ops, const dyvRenaud* r, int i, const double* q, rnV* p) {
  const int j = i + 1;
  p->v[0] = r->pc[i][0]; p->v[1] = r->pc[i][1]; p->v[2] = r->pc[i][2]; p->m = r->pm[i];
  if (j >= r->n || r->rev[j]) return;
  const double d = r->d0[j] + q[j];
  DYV_OPS(0, 1);
  switch (r->m->twist[j]) {
    case DY_TWIST_0: p->v[2] = d; break;
    case DY_TWIST_PI: p->v[2] = -d; break;
    case DY_TWIST_PI2: p->v[1] = -d; break;
    case DY_TWIST_MPI2: p->v[1] = d; break;
    default: p->v[1] = -d*r->m->sin_alpha[j]; p->v[2] = d*r->m->cos_alpha[j]; DYV_OPS(2, 0);
  }
}

/* step 0 for joint i when joint i+1 is prismatic: u* = u + m* p,
 * k* = k + m* (|p|^2 1 - p p^T), and the differences of its diagonal */
static void DYV_FN(rn_step0)(dyvOps* ops, const dyvRenaud* r, int i, const rnV* p, double u[3], double k[6], double kd[3]) {
  const double ms = r->ms[i + 1];
  memcpy(u, r->u[i], sizeof r->u[i]); memcpy(k, r->k[i], sizeof r->k[i]);
  if (ms == 0) { memcpy(kd, r->kd[i], sizeof r->kd[i]); return; }
  double mp[3] = {0, 0, 0}, pp[6];
  RN_UNROLL for (int c = 0; c < 3; c++)
    if (p->m >> c & 1) { mp[c] = ms*p->v[c]; u[c] += mp[c]; DYV_OPS(1, 1); }
  RN_UNROLL for (int a = 0; a < 3; a++)
    for (int b = a; b < 3; b++) {
      pp[rn_sym[a][b]] = 0;
      if ((p->m >> a & 1) && (p->m >> b & 1)) { pp[rn_sym[a][b]] = mp[a]*p->v[b]; DYV_OPS(1, 0); }
    }
  /* |p|^2 m* 1 - m* p p^T: diagonal xx = m*(p_y^2 + p_z^2), ... */
  static const int oth[3][2] = {{3, 5}, {0, 5}, {0, 3}};
  RN_UNROLL for (int a = 0; a < 3; a++) {
    const int da = rn_sym[a][a], o1 = oth[a][0], o2 = oth[a][1];
    const int b1 = o1 == 0 ? 0 : o1 == 3 ? 1 : 2, b2 = o2 == 0 ? 0 : o2 == 3 ? 1 : 2;
    const int n1 = p->m >> b1 & 1, n2 = p->m >> b2 & 1;
    if (n1) { k[da] += pp[o1]; DYV_OPS(0, 1); }
    if (n2) { k[da] += pp[o2]; DYV_OPS(0, 1); }
  }
  RN_UNROLL for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if ((p->m >> a & 1) && (p->m >> b & 1)) { k[rn_sym[a][b]] -= pp[rn_sym[a][b]]; DYV_OPS(0, 1); }
  kd[0] = k[5] - k[3]; kd[1] = k[0] - k[5]; kd[2] = k[3] - k[0];
  DYV_OPS(0, 3);
}

/* w x (k w) component c from delta (see renaud.h), into acc */
static inline __attribute__((always_inline)) void DYV_FN(rn_wkw)(dyvOps* ops, rnAcc* a, int c, const double k[6], unsigned km, const double kd[3],
                                  unsigned kdm, const double dl[6], unsigned dm) {
  /* c = x: k_xz d_xy - k_xy d_xz + k_yz (d_yy - d_zz) + kd0 d_yz, cyclic */
  static const int T[3][6] = {{2, 1, 1, 2, 4, 3}, {1, 4, 4, 1, 2, 5}, {4, 2, 2, 4, 1, 0}};
  /* T[c]: k index and delta index of the + term, of the - term, k index of
   * the difference term, then the first diagonal of the difference */
  static const int D2[3] = {5, 0, 3};        /* the second diagonal */
  static const int DD[3] = {4, 2, 1};        /* delta of the kd term */
  const int kp = T[c][0], dp = T[c][1], kmn = T[c][2], dmn = T[c][3], kdf = T[c][4], d1 = T[c][5];
  if ((km >> kp & 1) && (dm >> dp & 1)) DYV_FN(rn_mul)(ops, a, k[kp], dl[dp]);
  if ((km >> kmn & 1) && (dm >> dmn & 1)) DYV_FN(rn_mulm)(ops, a, k[kmn], dl[dmn]);
  if (km >> kdf & 1) {
    const int h1 = dm >> d1 & 1, h2 = dm >> D2[c] & 1;
    if (h1 && h2) { DYV_FN(rn_mul)(ops, a, k[kdf], dl[d1] - dl[D2[c]]); DYV_OPS(0, 1); }
    else if (h1) DYV_FN(rn_mul)(ops, a, k[kdf], dl[d1]);
    else if (h2) DYV_FN(rn_mulm)(ops, a, k[kdf], dl[D2[c]]);
  }
  if ((kdm >> c & 1) && (dm >> DD[c] & 1)) DYV_FN(rn_mul)(ops, a, kd[c], dl[DD[c]]);
}

/* (1) (3) (5) (6b): w_i, a_i, t_i and alpha_i (before + b p) of link i from
 * the parent's, rp = r_{i-1} (alpha before joint 1: -g) */
static inline __attribute__((always_inline)) void DYV_FN(rn_rates)(dyvOps* ops, const dyvRenaud* r, rnWork* k, int i,
                                                                   double qdi, double qddi, const rnV* rp) {
  const rnV zero = {{0, 0, 0}, 0};
  const double c = k->cs[i][0], s = k->cs[i][1];
  rnV wr, ar, rr;
  /* (1a) (3a) (6b) */
  DYV_FN(rn_rotT)(ops, r, i, c, s, i ? &k->W[i-1] : &zero, 7, &wr);
  DYV_FN(rn_rotT)(ops, r, i, c, s, i ? &k->A[i-1] : &zero, 7, &ar);
  DYV_FN(rn_rotT)(ops, r, i, c, s, rp, r->alneed[i], &rr);
  k->W[i] = wr; k->A[i] = ar; k->AL[i] = rr; k->T[i].m = 0;
  /* (wr x z) = (wr_y, -wr_x, 0) times qd (3b), 2 qd (5) */
  double h = qdi;
  if (!r->rev[i] && (wr.m & 3)) { h = 2*qdi; DYV_OPS(1, 0); }
  double cx[2] = {0, 0};
  unsigned cm = 0;
  if (wr.m & 2) { cx[0] = h*wr.v[1]; cm |= 1; DYV_OPS(1, 0); }
  if (wr.m & 1) { cx[1] = -h*wr.v[0]; cm |= 2; DYV_OPS(1, 0); }
  if (r->rev[i]) {
    /* (1b) (3b) */
    if (wr.m & 4) DYV_OPS(0, 1);
    k->W[i].v[2] += qdi; k->W[i].m |= 4;
    RN_UNROLL for (int e = 0; e < 2; e++)
      if (cm >> e & 1) { if (ar.m >> e & 1) DYV_OPS(0, 1); k->A[i].v[e] += cx[e]; k->A[i].m |= 1u << e; }
    if (ar.m & 4) DYV_OPS(0, 1);
    k->A[i].v[2] += qddi; k->A[i].m |= 4;
  } else {
    /* (5) (6c) */
    rnV* T = &k->T[i];
    T->v[0] = cx[0]; T->v[1] = cx[1]; T->v[2] = qddi; T->m = cm | 4;
    RN_UNROLL for (int e = 0; e < 3; e++)
      if (T->m >> e & 1) { if (rr.m >> e & 1) DYV_OPS(0, 1); k->AL[i].v[e] += T->v[e]; k->AL[i].m |= 1u << e; }
  }
}

/* (2) delta_i = w_i (x) w_i and (4) b_i = [a_i x] + delta_i - tr(delta_i) 1,
 * the needed entries */
static inline __attribute__((always_inline)) void DYV_FN(rn_delta_b)(dyvOps* ops, const dyvRenaud* r, rnWork* k, int i) {
  const unsigned wm = k->W[i].m, am = k->A[i].m;
  double* dl = k->dl[i];
  k->dm[i] = 0;
  RN_UNROLL for (int a = 0; a < 3; a++)
    RN_UNROLL for (int e = a; e < 3; e++) {
      const int x = rn_sym[a][e];
      if ((r->dneed[i] >> x & 1) && (wm >> a & 1) && (wm >> e & 1)) {
        dl[x] = k->W[i].v[a]*k->W[i].v[e]; k->dm[i] |= 1u << x; DYV_OPS(1, 0);
      }
    }
  k->bm[i] = 0;
  RN_UNROLL for (int col = 0; col < 3; col++) {
    RN_UNROLL for (int row = 0; row < 3; row++) {
      if (!(r->bneed[i] >> (3*row + col) & 1)) continue;
      rnAcc acc = {0, 0};
      if (row == col) {
        RN_UNROLL for (int o = 0; o < 3; o++)
          if (o != row && (k->dm[i] >> rn_sym[o][o] & 1)) DYV_FN(rn_add)(ops, &acc, dl[rn_sym[o][o]]);
        acc.s = -acc.s;
      } else {
        const int x = rn_sym[row][col], o = 3 - row - col;
        if (k->dm[i] >> x & 1) DYV_FN(rn_add)(ops, &acc, dl[x]);
        /* [a x](row, col) = -a_o if (row, col) is (x, y), (y, z), (z, x); else +a_o */
        const int neg = (row + 1) % 3 == col;
        if (am >> o & 1) { if (neg) { DYV_OPS(0, acc.k); acc.s = acc.k ? acc.s - k->A[i].v[o] : -k->A[i].v[o]; acc.k = 1; }
                           else DYV_FN(rn_add)(ops, &acc, k->A[i].v[o]); }
      }
      k->b[i][3*row + col] = acc.s;
      if (acc.k) k->bm[i] |= 1u << (3*row + col);
    }
  }
}

/* (6a) r_i = alpha_i + b_i p_{i,i+1} into rp, p kept in P[i] */
static inline __attribute__((always_inline)) void DYV_FN(rn_r)(dyvOps* ops, const dyvRenaud* r, rnWork* k, int i,
                                                               const double* q, rnV* rp) {
  rnV p;
  DYV_FN(rn_p)(ops, r, i, q, &p);
  k->P[i] = p;
  RN_UNROLL for (int row = 0; row < 3; row++) {
    if (!(r->rneed[i] >> row & 1)) continue;
    rnAcc acc = {0, 0};
    if (k->AL[i].m >> row & 1) acc.s = k->AL[i].v[row], acc.k = 1;
    RN_UNROLL for (int col = 0; col < 3; col++)
      if ((p.m >> col & 1) && (k->bm[i] >> (3*row + col) & 1)) DYV_FN(rn_mul)(ops, &acc, k->b[i][3*row + col], p.v[col]);
    rp->v[row] = acc.s;
    rp->m = (rp->m & ~(1u << row)) | (unsigned)acc.k << row;
  }
}

/* (7a) e_i = R ehat_{i+1} + b_i u*_i and (9a) n_i = R n_{i+1} + k*_i a_i +
 * w_i x (k*_i w_i) + u*_i x alpha_i + p x R ehat_{i+1}, needed components;
 * E, N: R ehat_{i+1}, R n_{i+1} in frame i */
static inline __attribute__((always_inline)) void DYV_FN(rn_e_n)(dyvOps* ops, const dyvRenaud* r, const rnWork* k, int i,
                                                                 const double u[3], const double kk[6], const double kd[3],
                                                                 const rnV* p, const rnV* E, const rnV* N, rnV* e, rnV* nn) {
  const unsigned um = r->um[i], km = r->km[i];
  const rnV *A = &k->A[i], *AL = &k->AL[i];
  if (r->ecomp[i]) {
    RN_UNROLL for (int row = 0; row < 3; row++) {
      if (!(r->ecomp[i] >> row & 1)) continue;
      rnAcc acc = {0, 0};
      if (E->m >> row & 1) acc.s = E->v[row], acc.k = 1;
      RN_UNROLL for (int col = 0; col < 3; col++)
        if ((um >> col & 1) && (k->bm[i] >> (3*row + col) & 1)) DYV_FN(rn_mul)(ops, &acc, k->b[i][3*row + col], u[col]);
      e->v[row] = acc.s; e->m |= (unsigned)acc.k << row;
    }
  }
  RN_UNROLL for (int c = 0; c < 3; c++) {
    if (!(r->ncomp[i] >> c & 1)) continue;
    rnAcc acc = {0, 0};
    if (N->m >> c & 1) acc.s = N->v[c], acc.k = 1;
    RN_UNROLL for (int x = 0; x < 3; x++)                          /* k* a */
      if ((km >> rn_sym[c][x] & 1) && (A->m >> x & 1)) DYV_FN(rn_mul)(ops, &acc, kk[rn_sym[c][x]], A->v[x]);
    DYV_FN(rn_wkw)(ops, &acc, c, kk, km, kd, r->kdm[i], k->dl[i], k->dm[i]);
    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;          /* u* x alpha, p x E */
    if ((um >> c1 & 1) && (AL->m >> c2 & 1)) DYV_FN(rn_mul)(ops, &acc, u[c1], AL->v[c2]);
    if ((um >> c2 & 1) && (AL->m >> c1 & 1)) DYV_FN(rn_mulm)(ops, &acc, u[c2], AL->v[c1]);
    if ((p->m >> c1 & 1) && (E->m >> c2 & 1)) DYV_FN(rn_mul)(ops, &acc, p->v[c1], E->v[c2]);
    if ((p->m >> c2 & 1) && (E->m >> c1 & 1)) DYV_FN(rn_mulm)(ops, &acc, p->v[c2], E->v[c1]);
    nn->v[c] = acc.s; nn->m |= (unsigned)acc.k << c;
  }
}

/* (8) (10) tau_i = z . n_i (revolute) or z . f_i = (e_i + m*_i alpha_i)_z
 * (prismatic, then ehat_i = e_i + m*_i t_i), + the joint terms */
static inline __attribute__((always_inline)) double DYV_FN(rn_tau)(dyvOps* ops, const dyvRenaud* r, const rnWork* k, int i,
                                                                   double qdi, double qddi, rnV* e, const rnV* nn) {
  double t;
  if (r->rev[i]) t = nn->v[2];
  else {
    rnAcc acc = {0, 0};
    if (e->m & 4) acc.s = e->v[2], acc.k = 1;
    if (r->ms[i] != 0 && (k->AL[i].m & 4)) DYV_FN(rn_mul)(ops, &acc, r->ms[i], k->AL[i].v[2]);
    t = acc.s;
    if (r->ms[i] != 0)                     /* ehat_i = e_i + m*_i t_i */
      RN_UNROLL for (int c = 0; c < 3; c++)
        if (k->T[i].m >> c & 1) {
          rnAcc ac2 = {e->v[c], (int)(e->m >> c & 1)};
          DYV_FN(rn_mul)(ops, &ac2, r->ms[i], k->T[i].v[c]);
          e->v[c] = ac2.s; e->m |= 1u << c;
        }
  }
  if (r->fric[i]) {
    const double* pj = r->par + DY_NPAR_LINK*r->n + DY_NPAR_JNT*i;
    const double sg = qdi != 0 ? copysign(1.0, qdi) : 0;
    t += pj[DY_IA]*qddi + pj[DY_FV]*qdi + pj[DY_FC]*sg + pj[DY_FO];
    DYV_OPS(3, 4);
  }
  return t;
}

void DYV_FN(dyv_renaud_rnea)(DYV_OPS_PARAM const dyvRenaud* r, const double* q, const double* qd,
                             const double* qdd, double* tau) {
  DYV_OPS_LOCAL
  const int n = r->n;
  rnWork k;
  rnV rp;
  rp.v[0] = -r->g[0]; rp.v[1] = -r->g[1]; rp.v[2] = -r->g[2];
  rp.m = (r->g[0] != 0) | (r->g[1] != 0) << 1 | (r->g[2] != 0) << 2;
  const rnV zero = {{0, 0, 0}, 0};
  /* sin, cos first: a libm call inside the recursion spills its registers */
  for (int i = 0; i < n; i++) {
    k.cs[i][0] = r->ct0[i]; k.cs[i][1] = r->st0[i];
    if (r->rev[i]) { const double th = r->th0[i] + q[i]; k.cs[i][0] = cos(th); k.cs[i][1] = sin(th); }
  }
  /* forward: (1)-(6) */
  for (int i = 0; i < n; i++) {
    DYV_FN(rn_rates)(ops, r, &k, i, qd ? qd[i] : 0, qdd ? qdd[i] : 0, &rp);
    DYV_FN(rn_delta_b)(ops, r, &k, i);
    if (i + 1 < n) DYV_FN(rn_r)(ops, r, &k, i, q, &rp);
  }
  /* backward: (7)-(10) */
  rnV E = zero, N = zero;                     /* R ehat_{i+1}, R n_{i+1} in frame i */
  for (int i = n - 1; i >= 0; i--) {
    double u[3], kk[6], kd[3];
    const rnV p = i + 1 < n ? k.P[i] : zero;
    if (i + 1 < n && !r->rev[i + 1]) DYV_FN(rn_step0)(ops, r, i, &p, u, kk, kd);
    else { memcpy(u, r->u[i], sizeof u); memcpy(kk, r->k[i], sizeof kk); memcpy(kd, r->kd[i], sizeof kd); }
    rnV e = zero, nn = zero;
    DYV_FN(rn_e_n)(ops, r, &k, i, u, kk, kd, &p, &E, &N, &e, &nn);
    tau[i] = DYV_FN(rn_tau)(ops, r, &k, i, qd ? qd[i] : 0, qdd ? qdd[i] : 0, &e, &nn);
    if (i == 0) break;
    /* (7b) (9b) into frame i-1 */
    if (r->eupc[i]) DYV_FN(rn_rotN)(ops, r, i, k.cs[i][0], k.cs[i][1], &e, r->eupc[i], &E);
    else E = zero;
    if (r->ncomp[i-1]) DYV_FN(rn_rotN)(ops, r, i, k.cs[i][0], k.cs[i][1], &nn, r->ncomp[i-1], &N);
    else N = zero;
  }
}

#ifndef DY_COUNT_OPS
/* plan, per joint: type, geometry, the class and cos, sin of a prismatic
 * joint's constant theta, friction present; m*_i = m_i + ... + m_n */
static void rn_plan_joints(dyvRenaud* r, const dyModel* m, const double* par) {
  const int n = m->n;
  for (int i = 0; i < n; i++) {
    r->rev[i] = m->jnt_type[i] == DY_REVOLUTE;
    r->a[i] = m->dh_a[i]; r->d0[i] = m->dh_d[i]; r->th0[i] = m->dh_theta[i];
    if (!r->rev[i]) r->tcls[i] = dyv_angle_cs(m->dh_theta[i], &r->ct0[i], &r->st0[i]);
    const double* pj = par + DY_NPAR_LINK*n + DY_NPAR_JNT*i;
    r->fric[i] = pj[0] != 0 || pj[1] != 0 || pj[2] != 0 || pj[3] != 0;
  }
  r->ms[n] = 0;
  for (int i = n - 1; i >= 0; i--) r->ms[i] = r->ms[i + 1] + par[DY_NPAR_LINK*i + DY_M];
}

/* plan, body i: p_{i,i+1} = (a, -d sa, d ca) at q = 0 and its mask; step
 * 0 where constant (revolute next joint: u* = u + m* p, k* = k + m* (|p|^2
 * 1 - p p^T)), the diagonal differences, their masks, widened where step
 * 0 runs at each call (prismatic next joint) */
static void rn_plan_body(dyvRenaud* r, const double* par, int i) {
  const int n = r->n;
  const double* L = par + DY_NPAR_LINK*i;
  double* p = r->pc[i];
  if (i + 1 < n) {
    const int j = i + 1, pr = !r->rev[j];
    double ca, sa;
    const dyTwist tw = dyv_twist_cs(r->m, j, &ca, &sa);
    p[0] = r->a[j]; p[1] = -r->d0[j]*sa; p[2] = r->d0[j]*ca;
    const int sz = tw == DY_TWIST_0 || tw == DY_TWIST_PI, cz = tw == DY_TWIST_PI2 || tw == DY_TWIST_MPI2;
    r->pm[i] = (p[0] != 0) | (unsigned)((pr || r->d0[j] != 0) && !sz) << 1 | (unsigned)((pr || r->d0[j] != 0) && !cz) << 2;
  }
  const double ms = i + 1 < n && r->rev[i + 1] ? r->ms[i + 1] : 0;
  const double k0[6] = {L[DY_XX], L[DY_XY], L[DY_XZ], L[DY_YY], L[DY_YZ], L[DY_ZZ]};
  RN_UNROLL for (int c = 0; c < 3; c++) r->u[i][c] = L[DY_MX + c] + ms*p[c];
  memcpy(r->k[i], k0, sizeof k0);
  r->k[i][0] += ms*(p[1]*p[1] + p[2]*p[2]); r->k[i][3] += ms*(p[0]*p[0] + p[2]*p[2]);
  r->k[i][5] += ms*(p[0]*p[0] + p[1]*p[1]);
  r->k[i][1] -= ms*p[0]*p[1]; r->k[i][2] -= ms*p[0]*p[2]; r->k[i][4] -= ms*p[1]*p[2];
  const double* k = r->k[i];
  r->kd[i][0] = k[5] - k[3]; r->kd[i][1] = k[0] - k[5]; r->kd[i][2] = k[3] - k[0];
  RN_UNROLL for (int c = 0; c < 3; c++) r->um[i] |= (unsigned)(r->u[i][c] != 0) << c;
  RN_UNROLL for (int c = 0; c < 6; c++) r->km[i] |= (unsigned)(k[c] != 0) << c;
  RN_UNROLL for (int c = 0; c < 3; c++) r->kdm[i] |= (unsigned)(r->kd[i][c] != 0) << c;
  if (i + 1 < n && !r->rev[i + 1] && r->ms[i + 1] != 0) {   /* step 0 at run time */
    const unsigned pm = r->pm[i];
    r->um[i] |= pm;
    /* diagonal: any other component of p; off-diagonal: both */
    RN_UNROLL for (int a = 0; a < 3; a++)
      for (int b = a; b < 3; b++)
        if (a == b ? (pm & ~(1u << a)) != 0 : (pm >> a & 1) && (pm >> b & 1)) r->km[i] |= 1u << rn_sym[a][b];
    r->kdm[i] = 7;
  }
}

/* plan, needs: from the base up the components of n_i, of R ehat_i (frame
 * i-1: p x E in n_{i-1} and e_{i-1}) and of e_i; from the tip down those of
 * alpha_i and of r_i = alpha_i + b_i p */
static void rn_plan_needs(dyvRenaud* r) {
  const int n = r->n;
  const dyTwist* tw = r->m->twist;
  for (int i = 0; i < n; i++) {
    r->ncomp[i] = (r->rev[i] ? 4u : 0u) | (i ? rn_needN(r->ncomp[i-1], tw[i]) : 0u);
    unsigned eu = 0;
    if (i) {
      eu = r->ecomp[i-1];
      RN_UNROLL for (int c = 0; c < 3; c++)
        RN_UNROLL for (int k = 0; k < 3; k++)
          if (k != c && (r->ncomp[i-1] >> c & 1) && (r->pm[i-1] >> (3 - c - k) & 1)) eu |= 1u << k;
    }
    r->eupc[i] = eu;
    r->ecomp[i] = rn_needN(eu, tw[i]) | (r->rev[i] ? 0u : 4u);
  }
  for (int i = n - 1; i >= 0; i--) {
    unsigned al = !r->rev[i] && r->ms[i] != 0 ? 4u : 0u;
    RN_UNROLL for (int c = 0; c < 3; c++)
      if (r->ncomp[i] >> c & 1) {
        const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        if (r->um[i] >> c1 & 1) al |= 1u << c2;
        if (r->um[i] >> c2 & 1) al |= 1u << c1;
      }
    r->rneed[i] = i + 1 < n ? rn_needT(r->alneed[i + 1], tw[i + 1]) : 0u;
    r->alneed[i] = al | r->rneed[i];
  }
}

/* plan, entries of body i: the columns of b_i that meet u*_i or p_{i,i+1},
 * and the entries of delta_i they and w x (k* w) (as rn_wkw) read */
static void rn_plan_entries(dyvRenaud* r, int i) {
  static const int diag[3] = {0, 3, 5};
  static const int T[3][6] = {{2, 1, 1, 2, 4, 3}, {1, 4, 4, 1, 2, 5}, {4, 2, 2, 4, 1, 0}};
  static const int D2[3] = {5, 0, 3}, DD[3] = {4, 2, 1};
  unsigned bn = 0, d = 0;
  RN_UNROLL for (int row = 0; row < 3; row++)
    RN_UNROLL for (int col = 0; col < 3; col++)
      if (((r->um[i] >> col & 1) && (r->ecomp[i] >> row & 1)) ||
          (i + 1 < r->n && (r->pm[i] >> col & 1) && (r->rneed[i] >> row & 1))) bn |= 1u << (3*row + col);
  r->bneed[i] = bn;
  RN_UNROLL for (int row = 0; row < 3; row++)
    RN_UNROLL for (int col = 0; col < 3; col++) {
      if (!(bn >> (3*row + col) & 1)) continue;
      if (row == col) { for (int o = 0; o < 3; o++) if (o != row) d |= 1u << diag[o]; }
      else d |= 1u << rn_sym[row][col];
    }
  RN_UNROLL for (int c = 0; c < 3; c++) {
    if (!(r->ncomp[i] >> c & 1)) continue;
    if (r->km[i] >> T[c][0] & 1) d |= 1u << T[c][1];
    if (r->km[i] >> T[c][2] & 1) d |= 1u << T[c][3];
    if (r->km[i] >> T[c][4] & 1) d |= 1u << T[c][5] | 1u << D2[c];
    if (r->kdm[i] >> c & 1) d |= 1u << DD[c];
  }
  r->dneed[i] = d;
}

/* the plan: augmented-body parameters (step 0 where constant), masks and
 * the needed entries */
void dyv_renaud_make(dyvRenaud* r, const dyModel* m, const double* par) {
  const int n = m->n;
  memset(r, 0, sizeof *r);
  r->m = m;
  r->n = n;
  memcpy(r->par, par, sizeof(double) * (size_t)dy_npar(m));
  memcpy(r->g, m->gravity, sizeof r->g);
  rn_plan_joints(r, m, par);
  for (int i = 0; i < n; i++) rn_plan_body(r, par, i);
  rn_plan_needs(r);
  for (int i = 0; i < n; i++) rn_plan_entries(r, i);
}
#endif
