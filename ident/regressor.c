/* SPDX-License-Identifier: MIT */
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
#include "ident/regressor.h"
#include "core/dynamics.h"
#include "core/mathu.h"
#include "core/util.h"
#include <stdlib.h>
#include <string.h>

int dyi_ncols(const dyModel* m, int friction) {
  return friction ? dy_npar(m) : DY_NPAR_LINK * m->n;
}

/* The coupled motors' columns of one state (core/transmission.h), after
 * the joint columns: for motor k with row R_k of R, on every row i,
 *   IAMk: R_ki (R_k qdd)   FVMk: R_ki (R_k qd)   FCMk: R_ki sign(R_k qd)
 * Y column c of row i at Y[i*rs + c*cs]. */
static void motor_columns(const dyModel* m, const double* qd, const double* qdd, double* Y,
                          size_t rs, size_t cs) {
  const int n = m->n;
  for (int c = 0; c < m->nmot; c++) {
    const double* Rk = m->trans + n*m->mot_k[c];
    double a = 0, v = 0;
    for (int j = 0; j < n; j++) {
      if (qdd) a += Rk[j] * qdd[j];
      if (qd) v += Rk[j] * qd[j];
    }
    double sv = dyu_sign(v);
    double* Yc = Y + cs * (size_t)(DY_NPL*n + DY_NPAR_MOT*c);
    for (int i = 0; i < n; i++) {
      Yc[i*rs] = Rk[i] * a;
      Yc[i*rs + cs] = Rk[i] * v;
      Yc[i*rs + 2*cs] = Rk[i] * sv;
    }
  }
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
    motor_columns(m, qd, qdd, Y, 1, (size_t)ldy);
  }
}

/* ------------------------------------------------ many states per call */

#define B DY_BATCH_LANES
#define RB_INL static inline __attribute__((always_inline))

struct dyiRegBatch_ {
  _Alignas(64) double S[DY_MAXJ][6][B];   /* axes of joints 0..k in frame k */
  double NF[DY_NPAR_LINK][6][B];          /* body regressor of link k: n (0-2), f (3-5) */
  dyBatch* kin;                           /* q, qd, qdd and the kinematics of the chunk */
  double* Y;                              /* the chunk: (j, c) of lane b at Y[(c n + j) B + b] */
  size_t ysz;                             /* its bytes */
  int n, ncol, friction;
  unsigned rows;                          /* joints whose rows dyi_regressor_lanes computes (bit j) */
};

dyiRegBatch* dyi_regressor_batch_make(const dyModel* m, int friction) {
  if (!m || m->n < 1 || m->n > DY_MAXJ) return NULL;
  dyiRegBatch* w = aligned_alloc(64, (sizeof(dyiRegBatch) + 63) / 64 * 64);
  if (!w) return NULL;
  memset(w, 0, sizeof *w);
  w->n = m->n; w->friction = friction != 0; w->ncol = dyi_ncols(m, friction);
  w->rows = ~0u;
  w->ysz = ((size_t)w->ncol * (size_t)m->n * B * sizeof(double) + 63) / 64 * 64;
  w->kin = dy_make_batch(m);
  w->Y = aligned_alloc(64, w->ysz);
  if (!w->kin || !w->Y) { dyi_regressor_batch_free(w); return NULL; }
  memset(w->Y, 0, w->ysz);   /* the structural zeros, never written again */
  return w;
}

void dyi_regressor_rows(dyiRegBatch* w, unsigned rows) {
  w->rows = rows;
  memset(w->Y, 0, w->ysz);   /* the rows left out: zero, never written */
}

void dyi_regressor_batch_free(dyiRegBatch* w) {
  if (!w) return;
  dy_free_batch(w->kin);
  free(w->Y);
  free(w);
}

/* one lane of the carry of axis s from frame k-1 to frame k:
 * s = (R^T s_w ; R^T (s_v + s_w x p)), R = Rx(alpha) Rz(theta) as dy_frames
 * (its entry R[2] = 0 is multiplied too, as dyu_mulMatTVec3 does) */
RB_INL void carry_lane(double (*s)[B], const dyBatch* K, int k, int b, double ca, double sa,
                       double p0) {
  const double ct = K->ct[k][b], st = K->st[k][b], p1 = K->p[k][0][b], p2 = K->p[k][1][b];
  const double R0 = ct, R1 = -st, R2 = 0, R3 = ca*st, R4 = ca*ct, R5 = -sa, R6 = sa*st, R7 = sa*ct,
               R8 = ca;
  const double a0 = s[0][b], a1 = s[1][b], a2 = s[2][b];
  double v0 = s[3][b], v1 = s[4][b], v2 = s[5][b];
  v0 += a1*p2 - a2*p1; v1 += a2*p0 - a0*p2; v2 += a0*p1 - a1*p0;
  s[0][b] = R0*a0 + R3*a1 + R6*a2; s[1][b] = R1*a0 + R4*a1 + R7*a2; s[2][b] = R2*a0 + R5*a1 + R8*a2;
  s[3][b] = R0*v0 + R3*v1 + R6*v2; s[4][b] = R1*v0 + R4*v1 + R7*v2; s[5][b] = R2*v0 + R5*v1 + R8*v2;
}

/* one lane of body_regressor (the same expressions), into NF */
RB_INL void body_lane(double (*NF)[6][B], const dyBatch* K, int k, int b) {
  const double w0 = K->w[k+1][0][b], w1 = K->w[k+1][1][b], w2 = K->w[k+1][2][b];
  const double a0 = K->wd[k+1][0][b], a1 = K->wd[k+1][1][b], a2 = K->wd[k+1][2][b];
  const double v0 = K->vd[k+1][0][b], v1 = K->vd[k+1][1][b], v2 = K->vd[k+1][2][b];
  const double w00 = w0*w0, w11 = w1*w1, w22 = w2*w2, w01 = w0*w1, w02 = w0*w2, w12 = w1*w2;
  NF[DY_XX][0][b] = a0;        NF[DY_XX][1][b] = w02;       NF[DY_XX][2][b] = -w01;
  NF[DY_XY][0][b] = a1 - w02;  NF[DY_XY][1][b] = a0 + w12;  NF[DY_XY][2][b] = w00 - w11;
  NF[DY_XZ][0][b] = a2 + w01;  NF[DY_XZ][1][b] = w22 - w00; NF[DY_XZ][2][b] = a0 - w12;
  NF[DY_YY][0][b] = -w12;      NF[DY_YY][1][b] = a1;        NF[DY_YY][2][b] = w01;
  NF[DY_YZ][0][b] = w11 - w22; NF[DY_YZ][1][b] = a2 - w01;  NF[DY_YZ][2][b] = a1 + w02;
  NF[DY_ZZ][0][b] = w12;       NF[DY_ZZ][1][b] = -w02;      NF[DY_ZZ][2][b] = a2;
  const double ww = w00 + w11 + w22;
  NF[DY_MX][3][b] = w00 - ww;  NF[DY_MX][4][b] = a2 + w01;  NF[DY_MX][5][b] = w02 - a1;
  NF[DY_MY][3][b] = w01 - a2;  NF[DY_MY][4][b] = w11 - ww;  NF[DY_MY][5][b] = a0 + w12;
  NF[DY_MZ][3][b] = a1 + w02;  NF[DY_MZ][4][b] = w12 - a0;  NF[DY_MZ][5][b] = w22 - ww;
  NF[DY_MX][0][b] = 0;         NF[DY_MX][1][b] = -v2;       NF[DY_MX][2][b] = v1;
  NF[DY_MY][0][b] = v2;        NF[DY_MY][1][b] = 0;         NF[DY_MY][2][b] = -v0;
  NF[DY_MZ][0][b] = -v1;       NF[DY_MZ][1][b] = v0;        NF[DY_MZ][2][b] = 0;
  NF[DY_M][3][b] = v0; NF[DY_M][4][b] = v1; NF[DY_M][5][b] = v2;
}

/* Y[j, link k's columns] of every lane, j <= k: the axis s_j against the
 * body regressor, s_w . n + s_v . f (the same sums as dyi_regressor);
 * entry (i, c) of lane b at Y[(c n + i) ld + b] */
RB_INL void project_joint(double* restrict Y, size_t ld, int n, const double (*s)[B],
                          const double (*NF)[6][B], int j, int k) {
  double* Yk = Y + ((size_t)DY_NPAR_LINK * (size_t)k * (size_t)n + (size_t)j) * ld;
  const size_t cs = (size_t)n * ld;   /* one column */
  for (int c = 0; c < 6; c++)
    for (int b = 0; b < B; b++)
      Yk[cs*c + b] = s[0][b]*NF[c][0][b] + s[1][b]*NF[c][1][b] + s[2][b]*NF[c][2][b];
  for (int c = 6; c < 9; c++)
    for (int b = 0; b < B; b++)
      Yk[cs*c + b] = s[0][b]*NF[c][0][b] + s[1][b]*NF[c][1][b] + s[2][b]*NF[c][2][b]
                   + s[3][b]*NF[c][3][b] + s[4][b]*NF[c][4][b] + s[5][b]*NF[c][5][b];
  for (int b = 0; b < B; b++)
    Yk[cs*DY_M + b] = s[3][b]*NF[DY_M][3][b] + s[4][b]*NF[DY_M][4][b] + s[5][b]*NF[DY_M][5][b];
}

/* the structural zeros of a chunk at Y, ld (as project_joint): link k's
 * columns on joints j > k, the joint columns off their joint */
static void zero_chunk(double* Y, size_t ld, int n, int friction) {
  const size_t cs = (size_t)n * ld;
  for (int k = 0; k < n; k++)
    for (int c = 0; c < DY_NPAR_LINK; c++)
      for (int j = k + 1; j < n; j++)
        memset(Y + cs * (size_t)(DY_NPAR_LINK*k + c) + (size_t)j * ld, 0, B * sizeof(double));
  for (int j = 0; friction && j < n; j++)
    for (int c = 0; c < DY_NPAR_JNT; c++)
      for (int i = 0; i < n; i++)
        if (i != j) memset(Y + cs * (size_t)(DY_NPAR_LINK*n + DY_NPAR_JNT*j + c) + (size_t)i * ld, 0, B * sizeof(double));
}

/* the regressor of the loaded chunk (the kinematics done) into Y, entry
 * (i, c) of lane b at Y[(c n + i) ld + b], the rows of the joints in rows
 * (bit i) only, the structural zeros not written; every statement runs in
 * a loop over the B lanes, which the compiler vectorises. Row j needs the
 * axis of joint j carried to each link k >= j and link k's body regressor:
 * a link below every chosen joint is skipped. */
DY_CLONES
static void reg_chunk(const dyModel* m, dyiRegBatch* restrict w, double* restrict Y, size_t ld,
                      unsigned rows) {
  const int n = m->n;
  const dyBatch* K = w->kin;
  for (int k = 0; k < n; k++) {
    if (!(rows & ((2u << k) - 1))) continue;   /* no chosen joint at or below link k */
    const double ca = m->cos_alpha[k], sa = m->sin_alpha[k], p0 = m->dh_a[k];
    for (int j = 0; j < k; j++)
      if (rows >> j & 1u)
        for (int b = 0; b < B; b++) carry_lane(w->S[j], K, k, b, ca, sa, p0);
    const double rev = m->jnt_type[k] == DY_REVOLUTE;
    for (int b = 0; b < B; b++) {
      w->S[k][0][b] = w->S[k][1][b] = w->S[k][3][b] = w->S[k][4][b] = 0;
      w->S[k][2][b] = rev; w->S[k][5][b] = 1 - rev;
    }
    for (int b = 0; b < B; b++) body_lane(w->NF, K, k, b);
    for (int j = 0; j <= k; j++)
      if (rows >> j & 1u)
        project_joint(Y, ld, n, (const double (*)[B])w->S[j], (const double (*)[6][B])w->NF, j, k);
  }
  if (!w->friction) return;
  for (int j = 0; j < n; j++) {   /* IA qdd, FV qd, FC sign(qd), FO on row j */
    if (!(rows >> j & 1u)) continue;
    double* Yj = Y + ((size_t)(DY_NPAR_LINK*n + DY_NPAR_JNT*j) * (size_t)n + (size_t)j) * ld;
    const size_t cs = (size_t)n * ld;
    for (int b = 0; b < B; b++) {
      const double qdj = K->qd[j][b];
      Yj[b] = K->qdd[j][b];
      Yj[cs + b] = qdj;
      Yj[2*cs + b] = (qdj > 0 ? 1.0 : 0.0) - (qdj < 0 ? 1.0 : 0.0);   /* dyu_sign */
      Yj[3*cs + b] = 1;
    }
  }
  for (int b = 0; b < B && m->nmot; b++) {   /* the coupled motors, lane by lane */
    double qd[DY_MAXJ], qdd[DY_MAXJ];
    for (int j = 0; j < n; j++) { qd[j] = K->qd[j][b]; qdd[j] = K->qdd[j][b]; }
    motor_columns(m, qd, qdd, Y + b, ld, (size_t)n * ld);
  }
}

/* nb states (joint j of state b at q[j*ld + b]) loaded, their kinematics
 * and the rows of the joints in rows of their regressor into Y, ldy (as
 * reg_chunk) */
static void chunk_regress(const dyModel* m, dyiRegBatch* w, int nb, const double* q, const double* qd,
                          const double* qdd, int ld, double* Y, size_t ldy, unsigned rows) {
  dy_batch_load(m, w->kin, nb, q, qd, qdd, ld);
  dy_kinematics_batch(m, w->kin, nb);
  reg_chunk(m, w, Y, ldy, rows);
}

const double* dyi_regressor_lanes(const dyModel* m, dyiRegBatch* w, int nb, const double* q,
                                  const double* qd, const double* qdd, int ld) {
  chunk_regress(m, w, nb, q, qd, qdd, ld, w->Y, B, w->rows);
  return w->Y;
}

void dyi_regressor_batch(const dyModel* m, dyiRegBatch* w, int K, const double* q, const double* qd,
                         const double* qdd, double* Y) {
  const size_t ne = (size_t)w->ncol * (size_t)m->n;
  for (int k0 = 0; k0 < K; k0 += B) {
    const int nb = K - k0 < B ? K - k0 : B;
    const double *qk = q + k0, *qdk = qd ? qd + k0 : NULL, *qddk = qdd ? qdd + k0 : NULL;
    if (nb == B) {   /* a full chunk: straight into Y */
      chunk_regress(m, w, nb, qk, qdk, qddk, K, Y + k0, (size_t)K, ~0u);
      zero_chunk(Y + k0, (size_t)K, m->n, w->friction);
      continue;
    }
    chunk_regress(m, w, nb, qk, qdk, qddk, K, w->Y, B, ~0u);
    const double* L = w->Y;
    for (size_t e = 0; e < ne; e++)
      for (int b = 0; b < nb; b++) Y[e * (size_t)K + (size_t)(k0 + b)] = L[e*B + (size_t)b];
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
