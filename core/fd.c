/* dynid core: forward dynamics, by Cholesky of the CRBA inertia matrix and
 * by the articulated-body algorithm ([FeatherstoneOrin00], section 3.3). */
#include "dynamics.h"
#include "mathu.h"
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



/* res = R X R^T for the joint rotation R = Rx(alpha) Rz(theta), applied as
 * two plane rotations (rows and columns 0-1 by theta, then 1-2 by alpha);
 * alpha of 0, +-pi/2 or pi (most arms) makes the second a signed
 * permutation. ct, st: cos, sin theta; ca, sa: cos, sin alpha. */
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

int dy_fd_aba(const dyModel* m, dyData* d, const double* par, const double* q,
              const double* qd, const double* tau, double* qdd) {
  const int n = m->n;
  double* blk = d->art;        /* A (9), B (9), M (9) per link */
  double* v = d->vel;          /* velocities (w; v) */
  double* c = d->acc;          /* velocity-product accelerations, then accelerations */
  double* pA = d->pA;          /* bias forces */
  double* U = d->U;            /* IA S */
  double* dd = d->D;           /* S^T U + armature */
  double* u = d->u;            /* tau - S^T pA - friction */
  const double* pj = par + DY_NPAR_LINK*n;

  /* pass 1: velocities, bias terms, rigid-body inertias */
  dy_frames(m, d, q);
  for (int j = 0; j < n; j++) {
    const double *R = d->R + 9*j, *p = d->p + 3*j, *pl = par + DY_NPAR_LINK*j;
    double *vj = v + 6*j, *cj = c + 6*j, t[3];
    if (j) {
      const double* vp = v + 6*(j-1);
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
    double *A = blk + 27*j, *B = A + 9, *M = A + 18;
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
    double* pa = pA + 6*j;
    dyu_cross(pa, w, ha);
    dyu_addCross(pa, vl, hl);
    dyu_cross(pa + 3, w, hl);
  }

  /* pass 2: articulated inertias, tip to base */
  for (int j = n - 1; j >= 0; j--) {
    double *A = blk + 27*j, *B = A + 9, *M = A + 18, *Uj = U + 6*j, *pa = pA + 6*j;
    const double* cj = c + 6*j;
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
    u[j] = tau[j] - pa[rev ? 2 : 5] - pj[DY_NPAR_JNT*j + DY_FV]*qdj
         - pj[DY_NPAR_JNT*j + DY_FC]*dyu_sign(qdj) - pj[DY_NPAR_JNT*j + DY_FO];
    if (!j) break;
    /* Ia = IA - U U^T / d; pa = pA + Ia c + U u / d */
    double id = 1 / dd[j];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        A[3*a + b] -= Uj[a]*Uj[b]*id;
        B[3*a + b] -= Uj[a]*Uj[3 + b]*id;
        M[3*a + b] -= Uj[3 + a]*Uj[3 + b]*id;
      }
    double uj = u[j]*id, t[3];
    dyu_mulMatVec3(t, A, cj);
    pa[0] += t[0] + Uj[0]*uj; pa[1] += t[1] + Uj[1]*uj; pa[2] += t[2] + Uj[2]*uj;
    dyu_mulMatVec3(t, B, cj + 3);
    pa[0] += t[0]; pa[1] += t[1]; pa[2] += t[2];
    dyu_mulMatTVec3(t, B, cj);
    pa[3] += t[0] + Uj[3]*uj; pa[4] += t[1] + Uj[4]*uj; pa[5] += t[2] + Uj[5]*uj;
    dyu_mulMatVec3(t, M, cj + 3);
    pa[3] += t[0]; pa[4] += t[1]; pa[5] += t[2];
    /* carry to the parent */
    const double *R = d->R + 9*j, *p = d->p + 3*j;
    double A1[9], B1[9], M1[9], PB[9], PM[9], PMP[9], Mp[9];
    const double ct = R[0], st = -R[1], ca = m->cos_alpha[j], sa = m->sin_alpha[j];
    rot_joint(A1, A, ct, st, ca, sa);
    rot_joint(B1, B, ct, st, ca, sa);
    rot_joint(M1, M, ct, st, ca, sa);
    double B1t[9] = {B1[0], B1[3], B1[6], B1[1], B1[4], B1[7], B1[2], B1[5], B1[8]};
    skew_mul(PB, p, B1t);             /* P B1^T */
    skew_mul(PM, p, M1);              /* P M1 */
    /* P M1 P = -(P (P M1)^T)^T ... as P M1 P = -(P (M1 P)^T)... computed directly: */
    double PMt[9] = {PM[0], PM[3], PM[6], PM[1], PM[4], PM[7], PM[2], PM[5], PM[8]};
    skew_mul(Mp, p, PMt);             /* P (P M1)^T = P M1^T P^T = -P M1 P */
    for (int k = 0; k < 9; k++) PMP[k] = -Mp[k];
    double *Ap = blk + 27*(j-1), *Bp = Ap + 9, *Mpar = Ap + 18;
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
    double* pp = pA + 6*(j-1);
    pp[0] += rn[0]; pp[1] += rn[1]; pp[2] += rn[2];
    pp[3] += rf[0]; pp[4] += rf[1]; pp[5] += rf[2];
  }

  /* pass 3: accelerations, base to tip; gravity as base acceleration -g */
  double a0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
  double* acc = c;   /* in place: a_j = X a_{j-1} + c_j + S qdd */
  for (int j = 0; j < n; j++) {
    const double *R = d->R + 9*j, *p = d->p + 3*j, *ap = j ? acc + 6*(j-1) : a0;
    double* aj = acc + 6*j, t[3], r[3];
    dyu_mulMatTVec3(r, R, ap);
    aj[0] += r[0]; aj[1] += r[1]; aj[2] += r[2];
    dyu_cross(t, ap, p);
    t[0] += ap[3]; t[1] += ap[4]; t[2] += ap[5];
    dyu_mulMatTVec3(r, R, t);
    aj[3] += r[0]; aj[4] += r[1]; aj[5] += r[2];
    const double* Uj = U + 6*j;
    double s = Uj[0]*aj[0] + Uj[1]*aj[1] + Uj[2]*aj[2] + Uj[3]*aj[3] + Uj[4]*aj[4] + Uj[5]*aj[5];
    qdd[j] = (u[j] - s) / dd[j];
    aj[m->jnt_type[j] == DY_REVOLUTE ? 2 : 5] += qdd[j];
  }
  return 0;
}
