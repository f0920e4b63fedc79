/* dynid verify: Lin & Fang's Formulations 1 and 2 of the inertia matrix on
 * Lin's minimal linear combinations (seed 001). See lin_inertia.h.
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
 *    0) are specialised; these are where the counts fall below Table VIII.
 *
 * Values of Theorem 1 constants that the set does not hold (delta_i = 0,
 * U_i of a prismatic joint, k_i of a prismatic joint r < i < s) are zero
 * in the slots; the formulations never need them (the tests prove it).   */
#include "lin_inertia.h"
#include "lin_const.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operation counting: this file is compiled twice over itself. The first
 * pass defines everything; at its end it includes itself again with
 * DYV_LIN_COUNTING defined, which re-defines only the arithmetic paths
 * (rot, finish_joint, composite, dyv_lin_inertia1, dyv_lin_inertia2) with
 * the suffix _ops and
 * OPS(M, A) turned into additions to the counters of the dyvLin object. The
 * counting rules are those of verify/opcount.h: a subtraction counts as an
 * addition, a sign change or a copy as nothing, sin/cos are not counted;
 * products of two constants of the model (2 a_j, 2 sin(alpha), u_r terms)
 * are formed once in dyv_lin_make, as the paper assumes. */
#ifdef DYV_LIN_COUNTING
#define OPS(mm, aa) (L->opm += (mm), L->opa += (aa))
#define LFN(name) name##_ops
#else
#define OPS(mm, aa) ((void)0)
#define LFN(name) name
#endif

#ifndef DYV_LIN_COUNTING

enum { S_U1122, S_U12, S_U13, S_U23, S_U33, S_KX, S_KY, S_KZ, S_MHAT, S_KAP1,
       S_KAP2, S_IA, NSLOT };

struct dyvLin_ {
  int n, r, s, nb, nlin;
  int type[DY_MAXJ];
  double ca[DY_MAXJ], sa[DY_MAXJ], a[DY_MAXJ], a2[DY_MAXJ], d0[DY_MAXJ], th0[DY_MAXJ];
  double aca[DY_MAXJ], asa[DY_MAXJ];   /* a_j cos alpha_j, a_j sin alpha_j */
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
  double sl[NSLOT*DY_MAXJ];
  double ct[DY_MAXJ], st[DY_MAXJ], d[DY_MAXJ];
  double c[3*DY_MAXJ], J[3*DY_MAXJ], l[3*DY_MAXJ], V[6*DY_MAXJ], v[DY_MAXJ], tr[DY_MAXJ];
  double* blin;                  /* (nlin) */
  double* uj;                    /* u_j^<k>, 3 per (j,k) (3 n n) */
  double* sj;                    /* O_j -> O_k in frame k (3 n n) */
  double* beta_seen;             /* the beta the slots hold (nb), valid if beta_ok */
  int beta_ok;
  long opm, opa;
};

static int slot_of(const char* name, int* j) {
  static const char* pre[] = {"U11m22_", "U12_", "U13_", "U23_", "U33_", "kx_", "ky_",
                              "kz_", "mhat_", "kappa1_", "kappa2_", "IA"};
  for (int k = 0; k < NSLOT; k++) {
    size_t lp = strlen(pre[k]);
    if (strncmp(name, pre[k], lp) == 0 && name[lp] >= '0' && name[lp] <= '9') {
      *j = atoi(name + lp) - 1;
      return k;
    }
  }
  return -1;
}

dyvLin* dyv_lin_make(const dyModel* m, const dyBase* b, char* err, int errsz) {
  int n = m->n;
  dyBase* lin = NULL;
  const dyBase* bl = b;
  if (strcmp(b->set, "lin") != 0) {
    lin = dyi_base_lin(m, b->friction, err, errsz);
    if (!lin) return NULL;
    bl = lin;
  }
  dyvLin* L = calloc(1, sizeof *L);
  if (!L) { dyi_base_free(lin); snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  L->n = n; L->nb = b->nb; L->nlin = bl->nb;
  L->kind = malloc(sizeof(int) * (size_t)(bl->nb + 1));
  L->jnt = malloc(sizeof(int) * (size_t)(bl->nb + 1));
  L->blin = malloc(sizeof(double) * (size_t)(bl->nb + 1));
  L->uj = malloc(sizeof(double) * 3 * (size_t)n * (size_t)n);
  L->sj = malloc(sizeof(double) * 3 * (size_t)n * (size_t)n);
  L->beta_seen = malloc(sizeof(double) * (size_t)(b->nb + 1));
  if (!L->kind || !L->jnt || !L->blin || !L->uj || !L->sj || !L->beta_seen) goto oom;
  for (int i = 0; i < bl->nb; i++) {
    L->kind[i] = slot_of(bl->name[i], &L->jnt[i]);
    if (L->kind[i] >= 0 && (L->jnt[i] < 0 || L->jnt[i] >= n)) L->kind[i] = -1;
  }
  if (lin) {     /* T = B_lin P_b */
    L->T = malloc(sizeof(double) * (size_t)lin->nb * (size_t)(b->nb ? b->nb : 1));
    if (!L->T) goto oom;
    for (int i = 0; i < lin->nb; i++)
      for (int c = 0; c < b->nb; c++) {
        double s = 0;
        for (int k = 0; k < b->npar; k++) s += lin->B[(size_t)i*lin->npar + k] * b->P[(size_t)k*b->nb + c];
        L->T[(size_t)i*b->nb + c] = s;
      }
    dyi_base_free(lin);
    lin = NULL;
  }

  /* geometry constants */
  dyLinGeom g;
  dy_lin_geom(m, &g);
  L->r = g.r; L->s = g.s;
  for (int j = 0; j < n; j++) {
    L->type[j] = m->jnt_type[j];
    L->ca[j] = cos(m->dh_alpha[j]); L->sa[j] = sin(m->dh_alpha[j]);
    L->a[j] = m->dh_a[j]; L->a2[j] = 2*m->dh_a[j];
    L->aca[j] = m->dh_a[j]*L->ca[j]; L->asa[j] = m->dh_a[j]*L->sa[j];
    L->d0[j] = m->dh_d[j]; L->th0[j] = m->dh_theta[j];
  }
  memcpy(L->ur, g.ur, sizeof L->ur);
  memcpy(L->delta, g.delta, sizeof L->delta);
  for (int j = g.r; j < g.s; j++) {
    const double* w = g.ur + 3*j;
    L->sgn[j] = w[2] > 0 ? 1 : -1;
    L->wz1[j] = 1 - w[2]*w[2]; L->wzx2[j] = 2*w[2]*w[0]; L->wzy2[j] = 2*w[2]*w[1];
    L->wx1[j] = 1 - w[0]*w[0]; L->wxy[j] = w[0]*w[1]; L->wxz[j] = w[0]*w[2];
    if (j + 1 < n) {
      double sb[3] = {m->dh_a[j+1], 0, 0}, ez[3] = {0, -L->sa[j+1], L->ca[j+1]};
      double* ub = L->uxb + 3*j;
      double* ud = L->uxd + 3*j;
      ub[0] = w[1]*sb[2] - w[2]*sb[1]; ub[1] = w[2]*sb[0] - w[0]*sb[2]; ub[2] = w[0]*sb[1] - w[1]*sb[0];
      ud[0] = w[1]*ez[2] - w[2]*ez[1]; ud[1] = w[2]*ez[0] - w[0]*ez[2]; ud[2] = w[0]*ez[1] - w[1]*ez[0];
      if (L->type[j+1] == DY_REVOLUTE)        /* s constant: fold d in */
        for (int k = 0; k < 3; k++) { ub[k] += m->dh_d[j+1]*ud[k]; ud[k] = 0; }
    }
  }
  if (g.s < n && g.s > g.r) {
    const double* w = g.ur + 3*(g.s - 1);
    int s = g.s;
    L->urs_p = w[1]*L->ca[s] + w[2]*L->sa[s];
    L->urs[0] = w[0]; L->urs[1] = 0;
    L->urs[2] = -w[1]*L->sa[s] + w[2]*L->ca[s];
    L->urs_z2 = 2*L->urs[2]; L->urs_zz = L->urs[2]*L->urs[2];
  }
  return L;
oom:
  dyi_base_free(lin);
  dyv_lin_free(L);
  snprintf(err, (size_t)errsz, "lin: out of memory");
  return NULL;
}

void dyv_lin_free(dyvLin* L) {
  if (!L) return;
  free(L->kind); free(L->jnt); free(L->T); free(L->blin); free(L->uj); free(L->sj);
  free(L->beta_seen);
  free(L);
}

void dyv_lin_ops(dyvLin* L, long* mul, long* add, int reset) {
  *mul = L->opm; *add = L->opa;
  if (reset) L->opm = L->opa = 0;
}

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
  memset(L->sl, 0, sizeof(double) * NSLOT * (size_t)n);
  for (int i = 0; i < L->nlin; i++)
    if (L->kind[i] >= 0) L->sl[NSLOT*L->jnt[i] + L->kind[i]] = bl[i];
joints:
  for (int j = 0; j < n; j++) {
    double th = L->th0[j];
    L->d[j] = L->d0[j];
    if (L->type[j] == DY_REVOLUTE) th += q[j]; else L->d[j] += q[j];
    L->ct[j] = cos(th); L->st[j] = sin(th);
  }
}

#endif /* common part */

/* out = R_j v  (8M 4A) */
static inline void LFN(rot)(dyvLin* L, double out[3], int j, const double v[3]) {
  double c = L->ct[j], s = L->st[j], t2 = s*v[0] + L->ct[j]*v[1];
  out[0] = c*v[0] - s*v[1];
  out[1] = L->ca[j]*t2 - L->sa[j]*v[2];
  out[2] = L->sa[j]*t2 + L->ca[j]*v[2];
  OPS(8, 4);
}

/* the composite-body quantities from the MLCs (Table VII) */
static void LFN(finish_joint)(dyvLin* L, int i) {
  const double* sl = L->sl + NSLOT*i;
  double *c = L->c + 3*i, *J = L->J + 3*i, *l = L->l + 3*i, *V = L->V + 6*i;
  if (i == L->n - 1) {            /* tip: l = 0, V = 0, nothing to add */
    c[0] = sl[S_KX]; c[1] = sl[S_KY]; c[2] = sl[S_KZ];
    J[0] = sl[S_U13]; J[1] = sl[S_U23]; J[2] = sl[S_U33];
    if (i >= L->r && i < L->s) {
      if (L->type[i] == DY_REVOLUTE) L->tr[i] = L->sgn[i] * J[2];
      else L->tr[i] = sl[S_KAP1];
    }
    return;
  }
  if (i >= L->s) {
    c[0] = sl[S_KX] + l[0]; c[1] = sl[S_KY] + l[1];
    if (L->type[i] == DY_REVOLUTE) {
      /* V stored xx yy zz xy xz yz */
      J[0] = sl[S_U13] + V[4]; J[1] = sl[S_U23] + V[5]; J[2] = sl[S_U33] + V[2];
      OPS(0, 5);
    } else {
      c[2] = sl[S_KZ] + l[2];
      OPS(0, 3);
    }
  } else if (i >= L->r) {
    if (L->type[i] == DY_REVOLUTE) {
      c[0] = sl[S_KX] + l[0]; c[1] = sl[S_KY] + l[1];
      J[2] = sl[S_U33] + L->v[i];
      L->tr[i] = L->sgn[i] * J[2];
      OPS(0, 3);
    } else {
      const double* w = L->ur + 3*i;
      L->tr[i] = sl[S_KAP1] - w[1]*l[0] + w[0]*l[1];
      OPS(2, 2);
    }
  }
}

static void LFN(composite)(dyvLin* L) {
  int n = L->n, r = L->r, s = L->s;
  if (r >= n) return;
  memset(L->l + 3*(n-1), 0, 3*sizeof(double));
  memset(L->V + 6*(n-1), 0, 6*sizeof(double));
  L->v[n-1] = 0;
  LFN(finish_joint)(L, n - 1);
  for (int i = n - 2; i >= r; i--) {
    int nx = i + 1;
    const double* sx = L->sl + NSLOT*nx;
    double *l = L->l + 3*i, *V = L->V + 6*i;
    const double *lx = L->l + 3*nx, *cx = L->c + 3*nx, *Jx = L->J + 3*nx, *Vx = L->V + 6*nx;
    double dn = L->d[nx], md = 0, tmp[3];
    int tip = nx == n - 1;          /* l_nx = 0, V_nx = 0 */
    /* l_i (24) */
    if (L->type[nx] == DY_REVOLUTE) {
      tmp[0] = cx[0]; tmp[1] = cx[1]; tmp[2] = lx[2];
    } else {
      md = sx[S_MHAT] * dn;
      tmp[0] = lx[0]; tmp[1] = lx[1]; tmp[2] = lx[2] + md;
      OPS(1, tip ? 0 : 1);
    }
    if (tip && L->type[nx] == DY_REVOLUTE) {     /* R_nx (x, y, 0) */
      double t2 = L->st[nx]*tmp[0] + L->ct[nx]*tmp[1];
      l[0] = L->ct[nx]*tmp[0] - L->st[nx]*tmp[1]; l[1] = L->ca[nx]*t2; l[2] = L->sa[nx]*t2;
      OPS(6, 2);
    } else if (tip) {                            /* R_nx (0, 0, md) */
      l[0] = 0; l[1] = -L->sa[nx]*md; l[2] = L->ca[nx]*md;
      OPS(2, 0);
    } else {
      LFN(rot)(L, l, nx, tmp);
    }
    double Yv = 0;
    if (nx >= s) {
      /* X: the symmetric matrix inside the similarity of (34)/(35) */
      double X11, X22, X33, X12, X13, X23;
      if (tip && L->type[nx] == DY_REVOLUTE) {
        X11 = sx[S_U1122]; X22 = 0; X33 = Jx[2]; X12 = sx[S_U12];
        X13 = Jx[0] - dn*cx[0]; X23 = Jx[1] - dn*cx[1];
        OPS(2, 2);
      } else if (tip) {
        double e = dn*(md + cx[2] + cx[2]);
        X11 = e; X22 = e; X33 = 0; X12 = 0; X13 = -dn*cx[0]; X23 = -dn*cx[1];
        OPS(3, 2);
      } else if (L->type[nx] == DY_REVOLUTE) {
        double t = 2*dn*lx[2];                 /* 2 d constant */
        X11 = Vx[0] + sx[S_U1122] + t; X22 = Vx[1] + t; X33 = Jx[2];
        X12 = Vx[3] + sx[S_U12]; X13 = Jx[0] - dn*cx[0]; X23 = Jx[1] - dn*cx[1];
        OPS(3, 6);
      } else {
        double e = dn*(md + cx[2] + cx[2]);
        X11 = Vx[0] + e; X22 = Vx[1] + e; X33 = Vx[2];
        X12 = Vx[3]; X13 = Vx[4] - dn*cx[0]; X23 = Vx[5] - dn*cx[1];
        OPS(3, 6);
      }
      if (i >= s) {
        /* Y = R X R^T, eqs. (41)-(54) */
        double c = L->ct[nx], sn = L->st[nx], cb = L->ca[nx], sb = L->sa[nx];
        double A1 = c*(X11 - X22) - (sn + sn)*X12;
        double A2 = c*A1, A3 = X11 - A2, A4 = sn*A1 + X12;
        double A5 = sn*X13 + c*X23;
        double A6 = (A3 - X33)*cb - 2*sb*A5;     /* 2 sin(alpha) constant */
        double A7 = cb*A6, A8 = c*X13 - sn*X23;
        double Y11 = A2 + X22, Y22 = A7 + X33, Y33 = A3 - A7;
        double Y12 = cb*A4 - sb*A8, Y13 = sb*A4 + cb*A8, Y23 = A5 + sb*A6;
        OPS(16, 15);
        /* V_i = Y + b terms */
        double bb = L->a2[nx]*l[0];
        V[0] = Y11; V[1] = Y22 + bb; V[2] = Y33 + bb;
        V[3] = Y12 - L->a[nx]*l[1]; V[4] = Y13 - L->a[nx]*l[2]; V[5] = Y23;
        OPS(3, 4);
      } else {
        /* i = s-1: (Y)_33 = u^T X u, u = u_r^<s> (39), (55) */
        double ux, uy;
        if (L->type[i] == DY_REVOLUTE) {        /* u_r^<s-1> = (0,0,+-1) */
          ux = L->urs_p * L->st[nx]; uy = L->urs_p * L->ct[nx];
          OPS(2, 0);
        } else {
          ux = L->urs[0]*L->ct[nx] + L->urs_p*L->st[nx];
          uy = -L->urs[0]*L->st[nx] + L->urs_p*L->ct[nx];
          OPS(4, 2);
        }
        Yv = ux*(ux*X11 + 2*uy*X12) + uy*uy*X22 + L->urs_z2*(ux*X13 + uy*X23) + L->urs_zz*X33;
        OPS(10, 5);
      }
    } else if (L->type[nx] == DY_REVOLUTE) {
      Yv = Jx[2];
    } else {
      Yv = L->v[nx] + dn*(sx[S_KAP2] + sx[S_KAP2] + L->wz1[nx]*(md + lx[2] + lx[2])
                          - L->wzx2[nx]*lx[0] - L->wzy2[nx]*lx[1]);
      OPS(4, 7);
    }
    if (i < s) {
      if (L->type[i] == DY_REVOLUTE) {
        L->v[i] = Yv + L->a2[nx]*l[0];
        OPS(1, 1);
      } else {
        L->v[i] = Yv + L->a2[nx]*(L->wx1[i]*l[0] - L->wxy[i]*l[1] - L->wxz[i]*l[2]);
        OPS(4, 3);
      }
    }
    LFN(finish_joint)(L, i);
  }
}

#ifndef DYV_LIN_COUNTING
/* D_ii from the composite quantities (+ armature, not counted: outside
 * Lin's model) */
static double diag(dyvLin* L, int i) {
  const double* sl = L->sl + NSLOT*i;
  double h = L->type[i] == DY_REVOLUTE ? L->J[3*i + 2] : sl[S_MHAT];
  return h + sl[S_IA];
}

#endif

void LFN(dyv_lin_inertia1)(dyvLin* L, const double* beta, const double* q, double* H) {
  int n = L->n, r = L->r, s = L->s;
  gather(L, beta, q);
  LFN(composite)(L);
  for (int i = n - 1; i >= 0; i--) {
    H[i*n + i] = diag(L, i);
    if (i == 0) continue;
    const double* c = L->c + 3*i;
    int rev = L->type[i] == DY_REVOLUTE;
    /* f_ii = (-c_y, c_x, 0) or (0, 0, mhat); t_ii = Jhat_i e_z or c x e_z */
    double f[3] = {rev ? -c[1] : 0, rev ? c[0] : 0, rev ? 0 : L->sl[NSLOT*i + S_MHAT]};
    double t[3] = {0, 0, 0}, tr = L->tr[i];
    if (i >= s) {
      if (rev) { t[0] = L->J[3*i]; t[1] = L->J[3*i+1]; t[2] = L->J[3*i+2]; }
      else { t[0] = c[1]; t[1] = -c[0]; }
    }
    for (int j = i - 1; j >= 0; j--) {
      int jn = j + 1, first = j == i - 1;
      double fn[3] = {0, 0, 0}, tn[3];   /* fn unset only where it is not read */
      /* f_{j,i} = R_{j+1} f_{j+1,i}; not needed at a revolute joint 0
       * when only (t_{0,i})_z is (below) */
      int need_f = !(i >= s && j == 0 && L->type[0] == DY_REVOLUTE);
      if (need_f) {
        if (first && rev) {
          double t2 = L->st[jn]*f[0] + L->ct[jn]*f[1];
          fn[0] = L->ct[jn]*f[0] - L->st[jn]*f[1]; fn[1] = L->ca[jn]*t2; fn[2] = L->sa[jn]*t2;
          OPS(6, 2);
        } else if (first) {
          fn[0] = 0; fn[1] = -L->sa[jn]*f[2]; fn[2] = L->ca[jn]*f[2];
          OPS(2, 0);
        } else {
          LFN(rot)(L, fn, jn, f);
        }
      }
      if (i >= s && j >= r) {
        /* t_{j,i} = R (t' + d e_z x f') + a e_x x f_{j,i} (Table I, eq. 18) */
        double ux = t[0] - L->d[jn]*f[1], uy = t[1] + L->d[jn]*f[0];
        OPS(2, 2);
        if (j == r) {
          /* only the z component is used (no moment below joint r) */
          double w1 = L->st[jn]*ux + L->ct[jn]*uy, w2 = L->st[jn]*f[0] + L->ct[jn]*f[1];
          tn[2] = L->sa[jn]*w1 + L->ca[jn]*t[2] + L->aca[jn]*w2;
          OPS(7, 4);
          if (!(first && rev)) { tn[2] -= L->asa[jn]*f[2]; OPS(1, 1); }
          tn[0] = tn[1] = 0;
        } else {
          double u[3] = {ux, uy, t[2]};
          LFN(rot)(L, tn, jn, u);
          tn[1] -= L->a[jn]*fn[2]; tn[2] += L->a[jn]*fn[1];
          OPS(2, 2);
        }
        memcpy(t, tn, sizeof t);
      } else if (i < s && j >= r) {
        /* (30): tr_{j,i} = tr_{j+1,i} + f_{j,i} . (u_r^<j> x s_{j+1}^<j>) */
        const double *ub = L->uxb + 3*j, *ud = L->uxd + 3*j;
        double w[3] = {ub[0], ub[1], ub[2]};
        if (L->type[jn] == DY_PRISMATIC) {
          w[0] += L->d[jn]*ud[0]; w[1] += L->d[jn]*ud[1]; w[2] += L->d[jn]*ud[2];
          OPS(3, 3);
        }
        tr += fn[0]*w[0] + fn[1]*w[1] + fn[2]*w[2];
        OPS(3, 3);
      }
      if (need_f) memcpy(f, fn, sizeof f);
      double Dji;
      if (L->type[j] == DY_PRISMATIC) Dji = f[2];
      else if (i >= s) Dji = t[2];
      else Dji = L->sgn[j] * tr;
      H[j*n + i] = H[i*n + j] = Dji;
    }
  }
}

void LFN(dyv_lin_inertia2)(dyvLin* L, const double* beta, const double* q, double* H) {
  int n = L->n, s = L->s;
  gather(L, beta, q);
  LFN(composite)(L);
  /* u_j^<k> and, for revolute j, O_j -> O_k in frame k (Table II) */
  for (int j = 0; j + 1 < n; j++) {
    int k = j + 1, jrev = L->type[j] == DY_REVOLUTE;
    double* u = L->uj + 3*(j*n + k);
    double* sv = L->sj + 3*(j*n + k);
    u[0] = L->sa[k]*L->st[k]; u[1] = L->sa[k]*L->ct[k]; u[2] = L->ca[k];
    OPS(2, 0);
    if (jrev) {
      sv[0] = L->a[k]*L->ct[k]; sv[1] = -L->a[k]*L->st[k]; sv[2] = L->d[k];
      OPS(2, 0);
    }
    for (k = j + 2; k < n; k++) {
      const double* up = L->uj + 3*(j*n + k - 1);
      const double* sp = L->sj + 3*(j*n + k - 1);
      u = L->uj + 3*(j*n + k);
      sv = L->sj + 3*(j*n + k);
      /* R_k^T v */
      double c = L->ct[k], sn = L->st[k], ca = L->ca[k], sa = L->sa[k];
      double w = ca*up[1] + sa*up[2];
      u[0] = c*up[0] + sn*w; u[1] = -sn*up[0] + c*w; u[2] = -sa*up[1] + ca*up[2];
      OPS(8, 4);
      if (jrev) {
        double p0 = sp[0] + L->a[k];
        w = ca*sp[1] + sa*sp[2];
        sv[0] = c*p0 + sn*w; sv[1] = -sn*p0 + c*w; sv[2] = -sa*sp[1] + ca*sp[2] + L->d[k];
        OPS(8, 6);
      }
    }
  }
  for (int i = 0; i < n; i++) {
    H[i*n + i] = diag(L, i);
    const double* sl = L->sl + NSLOT*i;
    const double* c = L->c + 3*i;
    const double* J = L->J + 3*i;
    double mh = sl[S_MHAT];
    int irev = L->type[i] == DY_REVOLUTE;
    for (int j = 0; j < i; j++) {
      const double* u = L->uj + 3*(j*n + i);
      const double* sv = L->sj + 3*(j*n + i);
      int jrev = L->type[j] == DY_REVOLUTE;
      double D;
      if (i >= s) {
        if (jrev && irev) {
          D = u[0]*(J[0] - c[0]*sv[2]) + u[1]*(J[1] - c[1]*sv[2])
            + u[2]*(J[2] + c[0]*sv[0] + c[1]*sv[1]);
          OPS(7, 6);
        } else if (irev) {
          D = -u[0]*c[1] + u[1]*c[0];
          OPS(2, 1);
        } else if (jrev) {
          D = u[0]*(mh*sv[1] + c[1]) - u[1]*(mh*sv[0] + c[0]);
          OPS(4, 3);
        } else {
          D = mh*u[2];
          OPS(1, 0);
        }
      } else {
        /* (32): joints j < i < s; u_j^<i> = (0, 0, +-1) for revolute j
         * and i; the delta_i terms vanish when delta_i = 0 */
        int dl = L->delta[i];
        if (jrev && irev) {
          D = J[2];
          if (dl) { D += c[0]*sv[0] + c[1]*sv[1]; OPS(2, 2); }
          D *= L->sgn[j] * L->sgn[i];
        } else if (irev) {
          D = 0;
          if (dl) { D = -u[0]*c[1] + u[1]*c[0]; OPS(2, 1); }
        } else if (jrev) {
          D = mh*(u[0]*sv[1] - u[1]*sv[0]) + L->sgn[j]*L->tr[i];
          OPS(3, 2);
        } else {
          D = mh*u[2];
          OPS(1, 0);
        }
      }
      H[j*n + i] = H[i*n + j] = D;
    }
  }
}

#ifndef DYV_LIN_COUNTING
int dyv_lin_opcount_report(FILE* f, const dyModel* m) {
  char err[DY_ERRSZ];
  dyBase* b = dyi_base_compute(m, "lin", 1, err, sizeof err);
  if (!b) { fprintf(f, "# Lin & Fang formulations: %s\n", err); return -1; }
  dyvLin* L = dyv_lin_make(m, b, err, sizeof err);
  double* beta = malloc(sizeof(double) * (size_t)b->nb);
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
    long mul, add;
    dyv_lin_ops(L, &mul, &add, 1);
    dyv_lin_inertia1_ops(L, beta, q, H);
    dyv_lin_ops(L, &mul, &add, 1);
    fprintf(f, "lin_fang_F1,%ld,%ld,seed 001 Table VIII Formulation 1 (6R: 407 M; 301 A),407,301\n", mul, add);
    dyv_lin_inertia2_ops(L, beta, q, H);
    dyv_lin_ops(L, &mul, &add, 1);
    fprintf(f, "lin_fang_F2,%ld,%ld,seed 001 Table VIII Formulation 2 (6R: 410 M; 331 A),410,331\n", mul, add);
    r = 0;
  } else fprintf(f, "# Lin & Fang formulations: %s\n", L ? "out of memory" : err);
  free(beta); free(H);
  dyv_lin_free(L);
  dyi_base_free(b);
  return r;
}
#endif

#ifndef DYV_LIN_COUNTING
/* the counting twin (see the top of this file) */
#undef OPS
#undef LFN
#define DYV_LIN_COUNTING 1
#include "lin_inertia.c"
#endif
