/* dynid ident: the regressor Y(q,qd,qdd) of tau = Y pi (see regressor.h).
 *
 * Forward pass as in core/rnea.c (frames, w, wd, vd of every link in its own
 * frame j). The wrench of link k about O_k in frame k is linear in its ten
 * parameters, (f_k; n_k) = A_k pi_k with the 6x10 body regressor
 *     f = M vd + wd x MS + w x (w x MS)
 *     n = J wd + w x (J w) + MS x vd.
 * Instead of carrying the ten wrench columns of link k down to every joint
 * j <= k (ten 6-vector transforms per pair), the axis of joint j is carried
 * up to frame k once per pair, as a spatial motion vector at O_k:
 *     revolute j:  s = (z_j ; z_j x (O_k - O_j)),  prismatic j: s = (0 ; z_j)
 *     s(frame k) = (R^T s_w ; R^T (s_v + s_w x p_k))  from frame k-1,
 * and Y[j, pi_k] = s_w . n_k + s_v . f_k (power: the wrench at O_k against
 * the joint's unit motion). O(n^2) 6-vector operations per sample. */
#include "regressor.h"
#include "dynamics.h"
#include "mathu.h"
#include <string.h>

int dyi_ncols(const dyModel* m, int friction) {
  return (friction ? DY_NPAR_LINK + DY_NPAR_JNT : DY_NPAR_LINK) * m->n;
}

/* 6x10 body regressor of one link: F[c], N[c] (3 each) for parameter c
 * (F of the six inertia columns is zero and not written) */
static void body_regressor(double F[10][3], double N[10][3], const double w[3],
                           const double wd[3], const double vd[3]) {
  /* inertia columns: n = E wd + w x (E w), E the unit symmetric tensor of
   * XX XY XZ YY YZ ZZ, written out (no index arrays: they stall the
   * store-to-load forwarding in this hot loop) */
  double w00 = w[0]*w[0], w11 = w[1]*w[1], w22 = w[2]*w[2];
  double w01 = w[0]*w[1], w02 = w[0]*w[2], w12 = w[1]*w[2];
  N[DY_XX][0] = wd[0];        N[DY_XX][1] = w02;          N[DY_XX][2] = -w01;
  N[DY_XY][0] = wd[1] - w02;  N[DY_XY][1] = wd[0] + w12;  N[DY_XY][2] = w00 - w11;
  N[DY_XZ][0] = wd[2] + w01;  N[DY_XZ][1] = w22 - w00;    N[DY_XZ][2] = wd[0] - w12;
  N[DY_YY][0] = -w12;         N[DY_YY][1] = wd[1];        N[DY_YY][2] = w01;
  N[DY_YZ][0] = w11 - w22;    N[DY_YZ][1] = wd[2] - w01;  N[DY_YZ][2] = wd[1] + w02;
  N[DY_ZZ][0] = w12;          N[DY_ZZ][1] = -w02;         N[DY_ZZ][2] = wd[2];
  /* first moments: f = wd x e + w x (w x e) = wd x e + w_i w - |w|^2 e,
   * n = e x vd, for e = e_x, e_y, e_z */
  double ww = w00 + w11 + w22;
  F[DY_MX][0] = w00 - ww;       F[DY_MX][1] = wd[2] + w01;    F[DY_MX][2] = w02 - wd[1];
  F[DY_MY][0] = w01 - wd[2];    F[DY_MY][1] = w11 - ww;       F[DY_MY][2] = wd[0] + w12;
  F[DY_MZ][0] = wd[1] + w02;    F[DY_MZ][1] = w12 - wd[0];    F[DY_MZ][2] = w22 - ww;
  N[DY_MX][0] = 0;              N[DY_MX][1] = -vd[2];         N[DY_MX][2] = vd[1];
  N[DY_MY][0] = vd[2];          N[DY_MY][1] = 0;              N[DY_MY][2] = -vd[0];
  N[DY_MZ][0] = -vd[1];         N[DY_MZ][1] = vd[0];          N[DY_MZ][2] = 0;
  /* mass: f = vd, n = 0 */
  F[DY_M][0] = vd[0]; F[DY_M][1] = vd[1]; F[DY_M][2] = vd[2];
  N[DY_M][0] = N[DY_M][1] = N[DY_M][2] = 0;
}

void dyi_regressor(const dyModel* m, dyData* d, const double* q, const double* qd,
                   const double* qdd, int friction, double* Y, int ldy) {
  const int n = m->n;
  double* S = d->axes;  /* axes of joints 0..k in frame k, 6 per joint */
  dy_frames(m, d, q);
  dy_kinematics(m, d, qd, qdd, m->gravity);   /* w, wd, vd of every link */

  for (int k = 0; k < n; k++) {
    const double *p = d->p + 3*k, *R = d->R + 9*k;
    const double *w = d->w + 3*k, *wd = d->wd + 3*k, *vd = d->vd + 3*k;

    /* carry the axes of joints 0..k-1 from frame k-1 to frame k */
    for (int j = 0; j < k; j++) {
      double* s = S + 6*j;
      double v[3];
      v[0] = s[3]; v[1] = s[4]; v[2] = s[5];
      dyu_addCross(v, s, p);
      double sw[3] = {s[0], s[1], s[2]};
      dyu_mulMatTVec3(s, R, sw);
      dyu_mulMatTVec3(s + 3, R, v);
    }
    /* the axis of joint k itself, at O_k in frame k */
    double* sk = S + 6*k;
    int rev = m->jnt_type[k] == DY_REVOLUTE;
    sk[0] = sk[1] = sk[3] = sk[4] = 0;
    sk[2] = rev; sk[5] = !rev;

    /* body regressor of link k and its projection on every joint j <= k */
    double F[10][3], N[10][3];
    body_regressor(F, N, w, wd, vd);
    double* Yk = Y + (size_t)ldy * (size_t)(DY_NPAR_LINK*k);
    for (int j = 0; j < n; j++) {
      if (j > k) {   /* link k does not act on joints after it (a plain loop:
                        a memset call per column costs more for small n) */
        for (int c = 0; c < DY_NPAR_LINK; c++) Yk[j + (size_t)ldy*c] = 0;
        continue;
      }
      const double* s = S + 6*j;
      for (int c = 0; c < 6; c++)
        Yk[j + (size_t)ldy*c] = s[0]*N[c][0] + s[1]*N[c][1] + s[2]*N[c][2];
      for (int c = 6; c < 9; c++)
        Yk[j + (size_t)ldy*c] = s[0]*N[c][0] + s[1]*N[c][1] + s[2]*N[c][2]
                              + s[3]*F[c][0] + s[4]*F[c][1] + s[5]*F[c][2];
      Yk[j + (size_t)ldy*DY_M] = s[3]*F[DY_M][0] + s[4]*F[DY_M][1] + s[5]*F[DY_M][2];
    }
  }

  /* joint columns: IA qdd, FV qd, FC sign(qd), FO, on the joint's own row */
  if (friction) {
    for (int j = 0; j < n; j++) {
      double* Yj = Y + (size_t)ldy * (size_t)(DY_NPAR_LINK*n + DY_NPAR_JNT*j);
      double qdj = qd ? qd[j] : 0;
      double v[DY_NPAR_JNT] = {qdd ? qdd[j] : 0, qdj, dyu_sign(qdj), 1};
      for (int c = 0; c < DY_NPAR_JNT; c++)
        for (int i = 0; i < n; i++) Yj[i + (size_t)ldy*c] = i == j ? v[c] : 0;
    }
  }
}

/* one timing of dyi_regressor: seconds per sample (one n x ncols block) */
#include <time.h>
double dyi_bench_regressor(const dyModel* m, dyData* d, int friction, int nsamples,
                           double* Y) {
  int n = m->n;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  for (int j = 0; j < n; j++) { q[j] = 0.1*j + 0.3; qd[j] = 0.2 - 0.05*j; qdd[j] = 0.7 - 0.1*j; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (int s = 0; s < nsamples; s++) {
    q[s % n] += 1e-3;
    dyi_regressor(m, d, q, qd, qdd, friction, Y, n);
  }
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  return ((double)(t1.tv_sec - t0.tv_sec) + 1e-9*(double)(t1.tv_nsec - t0.tv_nsec)) / nsamples;
}
