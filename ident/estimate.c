/* SPDX-License-Identifier: MIT */
/* dynid ident: streaming least squares (see estimate.h).
 *
 * Data flow of one pass: the source fills a block of whole samples
 * (n rows each) into Ab/yb; for every joint j its rows and its columns are
 * gathered into blk (block rows x (p_j+1), torque last) and folded into the
 * joint triangle T_j by dtpqrt: [T_j; blk] = Q [T_j'; 0]. The solve stacks
 * the weighted joint triangles into one (p+1) x (p+1) triangle
 * Raug = [R z; 0 rho], equilibrates, checks the rank and solves. */
#include "ident/estimate.h"
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST_LO (-9.0)                      /* log10 of the lowest bin edge */
#define HIST_PER_DECADE (DYI_NHIST / 14.0)  /* bins per decade: [-9, 5) */

void dyi_est_defaults(dyiEstOpt* opt) {
  memset(opt, 0, sizeof *opt);
  opt->method = DYI_OLS;
  opt->block = 256;
  opt->huber_c = 1.345;
  opt->irls_maxit = 30;
  opt->irls_tol = 1e-4;
  opt->max_cond = 1e10;
  opt->warn_relstd = 10;
  opt->warn_cond = 1e3;
}

static void pname(const dyiEstim* e, int k, char* buf, int sz) {
  if (e->opt.names && e->opt.names[k]) snprintf(buf, (size_t)sz, "%s", e->opt.names[k]);
  else snprintf(buf, (size_t)sz, "b%d", k + 1);
}

static void add_warn(dyiEstim* e, const char* msg) {
  if (e->nwarn < DYI_MAXWARN) snprintf(e->warn[e->nwarn], DYI_WARNSZ, "%s", msg);
  e->nwarn++;
}

void dyi_est_free(dyiEstim* e) {
  if (!e) return;
  for (int j = 0; j < e->n; j++) {
    if (e->cols) free(e->cols[j]);
    if (e->T) free(e->T[j]);
    if (e->T0) free(e->T0[j]);
  }
  free(e->np); free(e->cols); free(e->T); free(e->T0);
  free(e->beta); free(e->std); free(e->rel_std_pct); free(e->cov);
  free(e->blk); free(e->tq); free(e->work); free(e->Raug); free(e->Rs);
  free(e->svdw); free(e->sv); free(e->vt); free(e->res);
  free(e->hist); free(e->hist_ref); free(e->Ab); free(e->yb); free(e->rwb);
  if (e->Tf) for (int k = 0; k < e->opt.folds * e->n; k++) free(e->Tf[k]);
  free(e->Tf); free(e->rowsf);
  free(e->own_mask); free(e->own_names);
  free(e);
}

dyiEstim* dyi_est_make(int n, int p, const dyiEstOpt* opt, char* err, int errsz) {
  if (n < 1 || n > DY_MAXJ || p < 1) {
    snprintf(err, (size_t)errsz, "estimator: bad size n=%d p=%d", n, p);
    return NULL;
  }
  dyiEstim* e = calloc(1, sizeof *e);
  if (!e) goto oom;
  e->n = n; e->p = p;
  if (opt) e->opt = *opt; else dyi_est_defaults(&e->opt);
  if (e->opt.block < 1) e->opt.block = 256;
  int bs = e->opt.block;
  size_t P1 = (size_t)p + 1;
  e->ldb = bs > p + 1 ? bs : p + 1;
  e->np = calloc((size_t)n, sizeof(int));
  e->cols = calloc((size_t)n, sizeof(int*));
  e->T = calloc((size_t)n, sizeof(double*));
  e->T0 = calloc((size_t)n, sizeof(double*));
  if (!e->np || !e->cols || !e->T || !e->T0) goto oom;
  for (int j = 0; j < n; j++) {
    int c = 0;
    e->cols[j] = malloc(sizeof(int) * (size_t)p);
    if (!e->cols[j]) goto oom;
    for (int k = 0; k < p; k++)
      if (!e->opt.mask || e->opt.mask[(size_t)j * (size_t)p + (size_t)k]) e->cols[j][c++] = k;
    e->np[j] = c;
    size_t m1 = (size_t)c + 1;
    e->T[j] = calloc(m1 * m1, sizeof(double));
    e->T0[j] = calloc(m1 * m1, sizeof(double));
    if (!e->T[j] || !e->T0[j]) goto oom;
  }
  if (e->opt.folds > 1) {
    if (e->opt.fold_len < 1) e->opt.fold_len = 32;
    int nf = e->opt.folds * n;
    e->Tf = calloc((size_t)nf, sizeof(double*));
    e->rowsf = calloc((size_t)nf, sizeof(long));
    if (!e->Tf || !e->rowsf) goto oom;
    for (int k = 0; k < nf; k++) {
      size_t m1 = (size_t)e->np[k % n] + 1;
      if (!(e->Tf[k] = calloc(m1 * m1, sizeof(double)))) goto oom;
    }
  } else e->opt.folds = 0;
  e->beta = calloc((size_t)p, sizeof(double));
  e->std = calloc((size_t)p, sizeof(double));
  e->rel_std_pct = calloc((size_t)p, sizeof(double));
  e->cov = calloc((size_t)p * (size_t)p, sizeof(double));
  e->blk = malloc(sizeof(double) * (size_t)e->ldb * P1);
  e->tq = malloc(sizeof(double) * 32 * P1);
  e->work = malloc(sizeof(double) * 32 * P1);
  e->Raug = malloc(sizeof(double) * P1 * P1);
  e->Rs = malloc(sizeof(double) * P1 * P1);
  e->sv = malloc(sizeof(double) * P1);
  e->vt = malloc(sizeof(double) * P1 * P1);
  e->res = malloc(sizeof(double) * (size_t)n * (size_t)bs);
  e->hist = calloc((size_t)n * DYI_NHIST, sizeof(long));
  e->hist_ref = calloc((size_t)n, sizeof(double));
  e->Ab = malloc(sizeof(double) * (size_t)n * (size_t)bs * (size_t)p);
  e->yb = malloc(sizeof(double) * (size_t)n * (size_t)bs);
  e->rwb = malloc(sizeof(double) * (size_t)n * (size_t)bs);
  if (!e->rwb ||!e->beta || !e->std || !e->rel_std_pct || !e->cov || !e->blk || !e->tq || !e->work ||
      !e->Raug || !e->Rs || !e->sv || !e->vt || !e->res || !e->hist || !e->hist_ref ||
      !e->Ab || !e->yb)
    goto oom;
  /* SVD workspace: query once for the largest call (V^T of a p x p matrix) */
  double q = 0;
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', p, p, e->Rs, p, e->sv, NULL, 1, e->vt, p,
                          &q, -1))
    q = 5.0 * (double)p * (double)p;
  e->lwork = (int)q + 5 * p;
  e->svdw = malloc(sizeof(double) * (size_t)e->lwork);
  if (!e->svdw) goto oom;
  return e;
oom:
  snprintf(err, (size_t)errsz, "estimator: out of memory (n=%d, p=%d)", n, p);
  dyi_est_free(e);
  return NULL;
}

void dyi_est_reset(dyiEstim* e) {
  for (int j = 0; j < e->n; j++) {
    size_t m1 = (size_t)e->np[j] + 1;
    memset(e->T[j], 0, sizeof(double) * m1 * m1);
  }
  for (int k = 0; k < e->opt.folds * e->n; k++) {
    size_t m1 = (size_t)e->np[k % e->n] + 1;
    memset(e->Tf[k], 0, sizeof(double) * m1 * m1);
    e->rowsf[k] = 0;
  }
  e->samples = 0;
  memset(e->rows_j, 0, sizeof e->rows_j);
}

/* Samples s0 .. s0+ns-1 of joint j's rows (weighted by rw) and columns,
 * torque last, gathered into blk and folded into the triangle T. 0 or -1
 * (a non-finite value, dtpqrt). */
static int fold_joint(dyiEstim* e, int j, const double* A, int lda, const double* y, const double* rw,
                      int s0, int ns, double* T, char* err, int errsz) {
  const int n = e->n, pj = e->np[j], ldb = e->ldb;
  const int* cols = e->cols[j];
  for (int c = 0; c <= pj; c++) {
    const double* a = c < pj ? A + (size_t)lda * (size_t)cols[c] + (size_t)j : y + j;
    double* b = e->blk + (size_t)ldb * (size_t)c;
    for (int s = 0; s < ns; s++) {
      size_t r = (size_t)(s0 + s) * (size_t)n;
      double v = a[r];
      if (rw) v *= rw[r + (size_t)j];
      if (!(fabs(v) <= DBL_MAX)) {
        char nm[64];
        if (c < pj) pname(e, cols[c], nm, sizeof nm); else snprintf(nm, sizeof nm, "torque");
        snprintf(err, (size_t)errsz, "estimator: sample %ld, joint %d: non-finite %s (%g)",
                 e->samples + s0 + s + 1, j + 1, nm, v);
        return -1;
      }
      b[s] = v;
    }
  }
  int m1 = pj + 1, nb = m1 < 16 ? m1 : 16;
  lapack_int info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, ns, m1, 0, nb, T, m1, e->blk, ldb, e->tq, nb, e->work);
  if (info) {
    snprintf(err, (size_t)errsz, "estimator: dtpqrt failed (info %d)", (int)info);
    return -1;
  }
  return 0;
}

int dyi_est_add(dyiEstim* e, const double* A, int lda, const double* y, int ns,
                const double* rw, char* err, int errsz) {
  int n = e->n, p = e->p;
  if (ns <= 0) return 0;
  if (ns > e->opt.block) {
    snprintf(err, (size_t)errsz, "estimator: block of %d samples > %d", ns, e->opt.block);
    return -1;
  }
  for (int j = 0; j < n; j++) {
    /* no equation of joint j in this block (a worker of another joint):
     * zero rows leave the triangle exactly as it is */
    if (rw) {
      int any = 0;
      for (int s = 0; s < ns && !any; s++) any = rw[(size_t)s * (size_t)n + (size_t)j] != 0;
      if (!any) continue;
    }
    /* structural zeros: columns outside the mask must be exactly zero */
    if (e->opt.mask)
      for (int k = 0; k < p; k++) {
        if (e->opt.mask[(size_t)j * (size_t)p + (size_t)k]) continue;
        const double* a = A + (size_t)lda * (size_t)k + (size_t)j;
        for (int s = 0; s < ns; s++)
          if (a[(size_t)s * (size_t)n] != 0) {
            char nm[64];
            pname(e, k, nm, sizeof nm);
            snprintf(err, (size_t)errsz, "estimator: sample %ld, joint %d: regressor entry of %s "
                     "is %.3g outside its structural pattern (must be 0)",
                     e->samples + s + 1, j + 1, nm, a[(size_t)s * (size_t)n]);
            return -1;
          }
      }
    if (fold_joint(e, j, A, lda, y, rw, 0, ns, e->T[j], err, errsz)) return -1;
    /* the parts: runs of consecutive samples in one part */
    for (int s0 = 0; s0 < ns && e->opt.folds > 1;) {
      long g = e->samples + s0, L = e->opt.fold_len;
      int f = (int)((g / L) % e->opt.folds), len = (int)(L - g % L);
      if (len > ns - s0) len = ns - s0;
      if (fold_joint(e, j, A, lda, y, rw, s0, len, e->Tf[f * n + j], err, errsz)) return -1;
      for (int s = s0; s < s0 + len; s++) e->rowsf[f * n + j] += !rw || rw[(size_t)s * (size_t)n + (size_t)j] != 0;
      s0 += len;
    }
  }
  for (int j = 0; j < n; j++) {
    if (!rw) { e->rows_j[j] += ns; continue; }
    for (int s = 0; s < ns; s++) e->rows_j[j] += rw[(size_t)s * (size_t)n + (size_t)j] != 0;
  }
  e->samples += ns;
  return 0;
}

/* ||T [x; -1]||^2 and ||T e_last||^2 for an upper triangle of order m1 */
static void tri_rss(const double* T, int m1, const double* x, double* rss, double* yy) {
  double s = 0, t = 0;
  for (int r = 0; r < m1; r++) {
    double v = -T[r + (size_t)m1 * (size_t)(m1 - 1)];
    t += v * v;
    for (int c = r; c < m1 - 1; c++) v += T[r + (size_t)m1 * (size_t)c] * x[c];
    s += v * v;
  }
  *rss = s;
  *yy = t;
}

void dyi_est_joint_rss(const dyiEstim* e, int j, const double* beta, double* rss, double* yy) {
  double x[DY_NPL * DY_MAXJ];
  const double* T = e->tu_is_T0 ? e->T0[j] : e->T[j];
  int pj = e->np[j];
  double* xs = x;
  double* heap = NULL;
  if (pj > (int)(sizeof x / sizeof x[0])) xs = heap = malloc(sizeof(double) * (size_t)pj);
  if (!xs) { *rss = *yy = NAN; return; }
  for (int c = 0; c < pj; c++) xs[c] = beta[e->cols[j][c]];
  tri_rss(T, pj + 1, xs, rss, yy);
  free(heap);
}

/* name the weakest combination: components of the last right singular
 * vector (rows of vt) above 0.1, largest first */
static void weakest(const dyiEstim* e, char* buf, int sz) {
  int p = e->p, used[8], nu = 0, len = 0;
  buf[0] = 0;
  for (; nu < 5; nu++) {
    int best = -1;
    double bv = 0.1;
    for (int k = 0; k < p; k++) {
      int skip = 0;
      for (int u = 0; u < nu; u++) skip |= used[u] == k;
      double v = fabs(e->vt[(p - 1) + (size_t)p * (size_t)k]);
      if (!skip && v > bv) { bv = v; best = k; }
    }
    if (best < 0) break;
    used[nu] = best;
    char nm[64];
    pname(e, best, nm, sizeof nm);
    len += snprintf(buf + len, (size_t)(sz - len > 0 ? sz - len : 0), "%s%+.2f*%s",
                    nu ? " " : "", e->vt[(p - 1) + (size_t)p * (size_t)best], nm);
    if (len >= sz) break;
  }
}

/* The solve in stages, on Raug = [R z; 0 rho] (p + 1 columns, leading
 * dimension P1 = p + 1): the stacked weighted triangles, the column norms
 * cn_k = ||R e_k|| (those of the weighted regressor), the condition
 * numbers of R and of R D (D = diag(1 / cn)), beta = D (R D)^-1 z, the
 * covariance, the per-joint residuals and the warnings. */

/* Raug = the QR of the stacked w_j T_j (each joint's triangle scattered
 * into the global columns, the torque column last) */
static int stack_triangles(dyiEstim* e, const double* wj, char* err, int errsz) {
  int n = e->n, p = e->p, P1 = p + 1, ldb = e->ldb;
  memset(e->Raug, 0, sizeof(double) * (size_t)P1 * (size_t)P1);
  for (int j = 0; j < n; j++) {
    int pj = e->np[j], m1 = pj + 1;
    double w = wj ? wj[j] : 1.0;
    for (int c = 0; c < P1; c++) memset(e->blk + (size_t)ldb * (size_t)c, 0, sizeof(double) * (size_t)m1);
    for (int c = 0; c < m1; c++) {
      int gc = c < pj ? e->cols[j][c] : p;
      for (int r = 0; r <= c; r++)
        e->blk[r + (size_t)ldb * (size_t)gc] = w * e->T[j][r + (size_t)m1 * (size_t)c];
    }
    int nb = P1 < 32 ? P1 : 32;
    lapack_int info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m1, P1, 0, nb, e->Raug, P1, e->blk,
                                          ldb, e->tq, nb, e->work);
    if (info) {
      snprintf(err, (size_t)errsz, "estimator: dtpqrt failed (info %d)", (int)info);
      return -1;
    }
  }
  return 0;
}

/* cn_k = ||R e_k||; a zero column is a parameter the data do not excite */
static int column_norms(dyiEstim* e, double* cn, char* err, int errsz) {
  int p = e->p, P1 = p + 1;
  const double* R = e->Raug;
  for (int k = 0; k < p; k++) {
    double s = 0;
    for (int r = 0; r <= k; r++) s += R[r + (size_t)P1 * (size_t)k] * R[r + (size_t)P1 * (size_t)k];
    cn[k] = sqrt(s);
    if (!(cn[k] > 0)) {
      char nm[64];
      pname(e, k, nm, sizeof nm);
      snprintf(err, (size_t)errsz, "the regressor column of %s is zero over the data: %s is not "
               "excited (or not present) and cannot be identified", nm, nm);
      return -1;
    }
  }
  return 0;
}

/* Rs = R D (upper, leading dimension p), or R itself for cn = NULL */
static void scaled_R(dyiEstim* e, const double* cn) {
  int p = e->p, P1 = p + 1;
  const double* R = e->Raug;
  for (int k = 0; k < p; k++)
    for (int r = 0; r < p; r++)
      e->Rs[r + (size_t)p * (size_t)k] = r <= k ? R[r + (size_t)P1 * (size_t)k] / (cn ? cn[k] : 1) : 0;
}

/* cond = s_max / s_min of R (as given) and cond_scaled of R D, whose
 * right singular vectors (vt) name the weakest combination when
 * cond_scaled exceeds max_cond */
static int conditions(dyiEstim* e, const double* cn, char* err, int errsz) {
  int p = e->p;
  scaled_R(e, NULL);
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', p, p, e->Rs, p, e->sv, NULL, 1, NULL, 1,
                          e->svdw, e->lwork)) {
    snprintf(err, (size_t)errsz, "estimator: SVD did not converge");
    return -1;
  }
  e->cond = e->sv[p - 1] > 0 ? e->sv[0] / e->sv[p - 1] : INFINITY;
  scaled_R(e, cn);
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', p, p, e->Rs, p, e->sv, NULL, 1, e->vt, p,
                          e->svdw, e->lwork)) {
    snprintf(err, (size_t)errsz, "estimator: SVD did not converge");
    return -1;
  }
  e->cond_scaled = e->sv[p - 1] > 0 ? e->sv[0] / e->sv[p - 1] : INFINITY;
  if (!(e->cond_scaled <= e->opt.max_cond)) {
    char wk[400];
    weakest(e, wk, sizeof wk);
    snprintf(err, (size_t)errsz, "the regressor is rank deficient or badly scaled (condition number "
             "%.3g after column scaling, limit %.3g): the data do not determine the combination "
             "%s (scaled parameters); excite the motions these involve or drop them",
             e->cond_scaled, e->opt.max_cond, wk);
    return -1;
  }
  return 0;
}

/* beta = D gamma with (R D) gamma = z; sigma^2 = rho^2 / (rows - p);
 * cov = var_factor sigma^2 D (R D)^-1 (R D)^-T D; std, rel_std_pct */
static int solve_beta(dyiEstim* e, const double* cn, double rho, long rows, char* err, int errsz) {
  int p = e->p, P1 = p + 1;
  scaled_R(e, cn);   /* dgesvd destroyed it */
  memcpy(e->beta, e->Raug + (size_t)P1 * (size_t)p, sizeof(double) * (size_t)p);
  if (LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'U', 'N', 'N', p, 1, e->Rs, p, e->beta, p)) {
    snprintf(err, (size_t)errsz, "estimator: singular triangular factor");
    return -1;
  }
  for (int k = 0; k < p; k++) e->beta[k] /= cn[k];
  e->sigma2 = rho * rho / (double)(rows - p);
  if (LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', p, e->Rs, p)) {
    snprintf(err, (size_t)errsz, "estimator: singular triangular factor");
    return -1;
  }
  for (int a = 0; a < p; a++)
    for (int b = a; b < p; b++) {
      double s = 0;
      for (int c = b; c < p; c++) s += e->Rs[a + (size_t)p * (size_t)c] * e->Rs[b + (size_t)p * (size_t)c];
      s *= e->sigma2 * (e->opt.var_factor > 0 ? e->opt.var_factor : 1) / (cn[a] * cn[b]);
      e->cov[a + (size_t)p * (size_t)b] = e->cov[b + (size_t)p * (size_t)a] = s;
    }
  for (int k = 0; k < p; k++) {
    e->std[k] = sqrt(e->cov[k + (size_t)p * (size_t)k]);
    e->rel_std_pct[k] = e->beta[k] != 0 ? 100 * e->std[k] / fabs(e->beta[k]) : INFINITY;
  }
  return 0;
}

/* per-joint residuals of beta, unweighted: rms_j = sqrt(rss_j / rows_j),
 * relerr_j = 100 sqrt(rss_j / ||y_j||^2), and over all joints */
static void joint_residuals(dyiEstim* e, long rows) {
  double ra = 0, ya = 0;
  for (int j = 0; j < e->n; j++) {
    double rss, yy;
    dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
    e->rms[j] = e->rows_j[j] ? sqrt(rss / (double)e->rows_j[j]) : 0;
    e->relerr_pct[j] = yy > 0 ? 100 * sqrt(rss / yy) : (rss > 0 ? INFINITY : 0);
    ra += rss; ya += yy;
  }
  e->rms_all = sqrt(ra / (double)rows);
  e->relerr_all_pct = ya > 0 ? 100 * sqrt(ra / ya) : 0;
}

/* warnings: cond above warn_cond, each relative std above warn_relstd */
static void solve_warnings(dyiEstim* e) {
  char msg[DYI_WARNSZ];
  if (e->cond > e->opt.warn_cond) {
    snprintf(msg, sizeof msg, "poor excitation: condition number %.4g > %.4g (%.4g after column "
             "scaling)", e->cond, e->opt.warn_cond, e->cond_scaled);
    add_warn(e, msg);
  }
  for (int k = 0; k < e->p; k++)
    if (!(e->rel_std_pct[k] <= e->opt.warn_relstd)) {
      char nm[64];
      pname(e, k, nm, sizeof nm);
      snprintf(msg, sizeof msg, "%s = %.6g: relative std %.3g %% > %g %%: poorly identified", nm,
               e->beta[k], e->rel_std_pct[k], e->opt.warn_relstd);
      add_warn(e, msg);
    }
}

int dyi_est_solve(dyiEstim* e, const double* wj, char* err, int errsz) {
  int n = e->n, p = e->p;
  long rows = 0;
  for (int j = 0; j < n; j++) rows += e->rows_j[j];
  e->nwarn = 0;
  if (rows <= p) {
    snprintf(err, (size_t)errsz, "not enough data: %ld samples, %ld equations for %d "
             "parameters", e->samples, rows, p);
    return -1;
  }
  if (stack_triangles(e, wj, err, errsz)) return -1;
  double rho = e->Raug[p + (size_t)(p + 1) * (size_t)p];
  if (!isfinite(rho)) {
    snprintf(err, (size_t)errsz, "estimator: non-finite values in the data");
    return -1;
  }
  /* p entries of scratch for the column norms: res (n block) when it fits */
  double* cn = e->res;
  double* cnh = NULL;
  if ((long)n * e->opt.block < p) cn = cnh = malloc(sizeof(double) * (size_t)p);
  if (!cn) { snprintf(err, (size_t)errsz, "estimator: out of memory"); return -1; }
  int rc = column_norms(e, cn, err, errsz) || conditions(e, cn, err, errsz) ||
           solve_beta(e, cn, rho, rows, err, errsz) ? -1 : 0;
  if (!rc) {
    joint_residuals(e, rows);
    solve_warnings(e);
  }
  free(cnh);
  return rc;
}

/* one pass over the source: fold every block, with IRLS row weights when
 * irls (residuals of e->beta, scales s[j], histograms filled) */
static int pass(dyiEstim* e, dyiRowSource* src, int irls, const double* s, char* err, int errsz) {
  int n = e->n, p = e->p, bs = e->opt.block, lda = n * bs;
  dyi_est_reset(e);
  if (irls) {
    memset(e->hist, 0, sizeof(long) * (size_t)n * DYI_NHIST);
    e->downweighted = 0;
    e->weight_min = 1;
  }
  for (;;) {
    for (int i = 0; i < n * bs; i++) e->rwb[i] = 1;
    int ns = src->fill(src->ctx, e->Ab, lda, e->yb, e->rwb, bs, err, errsz);
    if (ns < 0) return -1;
    if (ns == 0) break;
    if (ns > bs) {
      snprintf(err, (size_t)errsz, "estimator: source returned %d samples > %d", ns, bs);
      return -1;
    }
    const double* rw = e->rwb;
    if (irls) {
      int m = n * ns;
      double* r = e->res;
      memcpy(r, e->yb, sizeof(double) * (size_t)m);
      for (int k = 0; k < p; k++) {
        const double* a = e->Ab + (size_t)lda * (size_t)k;
        double b = e->beta[k];
        for (int i = 0; i < m; i++) r[i] -= a[i] * b;
      }
      for (int i = 0; i < m; i++) {
        int j = i % n;
        if (e->rwb[i] == 0) { r[i] = 0; continue; }
        double u = fabs(r[i]) / s[j], w = u > e->opt.huber_c ? e->opt.huber_c / u : 1.0;
        if (w < 1) e->downweighted++;
        if (w < e->weight_min) e->weight_min = w;
        double x = fabs(r[i]) / e->hist_ref[j];
        int bin = x > 0 ? (int)floor((log10(x) - HIST_LO) * HIST_PER_DECADE) : 0;
        if (bin < 0) bin = 0;
        if (bin >= DYI_NHIST) bin = DYI_NHIST - 1;
        e->hist[(size_t)j * DYI_NHIST + (size_t)bin]++;
        r[i] = e->rwb[i] * sqrt(w) / s[j];
      }
      rw = r;
    }
    if (dyi_est_add(e, e->Ab, lda, e->yb, ns, rw, err, errsz)) return -1;
  }
  e->iterations++;
  return 0;
}

/* median of |r| of joint j from its histogram (linear within the bin) */
static double hist_median(const dyiEstim* e, int j) {
  const long* h = e->hist + (size_t)j * DYI_NHIST;
  long tot = 0;
  for (int b = 0; b < DYI_NHIST; b++) tot += h[b];
  if (!tot) return 0;
  double half = 0.5 * (double)tot, acc = 0;
  for (int b = 0; b < DYI_NHIST; b++) {
    if (acc + (double)h[b] >= half) {
      double f = h[b] ? (half - acc) / (double)h[b] : 0;
      double lg = HIST_LO + ((double)b + f) / HIST_PER_DECADE;
      return e->hist_ref[j] * pow(10, lg);
    }
    acc += (double)h[b];
  }
  return e->hist_ref[j];
}

/* OLS, then WLS's per-joint weights, from the triangles folded in */
static int finish(dyiEstim* e, char* err, int errsz) {
  int n = e->n;
  if (dyi_est_solve(e, NULL, err, errsz)) return -1;
  /* OLS per-joint noise std: ||r_j||^2 / (N - p_j) */
  for (int j = 0; j < n; j++) {
    double rss, yy;
    long dof = e->rows_j[j] - e->np[j];
    dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
    if (dof <= 0) {
      snprintf(err, (size_t)errsz, "not enough data: %ld equations for the %d parameters of joint %d",
               e->rows_j[j], e->np[j], j + 1);
      return -1;
    }
    e->sigma_j[j] = sqrt(rss / (double)dof);
  }
  if (e->opt.method != DYI_WLS) return 0;
  /* sigma_j from the OLS residual, then re-estimated from the WLS residual
   * until it settles (feasible WLS; the triangles give each residual
   * exactly, so these iterations do not read the data again) */
  double w[DY_MAXJ] = {0};
  for (int it = 0; it < 20; it++) {
    for (int j = 0; j < n; j++) {
      if (!(e->sigma_j[j] > 0)) {
        snprintf(err, (size_t)errsz, "WLS: joint %d has a zero OLS residual (noise-free data?); "
                 "its weight 1/sigma is undefined: use OLS", j + 1);
        return -1;
      }
      w[j] = 1 / e->sigma_j[j];
    }
    if (dyi_est_solve(e, w, err, errsz)) return -1;
    double change = 0;
    for (int j = 0; j < n; j++) {
      double rss, yy, s;
      dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
      s = sqrt(rss / (double)(e->rows_j[j] - e->np[j]));
      change = fmax(change, fabs(s / e->sigma_j[j] - 1));
      e->sigma_j[j] = s;
    }
    if (change < 1e-4) break;
  }
  return 0;
}

int dyi_est_finish(dyiEstim* e, char* err, int errsz) {
  if (e->opt.method == DYI_IRLS) {
    snprintf(err, (size_t)errsz, "IRLS reweights every row and needs the data, not only its triangles: "
             "use OLS or WLS");
    return -1;
  }
  e->tu_is_T0 = 0;
  return finish(e, err, errsz);
}

const double* dyi_est_triangle(const dyiEstim* e, int j) { return e->tu_is_T0 ? e->T0[j] : e->T[j]; }

/* [Td; T] = Q [Td'; 0] for joint j's triangles: T folded into Td, which
 * holds rows_d equations so far (a copy when none). 0 or -1. */
static int merge_into(dyiEstim* e, int j, double* Td, long rows_d, const double* T, char* err, int errsz) {
  int m1 = e->np[j] + 1, nb = m1 < 32 ? m1 : 32;
  if (!rows_d) {
    memcpy(Td, T, sizeof(double) * (size_t)m1 * (size_t)m1);
  } else {
    /* [T_e; T] = Q [T'; 0]: the QR of the two triangles stacked (TSQR) */
    for (int c = 0; c < m1; c++)
      for (int r = 0; r < m1; r++) e->blk[r + (size_t)e->ldb * (size_t)c] = r <= c ? T[r + (size_t)m1 * (size_t)c] : 0;
    lapack_int info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m1, m1, 0, nb, Td, m1, e->blk,
                                          e->ldb, e->tq, nb, e->work);
    if (info) {
      snprintf(err, (size_t)errsz, "estimator: dtpqrt failed (info %d)", (int)info);
      return -1;
    }
  }
  return 0;
}

int dyi_est_merge_tri(dyiEstim* e, int j, const double* T, long rows, char* err, int errsz) {
  if (!rows) return 0;   /* nothing folded: exactly no change */
  if (merge_into(e, j, e->T[j], e->rows_j[j], T, err, errsz)) return -1;
  e->rows_j[j] += rows;
  return 0;
}

int dyi_est_merge(dyiEstim* dst, const dyiEstim* src, char* err, int errsz) {
  if (dst->n != src->n || dst->p != src->p) {
    snprintf(err, (size_t)errsz, "estimator: merging %d x %d into %d x %d", src->n, src->p, dst->n, dst->p);
    return -1;
  }
  for (int j = 0; j < dst->n; j++) {
    if (dst->np[j] != src->np[j]) {
      snprintf(err, (size_t)errsz, "estimator: joint %d has %d columns here and %d in the other", j + 1,
               dst->np[j], src->np[j]);
      return -1;
    }
    if (dyi_est_merge_tri(dst, j, dyi_est_triangle(src, j), src->rows_j[j], err, errsz)) return -1;
  }
  if (dst->opt.folds > 1 && dst->opt.folds == src->opt.folds)
    for (int k = 0; k < dst->opt.folds * dst->n; k++) {
      if (!src->rowsf[k]) continue;
      if (merge_into(dst, k % dst->n, dst->Tf[k], dst->rowsf[k], src->Tf[k], err, errsz)) return -1;
      dst->rowsf[k] += src->rowsf[k];
    }
  dst->samples += src->samples;
  return 0;
}

dyiEstim* dyi_est_without_part(const dyiEstim* e, int f, char* err, int errsz) {
  if (e->opt.folds < 2) { snprintf(err, (size_t)errsz, "estimator: no parts kept"); return NULL; }
  dyiEstOpt o = e->opt;
  o.folds = 0;
  o.fold_only = 0;
  if (o.method == DYI_IRLS) o.method = DYI_OLS;
  dyiEstim* t = dyi_est_make(e->n, e->p, &o, err, errsz);
  if (!t) return NULL;
  for (int g = 0; g < e->opt.folds; g++) {
    if (g == f) continue;
    for (int j = 0; j < e->n; j++)
      if (dyi_est_merge_tri(t, j, e->Tf[g * e->n + j], e->rowsf[g * e->n + j], err, errsz)) {
        dyi_est_free(t);
        return NULL;
      }
  }
  t->samples = 1;   /* counted by rows */
  if (dyi_est_finish(t, err, errsz)) { dyi_est_free(t); return NULL; }
  return t;
}

double dyi_est_part_rss(const dyiEstim* e, int f, int j, const double* beta) {
  double x[DY_NPL * DY_MAXJ], rss, yy;
  int pj = e->np[j];
  if (e->opt.folds < 2 || pj > (int)(sizeof x / sizeof x[0])) return NAN;
  for (int c = 0; c < pj; c++) x[c] = beta[e->cols[j][c]];
  tri_rss(e->Tf[f * e->n + j], pj + 1, x, &rss, &yy);
  return rss;
}

int dyi_est_run(dyiEstim* e, dyiRowSource* src, char* err, int errsz) {
  e->iterations = 0;
  e->tu_is_T0 = 0;
  if (pass(e, src, 0, NULL, err, errsz)) return -1;
  if (e->opt.fold_only) return 0;
  if (finish(e, err, errsz)) return -1;
  if (e->opt.method != DYI_IRLS) return 0;
  int n = e->n;
  /* IRLS: keep the OLS triangles for the unweighted residual statistics */
  for (int j = 0; j < n; j++) {
    size_t m1 = (size_t)e->np[j] + 1;
    memcpy(e->T0[j], e->T[j], sizeof(double) * m1 * m1);
  }
  double s[DY_MAXJ], old[DY_NPL * DY_MAXJ];
  double* prev = e->p <= (int)(sizeof old / sizeof old[0]) ? old : malloc(sizeof(double) * (size_t)e->p);
  if (!prev) { snprintf(err, (size_t)errsz, "estimator: out of memory"); return -1; }
  int rc = -1, converged = 0;
  /* scales below 1e-9 of the torque's RMS are round-off (exact data):
   * Huber weights there would only reweight rounding errors */
  double sfloor[DY_MAXJ];
  for (int j = 0; j < n; j++) {
    double rss, yy;
    dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
    sfloor[j] = 1e-9 * sqrt(yy / (double)(e->rows_j[j] ? e->rows_j[j] : 1));
    if (!(sfloor[j] > 0)) sfloor[j] = 1e-300;
    s[j] = fmax(e->sigma_j[j], sfloor[j]);
    e->hist_ref[j] = s[j];
  }
  for (int it = 0; it < e->opt.irls_maxit; it++) {
    memcpy(prev, e->beta, sizeof(double) * (size_t)e->p);
    if (src->rewind(src->ctx, err, errsz)) goto done;
    if (pass(e, src, 1, s, err, errsz)) goto done;
    e->tu_is_T0 = 1;
    if (dyi_est_solve(e, NULL, err, errsz)) goto done;
    double change = 0;
    for (int k = 0; k < e->p; k++) {
      /* relative to std, or to round-off where the data are exact */
      double sc = fmax(e->std[k], 1e-12 * fabs(e->beta[k]));
      double d = fabs(e->beta[k] - prev[k]) / (sc > 0 ? sc : 1);
      if (d > change) change = d;
    }
    /* robust scale of the residuals of the beta used in this pass */
    for (int j = 0; j < n; j++) {
      double med = hist_median(e, j);
      double sn = fmax(1.482602218505602 * med, sfloor[j]);
      /* keep the scale when it moves by less than 1e-3: the histogram's
       * quantisation would otherwise keep beta in a tiny limit cycle */
      if (med > 0 && fabs(sn / s[j] - 1) > 1e-3) s[j] = sn;
    }
    if (change < e->opt.irls_tol) { converged = 1; break; }
  }
  for (int j = 0; j < n; j++) e->sigma_j[j] = s[j];
  if (!converged) {
    char msg[DYI_WARNSZ];
    snprintf(msg, sizeof msg, "IRLS did not converge in %d passes (tolerance %g std)",
             e->opt.irls_maxit, e->opt.irls_tol);
    add_warn(e, msg);
  }
  rc = 0;
done:
  if (prev != old) free(prev);
  return rc;
}

/* ------------------------------------------------- the structural mask */

/* can full parameter k (model.h order) reach the torque of joint j?
 * Link k's wrench is carried toward the base (joints 1..k); joint k's
 * parameters act on joint k only. */
static int reaches(int n, int k, int j) {
  return k < DY_NPAR_LINK * n ? k / DY_NPAR_LINK >= j : (k - DY_NPAR_LINK * n) / DY_NPAR_JNT == j;
}

void dyi_base_mask(const dyModel* m, const dyiBase* b, unsigned char* mask) {
  int n = m->n, nb = b->nb, np = b->npar;
  double pmax = 0;
  for (long k = 0; k < (long)np * nb; k++) pmax = fmax(pmax, fabs(b->P[k]));
  memset(mask, 0, (size_t)n * (size_t)nb);
  for (int c = 0; c < nb; c++)
    for (int k = 0; k < np; k++) {
      if (fabs(b->P[(size_t)k * (size_t)nb + (size_t)c]) <= DYI_P_ZERO * pmax) continue;
      for (int j = 0; j < n; j++) if (reaches(n, k, j)) mask[(size_t)j * (size_t)nb + (size_t)c] = 1;
    }
}
