/* SPDX-License-Identifier: MIT */
/* dynid core dynamics: Newton-Euler inverse dynamics, the composite-rigid-body
 * inertia matrix, the bias vector and forward dynamics (Cholesky and
 * articulated-body), all in the modified-DH link frames of model.h.
 *
 * Every function takes the parameter vector as an argument (par, 14n,
 * model.h order; pass m->par for the nominal model), so nominal,
 * identified and perturbed parameters run through the same code.
 * Units: q [rad|m], qd [rad/s|m/s], qdd [rad/s^2|m/s^2], tau [N m|N].
 * Scratch comes from d (dy_make_data); nothing is allocated per call.      */
#ifndef DYNID_DYNAMICS_H
#define DYNID_DYNAMICS_H

#include "core/model.h"

/* Joint frames of every joint at q into d->R (R_{j-1,j}, row-major, 9n) and
 * d->p (O_j in frame j-1 [m], 3n), as dy_jointframe, with cos/sin alpha_j
 * the model's constants (dy_set_const). */
void dy_frames(const dyModel* m, dyData* d, const double* q);

/* The forward kinematic pass of Newton-Euler on the frames already in d:
 * angular velocity d->w, angular acceleration d->wd and linear
 * acceleration d->vd of every link (3n each, frame j, about O_j), with the
 * base accelerating at -g (gravity g[3] in frame 0). qd, qdd may be NULL. */
void dy_kinematics(const dyModel* m, dyData* d, const double* qd, const double* qdd,
                   const double g[3]);

/* dy_rnea_g on the frames already in d (a dy_frames, dy_crba or dy_rnea call
 * at the same q just before), to skip recomputing them. */
void dy_rnea_frames(const dyModel* m, dyData* d, const double* par, const double* qd,
                    const double* qdd, const double g[3], int joint, double* tau);

/* Inverse dynamics by the recursive Newton-Euler algorithm (Khalil's
 * link-frame form, gravity entering as the base acceleration -g):
 *   tau = M(q) qdd + C(q,qd) qd + g(q) + IA qdd + FV qd + FC sign(qd) + FO
 * q, qd, qdd, tau: n each. qd or qdd may be NULL for zero.               */
void dy_rnea(const dyModel* m, dyData* d, const double* par, const double* q,
             const double* qd, const double* qdd, double* tau);

/* Same as dy_rnea with a given gravity vector g[3] in frame 0 (used to get
 * the velocity-only or gravity-only parts) and a switch for the joint terms:
 * joint = 0 leaves out IA, FV, FC and FO. */
void dy_rnea_g(const dyModel* m, dyData* d, const double* par, const double* q,
               const double* qd, const double* qdd, const double g[3], int joint,
               double* tau);

/* Joint-space inertia matrix by the composite-rigid-body algorithm ([FeatherstoneOrin00]
 * section 3.2), H = M(q) + diag(IA), full symmetric, row-major (n x n)
 * [kg m^2 | kg | kg m]. */
void dy_crba(const dyModel* m, dyData* d, const double* par, const double* q,
             double* H);

/* Bias vector b = C(q,qd) qd + g(q) + FV qd + FC sign(qd) + FO (n) [N m|N]. */
void dy_bias(const dyModel* m, dyData* d, const double* par, const double* q,
             const double* qd, double* b);

/* Forward dynamics by Cholesky: qdd = H^-1 (tau - b) with H from dy_crba and
 * b from dy_bias (one set of frames for both), H = L L^T factored in place
 * (a plain loop: for n <= DY_MAXJ it is 3-4x faster than LAPACK's dpotrf,
 * whose call and locking overhead dominate at this size). Returns 0, or k+1
 * if H is not positive definite at minor k (LAPACK's info convention). */
int dy_fd_chol(const dyModel* m, dyData* d, const double* par, const double* q,
               const double* qd, const double* tau, double* qdd);

/* Forward dynamics by the articulated-body algorithm ([FeatherstoneOrin00] section 3.3),
 * O(n), in spatial 6-vectors (angular; linear) about each O_j, frame j.
 * Returns 0, or j+1 if the articulated inertia of joint j is not positive. */
int dy_fd_aba(const dyModel* m, dyData* d, const double* par, const double* q,
              const double* qd, const double* tau, double* qdd);

/* ---------------------------------------------------------------------
 * Batch kernels: the same algorithms for many states per call (core/batch.c).
 *
 * States in structure-of-arrays form: x[j*K + k] is joint j of state k
 * (0 <= j < n, 0 <= k < K), for q, qd, qdd and tau alike, so that the
 * innermost loops run over states and the compiler vectorises them. On
 * x86-64 the kernel is compiled for AVX-512F, AVX2 and baseline SSE2 and
 * the best one the machine supports is chosen at load time (GCC/Clang
 * function multiversioning); elsewhere plain C.                          */

/* states per inner chunk: the vector width the kernel is written for */
#define DY_BATCH_LANES 8

/* Up to DY_BATCH_LANES samples packed for one call of a batch kernel
 * (dy_lane_put, the one place values are put into lanes): joint j of sample b at
 * x[j*DY_BATCH_LANES + b] (K = DY_BATCH_LANES in the layout below) for q
 * [rad|m], qd, qdd and tau [N m|N]; each sample's time t [s] and data row.
 * nb samples held; dy_lanes_pad makes lanes nb.. zero states before a
 * kernel that runs all DY_BATCH_LANES. */
typedef struct {
  int nb;
  double q[DY_MAXJ * DY_BATCH_LANES], qd[DY_MAXJ * DY_BATCH_LANES], qdd[DY_MAXJ * DY_BATCH_LANES];
  double tau[DY_MAXJ * DY_BATCH_LANES];
  double t[DY_BATCH_LANES];
  long row[DY_BATCH_LANES];
} dyLanes;

/* in[0..n) into lane b of x (a lane array of n joints, as dyLanes's) */
static inline void dy_lane_put(double* x, int n, int b, const double* in) {
  for (int j = 0; j < n; j++) x[j*DY_BATCH_LANES + b] = in[j];
}

/* Sample (q, qd, qdd, n joints each; tau may be NULL) into lane l->nb, with
 * its time and row; returns the lane it took. The caller empties a full
 * set (nb == DY_BATCH_LANES) before the next push (l->nb = 0). */
static inline int dy_lanes_push(dyLanes* l, int n, const double* q, const double* qd, const double* qdd,
                                const double* tau, double t, long row) {
  const int b = l->nb++;
  dy_lane_put(l->q, n, b, q); dy_lane_put(l->qd, n, b, qd); dy_lane_put(l->qdd, n, b, qdd);
  if (tau) dy_lane_put(l->tau, n, b, tau);
  l->t[b] = t;
  l->row[b] = row;
  return b;
}

/* lanes nb..DY_BATCH_LANES-1 of q, qd, qdd set to the zero state */
static inline void dy_lanes_pad(dyLanes* l, int n) {
  for (int j = 0; j < n; j++)
    for (int b = l->nb; b < DY_BATCH_LANES; b++)
      l->q[j*DY_BATCH_LANES + b] = l->qd[j*DY_BATCH_LANES + b] = l->qdd[j*DY_BATCH_LANES + b] = 0;
}

/* lane b of x (a lane array of n joints, as dyLanes's) into out[0..n) */
static inline void dy_lane_get(const double* x, int n, int b, double* out) {
  for (int j = 0; j < n; j++) out[j] = x[j*DY_BATCH_LANES + b];
}

/* Scratch of the batch kernels: one chunk of DY_BATCH_LANES states, all
 * links (fixed size, ~68 kB, for any model of up to DY_MAXJ joints and any
 * K), every quantity as [joint][component][lane]. The fields are public for
 * batch kernels of the other layers (the batch regressor, the batch
 * base-parameter Newton-Euler): after dy_batch_load and
 * dy_kinematics_batch, w/wd/vd[j+1] hold link j's angular
 * velocity [rad/s], angular and linear acceleration [rad/s^2, m/s^2] in
 * frame j (index 0: the base), ct/st the cosine and sine of theta_j and p
 * the y, z of O_j in frame j-1 [m] (its x is a_j). comp is dy_crba_batch's
 * (composite body j..n: J, MS, M in frame j, model.h order). */
typedef struct dyBatch_ {
  _Alignas(64) double q[DY_MAXJ][DY_BATCH_LANES];
  double qd[DY_MAXJ][DY_BATCH_LANES], qdd[DY_MAXJ][DY_BATCH_LANES], tau[DY_MAXJ][DY_BATCH_LANES];
  double ct[DY_MAXJ][DY_BATCH_LANES], st[DY_MAXJ][DY_BATCH_LANES];
  double p[DY_MAXJ][2][DY_BATCH_LANES];
  double w[DY_MAXJ + 1][3][DY_BATCH_LANES];
  double wd[DY_MAXJ + 1][3][DY_BATCH_LANES];
  double vd[DY_MAXJ + 1][3][DY_BATCH_LANES];
  double F[DY_MAXJ][3][DY_BATCH_LANES], N[DY_MAXJ][3][DY_BATCH_LANES];
  double comp[DY_MAXJ][DY_NPAR_LINK][DY_BATCH_LANES];
} dyBatch;

/* Allocate the batch scratch for m (one allocation, 64-byte aligned). NULL
 * on failure or if m has no joints or more than DY_MAXJ. */
dyBatch* dy_make_batch(const dyModel* m);
void dy_free_batch(dyBatch* w);

/* Inverse dynamics of K states per call, each as dy_rnea:
 *   tau_k = M(q_k) qdd_k + C(q_k,qd_k) qd_k + g(q_k) + IA qdd_k + FV qd_k
 *           + FC sign(qd_k) + FO,        k = 0..K-1
 * q, qd, qdd, tau: n*K each, q[j*K + k] joint j of state k (qd or qdd may be
 * NULL for zero); par: 14n as dy_rnea (m->par for the nominal model);
 * gravity m->gravity. The results equal dy_rnea's state by state to
 * rounding (the same operations in the same order; cos, sin of the joint
 * angles within 2 ulp of libm's). K <= 0 does nothing. No allocation. */
void dy_rnea_batch(const dyModel* m, dyBatch* w, const double* par, int K, const double* q,
                   const double* qd, const double* qdd, double* tau);

/* Joint-space inertia matrix of K states per call, each as dy_crba
 * (composite-rigid-body algorithm):
 *   H_k = M(q_k) + diag(IA),   k = 0..K-1
 * full symmetric, entry (r, c) of state k at H[(r*n + c)*K + k] (n*n*K
 * values) [kg m^2 | kg | kg m]; q: n*K, q[j*K + k] joint j of state k;
 * par: 14n as dy_crba. The results equal dy_crba's state by state to
 * rounding (the same operations in the same order; cos, sin of the joint
 * angles within 2 ulp of libm's). K <= 0 does nothing. No allocation;
 * uses w->comp. */
void dy_crba_batch(const dyModel* m, dyBatch* w, const double* par, int K, const double* q,
                   double* H);

/* Load nb <= DY_BATCH_LANES states into the chunk: lane b gets joint j of
 * q[j*ld + b] (likewise qd, qdd; NULL for zero); lanes nb.. are zero
 * states. */
void dy_batch_load(const dyModel* m, dyBatch* w, int nb, const double* q, const double* qd,
                   const double* qdd, int ld);

/* Frames of the loaded chunk, each lane as dy_frames: ct, st (cos, sin
 * theta_j by dyu_sincos8, core/mathu.h, as dy_frames) and p (y, z of O_j in
 * frame j-1 [m]). */
void dy_frames_batch(const dyModel* m, dyBatch* w, int nb);

/* Kinematics of the loaded chunk, each lane as dy_frames + dy_kinematics
 * with g = m->gravity (the base accelerates at -g): fills ct, st, p, w, wd,
 * vd. Lanes nb.. are padding (zero states). */
void dy_kinematics_batch(const dyModel* m, dyBatch* w, int nb);

/* The kernel variant the dispatch chose on this machine, e.g.
 * "avx2 (4 doubles per vector)" (a static string). */
const char* dy_batch_isa(void);

#endif
