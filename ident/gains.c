/* SPDX-License-Identifier: MIT */
/* dynid ident: drive gains by output error (gains.h): per joint one QR
 * triangle of the rows [Y_b, W9, W_M m, i] of both recordings, then the
 * plain least squares on [diag(i) -Y] (the biased comparison and the
 * start) and Gauss-Newton on the bilinear output error, each step a
 * column-scaled truncated SVD (rank-deficient directions get no step). */
#include "ident/gains.h"
#include "ident/payload.h"
#include "ident/regressor.h"
#include "core/dynamics.h"
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLK 256          /* rows folded per QR */
#define RANK_TOL 1e-9    /* singular values below RANK_TOL * largest are zero (column-scaled) */
#define NULL_TOL 1e-6    /* an unknown's null-space component above this: undetermined */

struct dyiGains_ {
  const dyModel* m;
  const dyiBase* b;
  dyData* d;
  double mass, A[100];
  int n, nb, p, nc, ld, nrow;   /* p = nb + 9 unknowns of x, nc = p + 2 columns */
  int *pstart, *pk;             /* P's non-zeros by column (base.h dyi_base_sparse) */
  double* pv;
  double* Y;                    /* n x ncols */
  double* blk;                  /* n blocks of ld x nc, column-major; rows 0..nc-1 the triangle */
  double* tauw;                 /* dgeqrf's tau (nc) */
  double *beta, *beta_std;      /* the last solve's (nb) */
  long samples[2];
};

dyiGains* dyi_gains_make(const dyModel* m, const dyiBase* b, double mass, char* err, int errsz) {
  dyiGains* g = calloc(1, sizeof *g);
  const int n = m->n;
  if (g) {
    g->m = m; g->b = b; g->mass = mass; g->n = n; g->nb = b->nb;
    g->p = b->nb + 9; g->nc = g->p + 2; g->ld = g->nc + BLK;
    g->d = dy_make_data(m);
    g->pstart = malloc(sizeof(int) * (size_t)(b->nb + 1));
    g->pk = malloc(sizeof(int) * (size_t)b->npar * (size_t)b->nb);
    g->pv = malloc(sizeof(double) * (size_t)b->npar * (size_t)b->nb);
    g->Y = malloc(sizeof(double) * (size_t)(n * dyi_ncols(m, b->friction)));
    g->blk = calloc((size_t)n * (size_t)g->ld * (size_t)g->nc, sizeof(double));
    g->beta = calloc((size_t)b->nb * 2, sizeof(double));
    g->tauw = malloc(sizeof(double) * (size_t)g->nc);
  }
  if (!g || !g->d || !g->pstart || !g->pk || !g->pv || !g->Y || !g->blk || !g->beta || !g->tauw) {
    snprintf(err, (size_t)errsz, "gains: out of memory");
    dyi_gains_free(g);
    return NULL;
  }
  g->beta_std = g->beta + b->nb;
  dyi_base_sparse(b, 0, g->pstart, g->pk, g->pv);
  dyi_payload_map(m->tip_T, g->A);
  return g;
}

void dyi_gains_free(dyiGains* g) {
  if (!g) return;
  if (g->d) dy_free_data(g->d);
  free(g->pstart); free(g->pk); free(g->pv); free(g->Y); free(g->blk); free(g->beta); free(g->tauw);
  free(g);
}

/* fold the pending rows of every joint into its triangle */
static void fold(dyiGains* g) {
  if (!g->nrow) return;
  const int rows = g->nc + g->nrow;
  for (int j = 0; j < g->n; j++) {
    double* B = g->blk + (size_t)j * g->ld * g->nc;
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, rows, g->nc, B, g->ld, g->tauw);
    for (int c = 0; c < g->nc; c++)
      for (int i = c + 1; i < rows; i++) B[i + (size_t)g->ld * c] = 0;
  }
  g->nrow = 0;
}

void dyi_gains_add(dyiGains* g, int loaded, const double* q, const double* qd, const double* qdd,
                   const double* cur) {
  const int n = g->n, nb = g->nb, p = g->p;
  dyi_regressor(g->m, g->d, q, qd, qdd, g->b->friction, g->Y, n);
  if (g->nrow == BLK) fold(g);
  const double* Yn = g->Y + (size_t)n * 10 * (n - 1);   /* link n's 10 columns */
  const size_t row = (size_t)(g->nc + g->nrow++), ld = (size_t)g->ld;
  for (int j = 0; j < n; j++) {
    double* B = g->blk + (size_t)j * ld * (size_t)g->nc;
    for (int c = 0; c < nb; c++) {   /* Y_b = Y P */
      double s = 0;
      for (int e = g->pstart[c]; e < g->pstart[c + 1]; e++) s += g->Y[j + n * g->pk[e]] * g->pv[e];
      B[row + ld * c] = s;
    }
    for (int k = 0; k < 10; k++) {   /* W = Y_n A, zero without the load */
      double w = 0;
      for (int l = 0; loaded && l < 10; l++) w += Yn[j + n*l] * g->A[l*10 + k];
      B[row + ld * (size_t)(nb + k)] = k == 9 ? w * g->mass : w;
    }
    B[row + ld * (size_t)(p + 1)] = cur[j];
  }
  g->samples[loaded ? 1 : 0]++;
}

long dyi_gains_samples(const dyiGains* g, int loaded) { return g->samples[loaded ? 1 : 0]; }

/* ---- the solve: T_j = the triangle of joint j (nc x nc, column-major) */

typedef struct {
  const dyiGains* g;
  const double* T;      /* n triangles, nc x nc each */
  double* s;            /* noise scale of each joint (n) */
  const int* fr;        /* gain j free (n) */
  int nfg;              /* free gains */
  int rows, cols;       /* n nc, nfg + p */
  double *J, *r, *work; /* rows x cols, rows, dgesvd's (rows + cols) */
  double *sv, *Vt, *U, *D, *u;   /* SVD (cols, cols^2, rows x cols, cols); u: nc */
  double *th, *dl, *trial, *z;   /* Gauss-Newton's unknowns, step, trial point (cols); n + p */
} gnCtx;

static const double* tri(const gnCtx* c, int j) { return c->T + (size_t)j * c->g->nc * c->g->nc; }

/* u_j = T_j[:, p] + T_j[:, 0:p] x (the torque the parameters predict, triangle space) */
static void predict(const gnCtx* c, int j, const double* x, double* u) {
  const int nc = c->g->nc, p = c->g->p;
  const double* T = tri(c, j);
  for (int i = 0; i < nc; i++) u[i] = T[i + nc*p];
  for (int k = 0; k < p; k++)
    for (int i = 0; i <= k && i < nc; i++) u[i] += T[i + nc*k] * x[k];
}

/* r_j = (T_j[:, p+1] - gain_j u_j) / s_j; returns the weighted sum of squares */
static double resid(const gnCtx* c, const double* gi, const double* x, double* r) {
  const int nc = c->g->nc, p = c->g->p;
  double f = 0;
  for (int j = 0; j < c->g->n; j++) {
    const double* T = tri(c, j);
    double* rj = r + (size_t)j * nc;
    predict(c, j, x, rj);
    for (int i = 0; i < nc; i++) {
      rj[i] = (T[i + nc*(p + 1)] - gi[j] * rj[i]) / c->s[j];
      f += rj[i] * rj[i];
    }
  }
  return f;
}

/* J = d r / d (free g, x), column-major rows x cols */
static void jacobian(const gnCtx* c, const double* gi, const double* x) {
  const int nc = c->g->nc, p = c->g->p, n = c->g->n;
  memset(c->J, 0, sizeof(double) * (size_t)c->rows * (size_t)c->cols);
  double* u = c->u;
  for (int j = 0, col = 0; j < n; j++) {
    const double* T = tri(c, j);
    if (c->fr[j]) {
      predict(c, j, x, u);
      for (int i = 0; i < nc; i++) c->J[(size_t)j*nc + i + (size_t)c->rows * col] = -u[i] / c->s[j];
      col++;
    }
    for (int k = 0; k < p; k++)
      for (int i = 0; i <= k && i < nc; i++)
        c->J[(size_t)j*nc + i + (size_t)c->rows * (size_t)(c->nfg + k)] = -gi[j] * T[i + nc*k] / c->s[j];
  }
}

/* SVD of J with its columns scaled to unit norm (D): sv, U (rows x cols), Vt
 * (cols x cols); the rank at RANK_TOL. -1 on a LAPACK failure. */
static int svd(gnCtx* c, int* rank) {
  const int R = c->rows, C = c->cols;
  for (int k = 0; k < C; k++) {
    double s = 0;
    for (int i = 0; i < R; i++) s += c->J[i + (size_t)R*k] * c->J[i + (size_t)R*k];
    c->D[k] = s > 0 ? sqrt(s) : 1;
    for (int i = 0; i < R; i++) c->J[i + (size_t)R*k] /= c->D[k];
  }
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'A', R, C, c->J, R, c->sv, c->U, R, c->Vt, C, c->work)) return -1;
  int r = 0;
  while (r < C && c->sv[r] > RANK_TOL * c->sv[0]) r++;
  *rank = r;
  return 0;
}

/* the truncated least-squares step: delta = -D^-1 V S^-1 U^T r on the rank */
static void step(const gnCtx* c, int rank, const double* r, double* delta) {
  const int R = c->rows, C = c->cols;
  memset(delta, 0, sizeof(double) * (size_t)C);
  for (int i = 0; i < rank; i++) {
    double ur = 0;
    for (int l = 0; l < R; l++) ur += c->U[l + (size_t)R*i] * r[l];
    for (int k = 0; k < C; k++) delta[k] -= c->Vt[i + (size_t)C*k] * ur / c->sv[i];
  }
  for (int k = 0; k < C; k++) delta[k] /= c->D[k];
}

/* theta = (free gains' g, x) in and out of (gi, x) */
static void unpack(const gnCtx* c, const double* th, double* gi, double* x) {
  for (int j = 0, col = 0; j < c->g->n; j++) if (c->fr[j]) gi[j] = th[col++];
  memcpy(x, th + c->nfg, sizeof(double) * (size_t)c->g->p);
}

/* Gauss-Newton with step halving from (gi, x); returns the iterations, -1
 * on a LAPACK failure. */
static int gauss_newton(gnCtx* c, double* gi, double* x) {
  const int C = c->cols;
  double *th = c->th, *dl = c->dl, *trial = c->trial;
  for (int j = 0, col = 0; j < c->g->n; j++) if (c->fr[j]) th[col++] = gi[j];
  memcpy(th + c->nfg, x, sizeof(double) * (size_t)c->g->p);
  double f = resid(c, gi, x, c->r);
  int it = 0, rank;
  for (; it < 100; it++) {
    jacobian(c, gi, x);
    if (svd(c, &rank)) return -1;
    step(c, rank, c->r, dl);
    double fn = INFINITY, t = 1;
    for (int h = 0; h < 40 && !(fn < f); h++, t /= 2) {
      for (int k = 0; k < C; k++) trial[k] = th[k] + t * dl[k];
      unpack(c, trial, gi, x);
      fn = resid(c, gi, x, c->r);
    }
    if (!(fn < f)) { unpack(c, th, gi, x); resid(c, gi, x, c->r); break; }
    memcpy(th, trial, sizeof(double) * (size_t)C);
    const double dec = f - fn;
    f = fn;
    if (dec <= 1e-13 * f) break;
  }
  return it + 1;
}

/* The plain least squares on [diag(i) -Y]: K_j T_j[:, p+1] - T_j[:, 0:p] x = T_j[:, p]
 * (every gain free, unweighted) into K (n) and x (p). -1 on a LAPACK failure. */
static int plain_ls(gnCtx* c, double* K, double* x) {
  const int nc = c->g->nc, p = c->g->p, n = c->g->n;
  const int R = c->rows, C = n + p;
  int rank, cols = c->cols;
  c->cols = C;
  memset(c->J, 0, sizeof(double) * (size_t)R * (size_t)C);
  for (int j = 0; j < n; j++) {
    const double* T = tri(c, j);
    for (int i = 0; i < nc; i++) {
      c->J[(size_t)j*nc + i + (size_t)R*j] = T[i + nc*(p + 1)];
      c->r[(size_t)j*nc + i] = -T[i + nc*p];   /* step() solves J d = -r */
      for (int k = i; k < p; k++) c->J[(size_t)j*nc + i + (size_t)R*(size_t)(n + k)] = -T[i + nc*k];
    }
  }
  double* z = c->z;
  int rc = svd(c, &rank);
  if (!rc) step(c, rank, c->r, z);
  if (!rc) { memcpy(K, z, sizeof(double) * (size_t)n); memcpy(x, z + n, sizeof(double) * (size_t)p); }
  c->cols = cols;
  return rc;
}

static void gn_free(gnCtx* c) {
  free(c->J); free(c->r); free(c->work); free(c->sv); free(c->Vt); free(c->U); free(c->D); free(c->u);
  free(c->th); free(c->dl); free(c->trial); free(c->z); free((void*)c->T); free(c->s);
}

/* scratch for n + p unknowns at most; the triangles copied out of the blocks */
static int gn_alloc(gnCtx* c, const dyiGains* g) {
  const size_t R = (size_t)g->n * (size_t)g->nc, C = (size_t)(g->n + g->p), nc = (size_t)g->nc;
  memset(c, 0, sizeof *c);
  c->g = g;
  c->rows = (int)R;
  double* T = calloc((size_t)g->n * nc * nc, sizeof(double));
  c->T = T;
  c->J = malloc(sizeof(double) * R * C); c->r = malloc(sizeof(double) * R);
  c->work = malloc(sizeof(double) * (R + C)); c->sv = malloc(sizeof(double) * C);
  c->Vt = malloc(sizeof(double) * C * C); c->U = malloc(sizeof(double) * R * C);
  c->D = malloc(sizeof(double) * C); c->u = malloc(sizeof(double) * nc);
  c->th = malloc(sizeof(double) * C); c->dl = malloc(sizeof(double) * C);
  c->trial = malloc(sizeof(double) * C); c->z = malloc(sizeof(double) * C);
  c->s = malloc(sizeof(double) * (size_t)g->n);
  if (!T || !c->J || !c->r || !c->work || !c->sv || !c->Vt || !c->U || !c->D || !c->u || !c->th || !c->dl ||
      !c->trial || !c->z || !c->s)
    return -1;
  for (int j = 0; j < g->n; j++)
    for (size_t k = 0; k < nc; k++)
      memcpy(T + ((size_t)j * nc + k) * nc, g->blk + (size_t)j * g->ld * nc + (size_t)g->ld * k,
             sizeof(double) * nc);
  return 0;
}

/* the free gains and the column count for them */
static void set_free(gnCtx* c, const int* fr) {
  c->fr = fr;
  c->nfg = 0;
  for (int j = 0; j < c->g->n; j++) c->nfg += fr[j] != 0;
  c->cols = c->nfg + c->g->p;
}

/* s_j from joint j's residual: |r_j|^2 s_j^2 / equations_j, corrected for
 * the unknowns (their share of the degrees of freedom) */
static void noise_update(gnCtx* c, const double* gi, const double* x) {
  const int nc = c->g->nc, n = c->g->n;
  const double N = (double)(c->g->samples[0] + c->g->samples[1]);
  const double corr = N * n / fmax(1, N * n - c->cols);
  resid(c, gi, x, c->r);
  for (int j = 0; j < n; j++) {
    double f = 0;
    for (int i = 0; i < nc; i++) f += c->r[(size_t)j*nc + i] * c->r[(size_t)j*nc + i];
    double s = sqrt(f * corr / N) * c->s[j];
    c->s[j] = s > 0 ? s : 1;
  }
}

/* Covariance of theta at the optimum: sigma^2 (J^T J)^+ into cov (cols x
 * cols, row-major); the rank and each unknown's null-space component. */
static int covariance(gnCtx* c, const double* gi, const double* x, double* cov, double* nul, int* rank,
                      double* cond) {
  const int C = c->cols;
  const double f = resid(c, gi, x, c->r);
  jacobian(c, gi, x);
  if (svd(c, rank)) return -1;
  const int r = *rank;
  const double neq = (double)c->g->n * (double)(c->g->samples[0] + c->g->samples[1]);
  const double s2 = neq > r ? f / (neq - r) : NAN;
  *cond = r ? c->sv[0] / c->sv[r - 1] : INFINITY;
  for (int a = 0; a < C; a++) {
    nul[a] = 0;
    for (int i = r; i < C; i++) nul[a] += c->Vt[i + (size_t)C*a] * c->Vt[i + (size_t)C*a];
    nul[a] = sqrt(nul[a]);
    for (int b = 0; b < C; b++) {
      double v = 0;
      for (int i = 0; i < r; i++) v += c->Vt[i + (size_t)C*a] * c->Vt[i + (size_t)C*b] / (c->sv[i] * c->sv[i]);
      cov[(size_t)a*C + b] = s2 * v / (c->D[a] * c->D[b]);
    }
  }
  return 0;
}

/* Solve with the free gains fr, then the noise scales, then again; mark
 * the free gains the data do not determine (fr 0, nulls 1 when by the rank
 * test). Returns how many were newly held, -1 on a LAPACK failure. */
static int solve_round(gnCtx* c, int* fr, int* nulls, double* gi, double* x, const double* K0, double maxrel,
                       double* cov, double* nul, dyiGainsFit* fit) {
  set_free(c, fr);
  for (int j = 0; j < c->g->n; j++) { c->s[j] = 1; if (!fr[j]) gi[j] = 1 / K0[j]; }
  int it1 = gauss_newton(c, gi, x);
  if (it1 < 0) return -1;
  noise_update(c, gi, x);
  int it2 = gauss_newton(c, gi, x);
  if (it2 < 0 || covariance(c, gi, x, cov, nul, &fit->rank, &fit->cond)) return -1;
  fit->iter += it1 + it2;
  int held = 0;
  for (int j = 0, col = 0; j < c->g->n; j++) {
    if (!fr[j]) continue;
    const double sd = sqrt(fmax(0, cov[(size_t)col*c->cols + col]));
    const int structural = nul[col] > NULL_TOL || !(fabs(gi[j]) > 0) || !isfinite(gi[j]);
    if (structural || !(sd <= maxrel * fabs(gi[j]))) { fr[j] = 0; nulls[j] = structural; held++; }
    col++;
  }
  return held;
}

/* The load's physical form and its std from x's last 9 entries and their covariance. */
static void load_outputs(const gnCtx* c, const double* x, const double* cov, dyiGainsFit* fit) {
  const int nb = c->g->nb, C = c->cols, off = c->nfg + nb;
  memset(fit->phi_cov, 0, sizeof fit->phi_cov);
  for (int k = 0; k < 9; k++) {
    fit->phi[k] = x[nb + k];
    for (int l = 0; l < 9; l++) fit->phi_cov[k*10 + l] = cov[(size_t)(off + k)*C + off + l];
  }
  fit->phi[9] = c->g->mass;
  double J[100];
  dyi_payload_std_to_phys(fit->phi, fit->phys, J);
  for (int i = 0; i < 10; i++) {
    double v = 0;
    for (int a = 0; a < 10; a++)
      for (int b = 0; b < 10; b++) v += J[i*10 + a] * fit->phi_cov[a*10 + b] * J[i*10 + b];
    fit->phys_std[i] = sqrt(fmax(0, v));
  }
}

/* gains, base parameters and residual of the final round into fit */
static void outputs(gnCtx* c, const double* gi, const double* x, const double* cov, dyiGainsFit* fit) {
  dyiGains* g = (dyiGains*)c->g;
  const int n = g->n, nc = g->nc, C = c->cols;
  for (int j = 0, col = 0; j < n; j++) {
    fit->gain[j] = 1 / gi[j];
    fit->gain_det[j] = c->fr[j] != 0;
    fit->gain_std[j] = 0;
    if (c->fr[j]) { fit->gain_std[j] = sqrt(fmax(0, cov[(size_t)col*C + col])) / (gi[j] * gi[j]); col++; }
    fit->noise[j] = c->s[j];
  }
  for (int k = 0; k < g->nb; k++) {
    g->beta[k] = x[k];
    g->beta_std[k] = sqrt(fmax(0, cov[(size_t)(c->nfg + k)*C + c->nfg + k]));
  }
  fit->beta = g->beta;
  fit->beta_std = g->beta_std;
  load_outputs(c, x, cov, fit);
  double rr = 0, ii = 0;
  resid(c, gi, x, c->r);
  for (int j = 0; j < n; j++) {
    const double* T = tri(c, j);
    for (int i = 0; i < nc; i++) {
      const double e = c->r[(size_t)j*nc + i] * c->s[j], y = T[i + nc*(g->p + 1)];
      rr += e * e; ii += y * y;
    }
  }
  fit->rel_resid = ii > 0 ? sqrt(rr / ii) : 0;
  fit->nfree = C;
}

int dyi_gains_solve(dyiGains* g, const double* K0, double max_rel_std, dyiGainsFit* fit, char* err,
                    int errsz) {
  fold(g);
  memset(fit, 0, sizeof *fit);
  const int n = g->n, p = g->p;
  fit->n = n; fit->nb = g->nb;
  fit->samples[0] = g->samples[0]; fit->samples[1] = g->samples[1];
  fit->equations = (long)n * (g->samples[0] + g->samples[1]);
  if (g->samples[0] < 1 || g->samples[1] < 1 || fit->equations <= n + p) {
    snprintf(err, (size_t)errsz, "%ld samples without the load and %ld with it: too few for %d gains, %d base "
             "parameters and the load's 9", g->samples[0], g->samples[1], n, g->nb);
    return -1;
  }
  gnCtx c = {0};
  int fr[DY_MAXJ], nulls[DY_MAXJ] = {0}, rc = -1;
  double gi[DY_MAXJ], Kls[DY_MAXJ];
  double* x = malloc(sizeof(double) * (size_t)p);
  double* cov = malloc(sizeof(double) * (size_t)(n + p) * (size_t)(n + p));
  double* nul = malloc(sizeof(double) * (size_t)(n + p));
  if (!x || !cov || !nul || gn_alloc(&c, g)) { snprintf(err, (size_t)errsz, "gains: out of memory"); goto done; }
  for (int j = 0; j < n; j++) { fr[j] = 1; c.s[j] = 1; }
  set_free(&c, fr);
  if (plain_ls(&c, Kls, x)) { snprintf(err, (size_t)errsz, "gains: singular value decomposition failed"); goto done; }
  for (int j = 0; j < n; j++) {
    fit->gain_ls[j] = Kls[j];
    gi[j] = Kls[j] > 0 && isfinite(Kls[j]) ? 1 / Kls[j] : 1 / K0[j];
  }
  int held;
  while ((held = solve_round(&c, fr, nulls, gi, x, K0, max_rel_std, cov, nul, fit)) > 0) {}
  if (held < 0) { snprintf(err, (size_t)errsz, "gains: singular value decomposition failed"); goto done; }
  for (int j = 0; j < n; j++) fit->gain_null[j] = nulls[j];
  outputs(&c, gi, x, cov, fit);
  rc = 0;
done:
  gn_free(&c);
  free(x); free(cov); free(nul);
  return rc;
}
