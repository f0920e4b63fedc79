/* dynid verify: Lin's base-frame composite body method (seed 000, Fig. 3);
 * equations in lin91.h. Compiled twice: as itself and inside
 * verify/opcount.c with DYV_COUNT_OPS (the counting twins *_ops).
 *
 * Three sweeps, O(n) storage: (A) forward: s_j; (B) backward: composite
 * mh_j, ph_j, Jb_j; (C) forward: the axes u_m^<j>, sh_m^<j> and the
 * velocity sums zeta_m qd_m of the joints m < j are carried into frame j in
 * place (eqs. 24, 27, 57), then column j of H (65) and, for the bias, the
 * vectors d_mj (66), accumulated into b_m and b_j as eq. (54) prescribes. */
#include "lin91.h"
#include "opcount.h"
#include <string.h>

static void DYV_FN(lin91_core)(const dyModel* m, dyData* d, const double* par,
                               const double* q, const double* qd, double* H, double* b) {
  const int n = m->n;
  const int* type = m->jnt_type;
  double* cs = d->work;          /* cos, sin theta (2n) */
  double* mh = d->work + 2*n;    /* composite masses (n) */
  double* csa = d->work + 3*n;   /* cos, sin alpha (2n) */
  int acls[DY_MAXJ];
  double* s = d->vd;             /* s_j (3n) */
  double* ph = d->f;             /* ph_j (3n) */
  double* Jb = d->ci;            /* Jb_j (6n) */
  double* c = d->p;              /* c_j = O_j - O_{j-1} in frame j-1 (3n) */

  /* (A) frames and s_j = R^T (s_{j-1} + c_j) */
  for (int j = 0; j < n; j++) {
    double ct, st, dj = m->dh_d[j], th = m->dh_theta[j];
    if (type[j] == DY_REVOLUTE) { th += q[j]; DYV_OPS(0, 1); } else { dj += q[j]; DYV_OPS(0, 1); }
    sincos(th, &st, &ct);
    cs[2*j] = ct; cs[2*j+1] = st;
    acls[j] = dyv_alpha_class(m->dh_alpha[j], &csa[2*j], &csa[2*j+1]);
    double* cj = c + 3*j;
    cj[0] = m->dh_a[j]; cj[1] = -csa[2*j+1]*dj; cj[2] = csa[2*j]*dj;
    if (acls[j] == 0) DYV_OPS(2, 0);
    double u[3] = {cj[0], cj[1], cj[2]};
    if (j > 0) dyv_add(u, s + 3*(j-1));
    dyv_rotT(s + 3*j, u, ct, st, acls[j], csa[2*j], csa[2*j+1]);
  }

  /* (B) composite bodies, backward (28)-(30) */
  for (int j = n - 1; j >= 0; j--) {
    const double* pl = par + DY_NPAR_LINK*j;
    const double* sj = s + 3*j;
    const double M = pl[DY_M], *h = pl + DY_MX;
    double* P = ph + 3*j;
    double* Jj = Jb + 6*j;
    /* own link about O: w = M s / 2 + h, Jb = J - tr(J)/2 E - (s w^T + w s^T) */
    double hm = 0.5*M, w[3] = {hm*sj[0] + h[0], hm*sj[1] + h[1], hm*sj[2] + h[2]};
    double ht = 0.5*(pl[DY_XX] + pl[DY_YY] + pl[DY_ZZ]);
    Jj[0] = pl[DY_XX] - ht - 2*sj[0]*w[0];
    Jj[1] = pl[DY_XY] - sj[0]*w[1] - w[0]*sj[1];
    Jj[2] = pl[DY_XZ] - sj[0]*w[2] - w[0]*sj[2];
    Jj[3] = pl[DY_YY] - ht - 2*sj[1]*w[1];
    Jj[4] = pl[DY_YZ] - sj[1]*w[2] - w[1]*sj[2];
    Jj[5] = pl[DY_ZZ] - ht - 2*sj[2]*w[2];
    P[0] = M*sj[0] + h[0]; P[1] = M*sj[1] + h[1]; P[2] = M*sj[2] + h[2];
    DYV_OPS(4 + 2 + 15 + 3, 3 + 2 + 15 + 3);
    mh[j] = M;
    if (j < n - 1) {
      const double ct = cs[2*(j+1)], st = cs[2*(j+1)+1];
      const int cl = acls[j+1];
      double r[3], rj[6];
      dyv_rotN(r, ph + 3*(j+1), ct, st, cl, csa[2*(j+1)], csa[2*(j+1)+1]);
      dyv_add(P, r);
      dyv_rotSym(rj, Jb + 6*(j+1), ct, st, cl, csa[2*(j+1)], csa[2*(j+1)+1]);
      for (int k = 0; k < 6; k++) Jj[k] += rj[k];
      mh[j] += mh[j+1];
      DYV_OPS(0, 7);
    }
  }

  /* (C) forward: carry u_m, sh_m, zeta_m qd_m (m < j) into frame j */
  double* u = d->nm;     /* u_m^<j> (3n) */
  double* sh = d->wd;    /* sh_m^<j> (3n) */
  double* zq = d->cv;    /* zeta_m^<j> qd_m (3n) */
  double zeta[3] = {0, 0, 0};   /* zeta_{j-1}^<j-1> + K*_{j-1} u_{j-1} qd_{j-1} */
  double g[3] = {m->gravity[0], m->gravity[1], m->gravity[2]};
  const double* pj = par + DY_NPAR_LINK*n;
  if (b) memset(b, 0, sizeof(double) * (size_t)n);
  for (int j = 0; j < n; j++) {
    const double ct = cs[2*j], st = cs[2*j+1], ca = csa[2*j], sa = csa[2*j+1];
    const int cl = acls[j], rj = type[j] == DY_REVOLUTE;
    double t[3];
    for (int k = 0; k < j; k++) {
      dyv_rotT(t, u + 3*k, ct, st, cl, ca, sa); memcpy(u + 3*k, t, sizeof t);
      if (type[k] == DY_REVOLUTE) {
        dyv_rotT(t, sh + 3*k, ct, st, cl, ca, sa); memcpy(sh + 3*k, t, sizeof t);
      }
      if (b) {
        dyv_rotT(t, zq + 3*k, ct, st, cl, ca, sa); memcpy(zq + 3*k, t, sizeof t);
      }
    }
    const double* sj = s + 3*j;
    double* uj = u + 3*j;  uj[0] = 0; uj[1] = 0; uj[2] = 1;
    double* shj = sh + 3*j; shj[0] = -sj[1]; shj[1] = sj[0]; shj[2] = 0;
    const double* P = ph + 3*j;
    const double* Jj = Jb + 6*j;
    const double M = mh[j];
    if (b) {
      dyv_rotT(t, g, ct, st, cl, ca, sa); memcpy(g, t, sizeof t);
      /* zeta_j qd_j, eq. (56) */
      if (j > 0) { dyv_rotT(t, zeta, ct, st, cl, ca, sa); memcpy(zeta, t, sizeof t); }
      const double qdj = qd ? qd[j] : 0;
      if (rj) { zeta[2] += qdj; DYV_OPS(0, 1); }
      double* zj = zq + 3*j;
      zj[0] = zeta[0]*qdj; zj[1] = zeta[1]*qdj; zj[2] = zeta[2]*qdj; DYV_OPS(3, 0);
      if (rj) { zeta[2] += qdj; DYV_OPS(0, 1); }
    }
    double e[3] = {0, 0, 0}, a[3] = {0, 0, 0}, Bm[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (rj) {
      /* e = z x ph - mh sh, a = Jh z + sh x ph (62, 63) */
      e[0] = -P[1] - M*shj[0]; e[1] = P[0] - M*shj[1]; e[2] = 0;
      a[0] = Jj[2] + shj[1]*P[2]; a[1] = Jj[4] - shj[0]*P[2];
      a[2] = -Jj[0] - Jj[3] + shj[0]*P[1] - shj[1]*P[0];
      DYV_OPS(2 + 6, 2 + 5);
      if (b) {
        /* B = -Jb [z x] + [sh x][ph x]; [z x] = [0 -1 0; 1 0 0; 0 0 0],
         * [sh x][ph x] = ph sh^T - (sh . ph) E, sh_z = 0 */
        const double sp = shj[0]*P[0] + shj[1]*P[1];
        Bm[0] = -Jj[1] + P[0]*shj[0] - sp; Bm[1] = Jj[0] + P[0]*shj[1]; Bm[2] = 0;
        Bm[3] = -Jj[3] + P[1]*shj[0];      Bm[4] = Jj[1] + P[1]*shj[1] - sp; Bm[5] = 0;
        Bm[6] = -Jj[4] + P[2]*shj[0];      Bm[7] = Jj[2] + P[2]*shj[1]; Bm[8] = -sp;
        DYV_OPS(2 + 6, 1 + 8);
        b[j] -= e[0]*g[0] + e[1]*g[1]; DYV_OPS(2, 2);               /* eta_j (67) */
      }
    } else if (b) {
      b[j] -= M*g[2]; DYV_OPS(1, 1);
    }
    /* column j of H and the d_mj */
    for (int mm = 0; mm <= j; mm++) {
      const double* um = u + 3*mm;
      const double* shm = sh + 3*mm;
      const int rm = type[mm] == DY_REVOLUTE;
      double hmj;
      if (rm && rj) { hmj = dyv_dot(a, um) - (shm[0]*e[0] + shm[1]*e[1] + shm[2]*e[2]); DYV_OPS(3, 3); }
      else if (rj) { hmj = e[0]*um[0] + e[1]*um[1]; DYV_OPS(2, 1); }
      else if (rm) { hmj = um[0]*P[1] - um[1]*P[0] - M*shm[2]; DYV_OPS(3, 2); }
      else { hmj = M*um[2]; DYV_OPS(1, 0); }
      if (H) H[mm*n + j] = H[j*n + mm] = hmj;
      if (!b || mm == j) continue;
      double dv[3];
      if (rm && rj) {
        /* B u_m + sh_m x e */
        dv[0] = Bm[0]*um[0] + Bm[1]*um[1];
        dv[1] = Bm[3]*um[0] + Bm[4]*um[1];
        dv[2] = Bm[6]*um[0] + Bm[7]*um[1] + Bm[8]*um[2];
        DYV_OPS(7, 4);
        dyv_addCross(dv, shm, e);
      } else if (rj) {
        dyv_cross(dv, e, um);
      } else if (rm) {
        /* z x (u_m x ph - mh sh_m) */
        double v0 = um[1]*P[2] - um[2]*P[1] - M*shm[0];
        double v1 = um[2]*P[0] - um[0]*P[2] - M*shm[1];
        dv[0] = -v1; dv[1] = v0; dv[2] = 0;
        DYV_OPS(6, 4);
      } else {
        dv[0] = -M*um[1]; dv[1] = M*um[0]; dv[2] = 0; DYV_OPS(2, 0);
      }
      /* b_m += (zeta_j qd_j) . d_mj ; b_j -= (zeta_m^<j> qd_m) . d_mj */
      b[mm] += dyv_dot(zq + 3*j, dv);
      b[j] -= dyv_dot(zq + 3*mm, dv);
      DYV_OPS(0, 2);
    }
    if (H) { H[j*n + j] += pj[DY_NPAR_JNT*j + DY_IA]; DYV_OPS(0, 1); }
  }
  if (b) {
    for (int j = 0; j < n; j++) {
      const double qdj = qd ? qd[j] : 0;
      const double* pk = pj + DY_NPAR_JNT*j;
      b[j] += pk[DY_FV]*qdj + pk[DY_FC]*((qdj > 0) - (qdj < 0)) + pk[DY_FO];
      DYV_OPS(2, 3);
    }
  }
}

void DYV_FN(dyv_lin91_H)(const dyModel* m, dyData* d, const double* par, const double* q,
                         double* H) {
  DYV_FN(lin91_core)(m, d, par, q, NULL, H, NULL);
}

void DYV_FN(dyv_lin91_Hb)(const dyModel* m, dyData* d, const double* par, const double* q,
                          const double* qd, double* H, double* b) {
  DYV_FN(lin91_core)(m, d, par, q, qd, H, b);
}
