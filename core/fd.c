/* dynid core: forward dynamics, by Cholesky of the CRBA inertia matrix and
 * by the articulated-body algorithm (seed 003, section 3.3). */
#include "dynamics.h"
#include "mathu.h"
#include <math.h>
#include <string.h>

int dy_fd_chol(const dyModel* m, dyData* d, const double* par, const double* q,
               const double* qd, const double* tau, double* qdd) {
  const int n = m->n;
  double* L = d->H;
  dy_crba(m, d, par, q, L);                      /* computes the frames */
  dy_rnea_frames(m, d, par, qd, NULL, m->gravity, 1, d->b);
  for (int j = 0; j < n; j++) qdd[j] = tau[j] - d->b[j];
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

/* spatial helpers: 6-vectors (angular; linear), 6x6 row-major */

/* Xm: motion transform from parent frame to frame j, given R (frame j axes
 * in parent) and p (O_j in parent):  w' = R^T w,  v' = R^T (v + w x p)
 * as a 6x6 [[R^T, 0], [-R^T [p], R^T]] */
static void motion_xform(double X[36], const double R[9], const double p[3]) {
  memset(X, 0, 36 * sizeof(double));
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      X[6*a + b] = R[3*b + a];
      X[6*(a+3) + b + 3] = R[3*b + a];
    }
  /* -R^T [p]x : column b of [p]x is p x e_b */
  double px[9] = {0, -p[2], p[1], p[2], 0, -p[0], -p[1], p[0], 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      X[6*(a+3) + b] = -(R[a]*px[b] + R[3+a]*px[3+b] + R[6+a]*px[6+b]);
}

/* v = X u (6) */
static void mul66v(double v[6], const double X[36], const double u[6]) {
  for (int a = 0; a < 6; a++) {
    double s = 0;
    for (int b = 0; b < 6; b++) s += X[6*a + b] * u[b];
    v[a] = s;
  }
}
/* v = X^T u (6) */
static void mul66tv(double v[6], const double X[36], const double u[6]) {
  for (int a = 0; a < 6; a++) {
    double s = 0;
    for (int b = 0; b < 6; b++) s += X[6*b + a] * u[b];
    v[a] = s;
  }
}
/* A += X^T B X (6x6) */
static void add_congruent(double A[36], const double X[36], const double B[36]) {
  double T[36];
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += B[6*a + k] * X[6*k + b];
      T[6*a + b] = s;
    }
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += X[6*k + a] * T[6*k + b];
      A[6*a + b] += s;
    }
}
/* motion cross: r = v x m */
static void crm(double r[6], const double v[6], const double u[6]) {
  dyu_cross(r, v, u);
  dyu_cross(r + 3, v, u + 3);
  dyu_addCross(r + 3, v + 3, u);
}
/* force cross: r = v x* f */
static void crf(double r[6], const double v[6], const double f[6]) {
  dyu_cross(r, v, f);
  dyu_addCross(r, v + 3, f + 3);
  dyu_cross(r + 3, v, f + 3);
}
/* spatial inertia about O_j: [[J, [MS]x], [[MS]x^T, M 1]] */
static void spatial_inertia(double In[36], const double* pl) {
  memset(In, 0, 36 * sizeof(double));
  double J[9];
  const double s6[6] = {pl[DY_XX], pl[DY_XY], pl[DY_XZ], pl[DY_YY], pl[DY_YZ], pl[DY_ZZ]};
  dyu_sym6ToMat(J, s6);
  const double* c = pl + DY_MX;
  double cx[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      In[6*a + b] = J[3*a + b];
      In[6*a + b + 3] = cx[3*a + b];
      In[6*(a+3) + b] = cx[3*b + a];
    }
  In[21] = In[28] = In[35] = pl[DY_M];
}

int dy_fd_aba(const dyModel* m, dyData* d, const double* par, const double* q,
              const double* qd, const double* tau, double* qdd) {
  const int n = m->n;
  double* IA = d->ci;          /* articulated inertias (36n) */
  double* v = d->cv;           /* velocities (6n) */
  double* c = d->cv + 6*n;     /* velocity-product accelerations (6n) */
  double* pA = d->cv + 12*n;   /* bias forces (6n) */
  double* U = d->cv + 18*n;    /* IA S (6n) */
  double* X = d->work;         /* one motion transform (36) */
  double* dd = d->b;           /* S^T U (n) */
  double* u = d->H;            /* tau - S^T pA (n) */
  const double* pj = par + DY_NPAR_LINK*n;

  /* pass 1: velocities, bias terms */
  dy_frames(m, d, q);
  for (int j = 0; j < n; j++) {
    double *vj = v + 6*j, S[6] = {0, 0, 0, 0, 0, 0};
    S[m->jnt_type[j] == DY_REVOLUTE ? 2 : 5] = qd[j];
    if (j) {
      motion_xform(X, d->R + 9*j, d->p + 3*j);
      mul66v(vj, X, v + 6*(j-1));
    } else memset(vj, 0, 6 * sizeof(double));
    crm(c + 6*j, vj, S);
    for (int a = 0; a < 6; a++) vj[a] += S[a];
    spatial_inertia(IA + 36*j, par + DY_NPAR_LINK*j);
    double h[6];
    mul66v(h, IA + 36*j, vj);
    crf(pA + 6*j, vj, h);
  }

  /* pass 2: articulated inertias, tip to base */
  for (int j = n - 1; j >= 0; j--) {
    int k = m->jnt_type[j] == DY_REVOLUTE ? 2 : 5;
    double *In = IA + 36*j, *Uj = U + 6*j;
    for (int a = 0; a < 6; a++) Uj[a] = In[6*a + k];
    dd[j] = Uj[k] + pj[DY_NPAR_JNT*j + DY_IA];
    if (!(dd[j] > 0)) return j + 1;
    double qdj = qd[j];
    u[j] = tau[j] - pA[6*j + k] - pj[DY_NPAR_JNT*j + DY_FV]*qdj
         - pj[DY_NPAR_JNT*j + DY_FC]*dyu_sign(qdj) - pj[DY_NPAR_JNT*j + DY_FO];
    if (j) {
      double Ia[36], pa[6], t[6];
      for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) Ia[6*a + b] = In[6*a + b] - Uj[a]*Uj[b]/dd[j];
      mul66v(t, Ia, c + 6*j);
      for (int a = 0; a < 6; a++) pa[a] = pA[6*j + a] + t[a] + Uj[a]*u[j]/dd[j];
      motion_xform(X, d->R + 9*j, d->p + 3*j);
      add_congruent(IA + 36*(j-1), X, Ia);
      mul66tv(t, X, pa);
      for (int a = 0; a < 6; a++) pA[6*(j-1) + a] += t[a];
    }
  }

  /* pass 3: accelerations, base to tip; gravity as base acceleration -g */
  double a0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
  double* acc = c;   /* reuse c in place: a_j = X a_{j-1} + c_j + S qdd */
  for (int j = 0; j < n; j++) {
    int k = m->jnt_type[j] == DY_REVOLUTE ? 2 : 5;
    double t[6];
    motion_xform(X, d->R + 9*j, d->p + 3*j);
    mul66v(t, X, j ? acc + 6*(j-1) : a0);
    double* aj = acc + 6*j;
    for (int a = 0; a < 6; a++) aj[a] += t[a];
    double s = 0;
    for (int a = 0; a < 6; a++) s += U[6*j + a] * aj[a];
    qdd[j] = (u[j] - s) / dd[j];
    aj[k] += qdd[j];
  }
  return 0;
}
