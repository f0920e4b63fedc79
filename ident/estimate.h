/* SPDX-License-Identifier: MIT */
/* dynid ident: least squares for the base parameters, streaming.
 *
 * The identification model stacks, for N samples of an n-joint arm, the
 * rows  y = A beta + r  with A = Y_b(q,qd,qdd) (n rows per sample, p base
 * columns) and y = tau. The stacked matrix (nN x p) is never stored: rows
 * arrive in blocks of whole samples and are folded into small upper
 * triangular factors by Householder QR ([T; block] = Q [T'; 0], the
 * reflectors of LAPACK's dtpqrt in panels of 8 columns of our own, checked
 * against dtpqrt in tests/test_estimate.c), so memory is O(n p^2) whatever
 * N is.
 *
 * One triangle per joint. The rows of joint j only touch the columns in
 * mask row j (for a base set from the regressor: links >= j and joint j's
 * own parameters), so joint j's triangle T_j is (p_j+1) x (p_j+1) over those
 * columns plus the torque column. This costs sum_j 2 N p_j^2 flops instead
 * of 2 n N p^2 (4-5x fewer for a 7-joint arm) and gives, exactly and stably,
 * per joint and for any beta (T_j = [R_j z_j; 0 rho_j]):
 *     ||y_j - A_j beta||^2 = ||R_j beta_j - z_j||^2 + rho_j^2,
 *     ||y_j||^2 = ||z_j||^2 + rho_j^2.
 * The global triangle of the weighted problem (weight w_j on joint j's rows)
 * is the QR of the stacked w_j T_j. Hence OLS and WLS take one pass over
 * the data; IRLS takes one more pass per iteration (row weights change).
 *
 * Methods (dyiEstOpt.method):
 *   OLS   min ||y - A beta||^2.
 *   WLS   per-joint noise sigma_j^2 = ||r_j||^2 / (N - p_j) from the OLS
 *         residual, rows of joint j weighted by 1/sigma_j (Gautier); sigma_j
 *         is then re-estimated from the WLS residual until it settles
 *         (change < 1e-4): the OLS residual of a quiet joint carries the
 *         errors spread by the noisy ones. Free: from the triangles.
 *   IRLS  Huber M-estimate: row weight sqrt(w)/s_j with
 *         w = min(1, c / |r / s_j|), c = 1.345, s_j = 1.4826 MAD_j (median
 *         of |r| over joint j's rows, from a log-spaced histogram of the
 *         previous pass: 0.8 % bins, interpolated, no storage growing with N);
 *         the first pass uses the OLS sigma_j; s_j >= 1e-9 RMS(tau_j) (below
 *         that, residuals are round-off); s_j is kept when it would move by
 *         less than 1e-3 (no limit cycle from the histogram). Iterates until
 *         the change in beta is below irls_tol standard deviations.
 *
 * Statistics: sigma^2 = ||r_w||^2 / (M - p) of the weighted rows (M
 * equations counted);
 * cov = sigma^2 (R^T R)^-1; std = sqrt(diag cov); rel_std_pct = 100 std/|beta|.
 * These assume independent equations: a torque low-pass filtered and kept
 * at a rate well above 2 fc has correlated residuals and the std come out
 * too small (several times; `dynid identify` warns and suggests decimation;
 * tests/test_identify.c measures it).
 * Column equilibration: R is scaled to unit column norms (R D, D_k =
 * 1/||A e_k||) before the solve, the inversion and the rank decision;
 * Householder QR commutes with column scaling (A D = Q (R D)), so this is
 * the same as scaling the regressor before the QR, without having to know
 * the column norms before the data has been read. Two condition numbers:
 * cond (the regressor as given, SI units: the number users and papers
 * quote) and cond_scaled (after equilibration: what decides identifiability).
 * A rank-deficient or hopelessly scaled problem (cond_scaled > max_cond, or
 * a zero column) is an error naming the weakest combination of parameters,
 * never a silent minimum-norm solve. */
#ifndef DYNID_ESTIMATE_H
#define DYNID_ESTIMATE_H

#include "core/model.h"
#include "ident/base.h"

typedef enum { DYI_OLS = 0, DYI_WLS = 1, DYI_IRLS = 2 } dyiMethod;

#define DYI_MAXWARN 64      /* warning lines kept; more are counted */
#define DYI_WARNSZ 200
#define DYI_NHIST 4096     /* IRLS histogram bins: log10(|r|/ref) in [-9, 5) */

/* A source of rows, read in one or more passes.
 * fill: write up to maxs whole samples into A (column-major, leading
 *   dimension lda >= n*maxs, p columns: row s*n + i is joint i of sample s)
 *   and y (n*maxs); return the number of samples written (0 at the end of
 *   the data, -1 on error with err set). Columns outside the mask must be 0.
 *   rw (n*maxs) arrives set to 1; the source sets rw[s*n + i] = 0 to leave
 *   out one equation (e.g. a joint too slow for Coulomb friction): it is
 *   then neither fitted nor counted. (Other values weight the row.)
 * rewind: start again from the first sample; 0, or -1 with err set. */
typedef struct {
  void* ctx;
  int (*fill)(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err,
              int errsz);
  int (*rewind)(void* ctx, char* err, int errsz);
} dyiRowSource;

typedef struct {
  dyiMethod method;           /* default DYI_OLS */
  int block;                  /* samples per block (default 256) */
  const unsigned char* mask;  /* n x p row-major, 1: column k may be non-zero in
                                 joint j's rows; NULL: every column */
  const char* const* names;   /* name of each column for messages (p), NULL: b1.. */
  double huber_c;             /* Huber tuning constant (default 1.345) */
  int irls_maxit;             /* IRLS passes at most (default 30) */
  double irls_tol;            /* stop when max |d beta_k| / max(std_k, 1e-12 |beta_k|)
                                 < tol (1e-4) */
  double max_cond;            /* error above this scaled condition (1e10) */
  double warn_relstd;         /* warn above this rel std [%] (10) */
  double warn_cond;           /* warn above this condition number after column scaling (1e3; the
                                 unscaled one depends on the parameters' units: a rotor inertia of
                                 2e-4 kg m^2 beside a 5 kg mass gives 1e7 on a well excited log) */
  double var_factor;          /* cov = var_factor sigma^2 (R^T R)^-1 (0: 1): the
                                 white-equivalent noise of filtered rows
                                 (filter.h dyi_fir_var_factor) */
  int threads;                /* dyi_identify*: threads in all, the calling
                                 thread reading and threads - 1 computing
                                 the rows (0, 1: the calling thread alone;
                                 identify.h) */
  int folds;                  /* > 1: also keep the triangles of `folds` interleaved
                                 parts of the samples (sample s, counted from 0 per
                                 estimator, in part (s / fold_len) mod folds), for
                                 cross-validation without another pass */
  int fold_len;               /* samples per piece of a part (default 32) */
  int fold_only;              /* 1: dyi_est_run and dyi_identify* fold one
                                 unweighted pass and stop (no solve: beta and the
                                 statistics stay unset; for saving the triangles) */
} dyiEstOpt;

/* The estimator's workspace (ident/estimate.c): the joint triangles, the
 * global triangle of the last solve, block buffers, scratch. Read through
 * the accessors below; nothing outside estimate.c looks inside. */
typedef struct dyiEstimWork_ dyiEstimWork;

/* The estimator: results after dyi_est_run or dyi_est_solve. It and every
 * array of it (results and workspace) live in one allocation made by
 * dyi_est_make (sizes from n, p, opt->block, opt->mask and opt->folds). */
typedef struct dyiEstim_ {
  int n, p;                 /* joints, base parameters */
  dyiEstOpt opt;
  /* results */
  long samples;             /* samples folded in (last pass) */
  long rows_j[DY_MAXJ];     /* equations of joint j folded in (rows with rw != 0) */
  double* beta;             /* estimate (p) */
  double* std;              /* standard deviation (p) */
  double* rel_std_pct;      /* 100 std / |beta|, inf when beta = 0 (p) */
  double* cov;              /* covariance, column-major (p x p) */
  double sigma2;            /* ||r_w||^2 / (nN - p), weighted rows */
  double cond;              /* condition number of the (weighted) regressor, unscaled */
  double cond_scaled;       /* ... after column equilibration */
  double rms[DY_MAXJ];      /* residual RMS per joint, unweighted [N m|N] */
  double relerr_pct[DY_MAXJ]; /* 100 ||r_j|| / ||y_j|| per joint */
  double rms_all, relerr_all_pct;  /* over all joints */
  double sigma_j[DY_MAXJ];  /* WLS: noise std per joint from OLS residuals;
                               IRLS: final robust scale; OLS: residual std */
  double weight_min;        /* IRLS: smallest Huber weight of the last pass */
  long downweighted;        /* IRLS: rows with weight < 1 in the last pass */
  int iterations;           /* passes over the data */
  int nwarn;                /* warnings (may exceed DYI_MAXWARN) */
  char warn[DYI_MAXWARN][DYI_WARNSZ];
  /* workspace (internal: use the accessors) */
  dyiEstimWork* ws;
} dyiEstim;

/* Default options. */
void dyi_est_defaults(dyiEstOpt* opt);

/* Make an estimator for p parameters of an n-joint arm (workspace for
 * blocks of opt->block samples; the mask and names are copied by
 * reference and must outlive the estimator, or be handed over with
 * dyi_est_own). One allocation. NULL with err set. */
dyiEstim* dyi_est_make(int n, int p, const dyiEstOpt* opt, char* err, int errsz);
void dyi_est_free(dyiEstim* e);

/* Hand the mask and names (malloc'd; those of opt) over to e: dyi_est_free
 * frees them. */
void dyi_est_own(dyiEstim* e, unsigned char* mask, const char** names);

/* Run opt->method over a source: OLS and WLS read the data once, IRLS
 * once per iteration (rewinding). 0, or -1 with err set (source error,
 * too few samples, rank deficiency naming the weakest parameters). */
int dyi_est_run(dyiEstim* e, dyiRowSource* src, char* err, int errsz);

/* The structural mask of base set b (n x nb row-major): column c may be
 * non-zero in joint j's rows when a standard parameter of its column of P
 * reaches joint j (link k's parameters reach joints 1..k, joint k's
 * parameters joint k only); |P| <= DYI_P_ZERO max |P| counts as zero
 * (round-off of a computed P). dyi_identify makes its estimator's mask so. */
#define DYI_P_ZERO 1e-15
void dyi_base_mask(const dyModel* m, const dyiBase* b, unsigned char* mask);

/* ---- low level: used by dyi_est_run, public for tests and callers that
 * hold rows in memory ---- */

/* Forget all rows folded in. */
void dyi_est_reset(dyiEstim* e);

/* [T; B] = Q [T'; 0]: the ns rows of B (m columns, column-major, leading
 * dimension ldb; overwritten by the reflectors) folded into the upper
 * triangle T (m x m, leading dimension m) by LAPACK dtpqrt's Householder
 * reflections (l = 0, the same signs), so T'^T T' = T^T T + B^T B without
 * forming either product; the estimator's fold, for any tall matrix: from
 * T = 0, blocks of the rows of A give A's R factor. work: DYI_FOLD_WORK(ns)
 * doubles. No allocation. */
#define DYI_FOLD_WORK(ns) (8 * ((size_t)(ns) + 8))
void dyi_qr_fold(int ns, int m, double* T, double* B, int ldb, double* work);

/* Fold ns samples (n*ns rows of A, column-major, leading dimension lda;
 * y: n*ns) into the joint triangles, each row multiplied by rw[row] when
 * rw is non-NULL (rows with rw = 0 are not counted). ns <= opt->block. 0, or -1 with err set (a non-zero
 * entry outside the mask, or a non-finite value). */
int dyi_est_add(dyiEstim* e, const double* A, int lda, const double* y, int ns,
                const double* rw, char* err, int errsz);
/* The same fold of ns samples with each joint's rows already gathered:
 * B[j] (ldb x (np_j + 1), column-major: the joint's columns in
 * dyi_est_cols order, then the torque) or NULL for a joint without rows in
 * this block; rw[j] (ns) its row weights (rw or rw[j] NULL: 1; rows with
 * weight 0 are not counted). Every B[j] is overwritten. The triangles are
 * those dyi_est_add makes of the same rows in A, bit for bit. Not with
 * parts kept (opt.folds > 1). 0, or -1 with err (a non-finite value). */
int dyi_est_add_joints(dyiEstim* e, double* const* B, int ldb, int ns, const double* const* rw,
                       char* err, int errsz);

/* Solve the problem folded in so far with joint j's rows weighted by
 * wj[j] (NULL: 1): fills beta, std, rel_std_pct, cov, sigma2, cond,
 * cond_scaled, and the per-joint residuals of beta (unweighted, from the
 * triangles). 0, or -1 with err set. Adds warnings. */
int dyi_est_solve(dyiEstim* e, const double* wj, char* err, int errsz);

/* Solve from the triangles folded in (dyi_est_run with fold_only, merged
 * statistics): OLS, or WLS with its per-joint weights re-estimated from
 * the triangles. IRLS is refused (it reweights every row). 0 or -1. */
int dyi_est_finish(dyiEstim* e, char* err, int errsz);

/* The unweighted triangle of joint j, (np[j]+1) x (np[j]+1) column-major,
 * [R_j z_j; 0 rho_j] over columns cols[j] and the torque (IRLS: of its
 * first pass). */
const double* dyi_est_triangle(const dyiEstim* e, int j);

/* Fold a triangle T of joint j (as dyi_est_triangle, of `rows` equations)
 * into e's: the QR of the two stacked (TSQR); a copy when e has none. 0/-1. */
int dyi_est_merge_tri(dyiEstim* e, int j, const double* T, long rows, char* err, int errsz);

/* Fold every triangle (and the parts' triangles, when both keep them) and
 * the sample count of src into dst (same n, p and mask). 0 or -1. */
int dyi_est_merge(dyiEstim* dst, const dyiEstim* src, char* err, int errsz);

/* An estimator (options of e, no parts) holding the rows of e's parts
 * other than part f (f < 0: every part), solved as dyi_est_finish does
 * (OLS, or WLS with its weights re-estimated). NULL with err set (no
 * parts kept, too few rows, rank deficiency). */
dyiEstim* dyi_est_without_part(const dyiEstim* e, int f, char* err, int errsz);

/* Residual sum of squares of joint j for beta over part f's rows. */
double dyi_est_part_rss(const dyiEstim* e, int f, int j, const double* beta);

/* Residual sum of squares of joint j for a given beta, and ||y_j||^2, from
 * the joint triangles of the rows folded in (unweighted rows; IRLS: the
 * triangles of its first, unweighted pass). */
void dyi_est_joint_rss(const dyiEstim* e, int j, const double* beta, double* rss,
                       double* yy);

/* ---- the triangles and the statistics callers compute from them ----
 *
 * The global triangle of the last solve (dyi_est_solve, hence dyi_est_run
 * and dyi_est_finish; zeros before the first): the (p+1) x (p+1) upper
 * triangle Raug = [R z; 0 rho], column-major, leading dimension *ld = p+1
 * (ld may be NULL), of the weighted rows [W A  W y], i.e.
 * [W A  W y] = Q Raug, W diagonal: each row's rw (the source's; 1 but at
 * the ends of a filtered segment) times the method's weight (OLS: 1; WLS:
 * 1/sigma_j on joint j's rows; IRLS: the Huber weight sqrt(w)/s_j of the
 * row). For any beta
 *     ||W (y - A beta)||^2 = ||R beta - z||^2 + rho^2.
 * Units: column k of R is that of W A e_k (torque unit [N m|N] per unit of
 * parameter k, times the weight's unit), z and rho that of W y (OLS:
 * [N m|N]; WLS and IRLS: the weights are 1/torque, so dimensionless). */
const double* dyi_est_raug(const dyiEstim* e, int* ld);

/* rho^2 = min_beta ||W (y - A beta)||^2: the weighted residual sum of
 * squares of the last solve's beta [(W y) unit ^2]; sigma2 = rho^2 / (M - p)
 * (M equations). */
double dyi_est_rho2(const dyiEstim* e);

/* ||W y||^2 = ||z||^2 + rho^2: the squared norm of the weighted torque
 * (the last column of Raug) [(W y) unit ^2]. */
double dyi_est_yy(const dyiEstim* e);

/* ||W A e_k||^2 = ||R e_k||^2 = sum_{i<=k} R_ik^2: the squared norm of
 * column k (0-based) of the weighted regressor [(W A e_k) unit ^2]. */
double dyi_est_colsq(const dyiEstim* e, int k);

/* The columns of joint j (mask row j, ascending, 0-based): the columns of
 * its triangle (dyi_est_triangle) but the last; their count in *np. */
const int* dyi_est_cols(const dyiEstim* e, int j, int* np);

/* The block buffers dyi_est_run fills from a row source, for a caller that
 * fills blocks itself and folds them with dyi_est_add (not during
 * dyi_est_run): *A (n*block x p, column-major), *y and *rw (n*block each).
 * Returns their leading dimension lda = n * opt.block. */
int dyi_est_block_buffers(dyiEstim* e, double** A, double** y, double** rw);

/* ---- how well each base parameter is identified (one rule for every
 * list of poorly identified parameters) ----
 *
 * The scale of parameter k, s_k = ||tau|| / ||Y_k|| [unit of parameter k]:
 * the value at which its regressor column alone would carry the whole
 * torque (tau and Y_k the rows as folded in, after the row stage's filter,
 * with their rw but without the method's weights; from the joint
 * triangles, IRLS: of its first pass:
 * ||tau||^2 = sum_j ||T_j e_last||^2, ||Y_k||^2 = sum_j ||R_j e_k||^2).
 * INFINITY for a column that is zero over the data. scale: p. */
void dyi_est_scales(const dyiEstim* e, double* scale);

/* The class of a value with standard deviation std and scale s:
 *   DYI_ID_BOUND  std is NaN (no std: held by a bound of the consistent
 *                 estimate),
 *   DYI_ID_FINE   relative std 100 std / |value| <= DYI_ID_RELSTD (10 %),
 *   DYI_ID_POOR   else std > DYI_ID_TINY_FRAC s (1e-3 of the scale),
 *   DYI_ID_TINY   else (a structurally tiny value: not flagged).
 * A zero value with a std has an infinite relative std. */
#define DYI_ID_RELSTD 10.0
#define DYI_ID_TINY_FRAC 1e-3
typedef enum { DYI_ID_FINE, DYI_ID_POOR, DYI_ID_TINY, DYI_ID_BOUND } dyiIdClass;
dyiIdClass dyi_ident_class(double value, double std, double scale);

#endif
