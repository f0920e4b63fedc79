/* SPDX-License-Identifier: MIT */
/* dynid core: Newton-Euler for many states per call (dynamics.h, batch
 * kernels).
 *
 * The states are cut into chunks of DY_BATCH_LANES (8). A chunk's inputs are
 * copied into the workspace, which holds every per-link quantity as
 * [joint][component][lane]; the recursion over the joints then runs with
 * every arithmetic statement inside a loop over the 8 lanes of a fixed
 * trip count, which the compiler turns into vector instructions (8 doubles:
 * one AVX-512 or two AVX2 registers). The last chunk is padded with zero
 * states whose results are dropped. cos/sin of the joint angles by
 * dyu_sincos8 (mathu.h), vectorised like the rest, within 2 ulp of the
 * libm calls of dy_frames.
 *
 * Every lane performs the operations of core/rnea.c in the same order (the
 * products with the structural zeros of the joint rotation are left out,
 * which can change only the sign of a zero), so the results equal dy_rnea's
 * state by state to rounding (to the bit where the two sines and cosines
 * agree: most entries of tests/test_batch.c).
 *
 * Dispatch: on x86-64 the chunk kernel is compiled three times (AVX-512F,
 * AVX2, baseline SSE2) by GCC/Clang function multiversioning; the loader
 * picks the best one the CPU and OS support (dy_batch_isa names it). */
#include "core/dynamics.h"
#include "core/util.h"
#include "core/transmission.h"
#include "core/mathu.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define B DY_BATCH_LANES
_Static_assert(DY_BATCH_LANES == 8, "dyu_sincos8 fills 8 lanes");

dyBatch* dy_make_batch(const dyModel* m) {
  if (!m || m->n < 1 || m->n > DY_MAXJ) return NULL;
  size_t sz = (sizeof(dyBatch) + 63) / 64 * 64;
  dyBatch* w = aligned_alloc(64, sz);
  if (w) memset(w, 0, sz);
  return w;
}

void dy_free_batch(dyBatch* w) { free(w); }

const char* dy_batch_isa(void) {
#if defined(__x86_64__) && defined(__has_attribute) && !defined(DY_BATCH_NO_CLONES)
#if __has_attribute(target_clones)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f (8 doubles per vector)";
  if (__builtin_cpu_supports("avx2")) return "avx2 (4 doubles per vector)";
  return "default (SSE2, 2 doubles per vector)";
#endif
#endif
  return "plain C (one variant, for the compiler's flags)";
}

/* R_{j-1,j} of one lane (the entries of dy_frames: Rx(alpha) Rz(theta); R2
 * is zero) and O_j's y, z in frame j-1 */
typedef struct { double R0, R1, R3, R4, R5, R6, R7, R8, p1, p2; } laneFrame;
static inline __attribute__((always_inline)) laneFrame
lane_frame(const dyBatch* restrict W, int j, int b, double ca, double sa, double msa) {
  const double ct = W->ct[j][b], st = W->st[j][b];
  laneFrame f = {ct, -st, ca*st, ca*ct, msa, sa*st, sa*ct, ca, W->p[j][0][b], W->p[j][1][b]};
  return f;
}

/* one lane of the forward pass of joint j (rev: revolute, a constant at
 * every call so that each loop gets one branch-free copy) */
static inline __attribute__((always_inline)) void
forward_lane(dyBatch* restrict W, int j, int b, double ca, double sa, double msa, double p0,
             int rev) {
  const laneFrame f = lane_frame(W, j, b, ca, sa, msa);
  const double R0 = f.R0, R1 = f.R1, R3 = f.R3, R4 = f.R4, R5 = f.R5, R6 = f.R6, R7 = f.R7,
               R8 = f.R8, p1 = f.p1, p2 = f.p2;
  const double wp0 = W->w[j][0][b], wp1 = W->w[j][1][b], wp2 = W->w[j][2][b];
  const double wdp0 = W->wd[j][0][b], wdp1 = W->wd[j][1][b], wdp2 = W->wd[j][2][b];
  /* vd = R^T (vd' + wd' x p + w' x (w' x p)) */
  double t0 = wp1*p2 - wp2*p1, t1 = wp2*p0 - wp0*p2, t2 = wp0*p1 - wp1*p0;
  double u0 = wp1*t2 - wp2*t1, u1 = wp2*t0 - wp0*t2, u2 = wp0*t1 - wp1*t0;
  u0 += wdp1*p2 - wdp2*p1; u1 += wdp2*p0 - wdp0*p2; u2 += wdp0*p1 - wdp1*p0;
  u0 += W->vd[j][0][b]; u1 += W->vd[j][1][b]; u2 += W->vd[j][2][b];
  double vd0 = R0*u0 + R3*u1 + R6*u2, vd1 = R1*u0 + R4*u1 + R7*u2, vd2 = R5*u1 + R8*u2;
  double wr0 = R0*wp0 + R3*wp1 + R6*wp2, wr1 = R1*wp0 + R4*wp1 + R7*wp2, wr2 = R5*wp1 + R8*wp2;
  double wd0 = R0*wdp0 + R3*wdp1 + R6*wdp2, wd1 = R1*wdp0 + R4*wdp1 + R7*wdp2,
         wd2 = R5*wdp1 + R8*wdp2;
  const double qdj = W->qd[j][b], qddj = W->qdd[j][b];
  if (rev) {   /* w = wr + qd z, wd = R^T wd' + qdd z + wr x qd z */
    wd0 += wr1*qdj; wd1 -= wr0*qdj; wd2 += qddj;
    wr2 += qdj;
  } else {     /* w = wr, vd += qdd z + 2 wr x qd z */
    vd0 += 2*wr1*qdj; vd1 -= 2*wr0*qdj; vd2 += qddj;
  }
  W->w[j+1][0][b] = wr0; W->w[j+1][1][b] = wr1; W->w[j+1][2][b] = wr2;
  W->wd[j+1][0][b] = wd0; W->wd[j+1][1][b] = wd1; W->wd[j+1][2][b] = wd2;
  W->vd[j+1][0][b] = vd0; W->vd[j+1][1][b] = vd1; W->vd[j+1][2][b] = vd2;
}

#define BATCH_INL static inline __attribute__((always_inline))

/* joint frames: cos, sin theta (dyu_sincos8, all lanes: the padding lanes
 * nb..B-1 hold the zero state), O_j's y, z in frame j-1: p = (a, -sa d, ca d) */
BATCH_INL void batch_frames(const dyModel* m, dyBatch* restrict W, int nb) {
  (void)nb;
  for (int j = 0; j < m->n; j++) {
    const double ca = m->cos_alpha[j], sa = m->sin_alpha[j];
    const double th0 = m->dh_theta[j], d0 = m->dh_d[j];
    if (m->jnt_type[j] == DY_REVOLUTE) {
      double th[B];
      for (int b = 0; b < B; b++) th[b] = th0 + W->q[j][b];
      dyu_sincos8(W->st[j], W->ct[j], th);
      const double p1 = -sa*d0, p2 = ca*d0;
      for (int b = 0; b < B; b++) { W->p[j][0][b] = p1; W->p[j][1][b] = p2; }
    } else {
      double th[B];   /* constant (dyu_sincos8 too, as dy_frames) */
      for (int b = 0; b < B; b++) th[b] = th0;
      dyu_sincos8(W->st[j], W->ct[j], th);
      for (int b = 0; b < B; b++) {
        double dd = d0 + W->q[j][b];
        W->p[j][0][b] = -sa*dd; W->p[j][1][b] = ca*dd;
      }
    }
  }
}

/* forward: w, wd, vd of link j (index j+1) from its parent (index j), the
 * base (index 0) at rest accelerating at -g; the joint type is tested
 * outside the loop over lanes (a branch inside keeps most compilers from
 * vectorising it) */
BATCH_INL void batch_forward(const dyModel* m, dyBatch* restrict W) {
  for (int c = 0; c < 3; c++) {
    const double g = m->gravity[c];
    for (int b = 0; b < B; b++) { W->w[0][c][b] = 0; W->wd[0][c][b] = 0; W->vd[0][c][b] = -g; }
  }
  for (int j = 0; j < m->n; j++) {
    const double ca = m->cos_alpha[j], sa = m->sin_alpha[j], msa = -sa;
    const double p0 = m->dh_a[j];
    if (m->jnt_type[j] == DY_REVOLUTE)
      for (int b = 0; b < B; b++) forward_lane(W, j, b, ca, sa, msa, p0, 1);
    else
      for (int b = 0; b < B; b++) forward_lane(W, j, b, ca, sa, msa, p0, 0);
  }
}

/* link wrenches: F = M vd + wd x MS + w x (w x MS);  N = J wd + w x J w + MS x vd */
BATCH_INL void batch_wrenches(const dyModel* m, const double* par, dyBatch* restrict W) {
  for (int j = 0; j < m->n; j++) {
    const double* pl = par + DY_NPAR_LINK*j;
    const double J0 = pl[DY_XX], J1 = pl[DY_XY], J2 = pl[DY_XZ], J3 = pl[DY_YY], J4 = pl[DY_YZ],
                 J5 = pl[DY_ZZ], s0 = pl[DY_MX], s1 = pl[DY_MY], s2 = pl[DY_MZ], M = pl[DY_M];
    for (int b = 0; b < B; b++) {
      const double w0 = W->w[j+1][0][b], w1 = W->w[j+1][1][b], w2 = W->w[j+1][2][b];
      const double a0 = W->wd[j+1][0][b], a1 = W->wd[j+1][1][b], a2 = W->wd[j+1][2][b];
      const double v0 = W->vd[j+1][0][b], v1 = W->vd[j+1][1][b], v2 = W->vd[j+1][2][b];
      double t0 = w1*s2 - w2*s1, t1 = w2*s0 - w0*s2, t2 = w0*s1 - w1*s0;
      double F0 = w1*t2 - w2*t1, F1 = w2*t0 - w0*t2, F2 = w0*t1 - w1*t0;
      F0 += a1*s2 - a2*s1; F1 += a2*s0 - a0*s2; F2 += a0*s1 - a1*s0;
      F0 += M*v0; F1 += M*v1; F2 += M*v2;
      t0 = J0*w0 + J1*w1 + J2*w2; t1 = J1*w0 + J3*w1 + J4*w2; t2 = J2*w0 + J4*w1 + J5*w2;
      double N0 = w1*t2 - w2*t1, N1 = w2*t0 - w0*t2, N2 = w0*t1 - w1*t0;
      t0 = J0*a0 + J1*a1 + J2*a2; t1 = J1*a0 + J3*a1 + J4*a2; t2 = J2*a0 + J4*a1 + J5*a2;
      N0 += t0; N1 += t1; N2 += t2;
      N0 += s1*v2 - s2*v1; N1 += s2*v0 - s0*v2; N2 += s0*v1 - s1*v0;
      W->F[j][0][b] = F0; W->F[j][1][b] = F1; W->F[j][2][b] = F2;
      W->N[j][0][b] = N0; W->N[j][1][b] = N1; W->N[j][2][b] = N2;
    }
  }
}

/* backward: tau_j = n_j . z (revolute) or f_j . z (prismatic), then
 * f_{j-1} += R f_j, n_{j-1} += R n_j + p x R f_j */
BATCH_INL void batch_backward(const dyModel* m, dyBatch* restrict W) {
  for (int j = m->n - 1; j >= 0; j--) {
    const int rev = m->jnt_type[j] == DY_REVOLUTE;
    memcpy(W->tau[j], rev ? W->N[j][2] : W->F[j][2], sizeof W->tau[j]);
    if (j == 0) break;
    const double ca = m->cos_alpha[j], sa = m->sin_alpha[j], msa = -sa;
    const double p0 = m->dh_a[j];
    for (int b = 0; b < B; b++) {
      const laneFrame f = lane_frame(W, j, b, ca, sa, msa);
      const double R0 = f.R0, R1 = f.R1, R3 = f.R3, R4 = f.R4, R5 = f.R5, R6 = f.R6,
                   R7 = f.R7, R8 = f.R8, p1 = f.p1, p2 = f.p2;
      const double F0 = W->F[j][0][b], F1 = W->F[j][1][b], F2 = W->F[j][2][b];
      const double N0 = W->N[j][0][b], N1 = W->N[j][1][b], N2 = W->N[j][2][b];
      double rf0 = R0*F0 + R1*F1, rf1 = R3*F0 + R4*F1 + R5*F2, rf2 = R6*F0 + R7*F1 + R8*F2;
      double rn0 = R0*N0 + R1*N1, rn1 = R3*N0 + R4*N1 + R5*N2, rn2 = R6*N0 + R7*N1 + R8*N2;
      W->F[j-1][0][b] += rf0; W->F[j-1][1][b] += rf1; W->F[j-1][2][b] += rf2;
      double n0 = W->N[j-1][0][b] + rn0, n1 = W->N[j-1][1][b] + rn1, n2 = W->N[j-1][2][b] + rn2;
      n0 += p1*rf2 - p2*rf1; n1 += p2*rf0 - p0*rf2; n2 += p0*rf1 - p1*rf0;
      W->N[j-1][0][b] = n0; W->N[j-1][1][b] = n1; W->N[j-1][2][b] = n2;
    }
  }
}

/* joint terms: tau += IA qdd + FV qd + FC sign(qd) + FO */
BATCH_INL void batch_joint_terms(const dyModel* m, const double* par, dyBatch* restrict W) {
  const double* pj = par + DY_NPAR_LINK*m->n;
  for (int j = 0; j < m->n; j++, pj += DY_NPAR_JNT) {
    const double IA = pj[DY_IA], FV = pj[DY_FV], FC = pj[DY_FC], FO = pj[DY_FO];
    for (int b = 0; b < B; b++) {
      const double qdj = W->qd[j][b];
      const double sg = (qdj > 0 ? 1.0 : 0.0) - (qdj < 0 ? 1.0 : 0.0);   /* dyu_sign */
      W->tau[j][b] += IA*W->qdd[j][b] + FV*qdj + FC*sg + FO;
    }
  }
}

/* Newton-Euler on the chunk in W (q, qd, qdd filled) into W->tau; lanes
 * nb..B-1 are padding. The stages are inlined into each ISA variant. */
DY_CLONES
static void batch_chunk(const dyModel* m, const double* par, dyBatch* restrict W, int nb) {
  batch_frames(m, W, nb);
  batch_forward(m, W);
  batch_wrenches(m, par, W);
  batch_backward(m, W);
  batch_joint_terms(m, par, W);
}

/* (a DY_CLONES variant: the baseline build moved 2 doubles at a time) */
DY_CLONES
static void load_chunk(const dyModel* m, dyBatch* restrict w, int nb, const double* q, const double* qd,
                       const double* qdd, int ld) {
  for (int j = 0; j < m->n; j++) {
    const size_t o = (size_t)j * (size_t)ld;
    /* fixed-count copies for full chunks (a variable-length memcpy becomes
     * a rep movs, slow to start, at this size) */
    if (nb == B) {   /* each array a loop of its own: one vector copy (or clear) each */
      for (int b = 0; b < B; b++) w->q[j][b] = q[o + b];
      if (qd) for (int b = 0; b < B; b++) w->qd[j][b] = qd[o + b];
      else for (int b = 0; b < B; b++) w->qd[j][b] = 0;
      if (qdd) for (int b = 0; b < B; b++) w->qdd[j][b] = qdd[o + b];
      else for (int b = 0; b < B; b++) w->qdd[j][b] = 0;
    } else
      for (int b = 0; b < B; b++) {   /* a short chunk, padded with zero states */
        w->q[j][b] = b < nb ? q[o + b] : 0;
        w->qd[j][b] = b < nb && qd ? qd[o + b] : 0;
        w->qdd[j][b] = b < nb && qdd ? qdd[o + b] : 0;
      }
  }
}

void dy_batch_load(const dyModel* m, dyBatch* w, int nb, const double* q, const double* qd,
                   const double* qdd, int ld) {
  load_chunk(m, w, nb, q, qd, qdd, ld);
}

/* (static: Clang 14 makes no symbol for an exported multiversioned function) */
DY_CLONES
static void frames_chunk(const dyModel* m, dyBatch* w, int nb) { batch_frames(m, w, nb); }

void dy_frames_batch(const dyModel* m, dyBatch* w, int nb) { frames_chunk(m, w, nb); }

/* (static: Clang 14 makes no symbol for an exported multiversioned function) */
DY_CLONES
static void kinematics_chunk(const dyModel* m, dyBatch* w, int nb) {
  batch_frames(m, w, nb);
  batch_forward(m, w);
}

void dy_kinematics_batch(const dyModel* m, dyBatch* w, int nb) { kinematics_chunk(m, w, nb); }

void dy_rnea_batch(const dyModel* m, dyBatch* w, const double* par, int K, const double* q,
                   const double* qd, const double* qdd, double* tau) {
  const int n = m->n;
  for (int k0 = 0; k0 < K; k0 += B) {
    const int nb = K - k0 < B ? K - k0 : B;
    dy_batch_load(m, w, nb, q + k0, qd ? qd + k0 : NULL, qdd ? qdd + k0 : NULL, K);
    batch_chunk(m, par, w, nb);
    for (int b = 0; b < nb && m->nmot; b++) {   /* the coupled motors, lane by lane */
      double qd1[DY_MAXJ], qdd1[DY_MAXJ], t1[DY_MAXJ] = {0};
      for (int j = 0; j < n; j++) { qd1[j] = w->qd[j][b]; qdd1[j] = w->qdd[j][b]; }
      dy_motor_tau(m, par, qd1, qdd1, t1);
      for (int j = 0; j < n; j++) w->tau[j][b] += t1[j];
    }
    for (int j = 0; j < n; j++) {
      double* t = tau + (size_t)j * (size_t)K + (size_t)k0;
      if (nb == B)
        for (int b = 0; b < B; b++) t[b] = w->tau[j][b];
      else
        for (int b = 0; b < nb; b++) t[b] = w->tau[j][b];
    }
  }
}
