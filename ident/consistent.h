/* SPDX-License-Identifier: MIT */
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
 * The prior term. f0 normalises the data term: the noise variance of one
 * weighted equation for an identification (so that the data term is a
 * chi-square), or rho^2 by default. S is diagonal: per link a mass scale
 * m_s and a length scale L (m_s for M, m_s L for the first moments, m_s L^2
 * for the inertias; 1 for the joint parameters, m_s L^2 for IA). The prior
 * is a ridge in that metric, w ||S^-1 (pi - pi_prior)||^2 over every
 * direction: where the data see a direction it is one term among many and
 * w (chosen by cross-validation, see dyi_consistent_est) says how much it
 * may pull; where the data see nothing it alone decides, so unseen
 * quantities stay at the prior unless the constraints move them. Without
 * a prior, pi_prior = 0 and a tiny w gives the minimum-norm solution.
 *
 * Plausibility (optional, per link, dyiLinkBound): the mass lies in an
 * ellipsoid (c, semi-axes r) of frame j, tr(Q PI) >= 0 with
 *     Q = [ -D   D c ; c^T D   1 - c^T D c ],  D = diag(1/r^2),
 * which reads E[(x-c)^T D (x-c)] <= 1 over the mass [WensingKimSlotine18]:
 * it keeps the centre of mass in the ellipsoid and bounds every moment of
 * inertia; the same with a sphere of radius R_j about O_j; the second
 * moment about the centre of mass at least m s^2 along every axis,
 *     PI - diag(m s^2, m s^2, m s^2, 0) >= 0
 * (a body at least ~3.5 s thick: no rods, no points; each principal moment
 * about the centre of mass is then >= 2 m s^2); the mass in
 * [mass_lo, mass_hi]; and optionally the sum of the masses within a
 * tolerance of a known total. All are linear in pi, so the problem stays a
 * convex semidefinite program.
 *
 * Formulation for the solver (all in scaled variables x, pi = pi_c + S x):
 *   maximise -s  subject to  [ s  r(x)^T ; r(x)  s 1 ] >= 0   (s >= ||r||,
 *   r = Rg x - hg: the data and prior residuals G x - h reduced by a QR of
 *   [G h] to as many rows as variables, ||G x - h||^2 = ||r||^2 + c^2; the
 *   same minimiser as ||r||^2, and s converges linearly even where the
 *   optimum is r = 0), one 4x4 block per link (congruence-scaled by
 *   diag(1/L,1/L,1/L,1)/sqrt(m_s)), a 1x1 block per linear constraint
 *   (divided by m_s), and bounds on the flagged x and on the masses. Every scaled variable is also kept in the box
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

#include "core/model.h"
#include "ident/base.h"
#include "ident/estimate.h"

#define DYI_CV_NW_MAX 8

/* What one link's mass may do beyond being density realisable. */
typedef struct {
  double ell[6];            /* ellipsoid in frame j: centre (3) [m], semi-axes (3) along
                               frame j's axes [m]; semi-axes 0: none */
  double radius;            /* R_j > 0: the mass lies within R_j of O_j [m]; 0: none */
  double mass_lo, mass_hi;  /* mass bounds [kg] (0 and INFINITY: none) */
  double thick;             /* s: second moment about the com >= m s^2 on every axis [m] */
} dyiLinkBound;

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
  const dyiLinkBound* bounds; /* n links' plausibility constraints, NULL: none */
  double total_mass;        /* > 0: sum of the link masses within total_tol of it [kg] */
  double total_tol;         /* relative */
  double f0;                /* > 0: the data term's normaliser; 0: rho2 (1 if rho2 = 0) */
  double gaptol;            /* the solver's relative gap tolerance, 0: 1e-7 (what the
                               certificate needs); looser for solves nobody certifies */
  const double* fixed;      /* npar: parameters held at a value (base.h dyi_base_fix:
                               b->fix), constants of every block, NaN: free; NULL: none */
} dyiConsProblem;

typedef struct {
  double* pi;               /* the solution (npar), owned */
  double* beta;             /* K pi (p), owned */
  double rss;               /* ||R K pi - z||^2 + rho2: weighted training residual */
  double rss_rise_pct;      /* 100 (rss / rho2 - 1) */
  double prior_term;        /* w ||S^-1 (pi - pi_prior)||^2 */
  double objective;         /* (rss - rho2) / f0 + 1 + prior_term, at pi */
  double lower_bound;       /* certified lower bound of the optimum objective */
  double gap;               /* (objective - lower_bound) / max(1, |objective|) */
  double link_margin[DY_MAXJ]; /* smallest eigenvalue of PI_j - E 1 [SI] */
  double link_margin_rel[DY_MAXJ]; /* ... divided by the link's trace(PI_j) */
  double bound_margin[DY_MAXJ]; /* smallest of the link's ellipsoid and sphere
                               margins tr(Q PI)/m (1 - mean scaled squared
                               distance; >= 0 inside; +inf: no bound) */
  double nonneg_margin;     /* smallest flagged pi_k (+inf if none) */
  int iterations;           /* solver iterations */
  int solver_status;        /* DSDP's termination reason (1 = converged) */
  double pinfeas;           /* infeasibility of the multipliers the bound comes from */
  int certified;            /* 1: gap <= 1e-5 from a valid bound (DSDP converged or
                               multipliers feasible to 1e-6) and every margin >= -1e-9
                               (relative) */
  double seconds;           /* wall time of the solve */
  /* dyi_consistent_est only */
  double weight;            /* the prior weight used */
  int ncv;                  /* weights tried by cross-validation (0: given) */
  double cv_weight[DYI_CV_NW_MAX], cv_err[DYI_CV_NW_MAX]; /* each with its held-out sum */
  int cv_parts;             /* parts held out in turn */
  double* std;              /* bootstrap std of beta (p), NaN where held; NULL: none */
  unsigned char* held;      /* p: 1 where the bounds or the prior hold it */
  double* scale;            /* p: each base parameter's physical scale, sum_k |K_ik| S_k
                               (S: the prior's scales, as the prior term's), the
                               reference of its relative std */
  int boot;                 /* replicates behind std */
  double seconds_total;     /* the whole estimate: weight choice, solve, bootstrap */
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

/* tr(Q PI(u)) of the ellipsoid e (centre (3), semi-axes (3), frame j) for
 * ten link parameters u [kg]: m (1 - E[(x-c)^T D (x-c)]) over the mass,
 * D = diag(1/r^2); >= 0 when the mass can lie in the ellipsoid. */
double dyi_ellipsoid_margin(const double e[6], const double u[10]);

/* ---- the plausible estimate of an identification (plausible.c) ---- */

/* How the bounds of dyi_link_bounds are made. */
typedef struct {
  int volumes;              /* 1: ellipsoid and sphere per link (--bounds auto|FILE), 0: none */
  const double* ell;        /* 6n ellipsoids (centre, semi-axes, frame j) from the model
                               or a file; a link with zero semi-axes gets one from its
                               kinematics; NULL: every link so */
  double mass_lo, mass_hi;  /* factors on the nominal mass (0, INFINITY: none) */
  double thick;             /* s [m] (DYI_THICK) */
  int keep;                 /* 1: the given ellipsoids are used as they are (a file of
                               the user's), never grown to hold the nominal link */
} dyiBoundOpt;
#define DYI_THICK 4e-3      /* a body at least ~14 mm thick: principal moments >= 2 m s^2 */
#define DYI_MASS_LO 0.5     /* default --mass-range: half to twice the nominal mass */
#define DYI_MASS_HI 2.0

/* The plausibility radius R_j of link j for a nominal model nom (14n):
 *   R_j = max(0.15 m, 1.5 |O_j O_j+1|, 1.5 |c_nom|, 1.5 r_g,nom)
 * with O_j+1 the next joint's frame (the tip frame for the last link),
 * c_nom the nominal centre of mass and r_g,nom = sqrt(I_max / m) its
 * largest radius of gyration about the centre of mass [m]. */
double dyi_plausible_radius(const dyModel* m, const double* nom, int j);

/* The bounds of every link (n) for a nominal model nom (14n; masses <= 0:
 * no mass bounds): the ellipsoid of o->ell, or from the link's kinematics
 * (the box holding O_j, O_j+1 and the nominal centre of mass, padded by
 * max(5 cm, r_g,nom), circumscribed), grown about its centre until the
 * nominal link fits when it does not (unless o->keep, for given ones); the sphere of radius R_j about O_j;
 * the mass in [lo m_nom, hi max(m_nom, 0.1 kg)] (lower bound 0 below 0.1 kg);
 * the thickness s. note (may be NULL) gets one line per link whose
 * ellipsoid was grown or made from the kinematics. 0, or -1 with err set
 * when no mass can satisfy a link's bounds (naming the link). */
int dyi_link_bounds(const dyModel* m, const double* nom, const dyiBoundOpt* o, dyiLinkBound* out,
                    char* note, int notesz, char* err, int errsz);

/* Options of dyi_consistent_est. */
typedef struct {
  const double* prior;      /* 14n, or NULL: none (minimum norm, DYI_NOPRIOR_W) */
  double weight;            /* >= 0 as given; < 0: chosen by cross-validation over the
                               estimator's parts (it must keep them: opt.folds > 1;
                               else DYI_PRIOR_W) */
  double min_eig;           /* E >= 0 */
  const dyiLinkBound* bounds; /* n, or NULL: consistency alone */
  double total_mass, total_tol;  /* > 0: a known sum of the link masses [kg], relative */
  int boot;                 /* > 0: the std by a parametric bootstrap of that many
                               re-solves; 0: none (std NaN) */
  unsigned long long seed;  /* of the bootstrap's noise */
  void (*progress)(int done, int total);  /* NULL, or told after every solve */
} dyiConsOpt;

#define DYI_BOX 1e3
#define DYI_PRIOR_W 1e-2     /* weight without cross-validation */
#define DYI_NOPRIOR_W 1e-6   /* no prior: the minimum-norm solution, bounded */
#define DYI_CV_NW 4          /* prior weights tried first: 0.1, 1, 10, 100 */
#define DYI_CV_PARTS 3       /* parts of the rows held out in turn */
#define DYI_BOOT 20          /* default bootstrap re-solves */

/* The plausible (or merely consistent) estimate of an identification: K =
 * b->B, R, z, rho from the estimator's triangle of the weighted rows
 * (after dyi_identify / dyi_est_solve: OLS, WLS with its final joint
 * weights, IRLS with its last row weights), the data term normalised by
 * the noise variance of one weighted equation f0 = sigma^2 (at least
 * 1e-8 of the mean squared torque, so that exact torques are no special
 * case; where the solver cannot certify at that scale, 100x coarser, at
 * most three times).
 * The prior weight w, unless given: 0.1, 1, 10 and 100 in turn (then on
 * outward by decades, to 1e-3 or 1e4, while the best is at an end), the
 * program solved on all parts but one and the held-out part's residual
 * summed over the parts (WLS: each joint's divided by its noise
 * variance); the weight of the smallest sum (res->cv_*, ascending).
 * Uncertainty (o->boot > 0): z* = R beta + sigma_b e, e ~ N(0, 1),
 * sigma_b^2 = var_factor sigma^2, re-solved o->boot times: res->std the
 * spread of beta*, res->held[i] = 1 when it is below 5 % of the
 * least-squares std (the bounds or the prior hold the parameter, not the
 * data; its std is then NaN); res->scale the scale of each. 0, or -1
 * with err set. */
int dyi_consistent_est(const dyModel* m, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* o,
                       dyiConsResult* res, char* err, int errsz);

/* A realisation of beta (p) near a prior: the pi with K pi = beta closest
 * to prior in the scaled metric above, pi = prior + S (K S)^+ (beta - K
 * prior) (prior NULL: 0, the minimum-norm realisation). For writing an
 * unconstrained estimate as a model: it keeps the nominal values in the
 * directions the data do not see. pi: 14n (joint parameters beyond npar,
 * and those no base parameter uses, zero). 0, or -1 with err set. */
/* The scale of each base parameter (p): sum_k |K_ik| S_k with S the
 * per-parameter scales of the prior term for the prior (NULL: none). */
void dyi_base_scales(const dyModel* m, const double* K, int p, int npar, const double* prior, double* scale);

int dyi_realise_near(const dyModel* m, const double* K, int p, int npar, const double* beta,
                     const double* prior, double* pi, char* err, int errsz);

#endif
