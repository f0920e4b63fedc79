/* SPDX-License-Identifier: MIT */
/* dynid verify: Lin & Fang's Formulations 1-5 of the inertia matrix on
 * Lin's minimal linear combinations ([LinFang99]). See lin_inertia.h.
 *
 * Indices are 0-based: joint i, frame i (Lin's joint/frame i+1); "R_i" is
 * the rotation from frame i to frame i-1, Rx(alpha_i) Rz(theta_i).
 *
 * Derivations used where the OCR of the paper is unreadable (all checked
 * against the composite-rigid-body algorithm by tests/test_lin.c):
 *  - (V_i^<r>)_33 through a prismatic joint i+1 < s (eq. 40), w = u_r^<i+1>:
 *      v_i = v_{i+1} + d {2 kappa2 + (1 - w_z^2)(mhat d + 2 l_z)
 *                         - 2 w_z w_x l_x - 2 w_z w_y l_y} + (b-term)
 *    (from w^T (-mhat [d x]^2 - [d x][c x] - [c x][d x]) w with c = k + l);
 *  - the b-term of joint i < s: 2 b {(1 - u_x^2) l_x - u_x u_y l_y
 *    - u_x u_z l_z}, u = u_r^<i> (reduces to 2 b l_x for revolute i);
 *  - eq. (30), the moment about u_r carried from frame j+1 to frame j for
 *    i < s:  tr_{j,i} = tr_{j+1,i} + f_{j,i} . (u_r^<j> x s_{j+1}^<j>),
 *    and D_ji = (u_r^<j>)_z tr_{j,i} for revolute j (eq. 31);
 *  - the tip (i = n-1: l = 0, V = 0) and the last step to a revolute joint
 *    r (only (t_{r,i})_z is used, so f_{r,i} is not formed when r is joint
 *    0) are specialised; these are where the counts fall below Table VIII
 *    on a general geometry. So are the exact twists alpha = 0, +-pi/2, pi
 *    (special twist classes: Rx is copies and sign changes), a_j = 0 and d_j = 0
 *    of a revolute joint (their terms are skipped): on the PUMA 560 and the
 *    Panda the counts are then about half of Table VIII's.
 *
 * H does not depend on q_1 (only R_j, d_j of joints j >= 1 enter), so
 * joint 0's variable is never read: its sin/cos are not computed.
 *
 * Values of Theorem 1 constants that the set does not hold (delta_i = 0,
 * U_i of a prismatic joint, k_i of a prismatic joint r < i < s) are zero
 * in the slots; the formulations never need them (the tests prove it).   */
#include "verify/lin_inertia.h"
#include "core/lin_const.h"
#include "verify/kernels.h"
#include "core/io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operation counting: this file is compiled twice (verify/kernels.h): as
 * itself and with DY_COUNT_OPS, which gives the arithmetic paths (the
 * steps, composite, the column functions, dyv_lin_inertia1..5) the suffix
 * _ops and turns OPS(M, A) into additions to the counters of the dyvLin
 * object (L->ops). The counting rules are those of verify/kernels.h;
 * products of two constants of the model (2 a_j, 2 sin(alpha), u_r terms)
 * are formed once in dyv_lin_make, as the paper assumes. A product with a
 * geometric constant that is exactly 0 or +-1 (a special twist, a_j = 0,
 * d_j = 0 of a revolute joint) is not executed, so not counted. The
 * counting build dispatches on the twist class only (BY_KIND is BY_CLASS
 * there: a_j = 0 and d_j = 0 are tested at run time instead of compiled
 * into each step): the same operations in the same order, so the same H
 * bit for bit, with half the code. */
#define OPS(mm, aa) DYV_OPS_AT(&L->ops, mm, aa)
#define LFN(name) DYV_FN(name)

/* the steps are inlined into each caller so that their constant arguments
 * (twist class, known zeros) specialise them */
#define INL DYV_INL

/* the twist class of joint record p (the model's, in its kind code) */
#define LIN_TWIST(p) DYV_KIND_TWIST((p)->kind)
/* CALL(k, 0) with the twist class of joint record p as the constant k;
 * a_j = 0 and d_j = 0 read from p at run time (cold paths) */
#define BY_CLASS(p, CALL) DYV_BY_TWIST(LIN_TWIST(p), CALL)
/* CALL(k, bits) with a_j = 0 and d_j = 0 as constants too (hot paths):
 * p->kind = DYV_KIND(twist, 4 + 2 az + dz), one jump table */
#define LIN_K4_(X, CALL, k) X(k, 4, CALL) X(k, 5, CALL) X(k, 6, CALL) X(k, 7, CALL)
#define LIN_KINDS(X, CALL) LIN_K4_(X, CALL, DY_TWIST_GENERAL) LIN_K4_(X, CALL, DY_TWIST_0) \
  LIN_K4_(X, CALL, DY_TWIST_PI2) LIN_K4_(X, CALL, DY_TWIST_MPI2) LIN_K4_(X, CALL, DY_TWIST_PI)
#ifdef DY_COUNT_OPS
#define BY_KIND(p, CALL) BY_CLASS(p, CALL)
#else
#define BY_KIND(p, CALL) DYV_DISPATCH((p)->kind, LIN_KINDS, CALL, (void)0)
#endif
/* a_j = 0, d_j = 0 of the kind bits b: 0 or 1 when compiled in (bit 2
 * set), -1: read from the joint record */
#define KAZ(b) ((b) & 4 ? (b) >> 1 & 1 : -1)
#define KDZ(b) ((b) & 4 ? (b) & 1 : -1)
/* a_j = 0, d_j = 0 of joint p as given (0, 1) or read from p (-1) */
#define AZ(p, az) ((az) >= 0 ? (az) : (p)->az)
#define DZ(p, dz) ((dz) >= 0 ? (dz) : (p)->dz)
/* cos, sin alpha of joint p: the model's, read by the general-twist code only */
#define CA(p) (L->m->cos_alpha[(p)->j])
#define SA(p) (L->m->sin_alpha[(p)->j])

enum { S_U1122, S_U12, S_U13, S_U23, S_U33, S_KX, S_KY, S_KZ, S_MHAT, S_KAP1,
       S_KAP2, S_IA, NSLOT };

/* known zeros of the carried f, t at the first step of Table I (from f_ii,
 * t_ii): F2Z f_z = 0 (revolute i); PF f_x = f_y = 0 and t_z = 0 (prismatic
 * i). NOF: f_{j,i} is not needed (the step to a revolute joint r = 0). */
enum { ST_F2Z = 1, ST_PF = 2, ST_NOF = 4 };

/* joint j: geometry and joint variable in one record, so that one pointer
 * serves the loads of a step */
typedef struct {
  double ct, st, d;          /* cos, sin theta_j, d_j: the joint variable's per call (gather) */
  double sa2;                /* 2 sin alpha_j (exact for the special twists) */
  double a, a2, aca, asa;    /* a_j, 2 a_j, a_j cos alpha_j, a_j sin alpha_j */
  double d2;                 /* 2 d_j (revolute j) */
  double dsa, dca;           /* d_j sin alpha_j, d_j cos alpha_j (revolute j; Formulations 3, 5) */
  double sst, sct;           /* sin alpha_j sin theta_j, sin alpha_j cos theta_j: entries of R_j
                              * (general twists only) */
  int j;                     /* the joint's index in the model (CA, SA) */
  int rev;                   /* revolute */
  int az, dz;                /* a_j = 0; revolute with d_j = 0: their terms are skipped */
  int kind;                  /* DYV_KIND(twist class, 4 + 2 az + dz) (BY_KIND) */
} linJoint;

/* composite body j (links j..n-1): its MLC slots and the quantities of
 * Table VII, one record per joint */
typedef struct {
  double sl[NSLOT];          /* MLC values of joint j (0: not held) */
  double c[3], J[3];         /* chat_j; Jhat_j e_z (xz yz zz) */
  double l[3], V[6];         /* varying parts l_j, V_j (xx yy zz xy xz yz) */
  double v, tr;              /* (V_j^<r>)_33, (t_jj^<r>)_z (r <= j < s) */
  double h[3];               /* Formulation 5: h_j, its first moment about O_{j-1}, frame j-1 */
} linBody;

struct dyvLin_ {
  const dyModel* m;              /* the model (twist constants) */
  int n, r, s, nb, nlin;
  linJoint jr[DY_MAXJ];
  linBody bd[DY_MAXJ];           /* scratch */
  double d0[DY_MAXJ], th0[DY_MAXJ];
  double ur[3*DY_MAXJ];          /* u_r^<i>, r <= i < s */
  double sgn[DY_MAXJ];           /* (u_r^<i>)_z = +-1 for revolute r <= i < s */
  int delta[DY_MAXJ];            /* delta_i of Theorem 1 */
  double wz1[DY_MAXJ], wzx2[DY_MAXJ], wzy2[DY_MAXJ];   /* 1-wz^2, 2 wz wx, 2 wz wy */
  double wx1[DY_MAXJ], wxy[DY_MAXJ], wxz[DY_MAXJ];     /* 1-wx^2, wx wy, wx wz */
  double uxb[3*DY_MAXJ], uxd[3*DY_MAXJ];  /* u_r^<j> x (a_{j+1},0,0), u_r^<j> x R_{j+1} e_z */
  double urs[3];                 /* u_r^<s>: (39), constant part */
  double urs_p;                  /* (u_r^<s-1>)_y cos alpha_s + (u_r^<s-1>)_z sin alpha_s */
  double urs_z2, urs_zz;         /* 2 (u_r^<s>)_z, (u_r^<s>)_z^2 */
  int* kind;                     /* slot of each lin MLC, -1: none (nlin) */
  int* jnt;                      /* its joint (nlin) */
  double* T;                     /* beta_lin = T beta (nlin x nb), NULL: identity */
  /* scratch */
  double* blin;                  /* (nlin) */
  double* uj;                    /* Formulation 2: u_j^<k> for j < k, current k (3n) */
  double* sj;                    /* O_j -> O_k in frame k, current k (3n) */
  double W[9*DY_MAXJ];           /* Formulation 4: frame i -> frame n-1 rotation, by columns */
  double sN[3*DY_MAXJ];          /* Formulation 4: O_i -> O_{i+1} in frame n-1 */
  double* beta_seen;             /* the beta the slots hold (nb), valid if beta_ok */
  int beta_ok;
  dyvOps ops;                    /* the counters of the counting variants */
};

#ifndef DY_COUNT_OPS
/* the slot of a lin base parameter's kind (base.h dyiLinKind), -1: none */
static int slot_of(int kind) {
  switch (kind) {
    case DYI_LIN_U1122: return S_U1122;
    case DYI_LIN_U12: return S_U12;
    case DYI_LIN_U13: return S_U13;
    case DYI_LIN_U23: return S_U23;
    case DYI_LIN_U33: return S_U33;
    case DYI_LIN_KX: return S_KX;
    case DYI_LIN_KY: return S_KY;
    case DYI_LIN_KZ: return S_KZ;
    case DYI_LIN_MHAT: return S_MHAT;
    case DYI_LIN_KAP1: return S_KAP1;
    case DYI_LIN_KAP2: return S_KAP2;
    case DYI_LIN_IA: return S_IA;
    default: return -1;
  }
}

/* the slot and joint of each of Lin's MLCs, and T = B_lin P_b mapping the
 * set b's beta to Lin's (lin: Lin's own set for b's model, NULL if b is
 * Lin's); the scratch. 0, or -1 out of memory. */
static int lin_slots(dyvLin* L, const dyiBase* b, const dyiBase* lin) {
  const dyiBase* bl = lin ? lin : b;
  const int n = L->n;
  L->kind = malloc(sizeof(int) * (size_t)(bl->nb + 1));
  L->jnt = malloc(sizeof(int) * (size_t)(bl->nb + 1));
  L->blin = malloc(sizeof(double) * (size_t)(bl->nb + 1));
  L->uj = malloc(sizeof(double) * 3 * (size_t)(n + 1));
  L->sj = malloc(sizeof(double) * 3 * (size_t)(n + 1));
  L->beta_seen = malloc(sizeof(double) * (size_t)(b->nb + 1));
  if (!L->kind || !L->jnt || !L->blin || !L->uj || !L->sj || !L->beta_seen) return -1;
  for (int i = 0; i < bl->nb; i++) {
    L->kind[i] = slot_of(bl->lin_kind[i]);
    L->jnt[i] = bl->lin_joint[i];
    if (L->kind[i] >= 0 && (L->jnt[i] < 0 || L->jnt[i] >= n)) L->kind[i] = -1;
  }
  if (!lin) return 0;
  L->T = malloc(sizeof(double) * (size_t)lin->nb * (size_t)(b->nb ? b->nb : 1));
  if (!L->T) return -1;
  for (int i = 0; i < lin->nb; i++)
    for (int c = 0; c < b->nb; c++) {
      double s = 0;
      for (int k = 0; k < b->npar; k++) s += lin->B[(size_t)i*lin->npar + k] * b->P[(size_t)k*b->nb + c];
      L->T[(size_t)i*b->nb + c] = s;
    }
  return 0;
}

/* the joint records: geometry constants and the products the paper takes
 * as formed once (2 a, a cos alpha, ...; exact for the special twists); the
 * fixed coordinate of each joint (theta of a prismatic, d of a revolute
 * joint) is set here once */
static void lin_joints(dyvLin* L, const dyModel* m) {
  for (int j = 0; j < m->n; j++) {
    linJoint* p = L->jr + j;
    double ca, sa;
    const dyTwist tw = dyv_twist_cs(m, j, &ca, &sa);
    p->j = j;
    p->rev = m->jnt_type[j] == DY_REVOLUTE;
    p->sa2 = 2*sa;
    p->a = m->dh_a[j]; p->a2 = 2*m->dh_a[j];
    p->aca = p->a*ca; p->asa = p->a*sa;
    p->az = p->a == 0;
    L->d0[j] = m->dh_d[j]; L->th0[j] = m->dh_theta[j];
    p->ct = cos(m->dh_theta[j]); p->st = sin(m->dh_theta[j]);
    p->sst = sa*p->st; p->sct = sa*p->ct;
    p->d = m->dh_d[j]; p->d2 = 2*m->dh_d[j]; p->dsa = m->dh_d[j]*sa; p->dca = m->dh_d[j]*ca;
    p->dz = p->rev && p->d == 0;
    p->kind = DYV_KIND(tw, 4 + 2*p->az + p->dz);
  }
}

/* the constants of u_r, the axis of the first revolute joint r, in the
 * frames r..s-1 (eqs. 29-31, 39, 40) and at s */
static void lin_axis_r(dyvLin* L, const dyModel* m, const dyLinGeom* g) {
  const int n = m->n;
  memcpy(L->ur, g->ur, sizeof L->ur);
  memcpy(L->delta, g->delta, sizeof L->delta);
  for (int j = g->r; j < g->s; j++) {
    const double* w = g->ur + 3*j;
    L->sgn[j] = w[2] > 0 ? 1 : -1;
    L->wz1[j] = 1 - w[2]*w[2]; L->wzx2[j] = 2*w[2]*w[0]; L->wzy2[j] = 2*w[2]*w[1];
    L->wx1[j] = 1 - w[0]*w[0]; L->wxy[j] = w[0]*w[1]; L->wxz[j] = w[0]*w[2];
    if (j + 1 < n) {
      const linJoint* p = L->jr + j + 1;
      double ca, sa;
      dyv_twist_cs(m, j + 1, &ca, &sa);
      double sb[3] = {m->dh_a[j+1], 0, 0}, ez[3] = {0, -sa, ca};
      double* ub = L->uxb + 3*j;
      double* ud = L->uxd + 3*j;
      ub[0] = w[1]*sb[2] - w[2]*sb[1]; ub[1] = w[2]*sb[0] - w[0]*sb[2]; ub[2] = w[0]*sb[1] - w[1]*sb[0];
      ud[0] = w[1]*ez[2] - w[2]*ez[1]; ud[1] = w[2]*ez[0] - w[0]*ez[2]; ud[2] = w[0]*ez[1] - w[1]*ez[0];
      if (p->rev)        /* s constant: fold d in */
        for (int k = 0; k < 3; k++) { ub[k] += m->dh_d[j+1]*ud[k]; ud[k] = 0; }
    }
  }
  if (g->s < n && g->s > g->r) {
    const double* w = g->ur + 3*(g->s - 1);
    double ca, sa;
    dyv_twist_cs(m, g->s, &ca, &sa);
    L->urs_p = w[1]*ca + w[2]*sa;
    L->urs[0] = w[0]; L->urs[1] = 0;
    L->urs[2] = -w[1]*sa + w[2]*ca;
    L->urs_z2 = 2*L->urs[2]; L->urs_zz = L->urs[2]*L->urs[2];
  }
}

dyvLin* dyv_lin_make(const dyModel* m, const dyiBase* b, char* err, int errsz) {
  dyiBase* lin = NULL;
  if (b->set != DYI_SET_LIN) {
    lin = dyi_base_lin(m, b->friction, err, errsz);
    if (!lin) return NULL;
  }
  dyvLin* L = calloc(1, sizeof *L);
  if (L) { L->m = m; L->n = m->n; L->nb = b->nb; L->nlin = (lin ? lin : b)->nb; }
  if (!L || lin_slots(L, b, lin)) {
    dyi_base_free(lin);
    dyv_lin_free(L);
    snprintf(err, (size_t)errsz, "lin: out of memory");
    return NULL;
  }
  dyi_base_free(lin);
  dyLinGeom g;
  dy_lin_geom(m, &g);
  L->r = g.r; L->s = g.s;
  lin_joints(L, m);
  lin_axis_r(L, m, &g);
  return L;
}

void dyv_lin_free(dyvLin* L) {
  if (!L) return;
  free(L->kind); free(L->jnt); free(L->T); free(L->blin); free(L->uj); free(L->sj);
  free(L->beta_seen);
  free(L);
}

void dyv_lin_ops(dyvLin* L, long* mul, long* add, int reset) {
  *mul = L->ops.mul; *add = L->ops.add;
  if (reset) L->ops.mul = L->ops.add = 0;
}
#endif /* DY_COUNT_OPS */

/* MLC values into per-joint slots; joint variables */
static void gather(dyvLin* L, const double* beta, const double* q) {
  int n = L->n;
  const double* bl = beta;
  /* the slots depend on beta only: refill them when it changed (callers
   * evaluate one parameter vector along many configurations) */
  if (L->beta_ok && !memcmp(L->beta_seen, beta, sizeof(double) * (size_t)L->nb)) goto joints;
  if (L->beta_seen) { memcpy(L->beta_seen, beta, sizeof(double) * (size_t)L->nb); L->beta_ok = 1; }
  if (L->T) {
    for (int i = 0; i < L->nlin; i++) {
      double s = 0;
      for (int c = 0; c < L->nb; c++) s += L->T[(size_t)i*L->nb + c] * beta[c];
      L->blin[i] = s;
    }
    bl = L->blin;
  }
  for (int j = 0; j < n; j++) memset(L->bd[j].sl, 0, sizeof L->bd[j].sl);
  for (int i = 0; i < L->nlin; i++)
    if (L->kind[i] >= 0) L->bd[L->jnt[i]].sl[L->kind[i]] = bl[i];
joints:
  /* joint 0 is skipped: H does not depend on q_1 (only R_j, d_j of j >= 1
   * are read); a prismatic joint's cos, sin theta are constants */
  for (int j = 1; j < n; j++) {
    linJoint* p = L->jr + j;
    if (p->rev) {
      double th = L->th0[j] + q[j];
      p->ct = cos(th); p->st = sin(th);
      if (LIN_TWIST(p) == DY_TWIST_GENERAL) {   /* R_j's entries, with its sin/cos */
        p->sst = SA(p)*p->st; p->sct = SA(p)*p->ct;
      }
    } else p->d = L->d0[j] + q[j];
  }
}

/* D_ii from the composite quantities (+ armature, not counted: outside
 * Lin's model) */
static inline double diag(const dyvLin* L, int i) {
  const linBody* b = L->bd + i;
  double h = L->jr[i].rev ? b->J[2] : b->sl[S_MHAT];
  return h + b->sl[S_IA];
}


/* (o1, o2) = Rx(alpha) (u1, u2) = (ca u1 - sa u2, sa u1 + ca u2) for the
 * twist class cls (special: copies and sign changes); z1, z2 (0 or 1): u1, u2
 * are known to be 0. Returns which outputs are then known to be 0 (bit 0:
 * o1, bit 1: o2). */
INL int LFN(rx)(dyvLin* L, const linJoint* p, int cls, int z1, int z2,
                double u1, double u2, double* o1, double* o2) {
  (void)L;
  switch (cls) {
    case DY_TWIST_0: *o1 = u1; *o2 = u2; return z1 | z2 << 1;
    case DY_TWIST_PI2: *o1 = -u2; *o2 = u1; return z2 | z1 << 1;
    case DY_TWIST_MPI2: *o1 = u2; *o2 = -u1; return z2 | z1 << 1;
    case DY_TWIST_PI: *o1 = -u1; *o2 = -u2; return z1 | z2 << 1;
    default:
      if (z1 && z2) { *o1 = 0; *o2 = 0; return 3; }
      if (z2) { *o1 = CA(p)*u1; *o2 = SA(p)*u1; OPS(2, 0); }
      else if (z1) { *o1 = -SA(p)*u2; *o2 = CA(p)*u2; OPS(2, 0); }
      else { *o1 = CA(p)*u1 - SA(p)*u2; *o2 = SA(p)*u1 + CA(p)*u2; OPS(4, 2); }
      return 0;
  }
}

/* (o1, o2) = Rx(alpha)^T (v1, v2) = (ca v1 + sa v2, -sa v1 + ca v2) */
INL void LFN(rxT)(dyvLin* L, const linJoint* p, int cls, double v1, double v2,
                  double* o1, double* o2) {
  (void)L;
  switch (cls) {
    case DY_TWIST_0: *o1 = v1; *o2 = v2; break;
    case DY_TWIST_PI2: *o1 = v2; *o2 = -v1; break;
    case DY_TWIST_MPI2: *o1 = -v2; *o2 = v1; break;
    case DY_TWIST_PI: *o1 = -v1; *o2 = -v2; break;
    default: *o1 = CA(p)*v1 + SA(p)*v2; *o2 = -SA(p)*v1 + CA(p)*v2; OPS(4, 2);
  }
}

/* f <- R f, R = Rx(alpha) Rz(theta) of joint p; fl: known zeros of f
 * (ST_F2Z, ST_PF). Returns the known zeros of the new (f_y, f_z) as rx. */
INL int LFN(rotf)(dyvLin* L, const linJoint* p, int cls, int fl, double f[3]) {
  const int pf = (fl & ST_PF) != 0, f2z = (fl & ST_F2Z) != 0;
  double g0 = 0, g1 = 0;
  if (!pf) { g0 = p->ct*f[0] - p->st*f[1]; g1 = p->st*f[0] + p->ct*f[1]; OPS(4, 2); }
  f[0] = g0;
  return LFN(rx)(L, p, cls, pf, f2z, g1, f[2], &f[1], &f[2]);
}
INL void LFN(rotf_any)(dyvLin* L, const linJoint* p, int fl, double f[3]) {
#define ROTF_(k, b_) LFN(rotf)(L, p, k, fl, f)
  BY_CLASS(p, ROTF_)
#undef ROTF_
}

/* Table I for i >= s, from frame j+1 (joint p) to frame j > r:
 *   f_{j,i} = R f_{j+1,i},
 *   t_{j,i} = R (t_{j+1,i} + d e_z x f_{j+1,i}) + a e_x x f_{j,i}  (eq. 18) */
INL void LFN(f1_full)(dyvLin* L, const linJoint* p, int cls, int az, int dz, int fl,
                      double f[3], double t[3]) {
  const int pf = (fl & ST_PF) != 0;
  double ux = t[0], uy = t[1], tz = t[2];
  if (!pf && !DZ(p, dz)) { ux = t[0] - p->d*f[1]; uy = t[1] + p->d*f[0]; OPS(2, 2); }
  int fz = LFN(rotf)(L, p, cls, fl, f);
  double h1 = p->st*ux + p->ct*uy;
  t[0] = p->ct*ux - p->st*uy;
  OPS(4, 2);
  LFN(rx)(L, p, cls, 0, pf, h1, tz, &t[1], &t[2]);
  if (!AZ(p, az)) {             /* a e_x x f = (0, -a f_z, a f_y) */
    if (!(fz & 2)) { t[1] -= p->a*f[2]; OPS(1, 1); }
    if (!(fz & 1)) { t[2] += p->a*f[1]; OPS(1, 1); }
  }
}
INL void LFN(f1_full_any)(dyvLin* L, const linJoint* p, int fl, int hot, double f[3], double t[3]) {
#define FULL_(k, b_) LFN(f1_full)(L, p, k, KAZ(b_), KDZ(b_), fl, f, t)
  if (hot) { BY_KIND(p, FULL_) } else { BY_CLASS(p, FULL_) }
#undef FULL_
}

/* the step to the revolute joint r (joint p = r+1): only (t_{r,i})_z is
 * used (no moment below joint r): (R u)_z + a (f_{r,i})_y with
 * u = t_{r+1,i} + d e_z x f_{r+1,i}; (R u)_z = u_z for alpha 0, pi.
 * f_{r,i} is formed unless ST_NOF. */
INL void LFN(f1_last)(dyvLin* L, const linJoint* p, int cls, int az, int dz, int fl,
                      double f[3], double t[3]) {
  const int pf = (fl & ST_PF) != 0, f2z = (fl & ST_F2Z) != 0;
  double tz;
  if (cls == DY_TWIST_0) tz = t[2];
  else if (cls == DY_TWIST_PI) tz = -t[2];
  else {
    double ux = t[0], uy = t[1];
    if (!pf && !DZ(p, dz)) { ux = t[0] - p->d*f[1]; uy = t[1] + p->d*f[0]; OPS(2, 2); }
    double h1 = p->st*ux + p->ct*uy;
    OPS(2, 1);
    if (cls == DY_TWIST_PI2) tz = h1;
    else if (cls == DY_TWIST_MPI2) tz = -h1;
    else if (pf) { tz = SA(p)*h1; OPS(1, 0); }
    else { tz = SA(p)*h1 + CA(p)*t[2]; OPS(2, 1); }
  }
  if (!(fl & ST_NOF)) {
    int fz = LFN(rotf)(L, p, cls, fl, f);
    if (!AZ(p, az) && !(fz & 1)) { tz += p->a*f[1]; OPS(1, 1); }
  } else if (!AZ(p, az)) {
    /* a (R f)_y = a (ca g - sa f_z), g = s f_x + c f_y, f not formed */
    double g = 0;
    if (!pf && cls != DY_TWIST_PI2 && cls != DY_TWIST_MPI2) { g = p->st*f[0] + p->ct*f[1]; OPS(2, 1); }
    switch (cls) {
      case DY_TWIST_0: if (!pf) { tz += p->a*g; OPS(1, 1); } break;
      case DY_TWIST_PI: if (!pf) { tz -= p->a*g; OPS(1, 1); } break;
      case DY_TWIST_PI2: if (!f2z) { tz -= p->a*f[2]; OPS(1, 1); } break;
      case DY_TWIST_MPI2: if (!f2z) { tz += p->a*f[2]; OPS(1, 1); } break;
      default:
        if (!pf) { tz += p->aca*g; OPS(1, 1); }
        if (!f2z) { tz -= p->asa*f[2]; OPS(1, 1); }
    }
  }
  t[2] = tz;
}
INL void LFN(f1_last_any)(dyvLin* L, const linJoint* p, int fl, int hot, double f[3], double t[3]) {
#define LAST_(k, b_) LFN(f1_last)(L, p, k, KAZ(b_), KDZ(b_), fl, f, t)
  if (hot) { BY_KIND(p, LAST_) } else { BY_CLASS(p, LAST_) }
#undef LAST_
}

/* Y = R X R^T, R = Rx(alpha) Rz(theta), X and Y symmetric in this file's
 * order (11 22 33 12 13 23), by the shared kernel (eqs. 41-54); z22: X22 =
 * 0; 2 sin(alpha) is a model constant (p->sa2), not counted */
INL void LFN(sim)(dyvLin* L, const linJoint* p, int cls, int z22, double X11, double X22, double X33,
                  double X12, double X13, double X23, double Y[6]) {
  const double X6[6] = {X11, X12, X13, X22, X23, X33};
  double o[6];
  dyv_rot_sym(&L->ops, o, X6, p->ct, p->st, cls, CA(p), SA(p), (z22 ? DYV_SYM_X22Z : 0) | DYV_SYM_SA2);
  Y[0] = o[0]; Y[1] = o[3]; Y[2] = o[5]; Y[3] = o[1]; Y[4] = o[2]; Y[5] = o[4];
}

/* v_i, chat_i, Jhat_33, (t_ii^<r>)_z of joint r <= i < s from Yv = the
 * (3,3) entry carried from joint i+1 (joint p) and l_i (Table VII) */
INL void LFN(comp_below_s)(dyvLin* L, int i, int az, double Yv, double l0, double l1, double l2) {
  const linJoint* p = L->jr + i + 1;
  linBody* b = L->bd + i;
  const double* sl = b->sl;
  double vi = Yv;     /* the b-term of joint i (see the top) */
  if (L->jr[i].rev) {
    if (!AZ(p, az)) { vi = Yv + p->a2*l0; OPS(1, 1); }
    b->c[0] = sl[S_KX] + l0; b->c[1] = sl[S_KY] + l1;
    b->J[2] = sl[S_U33] + vi;
    b->tr = L->sgn[i] * b->J[2];
    OPS(0, 3);
  } else {
    if (!AZ(p, az)) { vi = Yv + p->a2*(L->wx1[i]*l0 - L->wxy[i]*l1 - L->wxz[i]*l2); OPS(4, 3); }
    const double* w = L->ur + 3*i;
    b->tr = sl[S_KAP1] - w[1]*l0 + w[0]*l1;
    OPS(2, 2);
  }
  b->v = vi;
}

/* l_i (24) from joint nx = i+1 (joint p): R_nx (c_x, c_y, l_z) of nx for a
 * revolute, R_nx (l + mhat d e_z) for a prismatic joint nx (md = mhat d);
 * tip: l_nx = 0 */
INL void LFN(comp_l)(dyvLin* L, const linJoint* p, int cls, int tip, const linBody* bx,
                     double* md, double l[3]) {
  const double *cx = bx->c, *lx = bx->l;
  *md = 0;
  if (p->rev) {
    l[0] = p->ct*cx[0] - p->st*cx[1];
    double g1 = p->st*cx[0] + p->ct*cx[1];
    OPS(4, 2);
    if (tip) LFN(rx)(L, p, cls, 0, 1, g1, 0, &l[1], &l[2]);
    else LFN(rx)(L, p, cls, 0, 0, g1, lx[2], &l[1], &l[2]);
  } else {
    *md = bx->sl[S_MHAT] * p->d;
    OPS(1, 0);
    if (tip) { l[0] = 0; LFN(rx)(L, p, cls, 1, 0, 0, *md, &l[1], &l[2]); }
    else {
      l[0] = p->ct*lx[0] - p->st*lx[1];
      double g1 = p->st*lx[0] + p->ct*lx[1];
      OPS(4, 3);
      LFN(rx)(L, p, cls, 0, 0, g1, lx[2] + *md, &l[1], &l[2]);
    }
  }
}

/* X, the symmetric matrix inside the similarity of (34)/(35), from
 * composite nx = i+1 (joint p), as X11 X22 X33 X12 X13 X23 */
INL void LFN(comp_X)(dyvLin* L, const linJoint* p, int dz, int tip, const linBody* bx, double md,
                     double X[6]) {
  const double *sx = bx->sl, *cx = bx->c, *lx = bx->l, *Jx = bx->J, *Vx = bx->V, dn = p->d;
  if (p->rev) {
    if (tip) { X[0] = sx[S_U1122]; X[1] = 0; X[3] = sx[S_U12]; }
    else {
      X[0] = Vx[0] + sx[S_U1122]; X[1] = Vx[1]; X[3] = Vx[3] + sx[S_U12];
      OPS(0, 2);
      if (!DZ(p, dz)) { double t = p->d2*lx[2]; X[0] += t; X[1] += t; OPS(1, 2); }
    }
    X[2] = Jx[2]; X[4] = Jx[0]; X[5] = Jx[1];
    if (!DZ(p, dz)) { X[4] -= dn*cx[0]; X[5] -= dn*cx[1]; OPS(2, 2); }
  } else {
    double e = dn*(md + cx[2] + cx[2]);
    if (tip) {
      X[0] = e; X[1] = e; X[2] = 0; X[3] = 0; X[4] = -dn*cx[0]; X[5] = -dn*cx[1];
      OPS(3, 2);
    } else {
      X[0] = Vx[0] + e; X[1] = Vx[1] + e; X[2] = Vx[2];
      X[3] = Vx[3]; X[4] = Vx[4] - dn*cx[0]; X[5] = Vx[5] - dn*cx[1];
      OPS(3, 6);
    }
  }
}

/* i >= s: V_i = R X R^T + b terms, b = (a, 0, 0), then chat_i and
 * Jhat_i e_z (Table VII) */
INL void LFN(comp_V)(dyvLin* L, int i, const linJoint* p, int cls, int az, int tip, const double X[6],
                     const double l[3]) {
  linBody* b = L->bd + i;
  double* V = b->V;
  LFN(sim)(L, p, cls, tip && p->rev, X[0], X[1], X[2], X[3], X[4], X[5], V);
  if (!AZ(p, az)) {
    double bb = p->a2*l[0];
    V[1] += bb; V[2] += bb; V[3] -= p->a*l[1]; V[4] -= p->a*l[2];
    OPS(3, 4);
  }
  const double* sl = b->sl;
  b->c[0] = sl[S_KX] + l[0]; b->c[1] = sl[S_KY] + l[1];
  if (L->jr[i].rev) {
    b->J[0] = sl[S_U13] + V[4]; b->J[1] = sl[S_U23] + V[5]; b->J[2] = sl[S_U33] + V[2];
    OPS(0, 5);
  } else {
    b->c[2] = sl[S_KZ] + l[2];
    OPS(0, 3);
  }
}

/* one step of the composite recursion, from joint i+1 (twist class cls;
 * az, dz as in BY_KIND) to joint i, then the composite quantities of i
 * (Table VII); i = s-1: (Y)_33 = u^T X u, u = u_r^<s> (39), (55); i < s-1
 * by eq. (40) */
INL void LFN(comp_step)(dyvLin* L, int i, int cls, int az, int dz) {
  const int s = L->s, nx = i + 1, tip = nx == L->n - 1;   /* tip: l_nx = 0, V_nx = 0 */
  const linJoint* p = L->jr + nx;
  linBody* b = L->bd + i;
  const linBody* bx = b + 1;
  const double *sx = bx->sl, *lx = bx->l;
  double md, l[3], X[6];
  LFN(comp_l)(L, p, cls, tip, bx, &md, l);
  b->l[0] = l[0]; b->l[1] = l[1]; b->l[2] = l[2];
  if (nx >= s) {
    LFN(comp_X)(L, p, dz, tip, bx, md, X);
    if (i >= s) { LFN(comp_V)(L, i, p, cls, az, tip, X, l); return; }
    double ux, uy;
    if (L->jr[i].rev) {                     /* u_r^<s-1> = (0,0,+-1) */
      ux = L->urs_p * p->st; uy = L->urs_p * p->ct;
      OPS(2, 0);
    } else {
      ux = L->urs[0]*p->ct + L->urs_p*p->st;
      uy = -L->urs[0]*p->st + L->urs_p*p->ct;
      OPS(4, 2);
    }
    /* X11 X22 X33 X12 X13 X23 in X[0..5] */
    double Yv = ux*(ux*X[0] + 2*uy*X[3]) + uy*uy*X[1] + L->urs_z2*(ux*X[4] + uy*X[5]) + L->urs_zz*X[2];
    OPS(10, 5);
    LFN(comp_below_s)(L, i, az, Yv, l[0], l[1], l[2]);
  } else if (p->rev) {
    LFN(comp_below_s)(L, i, az, bx->J[2], l[0], l[1], l[2]);
  } else {
    double Yv = bx->v + p->d*(sx[S_KAP2] + sx[S_KAP2] + L->wz1[nx]*(md + lx[2] + lx[2])
                              - L->wzx2[nx]*lx[0] - L->wzy2[nx]*lx[1]);
    OPS(4, 7);
    LFN(comp_below_s)(L, i, az, Yv, l[0], l[1], l[2]);
  }
}

/* the composite-body quantities from the MLCs (Table VII), from the tip */
static void LFN(composite)(dyvLin* L) {
  int n = L->n, r = L->r, s = L->s, i = n - 1;
  if (r >= n) return;
  /* tip: chat = k, Jhat = U (l = 0, V = 0) */
  linBody* b = L->bd + i;
  const double* sl = b->sl;
  memset(b->l, 0, sizeof b->l);
  memset(b->V, 0, sizeof b->V);
  b->v = 0;
  b->c[0] = sl[S_KX]; b->c[1] = sl[S_KY]; b->c[2] = sl[S_KZ];
  b->J[0] = sl[S_U13]; b->J[1] = sl[S_U23]; b->J[2] = sl[S_U33];
  if (i >= r && i < s) b->tr = L->jr[i].rev ? L->sgn[i] * b->J[2] : sl[S_KAP1];
  /* by class only: the kinds would add 25 KB of code for about 1 % */
  for (i = n - 2; i >= r; i--) {
#define COMP_(k, b_) LFN(comp_step)(L, i, k, KAZ(b_), KDZ(b_))
    BY_CLASS(L->jr + i + 1, COMP_)
#undef COMP_
  }
}

/* Formulation 1, column i >= s of H above the diagonal (Table I).
 * f_ii = (-c_y, c_x, 0) or (0, 0, mhat), t_ii = Jhat_i e_z or c x e_z; the
 * first step knows their zeros; down to joint r t_{j,i} is carried, D_ji =
 * (t_{j,i})_z or (f_{j,i})_z; below r (prismatic joints) only f. */
INL void LFN(f1_col)(dyvLin* L, int i, double* H) {
  const int n = L->n, r = L->r, irev = L->jr[i].rev;
  const linJoint* jr = L->jr;
  const linBody* b = L->bd + i;
  double* hr = H + i*n;           /* row i; column i is H[j*n + i] */
  double f[3], t[3];
  if (irev) {
    f[0] = -b->c[1]; f[1] = b->c[0]; f[2] = 0;
    t[0] = b->J[0]; t[1] = b->J[1]; t[2] = b->J[2];
  } else {
    f[0] = 0; f[1] = 0; f[2] = b->sl[S_MHAT];
    t[0] = b->c[1]; t[1] = -b->c[0]; t[2] = 0;
  }
  int j = i - 1;
  if (j > r) {
    if (irev) LFN(f1_full_any)(L, jr + i, ST_F2Z, 1, f, t);
    else LFN(f1_full_any)(L, jr + i, ST_PF, 0, f, t);
    hr[j] = H[j*n + i] = jr[j].rev ? t[2] : f[2];
    for (j = i - 2; j > r; j--) {
      LFN(f1_full_any)(L, jr + j + 1, 0, 1, f, t);
      hr[j] = H[j*n + i] = jr[j].rev ? t[2] : f[2];
    }
    if (r == 0) LFN(f1_last_any)(L, jr + 1, ST_NOF, 1, f, t);
    else LFN(f1_last_any)(L, jr + r + 1, 0, 0, f, t);
  } else if (irev) {
    if (r == 0) LFN(f1_last_any)(L, jr + 1, ST_F2Z | ST_NOF, 1, f, t);
    else LFN(f1_last_any)(L, jr + r + 1, ST_F2Z, 0, f, t);
  } else {
    if (r == 0) LFN(f1_last_any)(L, jr + 1, ST_PF | ST_NOF, 0, f, t);
    else LFN(f1_last_any)(L, jr + r + 1, ST_PF, 0, f, t);
  }
  hr[r] = H[r*n + i] = t[2];
  for (j = r - 1; j >= 0; j--) {
    LFN(rotf_any)(L, jr + j + 1, 0, f);
    hr[j] = H[j*n + i] = f[2];
  }
}

/* Formulation 1, column 0 < i < s: (30) carries only the moment about u_r,
 * tr_{j,i} = tr_{j+1,i} + f_{j,i} . (u_r^<j> x s_{j+1}^<j>) */
INL void LFN(f1_col30)(dyvLin* L, int i, double* H) {
  const int n = L->n, r = L->r, rev = L->jr[i].rev;
  const linJoint* jr = L->jr;
  const linBody* b = L->bd + i;
  double f[3] = {rev ? -b->c[1] : 0, rev ? b->c[0] : 0, rev ? 0 : b->sl[S_MHAT]};
  double tr = b->tr;
  for (int j = i - 1; j >= 0; j--) {
    const linJoint* p = jr + j + 1;
    if (j < i - 1) LFN(rotf_any)(L, p, 0, f);
    else if (rev) LFN(rotf_any)(L, p, ST_F2Z, f);
    else LFN(rotf_any)(L, p, ST_PF, f);
    if (j >= r) {
      const double *ub = L->uxb + 3*j, *ud = L->uxd + 3*j;
      double w0 = ub[0], w1 = ub[1], w2 = ub[2];
      if (!p->rev) {
        w0 += p->d*ud[0]; w1 += p->d*ud[1]; w2 += p->d*ud[2];
        OPS(3, 3);
      }
      tr += f[0]*w0 + f[1]*w1 + f[2]*w2;
      OPS(3, 3);
    }
    H[j*n + i] = H[i*n + j] = jr[j].rev ? L->sgn[j] * tr : f[2];
  }
}

/* Formulation 2, frame k: u_j^<k> = R_k^T u_j^<k-1> and, for revolute j,
 * O_j -> O_k = R_k^T (O_j -> O_{k-1} + a_k e_x) + d_k e_z for j < k-1;
 * u_{k-1}^<k> = R_k^T e_z, O_{k-1} -> O_k = (a ct, -a st, d) (Table II) */
/* v <- R_k^T (x0, v_1, v_2) = Rz^T Rx^T (...) of joint p: 8 M 4 A general */
INL void LFN(rotTk)(dyvLin* L, const linJoint* p, int cls, double x0, double v[3]) {
  double w, z;
  LFN(rxT)(L, p, cls, v[1], v[2], &w, &z);
  v[0] = p->ct*x0 + p->st*w; v[1] = -p->st*x0 + p->ct*w; v[2] = z;
  OPS(4, 2);
}

/* u_{k-1}^<k> = R_k^T e_z = Rz^T (0, sa, ca): the third row of R_k, whose
 * entries are formed with its sin/cos and not counted, as Tables II-III
 * take u_j^<j+1> ("0 operations") */
INL void LFN(uprev)(dyvLin* L, const linJoint* p, int cls, double u[3]) {
  (void)L;
  switch (cls) {
    case DY_TWIST_0: u[0] = 0; u[1] = 0; u[2] = 1; break;
    case DY_TWIST_PI: u[0] = 0; u[1] = 0; u[2] = -1; break;
    case DY_TWIST_PI2: u[0] = p->st; u[1] = p->ct; u[2] = 0; break;
    case DY_TWIST_MPI2: u[0] = -p->st; u[1] = -p->ct; u[2] = 0; break;
    default: u[0] = p->sst; u[1] = p->sct; u[2] = CA(p);
  }
}

INL void LFN(f2_frame)(dyvLin* L, int k, int cls, int az, int dz) {
  const linJoint* p = L->jr + k;
  double *uj = L->uj, *sj = L->sj;
  for (int j = 0; j + 1 < k; j++) {
    LFN(rotTk)(L, p, cls, uj[3*j], uj + 3*j);
    if (L->jr[j].rev) {
      double* sv = sj + 3*j;
      double p0 = sv[0];
      if (!AZ(p, az)) { p0 += p->a; OPS(0, 1); }
      LFN(rotTk)(L, p, cls, p0, sv);
      if (!DZ(p, dz)) { sv[2] += p->d; OPS(0, 1); }
    }
  }
  LFN(uprev)(L, p, cls, uj + 3*(k - 1));
  if (L->jr[k-1].rev) {
    double* sv = sj + 3*(k - 1);
    if (AZ(p, az)) { sv[0] = 0; sv[1] = 0; }
    else { sv[0] = p->a*p->ct; sv[1] = -p->a*p->st; OPS(2, 0); }
    sv[2] = p->d;
  }
}

/* Formulation 2: column i of H above the diagonal, D_ji for j < i (Table
 * II; eq. 32 for i < s), ges = i >= s and irev constants */
INL void LFN(f2_col)(dyvLin* L, int i, int ges, int irev, double* H) {
  const int n = L->n;
  const linJoint* jr = L->jr;
  const linBody* b = L->bd + i;
  const double c0 = b->c[0], c1 = b->c[1], J0 = b->J[0], J1 = b->J[1], J2 = b->J[2];
  const double mh = b->sl[S_MHAT];
  const int dl = L->delta[i];
  for (int j = 0; j < i; j++) {
    const double* u = L->uj + 3*j;
    const double* sv = L->sj + 3*j;
    const int jrev = jr[j].rev;
    double D;
    if (ges) {
      if (jrev && irev) {
        D = u[0]*(J0 - c0*sv[2]) + u[1]*(J1 - c1*sv[2]) + u[2]*(J2 + c0*sv[0] + c1*sv[1]);
        OPS(7, 6);
      } else if (irev) {
        D = -u[0]*c1 + u[1]*c0;
        OPS(2, 1);
      } else if (jrev) {
        D = u[0]*(mh*sv[1] + c1) - u[1]*(mh*sv[0] + c0);
        OPS(4, 3);
      } else {
        D = mh*u[2];
        OPS(1, 0);
      }
    } else {
      /* (32): joints j < i < s; u_j^<i> = (0, 0, +-1) for revolute j
       * and i; the delta_i terms vanish when delta_i = 0 */
      if (jrev && irev) {
        D = J2;
        if (dl) { D += c0*sv[0] + c1*sv[1]; OPS(2, 2); }
        D *= L->sgn[j] * L->sgn[i];
      } else if (irev) {
        D = 0;
        if (dl) { D = -u[0]*c1 + u[1]*c0; OPS(2, 1); }
      } else if (jrev) {
        D = mh*(u[0]*sv[1] - u[1]*sv[0]) + L->sgn[j]*b->tr;
        OPS(3, 2);
      } else {
        D = mh*u[2];
        OPS(1, 0);
      }
    }
    H[j*n + i] = H[i*n + j] = D;
  }
}

/* ------------------------------------------------ Formulation 3 (Table III) */

/* frame k: u_j^<k> as in Formulation 2 and, for revolute j, shat_j^<k> =
 * u_j^<k> x (O_j -> O_k)^<k> (eq. 21):
 *   shat_j^<k> = R_k^T (shat_j^<k-1> + u_j^<k-1> x a_k e_x) + u_j^<k> x d_k e_z,
 *   shat_{k-1}^<k> = R_k^T (d_k sin alpha_k, a_k, 0)                         */
INL void LFN(f3_frame)(dyvLin* L, int k, int cls, int az, int dz) {
  const linJoint* p = L->jr + k;
  const double c = p->ct, sn = p->st;
  double *uj = L->uj, *hj = L->sj;       /* sj holds shat here */
  for (int j = 0; j + 1 < k; j++) {
    double* u = uj + 3*j;
    const double o1 = u[1], o2 = u[2];
    LFN(rotTk)(L, p, cls, u[0], u);
    if (!L->jr[j].rev) continue;
    double* h = hj + 3*j;
    if (!AZ(p, az)) { h[1] += p->a*o2; h[2] -= p->a*o1; OPS(2, 2); }
    LFN(rotTk)(L, p, cls, h[0], h);
    if (!DZ(p, dz)) { h[0] += p->d*u[1]; h[1] -= p->d*u[0]; OPS(2, 2); }
  }
  LFN(uprev)(L, p, cls, uj + 3*(k - 1));
  if (!L->jr[k-1].rev) return;
  /* Rz^T (v0, a ca, -a sa), v0 = d sa (a constant for revolute k) */
  double* h = hj + 3*(k - 1);
  double v0 = 0;
  const int v0z = cls == DY_TWIST_0 || cls == DY_TWIST_PI || DZ(p, dz), yz = p->aca == 0;
  if (!v0z) {
    if (p->rev || cls == DY_TWIST_PI2) v0 = cls == DY_TWIST_PI2 ? p->d : p->dsa;
    else if (cls == DY_TWIST_MPI2) v0 = -p->d;
    else { v0 = p->d*SA(p); OPS(1, 0); }
  }
  h[2] = -p->asa;
  if (v0z && yz) { h[0] = 0; h[1] = 0; }
  else if (v0z) { h[0] = sn*p->aca; h[1] = c*p->aca; OPS(2, 0); }
  else if (yz) { h[0] = c*v0; h[1] = -sn*v0; OPS(2, 0); }
  else { h[0] = c*v0 + sn*p->aca; h[1] = -sn*v0 + c*p->aca; OPS(4, 2); }
}

/* column i of H above the diagonal (Table III, eq. 21; for i < s eq. 32
 * with shat: u_j^<i> = (0, 0, +-1) for revolute j, i < s) */
INL void LFN(f3_col)(dyvLin* L, int i, int ges, int irev, double* H) {
  const int n = L->n;
  const linBody* b = L->bd + i;
  const double c0 = b->c[0], c1 = b->c[1], J0 = b->J[0], J1 = b->J[1], J2 = b->J[2];
  const double mh = b->sl[S_MHAT];
  const int dl = L->delta[i];
  for (int j = 0; j < i; j++) {
    const double *u = L->uj + 3*j, *h = L->sj + 3*j;
    const int jrev = L->jr[j].rev;
    double D;
    if (jrev && irev) {
      if (ges) { D = u[0]*J0 + u[1]*J1 + u[2]*J2 - c1*h[0] + c0*h[1]; OPS(5, 4); }
      else {
        D = L->sgn[j] * L->sgn[i] * J2;
        if (dl) { D += c0*h[1] - c1*h[0]; OPS(2, 2); }
      }
    } else if (irev) {
      D = 0;
      if (ges || dl) { D = u[1]*c0 - u[0]*c1; OPS(2, 1); }
    } else if (jrev) {
      if (ges) { D = mh*h[2] + u[0]*c1 - u[1]*c0; OPS(3, 2); }
      else { D = mh*h[2] + L->sgn[j]*b->tr; OPS(1, 1); }
    } else {
      D = mh*u[2];
      OPS(1, 0);
    }
    H[j*n + i] = H[i*n + j] = D;
  }
}

/* column i of Formulation 2 or 3, with i >= s and joint i's type as constants */
#define F23_COL(fn) \
  if (i >= s) { if (jr[i].rev) fn(L, i, 1, 1, H); else fn(L, i, 1, 0, H); } \
  else { if (jr[i].rev) fn(L, i, 0, 1, H); else fn(L, i, 0, 0, H); }

/* Formulations 2 and 3: the vectors of the joints j < i in frame i, then
 * column i (f3: shat in place of O_j -> O_i) */
INL void LFN(f23)(dyvLin* L, const double* beta, const double* q, double* H, int f3) {
  const int n = L->n, s = L->s;
  const linJoint* jr = L->jr;
  gather(L, beta, q);
  LFN(composite)(L);
  H[0] = diag(L, 0);
  for (int i = 1; i < n; i++) {
#define FRAME2_(k, b_) LFN(f2_frame)(L, i, k, KAZ(b_), KDZ(b_))
#define FRAME3_(k, b_) LFN(f3_frame)(L, i, k, KAZ(b_), KDZ(b_))
    if (f3) { BY_KIND(jr + i, FRAME3_) } else { BY_KIND(jr + i, FRAME2_) }
#undef FRAME2_
#undef FRAME3_
    H[i*n + i] = diag(L, i);
    if (f3) { F23_COL(LFN(f3_col)) } else { F23_COL(LFN(f2_col)) }
  }
}

void LFN(dyv_lin_inertia2)(dyvLin* L, const double* beta, const double* q, double* H) {
  LFN(f23)(L, beta, q, H, 0);
}

void LFN(dyv_lin_inertia3)(dyvLin* L, const double* beta, const double* q, double* H) {
  LFN(f23)(L, beta, q, H, 1);
}

/* ------------------------------------------------ Formulation 4 (Table IV) */

/* W_i = W_{i+1} R_{i+1}^T = W_{i+1} Rz^T Rx^T (frame i -> frame n-1, by
 * columns); W_{n-1} = 1, so W_{n-2} = R_{n-1}^T costs only the alpha part */
INL void LFN(f4_rot)(dyvLin* L, int i, int cls) {
  const linJoint* p = L->jr + i + 1;
  const double c = p->ct, sn = p->st;
  const double* Wn = L->W + 9*(i + 1);
  double* Wi = L->W + 9*i;
  double A1[3], A2[3];
  const int first = i + 2 == L->n;
  if (first) {
    Wi[0] = c; Wi[1] = -sn; Wi[2] = 0; A1[0] = sn; A1[1] = c; A1[2] = 0;
    A2[0] = 0; A2[1] = 0; A2[2] = 1;
  } else {
    for (int r = 0; r < 3; r++) {
      Wi[r] = c*Wn[r] - sn*Wn[3 + r]; A1[r] = sn*Wn[r] + c*Wn[3 + r]; A2[r] = Wn[6 + r];
    }
    OPS(12, 6);
  }
  double *C1 = Wi + 3, *C2 = Wi + 6;
  switch (cls) {
    case DY_TWIST_0: for (int r = 0; r < 3; r++) { C1[r] = A1[r]; C2[r] = A2[r]; } break;
    case DY_TWIST_PI2: for (int r = 0; r < 3; r++) { C1[r] = -A2[r]; C2[r] = A1[r]; } break;
    case DY_TWIST_MPI2: for (int r = 0; r < 3; r++) { C1[r] = A2[r]; C2[r] = -A1[r]; } break;
    case DY_TWIST_PI: for (int r = 0; r < 3; r++) { C1[r] = -A1[r]; C2[r] = -A2[r]; } break;
    default:
      if (first) {
        C1[0] = CA(p)*sn; C1[1] = CA(p)*c; C1[2] = -SA(p);
        C2[0] = SA(p)*sn; C2[1] = SA(p)*c; C2[2] = CA(p);
        OPS(4, 0);
      } else {
        for (int r = 0; r < 3; r++) {
          C1[r] = CA(p)*A1[r] - SA(p)*A2[r]; C2[r] = SA(p)*A1[r] + CA(p)*A2[r];
        }
        OPS(12, 6);
      }
  }
}

/* O_j -> O_{j+1} in frame n-1: a_{j+1} W_j e_x + d_{j+1} W_{j+1} e_z */
static void LFN(f4_s)(dyvLin* L, int j) {
  const linJoint* p = L->jr + j + 1;
  const double *W0 = L->W + 9*j, *Z1 = L->W + 9*(j + 1) + 6;
  double* sv = L->sN + 3*j;
  const int az = p->az, dz = p->dz, last = j + 2 == L->n;
  for (int r = 0; r < 3; r++) sv[r] = 0;
  if (!az) {
    sv[0] = p->a*W0[0]; sv[1] = p->a*W0[1];
    if (last) OPS(2, 0); else { sv[2] = p->a*W0[2]; OPS(3, 0); }
  }
  if (dz) return;
  if (last) { sv[2] = p->d; return; }        /* W_{n-1} = 1; (a W_{n-2} e_x)_z = 0 */
  for (int r = 0; r < 3; r++) sv[r] += p->d*Z1[r];
  OPS(3, az ? 0 : 3);
}

/* column i >= s (Table IV): f_ii, t_ii into frame n-1, then t_{j,i} =
 * t_{j+1,i} + s_j x f_ii down to joint r, D_ji = u_j . t or u_j . f */
INL void LFN(f4_col)(dyvLin* L, int i, double* H) {
  const int n = L->n, r = L->r;
  const linBody* b = L->bd + i;
  const double* W = L->W + 9*i;
  double f[3], t[3];
  const double c0 = b->c[0], c1 = b->c[1];
  if (i == n - 1) {
    if (L->jr[i].rev) { f[0] = -c1; f[1] = c0; f[2] = 0; t[0] = b->J[0]; t[1] = b->J[1]; t[2] = b->J[2]; }
    else { f[0] = 0; f[1] = 0; f[2] = b->sl[S_MHAT]; t[0] = c1; t[1] = -c0; t[2] = 0; }
  } else if (L->jr[i].rev) {
    for (int k = 0; k < 3; k++) {
      f[k] = c0*W[3 + k] - c1*W[k];
      t[k] = b->J[0]*W[k] + b->J[1]*W[3 + k] + b->J[2]*W[6 + k];
    }
    OPS(15, 9);
  } else {
    const double mh = b->sl[S_MHAT];
    for (int k = 0; k < 3; k++) { f[k] = mh*W[6 + k]; t[k] = c1*W[k] - c0*W[3 + k]; }
    OPS(9, 3);
  }
  for (int j = i - 1; j >= 0; j--) {
    const double* u = L->W + 9*j + 6;
    double D;
    if (j >= r) {
      const double* sv = L->sN + 3*j;
      t[0] += sv[1]*f[2] - sv[2]*f[1]; t[1] += sv[2]*f[0] - sv[0]*f[2]; t[2] += sv[0]*f[1] - sv[1]*f[0];
      OPS(6, 6);
    }
    const double* v = L->jr[j].rev ? t : f;
    D = u[0]*v[0] + u[1]*v[1] + u[2]*v[2];
    OPS(3, 2);
    H[j*n + i] = H[i*n + j] = D;
  }
}

/* the rotations W_i into the last frame and O_j -> O_{j+1} there */
static void LFN(f4_frames)(dyvLin* L) {
  const int n = L->n, r = L->r;
  if (L->s >= n || n < 2) return;
  double* Wl = L->W + 9*(n - 1);
  for (int k = 0; k < 9; k++) Wl[k] = k % 4 == 0;
  for (int i = n - 2; i >= 0; i--) {
#define ROT_(k, b_) LFN(f4_rot)(L, i, k)
    BY_CLASS(L->jr + i + 1, ROT_)
#undef ROT_
  }
  for (int j = r; j <= n - 2; j++) LFN(f4_s)(L, j);
}

/* ------------------------------------------------ Formulation 5 (Table V) */

/* h_i = R_i chat_i + mhat_i (O_{i-1} -> O_i) in frame i-1 (eq. B3), the
 * composite first moment about O_{i-1}; for a revolute joint i mhat_i and
 * (chat_i)_z are not MLCs and not needed (they drop out of h_i x u_i):
 * taken 0, as Appendix B does for rotational joints */
INL void LFN(f5_h)(dyvLin* L, int i, int cls) {
  const linJoint* p = L->jr + i;
  linBody* b = L->bd + i;
  double* h = b->h;
  const double g1 = p->st*b->c[0] + p->ct*b->c[1];
  h[0] = p->ct*b->c[0] - p->st*b->c[1];
  OPS(4, 2);
  if (p->rev) { LFN(rx)(L, p, cls, 0, 1, g1, 0, &h[1], &h[2]); return; }
  LFN(rx)(L, p, cls, 0, 0, g1, b->c[2], &h[1], &h[2]);
  const double mh = b->sl[S_MHAT], md = mh*p->d;    /* + mhat (a, -d sa, d ca) */
  OPS(1, 0);
  if (!p->az) { h[0] += mh*p->a; OPS(1, 1); }
  switch (cls) {
    case DY_TWIST_0: h[2] += md; OPS(0, 1); break;
    case DY_TWIST_PI: h[2] -= md; OPS(0, 1); break;
    case DY_TWIST_PI2: h[1] -= md; OPS(0, 1); break;
    case DY_TWIST_MPI2: h[1] += md; OPS(0, 1); break;
    default: h[1] -= md*SA(p); h[2] += md*CA(p); OPS(2, 2);
  }
}

static void LFN(f5_hpass)(dyvLin* L) {
  for (int i = L->s > 1 ? L->s : 1; i < L->n; i++) {
#define H_(k, b_) LFN(f5_h)(L, i, k)
    BY_CLASS(L->jr + i, H_)
#undef H_
  }
}

/* the first step of column i (B7, B8), u = u_i^<i-1> = (0, -sa, ca):
 *   revolute i:  f = u x h_i,  t = s x f + R_i Jhat_i e_z
 *   prismatic i: f = mhat_i u, t = h_i x u                                 */
INL void LFN(f5_first)(dyvLin* L, int i, int cls, double f[3], double t[3]) {
  const linJoint* p = L->jr + i;
  const linBody* b = L->bd + i;
  const double *h = b->h, ca = CA(p), sa = SA(p);
  if (!p->rev) {
    const double mh = b->sl[S_MHAT];
    f[0] = 0;
    LFN(rx)(L, p, cls, 1, 0, 0, mh, &f[1], &f[2]);
    switch (cls) {
      case DY_TWIST_0: t[0] = h[1]; t[1] = -h[0]; t[2] = 0; break;
      case DY_TWIST_PI: t[0] = -h[1]; t[1] = h[0]; t[2] = 0; break;
      case DY_TWIST_PI2: t[0] = h[2]; t[1] = 0; t[2] = -h[0]; break;
      case DY_TWIST_MPI2: t[0] = -h[2]; t[1] = 0; t[2] = h[0]; break;
      default: t[0] = h[1]*ca + h[2]*sa; t[1] = -h[0]*ca; t[2] = -h[0]*sa; OPS(4, 1);
    }
    return;
  }
  switch (cls) {
    case DY_TWIST_0: f[0] = -h[1]; f[1] = h[0]; f[2] = 0; break;
    case DY_TWIST_PI: f[0] = h[1]; f[1] = -h[0]; f[2] = 0; break;
    case DY_TWIST_PI2: f[0] = -h[2]; f[1] = 0; f[2] = h[0]; break;
    case DY_TWIST_MPI2: f[0] = h[2]; f[1] = 0; f[2] = -h[0]; break;
    default: f[0] = -sa*h[2] - ca*h[1]; f[1] = ca*h[0]; f[2] = sa*h[0]; OPS(4, 1);
  }
  /* R J: Rz then Rx */
  const double J0 = b->J[0], J1 = b->J[1];
  double r1, r2;
  t[0] = p->ct*J0 - p->st*J1;
  const double g1 = p->st*J0 + p->ct*J1;
  OPS(4, 2);
  LFN(rx)(L, p, cls, 0, 0, g1, b->J[2], &r1, &r2);
  t[1] = r1; t[2] = r2;
  /* s = (a, -d sa, d ca), constant: s x f */
  const double s0 = p->a, s1 = -p->dsa, s2 = p->dca;
  t[0] += s1*f[2] - s2*f[1]; t[1] += s2*f[0] - s0*f[2]; t[2] += s0*f[1] - s1*f[0];
  OPS(6, 6);
}

/* column i >= s of Formulation 5: the first step (B7, B8), then (B9, B10)
 * as Table I down to joint r, f alone below it */
INL void LFN(f5_col)(dyvLin* L, int i, double* H) {
  const int n = L->n, r = L->r;
  const linJoint* jr = L->jr;
  double f[3], t[3];
#define FIRST_(k, b_) LFN(f5_first)(L, i, k, f, t)
  BY_CLASS(jr + i, FIRST_)
#undef FIRST_
  int j = i - 1;
  H[j*n + i] = H[i*n + j] = jr[j].rev ? t[2] : f[2];
  for (j = i - 2; j > r; j--) {
    LFN(f1_full_any)(L, jr + j + 1, 0, 1, f, t);
    H[j*n + i] = H[i*n + j] = jr[j].rev ? t[2] : f[2];
  }
  if (i - 1 > r) {
    LFN(f1_last_any)(L, jr + r + 1, r == 0 ? ST_NOF : 0, 0, f, t);
    H[r*n + i] = H[i*n + r] = t[2];
  }
  for (j = r - 1; j >= 0; j--) {
    LFN(rotf_any)(L, jr + j + 1, 0, f);
    H[j*n + i] = H[i*n + j] = f[2];
  }
}

/* Formulations 1, 4 and 5: the composite quantities (and h_i, or the
 * rotations into the last frame), then the columns from the tip; the
 * columns i < s by eqs. (29)-(31) */
static void LFN(f145)(dyvLin* L, const double* beta, const double* q, double* H, int form) {
  const int n = L->n, s = L->s;
  gather(L, beta, q);
  LFN(composite)(L);
  if (form == 4) LFN(f4_frames)(L);
  if (form == 5) LFN(f5_hpass)(L);
  for (int i = n - 1; i >= 0; i--) {
    H[i*n + i] = diag(L, i);
    if (i == 0) break;
    if (i < s) LFN(f1_col30)(L, i, H);
    else if (form == 1) LFN(f1_col)(L, i, H);
    else if (form == 4) LFN(f4_col)(L, i, H);
    else LFN(f5_col)(L, i, H);
  }
}

void LFN(dyv_lin_inertia1)(dyvLin* L, const double* beta, const double* q, double* H) {
  LFN(f145)(L, beta, q, H, 1);
}

void LFN(dyv_lin_inertia4)(dyvLin* L, const double* beta, const double* q, double* H) {
  LFN(f145)(L, beta, q, H, 4);
}

void LFN(dyv_lin_inertia5)(dyvLin* L, const double* beta, const double* q, double* H) {
  LFN(f145)(L, beta, q, H, 5);
}

/* the quantities each formulation takes as on hand (Table VI): chat_i and
 * Jhat_i (Table VII) and, for Formulation 5, h_i */
void LFN(dyv_lin_onhand)(dyvLin* L, const double* beta, const double* q, int form) {
  gather(L, beta, q);
  LFN(composite)(L);
  if (form == 5) LFN(f5_hpass)(L);
}

#ifndef DY_COUNT_OPS
/* The paper's counts [LinFang99]: Table VI (form 1-5, chat and Jhat on
 * hand), Table VII (form 0: the composite quantities from the MLCs) and
 * Table VIII (form 1-2 with Table VII), for Type 1 (n revolute joints) and
 * Type 2 (joint 3 prismatic). */
int dyv_lin_paper_count(int table, int form, int type, int n, double* mul, double* add) {
  static const double t6[2][5][6] = {      /* M: a n^2 + b n + c; A: likewise */
    {{10, -18, 10, 6, -10, 4}, {11.5, -27.5, 16, 8, -18, 10}, {12.5, -28.5, 16, 8, -18, 10},
     {4.5, 48.5, -108, 4, 24, -56}, {10, -18, 14, 6, -6, 2}},
    {{10, -18, 0, 6, -10, 0}, {11.5, -40.5, 60, 8, -29, 46}, {12.5, -43.5, 65, 8, -29, 45},
     {4.5, 48.5, -114, 4, 24, -62}, {10, -18, 4, 6, -6, -7}}};
  static const double t7[2][4] = {{32, -47, 33, -57}, {32, -45, 33, -59}};
  static const double t8[2][2][6] = {
    {{10, 14, -37, 6, 23, -53}, {11.5, 4.5, -31, 8, 15, -47}},
    {{10, 14, -45, 6, 23, -59}, {11.5, -8.5, 15, 8, 4, -13}}};
  if (type < 1 || type > 2) return -1;
  const double x = n;
  const double* c;
  if (table == 7 && form == 0) {
    c = t7[type - 1];
    *mul = c[0]*x + c[1]; *add = c[2]*x + c[3];
    return 0;
  }
  if (table == 6 && form >= 1 && form <= 5) c = t6[type - 1][form - 1];
  else if (table == 8 && form >= 1 && form <= 2) c = t8[type - 1][form - 1];
  else return -1;
  *mul = (c[0]*x + c[1])*x + c[2]; *add = (c[3]*x + c[4])*x + c[5];
  return 0;
}

int dyv_lin_type(const dyModel* m) {
  int nrev = 0;
  for (int j = 0; j < m->n; j++) nrev += m->jnt_type[j] == DY_REVOLUTE;
  if (nrev == m->n) return 1;
  if (m->n >= 3 && nrev == m->n - 1 && m->jnt_type[2] == DY_PRISMATIC) return 2;
  return 0;
}

int dyv_lin_counts(const dyModel* m, dyvLinCounts* c, char* err, int errsz) {
  void (*const form[5])(dyvLin*, const double*, const double*, double*) = {
    dyv_lin_inertia1_ops, dyv_lin_inertia2_ops, dyv_lin_inertia3_ops, dyv_lin_inertia4_ops,
    dyv_lin_inertia5_ops};
  dyiBase* b = dyi_base_make(m, DYI_SET_LIN, 0, err, errsz);
  if (!b) return -1;
  dyvLin* L = dyv_lin_make(m, b, err, errsz);
  double* beta = malloc(sizeof(double) * (size_t)(b->nb + 1));
  double* H = malloc(sizeof(double) * (size_t)m->n * (size_t)m->n);
  int r = -1;
  if (L && beta && H) {
    for (int i = 0; i < b->nb; i++) {
      double acc = 0;
      for (int k = 0; k < b->npar; k++) acc += b->B[(size_t)i * b->npar + k] * m->par[k];
      beta[i] = acc;
    }
    double q[DY_MAXJ];
    for (int j = 0; j < m->n; j++) q[j] = 0.3 + 0.1 * j;   /* a generic state */
    long on[2];
    dyv_lin_ops(L, &on[0], &on[1], 1);
    for (int f = 0; f < 5; f++) {
      form[f](L, beta, q, H);
      dyv_lin_ops(L, &c->total[f][0], &c->total[f][1], 1);
      dyv_lin_onhand_ops(L, beta, q, f + 1);
      dyv_lin_ops(L, &on[0], &on[1], 1);
      for (int k = 0; k < 2; k++) c->table6[f][k] = c->total[f][k] - on[k];
      if (f == 0) { c->table7[0] = on[0]; c->table7[1] = on[1]; }
    }
    r = 0;
  } else if (L) snprintf(err, (size_t)errsz, "out of memory");
  free(beta); free(H);
  dyv_lin_free(L);
  dyi_base_free(b);
  return r;
}

/* one CSV row: name, executed M and A, the paper's formula and value */
static void row(FILE* f, const char* name, const long c[2], int table, int form, int type, int n,
                const char* what) {
  double pm, pa;
  if (type && dyv_lin_paper_count(table, form, type, n, &pm, &pa) == 0)
    fprintf(f, "%s,%ld,%ld,[LinFang99] Table %s%s Type %d n = %d (%s),%.0f,%.0f\n", name, c[0], c[1],
            table == 6 ? "VI" : table == 7 ? "VII" : "VIII", form ? (form == 1 ? " F1" : form == 2 ? " F2" :
            form == 3 ? " F3" : form == 4 ? " F4" : " F5") : "", type, n, what, pm, pa);
  else fprintf(f, "%s,%ld,%ld,no Type 1 or 2 entry for these joints (%s),,\n", name, c[0], c[1], what);
}

/* the rows of one model: Table VIII (F1, F2 with Table VII), Table VI
 * (all five, on hand), Table VII */
static void rows(FILE* f, const dyModel* m, const dyvLinCounts* c, const char* sfx, const char* what) {
  const int type = dyv_lin_type(m), n = m->n;
  char nm[64];
  for (int k = 0; k < 5; k++) {
    snprintf(nm, sizeof nm, "lin_fang_F%d%s", k + 1, sfx);
    row(f, nm, c->total[k], 8, k + 1, k < 2 ? type : 0, n, k < 2 ? what : "with Table VII; no Table VIII entry");
  }
  for (int k = 0; k < 5; k++) {
    snprintf(nm, sizeof nm, "lin_fang_F%d_onhand%s", k + 1, sfx);
    row(f, nm, c->table6[k], 6, k + 1, type, n, what);
  }
  snprintf(nm, sizeof nm, "lin_fang_table7%s", sfx);
  row(f, nm, c->table7, 7, 0, type, n, what);
}

int dyv_lin_opcount_report(FILE* f, const dyModel* m) {
  char err[DY_ERRSZ];
  dyvLinCounts c, g;
  if (dyv_lin_counts(m, &c, err, sizeof err)) { fprintf(f, "# Lin & Fang formulations: %s\n", err); return -1; }
  rows(f, m, &c, "", "this model's geometry");
  /* the tables assume a general geometry: the same joints with general
   * twists and lengths (no alpha in {0, +-pi/2, pi}, a and d nonzero) */
  dyModel* gm = dy_copy_model(m);
  if (gm) {
    dyv_general_geometry(gm);
    if (dyv_lin_counts(gm, &g, err, sizeof err) == 0)
      rows(f, gm, &g, "_general", "same joints; general twists and lengths");
    /* both of the paper's types for the same n, general geometry */
    for (int t = 1; t <= 2 && m->n >= t + 1; t++) {
      for (int j = 0; j < gm->n; j++) gm->jnt_type[j] = t == 2 && j == 2 ? DY_PRISMATIC : DY_REVOLUTE;
      gm->dh_alpha[0] = 0;
      dy_set_const(gm);
      if (dyv_lin_counts(gm, &g, err, sizeof err) == 0)
        rows(f, gm, &g, t == 1 ? "_type1" : "_type2", "general twists and lengths; joint 1 along gravity");
    }
    dy_free_model(gm);
  }
  return 0;
}
#endif
