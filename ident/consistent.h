/* dynid ident: physically consistent identification, a semidefinite
 * program solved to its global optimum (DSDP, a dual-scaling interior-point
 * solver) with an optimality certificate.
 *
 * Problem. Standard parameters pi (npar = 10n, or 14n with the joint
 * parameters IA FV FC FO; model.h order), base parameters beta = K pi (K:
 * the base set's B, p x npar). The data enter only through the triangle of
 * the streaming least squares (ident/estimate.h): for the weighted rows
 *     ||y - A beta||^2 = ||R beta - z||^2 + rho^2,
 * so the cost of the solve does not grow with the log. Solved:
 *
 *   minimise   ||R K pi - z||^2 / f0  +  w ||N^T S^-1 (pi - pi_prior)||^2
 *   subject to PI_j(pi) - E 1  >= 0 (positive semi-definite), j = 1..n
 *              pi_k >= 0 for the flagged joint parameters (IA, FV, FC)
 *
 * with PI_j the 4x4 pseudo-inertia of link j,
 *     PI = [ tr(J)/2 1 - J   h ]     J: inertia about O_j (XX..ZZ),
 *          [ h^T             m ]     h = (MX, MY, MZ), m = M,
 * which is PSD exactly when the link is "density realisable": some
 * non-negative mass distribution has these parameters [WensingKimSlotine18];
 * it implies m >= 0 and the triangle inequalities of the principal moments.
 * E [kg m^2 on the 3x3 block, kg on the mass] is the margin --min-eig.
 *
 * The prior term. f0 = rho^2 (the unconstrained training residual), so the
 * data term is 1 + (relative rise of the training residual). S is diagonal:
 * per link a mass scale m_s and a length scale L (m_s for M, m_s L for the
 * first moments, m_s L^2 for the inertias; 1 for the joint parameters). N
 * is an orthonormal basis of the null space of K S: the prior acts only in
 * the directions the data cannot see, so in the unconstrained problem it
 * does not move beta at all, and with the constraints it biases beta only
 * as far as the constraints couple the two. w = 1 means: moving one scale
 * unit (a link's mass, ...) away from the prior along an unidentifiable
 * direction costs as much as the whole training residual. Without a prior,
 * pi_prior = 0 and a tiny w (1e-9) give the minimum-norm consistent solution.
 *
 * Formulation for the solver (all in scaled variables x, pi = pi_c + S x):
 *   maximise -s  subject to  [ s  r(x)^T ; r(x)  s 1 ] >= 0   (s >= ||r||,
 *   r = G x - h stacks the data and prior residuals: the same minimiser as
 *   ||r||^2, and s converges linearly even where the optimum is r = 0), one 4x4
 *   block per link (congruence-scaled by diag(1/L,1/L,1/L,1)/sqrt(m_s)), and
 *   bounds on the flagged x. Every scaled variable is also kept in the box
 *   |x_k| <= DYI_BOX (10^4 scale units, e.g. 10^4 times a link's mass from
 *   the centre: no physical answer lies there, and it keeps the solver's
 *   Newton system regular where the objective is flat). It is convex: the
 *   optimum is global (over that box).
 *
 * Certificate. DSDP returns y (our x, s) and the matrix multipliers X of the
 * other side; weak duality makes -(C . X) a lower bound of the optimum. The
 * result carries the objective at the returned point (recomputed here, not
 * taken from the solver), that lower bound, their gap, the smallest
 * eigenvalue of every link's PI - E 1 (the constraint margins) and the
 * smallest flagged joint parameter. */
#ifndef DYNID_CONSISTENT_H
#define DYNID_CONSISTENT_H

#include "model.h"
#include "base.h"
#include "estimate.h"

typedef struct {
  int p, npar;              /* base parameters, full parameters (10n or 14n) */
  const double* K;          /* beta = K pi, row-major (p x npar) */
  const double* R;          /* p x p upper triangular, column-major, leading dimension ldr */
  int ldr;
  const double* z;          /* p */
  double rho2;              /* residual not in R (the unconstrained optimum's rss) */
  const double* prior;      /* npar: pulled toward in unseen directions; NULL: 0 */
  double prior_weight;      /* w >= 0; without a prior a small w (DYI_NOPRIOR_W) gives
                               the minimum-norm solution */
  double min_eig;           /* E >= 0 */
  const unsigned char* nonneg; /* npar flags (1: pi_k >= 0); NULL: IA, FV, FC of every
                                  joint when npar = 14n */
  int verbose;              /* 1: DSDP's iteration log on standard error */
} dyiConsProblem;

typedef struct {
  double* pi;               /* the solution (npar), owned */
  double* beta;             /* K pi (p), owned */
  double rss;               /* ||R K pi - z||^2 + rho2: weighted training residual */
  double rss_rise_pct;      /* 100 (rss / rho2 - 1) */
  double prior_term;        /* w ||N^T S^-1 (pi - pi_prior)||^2 */
  double objective;         /* (rss - rho2) / f0 + 1 + prior_term, at pi */
  double lower_bound;       /* certified lower bound of the optimum objective */
  double gap;               /* (objective - lower_bound) / max(1, |objective|) */
  double link_margin[DY_MAXJ]; /* smallest eigenvalue of PI_j - E 1 [SI] */
  double link_margin_rel[DY_MAXJ]; /* ... divided by the link's trace(PI_j) */
  double nonneg_margin;     /* smallest flagged pi_k (+inf if none) */
  int iterations;           /* solver iterations */
  int solver_status;        /* DSDP's termination reason (1 = converged) */
  double pinfeas;           /* infeasibility of the multipliers the bound comes from */
  int certified;            /* 1: gap <= 1e-5 from a valid bound (DSDP converged or
                               multipliers feasible to 1e-6) and every margin >= -1e-9
                               (relative) */
  double seconds;           /* wall time of the solve */
} dyiConsResult;

/* Solve the problem above for model m (n joints; npar = 10n or 14n).
 * 0, or -1 with err set (bad sizes, a negative E, an inconsistent prior
 * with E > its margin is fine: the prior need not be feasible; solver
 * failure). Free the result with dyi_cons_free. */
int dyi_consistent(const dyModel* m, const dyiConsProblem* pr, dyiConsResult* res,
                   char* err, int errsz);
void dyi_cons_free(dyiConsResult* res);

/* Smallest eigenvalue of a link's pseudo-inertia [SI]. */
double dyi_pseudo_mineig(const double par10[10]);

/* Is beta (p) realisable by physically consistent parameters: the
 * distance problem  min ||D (K pi - beta)||^2  over consistent pi (PI_j >= 0,
 * flagged joint parameters >= 0), D_i = 1/max(|beta_i|, 1e-3 max|beta|),
 * solved as above without a prior term, so that the dual bound bounds the
 * distance of every consistent realisation (prior, if not NULL, is only the
 * centre of the scaled variables; the bound is trusted when it lies below
 * the distance found, to 1e-4 relative, and its multipliers are feasible
 * to 1e-5; 1e-4 of it is then taken off). *dist: the
 * distance found (relative, squared); *lower: its certified lower bound (0
 * when none); pi_out (npar, may be NULL): the closest consistent
 * parameters. Returns 1 consistent (a witness within a relative distance of
 * 1e-6), 0 inconsistent (every consistent realisation at least 1e-3 away),
 * 2 undecided; -1 on error. */
int dyi_consistent_check(const dyModel* m, const double* K, int p, int npar, const double* beta,
                         const double* prior, double* dist, double* lower, double* pi_out,
                         char* err, int errsz);

/* The problem of an identification: K = b->B, R, z and rho from the
 * estimator's triangle of the weighted rows (after dyi_identify / dyi_est_solve:
 * OLS, WLS with its final joint weights, IRLS with its last row weights).
 * prior: NULL (minimum norm, w = 1e-9) or npar parameters; weight >= 0 as
 * given, < 0 the default: DYI_PRIOR_W, divided by 10 (at most 8 times)
 * until the training residual is within 0.1 % of the consistent solution
 * without a prior (solved first). *weight_used: the w of the result. */
#define DYI_BOX 1e3
#define DYI_PRIOR_W 1e-3
#define DYI_NOPRIOR_W 1e-6   /* no prior: the minimum-norm solution, bounded */
int dyi_consistent_est(const dyModel* m, const dyiBase* b, const dyiEstim* e, const double* prior,
                       double weight, double min_eig, dyiConsResult* res, double* weight_used,
                       char* err, int errsz);

/* A realisation of beta (p) near a prior: the pi with K pi = beta closest
 * to prior in the scaled metric above, pi = prior + S (K S)^+ (beta - K
 * prior) (prior NULL: 0, the minimum-norm realisation). For writing an
 * unconstrained estimate as a model: it keeps the nominal values in the
 * directions the data do not see. pi: 14n (joint parameters beyond npar,
 * and those no base parameter uses, zero). 0, or -1 with err set. */
int dyi_realise_near(const dyModel* m, const double* K, int p, int npar, const double* beta,
                     const double* prior, double* pi, char* err, int errsz);

#endif
