/* SPDX-License-Identifier: MIT */
/* dynid core: forward dynamics, by Cholesky of the CRBA inertia matrix and
 * by the articulated-body algorithm ([FeatherstoneOrin00], section 3.3). */
#include "core/dynamics.h"
#include "core/mathu.h"
#include <math.h>
#include <string.h>

int dy_fd_chol(const dyModel* m, dyData* d, const double* par, const double* q,
               const double* qd, const double* tau, double* qdd) {
  const int n = m->n;
  double* L = d->H;
  dy_crba(m, d, par, q, L);                      /* computes the frames */
  dy_rnea_frames(m, d, par, qd, NULL, m->gravity, 1, d->bias);
  for (int j = 0; j < n; j++) qdd[j] = tau[j] - d->bias[j];
  /* H = L L^T, lower triangle in place (row-major) */
  for (int j = 0; j < n; j++) {
    double* Lj = L + j*n;
    double s = Lj[j];
    for (int k = 0; k < j; k++) s -= Lj[k] * Lj[k];
    if (!(s > 0)) return j + 1;
    double djj = sqrt(s);
    Lj[j] = djj;
    for (int i = j + 1; i < n; i++) {
      double* Li = L + i*n;
      double t = Li[j];
      for (int k = 0; k < j; k++) t -= Li[k] * Lj[k];
      Li[j] = t / djj;
    }
  }
  /* L y = rhs, then L^T qdd = y */
  for (int i = 0; i < n; i++) {
    double t = qdd[i];
    for (int k = 0; k < i; k++) t -= L[i*n + k] * qdd[k];
    qdd[i] = t / L[i*n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = qdd[i];
    for (int k = i + 1; k < n; k++) t -= L[k*n + i] * qdd[k];
    qdd[i] = t / L[i*n + i];
  }
  return 0;
}

/* Articulated-body algorithm in 3x3 blocks. A spatial inertia about O_j in
 * frame j acts on a motion (w; v) as (n; f) = ([A B; B^T M]) (w; v), so a
 * rigid body has A = J, B = [MS]x, M = m 1. Carried to the parent about
 * O_{j-1} in its axes (R, p of joint j), with A1 = R A R^T, B1 = R B R^T,
 * M1 = R M R^T, P = [p]x:
 *   A' = A1 + P B1^T + (P B1^T)^T - P M1 P,  B' = B1 + P M1,  M' = M1.
 * Motions go up by w' = R^T w, v' = R^T (v + w x p); forces down by
 * n' = R n + p x R f, f' = R f. Working in blocks avoids the dense 6x6
 * transforms (three quarters of the time in a 6x6 formulation).        */



/* res = R X R^T for the joint rotation R = Rx(alpha) Rz(theta) and a
 * general 3x3 X (the block B; the symmetric A and M go through
 * dyu_rotJointSym6), applied as two plane rotations (rows and columns 0-1
 * by theta, then 1-2 by alpha); alpha of 0, +-pi/2 or pi (most arms) makes
 * the second a signed permutation. ct, st: cos, sin theta; ca, sa: cos,
 * sin alpha. */
static void rot_joint(double res[9], const double X[9], double ct, double st, double ca, double sa) {
  double Y[9];
  /* Y = Rz X Rz^T */
  for (int c = 0; c < 3; c++) {
    double x0 = X[c], x1 = X[3 + c];
    Y[c] = ct*x0 - st*x1; Y[3 + c] = st*x0 + ct*x1; Y[6 + c] = X[6 + c];
  }
  for (int r = 0; r < 3; r++) {
    double y0 = Y[3*r], y1 = Y[3*r + 1];
    Y[3*r] = ct*y0 - st*y1; Y[3*r + 1] = st*y0 + ct*y1;
  }
  /* res = Rx Y Rx^T */
  if (fabs(sa) < 1e-15) {                      /* alpha = 0 or pi */
    double sg = ca > 0 ? 1 : -1;
    res[0] = Y[0];      res[1] = sg*Y[1]; res[2] = sg*Y[2];
    res[3] = sg*Y[3];   res[4] = Y[4];    res[5] = Y[5];
    res[6] = sg*Y[6];   res[7] = Y[7];    res[8] = Y[8];
    return;
  }
  if (fabs(ca) < 1e-15) {                      /* alpha = +-pi/2: rows/cols 1,2 swap */
    double sg = sa > 0 ? 1 : -1;
    res[0] = Y[0];      res[1] = -sg*Y[2]; res[2] = sg*Y[1];
    res[3] = -sg*Y[6];  res[4] = Y[8];     res[5] = -Y[7];
    res[6] = sg*Y[3];   res[7] = -Y[5];    res[8] = Y[4];
    return;
  }
  double T[9];
  for (int c = 0; c < 3; c++) {
    double y1 = Y[3 + c], y2 = Y[6 + c];
    T[c] = Y[c]; T[3 + c] = ca*y1 - sa*y2; T[6 + c] = sa*y1 + ca*y2;
  }
  for (int r = 0; r < 3; r++) {
    double t1 = T[3*r + 1], t2 = T[3*r + 2];
    res[3*r] = T[3*r]; res[3*r + 1] = ca*t1 - sa*t2; res[3*r + 2] = sa*t1 + ca*t2;
  }
}

/* res = [p]x X (3x3) */
static void skew_mul(double res[9], const double p[3], const double X[9]) {
  for (int c = 0; c < 3; c++) {
    double x0 = X[c], x1 = X[3 + c], x2 = X[6 + c];
    res[c] = p[1]*x2 - p[2]*x1;
    res[3 + c] = p[2]*x0 - p[0]*x2;
    res[6 + c] = p[0]*x1 - p[1]*x0;
  }
}

#define ABA_INL static inline __attribute__((always_inline))

/* pass 1, link j: velocity v_j = X v_{j-1} + S qd, velocity-product
 * acceleration c_j = v_j x S qd, rigid-body inertia (A = J, B = [MS]x,
 * M = m 1) and bias force pA_j = v x* (I v) */
ABA_INL void aba_link(const dyModel* m, dyData* d, const double* par, const double* qd, int j) {
  const double *R = d->R + 9*j, *p = d->p + 3*j, *pl = par + DY_NPAR_LINK*j;
  double *vj = d->vel + 6*j, *cj = d->acc + 6*j, t[3];
  if (j) {
    const double* vp = d->vel + 6*(j-1);
    dyu_mulMatTVec3(vj, R, vp);
    dyu_cross(t, vp, p);
    t[0] += vp[3]; t[1] += vp[4]; t[2] += vp[5];
    dyu_mulMatTVec3(vj + 3, R, t);
  } else memset(vj, 0, 6 * sizeof(double));
  double qdj = qd[j];
  if (m->jnt_type[j] == DY_REVOLUTE) {
    /* c = v x (z qd, 0) */
    cj[0] = vj[1]*qdj; cj[1] = -vj[0]*qdj; cj[2] = 0;
    cj[3] = vj[4]*qdj; cj[4] = -vj[3]*qdj; cj[5] = 0;
    vj[2] += qdj;
  } else {
    /* c = v x (0, z qd) */
    cj[0] = cj[1] = cj[2] = 0;
    cj[3] = vj[1]*qdj; cj[4] = -vj[0]*qdj; cj[5] = 0;
    vj[5] += qdj;
  }
  double *A = d->art + 27*j, *B = A + 9, *M = A + 18;
  const double s6[6] = {pl[DY_XX], pl[DY_XY], pl[DY_XZ], pl[DY_YY], pl[DY_YZ], pl[DY_ZZ]};
  const double* ms = pl + DY_MX;
  dyu_sym6ToMat(A, s6);
  B[0] = 0;      B[1] = -ms[2]; B[2] = ms[1];
  B[3] = ms[2];  B[4] = 0;      B[5] = -ms[0];
  B[6] = -ms[1]; B[7] = ms[0];  B[8] = 0;
  memset(M, 0, 9 * sizeof(double));
  M[0] = M[4] = M[8] = pl[DY_M];
  /* pA = v x* (I v): h = (J w + ms x v, m v + w x ms) */
  const double *w = vj, *vl = vj + 3;
  double ha[3], hl[3];
  dyu_mulSym6Vec(ha, s6, w);
  dyu_addCross(ha, ms, vl);
  dyu_cross(hl, w, ms);
  hl[0] += pl[DY_M]*vl[0]; hl[1] += pl[DY_M]*vl[1]; hl[2] += pl[DY_M]*vl[2];
  double* pa = d->pA + 6*j;
  dyu_cross(pa, w, ha);
  dyu_addCross(pa, vl, hl);
  dyu_cross(pa + 3, w, hl);
}

/* pass 2, carry the articulated inertia and bias force of link j (j > 0,
 * already reduced: Ia = IA - U U^T / D, pa = pA + Ia c + U u / D) to the
 * parent: A' += A1 + P B1^T + (P B1^T)^T - P M1 P, B' += B1 + P M1,
 * M' += M1 (X1 = R X R^T, P = [p]x), pA' += (R n + p x R f; R f) */
ABA_INL void aba_carry(const dyModel* m, dyData* d, int j) {
  const double *A = d->art + 27*j, *B = A + 9, *M = A + 18, *pa = d->pA + 6*j;
  const double *R = d->R + 9*j, *p = d->p + 3*j;
  double A1[9], B1[9], M1[9], PB[9], PM[9], PMP[9], Mp[9];
  const double ct = R[0], st = -R[1], ca = m->cos_alpha[j], sa = m->sin_alpha[j];
  /* A and M are symmetric (so are the reduction U U^T / D and the carry's
   * terms), B is not (B -= U_w U_v^T / D, B' += P M1) */
  const double a6[6] = {A[0], A[1], A[2], A[4], A[5], A[8]}, m6[6] = {M[0], M[1], M[2], M[4], M[5], M[8]};
  double a1[6], m1[6];
  dyu_rotJointSym6(a1, a6, ct, st, ca, sa);
  dyu_rotJointSym6(m1, m6, ct, st, ca, sa);
  dyu_sym6ToMat(A1, a1);
  dyu_sym6ToMat(M1, m1);
  rot_joint(B1, B, ct, st, ca, sa);
  double B1t[9] = {B1[0], B1[3], B1[6], B1[1], B1[4], B1[7], B1[2], B1[5], B1[8]};
  skew_mul(PB, p, B1t);             /* P B1^T */
  skew_mul(PM, p, M1);              /* P M1 */
  /* P M1 P from P (P M1)^T = P M1^T P^T = -P M1 P */
  double PMt[9] = {PM[0], PM[3], PM[6], PM[1], PM[4], PM[7], PM[2], PM[5], PM[8]};
  skew_mul(Mp, p, PMt);
  for (int k = 0; k < 9; k++) PMP[k] = -Mp[k];
  double *Ap = d->art + 27*(j-1), *Bp = Ap + 9, *Mpar = Ap + 18;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      Ap[3*a + b] += A1[3*a + b] + PB[3*a + b] + PB[3*b + a] - PMP[3*a + b];
      Bp[3*a + b] += B1[3*a + b] + PM[3*a + b];
      Mpar[3*a + b] += M1[3*a + b];
    }
  double rf[3], rn[3];
  dyu_mulMatVec3(rf, R, pa + 3);
  dyu_mulMatVec3(rn, R, pa);
  dyu_addCross(rn, p, rf);
  double* pp = d->pA + 6*(j-1);
  pp[0] += rn[0]; pp[1] += rn[1]; pp[2] += rn[2];
  pp[3] += rf[0]; pp[4] += rf[1]; pp[5] += rf[2];
}

/* pass 2, joint j: U = I S, D = S^T U + armature, u = tau - S^T pA - joint
 * terms; then (j > 0) the reduction Ia = I - U U^T / D, pa = pA + Ia c +
 * U u / D, carried to the parent. Returns 0, or j+1 if D_j is not positive. */
ABA_INL int aba_joint(const dyModel* m, dyData* d, const double* par, const double* qd,
                      const double* tau, int j) {
  const double* pj = par + DY_NPAR_LINK*m->n;
  double *A = d->art + 27*j, *B = A + 9, *M = A + 18, *Uj = d->U + 6*j, *pa = d->pA + 6*j;
  const double* cj = d->acc + 6*j;
  double* dd = d->D;
  int rev = m->jnt_type[j] == DY_REVOLUTE;
  if (rev) {
    /* U = I (z; 0) = (A z; B^T z) */
    Uj[0] = A[2]; Uj[1] = A[5]; Uj[2] = A[8];
    Uj[3] = B[6]; Uj[4] = B[7]; Uj[5] = B[8];
    dd[j] = Uj[2];
  } else {
    /* U = I (0; z) = (B z; M z) */
    Uj[0] = B[2]; Uj[1] = B[5]; Uj[2] = B[8];
    Uj[3] = M[2]; Uj[4] = M[5]; Uj[5] = M[8];
    dd[j] = Uj[5];
  }
  dd[j] += pj[DY_NPAR_JNT*j + DY_IA];
  if (!(dd[j] > 0)) return j + 1;
  double qdj = qd[j];
  d->u[j] = tau[j] - pa[rev ? 2 : 5] - pj[DY_NPAR_JNT*j + DY_FV]*qdj
          - pj[DY_NPAR_JNT*j + DY_FC]*dyu_sign(qdj) - pj[DY_NPAR_JNT*j + DY_FO];
  if (!j) return 0;
  double id = 1 / dd[j];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      A[3*a + b] -= Uj[a]*Uj[b]*id;
      B[3*a + b] -= Uj[a]*Uj[3 + b]*id;
      M[3*a + b] -= Uj[3 + a]*Uj[3 + b]*id;
    }
  double uj = d->u[j]*id, t[3];
  dyu_mulMatVec3(t, A, cj);
  pa[0] += t[0] + Uj[0]*uj; pa[1] += t[1] + Uj[1]*uj; pa[2] += t[2] + Uj[2]*uj;
  dyu_mulMatVec3(t, B, cj + 3);
  pa[0] += t[0]; pa[1] += t[1]; pa[2] += t[2];
  dyu_mulMatTVec3(t, B, cj);
  pa[3] += t[0] + Uj[3]*uj; pa[4] += t[1] + Uj[4]*uj; pa[5] += t[2] + Uj[5]*uj;
  dyu_mulMatVec3(t, M, cj + 3);
  pa[3] += t[0]; pa[4] += t[1]; pa[5] += t[2];
  aba_carry(m, d, j);
  return 0;
}

/* pass 3, base to tip: a_j = X a_{j-1} + c_j + S qdd_j (in place over c),
 * qdd_j = (u_j - U_j^T (X a_{j-1} + c_j)) / D_j; the base accelerates at -g */
ABA_INL void aba_accel(const dyModel* m, dyData* d, double* qdd) {
  double a0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
  double* acc = d->acc;
  for (int j = 0; j < m->n; j++) {
    const double *R = d->R + 9*j, *p = d->p + 3*j, *ap = j ? acc + 6*(j-1) : a0;
    double* aj = acc + 6*j, t[3], r[3];
    dyu_mulMatTVec3(r, R, ap);
    aj[0] += r[0]; aj[1] += r[1]; aj[2] += r[2];
    dyu_cross(t, ap, p);
    t[0] += ap[3]; t[1] += ap[4]; t[2] += ap[5];
    dyu_mulMatTVec3(r, R, t);
    aj[3] += r[0]; aj[4] += r[1]; aj[5] += r[2];
    const double* Uj = d->U + 6*j;
    double s = Uj[0]*aj[0] + Uj[1]*aj[1] + Uj[2]*aj[2] + Uj[3]*aj[3] + Uj[4]*aj[4] + Uj[5]*aj[5];
    qdd[j] = (d->u[j] - s) / d->D[j];
    aj[m->jnt_type[j] == DY_REVOLUTE ? 2 : 5] += qdd[j];
  }
}

int dy_fd_aba(const dyModel* m, dyData* d, const double* par, const double* q,
              const double* qd, const double* tau, double* qdd) {
  /* a motor coupling joints couples their accelerations through its rotor:
   * not a chain of articulated bodies, solved by the inertia matrix */
  if (m->nmot) return dy_fd_chol(m, d, par, q, qd, tau, qdd);
  dy_frames(m, d, q);
  for (int j = 0; j < m->n; j++) aba_link(m, d, par, qd, j);
  for (int j = m->n - 1; j >= 0; j--) {
    const int info = aba_joint(m, d, par, qd, tau, j);
    if (info) return info;
  }
  aba_accel(m, d, qdd);
  return 0;
}
