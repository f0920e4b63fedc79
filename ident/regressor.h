/* SPDX-License-Identifier: MIT */
/* dynid ident: the linear-in-parameters model tau = Y(q,qd,qdd) pi.
 *
 * Y is n x 10n (link parameters, model.h order) or n x 14n with
 * friction (then the IA FV FC FO columns of every joint follow). Computed by
 * a Newton-Euler-style recursion: the body regressors of each link (the 6x10
 * map from its ten parameters to its wrench about O_j, frame j) are carried
 * toward the base and projected on each joint axis: O(n^2) per sample, no
 * allocation (scratch from dyData). */
#ifndef DYNID_REGRESSOR_H
#define DYNID_REGRESSOR_H

#include "core/model.h"

/* Number of regressor columns: 10n, or with friction dy_npar (14n, then
 * IAMk FVMk FCMk of each coupled motor k, core/transmission.h). */
int dyi_ncols(const dyModel* m, int friction);

/* Y(q,qd,qdd): n rows, dyi_ncols columns, stored column-major with leading
 * dimension ldy >= n (Y[i + ldy*k] = d tau_i / d pi_k), so that rows of many
 * samples can be stacked into one tall column-major matrix by passing
 * Y + row0 and ldy = total rows. Gravity is m->gravity. Units as dy_rnea.
 * qd or qdd may be NULL for zero. Joint columns (friction = 1): row j has
 * qdd_j (IA), qd_j (FV), sign(qd_j) with sign(0) = 0 (FC) and 1 (FO); the
 * other rows are zero; a coupled motor k's columns (after them) are
 * R_ki (R_k qdd), R_ki (R_k qd), R_ki sign(R_k qd) on row i. Every entry of the n x ncols block is written (no
 * need to clear Y); rows outside the block are not touched.
 * Cost: O(n^2) (n(n+1)/2 axis transforms and 10-column projections). */
void dyi_regressor(const dyModel* m, dyData* d, const double* q, const double* qd,
                   const double* qdd, int friction, double* Y, int ldy);

/* ---------------------------------------------------------------------
 * Many states per call (the batch form of dyi_regressor): the states are
 * processed DY_BATCH_LANES at a time with every statement in a loop over
 * the lanes, compiled for AVX-512F, AVX2 and SSE2 and chosen at load time
 * (core/dynamics.h, batch kernels). Each state's entries equal
 * dyi_regressor's (the same operations in the same order). */
typedef struct dyiRegBatch_ dyiRegBatch;

/* Scratch for m and the friction choice (one chunk of lanes: ~0.1 MB for
 * 7 joints). NULL on failure or if m has no joints or more than DY_MAXJ. */
dyiRegBatch* dyi_regressor_batch_make(const dyModel* m, int friction);
void dyi_regressor_batch_free(dyiRegBatch* w);

/* Y of K states: q, qd, qdd as dy_rnea_batch (q[j*K + k], qd or qdd NULL
 * for zero); entry (i, c) of state k, d tau_i / d pi_c of that state, at
 * Y[(c*n + i)*K + k], for c < dyi_ncols(m, friction): n*ncols*K doubles,
 * all written. No allocation. Y aligned to 64 bytes (aligned_alloc)
 * keeps each store of a chunk's lanes in one cache line: with K = 64 on
 * AVX-512, ~300 -> ~220 ns a state. */
void dyi_regressor_batch(const dyModel* m, dyiRegBatch* w, int K, const double* q, const double* qd,
                         const double* qdd, double* Y);

/* One chunk of nb <= DY_BATCH_LANES states (joint j of state b at q[j*ld +
 * b]), for callers that consume the lanes directly: returns the chunk's
 * regressor, entry (i, c) of state b at [(c*n + i)*DY_BATCH_LANES + b],
 * valid until the next call with w (lanes nb.. are padding). */
const double* dyi_regressor_lanes(const dyModel* m, dyiRegBatch* w, int nb, const double* q,
                                  const double* qd, const double* qdd, int ld);

/* From now on dyi_regressor_lanes computes the rows of the joints in rows
 * only (bit i for row i; all of them after dyi_regressor_batch_make), the
 * same entries as in a whole regressor; the other rows are not to be read
 * (this call zeroes them; the coupled motors' columns and a later
 * dyi_regressor_batch on w write there). A worker that folds some
 * joints' equations needs their rows alone: for 3 of 7 joints a third of
 * the axis transforms and projections. dyi_regressor_batch always gives
 * every row. */
void dyi_regressor_rows(dyiRegBatch* w, unsigned rows);

/* Timing of dyi_regressor for `make bench`: runs nsamples regressors at
 * varying states and returns the mean CPU time of the calling thread per sample (CPU time, not wall time: the machine may be shared) (one n x
 * dyi_ncols block, i.e. n rows) [s]. Y: scratch of n * dyi_ncols doubles. */
double dyi_bench_regressor(const dyModel* m, dyData* d, int friction, int nsamples,
                           double* Y);

#endif
