/* SPDX-License-Identifier: MIT */
/* dynid ident: excitation design. Finite Fourier series trajectories per
 * joint (Swevers et al. 1997, ident/traj.h) whose coefficients are optimised
 * so that the base regressor stacked along the trajectory,
 *     W = [Y_b(q(t_1),qd(t_1),qdd(t_1)); ...; Y_b(q(t_K),...)]   (nK x nb),
 * K = nsamp instants evenly spaced over one period, is well conditioned.
 *
 * Criteria (all minimised):
 *   cond         cond(W) = s_max / s_min (unscaled, the number users compare)
 *   dopt         -log det(W^T W) (D-optimality: the volume of the
 *                confidence ellipsoid; invariant to the parameters' units)
 *   cond-scaled  cond(W D), D scaling every column of W to unit norm
 *                (invariant to the parameters' units)
 * With a noise level sigma_j per joint (weighted = 1), the rows of joint j
 * are divided by sigma_j first (the regressor of weighted least squares).
 *
 * Limits are used exactly: each joint's coefficients are scaled so that the
 * largest of |q - q0| / half-range, |qd| / qdmax and |qdd| / qddmax over
 * the period, found by dyi_fourier_peak (true maxima, not bounds), equals
 * `margin`. The trajectory is then checked densely at the output rate
 * (dyi_excite_check). With `rest`, a_1 and b_1 are tied to the other
 * harmonics so that qd(0) = qdd(0) = 0 (and, by periodicity, at every whole
 * period): the trajectory starts and ends at rest.
 *
 * Search: the criterion is a smooth function of the free coefficients
 * almost everywhere, and its gradient is computed analytically through the
 * chain  coefficients -> scaling to the limits (envelope theorem at the
 * active peak) -> q, qd, qdd at each instant -> W -> eigenvalues of W^T W
 * (d lambda_k = v_k^T d(W^T W) v_k). The regressor's own derivative in the
 * state is taken by differences that are exact for its linear (qdd) and
 * quadratic (qd) dependence and central (h = 1e-6) in q. cond is not smooth
 * where the extreme singular values coalesce (which is where its minimum
 * usually lies), so each local search (NLopt's L-BFGS) minimises the smooth
 * upper bound
 *     L_p = (1/2p) [log sum_k lambda_k^p + log sum_k lambda_k^-p] >= log cond
 * for p = 4, 32 and 256 in turn (L_p - log cond <= log(nb) / p); the
 * exact cond decides between the results. Starting points (the first a
 * Schroeder-phased multisine, the others random) are screened first: each
 * gets a short search on the smoothest bound (p = 4, SCREEN_EVAL
 * evaluations), which already tells the basins apart, and only the best
 * `starts` of the `screen` points go on to the full local search. Those
 * searches converge (more evaluations change nothing); which basin the
 * best sits in decides the result. So the best point then goes through
 * `hop_rounds` rounds of basin hopping: `hops` local searches (hop_eval
 * evaluations each) from random perturbations of it, a round's best
 * replacing it only when lower. The result is polished by a
 * derivative-free local search (NLopt's BOBYQA) on the exact
 * criterion. All run on `threads` threads; each search depends only on
 * (seed, its round, its index) and the choices are by value, then index, so the
 * result is the same for a given seed whatever the thread count, unless
 * the time budget cuts the search (info.budget_hit). */
#ifndef DYNID_EXCITE_H
#define DYNID_EXCITE_H

#include "ident/base.h"
#include "core/model.h"
#include "ident/traj.h"

enum { DYI_EXC_COND = 0, DYI_EXC_DOPT = 1, DYI_EXC_COND_SCALED = 2 };

typedef struct {
  int nh;                  /* harmonics (default 5) */
  double period;           /* fundamental period [s] (default 10) */
  int nsamp;               /* samples per period in the criterion (default 100) */
  int criterion;           /* DYI_EXC_COND (default), _DOPT or _COND_SCALED */
  int rest;                /* 1: start and end at rest */
  int screen;              /* starting points screened by a short smooth search (SCREEN_EVAL
                              evaluations at p = 4) before the local searches, the best `starts`
                              of them going on (default 48; <= starts: no screening) */
  int starts;              /* local searches (default 8) */
  int maxeval;             /* criterion evaluations per local search (default 300) */
  int hops;                /* local searches per hop round from perturbations of the best
                              point so far (default 10; 0: none) */
  int hop_rounds;          /* hop rounds (default 3) */
  int hop_eval;            /* criterion evaluations per hop search (default 200) */
  double hop_scale;        /* hop perturbation: +-hop_scale uniform on every variable, the
                              variables of each joint at unit norm (default 0.2) */
  int polish;              /* evaluations of the final derivative-free polish (default 500) */
  double maxtime;          /* wall-clock cap [s]; 0 (default): none, so that the result
                              depends on the options only, not on the machine */
  int threads;             /* worker threads (default 1) */
  double margin;           /* fraction of the limits used (default 0.9) */
  unsigned long long seed; /* starting guesses (default 1) */
  int weighted;            /* 1: rows of joint j divided by sigma[j] */
  double sigma[DY_MAXJ];   /* torque noise per joint [N m|N] (weighted = 1) */
  /* progress (may be NULL): called from worker threads, one at a time,
   * after each local search with the starts done, their number and the
   * best criterion value so far (cond, or log det for dopt) */
  void (*progress)(void* ctx, int done, int total, double best);
  void* progress_ctx;
} dyiExciteOpt;

typedef struct {
  double cond0, cond;      /* cond(W) of the first start and of the result */
  double cond_scaled;      /* cond(W D) of the result */
  double logdet0, logdet;  /* log det(W^T W) of both */
  long evals;              /* criterion evaluations, all threads */
  int starts_done;         /* local searches completed */
  int screened;            /* starting points screened */
  int hops;                /* hop searches run */
  int hops_better;         /* hop rounds that lowered the best value */
  int budget_hit;          /* 1 if maxtime cut the search short */
  double seconds;          /* wall-clock time */
  double* vif;             /* per base parameter: diag((Ws^T Ws)^-1) with Ws
                              the column-normalised W; large = poorly excited
                              (nb; owned by the caller, may be NULL) */
} dyiExciteInfo;

void dyi_excite_defaults(dyiExciteOpt* o);

/* Position centre q0, half-range, velocity and acceleration limits of
 * joint j used for trajectories: from the model's limits where it has them,
 * else 1 rad / 1.5 rad/s / 8 rad/s^2 (revolute) or 0.2 m / 0.3 m/s / 2 m/s^2
 * (prismatic) around q0 = 0 (or next to the one position limit given). */
void dyi_joint_envelope(const dyModel* m, int j, double* q0, double* half,
                        double* vmax, double* amax);

/* Scale joint j's coefficients of f so that the largest true use of the
 * envelope's limits (dyi_fourier_peak) is `margin` (q0 set to the
 * envelope's centre). */
void dyi_fourier_fit(dyiFourier* f, const dyModel* m, int j, double margin);

/* Criterion values of trajectory f for base set b (K = nsamp samples over
 * one period; rows divided by sigma[j] when sigma is not NULL): cond,
 * cond_scaled and log det of W, and, if vif is not NULL, the variance
 * inflation per base parameter. Any output pointer may be NULL. 0, or -1 if
 * W is rank deficient (cond = inf). Allocates its workspace per call (not
 * for per-sample use). */
int dyi_excite_eval(const dyModel* m, const dyiBase* b, const dyiFourier* f, int nsamp,
                    const double* sigma, double* cond, double* cond_scaled, double* logdet,
                    double* vif);

/* Optimise: *f receives the result. 0, or -1 with err set. */
int dyi_excite(const dyModel* m, const dyiBase* b, const dyiExciteOpt* o, dyiFourier* f,
               dyiExciteInfo* info, char* err, int errsz);

/* Largest violation of the limits when f is sampled at rate [Hz] over
 * duration [s], as a fraction of the limit (<= 0: within limits); *what
 * names the worst quantity ("q3", "qd1", ...), *tworst its time. */
double dyi_excite_check(const dyModel* m, const dyiFourier* f, double duration, double rate,
                        char what[16], double* tworst);

/* Default torque noise per joint for the predictions: 1 % of the RMS of the
 * model's gravity torque of the joint along f (duration, rate as the
 * recording); where that is below 1 % of the largest joint's (an axis along
 * gravity), 1 % of the RMS of the joint's whole nominal torque instead
 * (fallback[j] = 1). 0, or -1 on allocation failure. */
int dyi_excite_default_noise(const dyModel* m, const dyiFourier* f, double duration,
                             double rate, double* sigma, int* fallback);

/* Expected estimates of a recording of f (samples k / rate, k = 0 ..
 * round(duration rate) - 1) with independent torque noise of standard
 * deviation sigma[j] on joint j, identified by ordinary least squares
 * (dynid identify's default): beta = the model's nominal base parameters
 * (B pi), std = sqrt(diag cov), cov = (W^T W)^-1 W^T S^2 W (W^T W)^-1 with
 * W the base regressor of all samples and S = diag(sigma). 0, or -1 with
 * err set (rank deficient, allocation). */
int dyi_excite_predict(const dyModel* m, const dyiBase* b, const dyiFourier* f, double duration,
                       double rate, const double* sigma, double* beta, double* std, char* err,
                       int errsz);

#endif
