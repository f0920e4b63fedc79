/* SPDX-License-Identifier: MIT */
/* dynid ident: streaming least squares (see estimate.h).
 *
 * Data flow of one pass: the source fills a block of whole samples
 * (n rows each) into Ab/yb; for every joint j its rows and its columns are
 * gathered into blk (block rows x (p_j+1), torque last) and folded into the
 * joint triangle T_j by Householder reflections (ts_fold): [T_j; blk] =
 * Q [T_j'; 0]. The solve stacks
 * the weighted joint triangles into one (p+1) x (p+1) triangle
 * Raug = [R z; 0 rho], equilibrates, checks the rank and solves.
 *
 * Memory: dyi_est_make sizes every array from (n, p, block, mask, folds)
 * and makes one allocation (the dyiEstim, its dyiEstimWork, the arrays of
 * EST_ARRAYS); nothing is allocated after it. */
#include "ident/estimate.h"
#include "core/util.h"
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

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

/* ------------------------------------------------------------- the fold */

/* [T; B] = Q [T'; 0]: the ns rows of B (ns x m, column-major, leading
 * dimension ldb; overwritten by the reflectors) folded into the upper
 * triangle T (m x m, leading dimension m), as LAPACK's dtpqrt with l = 0
 * does, by the same reflectors (dlarfg's: H = I - tau [1; v] [1; v]^T,
 * beta = -sign(alpha) ||(alpha, x)||, so the same signs of T's diagonal),
 * in panels of FOLD_PW columns: a panel's reflectors one after the other
 * on its own columns, then the panel as one block reflector I - V F V^T
 * (F upper triangular, dlarft's forward columnwise form) on the columns
 * after it, two at a time: W = T_panel + V^T B, W = F^T W, T_panel -= W,
 * B -= V W. Vectors of FOLD_PW doubles over the rows, built per vector
 * width (util.h DY_CLONES). Beside dtpqrt on one core (make bench,
 * section fold: blocks of 256 rows, the estimator's gather included):
 * 2.3x on 70 columns, 2.2x on 12; and no BLAS call, whose allocation lock
 * the threads of identify took in turn for every one of dtpqrt's small
 * products. vp: FOLD_PW x (ns + FOLD_PW) doubles. */
#define FOLD_PW 8
typedef double foldVec __attribute__((vector_size(FOLD_PW * sizeof(double))));
#define FV_LOAD(v, p) memcpy(&(v), (p), sizeof(foldVec))
#define FV_STORE(p, v) memcpy((p), &(v), sizeof(foldVec))

static inline double fv_sum(const foldVec* a) {
  return (((*a)[0] + (*a)[4]) + ((*a)[1] + (*a)[5])) + (((*a)[2] + (*a)[6]) + ((*a)[3] + (*a)[7]));
}

static inline double fold_dot(const double* x, const double* y, int n) {
  foldVec a0 = {0}, a1 = {0};
  int i = 0;
  foldVec x0, y0, x1, y1;
  for (; i + 2 * FOLD_PW <= n; i += 2 * FOLD_PW) {
    FV_LOAD(x0, x + i); FV_LOAD(y0, y + i); FV_LOAD(x1, x + i + FOLD_PW); FV_LOAD(y1, y + i + FOLD_PW);
    a0 += x0 * y0;
    a1 += x1 * y1;
  }
  for (; i + FOLD_PW <= n; i += FOLD_PW) { FV_LOAD(x0, x + i); FV_LOAD(y0, y + i); a0 += x0 * y0; }
  a0 += a1;
  double s = fv_sum(&a0);
  for (; i < n; i++) s += x[i] * y[i];
  return s;
}

/* y += a x (n) */
static inline void fold_axpy(double* y, double a, const double* x, int n) {
  int i = 0;
  foldVec xv, yv;
  for (; i + FOLD_PW <= n; i += FOLD_PW) {
    FV_LOAD(xv, x + i); FV_LOAD(yv, y + i);
    yv += a * xv;
    FV_STORE(y + i, yv);
  }
  for (; i < n; i++) y[i] += a * x[i];
}

/* ||(alpha, x)|| (n values), without overflow or underflow in the squares
 * (scaled by the largest magnitude where the plain sum ss = ||x||^2 is out
 * of range); 0 when x is zero, whatever alpha */
static double fold_norm(double alpha, const double* x, int n, double ss) {
  if (ss >= 1e-280 && ss <= 1e280 && fabs(alpha) <= 1e140) return sqrt(alpha * alpha + ss);
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  if (s == 0) return 0;
  s = fmax(s, fabs(alpha));
  double t = (alpha / s) * (alpha / s);
  for (int i = 0; i < n; i++) t += (x[i] / s) * (x[i] / s);
  return s * sqrt(t);
}

/* the reflectors of a panel's columns k0 .. k0+pw-1 on those columns:
 * tau[kk] each, v in B's column, beta on T's diagonal */
DY_CLONES
static void fold_panel(int ns, int k0, int pw, double* restrict T, int m, double* restrict B, int ldb,
                       double* tau) {
  for (int kk = 0; kk < pw; kk++) {
    const int k = k0 + kk;
    double* v = B + (size_t)ldb * (size_t)k;
    const double alpha = T[k + (size_t)m * (size_t)k], nrm = fold_norm(alpha, v, ns, fold_dot(v, v, ns));
    tau[kk] = 0;
    if (nrm == 0) continue;   /* nothing below the diagonal: H = I */
    const double beta = alpha >= 0 ? -nrm : nrm;
    tau[kk] = (beta - alpha) / beta;
    const double sc = 1 / (alpha - beta);
    int i = 0;
    for (; i + FOLD_PW <= ns; i += FOLD_PW) {
      foldVec vv;
      FV_LOAD(vv, v + i);
      vv *= sc;
      FV_STORE(v + i, vv);
    }
    for (; i < ns; i++) v[i] *= sc;
    T[k + (size_t)m * (size_t)k] = beta;
    for (int j = k + 1; j < k0 + pw; j++) {
      double* bj = B + (size_t)ldb * (size_t)j;
      const double w = tau[kk] * (T[k + (size_t)m * (size_t)j] + fold_dot(v, bj, ns));
      T[k + (size_t)m * (size_t)j] -= w;
      fold_axpy(bj, -w, v, ns);
    }
  }
}

DY_CLONES
static void ts_fold(int ns, int m, double* restrict T, double* restrict B, int ldb, double* restrict vp) {
  const int nsp = (ns + FOLD_PW - 1) / FOLD_PW * FOLD_PW;
  for (int k0 = 0; k0 < m; k0 += FOLD_PW) {
    const int pw = m - k0 < FOLD_PW ? m - k0 : FOLD_PW;
    double tau[FOLD_PW], F[FOLD_PW][FOLD_PW] = {{0}};
    fold_panel(ns, k0, pw, T, m, B, ldb, tau);
    if (k0 + pw >= m) break;
    /* the panel's vectors, zero-padded to FOLD_PW columns of nsp rows, and F */
    for (int c = 0; c < FOLD_PW; c++) {
      double* d = vp + (size_t)nsp * (size_t)c;
      if (c < pw) memcpy(d, B + (size_t)ldb * (size_t)(k0 + c), sizeof(double) * (size_t)ns);
      memset(d + (c < pw ? ns : 0), 0, sizeof(double) * (size_t)(c < pw ? nsp - ns : nsp));
    }
    for (int i = 0; i < pw; i++) {   /* F(0:i, i) = -tau_i F(0:i, 0:i) V(:, 0:i)^T v_i */
      double g[FOLD_PW];
      for (int l = 0; l < i; l++) g[l] = -tau[i] * fold_dot(vp + (size_t)nsp * (size_t)l, vp + (size_t)nsp * (size_t)i, ns);
      for (int r = 0; r < i; r++) {
        double sum = 0;
        for (int l = r; l < i; l++) sum += F[r][l] * g[l];
        F[r][i] = sum;
      }
      F[i][i] = tau[i];
    }
    for (int j = k0 + pw; j < m; j += 2) {
      const int two = j + 1 < m;
      double* b1 = B + (size_t)ldb * (size_t)j;
      double* b2 = two ? b1 + ldb : b1;
      double* t1 = T + (size_t)m * (size_t)j + (size_t)k0;
      double* t2 = two ? t1 + m : t1;
      foldVec a1[FOLD_PW], a2[FOLD_PW];
      #pragma GCC unroll 8
      for (int c = 0; c < FOLD_PW; c++) a1[c] = a2[c] = (foldVec){0};
      int i = 0;
      for (; i + FOLD_PW <= ns; i += FOLD_PW) {
        foldVec x1, x2, vc;
        FV_LOAD(x1, b1 + i); FV_LOAD(x2, b2 + i);
        #pragma GCC unroll 8
        for (int c = 0; c < FOLD_PW; c++) {
          FV_LOAD(vc, vp + (size_t)nsp * (size_t)c + (size_t)i);
          a1[c] += vc * x1;
          a2[c] += vc * x2;
        }
      }
      double w1[FOLD_PW], w2[FOLD_PW], u1[FOLD_PW], u2[FOLD_PW];
      for (int c = 0; c < FOLD_PW; c++) {
        double s1 = fv_sum(&a1[c]), s2 = fv_sum(&a2[c]);
        for (int r = i; r < ns; r++) {
          s1 += vp[(size_t)nsp * (size_t)c + (size_t)r] * b1[r];
          s2 += vp[(size_t)nsp * (size_t)c + (size_t)r] * b2[r];
        }
        w1[c] = c < pw ? s1 + t1[c] : 0;
        w2[c] = c < pw ? s2 + t2[c] : 0;
      }
      for (int c = 0; c < FOLD_PW; c++) {   /* u = F^T w */
        double s1 = 0, s2 = 0;
        for (int r = 0; r <= c; r++) { s1 += F[r][c] * w1[r]; s2 += F[r][c] * w2[r]; }
        u1[c] = s1; u2[c] = s2;
      }
      for (int c = 0; c < pw; c++) {
        t1[c] -= u1[c];
        if (two) t2[c] -= u2[c];
      }
      for (i = 0; i + FOLD_PW <= ns; i += FOLD_PW) {
        foldVec x1, x2, vc;
        FV_LOAD(x1, b1 + i); FV_LOAD(x2, b2 + i);
        #pragma GCC unroll 8
        for (int c = 0; c < FOLD_PW; c++) {
          FV_LOAD(vc, vp + (size_t)nsp * (size_t)c + (size_t)i);
          x1 -= vc * u1[c];
          x2 -= vc * u2[c];
        }
        FV_STORE(b1 + i, x1);
        if (two) FV_STORE(b2 + i, x2);
      }
      for (; i < ns; i++) {
        double s1 = b1[i], s2 = b2[i];
        for (int c = 0; c < FOLD_PW; c++) {
          s1 -= vp[(size_t)nsp * (size_t)c + (size_t)i] * u1[c];
          s2 -= vp[(size_t)nsp * (size_t)c + (size_t)i] * u2[c];
        }
        b1[i] = s1;
        if (two) b2[i] = s2;
      }
    }
  }
}

_Static_assert(FOLD_PW == 8, "DYI_FOLD_WORK (estimate.h) sizes a panel of 8");
void dyi_qr_fold(int ns, int m, double* T, double* B, int ldb, double* work) { ts_fold(ns, m, T, B, ldb, work); }

/* The workspace. Every array of an estimator is in the one allocation of
 * dyi_est_make (EST_ARRAYS), after the dyiEstim and this struct. */
struct dyiEstimWork_ {
  int* np;                  /* columns of joint j (n) */
  int** cols;               /* their indices (n, each into colidx: p) */
  int* colidx;              /* (n x p) */
  double** T;               /* joint triangles, (np+1) x (np+1) col-major (n) */
  double** T0;              /* IRLS: unweighted triangles of the OLS pass (n) */
  double** Tf;              /* opt.folds > 1: the parts' joint triangles, part f joint j
                               at f*n + j, as T (folds*n) */
  long* rowsf;              /* their equations (folds*n) */
  double* tri;              /* the storage of T, T0 and Tf, each on an aligned boundary */
  double *blk, *tq, *work;  /* a block of one joint's rows; dtpqrt's T and work (merges) */
  double* vp;               /* ts_fold's panel of reflectors (DYI_FOLD_WORK(ldb)) */
  double* Raug;             /* the global triangle of the last solve, (p+1) x (p+1) */
  double *Rs, *sv, *vt, *svdw;  /* R (D), its singular values, V^T, dgesvd's work */
  double* res;              /* IRLS: a block's residuals, then its row weights (n*block) */
  double* cn;               /* column norms of R (p) */
  double* prev;             /* IRLS: beta of the previous pass (p) */
  int ldb, lwork;
  long* hist;               /* IRLS residual histograms (n x DYI_NHIST) */
  double* hist_ref;         /* their reference scales (n) */
  double *Ab, *yb, *rwb;    /* block buffers for dyi_est_run (n*block x p, n*block x 2) */
  int tu_is_T0;             /* per-joint residuals from T0 (IRLS) */
  void* mem;                /* the one allocation (dyiEstim at its first EST_ALIGN boundary) */
  size_t membytes;          /* its size (dy_free_fresh) */
  unsigned char* own_mask;  /* dyi_est_own: mask and names to free */
  const char** own_names;
};

/* Every array of an estimator, (array, number of elements): the one list
 * dyi_est_make sizes and places; each starts on an EST_ALIGN boundary.
 * ntri: doubles of the triangles (each rounded to EST_ALIGN). */
#define EST_ARRAYS(X) \
  X(w->np, n) X(w->cols, n) X(w->colidx, (size_t)n * p) \
  X(w->T, n) X(w->T0, n) X(w->Tf, nf) X(w->rowsf, nf) X(w->tri, ntri) \
  X(e->beta, p) X(e->std, p) X(e->rel_std_pct, p) X(e->cov, (size_t)p * p) \
  X(w->blk, (size_t)ldb * P1) X(w->vp, DYI_FOLD_WORK(ldb)) X(w->tq, 32 * P1) X(w->work, 32 * P1) X(w->Raug, P1 * P1) \
  X(w->Rs, P1 * P1) X(w->sv, P1) X(w->vt, P1 * P1) X(w->svdw, lwork) \
  X(w->res, nbs) X(w->cn, p) X(w->prev, p) \
  X(w->hist, (size_t)n * DYI_NHIST) X(w->hist_ref, n) \
  X(w->Ab, nbs * p) X(w->yb, nbs) X(w->rwb, nbs)
#define EST_ALIGN 64
#define EST_ROUND(bytes) (((bytes) + EST_ALIGN - 1) / EST_ALIGN * EST_ALIGN)
/* doubles of a triangle of order m1, rounded to whole EST_ALIGN */
#define EST_TRI(m1) (EST_ROUND(sizeof(double) * (m1) * (m1)) / sizeof(double))

void dyi_est_free(dyiEstim* e) {
  if (!e) return;
  free(e->ws->own_mask);
  free(e->ws->own_names);
  dy_free_fresh(e->ws->mem, e->ws->membytes);   /* the one allocation */
}

void dyi_est_own(dyiEstim* e, unsigned char* mask, const char** names) {
  e->ws->own_mask = mask;
  e->ws->own_names = names;
}

dyiEstim* dyi_est_make(int n, int p, const dyiEstOpt* opt, char* err, int errsz) {
  if (n < 1 || n > DY_MAXJ || p < 1) {
    snprintf(err, (size_t)errsz, "estimator: bad size n=%d p=%d", n, p);
    return NULL;
  }
  dyiEstOpt o;
  if (opt) o = *opt; else dyi_est_defaults(&o);
  if (o.block < 1) o.block = 256;
  if (o.folds > 1) { if (o.fold_len < 1) o.fold_len = 32; }
  else o.folds = 0;
  /* the sizes: columns per joint from the mask, then the triangles */
  const size_t bs = (size_t)o.block, P1 = (size_t)p + 1, nbs = (size_t)n * bs;
  const size_t nf = (size_t)o.folds * (size_t)n, ldb = bs > P1 ? bs : P1;
  int npj[DY_MAXJ];
  size_t ntri = 0;
  for (int j = 0; j < n; j++) {
    npj[j] = 0;
    for (int k = 0; k < p; k++) npj[j] += !o.mask || o.mask[(size_t)j * (size_t)p + (size_t)k];
    ntri += (2 + (size_t)o.folds) * EST_TRI((size_t)npj[j] + 1);
  }
  /* SVD workspace: query once for the largest call (V^T of a p x p matrix;
   * a query reads none of the arrays) */
  double q = 0, dummy[1] = {0};
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', p, p, dummy, p, dummy, NULL, 1, dummy, p, &q, -1))
    q = 5.0 * (double)p * (double)p;
  const size_t lwork = (size_t)q + 5 * (size_t)p;
  /* one allocation: the estimator, its workspace, then the arrays */
  dyiEstim* e = NULL;
  dyiEstimWork* w = NULL;
  size_t bytes = EST_ROUND(sizeof *e) + EST_ROUND(sizeof *w);
#define EST_SIZE_(arr, count) bytes += EST_ROUND(sizeof *(arr) * (size_t)(count));
  EST_ARRAYS(EST_SIZE_)
#undef EST_SIZE_
  /* zeroed fresh pages, faulted in where written: the block buffers of a
   * caller that folds rows by joint never are (calloc cleared reused heap
   * memory: 1.2 MB, 300 page faults per estimator of the Panda) */
  char* mem = dy_calloc_fresh(bytes + EST_ALIGN);
  if (!mem) {
    snprintf(err, (size_t)errsz, "estimator: out of memory (n=%d, p=%d)", n, p);
    return NULL;
  }
  char* blk = mem + (EST_ALIGN - (uintptr_t)mem % EST_ALIGN) % EST_ALIGN;
  e = (dyiEstim*)(void*)blk;
  blk += EST_ROUND(sizeof *e);
  w = (dyiEstimWork*)(void*)blk;
  blk += EST_ROUND(sizeof *w);
#define EST_PLACE_(arr, count) arr = (void*)blk; blk += EST_ROUND(sizeof *(arr) * (size_t)(count));
  EST_ARRAYS(EST_PLACE_)
#undef EST_PLACE_
  e->ws = w;
  w->mem = mem;
  w->membytes = bytes + EST_ALIGN;
  e->n = n; e->p = p;
  e->opt = o;
  w->ldb = (int)ldb;
  w->lwork = (int)lwork;
  double* t = w->tri;
  for (int j = 0; j < n; j++) {
    size_t m1 = (size_t)npj[j] + 1;
    int c = 0;
    w->cols[j] = w->colidx + (size_t)j * (size_t)p;
    for (int k = 0; k < p; k++)
      if (!o.mask || o.mask[(size_t)j * (size_t)p + (size_t)k]) w->cols[j][c++] = k;
    w->np[j] = c;
    w->T[j] = t; t += EST_TRI(m1);
    w->T0[j] = t; t += EST_TRI(m1);
  }
  for (size_t k = 0; k < nf; k++) { w->Tf[k] = t; t += EST_TRI((size_t)npj[k % (size_t)n] + 1); }
  return e;
}

void dyi_est_reset(dyiEstim* e) {
  dyiEstimWork* ws = e->ws;
  for (int j = 0; j < e->n; j++) {
    size_t m1 = (size_t)ws->np[j] + 1;
    memset(ws->T[j], 0, sizeof(double) * m1 * m1);
  }
  for (int k = 0; k < e->opt.folds * e->n; k++) {
    size_t m1 = (size_t)ws->np[k % e->n] + 1;
    memset(ws->Tf[k], 0, sizeof(double) * m1 * m1);
    ws->rowsf[k] = 0;
  }
  e->samples = 0;
  memset(e->rows_j, 0, sizeof e->rows_j);
}

/* the error for value v of joint j's column c (its torque: c = np_j) in
 * sample s of the block: -1 */
static int nonfinite(const dyiEstim* e, int j, int c, int s, double v, char* err, int errsz) {
  char nm[64];
  if (c < e->ws->np[j]) pname(e, e->ws->cols[j][c], nm, sizeof nm); else snprintf(nm, sizeof nm, "torque");
  snprintf(err, (size_t)errsz, "estimator: sample %ld, joint %d: non-finite %s (%g)", e->samples + s + 1, j + 1,
           nm, v);
  return -1;
}

/* b[s] *= rw[s] (rw NULL: 1), s < ns, all of them (loops without an exit,
 * vectorised); then the first s whose value is not finite, or -1 */
DY_CLONES DY_VECTORIZE
static int weigh_column(double* restrict b, const double* restrict rw, int ns) {
  int bad = 0;
  if (rw)
    for (int s = 0; s < ns; s++) {
      const double v = b[s] * rw[s];
      bad |= !(fabs(v) <= DBL_MAX);
      b[s] = v;
    }
  else
    for (int s = 0; s < ns; s++) bad |= !(fabs(b[s]) <= DBL_MAX);
  for (int s = 0; bad && s < ns; s++)
    if (!(fabs(b[s]) <= DBL_MAX)) return s;
  return -1;
}

/* Joint j's block B (ldb x (np_j + 1), its columns then the torque) of ns
 * rows, samples s0.. of the block being added, weighted in place by rw
 * (NULL: 1), checked finite and folded into the triangle T. 0 or -1 (a
 * non-finite value). */
static int fold_rows(dyiEstim* e, int j, double* B, int ldb, int ns, const double* rw, int s0, double* T,
                     char* err, int errsz) {
  for (int c = 0; c <= e->ws->np[j]; c++) {
    double* b = B + (size_t)ldb * (size_t)c;
    const int s = weigh_column(b, rw, ns);
    if (s >= 0) return nonfinite(e, j, c, s0 + s, b[s], err, errsz);
  }
  ts_fold(ns, e->ws->np[j] + 1, T, B, ldb, e->ws->vp);   /* [T; B] = Q [T'; 0] */
  return 0;
}

/* Samples s0 .. s0+ns-1 of joint j's rows (weighted by rw) and columns,
 * torque last, gathered into blk and folded into the triangle T
 * (fold_rows). 0 or -1 (a non-finite value). */
static int fold_joint(dyiEstim* e, int j, const double* A, int lda, const double* y, const double* rw,
                      int s0, int ns, double* T, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  const int n = e->n, pj = ws->np[j], ldb = ws->ldb;
  const int* cols = ws->cols[j];
  for (int c = 0; c <= pj; c++) {
    const double* a = c < pj ? A + (size_t)lda * (size_t)cols[c] + (size_t)j : y + j;
    double* b = ws->blk + (size_t)ldb * (size_t)c;
    for (int s = 0; s < ns; s++) {
      const size_t r = (size_t)(s0 + s) * (size_t)n;
      b[s] = rw ? a[r] * rw[r + (size_t)j] : a[r];
    }
  }
  return fold_rows(e, j, ws->blk, ldb, ns, NULL, s0, T, err, errsz);
}

int dyi_est_add(dyiEstim* e, const double* A, int lda, const double* y, int ns,
                const double* rw, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
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
    if (fold_joint(e, j, A, lda, y, rw, 0, ns, ws->T[j], err, errsz)) return -1;
    /* the parts: runs of consecutive samples in one part */
    for (int s0 = 0; s0 < ns && e->opt.folds > 1;) {
      long g = e->samples + s0, L = e->opt.fold_len;
      int f = (int)((g / L) % e->opt.folds), len = (int)(L - g % L);
      if (len > ns - s0) len = ns - s0;
      if (fold_joint(e, j, A, lda, y, rw, s0, len, ws->Tf[f * n + j], err, errsz)) return -1;
      for (int s = s0; s < s0 + len; s++) ws->rowsf[f * n + j] += !rw || rw[(size_t)s * (size_t)n + (size_t)j] != 0;
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

int dyi_est_add_joints(dyiEstim* e, double* const* B, int ldb, int ns, const double* const* rw,
                       char* err, int errsz) {
  if (ns <= 0) return 0;
  if (e->opt.folds > 1) {
    snprintf(err, (size_t)errsz, "estimator: rows by joint with parts kept (use dyi_est_add)");
    return -1;
  }
  for (int j = 0; j < e->n; j++) {
    if (!B[j]) continue;
    long used = ns;
    if (rw && rw[j]) {
      used = 0;
      for (int s = 0; s < ns; s++) used += rw[j][s] != 0;
      if (!used) continue;   /* no equation of joint j here: the triangle as it is (as dyi_est_add) */
    }
    if (fold_rows(e, j, B[j], ldb, ns, rw ? rw[j] : NULL, 0, e->ws->T[j], err, errsz)) return -1;
    e->rows_j[j] += used;
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
  const dyiEstimWork* ws = e->ws;
  double x[DY_MAXPAR];
  const double* T = ws->tu_is_T0 ? ws->T0[j] : ws->T[j];
  int pj = ws->np[j];
  double* xs = x;
  double* heap = NULL;
  if (pj > (int)(sizeof x / sizeof x[0])) xs = heap = malloc(sizeof(double) * (size_t)pj);
  if (!xs) { *rss = *yy = NAN; return; }
  for (int c = 0; c < pj; c++) xs[c] = beta[ws->cols[j][c]];
  tri_rss(T, pj + 1, xs, rss, yy);
  free(heap);
}

/* name the weakest combination: components of the last right singular
 * vector (rows of vt) above 0.1, largest first, the first one positive.
 * Components of one size to 1e-6 (such as the two of a pair the data tell
 * apart not at all, 0.71 each) come in parameter order: which of them
 * round-off makes larger, and the vector's sign, are not the data's */
static void weakest(const dyiEstim* e, char* buf, int sz) {
  int p = e->p, used[8], nu = 0, len = 0;
  double sign = 1;
  buf[0] = 0;
  for (; nu < 5; nu++) {
    int best = -1;
    double bv = 0.1;
    for (int k = 0; k < p; k++) {
      int skip = 0;
      for (int u = 0; u < nu; u++) skip |= used[u] == k;
      double v = fabs(e->ws->vt[(p - 1) + (size_t)p * (size_t)k]);
      if (!skip && v > bv && (best < 0 || v > bv * (1 + 1e-6))) { bv = v; best = k; }
    }
    if (best < 0) break;
    used[nu] = best;
    const double v = e->ws->vt[(p - 1) + (size_t)p * (size_t)best];
    if (!nu && v < 0) sign = -1;
    char nm[64];
    pname(e, best, nm, sizeof nm);
    len += snprintf(buf + len, (size_t)(sz - len > 0 ? sz - len : 0), "%s%+.2f*%s", nu ? " " : "", sign * v, nm);
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
  dyiEstimWork* ws = e->ws;
  int n = e->n, p = e->p, P1 = p + 1, ldb = ws->ldb;
  memset(ws->Raug, 0, sizeof(double) * (size_t)P1 * (size_t)P1);
  for (int j = 0; j < n; j++) {
    int pj = ws->np[j], m1 = pj + 1;
    double w = wj ? wj[j] : 1.0;
    for (int c = 0; c < P1; c++) memset(ws->blk + (size_t)ldb * (size_t)c, 0, sizeof(double) * (size_t)m1);
    for (int c = 0; c < m1; c++) {
      int gc = c < pj ? ws->cols[j][c] : p;
      for (int r = 0; r <= c; r++)
        ws->blk[r + (size_t)ldb * (size_t)gc] = w * ws->T[j][r + (size_t)m1 * (size_t)c];
    }
    int nb = P1 < 32 ? P1 : 32;
    lapack_int info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m1, P1, 0, nb, ws->Raug, P1, ws->blk,
                                          ldb, ws->tq, nb, ws->work);
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
  const double* R = e->ws->Raug;
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
  const double* R = e->ws->Raug;
  for (int k = 0; k < p; k++)
    for (int r = 0; r < p; r++)
      e->ws->Rs[r + (size_t)p * (size_t)k] = r <= k ? R[r + (size_t)P1 * (size_t)k] / (cn ? cn[k] : 1) : 0;
}

/* cond = s_max / s_min of R (as given) and cond_scaled of R D, whose
 * right singular vectors (vt) name the weakest combination when
 * cond_scaled exceeds max_cond */
static int conditions(dyiEstim* e, const double* cn, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  int p = e->p;
  scaled_R(e, NULL);
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', p, p, ws->Rs, p, ws->sv, NULL, 1, NULL, 1,
                          ws->svdw, ws->lwork)) {
    snprintf(err, (size_t)errsz, "estimator: SVD did not converge");
    return -1;
  }
  e->cond = ws->sv[p - 1] > 0 ? ws->sv[0] / ws->sv[p - 1] : INFINITY;
  scaled_R(e, cn);
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', p, p, ws->Rs, p, ws->sv, NULL, 1, ws->vt, p,
                          ws->svdw, ws->lwork)) {
    snprintf(err, (size_t)errsz, "estimator: SVD did not converge");
    return -1;
  }
  e->cond_scaled = ws->sv[p - 1] > 0 ? ws->sv[0] / ws->sv[p - 1] : INFINITY;
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
  dyiEstimWork* ws = e->ws;
  int p = e->p, P1 = p + 1;
  scaled_R(e, cn);   /* dgesvd destroyed it */
  memcpy(e->beta, ws->Raug + (size_t)P1 * (size_t)p, sizeof(double) * (size_t)p);
  if (LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'U', 'N', 'N', p, 1, ws->Rs, p, e->beta, p)) {
    snprintf(err, (size_t)errsz, "estimator: singular triangular factor");
    return -1;
  }
  for (int k = 0; k < p; k++) e->beta[k] /= cn[k];
  e->sigma2 = rho * rho / (double)(rows - p);
  if (LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', p, ws->Rs, p)) {
    snprintf(err, (size_t)errsz, "estimator: singular triangular factor");
    return -1;
  }
  for (int a = 0; a < p; a++)
    for (int b = a; b < p; b++) {
      double s = 0;
      for (int c = b; c < p; c++) s += ws->Rs[a + (size_t)p * (size_t)c] * ws->Rs[b + (size_t)p * (size_t)c];
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
  if (e->cond_scaled > e->opt.warn_cond) {   /* scaled: the unscaled one follows the parameters' units */
    snprintf(msg, sizeof msg, "poor excitation: condition number %.4g after column scaling > %.4g (%.4g "
             "unscaled)", e->cond_scaled, e->opt.warn_cond, e->cond);
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
  double rho = e->ws->Raug[p + (size_t)(p + 1) * (size_t)p];
  if (!isfinite(rho)) {
    snprintf(err, (size_t)errsz, "estimator: non-finite values in the data");
    return -1;
  }
  double* cn = e->ws->cn;
  int rc = column_norms(e, cn, err, errsz) || conditions(e, cn, err, errsz) ||
           solve_beta(e, cn, rho, rows, err, errsz) ? -1 : 0;
  if (!rc) {
    joint_residuals(e, rows);
    solve_warnings(e);
  }
  return rc;
}

/* one pass over the source: fold every block, with IRLS row weights when
 * irls (residuals of e->beta, scales s[j], histograms filled) */
static int pass(dyiEstim* e, dyiRowSource* src, int irls, const double* s, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  int n = e->n, p = e->p, bs = e->opt.block, lda = n * bs;
  dyi_est_reset(e);
  if (irls) {
    memset(ws->hist, 0, sizeof(long) * (size_t)n * DYI_NHIST);
    e->downweighted = 0;
    e->weight_min = 1;
  }
  for (;;) {
    for (int i = 0; i < n * bs; i++) ws->rwb[i] = 1;
    int ns = src->fill(src->ctx, ws->Ab, lda, ws->yb, ws->rwb, bs, err, errsz);
    if (ns < 0) return -1;
    if (ns == 0) break;
    if (ns > bs) {
      snprintf(err, (size_t)errsz, "estimator: source returned %d samples > %d", ns, bs);
      return -1;
    }
    const double* rw = ws->rwb;
    if (irls) {
      int m = n * ns;
      double* r = ws->res;
      memcpy(r, ws->yb, sizeof(double) * (size_t)m);
      for (int k = 0; k < p; k++) {
        const double* a = ws->Ab + (size_t)lda * (size_t)k;
        double b = e->beta[k];
        for (int i = 0; i < m; i++) r[i] -= a[i] * b;
      }
      for (int i = 0; i < m; i++) {
        int j = i % n;
        if (ws->rwb[i] == 0) { r[i] = 0; continue; }
        double u = fabs(r[i]) / s[j], w = u > e->opt.huber_c ? e->opt.huber_c / u : 1.0;
        if (w < 1) e->downweighted++;
        if (w < e->weight_min) e->weight_min = w;
        double x = fabs(r[i]) / ws->hist_ref[j];
        int bin = x > 0 ? (int)floor((log10(x) - HIST_LO) * HIST_PER_DECADE) : 0;
        if (bin < 0) bin = 0;
        if (bin >= DYI_NHIST) bin = DYI_NHIST - 1;
        ws->hist[(size_t)j * DYI_NHIST + (size_t)bin]++;
        r[i] = ws->rwb[i] * sqrt(w) / s[j];
      }
      rw = r;
    }
    if (dyi_est_add(e, ws->Ab, lda, ws->yb, ns, rw, err, errsz)) return -1;
  }
  e->iterations++;
  return 0;
}

/* median of |r| of joint j from its histogram (linear within the bin) */
static double hist_median(const dyiEstim* e, int j) {
  const dyiEstimWork* ws = e->ws;
  const long* h = ws->hist + (size_t)j * DYI_NHIST;
  long tot = 0;
  for (int b = 0; b < DYI_NHIST; b++) tot += h[b];
  if (!tot) return 0;
  double half = 0.5 * (double)tot, acc = 0;
  for (int b = 0; b < DYI_NHIST; b++) {
    if (acc + (double)h[b] >= half) {
      double f = h[b] ? (half - acc) / (double)h[b] : 0;
      double lg = HIST_LO + ((double)b + f) / HIST_PER_DECADE;
      return ws->hist_ref[j] * pow(10, lg);
    }
    acc += (double)h[b];
  }
  return ws->hist_ref[j];
}

/* OLS, then WLS's per-joint weights, from the triangles folded in */
static int finish(dyiEstim* e, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  int n = e->n;
  if (dyi_est_solve(e, NULL, err, errsz)) return -1;
  /* OLS per-joint noise std: ||r_j||^2 / (N - p_j) */
  for (int j = 0; j < n; j++) {
    double rss, yy;
    long dof = e->rows_j[j] - ws->np[j];
    dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
    if (dof <= 0) {
      snprintf(err, (size_t)errsz, "not enough data: %ld equations for the %d parameters of joint %d",
               e->rows_j[j], ws->np[j], j + 1);
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
      s = sqrt(rss / (double)(e->rows_j[j] - ws->np[j]));
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
  e->ws->tu_is_T0 = 0;
  return finish(e, err, errsz);
}

const double* dyi_est_triangle(const dyiEstim* e, int j) {
  return e->ws->tu_is_T0 ? e->ws->T0[j] : e->ws->T[j];
}

/* [Td; T] = Q [Td'; 0] for joint j's triangles: T folded into Td, which
 * holds rows_d equations so far (a copy when none). 0 or -1. */
static int merge_into(dyiEstim* e, int j, double* Td, long rows_d, const double* T, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  int m1 = ws->np[j] + 1, nb = m1 < 32 ? m1 : 32;
  if (!rows_d) {
    memcpy(Td, T, sizeof(double) * (size_t)m1 * (size_t)m1);
  } else {
    /* [T_e; T] = Q [T'; 0]: the QR of the two triangles stacked (TSQR) */
    for (int c = 0; c < m1; c++)
      for (int r = 0; r < m1; r++)
        ws->blk[r + (size_t)ws->ldb * (size_t)c] = r <= c ? T[r + (size_t)m1 * (size_t)c] : 0;
    lapack_int info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m1, m1, 0, nb, Td, m1, ws->blk,
                                          ws->ldb, ws->tq, nb, ws->work);
    if (info) {
      snprintf(err, (size_t)errsz, "estimator: dtpqrt failed (info %d)", (int)info);
      return -1;
    }
  }
  return 0;
}

int dyi_est_merge_tri(dyiEstim* e, int j, const double* T, long rows, char* err, int errsz) {
  if (!rows) return 0;   /* nothing folded: exactly no change */
  if (merge_into(e, j, e->ws->T[j], e->rows_j[j], T, err, errsz)) return -1;
  e->rows_j[j] += rows;
  return 0;
}

int dyi_est_merge(dyiEstim* dst, const dyiEstim* src, char* err, int errsz) {
  if (dst->n != src->n || dst->p != src->p) {
    snprintf(err, (size_t)errsz, "estimator: merging %d x %d into %d x %d", src->n, src->p, dst->n, dst->p);
    return -1;
  }
  for (int j = 0; j < dst->n; j++) {
    if (dst->ws->np[j] != src->ws->np[j]) {
      snprintf(err, (size_t)errsz, "estimator: joint %d has %d columns here and %d in the other", j + 1,
               dst->ws->np[j], src->ws->np[j]);
      return -1;
    }
    if (dyi_est_merge_tri(dst, j, dyi_est_triangle(src, j), src->rows_j[j], err, errsz)) return -1;
  }
  if (dst->opt.folds > 1 && dst->opt.folds == src->opt.folds)
    for (int k = 0; k < dst->opt.folds * dst->n; k++) {
      if (!src->ws->rowsf[k]) continue;
      if (merge_into(dst, k % dst->n, dst->ws->Tf[k], dst->ws->rowsf[k], src->ws->Tf[k], err, errsz)) return -1;
      dst->ws->rowsf[k] += src->ws->rowsf[k];
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
      if (dyi_est_merge_tri(t, j, e->ws->Tf[g * e->n + j], e->ws->rowsf[g * e->n + j], err, errsz)) {
        dyi_est_free(t);
        return NULL;
      }
  }
  t->samples = 1;   /* counted by rows */
  if (dyi_est_finish(t, err, errsz)) { dyi_est_free(t); return NULL; }
  return t;
}

double dyi_est_part_rss(const dyiEstim* e, int f, int j, const double* beta) {
  const dyiEstimWork* ws = e->ws;
  double x[DY_MAXPAR], rss, yy;
  int pj = ws->np[j];
  if (e->opt.folds < 2 || pj > (int)(sizeof x / sizeof x[0])) return NAN;
  for (int c = 0; c < pj; c++) x[c] = beta[ws->cols[j][c]];
  tri_rss(ws->Tf[f * e->n + j], pj + 1, x, &rss, &yy);
  return rss;
}

int dyi_est_run(dyiEstim* e, dyiRowSource* src, char* err, int errsz) {
  dyiEstimWork* ws = e->ws;
  e->iterations = 0;
  ws->tu_is_T0 = 0;
  if (pass(e, src, 0, NULL, err, errsz)) return -1;
  if (e->opt.fold_only) return 0;
  if (finish(e, err, errsz)) return -1;
  if (e->opt.method != DYI_IRLS) return 0;
  int n = e->n;
  /* IRLS: keep the OLS triangles for the unweighted residual statistics */
  for (int j = 0; j < n; j++) {
    size_t m1 = (size_t)ws->np[j] + 1;
    memcpy(ws->T0[j], ws->T[j], sizeof(double) * m1 * m1);
  }
  double s[DY_MAXJ];
  double* prev = ws->prev;
  int converged = 0;
  /* scales below 1e-9 of the torque's RMS are round-off (exact data):
   * Huber weights there would only reweight rounding errors */
  double sfloor[DY_MAXJ];
  for (int j = 0; j < n; j++) {
    double rss, yy;
    dyi_est_joint_rss(e, j, e->beta, &rss, &yy);
    sfloor[j] = 1e-9 * sqrt(yy / (double)(e->rows_j[j] ? e->rows_j[j] : 1));
    if (!(sfloor[j] > 0)) sfloor[j] = 1e-300;
    s[j] = fmax(e->sigma_j[j], sfloor[j]);
    ws->hist_ref[j] = s[j];
  }
  for (int it = 0; it < e->opt.irls_maxit; it++) {
    memcpy(prev, e->beta, sizeof(double) * (size_t)e->p);
    if (src->rewind(src->ctx, err, errsz)) return -1;
    if (pass(e, src, 1, s, err, errsz)) return -1;
    ws->tu_is_T0 = 1;
    if (dyi_est_solve(e, NULL, err, errsz)) return -1;
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
  return 0;
}

/* ------------------------------------------- the triangles, read out */

const double* dyi_est_raug(const dyiEstim* e, int* ld) {
  if (ld) *ld = e->p + 1;
  return e->ws->Raug;
}

/* ||Raug e_c||^2 over rows 0..c (the upper triangle) */
static double raug_colsq(const dyiEstim* e, int c) {
  const double* R = e->ws->Raug + (size_t)(e->p + 1) * (size_t)c;
  double s = 0;
  for (int i = 0; i <= c; i++) s += R[i] * R[i];
  return s;
}

double dyi_est_rho2(const dyiEstim* e) {
  double rho = e->ws->Raug[e->p + (size_t)(e->p + 1) * (size_t)e->p];
  return rho * rho;
}

double dyi_est_yy(const dyiEstim* e) { return raug_colsq(e, e->p); }

double dyi_est_colsq(const dyiEstim* e, int k) { return raug_colsq(e, k); }

const int* dyi_est_cols(const dyiEstim* e, int j, int* np) {
  if (np) *np = e->ws->np[j];
  return e->ws->cols[j];
}

int dyi_est_block_buffers(dyiEstim* e, double** A, double** y, double** rw) {
  *A = e->ws->Ab;
  *y = e->ws->yb;
  *rw = e->ws->rwb;
  return e->n * e->opt.block;
}

/* ------------------------------------ how well each parameter is identified */

void dyi_est_scales(const dyiEstim* e, double* scale) {
  const int p = e->p;
  double yy = 0;
  for (int k = 0; k < p; k++) scale[k] = 0;   /* ||Y_k||^2 first */
  for (int j = 0; j < e->n; j++) {
    const double* T = dyi_est_triangle(e, j);
    int q;
    const int* cols = dyi_est_cols(e, j, &q);
    const int Q1 = q + 1;
    if (!e->rows_j[j]) continue;
    for (int c = 0; c <= q; c++) {
      double s2 = 0;
      for (int i = 0; i <= c; i++) s2 += T[i + (size_t)Q1 * (size_t)c] * T[i + (size_t)Q1 * (size_t)c];
      if (c < q) scale[cols[c]] += s2;
      else yy += s2;
    }
  }
  for (int k = 0; k < p; k++) scale[k] = scale[k] > 0 ? sqrt(yy / scale[k]) : INFINITY;
}

dyiIdClass dyi_ident_class(double value, double std, double scale) {
  if (isnan(std)) return DYI_ID_BOUND;
  double rel = value != 0 ? 100 * std / fabs(value) : INFINITY;
  if (!(rel > DYI_ID_RELSTD)) return DYI_ID_FINE;
  return std > DYI_ID_TINY_FRAC * scale ? DYI_ID_POOR : DYI_ID_TINY;
}

/* ------------------------------------------------- the structural mask */

/* can full parameter k (model.h order) reach the torque of joint j?
 * Link k's wrench is carried toward the base (joints 1..k); joint k's
 * parameters act on joint k only. */

void dyi_base_mask(const dyModel* m, const dyiBase* b, unsigned char* mask) {
  int n = m->n, nb = b->nb, np = b->npar;
  double pmax = 0;
  for (long k = 0; k < (long)np * nb; k++) pmax = fmax(pmax, fabs(b->P[k]));
  memset(mask, 0, (size_t)n * (size_t)nb);
  for (int c = 0; c < nb; c++)
    for (int k = 0; k < np; k++) {
      if (fabs(b->P[(size_t)k * (size_t)nb + (size_t)c]) <= DYI_P_ZERO * pmax) continue;
      for (int j = 0; j < n; j++) if (dy_par_reaches(m, k, j)) mask[(size_t)j * (size_t)nb + (size_t)c] = 1;
    }
}
