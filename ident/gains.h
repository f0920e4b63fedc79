/* SPDX-License-Identifier: MIT */
/* dynid ident: joint drive gains estimated together with the arm's base
 * parameters and a payload of known mass ([GautierBriot14]; `dynid
 * identify --estimate-gains`).
 *
 * Most arms log motor currents i [logged unit, e.g. A], not torques. The
 * torque of joint j is K_j i_j, K_j the drive gain [N m (N) per logged
 * unit]. From a recording without load and one with a rigid load of known
 * mass m fixed to the tip frame (ident/payload.h: phi_T, W = Y_n A):
 *     unloaded:  K_j i_j = Y_b,j beta                                  [N m]
 *     loaded:    K_j i_j = Y_b,j beta + W9_j phi9 + W_j,M m
 * Y_b the base regressor (ident/base.h), beta the base parameters, phi9 the
 * load's other nine tip-frame parameters (XX..MZ). Without the known mass
 * every K_j could be scaled with beta: m fixes the scale.
 *
 * The noise is in the measured current. Plain least squares on
 * [diag(i) -Y] (the currents inside the regressor) is biased: the noise
 * attenuates every gain (dyiGainsFit.gain_ls, kept for comparison). The
 * estimate here is the output error with the current as output: with
 * g_j = 1 / K_j and x = (beta, phi9),
 *     min over g, x of  sum_j (1/s_j^2) sum_t (i_jt - g_j (Y_jt x + W_jt,M m))^2
 * a separable (bilinear) least-squares problem, solved by Gauss-Newton
 * from the plain least-squares start, s_j each joint's current noise
 * estimated from its residual (two passes). Every sample's row
 * a_jt = [Y_b,jt, W9_jt, W_jt,M m, i_jt] is folded into one QR triangle R_j
 * per joint ((p + 2)^2, p = nb + 9): sum_t (a_jt . v)^2 = |R_j v|^2, so
 * the iterations never see the samples again (bounded memory).
 *
 * Standard deviations: Cov = sigma^2 (J^T J)^+ of the weighted residual's
 * Jacobian J at the optimum, sigma^2 its sum of squares over
 * (equations - rank); std K_j = std g_j / g_j^2 (first order).
 * A gain the data do not determine (its axis not orthogonal to the null
 * space of the column-scaled J, 1/K_j zero, or relative std above max_rel_std: a
 * vertical first axis that neither gravity nor the load excites, a load on
 * a joint's axis) is held at its given value K0_j and the rest solved
 * again; dyiGainsFit.gain_det says which. */
#ifndef DYNID_GAINS_H
#define DYNID_GAINS_H

#include "core/model.h"
#include "ident/base.h"

typedef struct dyiGains_ dyiGains;

/* An estimator for model m (its tip_T), base set b (with friction when b
 * has it) and the load's known mass [kg] (> 0). NULL with err. */
dyiGains* dyi_gains_make(const dyModel* m, const dyiBase* b, double mass, char* err, int errsz);
void dyi_gains_free(dyiGains* g);

/* One sample (n each, qd and qdd may not be NULL): cur the logged current
 * of each joint [logged unit, no gain applied]; loaded 1 for a sample of
 * the loaded recording, 0 without the load. No allocation. */
void dyi_gains_add(dyiGains* g, int loaded, const double* q, const double* qd, const double* qdd,
                   const double* cur);
/* samples added so far without (loaded 0) and with (1) the load */
long dyi_gains_samples(const dyiGains* g, int loaded);

typedef struct {
  int n, nb;                /* joints, base parameters */
  long samples[2];          /* unloaded, loaded */
  long equations;           /* n (samples[0] + samples[1]) */
  double gain[DY_MAXJ];     /* K_j [N m|N per logged unit] (n) */
  double gain_std[DY_MAXJ]; /* its std (0 when held) */
  int gain_det[DY_MAXJ];    /* 1 estimated, 0 held at K0 (not determined by the data) */
  int gain_null[DY_MAXJ];   /* held: 1 for the rank test (structural), 0 for the std bound */
  double gain_ls[DY_MAXJ];  /* plain least squares on [diag(i) -Y] (biased low; comparison) */
  const double* beta;       /* base parameters (nb) [their units, torques as K i], owned by the estimator */
  const double* beta_std;   /* their std (nb) */
  double phi[10];           /* the load's tip-frame parameters, phi[9] = the given mass */
  double phi_cov[100];      /* their covariance, row-major (mass row and column 0) */
  double phys[10];          /* m, cx, cy, cz, ixx..izz as payload.h (NaN when not defined) */
  double phys_std[10];      /* first-order std (0 for the mass) */
  double noise[DY_MAXJ];    /* s_j: residual std of joint j's current [logged unit] */
  double rel_resid;         /* sqrt(sum_j |r_j|^2 / sum_j |i_j|^2), r in current */
  int rank, nfree;          /* rank of J; unknowns (free gains + nb + 9) */
  double cond;              /* condition number of the column-scaled J on its rank */
  int iter;                 /* Gauss-Newton iterations in all */
} dyiGainsFit;

/* Solve on what was added: K0 (n, > 0) the start of a gain the plain least
 * squares cannot give and the value a gain the data do not determine is
 * held at; max_rel_std (e.g. 0.05) the largest relative std of an
 * estimated gain. 0, or -1 with err (too few samples of either recording,
 * a LAPACK failure, no determined gain). The fit's beta stays valid until
 * the next solve or dyi_gains_free. */
int dyi_gains_solve(dyiGains* g, const double* K0, double max_rel_std, dyiGainsFit* fit, char* err,
                    int errsz);

#endif
