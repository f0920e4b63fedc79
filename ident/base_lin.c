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
#include "base.h"
#include "lin_const.h"
#include "mathu.h"
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LK_U33, LK_KX, LK_KY, LK_U1122, LK_U12, LK_U13, LK_U23, LK_MHAT, LK_KZ,
       LK_KAP1, LK_KAP2, LK_IA, LK_FV, LK_FC, LK_FO };
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
    case LK_U33: return Uj[8];
    case LK_KX: return kj[0];
    case LK_KY: return kj[1];
    case LK_KZ: return kj[2];
    case LK_U1122: return Uj[0] - Uj[4];
    case LK_U12: return Uj[1];
    case LK_U13: return Uj[2];
    case LK_U23: return Uj[5];
    case LK_MHAT: return mhat[j];
    case LK_KAP1: return -w[1]*kj[0] + w[0]*kj[1];
    case LK_KAP2: return -w[2]*(w[0]*kj[0] + w[1]*kj[1]) + (1 - w[2]*w[2])*kj[2];
    default: return 0;
  }
}

dyBase* dyi_base_lin(const dyModel* m, int friction, char* err, int errsz) {
  int n = m->n, nl = DY_NPAR_LINK*n, npar = friction ? 14*n : nl;
  if (m->gravity[0] == 0 && m->gravity[1] == 0 && m->gravity[2] == 0) {
    snprintf(err, (size_t)errsz, "lin: zero gravity is outside [LinFang99]'s Theorem 1 (first "
             "moments seen only through gravity lose identifiability in ways it does not "
             "list); use the qr or khalil set");
    return NULL;
  }
  dyLinGeom g;
  dy_lin_geom(m, &g);
  int r = g.r, s = g.s;

  /* candidates in joint order (Theorem 1) */
  lkRow cand[14*DY_MAXJ];
  int nc = 0;
  for (int j = 0; j < n; j++) {
    if (m->jnt_type[j] == DY_PRISMATIC) {
      cand[nc++] = (lkRow){LK_MHAT, j};
      if (j > r && j < s && g.sigma[j]) {
        cand[nc++] = (lkRow){LK_KAP1, j};
        cand[nc++] = (lkRow){LK_KAP2, j};
      }
      if (j > s) {
        cand[nc++] = (lkRow){LK_KX, j}; cand[nc++] = (lkRow){LK_KY, j};
        cand[nc++] = (lkRow){LK_KZ, j};
      }
    } else if (j < s) {
      cand[nc++] = (lkRow){LK_U33, j};
      if (g.delta[j]) { cand[nc++] = (lkRow){LK_KX, j}; cand[nc++] = (lkRow){LK_KY, j}; }
    } else {
      int kinds[7] = {LK_U1122, LK_U12, LK_U13, LK_U23, LK_U33, LK_KX, LK_KY};
      for (int t = 0; t < 7; t++) cand[nc++] = (lkRow){kinds[t], j};
    }
  }
  int nlink = nc;

  /* rows of the link part: constants on unit vectors */
  double* Bc = calloc((size_t)nc * (size_t)npar + (size_t)(14*n) + 3*(size_t)n + 9*(size_t)n + (size_t)n, sizeof(double));
  if (!Bc) { snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  double* e = Bc + (size_t)nc * (size_t)npar;
  double* kk = e + 14*n;
  double* UU = kk + 3*n;
  double* mh = UU + 9*n;
  for (int c = 0; c < nl; c++) {
    e[c] = 1;
    dy_lin_const(m, e, mh, kk, UU);
    e[c] = 0;
    for (int i = 0; i < nc; i++) {
      double v = lk_value(cand[i].kind, cand[i].j, mh, kk, UU, &g);
      Bc[(size_t)i*npar + c] = fabs(v) < 1e-14 ? 0 : v;
    }
  }
  /* drop rows that are identically zero ("all nonzero elements") */
  int keep[14*DY_MAXJ], nb = 0;
  for (int i = 0; i < nc; i++) {
    double mx = 0;
    for (int c = 0; c < nl; c++) mx = fmax(mx, fabs(Bc[(size_t)i*npar + c]));
    keep[i] = mx > 1e-12;
  }

  /* joint parameters */
  int grouped[DY_MAXJ];          /* row (candidate index) that takes IA_j, -1 */
  double gfo[DY_MAXJ];           /* FO_j -= gfo_j * mhat_j when grouped */
  for (int j = 0; j < n; j++) { grouped[j] = -1; gfo[j] = 0; }
  if (friction) {
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
      if (cand[i].kind == LK_U33 && j == r) grouped[j] = i;
      if (cand[i].kind == LK_U33 && j == s && s < n) {
        double R[9], p[3];
        dy_jointframe(m, s, 0, R, p);
        double zs[3] = {R[2], R[5], R[8]};
        if (fabs(dyu_dot3(zs, g.ur + 3*(s-1))) <= 1e-9) grouped[j] = i;
      }
      if (cand[i].kind == LK_MHAT && (j < r || (j < s && !g.sigma[j]))) {
        /* u_j fixed in the base (before r, or along u_r before s) and
         * perpendicular to every prismatic axis before it: mhat_j enters
         * only tau_j = mhat_j (qdd_j - g.u_j) */
        double uj[3];
        if (j < r) memcpy(uj, ax[j], sizeof uj);
        else for (int a = 0; a < 3; a++) uj[a] = g.ur[3*j + 2] * g.ur_base[a];
        int ok = 1;
        for (int k2 = 0; k2 < j && ok; k2++) {
          if (m->jnt_type[k2] != DY_PRISMATIC) continue;
          if (k2 < r) ok = fabs(dyu_dot3(uj, ax[k2])) <= 1e-9;
          else ok = fabs(g.ur[3*k2 + 2]) <= 1e-9;
        }
        if (ok) { grouped[j] = i; gfo[j] = dyu_dot3(m->gravity, uj); }
      }
    }
    for (int j = 0; j < n; j++) {
      for (int t = 0; t < 4; t++) {
        if (t == 0 && grouped[j] >= 0) continue;
        cand[nc] = (lkRow){LK_IA + t, j};
        keep[nc] = 1;
        nc++;
      }
    }
  }
  for (int i = 0; i < nc; i++) nb += keep[i];

  dyBase* B = dyi_base_alloc("lin", nb, npar, friction);
  if (!B) { free(Bc); snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  int row = 0;
  for (int i = 0; i < nc; i++) {
    if (!keep[i]) continue;
    int kind = cand[i].kind, j = cand[i].j;
    snprintf(B->name[row], sizeof B->name[row], "%s%d", lk_name[kind], j + 1);
    double* Br = B->B + (size_t)row*npar;
    if (i < nlink) memcpy(Br, Bc + (size_t)i*npar, sizeof(double)*(size_t)npar);
    else Br[nl + 4*j + (kind - LK_IA)] = 1;
    if (friction && kind == LK_FO && grouped[j] >= 0 && gfo[j] != 0 && fabs(gfo[j]) > 1e-12) {
      const double* bm = Bc + (size_t)grouped[j]*npar;     /* mhat_j before IA */
      for (int c = 0; c < nl; c++) Br[c] -= gfo[j] * bm[c];
    }
    if (friction && i < nlink && kind != LK_FO) {
      for (int jj = 0; jj < n; jj++) if (grouped[jj] == i) Br[nl + 4*jj] = 1;
    }
    /* lead parameter */
    int base = DY_NPAR_LINK*j, lead = -1;
    switch (kind) {
      case LK_U33: lead = base + DY_ZZ; break;
      case LK_KX: lead = base + DY_MX; break;
      case LK_KY: lead = base + DY_MY; break;
      case LK_KZ: lead = base + DY_MZ; break;
      case LK_U1122: lead = base + DY_XX; break;
      case LK_U12: lead = base + DY_XY; break;
      case LK_U13: lead = base + DY_XZ; break;
      case LK_U23: lead = base + DY_YZ; break;
      case LK_MHAT: lead = base + DY_M; break;
      case LK_KAP1: case LK_KAP2: {
        /* the pair of MX MY MZ with the best-conditioned 2x2 block */
        const double* w = g.ur + 3*j;
        double A[2][3] = {{-w[1], w[0], 0}, {-w[2]*w[0], -w[2]*w[1], 1 - w[2]*w[2]}};
        int pa[3][2] = {{0, 1}, {0, 2}, {1, 2}}, best = 0;
        double bd = -1;
        for (int t = 0; t < 3; t++) {
          double d = fabs(A[0][pa[t][0]]*A[1][pa[t][1]] - A[0][pa[t][1]]*A[1][pa[t][0]]);
          if (d > bd) { bd = d; best = t; }
        }
        lead = base + DY_MX + pa[best][kind == LK_KAP1 ? 0 : 1];
        break;
      }
      default: lead = nl + 4*j + (kind - LK_IA); break;
    }
    B->lead[row] = lead;
    row++;
  }
  free(Bc);

  /* P = E_L (B_L)^-1, B_L = B[:, lead] (column-major for LAPACK) */
  double* BL = calloc((size_t)nb*(size_t)nb*2, sizeof(double));
  int* ipiv = malloc(sizeof(int)*(size_t)(nb ? nb : 1));
  if (!BL || !ipiv) { free(BL); free(ipiv); dyi_base_free(B); snprintf(err, (size_t)errsz, "lin: out of memory"); return NULL; }
  double* X = BL + (size_t)nb*nb;
  for (int i = 0; i < nb; i++) {
    for (int c = 0; c < nb; c++) BL[i + (size_t)c*nb] = B->B[(size_t)i*npar + B->lead[c]];
    X[i + (size_t)i*nb] = 1;
  }
  int info = nb ? LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nb, nb, BL, nb, ipiv, X, nb) : 0;
  if (info != 0) {
    free(BL); free(ipiv); dyi_base_free(B);
    snprintf(err, (size_t)errsz, "lin: the lead columns of B are singular (LAPACK info %d)", info);
    return NULL;
  }
  for (int c = 0; c < nb; c++)          /* row lead[c] of P is row c of X */
    for (int i = 0; i < nb; i++) B->P[(size_t)B->lead[c]*nb + i] = X[c + (size_t)i*nb];
  free(BL); free(ipiv);
  return B;
}
