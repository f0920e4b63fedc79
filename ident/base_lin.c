/* SPDX-License-Identifier: MIT */
/* dynid ident: S.K. Lin's minimal linear combinations ([LinFang99], Lin & Fang
 * 1999, Theorem 1), written in the standard parameters.
 *
 * With r the first revolute joint and s the first revolute joint not
 * parallel to joint r (Lin's numbering; here 0-based), the set is every
 * nonzero element of
 *   1. (U_j)_33, delta_j (k_j)_x, delta_j (k_j)_y        revolute r <= j < s
 *   2. (U_j)_11-(U_j)_22, (U_j)_12, (U_j)_13, (U_j)_23, (U_j)_33, (k_j)_x,
 *      (k_j)_y                                            revolute j >= s
 *   3. mhat_j                                             prismatic j
 *   4. (k_j)_x, (k_j)_y, (k_j)_z                          prismatic j > s
 *   5. sigma_j kappa_1j, sigma_j kappa_2j                 prismatic r < j < s
 * with (eqs. 27-28, w = u_r in frame j)
 *   kappa_1j = -w_y (k_j)_x + w_x (k_j)_y
 *   kappa_2j = -w_z (w_x (k_j)_x + w_y (k_j)_y) + (1 - w_z^2) (k_j)_z.
 * k_j, U_j, mhat_j are the composite-body constants of core/lin_const.h;
 * they are linear in the standard parameters, so row B[i] is read off by
 * evaluating them on the unit vectors e_k.
 *
 * Names (README.md, Parameters), joint numbers 1-based: U33_2, U11m22_3,
 * U12_3, U13_3, U23_3, kx_4, ky_4, kz_4, mhat_3, kappa1_2, kappa2_2.
 *
 * Joint parameters (friction = 1): IAj FVj FCj FOj are appended, except that
 * IAj is added to the constant it cannot be told apart from, where that
 * constant enters the equations of motion only as tau_j += c qdd_j:
 *   - IA of joint r goes into U33_r (joint r turns about a fixed axis);
 *   - IA of joint s goes into U33_s when u_s is perpendicular to u_r;
 *   - IA of a prismatic joint j < r goes into mhat_j when u_j is
 *     perpendicular to gravity and to every axis before it.
 * The QR rank test (dyi_base_verify) is the proof of every set.
 *
 * Outside the theorem (refused, NULL with a message): zero gravity. The
 * theorem lists first moments (k_j)_x, (k_j)_y for every revolute j >= s;
 * with g = 0 and, e.g., all axes through one fixed point they are not
 * identifiable (found by the rank test on random chains).
 *
 * P: each base parameter has a lead standard parameter (ZZ for U33, XX for
 * U11m22, XY/XZ/YZ for U12/U13/U23, MX/MY/MZ for kx/ky/kz, M for mhat, two
 * of MX MY MZ for kappa1/kappa2); B restricted to the lead columns is block
 * triangular (a row of joint j holds parameters of links >= j only) with
 * invertible diagonal blocks, so P = E_L (B_L)^-1: the realisation pi = P beta
 * has only lead parameters nonzero.                                        */
#include "ident/base.h"
#include "core/lin_const.h"
#include "core/mathu.h"
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the name of each kind (dyiLinKind order), followed by the joint number */
static const char* lk_name[] = {"U33_", "kx_", "ky_", "U11m22_", "U12_", "U13_",
                                "U23_", "mhat_", "kz_", "kappa1_", "kappa2_",
                                "IA", "FV", "FC", "FO"};

typedef struct { int kind, j; } lkRow;

/* value of one candidate from the constants of joint j */
static double lk_value(int kind, int j, const double* mhat, const double* k,
                       const double* U, const dyLinGeom* g) {
  const double* kj = k + 3*j;
  const double* Uj = U + 9*j;
  const double* w = g->ur + 3*j;
  switch (kind) {
    case DYI_LIN_U33: return Uj[8];
    case DYI_LIN_KX: return kj[0];
    case DYI_LIN_KY: return kj[1];
    case DYI_LIN_KZ: return kj[2];
    case DYI_LIN_U1122: return Uj[0] - Uj[4];
    case DYI_LIN_U12: return Uj[1];
    case DYI_LIN_U13: return Uj[2];
    case DYI_LIN_U23: return Uj[5];
    case DYI_LIN_MHAT: return mhat[j];
    case DYI_LIN_KAP1: return -w[1]*kj[0] + w[0]*kj[1];
    case DYI_LIN_KAP2: return -w[2]*(w[0]*kj[0] + w[1]*kj[1]) + (1 - w[2]*w[2])*kj[2];
    default: return 0;
  }
}

/* Theorem 1's candidates in joint order: prismatic j: mhat_j, with
 * kappa1_j, kappa2_j for r < j < s (sigma_j), kx ky kz for j > s;
 * revolute j < s: U33_j, with kx_j, ky_j where delta_j; revolute j >= s:
 * U11m22 U12 U13 U23 U33 kx ky. Returns their number. */
static int lin_candidates(const dyModel* m, const dyLinGeom* g, lkRow* cand) {
  int nc = 0, r = g->r, s = g->s;
  for (int j = 0; j < m->n; j++) {
    if (m->jnt_type[j] == DY_PRISMATIC) {
      cand[nc++] = (lkRow){DYI_LIN_MHAT, j};
      if (j > r && j < s && g->sigma[j]) {
        cand[nc++] = (lkRow){DYI_LIN_KAP1, j};
        cand[nc++] = (lkRow){DYI_LIN_KAP2, j};
      }
      if (j > s) {
        cand[nc++] = (lkRow){DYI_LIN_KX, j}; cand[nc++] = (lkRow){DYI_LIN_KY, j};
        cand[nc++] = (lkRow){DYI_LIN_KZ, j};
      }
    } else if (j < s) {
      cand[nc++] = (lkRow){DYI_LIN_U33, j};
      if (g->delta[j]) { cand[nc++] = (lkRow){DYI_LIN_KX, j}; cand[nc++] = (lkRow){DYI_LIN_KY, j}; }
    } else {
      int kinds[7] = {DYI_LIN_U1122, DYI_LIN_U12, DYI_LIN_U13, DYI_LIN_U23, DYI_LIN_U33, DYI_LIN_KX, DYI_LIN_KY};
      for (int t = 0; t < 7; t++) cand[nc++] = (lkRow){kinds[t], j};
    }
  }
  return nc;
}

/* Row i of Bc (nc x npar, link columns) is candidate i evaluated on the
 * unit vectors e_c (the constants are linear in pi; |B| < 1e-14 is
 * round-off); keep[i] = 0 for a row that is identically zero (Theorem 1
 * lists only the nonzero elements). ws: dy_npar + 13n doubles of scratch. */
static void lin_link_rows(const dyModel* m, const dyLinGeom* g, const lkRow* cand, int nc, int npar,
                          double* Bc, double* ws, int* keep) {
  int n = m->n, nl = DY_NPAR_LINK*n;
  double* e = ws;
  double* kk = e + dy_npar(m);
  double* UU = kk + 3*n;
  double* mh = UU + 9*n;
  for (int c = 0; c < nl; c++) {
    e[c] = 1;
    dy_lin_const(m, e, mh, kk, UU);
    e[c] = 0;
    for (int i = 0; i < nc; i++) {
      double v = lk_value(cand[i].kind, cand[i].j, mh, kk, UU, g);
      Bc[(size_t)i*npar + c] = fabs(v) < 1e-14 ? 0 : v;
    }
  }
  for (int i = 0; i < nc; i++) {
    double mx = 0;
    for (int c = 0; c < nl; c++) mx = fmax(mx, fabs(Bc[(size_t)i*npar + c]));
    keep[i] = mx > 1e-12;
  }
}

/* Where IA_j cannot be told apart from a link constant (it enters only as
 * tau_j += c qdd_j): grouped[j] = the candidate that takes IA_j, -1 if
 * none (the rules in the header: U33 of joint r; U33 of s when u_s is
 * perpendicular to u_r; mhat_j of a prismatic joint fixed in the base
 * before r, or along u_r before s, perpendicular to every prismatic axis
 * before it, which then also gives FO_j -= gfo_j mhat_j with
 * gfo_j = g . u_j). */
static void lin_group_ia(const dyModel* m, const dyLinGeom* g, const lkRow* cand, int nlink,
                         const int* keep, int* grouped, double* gfo) {
  int n = m->n, r = g->r, s = g->s;
  /* axes of the joints up to r in frame 0 (constant rotations) */
  double ax[DY_MAXJ][3], Rc[9], pc[3], Rk[9], pk[3], Rn[9], pn[3];
  dyu_eye3(Rc); pc[0] = pc[1] = pc[2] = 0;
  for (int k2 = 0; k2 < n && k2 <= r; k2++) {
    dy_jointframe(m, k2, 0, Rk, pk);
    dyu_composePose(Rn, pn, Rc, pc, Rk, pk);
    memcpy(Rc, Rn, sizeof Rc); memcpy(pc, pn, sizeof pc);
    ax[k2][0] = Rc[2]; ax[k2][1] = Rc[5]; ax[k2][2] = Rc[8];
  }
  for (int i = 0; i < nlink; i++) {
    if (!keep[i]) continue;
    int j = cand[i].j;
    if (cand[i].kind == DYI_LIN_U33 && j == r) grouped[j] = i;
    if (cand[i].kind == DYI_LIN_U33 && j == s && s < n) {
      double R[9], p[3];
      dy_jointframe(m, s, 0, R, p);
      double zs[3] = {R[2], R[5], R[8]};
      if (fabs(dyu_dot3(zs, g->ur + 3*(s-1))) <= 1e-9) grouped[j] = i;
    }
    if (cand[i].kind == DYI_LIN_MHAT && (j < r || (j < s && !g->sigma[j]))) {
      /* u_j fixed in the base (before r, or along u_r before s) and
       * perpendicular to every prismatic axis before it: mhat_j enters
       * only tau_j = mhat_j (qdd_j - g.u_j) */
      double uj[3];
      if (j < r) memcpy(uj, ax[j], sizeof uj);
      else for (int a = 0; a < 3; a++) uj[a] = g->ur[3*j + 2] * g->ur_base[a];
      int ok = 1;
      for (int k2 = 0; k2 < j && ok; k2++) {
        if (m->jnt_type[k2] != DY_PRISMATIC) continue;
        if (k2 < r) ok = fabs(dyu_dot3(uj, ax[k2])) <= 1e-9;
        else ok = fabs(g->ur[3*k2 + 2]) <= 1e-9;
      }
      if (ok) { grouped[j] = i; gfo[j] = dyu_dot3(m->gravity, uj); }
    }
  }
}

/* The lead standard parameter of a candidate: ZZ for U33, XX for U11m22,
 * XY/XZ/YZ for U12/U13/U23, MX/MY/MZ for kx/ky/kz, M for mhat, for
 * kappa1/kappa2 the pair of MX MY MZ with the best-conditioned 2x2 block
 * of (27)-(28), the joint parameter itself for IA..FO. */
static int lin_lead(int kind, int j, int nl, const dyLinGeom* g) {
  int base = DY_NPAR_LINK*j;
  switch (kind) {
    case DYI_LIN_U33: return base + DY_ZZ;
    case DYI_LIN_KX: return base + DY_MX;
    case DYI_LIN_KY: return base + DY_MY;
    case DYI_LIN_KZ: return base + DY_MZ;
    case DYI_LIN_U1122: return base + DY_XX;
    case DYI_LIN_U12: return base + DY_XY;
    case DYI_LIN_U13: return base + DY_XZ;
    case DYI_LIN_U23: return base + DY_YZ;
    case DYI_LIN_MHAT: return base + DY_M;
    case DYI_LIN_KAP1: case DYI_LIN_KAP2: {
      const double* w = g->ur + 3*j;
      double A[2][3] = {{-w[1], w[0], 0}, {-w[2]*w[0], -w[2]*w[1], 1 - w[2]*w[2]}};
      int pa[3][2] = {{0, 1}, {0, 2}, {1, 2}}, best = 0;
      double bd = -1;
      for (int t = 0; t < 3; t++) {
        double d = fabs(A[0][pa[t][0]]*A[1][pa[t][1]] - A[0][pa[t][1]]*A[1][pa[t][0]]);
        if (d > bd) { bd = d; best = t; }
      }
      return base + DY_MX + pa[best][kind == DYI_LIN_KAP1 ? 0 : 1];
    }
    default: return nl + 4*j + (kind - DYI_LIN_IA);
  }
}

/* Row `row` of B from candidate i: a link row as evaluated (plus IA_jj for
 * every joint jj it takes, except in an FO row), a joint row e_k; FO_j of
 * a grouped prismatic joint j: FO_j - gfo_j mhat_j (mhat_j before IA). */
static void lin_row(dyiBase* B, int row, const lkRow* cand, int i, int nlink, const double* Bc,
                    const int* grouped, const double* gfo, int n) {
  int npar = B->npar, nl = DY_NPAR_LINK*n, kind = cand[i].kind, j = cand[i].j;
  double* Br = B->B + (size_t)row*npar;
  if (i < nlink) memcpy(Br, Bc + (size_t)i*npar, sizeof(double)*(size_t)npar);
  else Br[nl + 4*j + (kind - DYI_LIN_IA)] = 1;
  if (B->friction && kind == DYI_LIN_FO && grouped[j] >= 0 && gfo[j] != 0 && fabs(gfo[j]) > 1e-12) {
    const double* bm = Bc + (size_t)grouped[j]*npar;
    for (int c = 0; c < nl; c++) Br[c] -= gfo[j] * bm[c];
  }
  if (B->friction && i < nlink && kind != DYI_LIN_FO) {
    for (int jj = 0; jj < n; jj++) if (grouped[jj] == i) Br[nl + 4*jj] = 1;
  }
}

/* P = E_L (B_L)^-1 with B_L = B[:, lead] (block triangular with
 * invertible diagonal blocks): row lead[c] of P is row c of B_L^-1. */
static int lin_realise(dyiBase* B, char* err, int errsz) {
  int nb = B->nb, npar = B->npar;
  double* BL = calloc((size_t)nb*(size_t)nb*2, sizeof(double));
  int* ipiv = malloc(sizeof(int)*(size_t)(nb ? nb : 1));
  if (!BL || !ipiv) { free(BL); free(ipiv); snprintf(err, (size_t)errsz, "lin: out of memory"); return -1; }
  double* X = BL + (size_t)nb*nb;
  for (int i = 0; i < nb; i++) {
    for (int c = 0; c < nb; c++) BL[i + (size_t)c*nb] = B->B[(size_t)i*npar + B->lead[c]];
    X[i + (size_t)i*nb] = 1;
  }
  int info = nb ? LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nb, nb, BL, nb, ipiv, X, nb) : 0;
  if (info != 0) {
    free(BL); free(ipiv);
    snprintf(err, (size_t)errsz, "lin: the lead columns of B are singular (LAPACK info %d)", info);
    return -1;
  }
  for (int c = 0; c < nb; c++)
    for (int i = 0; i < nb; i++) B->P[(size_t)B->lead[c]*nb + i] = X[c + (size_t)i*nb];
  free(BL); free(ipiv);
  return 0;
}

dyiBase* dyi_base_lin(const dyModel* m, int friction, char* err, int errsz) {
  int n = m->n, nl = DY_NPAR_LINK*n, npar = friction ? dy_npar(m) : nl;
  if (m->gravity[0] == 0 && m->gravity[1] == 0 && m->gravity[2] == 0) {
    snprintf(err, (size_t)errsz, "lin: zero gravity is outside [LinFang99]'s Theorem 1 (first "
             "moments seen only through gravity lose identifiability in ways it does not "
             "list); use the qr or khalil set");
    return NULL;
  }
  if (friction && m->nmot) {
    snprintf(err, (size_t)errsz, "lin: a motor coupling joints (IAM, FVM, FCM) is outside [LinFang99]'s "
             "sets; use the khalil or qr set");
    return NULL;
  }
  dyLinGeom g;
  dy_lin_geom(m, &g);
  lkRow cand[DY_MAXPAR];
  int keep[DY_MAXPAR], nb = 0;
  int nc = lin_candidates(m, &g, cand), nlink = nc;
  /* the link rows, then scratch: the full vector (dy_npar) + 3n + 9n + n */
  double* Bc = calloc((size_t)nc * (size_t)npar + (size_t)dy_npar(m) + 3*(size_t)n + 9*(size_t)n + (size_t)n, sizeof(double));
  if (!Bc) { snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  lin_link_rows(m, &g, cand, nc, npar, Bc, Bc + (size_t)nc * (size_t)npar, keep);
  /* joint parameters: IA_j where it is not grouped, FV_j, FC_j, FO_j */
  int grouped[DY_MAXJ];
  double gfo[DY_MAXJ];
  for (int j = 0; j < n; j++) { grouped[j] = -1; gfo[j] = 0; }
  if (friction) {
    lin_group_ia(m, &g, cand, nlink, keep, grouped, gfo);
    for (int j = 0; j < n; j++)
      for (int t = 0; t < 4; t++) {
        if (t == 0 && grouped[j] >= 0) continue;
        cand[nc] = (lkRow){DYI_LIN_IA + t, j};
        keep[nc] = 1;
        nc++;
      }
  }
  for (int i = 0; i < nc; i++) nb += keep[i];
  dyiBase* B = dyi_base_make_empty(DYI_SET_LIN, nb, npar, friction);
  if (!B) { free(Bc); snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  for (int i = 0, row = 0; i < nc; i++) {
    if (!keep[i]) continue;
    snprintf(B->name[row], sizeof B->name[row], "%s%d", lk_name[cand[i].kind], cand[i].j + 1);
    B->lin_kind[row] = cand[i].kind;
    B->lin_joint[row] = cand[i].j;
    lin_row(B, row, cand, i, nlink, Bc, grouped, gfo, n);
    B->lead[row] = lin_lead(cand[i].kind, cand[i].j, nl, &g);
    row++;
  }
  free(Bc);
  if (lin_realise(B, err, errsz)) { dyi_base_free(B); return NULL; }
  return B;
}
