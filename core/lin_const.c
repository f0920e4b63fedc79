/* SPDX-License-Identifier: MIT */
/* dynid core: Lin's inertia constants of composite bodies and the geometry
 * indicators of Theorem 1 ([LinFang99]). See lin_const.h for the equations. */
#include "core/lin_const.h"
#include "core/mathu.h"
#include <math.h>
#include <string.h>

/* M += c (a b^T + b a^T) */
static void addSymOuter(double M[9], double c, const double a[3], const double b[3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) M[3*i+j] += c * (a[i]*b[j] + b[i]*a[j]);
}

void dy_lin_const(const dyModel* m, const double* par, double* mhat, double* k,
                  double* U) {
  int n = m->n;
  for (int i = n - 1; i >= 0; i--) {
    const double* p = par + DY_NPAR_LINK*i;
    double* ki = k + 3*i;
    double* Ui = U + 9*i;
    double J6[6] = {p[DY_XX], p[DY_XY], p[DY_XZ], p[DY_YY], p[DY_YZ], p[DY_ZZ]};
    dyu_sym6ToMat(Ui, J6);
    ki[0] = p[DY_MX]; ki[1] = p[DY_MY]; ki[2] = p[DY_MZ];
    mhat[i] = p[DY_M];
    if (i == n - 1) continue;
    /* joint i+1 (0-based) links composite body i+1 to link i */
    int jn = i + 1;
    double mh = mhat[jn];
    const double* kn = k + 3*jn;
    const double* Un = U + 9*jn;
    mhat[i] += mh;
    double ca = m->cos_alpha[jn], sa = m->sin_alpha[jn];
    if (m->jnt_type[jn] == DY_REVOLUTE) {
      double dd = m->dh_d[jn];
      double s[3] = {m->dh_a[jn], -sa*dd, ca*dd};
      double Rb[3] = {0, -sa, ca};
      double w[3] = {Rb[0]*kn[2], Rb[1]*kn[2], Rb[2]*kn[2]};
      /* (C1) */
      for (int a = 0; a < 3; a++) ki[a] += mh*s[a] + w[a];
      /* (C2): -mhat [s x]^2 = mhat (|s|^2 1 - s s^T) */
      double ss = dyu_dot3(s, s), sw = dyu_dot3(s, w), u22 = Un[4];
      for (int a = 0; a < 3; a++) {
        Ui[4*a] += mh*ss + u22 + 2*sw;
        for (int b = 0; b < 3; b++)
          Ui[3*a+b] += -mh*s[a]*s[b] - u22*Rb[a]*Rb[b];
      }
      addSymOuter(Ui, -1, w, s);
    } else {
      double R[9], pj[3];
      dy_jointframe(m, jn, 0, R, pj);   /* theta constant; d does not enter */
      double b[3] = {m->dh_a[jn], 0, 0};
      double w[3];
      dyu_mulMatVec3(w, R, kn);
      /* (C1) */
      for (int a = 0; a < 3; a++) ki[a] += mh*b[a] + w[a];
      /* (C3) */
      double T[9], RUR[9];
      dyu_mulMat3(T, R, Un);
      dyu_mulMatMatT3(RUR, T, R);
      double bb = dyu_dot3(b, b), bw = dyu_dot3(b, w);
      for (int a = 0; a < 3; a++) {
        Ui[4*a] += mh*bb + 2*bw;
        for (int c = 0; c < 3; c++) Ui[3*a+c] += RUR[3*a+c] - mh*b[a]*b[c];
      }
      addSymOuter(Ui, -1, w, b);
    }
  }
}

/* O_m -> O_i expressed in frame m, at joint positions q (m < i) */
static void relpos(const dyModel* m, const double* q, int from, int to, double p[3]) {
  double R[9], Rj[9], pj[3], Rn[9], pn[3];
  dyu_eye3(R); p[0] = p[1] = p[2] = 0;
  for (int j = from + 1; j <= to; j++) {
    dy_jointframe(m, j, q[j], Rj, pj);
    dyu_composePose(Rn, pn, R, p, Rj, pj);
    memcpy(R, Rn, sizeof R); memcpy(p, pn, sizeof pn);
  }
}

static int parallel(const double a[3], const double b[3]) {
  double c[3];
  dyu_cross(c, a, b);
  return sqrt(dyu_dot3(c, c)) <= 1e-9 * sqrt(dyu_dot3(a, a) * dyu_dot3(b, b));
}

void dy_lin_geom(const dyModel* m, dyLinGeom* g) {
  int n = m->n;
  memset(g, 0, sizeof *g);
  for (int i = 0; i < n; i++) g->sigma[i] = 1;
  g->r = n; g->s = n;
  for (int i = 0; i < n; i++) if (m->jnt_type[i] == DY_REVOLUTE) { g->r = i; break; }
  if (g->r == n) return;
  int r = g->r;

  /* u_r in frame 0: prismatic joints before r rotate by constants only */
  double R0[9], p0[3], Rj[9], pj[3], Rn[9], pn[3];
  dyu_eye3(R0); p0[0] = p0[1] = p0[2] = 0;
  for (int j = 0; j <= r; j++) {
    dy_jointframe(m, j, 0, Rj, pj);
    dyu_composePose(Rn, pn, R0, p0, Rj, pj);
    memcpy(R0, Rn, sizeof R0); memcpy(p0, pn, sizeof p0);
  }
  g->ur_base[0] = R0[2]; g->ur_base[1] = R0[5]; g->ur_base[2] = R0[8];

  /* u_r^<i> for i = r.., until the first revolute joint not parallel */
  double u[3] = {0, 0, 1};
  memcpy(g->ur + 3*r, u, sizeof u);
  for (int i = r + 1; i < n; i++) {
    dy_jointframe(m, i, 0, Rj, pj);
    double zi[3] = {Rj[2], Rj[5], Rj[8]};           /* u_i in frame i-1 */
    if (m->jnt_type[i] == DY_REVOLUTE && !parallel(zi, u)) { g->s = i; break; }
    double un[3];
    dyu_mulMatTVec3(un, Rj, u);                        /* R^T u: frame i */
    memcpy(u, un, sizeof u);
    memcpy(g->ur + 3*i, u, sizeof u);
    if (m->jnt_type[i] == DY_PRISMATIC && fabs(fabs(u[2]) - 1) <= 1e-9) g->sigma[i] = 0;
  }

  /* delta_i for revolute r <= i < s */
  double len = 1;
  for (int j = 0; j < n; j++) len += fabs(m->dh_a[j]) + fabs(m->dh_d[j]);
  const double* gv = m->gravity;
  int g_par = dyu_dot3(gv, gv) == 0 || parallel(gv, g->ur_base);
  for (int i = r; i < g->s; i++) {
    if (m->jnt_type[i] != DY_REVOLUTE) continue;
    int ok = g_par;
    /* every axis k < i parallel to u_r (revolute ones in [r, i) are) */
    double Rk[9], pk[3], Rc[9], pc[3];
    dyu_eye3(Rc); pc[0] = pc[1] = pc[2] = 0;
    for (int k = 0; k < i && ok; k++) {
      dy_jointframe(m, k, 0, Rk, pk);
      dyu_composePose(Rn, pn, Rc, pc, Rk, pk);
      memcpy(Rc, Rn, sizeof Rc); memcpy(pc, pn, sizeof pc);
      double zk[3] = {Rc[2], Rc[5], Rc[8]};
      if (k < r && !parallel(zk, g->ur_base)) ok = 0;
      if (k > r && m->jnt_type[k] == DY_PRISMATIC && g->sigma[k]) ok = 0;
    }
    /* O_m -> O_i zero or along u_r for every revolute m in [r, i), all q */
    for (int mm = r; mm < i && ok; mm++) {
      if (m->jnt_type[mm] != DY_REVOLUTE) continue;
      for (int t = 0; t < 3 && ok; t++) {
        double q[DY_MAXJ], p[3];
        for (int j = 0; j < n; j++) q[j] = 0.37 + 1.13*t + 0.71*j;   /* fixed probes */
        relpos(m, q, mm, i, p);
        const double* w = g->ur + 3*mm;
        double pw = dyu_dot3(p, w), perp[3];
        for (int a = 0; a < 3; a++) perp[a] = p[a] - pw*w[a];
        if (sqrt(dyu_dot3(perp, perp)) > 1e-9 * len) ok = 0;
      }
    }
    g->delta[i] = !ok;
  }
}
