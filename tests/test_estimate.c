/* SPDX-License-Identifier: MIT */
/* dynid tests: the streaming least-squares estimator and the Fourier
 * trajectories, checked against independent computations.
 *
 * The regressor here is built independently of ident/regressor.c: Newton-
 * Euler is linear in the parameters, so column k of Y is
 *     dy_rnea(par = e_k) - dy_rnea(par = 0).
 * The base set is chosen numerically in the test (QR with column pivoting
 * of the stacked regressor over random states): independent columns ind,
 * Y_dep = Y_ind K, beta_true = pi_ind + K pi_dep (B pi_true).
 *
 * Checks:
 *  - Fourier q, qd, qdd agree with central differences; the bounds hold; the
 *    TRAJ writer round-trips exactly;
 *  - noise-free: the base parameters are recovered to 1e-8 (random chains,
 *    revolute/prismatic, with and without friction);
 *  - streaming QR vs one dgeqrf of the whole stacked matrix: beta, residual,
 *    std agree to 1e-10; cond agrees with the SVD of the tall matrix;
 *    per-joint RMS agrees with residuals computed row by row; rho^2,
 *    ||y||^2, ||A e_k||^2 and the scales ||y|| / ||A e_k|| read from the
 *    triangles agree with the rows; each joint's columns are its mask's;
 *  - noisy data: normalised errors (beta - beta_true)/std over many
 *    parameters have mean ~0 and variance ~1, >= 95 % within 3 std;
 *  - std agrees with the spread over 50 noise draws;
 *  - WLS with unequal joint noise: sigma_j recovered, smaller std than OLS;
 *    the weighted triangle's ||W y||^2 and rho^2; the scales as OLS's;
 *  - IRLS resists outliers that bend OLS;
 *  - rank deficiency is an error naming parameters; a zero column too;
 *  - 10^6 samples streamed in bounded memory (peak RSS);
 *  - rows given by joint (dyi_est_add_joints) fold into the triangles
 *    dyi_est_add makes of the same rows, bit for bit, and a value infinite
 *    once weighted (by joint) or a NaN torque (gathered) is an error naming
 *    its sample and joint;
 *  - the fold itself (the estimator's own Householder panels) against
 *    LAPACK's dtpqrt on the same blocks: 1 to 71 columns (within, at and
 *    across its panels of 8), 1 to 256 rows a block, values near 1e-170
 *    and 1e170 (squares out of range), a zero column: the same triangle,
 *    diagonal signs included, to 1e-12 of its largest entry. */
#include "testmodels.h"
#include "teststats.h"
#include "core/dynamics.h"
#include "ident/estimate.h"
#include "ident/traj.h"
#include "core/io.h"
#include <lapacke.h>
#include <string.h>
#include <sys/resource.h>

/* ------------------------------------------------ test regressor, base set */

typedef struct {
  int n, npar, nb;     /* npar: columns used (10n, or 14n with friction) */
  int ind[14 * DY_MAXJ];
  double beta_true[14 * DY_MAXJ];
  unsigned char mask[DY_MAXJ * 14 * DY_MAXJ];
} tbase;

/* numerical base set: dgeqp3 of the regressor stacked over random states */
static void make_base(const dyModel* m, dyData* d, int friction, tbase* b) {
  int n = m->n, npar = (friction ? 14 : 10) * n, ns = 3 * npar / n + 20, rows = ns * n;
  double* A = malloc(sizeof(double) * (size_t)rows * (size_t)(14 * n));
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  for (int s = 0; s < ns; s++) {
    th_random_state(n, q, qd, qdd);
    th_ne_regressor(m, d, dy_npar(m), q, qd, qdd, A + (size_t)s * (size_t)n, rows);
  }
  /* friction: the joint columns (IA FV FC FO) follow the link ones */
  int jp[14 * DY_MAXJ];
  double tau[14 * DY_MAXJ];
  memset(jp, 0, sizeof jp);
  LAPACKE_dgeqp3(LAPACK_COL_MAJOR, rows, npar, A, rows, jp, tau);
  int r = 0;
  while (r < npar && fabs(A[r + (size_t)rows * (size_t)r]) > 1e-9 * fabs(A[0])) r++;
  b->n = n; b->npar = npar; b->nb = r;
  /* K = R11^-1 R12 ; beta = pi_ind + K pi_dep */
  double* K = malloc(sizeof(double) * (size_t)r * (size_t)(npar - r + 1));
  for (int c = 0; c < npar - r; c++)
    for (int i = 0; i < r; i++) K[i + (size_t)r * (size_t)c] = A[i + (size_t)rows * (size_t)(r + c)];
  LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'U', 'N', 'N', r, npar - r, A, rows, K, r);
  for (int i = 0; i < r; i++) {
    b->ind[i] = jp[i] - 1;
    double s = m->par[jp[i] - 1];
    for (int c = 0; c < npar - r; c++) s += K[i + (size_t)r * (size_t)c] * m->par[jp[r + c] - 1];
    b->beta_true[i] = s;
  }
  /* structural pattern: link k's parameters reach joints <= k, joint k's only joint k */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < r; i++) {
      int k = b->ind[i];
      int reach = k < 10 * n ? (k / 10 >= j) : ((k - 10 * n) / 4 == j);
      b->mask[j * r + i] = (unsigned char)reach;
    }
  free(K); free(A);
}

/* ------------------------------------------------ in-memory data and source */

typedef struct {
  int n, p, ns;     /* joints, columns, samples */
  double* A;        /* (n ns) x p column-major, leading dimension n ns */
  double* y0;       /* noise-free torque (n ns) */
  double* y;        /* torque used (n ns) */
  int pos;          /* source position (samples) */
} tdata;

static void make_data(const dyModel* m, dyData* d, const tbase* b, int ns, double period,
                      unsigned long long seed, tdata* t) {
  int n = m->n, np = dy_npar(m), rows = n * ns;
  dyiFourier f;
  char err[256];
  dyi_fourier_random(&f, m, 5, period, seed, err, sizeof err);
  t->n = n; t->p = b->nb; t->ns = ns; t->pos = 0;
  t->A = malloc(sizeof(double) * (size_t)rows * (size_t)b->nb);
  t->y0 = malloc(sizeof(double) * (size_t)rows);
  t->y = malloc(sizeof(double) * (size_t)rows);
  double* Y = malloc(sizeof(double) * (size_t)n * (size_t)np);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  double* par = malloc(sizeof(double) * (size_t)np);
  memcpy(par, m->par, sizeof(double) * (size_t)np);
  if (b->npar < np) memset(par + b->npar, 0, sizeof(double) * (size_t)(np - b->npar));
  for (int s = 0; s < ns; s++) {
    dyi_fourier_eval(&f, period * s / ns, q, qd, qdd);
    th_ne_regressor(m, d, dy_npar(m), q, qd, qdd, Y, n);
    dy_rnea(m, d, par, q, qd, qdd, tau);
    for (int i = 0; i < n; i++) {
      t->y0[s * n + i] = t->y[s * n + i] = tau[i];
      for (int c = 0; c < b->nb; c++)
        t->A[(size_t)(s * n + i) + (size_t)rows * (size_t)c] = Y[i + (size_t)n * (size_t)b->ind[c]];
    }
  }
  free(Y); free(par);
}

static void free_data(tdata* t) { free(t->A); free(t->y0); free(t->y); }

/* y = y0 + sigma_j N(0,1) */
static void add_noise(tdata* t, const double* sigma, unsigned long long seed) {
  unsigned long long s = seed;
  for (int r = 0; r < t->n * t->ns; r++) t->y[r] = t->y0[r] + sigma[r % t->n] * dyi_rng_gauss(&s);
}

static int mem_fill(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err,
                    int errsz) {
  (void)err; (void)errsz; (void)rw;
  tdata* t = ctx;
  int ns = t->ns - t->pos < maxs ? t->ns - t->pos : maxs, n = t->n, rows = n * t->ns;
  for (int c = 0; c < t->p; c++)
    memcpy(A + (size_t)lda * (size_t)c, t->A + (size_t)rows * (size_t)c + (size_t)t->pos * (size_t)n,
           sizeof(double) * (size_t)(ns * n));
  memcpy(y, t->y + (size_t)t->pos * (size_t)n, sizeof(double) * (size_t)(ns * n));
  t->pos += ns;
  return ns;
}

static int mem_rewind(void* ctx, char* err, int errsz) {
  (void)err; (void)errsz;
  ((tdata*)ctx)->pos = 0;
  return 0;
}

static int estimate(tdata* t, const tbase* b, dyiMethod method, int block, dyiEstim** out,
                    char* err, int errsz) {
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.method = method;
  o.block = block;
  o.mask = b->mask;
  *out = dyi_est_make(t->n, t->p, &o, err, errsz);
  if (!*out) return -1;
  dyiRowSource src = {t, mem_fill, mem_rewind};
  t->pos = 0;
  return dyi_est_run(*out, &src, err, errsz);
}

/* ------------------------------------------------------------ the tests */

/* the TRAJ writer's file of f (2 s at 50 Hz) parsed back: header, and every
 * sample exactly */
static void check_traj_file(const dyiFourier* f, const dyModel* m) {
  char path[] = "/tmp/dynid_test_trajXXXXXX", err[256];
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  int fd = mkstemp(path);
  FILE* fo = fdopen(fd, "w");
  CHECK(dyi_traj_write(fo, f, 2.0, 50.0) == 0, "traj write");
  fclose(fo);
  dyCsv* c = dy_csv_open(path, err, sizeof err);
  char** fl; int nf, rows = 0, exact = 1;
  CHECK(c && dy_csv_next(c, &fl, &nf, err, sizeof err) == 1 && nf == 1 + 3 * m->n &&
        !strcmp(fl[0], "t") && !strcmp(fl[1], "q1") && !strcmp(fl[nf - 1], "qdd5"), "traj header");
  while (c && dy_csv_next(c, &fl, &nf, err, sizeof err) == 1) {
    double t = (double)rows / 50.0, v;
    dyi_fourier_eval(f, t, q, qd, qdd);
    dy_csv_double(c, fl[0], 0, 0, &v, err, sizeof err);
    exact &= v == t;
    for (int j = 0; j < m->n; j++) {
      dy_csv_double(c, fl[1 + j], 1 + j, 0, &v, err, sizeof err); exact &= v == q[j];
      dy_csv_double(c, fl[1 + m->n + j], 1 + j, 0, &v, err, sizeof err); exact &= v == qd[j];
      dy_csv_double(c, fl[1 + 2 * m->n + j], 1 + j, 0, &v, err, sizeof err); exact &= v == qdd[j];
    }
    rows++;
  }
  CHECK(rows == 100 && exact, "traj file: %d rows, exact round trip %d", rows, exact);
  dy_csv_close(c);
  remove(path);
}

/* a random Fourier trajectory: derivatives, bounds, limits, period, file */
static void test_fourier(void) {
  dyModel* m = th_random_model(5, 0.3, 0.3, 0);
  m->jnt_qmin[1] = -0.5; m->jnt_qmax[1] = 1.5; m->jnt_qdmax[2] = 0.7; m->jnt_qddmax[3] = 3;
  dyiFourier f;
  char err[256];
  CHECK(dyi_fourier_random(&f, m, 6, 8.0, 42, err, sizeof err) == 0, "fourier_random: %s", err);
  CHECK(dyi_fourier_random(&f, m, 0, 8.0, 42, err, sizeof err) != 0, "0 harmonics rejected");
  dyi_fourier_random(&f, m, 6, 8.0, 42, err, sizeof err);
  /* derivatives: central differences, h = 1e-4: truncation h^2/6 |q'''| ~ 1e-8
   * of the amplitude-scaled derivative, round-off 1e-16/1e-4 = 1e-12 */
  double worst = 0, h = 1e-4, bmax = 0;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], qp[DY_MAXJ], qm[DY_MAXJ], vp[DY_MAXJ], vm[DY_MAXJ];
  int inbounds = 1, inlimits = 1;
  for (int k = 0; k < 400; k++) {
    double t = 0.02 * k + 0.013;
    dyi_fourier_eval(&f, t, q, qd, qdd);
    dyi_fourier_eval(&f, t + h, qp, vp, NULL);
    dyi_fourier_eval(&f, t - h, qm, vm, NULL);
    for (int j = 0; j < m->n; j++) {
      double dq, dqd, dqdd;
      dyi_fourier_bounds(&f, j, &dq, &dqd, &dqdd);
      bmax = fmax(bmax, dqdd);
      worst = fmax(worst, fabs((qp[j] - qm[j]) / (2 * h) - qd[j]) / (dqd + 1e-300));
      worst = fmax(worst, fabs((vp[j] - vm[j]) / (2 * h) - qdd[j]) / (dqdd + 1e-300));
      inbounds &= fabs(q[j] - f.q0[j]) <= dq * (1 + 1e-12) && fabs(qd[j]) <= dqd * (1 + 1e-12) &&
                  fabs(qdd[j]) <= dqdd * (1 + 1e-12);
      inlimits &= q[j] >= m->jnt_qmin[j] && q[j] <= m->jnt_qmax[j] &&
                  fabs(qd[j]) <= m->jnt_qdmax[j] && fabs(qdd[j]) <= m->jnt_qddmax[j];
    }
  }
  CHECK(worst < 1e-6, "Fourier derivatives vs central differences: %.3g", worst);
  CHECK(inbounds, "Fourier bounds hold");
  CHECK(inlimits, "random Fourier trajectory within the joint limits");
  /* periodic */
  dyi_fourier_eval(&f, 1.234, q, qd, qdd);
  dyi_fourier_eval(&f, 1.234 + 8.0, qp, vp, vm);
  double per = 0;
  for (int j = 0; j < m->n; j++) per = fmax(per, fabs(qp[j] - q[j]) + fabs(vp[j] - qd[j]) + fabs(vm[j] - qdd[j]));
  CHECK(per < 1e-9 * fmax(1, bmax), "Fourier series periodic: %.3g", per);
  check_traj_file(&f, m);
  dy_free_model(m);
}

/* chi^2 = d^T cov^-1 d (Cholesky of a copy): for an unbiased estimate with
 * the right covariance it is chi^2-distributed with p degrees of freedom
 * (mean p, sd sqrt(2p)), whatever the correlations between parameters */


static void test_noise_free(void) {
  for (int trial = 0; trial < 6; trial++) {
    int n = 2 + trial, fr = trial % 2;
    dyModel* m = th_random_model(n, trial >= 3 ? 0.25 : 0, 0.3, fr);
    dyData* d = dy_make_data(m);
    tbase b;
    make_base(m, d, fr, &b);
    tdata t;
    make_data(m, d, &b, 600, 6.0, 100 + (unsigned)trial, &t);
    dyiEstim* e = NULL;
    char err[DY_ERRSZ] = "";
    for (int meth = 0; meth < 3; meth += 2) {   /* OLS and IRLS (WLS needs noise) */
      int rc = estimate(&t, &b, (dyiMethod)meth, 97, &e, err, sizeof err);
      CHECK(rc == 0, "noise-free n=%d: %s", n, err);
      if (!rc) {
        double re = rel_err(e->beta, b.beta_true, b.nb);
        CHECK(re < 1e-8, "noise-free n=%d friction=%d method=%d: %d base parameters, rel err %.3g "
              "(cond %.3g)", n, fr, meth, b.nb, re, e->cond);
        CHECK(e->relerr_all_pct < 1e-8, "noise-free relative residual %.3g %%", e->relerr_all_pct);
      }
      dyi_est_free(e);
    }
    free_data(&t);
    dy_free_data(d);
    dy_free_model(m);
  }
}

/* in memory: dgeqrf of the whole [A y] (M, rows x (p + 1)), beta = R^-1 z
 * into bm, rho = |R_{p,p}|; M then holds R^-1. Returns rho */
static double memory_qr(const tdata* t, int p, int rows, double* M, double* bm) {
  memcpy(M, t->A, sizeof(double) * (size_t)rows * (size_t)p);
  memcpy(M + (size_t)rows * (size_t)p, t->y, sizeof(double) * (size_t)rows);
  double* tau = malloc(sizeof(double) * (size_t)(p + 1));
  LAPACKE_dgeqrf(LAPACK_COL_MAJOR, rows, p + 1, M, rows, tau);
  for (int k = 0; k < p; k++) bm[k] = M[k + (size_t)rows * (size_t)p];
  LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'U', 'N', 'N', p, 1, M, rows, bm, p);
  double rho = fabs(M[p + (size_t)rows * (size_t)p]);
  /* std from R^-1 rows */
  LAPACKE_dtrtri(LAPACK_COL_MAJOR, 'U', 'N', p, M, rows);
  free(tau);
  return rho;
}

/* beta, std (from the rows of R^-1 in M) and sigma^2 of the stream against memory */
static void check_memory_beta(const dyiEstim* e, const double* M, int rows, int p, const double* bm, double rho) {
  double worst_b = 0, worst_s = 0;
  double sg = rho / sqrt((double)(rows - p));
  for (int k = 0; k < p; k++) {
    double s = 0;
    for (int c = k; c < p; c++) s += M[k + (size_t)rows * (size_t)c] * M[k + (size_t)rows * (size_t)c];
    double sd = sg * sqrt(s);
    worst_b = fmax(worst_b, fabs(e->beta[k] - bm[k]) / fmax(fabs(bm[k]), sd));
    worst_s = fmax(worst_s, fabs(e->std[k] - sd) / sd);
  }
  CHECK(worst_b < 1e-10, "stream vs memory beta: %.3g", worst_b);
  CHECK(worst_s < 1e-10, "stream vs memory std: %.3g", worst_s);
  CHECK_REL(e->sigma2, sg * sg, 1e-10, "sigma^2 stream vs memory");
}

/* cond against the SVD of the tall matrix itself (copied into M) */
static void check_cond(const dyiEstim* e, const tdata* t, int rows, int p, double* M) {
  memcpy(M, t->A, sizeof(double) * (size_t)rows * (size_t)p);
  double* sv = malloc(sizeof(double) * (size_t)p), *sup = malloc(sizeof(double) * (size_t)p);
  LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', rows, p, M, rows, sv, NULL, 1, NULL, 1, sup);
  CHECK(fabs(e->cond / (sv[0] / sv[p - 1]) - 1) < 1e-8, "cond %.10g vs SVD of the stacked matrix %.10g",
        e->cond, sv[0] / sv[p - 1]);
  free(sv); free(sup);
}

/* per-joint rms and relerr against the residuals row by row; returns ||y||^2 */
static double check_joint_rms(const dyiEstim* e, const tdata* t, int n, int rows, int p) {
  double ss[DY_MAXJ] = {0}, yy[DY_MAXJ] = {0}, worst_r = 0, ya = 0;
  for (int r = 0; r < rows; r++) {
    double v = t->y[r];
    for (int k = 0; k < p; k++) v -= t->A[r + (size_t)rows * (size_t)k] * e->beta[k];
    ss[r % n] += v * v; yy[r % n] += t->y[r] * t->y[r];
  }
  for (int j = 0; j < n; j++) {
    worst_r = fmax(worst_r, fabs(e->rms[j] / sqrt(ss[j] / t->ns) - 1));
    worst_r = fmax(worst_r, fabs(e->relerr_pct[j] / (100 * sqrt(ss[j] / yy[j])) - 1));
  }
  CHECK(worst_r < 1e-8, "per-joint rms / relerr vs direct residuals: %.3g", worst_r);
  for (int j = 0; j < n; j++) ya += yy[j];
  return ya;
}

/* the triangle's statistics (OLS: W = 1: rho, ||y||^2 = ya, ||A e_k||^2)
 * and the scales against the rows */
static void check_triangle(const dyiEstim* e, const tdata* t, int rows, int p, double ya, double rho) {
  double worst_c = 0, worst_sc = 0;
  double* scale = malloc(sizeof(double) * (size_t)p);
  dyi_est_scales(e, scale);
  for (int k = 0; k < p; k++) {
    double ak = 0;
    for (int r = 0; r < rows; r++) ak += t->A[r + (size_t)rows * (size_t)k] * t->A[r + (size_t)rows * (size_t)k];
    worst_c = fmax(worst_c, fabs(dyi_est_colsq(e, k) / ak - 1));
    worst_sc = fmax(worst_sc, fabs(scale[k] / sqrt(ya / ak) - 1));
  }
  int ld = 0;
  const double* Ra = dyi_est_raug(e, &ld);
  CHECK(Ra && ld == p + 1 && fabs(fabs(Ra[p + (size_t)ld * (size_t)p]) / rho - 1) < 1e-10,
        "Raug: leading dimension %d (p + 1 = %d), |rho| %.10g vs %.10g", ld, p + 1,
        Ra ? fabs(Ra[p + (size_t)ld * (size_t)p]) : NAN, rho);
  CHECK_REL(dyi_est_rho2(e), rho * rho, 1e-10, "rho^2 vs the residual of the whole matrix");
  CHECK_REL(dyi_est_yy(e), ya, 1e-10, "||y||^2 from the triangle vs the rows");
  CHECK(worst_c < 1e-10, "||A e_k||^2 from the triangle vs the rows: worst %.3g", worst_c);
  CHECK(worst_sc < 1e-10, "scales ||y|| / ||A e_k|| vs the rows: worst %.3g", worst_sc);
  free(scale);
}

/* the columns of each joint are its mask row's */
static void check_joint_cols(const dyiEstim* e, const tbase* b, int n, int p) {
  int bad_cols = 0;
  for (int j = 0; j < n; j++) {
    int nc = -1, c = 0;
    const int* cols = dyi_est_cols(e, j, &nc);
    for (int k = 0; k < p; k++)
      if (b->mask[(size_t)j * (size_t)p + (size_t)k]) bad_cols += c >= nc || cols[c++] != k;
    bad_cols += c != nc;
  }
  CHECK(bad_cols == 0, "the columns of each joint are its mask row's: %d wrong", bad_cols);
}

/* streaming vs in-memory QR of the whole stacked [A y] */
static void test_stream_vs_memory(void) {
  dyModel* m = th_random_model(6, 0.2, 0.3, 1);
  dyData* d = dy_make_data(m);
  tbase b;
  make_base(m, d, 1, &b);
  tdata t;
  make_data(m, d, &b, 1500, 10.0, 7, &t);
  double sig[DY_MAXJ];
  for (int j = 0; j < m->n; j++) sig[j] = 0.05;
  add_noise(&t, sig, 99);
  int p = b.nb, rows = m->n * t.ns;
  dyiEstim* e;
  char err[DY_ERRSZ] = "";
  int rc = estimate(&t, &b, DYI_OLS, 64, &e, err, sizeof err);
  CHECK(rc == 0, "stream: %s", err);
  double* M = malloc(sizeof(double) * (size_t)rows * (size_t)(p + 1));
  double* bm = malloc(sizeof(double) * (size_t)p);
  double rho = memory_qr(&t, p, rows, M, bm);
  check_memory_beta(e, M, rows, p, bm, rho);
  check_cond(e, &t, rows, p, M);
  double ya = check_joint_rms(e, &t, m->n, rows, p);
  check_triangle(e, &t, rows, p, ya, rho);
  check_joint_cols(e, &b, m->n, p);
  /* block size does not matter beyond round-off */
  dyiEstim* e2;
  rc = estimate(&t, &b, DYI_OLS, 1, &e2, err, sizeof err);
  double wb = 0;
  for (int k = 0; k < p; k++) wb = fmax(wb, fabs(e2->beta[k] - e->beta[k]) / fmax(fabs(bm[k]), e->std[k]));
  CHECK(rc == 0 && wb < 1e-10, "block 1 vs block 64: %.3g", wb);
  dyi_est_free(e2);
  free(M); free(bm);
  dyi_est_free(e);
  free_data(&t);
  dy_free_data(d);
  dy_free_model(m);
}

/* sums over noisy models: sum z, sum z^2, chi^2, parameters, within 3 std */
typedef struct { double sz, szz, c2; int M, in3; } zsums;

/* the normalised and whitened errors of noisy model `trial` (WLS, per-joint
 * noise) added to the sums */
static void noisy_trial(int trial, zsums* s) {
  int n = 3 + trial % 4, fr = trial % 2;
  dyModel* m = th_random_model(n, 0.15, 0.3, fr);
  dyData* d = dy_make_data(m);
  tbase b;
  make_base(m, d, fr, &b);
  tdata t;
  make_data(m, d, &b, 800, 8.0, 300 + (unsigned)trial, &t);
  double sig[DY_MAXJ];
  for (int j = 0; j < n; j++) sig[j] = 0.02 + 0.01 * j;
  add_noise(&t, sig, 1000 + (unsigned)trial);
  for (int meth = 0; meth < 2; meth++) {
    dyiEstim* e;
    char err[DY_ERRSZ] = "";
    int rc = estimate(&t, &b, (dyiMethod)meth, 128, &e, err, sizeof err);
    CHECK(rc == 0, "noisy: %s", err);
    if (!rc && meth == 1) {  /* WLS: the noise model is right (per-joint sigma) */
      double dv[14 * DY_MAXJ];
      for (int k = 0; k < b.nb; k++) {
        double z = (e->beta[k] - b.beta_true[k]) / e->std[k];
        s->sz += z; s->szz += z * z; s->M++; s->in3 += fabs(z) < 3;
        dv[k] = e->beta[k] - b.beta_true[k];
      }
      s->c2 += chi2(e->cov, dv, b.nb);
    }
    dyi_est_free(e);
  }
  free_data(&t); dy_free_data(d); dy_free_model(m);
}

/* (a) over several models (WLS, per-joint noise): the whitened error
 * chi^2 = (beta - bt)^T cov^-1 (beta - bt) summed over models is chi^2 with
 * P = sum p degrees of freedom: chi^2 / P = 1 +- sqrt(2/P) (P >= 200:
 * sd <= 0.1); we accept 1 +- 4 sqrt(2/P). This is the exact test of both
 * "unbiased" and "cov is right"; the marginal z = (beta - bt)/std are
 * N(0,1) each but correlated, so their sample variance is not a sharp test;
 * for them we only ask >= 95 % within 3 std (99.7 % expected). */
static void noisy_models(void) {
  zsums s = {0};
  for (int trial = 0; trial < 8; trial++) noisy_trial(trial, &s);
  int M = s.M, in3 = s.in3;
  double mean = s.sz / M, var = s.szz / M - mean * mean, lim = 4 * sqrt(2.0 / M), c2 = s.c2;
  CHECK(M >= 200, "normalised errors: %d parameters", M);
  CHECK(fabs(c2 / M - 1) < lim, "chi^2 / dof = %.3f (dof %d, limit 1 +- %.3f)", c2 / M, M, lim);
  CHECK(in3 >= 0.95 * M, "within 3 std: %d of %d", in3, M);
  printf("noisy: %d parameters: chi^2/dof %.3f; normalised errors mean %.3f, variance %.3f, %d within "
         "3 std\n", M, c2 / M, mean, var, in3);
}

/* (b) estimated std vs spread over R = 50 draws on the same trajectory.
 * The sample sd of 50 draws has relative sd 1/sqrt(2*49) = 0.10, so each
 * parameter's ratio lies in [0.7, 1.4] (-3 / +4 sd) except by chance
 * (~0.2 % per parameter): we require >= 90 % of the parameters inside, and
 * the pooled ratio sqrt(mean_k var_emp_k / var_est_k) (p * 49 dof, sd
 * ~1.5 %) within [0.9, 1.1]. */
static void noisy_spread(void) {
  dyModel* m = th_random_model(5, 0, 0.3, 1);
  dyData* d = dy_make_data(m);
  tbase b;
  make_base(m, d, 1, &b);
  tdata t;
  make_data(m, d, &b, 600, 6.0, 555, &t);
  int p = b.nb, R = 50;
  double* s1 = calloc((size_t)p, sizeof(double)), *s2 = calloc((size_t)p, sizeof(double));
  double* se = calloc((size_t)p, sizeof(double));
  double sig[DY_MAXJ];
  for (int j = 0; j < m->n; j++) sig[j] = 0.1;
  int ok = 1;
  for (int r = 0; r < R; r++) {
    add_noise(&t, sig, 5000 + (unsigned)r);
    dyiEstim* e;
    char err[DY_ERRSZ];
    if (estimate(&t, &b, DYI_OLS, 128, &e, err, sizeof err)) { ok = 0; dyi_est_free(e); break; }
    for (int k = 0; k < p; k++) {
      s1[k] += e->beta[k]; s2[k] += e->beta[k] * e->beta[k]; se[k] += e->std[k] * e->std[k];
    }
    dyi_est_free(e);
  }
  CHECK(ok, "repeated draws estimated");
  int inside = 0;
  double pooled = 0, rmin = 1e9, rmax = 0;
  for (int k = 0; k < p; k++) {
    double mu = s1[k] / R, ve = (s2[k] - R * mu * mu) / (R - 1), vs = se[k] / R;
    double ratio = sqrt(ve / vs);
    inside += ratio > 0.7 && ratio < 1.4;
    pooled += ve / vs;
    rmin = fmin(rmin, ratio); rmax = fmax(rmax, ratio);
  }
  pooled = sqrt(pooled / p);
  CHECK(inside >= 0.9 * p, "std vs spread: %d of %d ratios in [0.7, 1.4] (range %.3f..%.3f)", inside,
        p, rmin, rmax);
  CHECK(pooled > 0.9 && pooled < 1.1, "pooled spread/std ratio %.3f", pooled);
  printf("spread over %d draws: %d of %d ratios in [0.7,1.4], range %.3f..%.3f, pooled %.3f\n", R,
         inside, p, rmin, rmax, pooled);
  free(s1); free(s2); free(se);
  free_data(&t); dy_free_data(d); dy_free_model(m);
}

/* noisy: normalised errors; std vs spread over repeated draws */
static void test_noisy(void) {
  noisy_models();
  noisy_spread();
}

/* WLS: joint noise 0.01 .. 0.3 (30x apart): sigma_j recovered, std smaller
 * than OLS's, the truth within its std; the weighted triangle */
static void check_wls(tdata* t, const tbase* b, int n) {
  const int p = b->nb;
  char err[DY_ERRSZ] = "";
  double sig[DY_MAXJ] = {0.3, 0.01, 0.1, 0.02, 0.2};
  add_noise(t, sig, 4242);
  dyiEstim *eo, *ew;
  int rc = estimate(t, b, DYI_OLS, 128, &eo, err, sizeof err);
  rc |= estimate(t, b, DYI_WLS, 128, &ew, err, sizeof err);
  CHECK(rc == 0, "WLS: %s", err);
  /* sigma_j estimated from 1000 samples: relative sd ~ 1/sqrt(2000) = 2 %,
   * plus the OLS bias; 10 % is > 4 sd */
  double ws = 0;
  for (int j = 0; j < n; j++) ws = fmax(ws, fabs(ew->sigma_j[j] / sig[j] - 1));
  CHECK(ws < 0.1, "WLS per-joint sigma within 10 %%: worst %.3f", ws);
  int smaller = 0;
  for (int k = 0; k < p; k++) smaller += ew->std[k] < eo->std[k];
  CHECK(smaller >= 0.9 * p, "WLS std smaller than OLS for %d of %d parameters", smaller, p);
  /* and the WLS estimate is within its std of the truth (normalised error) */
  double zmax = 0;
  for (int k = 0; k < p; k++) zmax = fmax(zmax, fabs(ew->beta[k] - b->beta_true[k]) / ew->std[k]);
  CHECK(zmax < 4.5, "WLS max normalised error %.2f", zmax);
  CHECK_REL(ew->sigma2, 1.0, 0.1, "WLS weighted residual variance ~1");
  /* the weighted triangle: ||W y||^2 = sum_j ||y_j||^2 / sigma_j^2 (the
   * weights of the last solve, sigma_j within 1e-4 of the final ones),
   * rho^2 = sigma2 (M - p); the scales are the unweighted rows': as OLS's */
  double wyy = 0, *sco = malloc(sizeof(double) * (size_t)p), *scw = malloc(sizeof(double) * (size_t)p);
  for (int r = 0; r < n * t->ns; r++) wyy += t->y[r] * t->y[r] / (ew->sigma_j[r % n] * ew->sigma_j[r % n]);
  CHECK_REL(dyi_est_yy(ew), wyy, 1e-3, "WLS ||W y||^2 vs the rows");
  CHECK_REL(dyi_est_rho2(ew), ew->sigma2 * (double)(n * t->ns - p), 1e-12, "WLS rho^2 = sigma^2 (M - p)");
  dyi_est_scales(eo, sco);
  dyi_est_scales(ew, scw);
  CHECK(!memcmp(sco, scw, sizeof(double) * (size_t)p), "the scales of WLS are those of OLS (unweighted rows)");
  free(sco); free(scw);
  dyi_est_free(eo); dyi_est_free(ew);
}

/* IRLS: equal noise 0.05, then 3 % of the rows hit by outliers of
 * +-(20..60) sigma, all on the same side per joint (a bias OLS follows) */
static void check_irls(tdata* t, const tbase* b, int n) {
  const int p = b->nb;
  char err[DY_ERRSZ] = "";
  double sig[DY_MAXJ];
  for (int j = 0; j < n; j++) sig[j] = 0.05;
  add_noise(t, sig, 777);
  dyiEstim *ec, *eb, *er;
  int rc = estimate(t, b, DYI_OLS, 128, &ec, err, sizeof err);   /* clean reference */
  unsigned long long s = 31337;
  int rows = n * t->ns, nout = 0;
  for (int r = 0; r < rows; r++)
    if (dyi_rng_uniform(&s) < 0.03) { t->y[r] += (20 + 40 * dyi_rng_uniform(&s)) * 0.05; nout++; }
  rc |= estimate(t, b, DYI_OLS, 128, &eb, err, sizeof err);
  rc |= estimate(t, b, DYI_IRLS, 128, &er, err, sizeof err);
  CHECK(rc == 0, "IRLS: %s", err);
  double zo = 0, zi = 0;
  for (int k = 0; k < p; k++) {
    zo = fmax(zo, fabs(eb->beta[k] - b->beta_true[k]) / ec->std[k]);
    zi = fmax(zi, fabs(er->beta[k] - b->beta_true[k]) / ec->std[k]);
  }
  CHECK(zo > 8, "outliers bend OLS: max error %.1f clean std", zo);
  CHECK(zi < 5, "IRLS resists %d outliers: max error %.2f clean std (OLS %.1f)", nout, zi, zo);
  double sc = 0;
  for (int j = 0; j < n; j++) sc = fmax(sc, fabs(er->sigma_j[j] / 0.05 - 1));
  /* Huber's MAD scale with 3 % one-sided contamination: median shifts by
   * ~0.03/(2*0.32) ~ 5 % of sigma; 15 % allows that and the estimation */
  CHECK(sc < 0.15, "IRLS robust scale within 15 %% of the noise: %.3f", sc);
  CHECK(er->downweighted >= nout, "IRLS down-weighted %ld rows (%d outliers)", er->downweighted, nout);
  printf("IRLS: %d outliers; max error OLS %.1f, IRLS %.2f clean std; %d passes\n", nout, zo, zi,
         er->iterations);
  dyi_est_free(ec); dyi_est_free(eb); dyi_est_free(er);
}

/* WLS with unequal joint noise, then IRLS against outliers, on one model */
static void test_wls_irls(void) {
  dyModel* m = th_random_model(5, 0, 0.3, 1);
  dyData* d = dy_make_data(m);
  tbase b;
  make_base(m, d, 1, &b);
  tdata t;
  make_data(m, d, &b, 1000, 8.0, 808, &t);
  check_wls(&t, &b, m->n);
  check_irls(&t, &b, m->n);
  free_data(&t); dy_free_data(d); dy_free_model(m);
}

static void test_rank(void) {
  /* the full (non-base) parameters are not identifiable: error names them */
  dyModel* m = th_random_model(3, 0, 0.3, 0);
  dyData* d = dy_make_data(m);
  tbase b;
  make_base(m, d, 0, &b);
  tbase full = b;
  full.nb = 10 * m->n;
  for (int k = 0; k < full.nb; k++) full.ind[k] = k;
  for (int j = 0; j < m->n; j++)
    for (int k = 0; k < full.nb; k++) full.mask[j * full.nb + k] = (unsigned char)(k / 10 >= j);
  tdata t;
  make_data(m, d, &full, 300, 6.0, 1, &t);
  double sig[DY_MAXJ] = {0.01, 0.01, 0.01};
  add_noise(&t, sig, 2);
  char names[30][8];
  const char* np[30];
  for (int k = 0; k < 30; k++) { dy_parname(m, k, names[k], 8); np[k] = names[k]; }
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.mask = full.mask; o.names = np;
  char err[DY_ERRSZ] = "";
  dyiEstim* e = dyi_est_make(3, 30, &o, err, sizeof err);
  dyiRowSource src = {&t, mem_fill, mem_rewind};
  int rc = dyi_est_run(e, &src, err, sizeof err);
  /* XX1, XY1, ... of link 1 never reach the torque except ZZ1: zero columns */
  CHECK(rc != 0 && strstr(err, "XX1"), "zero column named: %s", err);
  dyi_est_free(e);
  /* drop the zero columns: remaining rank deficiency named by a combination */
  int keep[30], nk = 0;
  for (int k = 0; k < 30; k++) {
    double s = 0;
    for (int r = 0; r < 3 * t.ns; r++) s += fabs(t.A[r + (size_t)(3 * t.ns) * (size_t)k]);
    if (s > 0) keep[nk++] = k;
  }
  for (int c = 0; c < nk; c++) {
    memmove(t.A + (size_t)(3 * t.ns) * (size_t)c, t.A + (size_t)(3 * t.ns) * (size_t)keep[c],
            sizeof(double) * (size_t)(3 * t.ns));
    np[c] = names[keep[c]];
    for (int j = 0; j < 3; j++) full.mask[j * nk + c] = (unsigned char)(keep[c] / 10 >= j);
  }
  t.p = nk;
  o.mask = full.mask;
  e = dyi_est_make(3, nk, &o, err, sizeof err);
  t.pos = 0;
  rc = dyi_est_run(e, &src, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "rank deficient") && strstr(err, "*"), "rank deficiency: %s", err);
  dyi_est_free(e);
  /* a non-zero entry outside the mask is refused */
  make_base(m, d, 0, &b);
  free_data(&t);
  make_data(m, d, &b, 100, 6.0, 1, &t);
  for (int k = 0; k < b.nb; k++) if (!b.mask[2 * b.nb + k]) { t.A[2 + (size_t)(3 * t.ns) * (size_t)k] = 1e-3; break; }
  e = NULL;
  rc = estimate(&t, &b, DYI_OLS, 32, &e, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "structural"), "entry outside the mask refused: %s", err);
  dyi_est_free(e);
  free_data(&t); dy_free_data(d); dy_free_model(m);
}

/* 10^6 samples x 7 joints streamed: synthetic rows with a triangular
 * pattern, y = A beta + noise; peak RSS must not grow with N (the stacked
 * matrix would be 7e6 x 30 x 8 B = 1.7 GB). */
typedef struct { long done, total; int n, p; unsigned long long s; const double* beta; } tbig;

static int big_fill(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err,
                    int errsz) {
  (void)err; (void)errsz; (void)rw;
  tbig* g = ctx;
  int ns = g->total - g->done < maxs ? (int)(g->total - g->done) : maxs;
  for (int s = 0; s < ns; s++)
    for (int i = 0; i < g->n; i++) {
      int r = s * g->n + i;
      double v = 0;
      for (int k = 0; k < g->p; k++) {
        double a = (k * g->n) / g->p >= i ? 2 * dyi_rng_uniform(&g->s) - 1 : 0;
        A[r + (size_t)lda * (size_t)k] = a;
        v += a * g->beta[k];
      }
      y[r] = v + 0.01 * (2 * dyi_rng_uniform(&g->s) - 1);
    }
  g->done += ns;
  return ns;
}

static int big_rewind(void* ctx, char* err, int errsz) {
  (void)err; (void)errsz;
  ((tbig*)ctx)->done = 0;
  return 0;
}

static void test_big(void) {
  enum { n = 7, p = 30 };
  double beta[p];
  unsigned char mask[n * p];
  for (int k = 0; k < p; k++) beta[k] = 1 + k;
  for (int i = 0; i < n; i++) for (int k = 0; k < p; k++) mask[i * p + k] = (unsigned char)((k * n) / p >= i);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long before = ru.ru_maxrss;
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.mask = mask;
  char err[DY_ERRSZ] = "";
  dyiEstim* e = dyi_est_make(n, p, &o, err, sizeof err);
  tbig g = {0, 1000000, n, p, 12345, beta};
  dyiRowSource src = {&g, big_fill, big_rewind};
  int rc = dyi_est_run(e, &src, err, sizeof err);
  getrusage(RUSAGE_SELF, &ru);
  CHECK(rc == 0 && e->samples == 1000000, "10^6 samples: %s", err);
  /* uniform noise +-0.01: sd 0.01/sqrt(3); std of beta ~ 1e-5: 1e-3 is far */
  double worst = 0;
  for (int k = 0; k < p; k++) worst = fmax(worst, fabs(e->beta[k] - beta[k]));
  CHECK(worst < 1e-3, "10^6 samples: max |beta - true| %.3g", worst);
  CHECK_REL(sqrt(e->sigma2), 0.01 / sqrt(3.0), 0.01, "10^6 samples: noise sd");
  long grow = ru.ru_maxrss - before;  /* kB */
#ifdef __SANITIZE_ADDRESS__
  long cap = 1L << 40;   /* ASan's shadow memory: only the growth is meaningful */
#else
  long cap = 100 * 1024;
#endif
  CHECK(ru.ru_maxrss < cap && grow < 20 * 1024, "peak RSS %ld kB (+%ld kB) for 10^6 samples",
        ru.ru_maxrss, grow);
  printf("10^6 samples x 7 joints, 30 parameters: peak RSS %ld kB (+%ld kB)\n", ru.ru_maxrss, grow);
  dyi_est_free(e);
}

/* OpenBLAS threads only cost on these ~60-column problems (their start-up outweighs the work) */
void openblas_set_num_threads(int num_threads);

/* dyi_est_add_joints against dyi_est_add on the same rows: 3 joints, 8
 * columns under a mask, 5 blocks of 40 samples with random values, row
 * weights with zeros, joint 3 without any row in one block and without a
 * block of its own in another (NULL): the triangles, rows and samples
 * equal bit for bit */
static void test_add_joints(void) {
  enum { N = 3, P = 8, S = 40 };
  unsigned char mask[N * P];
  for (int j = 0; j < N; j++)
    for (int k = 0; k < P; k++) mask[j * P + k] = (unsigned char)(k >= 2 * j || k == 7);
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.block = S;
  o.mask = mask;
  char err[256];
  dyiEstim *a = dyi_est_make(N, P, &o, err, sizeof err), *b = dyi_est_make(N, P, &o, err, sizeof err);
  if (!a || !b) { CHECK(0, "estimators made: %s", err); dyi_est_free(a); dyi_est_free(b); return; }
  static double A[N * S * P], y[N * S], rw[N * S], Bm[N][S * (P + 1)], rwj[N][S];
  int ok = 1;
  for (int blk = 0; blk < 5 && ok; blk++) {
    double* B[N];
    const double* R[N];
    for (int j = 0; j < N; j++) { B[j] = Bm[j]; R[j] = rwj[j]; }
    for (int s = 0; s < S; s++)
      for (int j = 0; j < N; j++) {
        const int r = s * N + j;
        y[r] = th_uniform(-3, 3);
        rw[r] = (s + blk) % 7 == 0 || (blk == 2 && j == 2) || (blk == 3 && j == 2) ? 0 : th_uniform(0.5, 1.5);
        int np;
        const int* cols = dyi_est_cols(a, j, &np);
        for (int k = 0; k < P; k++) A[(size_t)k * N * S + r] = mask[j * P + k] ? th_uniform(-2, 2) : 0;
        for (int c = 0; c < np; c++) Bm[j][c * S + s] = A[(size_t)cols[c] * N * S + r];
        Bm[j][np * S + s] = y[r];
        rwj[j][s] = rw[r];
      }
    if (blk == 3) B[2] = NULL;   /* no rows of joint 3 in this block: as all weights 0 */
    ok = !dyi_est_add(a, A, N * S, y, S, rw, err, sizeof err) &&
         !dyi_est_add_joints(b, B, S, S, R, err, sizeof err);
  }
  CHECK(ok, "blocks folded: %s", err);
  int same = a->samples == b->samples;
  for (int j = 0; j < N; j++) {
    int np;
    dyi_est_cols(a, j, &np);
    same = same && a->rows_j[j] == b->rows_j[j] &&
           !memcmp(dyi_est_triangle(a, j), dyi_est_triangle(b, j), sizeof(double) * (size_t)(np + 1) * (np + 1));
  }
  CHECK(same, "rows by joint: the same triangles, rows and samples bit for bit");
  /* a value that becomes infinite once weighted (1e308 x 10), in joint 2's
   * second column at sample 4 of the next block: the error names them */
  double* B[N];
  const double* R[N];
  for (int j = 0; j < N; j++) {
    B[j] = Bm[j]; R[j] = rwj[j];
    for (int k = 0; k < S * (P + 1); k++) Bm[j][k] = 1;
    for (int k = 0; k < S; k++) rwj[j][k] = 1;
  }
  Bm[1][1 * S + 3] = 1e308;
  rwj[1][3] = 10;
  int np1;
  dyi_est_cols(b, 1, &np1);
  const long before = b->samples;
  char want[64];
  snprintf(want, sizeof want, "sample %ld, joint 2: non-finite ", before + 4);
  err[0] = 0;
  CHECK(dyi_est_add_joints(b, B, S, S, R, err, sizeof err) == -1 && strstr(err, want) && strstr(err, "inf"),
        "a value infinite once weighted: the error names its sample and joint: '%s'", err);
  /* the same through dyi_est_add (rows of every joint, gathered): a NaN
   * torque of joint 3 at sample 6 */
  for (int r = 0; r < N * S; r++) { y[r] = 1; rw[r] = 1; }
  y[5 * N + 2] = NAN;
  snprintf(want, sizeof want, "sample %ld, joint 3: non-finite torque", a->samples + 6);
  err[0] = 0;
  CHECK(dyi_est_add(a, A, N * S, y, S, rw, err, sizeof err) == -1 && strstr(err, want),
        "a NaN torque in the gathered rows: the error names its sample and joint: '%s'", err);
  dyi_est_free(a); dyi_est_free(b);
}

/* blocks of ns rows of [A y] (m1 = p + 1 columns, values of scale sc,
 * column zc zero when >= 0) through dyi_est_add and through dtpqrt:
 * returns the largest difference of the triangles over their largest entry */
static double fold_vs_dtpqrt(int p, int ns, double sc, int zc) {
  const int m1 = p + 1, nblk = 3;
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.block = ns;
  char err[256];
  dyiEstim* e = dyi_est_make(1, p, &o, err, sizeof err);
  double* A = malloc(sizeof(double) * (size_t)ns * (size_t)p);
  double* y = malloc(sizeof(double) * (size_t)ns);
  double* B = malloc(sizeof(double) * (size_t)ns * (size_t)m1);
  double* T = calloc((size_t)m1 * (size_t)m1, sizeof(double));
  double* tq = malloc(sizeof(double) * 16 * (size_t)m1), *work = malloc(sizeof(double) * 16 * (size_t)m1);
  double diff = INFINITY;
  if (!e || !A || !y || !B || !T || !tq || !work) goto done;
  int ok = 1;
  for (int blk = 0; blk < nblk && ok; blk++) {
    for (int c = 0; c < m1; c++)
      for (int s = 0; s < ns; s++) {
        const double v = c == zc ? 0 : sc * th_uniform(-2, 2);
        B[(size_t)c * (size_t)ns + (size_t)s] = v;
        if (c < p) A[(size_t)c * (size_t)ns + (size_t)s] = v; else y[s] = v;
      }
    ok = !dyi_est_add(e, A, ns, y, ns, NULL, err, sizeof err);
    const int nb = m1 < 16 ? m1 : 16;
    ok = ok && !LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, ns, m1, 0, nb, T, m1, B, ns, tq, nb, work);
  }
  if (!ok) goto done;
  const double* R = dyi_est_triangle(e, 0);
  double big = 0, d = 0;
  for (int c = 0; c < m1; c++)
    for (int r = 0; r <= c; r++) {
      big = fmax(big, fabs(T[r + (size_t)m1 * (size_t)c]));
      d = fmax(d, fabs(R[r + (size_t)m1 * (size_t)c] - T[r + (size_t)m1 * (size_t)c]));
    }
  diff = big > 0 ? d / big : d;
done:
  dyi_est_free(e);
  free(A); free(y); free(B); free(T); free(tq); free(work);
  return diff;
}

static void test_fold(void) {
  static const int P[] = {0, 1, 4, 7, 8, 9, 15, 16, 17, 33, 70};
  static const int S[] = {1, 3, 7, 8, 37, 256};
  double worst = 0;
  for (size_t i = 0; i < sizeof P / sizeof *P; i++)
    for (size_t k = 0; k < sizeof S / sizeof *S; k++) {
      if (P[i] == 0) continue;   /* a column and the torque at least */
      worst = fmax(worst, fold_vs_dtpqrt(P[i], S[k], 1, -1));
    }
  CHECK(worst < 1e-12, "fold vs dtpqrt, 2-71 columns, 1-256 rows a block: %.3g of the largest entry", worst);
  double tiny = fold_vs_dtpqrt(17, 37, 1e-170, -1), huge = fold_vs_dtpqrt(17, 37, 1e170, -1);
  CHECK(tiny < 1e-12 && huge < 1e-12, "fold vs dtpqrt, values near 1e-170 / 1e170: %.3g / %.3g", tiny, huge);
  double zero = fmax(fold_vs_dtpqrt(17, 37, 1, 3), fold_vs_dtpqrt(17, 37, 1, 8));
  CHECK(zero < 1e-12, "fold vs dtpqrt with a zero column (in a panel, at a panel's start): %.3g", zero);
}

int main(void) {
  openblas_set_num_threads(1);
  test_fourier();
  test_noise_free();
  test_stream_vs_memory();
  test_noisy();
  test_wls_irls();
  test_rank();
  test_big();
  test_add_joints();   /* after the others: its random values leave their draws as they were */
  test_fold();
  return test_report();
}
