/* dynid verify: Newton-Euler on base parameters (see ne_base.h).
 * This file is compiled twice: as itself, and inside verify/opcount.c with
 * DYV_COUNT_OPS defined (the counting twin dyv_nebase_rnea_ops). */
#include "ne_base.h"
#include "opcount.h"
#include <math.h>
#include <string.h>

#ifndef DYV_COUNT_OPS
void dyv_nebase_make(dyvNeBase* pl, const dyModel* m, const unsigned char* zero) {
  const int n = m->n;
  memset(pl, 0, sizeof *pl);
  pl->n = n;
  memcpy(pl->g, m->gravity, sizeof pl->g);
  for (int j = 0; j < n; j++) {
    pl->type[j] = m->jnt_type[j];
    pl->acls[j] = dyv_alpha_class(m->dh_alpha[j], &pl->ca[j], &pl->sa[j]);
    pl->a[j] = m->dh_a[j]; pl->d0[j] = m->dh_d[j]; pl->th0[j] = m->dh_theta[j];
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
#undef NZ
    if (!zj || !zj[0] || !zj[1] || !zj[2] || !zj[3]) f |= DYV_NB_FRIC;
    /* p = (a, -sin(alpha) d, cos(alpha) d); d varies for a prismatic joint */
    int dnz = m->jnt_type[j] == DY_PRISMATIC || m->dh_d[j] != 0;
    if (m->dh_a[j] != 0) f |= DYV_NB_PX;
    if (dnz && pl->sa[j] != 0) f |= DYV_NB_PY;
    if (dnz && pl->ca[j] != 0) f |= DYV_NB_PZ;
    pl->flags[j] = f;
  }
  for (int j = 0; j < n; j++) {
    int u = 0;
    for (int k = 0; k < 3; k++) {
      if (pl->flags[j] & (DYV_NB_MSX << k)) u |= 1 << k;
      if (j + 1 < n && (pl->flags[j+1] & (DYV_NB_PX << k))) u |= 1 << k;
    }
    pl->ucol[j] = u;
  }
  pl->nzero = 0;
  if (zero) for (int k = 0; k < 14*n; k++) pl->nzero += zero[k] != 0;
}

void dyv_nebase_zero_from_P(unsigned char* zero, const dyModel* m, const double* P,
                            int npar, int nb) {
  const int np = 14*m->n;
  for (int k = 0; k < np; k++) {
    int z = 1;
    if (k < npar)
      for (int i = 0; i < nb; i++) if (P[(size_t)k*nb + i] != 0) { z = 0; break; }
    zero[k] = (unsigned char)z;
  }
}

void dyv_nebase_zero_from_par(unsigned char* zero, const dyModel* m, const double* par) {
  for (int k = 0; k < 14*m->n; k++) zero[k] = par[k] == 0;
}
#endif

void DYV_FN(dyv_nebase_rnea)(const dyvNeBase* pl, dyData* d, const double* par,
                             const double* q, const double* qd, const double* qdd,
                             double* tau) {
  const int n = pl->n;
  double* cs = d->work;            /* cos, sin theta_j (2n) */
  double* pp = d->p;               /* p_j in frame j-1 (3n) */
  static const double zeros[DY_MAXJ];
  if (!qd) qd = zeros;
  if (!qdd) qdd = zeros;
  double* Ua = d->ci;              /* U_j, row-major (9n) */

  /* forward pass */
  for (int j = 0; j < n; j++) {
    const int f = pl->flags[j], cls = pl->acls[j];
    const double ca = pl->ca[j], sa = pl->sa[j];
    double *w = d->w + 3*j, *wd = d->wd + 3*j, *vd = d->vd + 3*j, *p = pp + 3*j;
    double* U = Ua + 9*j;
    const double qdj = qd[j], qddj = qdd[j];
    double ct, st, dj = pl->d0[j];
    if (pl->type[j] == DY_REVOLUTE) {
      sincos(pl->th0[j] + q[j], &st, &ct); DYV_OPS(0, 1);
    } else {
      sincos(pl->th0[j], &st, &ct);
      dj += q[j]; DYV_OPS(0, 1);
    }
    cs[2*j] = ct; cs[2*j+1] = st;
    p[0] = pl->a[j]; p[1] = 0; p[2] = 0;
    if (f & DYV_NB_PY) { p[1] = -sa*dj; if (cls == 0) DYV_OPS(1, 0); }
    if (f & DYV_NB_PZ) { p[2] = ca*dj; if (cls == 0) DYV_OPS(1, 0); }
    double w01, w02, w12;   /* products of U, reused by a diagonal J */

    if (j == 0) {
      /* parent at rest: vd = R^T (-g) */
      if (pl->g[0] == 0 && pl->g[1] == 0) {
        dyv_rotT_z(vd, -pl->g[2], ct, st, cls, ca, sa);
      } else {
        double mg[3] = {-pl->g[0], -pl->g[1], -pl->g[2]};
        dyv_rotT(vd, mg, ct, st, cls, ca, sa);
      }
      memset(U, 0, 9 * sizeof(double));
      if (pl->type[j] == DY_REVOLUTE) {
        w[0] = 0; w[1] = 0; w[2] = qdj;
        wd[0] = 0; wd[1] = 0; wd[2] = qddj;
        U[0] = U[4] = -qdj*qdj; U[1] = -qddj; U[3] = qddj; DYV_OPS(1, 0);
      } else {
        w[0] = w[1] = w[2] = 0; wd[0] = wd[1] = wd[2] = 0;
        vd[2] += qddj; DYV_OPS(0, 1);
      }
      w01 = w02 = w12 = 0;
    } else {
      const double *wp = w - 3, *wdp = wd - 3, *vdp = vd - 3, *Up = U - 9;
      /* u = vd' + U' p, nonzero components of p only */
      double u[3] = {vdp[0], vdp[1], vdp[2]};
      if (f & DYV_NB_PX) { u[0] += Up[0]*p[0]; u[1] += Up[3]*p[0]; u[2] += Up[6]*p[0]; DYV_OPS(3, 3); }
      if (f & DYV_NB_PY) { u[0] += Up[1]*p[1]; u[1] += Up[4]*p[1]; u[2] += Up[7]*p[1]; DYV_OPS(3, 3); }
      if (f & DYV_NB_PZ) { u[0] += Up[2]*p[2]; u[1] += Up[5]*p[2]; u[2] += Up[8]*p[2]; DYV_OPS(3, 3); }
      dyv_rotT(vd, u, ct, st, cls, ca, sa);
      double wr[3];
      if (j == 1 && pl->type[0] == DY_REVOLUTE) {
        /* parent rates along z_0 only */
        dyv_rotT_z(wr, wp[2], ct, st, cls, ca, sa);
        dyv_rotT_z(wd, wdp[2], ct, st, cls, ca, sa);
      } else {
        dyv_rotT(wr, wp, ct, st, cls, ca, sa);
        dyv_rotT(wd, wdp, ct, st, cls, ca, sa);
      }
      if (pl->type[j] == DY_REVOLUTE) {
        w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2] + qdj;
        wd[0] += wr[1]*qdj; wd[1] -= wr[0]*qdj; wd[2] += qddj;
        DYV_OPS(2, 4);
      } else {
        w[0] = wr[0]; w[1] = wr[1]; w[2] = wr[2];
        double q2 = 2*qdj;
        vd[0] += q2*wr[1]; vd[1] -= q2*wr[0]; vd[2] += qddj;
        DYV_OPS(3, 3);
      }
      /* U = [wd x] + [w x]^2, only the columns used */
      const int uc = pl->ucol[j];
      w01 = w[0]*w[1]; w02 = w[0]*w[2]; w12 = w[1]*w[2];
      DYV_OPS(3, 0);
      if (uc) {
        const double w00 = w[0]*w[0], w11 = w[1]*w[1], w22 = w[2]*w[2];
        DYV_OPS(3, 0);
        if (uc & 1) { U[0] = -w11 - w22;  U[3] = w01 + wd[2]; U[6] = w02 - wd[1]; DYV_OPS(0, 3); }
        if (uc & 2) { U[1] = w01 - wd[2]; U[4] = -w00 - w22;  U[7] = w12 + wd[0]; DYV_OPS(0, 3); }
        if (uc & 4) { U[2] = w02 + wd[1]; U[5] = w12 - wd[0]; U[8] = -w00 - w11;  DYV_OPS(0, 3); }
      }
    }

    /* link wrench; link 1 of a revolute joint 1 needs only N_z since its
     * force and the other moment components reach no joint */
    const double* pl10 = par + DY_NPAR_LINK*j;
    double *F = d->f + 3*j, *N = d->nm + 3*j;
    if (j == 0 && pl->type[0] == DY_REVOLUTE) {
      double nz = 0;
      if (f & DYV_NB_J) { nz = pl10[DY_ZZ]*wd[2]; DYV_OPS(1, 0); }
      if (f & DYV_NB_MSX) { nz += pl10[DY_MX]*vd[1]; DYV_OPS(1, 1); }
      if (f & DYV_NB_MSY) { nz -= pl10[DY_MY]*vd[0]; DYV_OPS(1, 1); }
      N[0] = N[1] = 0; N[2] = nz;
      F[0] = F[1] = F[2] = 0;
      continue;
    }
    /* F = M vd + U MS,  N = J wd + w x J w + MS x vd: the first term
     * present assigns, the others add (no additions to zero) */
    int fset = 0, nset = 0;
    if (f & DYV_NB_M) {
      const double M = pl10[DY_M];
      F[0] = M*vd[0]; F[1] = M*vd[1]; F[2] = M*vd[2]; DYV_OPS(3, 0);
      fset = 1;
    }
    if (f & DYV_NB_J) {
      const double XX = pl10[DY_XX], YY = pl10[DY_YY], ZZ = pl10[DY_ZZ];
      if (f & DYV_NB_JOFF) {
        const double XY = pl10[DY_XY], XZ = pl10[DY_XZ], YZ = pl10[DY_YZ];
        double jw[3];
        jw[0] = XX*w[0] + XY*w[1] + XZ*w[2];
        jw[1] = XY*w[0] + YY*w[1] + YZ*w[2];
        jw[2] = XZ*w[0] + YZ*w[1] + ZZ*w[2];
        N[0] = XX*wd[0] + XY*wd[1] + XZ*wd[2];
        N[1] = XY*wd[0] + YY*wd[1] + YZ*wd[2];
        N[2] = XZ*wd[0] + YZ*wd[1] + ZZ*wd[2];
        DYV_OPS(18, 12);
        dyv_addCross(N, w, jw);
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
      if (fset) { F[0] += U[k]*x; F[1] += U[3+(k)]*x; F[2] += U[6+(k)]*x; DYV_OPS(3, 3); } \
      else { F[0] = U[k]*x; F[1] = U[3+(k)]*x; F[2] = U[6+(k)]*x; DYV_OPS(3, 0); fset = 1; } \
      if (nset) { N[i1] -= x*vd[i2]; N[i2] += x*vd[i1]; DYV_OPS(2, 2); } \
      else { N[k] = 0; N[i1] = -x*vd[i2]; N[i2] = x*vd[i1]; DYV_OPS(2, 0); nset = 1; } \
    }
    DYV_MS_TERM(0, 1, 2)
    DYV_MS_TERM(1, 2, 0)
    DYV_MS_TERM(2, 0, 1)
#undef DYV_MS_TERM
    if (!fset) F[0] = F[1] = F[2] = 0;
    if (!nset) N[0] = N[1] = N[2] = 0;
  }

  /* backward pass */
  for (int j = n - 1; j >= 0; j--) {
    double *F = d->f + 3*j, *N = d->nm + 3*j;
    double t = pl->type[j] == DY_REVOLUTE ? N[2] : F[2];
    if (pl->flags[j] & DYV_NB_FRIC) {
      const double* pj = par + DY_NPAR_LINK*n + DY_NPAR_JNT*j;
      const double qdj = qd[j], qddj = qdd[j];
      t += pj[DY_IA]*qddj + pj[DY_FV]*qdj + pj[DY_FC]*((qdj > 0) - (qdj < 0)) + pj[DY_FO];
      DYV_OPS(3, 4);
    }
    tau[j] = t;
    if (j > 0) {
      const double ct = d->work[2*j], st = d->work[2*j+1], *p = pp + 3*j;
      const int cls = pl->acls[j], f = pl->flags[j];
      double rf[3], rn[3];
      double *Fp = F - 3, *Np = N - 3;
      if (j == 1 && pl->type[0] == DY_REVOLUTE) {
        /* only the z moment of link 1 is used: (R n)_z + (p x R f)_z */
        Np[2] += dyv_rotN_z(N, ct, st, cls, pl->ca[j], pl->sa[j]); DYV_OPS(0, 1);
        if (f & (DYV_NB_PX | DYV_NB_PY)) {
          dyv_rotN(rf, F, ct, st, cls, pl->ca[j], pl->sa[j]);
          Np[2] += p[0]*rf[1] - p[1]*rf[0];
          DYV_OPS(2, 2);
        }
      } else {
        dyv_rotN(rf, F, ct, st, cls, pl->ca[j], pl->sa[j]);
        dyv_rotN(rn, N, ct, st, cls, pl->ca[j], pl->sa[j]);
        dyv_add(Fp, rf);
        dyv_add(Np, rn);
        /* Np += p x rf, nonzero components of p only */
        if (f & DYV_NB_PX) { Np[1] -= p[0]*rf[2]; Np[2] += p[0]*rf[1]; DYV_OPS(2, 2); }
        if (f & DYV_NB_PY) { Np[0] += p[1]*rf[2]; Np[2] -= p[1]*rf[0]; DYV_OPS(2, 2); }
        if (f & DYV_NB_PZ) { Np[0] -= p[2]*rf[1]; Np[1] += p[2]*rf[0]; DYV_OPS(2, 2); }
      }
    }
  }
}
