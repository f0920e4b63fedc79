/* dynid verify: Saha's DeNOC inverse dynamics and UDU^T forward dynamics
 * ([Saha99]) in modified-DH link frames; see saha.h for the equations. */
#include "saha.h"
#include "dynamics.h"
#include "mathu.h"
#include <string.h>

/* out = B t: (R^T w; R^T (v + w x c)) */
static void b_twist(double out[6], const double R[9], const double c[3], const double t[6]) {
  double u[3];
  dyu_cross(u, t, c);
  u[0] += t[3]; u[1] += t[4]; u[2] += t[5];
  dyu_mulMatTVec3(out, R, t);
  dyu_mulMatTVec3(out + 3, R, u);
}
/* out = B^T w: (R n + c x R f; R f) */
static void bt_wrench(double out[6], const double R[9], const double c[3], const double w[6]) {
  double rn[3];
  dyu_mulMatVec3(out + 3, R, w + 3);
  dyu_mulMatVec3(rn, R, w);
  dyu_cross(out, c, out + 3);
  out[0] += rn[0]; out[1] += rn[1]; out[2] += rn[2];
}
/* 6x6 mass matrix of link i about O_i (row-major) */
static void mass6(double M[36], const double* p10) {
  memset(M, 0, 36 * sizeof(double));
  double J[9];
  dyu_sym6ToMat(J, p10);
  const double* s = p10 + DY_MX;
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) M[6*r + k] = J[3*r + k];
  /* [s x] */
  double S[9] = {0, -s[2], s[1], s[2], 0, -s[0], -s[1], s[0], 0};
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) { M[6*r + 3 + k] = S[3*r + k]; M[6*(3+r) + k] = -S[3*r + k]; }
  M[21] = M[28] = M[35] = p10[DY_M];
}
/* p_i as a 6-vector index: 2 (angular z) or 5 (linear z) */
static inline int pidx(const dyModel* m, int i) { return m->jnt_type[i] == DY_REVOLUTE ? 2 : 5; }

void dyv_saha_id(const dyModel* m, dyData* d, const double* par, const double* q,
                 const double* qd, const double* qdd, double* tau) {
  const int n = m->n;
  double* nu = d->cv;          /* twists (6n) */
  double* xi = d->cv + 6*n;    /* twist rates (6n) */
  double* wt = d->cv + 12*n;   /* wrenches (6n) */
  const double zero6[6] = {0, 0, 0, 0, 0, 0};
  const double xi0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
  for (int i = 0; i < n; i++) {
    double *R = d->R + 9*i, *c = d->p + 3*i;
    dy_jointframe(m, i, q[i], R, c);
    const double *nup = i ? nu + 6*(i-1) : zero6, *xip = i ? xi + 6*(i-1) : xi0;
    double *nui = nu + 6*i, *xii = xi + 6*i;
    const double qdi = qd ? qd[i] : 0, qddi = qdd ? qdd[i] : 0;
    /* t_i = B t_{i-1} + p_i qd_i */
    b_twist(nui, R, c, nup);
    /* xi_i = B xi_{i-1} + Bdot t_{i-1} + p_i qdd_i + Omega_i p_i qd_i.
     * Bdot t_{i-1} = (0; R^T (w' x (w' x c))); Omega_i p_i qd_i is
     * (wr x z qd; 0) for a revolute and (0; 2 wr x z qd) for a prismatic
     * joint, wr = R^T w' (the factor 2 collects the Coriolis term of the
     * sliding O_i, in Saha's eq. 31 split between Bdot and Omega p). */
    b_twist(xii, R, c, xip);
    double t[3], u[3], v[3];
    dyu_cross(t, nup, c);
    dyu_cross(u, nup, t);
    dyu_mulMatTVec3(v, R, u);
    xii[3] += v[0]; xii[4] += v[1]; xii[5] += v[2];
    const double* wr = nui;   /* before adding p qd: R^T w' */
    if (m->jnt_type[i] == DY_REVOLUTE) {
      xii[0] += wr[1]*qdi; xii[1] -= wr[0]*qdi; xii[2] += qddi;
      nui[2] += qdi;
    } else {
      xii[3] += 2*wr[1]*qdi; xii[4] -= 2*wr[0]*qdi; xii[5] += qddi;
      nui[5] += qdi;
    }
    /* w*_i = M_i xi_i + (w x J w; w x (w x MS)) */
    const double* p10 = par + DY_NPAR_LINK*i;
    const double* ms = p10 + DY_MX;
    double* w6 = wt + 6*i;
    double Jw[3], a[3];
    dyu_mulSym6Vec(w6, p10, xii);            /* J wd */
    dyu_addCross(w6, ms, xii + 3);           /* + MS x vd */
    dyu_mulSym6Vec(Jw, p10, nui);
    dyu_addCross(w6, nui, Jw);               /* + w x J w */
    for (int k = 0; k < 3; k++) w6[3+k] = p10[DY_M] * xii[3+k];
    dyu_addCross(w6 + 3, xii, ms);           /* + wd x MS */
    dyu_cross(a, nui, ms);
    dyu_addCross(w6 + 3, nui, a);            /* + w x (w x MS) */
  }
  /* wt_i = w*_i + B_{i+1,i}^T wt_{i+1}; tau_i = p_i^T wt_i */
  for (int i = n - 1; i >= 0; i--) {
    double* w6 = wt + 6*i;
    tau[i] = w6[pidx(m, i)];
    if (i > 0) {
      double o[6];
      bt_wrench(o, d->R + 9*i, d->p + 3*i, w6);
      for (int k = 0; k < 6; k++) wt[6*(i-1) + k] += o[k];
    }
  }
  const double* pj = par + DY_NPAR_LINK*n;
  for (int i = 0; i < n; i++, pj += DY_NPAR_JNT) {
    const double qdi = qd ? qd[i] : 0, qddi = qdd ? qdd[i] : 0;
    tau[i] += pj[DY_IA]*qddi + pj[DY_FV]*qdi + pj[DY_FC]*dyu_sign(qdi) + pj[DY_FO];
  }
}

/* Articulated mass matrices and psi (normalised), mh; frames must be in d.
 * psi: 6n, mh: n. Returns 0 or k+1. */
static int articulate(const dyModel* m, dyData* d, const double* par, double* psi, double* mh) {
  const int n = m->n;
  double* Mh = d->ci;   /* 36 per link */
  for (int i = 0; i < n; i++) mass6(Mh + 36*i, par + DY_NPAR_LINK*i);
  for (int k = n - 1; k >= 0; k--) {
    double* A = Mh + 36*k;
    const int pk = pidx(m, k);
    double ph[6];
    for (int r = 0; r < 6; r++) ph[r] = A[6*r + pk];        /* psih = Mh p */
    double mk = ph[pk] + par[DY_NPAR_LINK*n + DY_NPAR_JNT*k + DY_IA];
    if (!(mk > 0)) return k + 1;
    mh[k] = mk;
    for (int r = 0; r < 6; r++) psi[6*k + r] = ph[r] / mk;
    if (k == 0) break;
    /* A = Mh_k - psih psi^T; Mh_{k-1} += X^T A X, X = B_{k,k-1} as 6x6 */
    for (int r = 0; r < 6; r++)
      for (int s = 0; s < 6; s++) A[6*r + s] -= ph[r] * psi[6*k + s];
    const double *R = d->R + 9*k, *c = d->p + 3*k;
    double X[36], AX[36];
    memset(X, 0, sizeof X);
    /* X = [R^T 0; -R^T [c x]  R^T] */
    double C[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0}, RC[9];
    dyu_mulMatTMat3(RC, R, C);
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) {
        X[6*r + s] = R[3*s + r];
        X[6*(3+r) + 3 + s] = R[3*s + r];
        X[6*(3+r) + s] = -RC[3*r + s];
      }
    for (int r = 0; r < 6; r++)
      for (int s = 0; s < 6; s++) {
        double acc = 0;
        for (int t = 0; t < 6; t++) acc += A[6*r + t] * X[6*t + s];
        AX[6*r + s] = acc;
      }
    double* P = Mh + 36*(k-1);
    for (int r = 0; r < 6; r++)
      for (int s = 0; s < 6; s++) {
        double acc = 0;
        for (int t = 0; t < 6; t++) acc += X[6*t + r] * AX[6*t + s];
        P[6*r + s] += acc;
      }
  }
  return 0;
}

int dyv_saha_fd(const dyModel* m, dyData* d, const double* par, const double* q,
                const double* qd, const double* tau, double* qdd) {
  const int n = m->n;
  double* phi = d->b;
  dyv_saha_id(m, d, par, q, qd, NULL, phi);     /* also fills d->R, d->p */
  for (int i = 0; i < n; i++) phi[i] = tau[i] - phi[i];
  double* psi = d->cv;          /* 6n */
  double* eta = d->cv + 6*n;    /* 6n: eta_i, then mu_i */
  double* mh = d->work;         /* n */
  double* th = d->work + n;     /* n */
  int info = articulate(m, d, par, psi, mh);
  if (info) return info;
  /* tauh = U^-1 phi */
  double e[6] = {0, 0, 0, 0, 0, 0};   /* eta_{i,i+1} */
  for (int i = n - 1; i >= 0; i--) {
    th[i] = phi[i] - e[pidx(m, i)];
    double* ei = eta + 6*i;
    for (int k = 0; k < 6; k++) ei[k] = psi[6*i + k] * th[i] + e[k];
    if (i > 0) bt_wrench(e, d->R + 9*i, d->p + 3*i, ei);
  }
  /* taut = D^-1 tauh; qdd = U^-T taut */
  double mu[6] = {0, 0, 0, 0, 0, 0};  /* mu_{i,i-1} */
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < 6; k++) s += psi[6*i + k] * mu[k];
    qdd[i] = th[i] / mh[i] - s;
    mu[pidx(m, i)] += qdd[i];
    if (i + 1 < n) {
      double o[6];
      b_twist(o, d->R + 9*(i+1), d->p + 3*(i+1), mu);
      memcpy(mu, o, sizeof mu);
    }
  }
  return 0;
}

int dyv_saha_udu(const dyModel* m, dyData* d, const double* par, const double* q,
                 double* U, double* D) {
  const int n = m->n;
  for (int i = 0; i < n; i++) dy_jointframe(m, i, q[i], d->R + 9*i, d->p + 3*i);
  double* psi = d->cv;
  int info = articulate(m, d, par, psi, D);
  if (info) return info;
  memset(U, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n; i++) {
    U[i*n + i] = 1;
    double v[6] = {0, 0, 0, 0, 0, 0}, o[6];
    v[pidx(m, i)] = 1;
    for (int k = i + 1; k < n; k++) {
      b_twist(o, d->R + 9*k, d->p + 3*k, v);
      memcpy(v, o, sizeof v);
      double s = 0;
      for (int r = 0; r < 6; r++) s += psi[6*k + r] * v[r];
      U[i*n + k] = s;
    }
  }
  return 0;
}
