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
    if (NZ(DY_MX) || NZ(DY_MY) || NZ(DY_MZ)) f |= DYV_NB_MS;
    if (NZ(DY_MZ)) f |= DYV_NB_MZ;
    if (NZ(DY_XX) || NZ(DY_YY) || NZ(DY_ZZ) || NZ(DY_XY) || NZ(DY_XZ) || NZ(DY_YZ)) f |= DYV_NB_J;
    if (NZ(DY_XY) || NZ(DY_XZ) || NZ(DY_YZ)) f |= DYV_NB_JOFF;
#undef NZ
    if (!zj || !zj[0] || !zj[1] || !zj[2] || !zj[3]) f |= DYV_NB_FRIC;
    if (m->jnt_type[j] == DY_REVOLUTE && m->dh_a[j] == 0 && m->dh_d[j] == 0) f |= DYV_NB_P0;
    pl->flags[j] = f;
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

  /* forward pass */
  for (int j = 0; j < n; j++) {
    const int f = pl->flags[j], cls = pl->acls[j];
    const double ca = pl->ca[j], sa = pl->sa[j];
    double *w = d->w + 3*j, *wd = d->wd + 3*j, *vd = d->vd + 3*j, *p = pp + 3*j;
    const double qdj = qd ? qd[j] : 0, qddj = qdd ? qdd[j] : 0;
    double ct, st, dj = pl->d0[j], u[3];
    if (pl->type[j] == DY_REVOLUTE) {
      sincos(pl->th0[j] + q[j], &st, &ct); DYV_OPS(0, 1);
    } else {
      sincos(pl->th0[j], &st, &ct);
      dj += q[j]; DYV_OPS(0, 1);
    }
    cs[2*j] = ct; cs[2*j+1] = st;
    p[0] = pl->a[j];
    if (cls == 0) { p[1] = -sa*dj; p[2] = ca*dj; DYV_OPS(2, 0); }
    else { p[1] = -sa*dj; p[2] = ca*dj; }   /* sa, ca in {0, +-1}: sign changes */

    if (j == 0) {
      /* parent at rest: vd = R^T (-g) */
      double mg[3] = {-pl->g[0], -pl->g[1], -pl->g[2]};
      dyv_rotT(vd, mg, ct, st, cls, ca, sa);
      if (pl->type[j] == DY_REVOLUTE) {
        w[0] = 0; w[1] = 0; w[2] = qdj;
        wd[0] = 0; wd[1] = 0; wd[2] = qddj;
      } else {
        w[0] = w[1] = w[2] = 0; wd[0] = wd[1] = wd[2] = 0;
        vd[2] += qddj; DYV_OPS(0, 1);
      }
    } else {
      const double *wp = w - 3, *wdp = wd - 3, *vdp = vd - 3;
      if (f & DYV_NB_P0) {
        dyv_rotT(vd, vdp, ct, st, cls, ca, sa);
      } else {
        /* u = vd' + wd' x p + w' x (w' x p) */
        double t[3];
        dyv_cross(t, wp, p);
        memcpy(u, vdp, sizeof u);
        dyv_addCross(u, wp, t);
        dyv_addCross(u, wdp, p);
        dyv_rotT(vd, u, ct, st, cls, ca, sa);
      }
      double wr[3];
      dyv_rotT(wr, wp, ct, st, cls, ca, sa);
      dyv_rotT(wd, wdp, ct, st, cls, ca, sa);
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
    }

    /* link wrench; link 1 of a revolute joint 1 needs only N_z since its
     * force and the other moment components reach no joint */
    const double* pl10 = par + DY_NPAR_LINK*j;
    double *F = d->f + 3*j, *N = d->nm + 3*j;
    if (j == 0 && pl->type[0] == DY_REVOLUTE) {
      double nz = 0;
      if (f & DYV_NB_J) { nz = pl10[DY_ZZ]*wd[2]; DYV_OPS(1, 0); }
      if (f & DYV_NB_MS) { nz += pl10[DY_MX]*vd[1] - pl10[DY_MY]*vd[0]; DYV_OPS(2, 2); }
      N[0] = N[1] = 0; N[2] = nz;
      F[0] = F[1] = F[2] = 0;
      continue;
    }
    if (f & DYV_NB_M) {
      const double M = pl10[DY_M];
      F[0] = M*vd[0]; F[1] = M*vd[1]; F[2] = M*vd[2]; DYV_OPS(3, 0);
    } else {
      F[0] = F[1] = F[2] = 0;
    }
    N[0] = N[1] = N[2] = 0;
    if (f & DYV_NB_MS) {
      const double* ms = pl10 + DY_MX;
      double t[3];
      if (f & DYV_NB_MZ) {
        dyv_cross(t, w, ms);
        dyv_addCross(F, wd, ms);
        dyv_addCross(N, ms, vd);
      } else {
        /* MZ = 0: t = w x (MX, MY, 0), etc. */
        t[0] = -w[2]*ms[1]; t[1] = w[2]*ms[0]; t[2] = w[0]*ms[1] - w[1]*ms[0];
        F[0] -= wd[2]*ms[1]; F[1] += wd[2]*ms[0]; F[2] += wd[0]*ms[1] - wd[1]*ms[0];
        N[0] += ms[1]*vd[2]; N[1] -= ms[0]*vd[2]; N[2] += ms[0]*vd[1] - ms[1]*vd[0];
        DYV_OPS(12, 9);
      }
      dyv_addCross(F, w, t);
    }
    if (f & DYV_NB_J) {
      const double XX = pl10[DY_XX], YY = pl10[DY_YY], ZZ = pl10[DY_ZZ];
      double jw[3];
      if (f & DYV_NB_JOFF) {
        const double XY = pl10[DY_XY], XZ = pl10[DY_XZ], YZ = pl10[DY_YZ];
        jw[0] = XX*w[0] + XY*w[1] + XZ*w[2];
        jw[1] = XY*w[0] + YY*w[1] + YZ*w[2];
        jw[2] = XZ*w[0] + YZ*w[1] + ZZ*w[2];
        N[0] += XX*wd[0] + XY*wd[1] + XZ*wd[2];
        N[1] += XY*wd[0] + YY*wd[1] + YZ*wd[2];
        N[2] += XZ*wd[0] + YZ*wd[1] + ZZ*wd[2];
        DYV_OPS(18, 15);
      } else {
        jw[0] = XX*w[0]; jw[1] = YY*w[1]; jw[2] = ZZ*w[2];
        N[0] += XX*wd[0]; N[1] += YY*wd[1]; N[2] += ZZ*wd[2];
        DYV_OPS(6, 3);
      }
      dyv_addCross(N, w, jw);
    }
  }

  /* backward pass */
  for (int j = n - 1; j >= 0; j--) {
    double *F = d->f + 3*j, *N = d->nm + 3*j;
    double t = pl->type[j] == DY_REVOLUTE ? N[2] : F[2];
    if (pl->flags[j] & DYV_NB_FRIC) {
      const double* pj = par + DY_NPAR_LINK*n + DY_NPAR_JNT*j;
      const double qdj = qd ? qd[j] : 0, qddj = qdd ? qdd[j] : 0;
      t += pj[DY_IA]*qddj + pj[DY_FV]*qdj + pj[DY_FC]*((qdj > 0) - (qdj < 0)) + pj[DY_FO];
      DYV_OPS(3, 4);
    }
    tau[j] = t;
    if (j > 0) {
      const double ct = d->work[2*j], st = d->work[2*j+1], *p = pp + 3*j;
      const int cls = pl->acls[j];
      double rf[3], rn[3];
      double *Fp = F - 3, *Np = N - 3;
      dyv_rotN(rf, F, ct, st, cls, pl->ca[j], pl->sa[j]);
      dyv_rotN(rn, N, ct, st, cls, pl->ca[j], pl->sa[j]);
      if (j == 1 && pl->type[0] == DY_REVOLUTE) {
        /* only the z moment of link 1 is used */
        Np[2] += rn[2] + p[0]*rf[1] - p[1]*rf[0];
        DYV_OPS(2, 3);
      } else {
        dyv_add(Fp, rf);
        dyv_add(Np, rn);
        if (!(pl->flags[j] & DYV_NB_P0)) dyv_addCross(Np, p, rf);
      }
    }
  }
}
