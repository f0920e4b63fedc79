/* dynid ident: excitation design. Finite Fourier series trajectories per
 * joint (Swevers et al. 1997, ident/traj.h) whose coefficients are optimised
 * with NLopt so that the base regressor stacked along the trajectory,
 *     W = [Y_b(q(t_1),qd(t_1),qdd(t_1)); ...; Y_b(q(t_K),...)]   (nK x nb),
 * is well conditioned: criterion "cond" minimises cond(W) = s_max / s_min
 * (unscaled, the number users compare), "dopt" maximises log det(W^T W)
 * (D-optimality, invariant to the parameters' units).
 *
 * Limits are respected by construction: after every optimiser step each
 * joint's coefficients are scaled so that the conservative bounds of
 * dyi_fourier_bounds sit at `margin` of the joint's position half-range,
 * velocity and acceleration limits (dyi_joint_envelope); the result is then
 * checked densely at the output rate. With `rest`, a_1 and b_1 are tied to
 * the other harmonics so that qd(0) = qdd(0) = 0 (and, by periodicity, at
 * every whole period): the trajectory starts and ends at rest. */
#ifndef DYNID_EXCITE_H
#define DYNID_EXCITE_H

#include "base.h"
#include "model.h"
#include "traj.h"

enum { DYI_EXC_COND = 0, DYI_EXC_DOPT = 1 };

typedef struct {
  int nh;                  /* harmonics (default 5) */
  double period;           /* fundamental period [s] (default 10) */
  int nsamp;               /* samples per period in the criterion (default 100) */
  int criterion;           /* DYI_EXC_COND (default) or DYI_EXC_DOPT */
  int rest;                /* 1: start and end at rest */
  int maxeval;             /* optimiser evaluations at most (default 600) */
  double maxtime;          /* optimiser time at most [s] (default 60) */
  double margin;           /* fraction of the limits used (default 0.9) */
  unsigned long long seed; /* starting guess (default 1) */
} dyExciteOpt;

typedef struct {
  double cond0, cond;      /* cond(W) of the starting guess and of the result */
  double logdet0, logdet;  /* log det(W^T W) of both */
  int evals;               /* criterion evaluations */
  double* vif;             /* per base parameter: diag((Ws^T Ws)^-1) with Ws
                              the column-normalised W; large = poorly excited
                              (nb; owned by the caller, may be NULL) */
} dyExciteInfo;

void dyi_excite_defaults(dyExciteOpt* o);

/* Position centre q0, half-range, velocity and acceleration limits of
 * joint j used for trajectories: from the model's limits where it has them,
 * else 1 rad / 1.5 rad/s / 8 rad/s^2 (revolute) or 0.2 m / 0.3 m/s / 2 m/s^2
 * (prismatic) around q0 = 0. */
void dyi_joint_envelope(const dyModel* m, int j, double* q0, double* half,
                        double* vmax, double* amax);

/* Scale joint j's coefficients of f so that its bounds reach `margin` of
 * the envelope (q0 set to the envelope's centre). */
void dyi_fourier_fit(dyFourier* f, const dyModel* m, int j, double margin);

/* Criterion of trajectory f for base set b: fills cond and logdet of W (K =
 * nsamp samples over one period) and, if vif is not NULL, the variance
 * inflation per base parameter. 0, or -1 if W is rank deficient (cond =
 * inf). Allocates its workspace per call (not for per-sample use). */
int dyi_excite_eval(const dyModel* m, const dyBase* b, const dyFourier* f, int nsamp,
                    double* cond, double* logdet, double* vif);

/* Optimise: *f receives the result. 0, or -1 with err set. */
int dyi_excite(const dyModel* m, const dyBase* b, const dyExciteOpt* o, dyFourier* f,
               dyExciteInfo* info, char* err, int errsz);

/* Largest violation of the limits when f is sampled at rate [Hz] over
 * duration [s], as a fraction of the limit (<= 0: within limits); *what
 * names the worst quantity ("q3", "qd1", ...), *tworst its time. */
double dyi_excite_check(const dyModel* m, const dyFourier* f, double duration, double rate,
                        char what[16], double* tworst);

#endif
