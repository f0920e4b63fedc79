/* SPDX-License-Identifier: MIT */
/* dynid ident: excitation design by multi-start gradient search over
 * Fourier coefficients (see excite.h). Each worker thread owns a workspace
 * made once; evaluations allocate nothing. */
#include "ident/excite.h"
#include "core/dynamics.h"
#include "ident/regressor.h"
#include "core/util.h"
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <nlopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dyi_excite_defaults(dyiExciteOpt* o) {
  memset(o, 0, sizeof *o);
  o->nh = 5; o->period = 10; o->nsamp = 100; o->criterion = DYI_EXC_COND;
  o->screen = 48; o->starts = 8; o->maxeval = 300; o->polish = 500; o->maxtime = 0; o->threads = 1;
  o->hops = 10; o->hop_rounds = 3; o->hop_eval = 200; o->hop_scale = 0.2;
  o->margin = 0.9; o->seed = 1;
}

void dyi_joint_envelope(const dyModel* m, int j, double* q0, double* half,
                        double* vmax, double* amax) {
  int pr = m->jnt_type[j] == DY_PRISMATIC;
  double lo = m->jnt_qmin[j], hi = m->jnt_qmax[j];
  *half = pr ? 0.2 : 1.0;
  *q0 = 0;
  if (isfinite(lo) && isfinite(hi) && hi > lo) { *q0 = 0.5 * (lo + hi); *half = 0.5 * (hi - lo); }
  else if (isfinite(lo)) *q0 = lo + *half;
  else if (isfinite(hi)) *q0 = hi - *half;
  *vmax = isfinite(m->jnt_qdmax[j]) && m->jnt_qdmax[j] > 0 ? m->jnt_qdmax[j] : (pr ? 0.3 : 1.5);
  *amax = isfinite(m->jnt_qddmax[j]) && m->jnt_qddmax[j] > 0 ? m->jnt_qddmax[j] : (pr ? 2 : 8);
}

/* scale of joint j's coefficients that brings its largest use of the
 * limits to margin; *act the active quantity (0 q, 1 qd, 2 qdd), *tact
 * where it peaks, *peak its unscaled peak. 0 if the joint does not move. */
static double fit_scale(const dyiFourier* f, const dyModel* m, int j, double margin, int* act,
                        double* tact, double* peak) {
  double q0, lim[3], k = INFINITY;
  dyi_joint_envelope(m, j, &q0, lim, lim + 1, lim + 2);
  *act = 0; *tact = 0; *peak = 0;
  for (int d = 0; d < 3; d++) {
    double t, p = dyi_fourier_peak(f, j, d, &t);
    if (p > 0 && margin * lim[d] / p < k) { k = margin * lim[d] / p; *act = d; *tact = t; *peak = p; }
  }
  return isfinite(k) ? k : 0;
}

void dyi_fourier_fit(dyiFourier* f, const dyModel* m, int j, double margin) {
  double q0, half, vmax, amax, t, p;
  int act;
  dyi_joint_envelope(m, j, &q0, &half, &vmax, &amax);
  f->q0[j] = q0;
  double k = fit_scale(f, m, j, margin, &act, &t, &p);
  if (!(k > 0)) return;                   /* all-zero coefficients stay so */
  for (int l = 0; l < f->nh; l++) { f->a[l][j] *= k; f->b[l][j] *= k; }
}

/* ------------------------------------------------------------ workspace */

typedef struct {
  const dyModel* m;
  const dyiBase* b;
  const dyiExciteOpt* o;
  int crit, nsamp;
  int n, npar, nb, rows, nvar;
  int* sel;             /* column of Y for each base parameter when P is a
                           selection, else NULL */
  double rw[DY_MAXJ];   /* row weight of joint j (1 / sigma_j or 1) */
  double *W, *Gm, *ev, *V, *Mt, *T1, *GW, *H, *cs, *dsc, *ck, *work;
  int lwork;
  dyiRegBatch *rb, *rb0;  /* batch regressor: with b->friction (W), link columns only (phi) */
  int *pstart, *pk;       /* non-zeros of column c of P: pk[pstart[c] .. pstart[c+1]-1] */
  double* pv;             /* their values */
  int gld;                /* states of one state_grad (1 + 5n), rounded up to the lanes */
  double *gs, *gphi;      /* their q, qd, qdd (n x gld each) and phi values */
  dyiFourier u;          /* unscaled coefficients (rest applied) */
  dyiFourier f;          /* the trajectory: u scaled to the limits */
  int act[DY_MAXJ];
  double tact[DY_MAXJ], kj[DY_MAXJ], peak[DY_MAXJ];
  double p;             /* smoothing exponent of cond (0: exact) */
  long evals;
  double deadline;      /* monotonic time [s] */
  int stop;             /* 1 once the deadline has passed */
} exciteWork;


/* Y_b = Y P of cnt <= DY_BATCH_LANES states from their regressor lanes L
 * (dyi_regressor_lanes): entry (i, c) of state b into out[c ldc + b n + i],
 * each summed over the non-zeros of P's column c in order (the zero terms
 * of the full sum leave it unchanged) */
DY_CLONES
static void base_lanes(const double* restrict L, int n, int nb, const int* pstart, const int* pk,
                       const double* pv, int cnt, double* restrict out, size_t ldc) {
  enum { B = DY_BATCH_LANES };
  for (int c = 0; c < nb; c++)
    for (int i = 0; i < n; i++) {
      double acc[B];
      for (int b = 0; b < B; b++) acc[b] = 0;
      for (int e = pstart[c]; e < pstart[c + 1]; e++) {
        const double v = pv[e], *y = L + ((size_t)pk[e] * (size_t)n + (size_t)i) * B;
        for (int b = 0; b < B; b++) acc[b] += y[b] * v;
      }
      for (int b = 0; b < cnt; b++) out[(size_t)c * ldc + (size_t)(b * n + i)] = acc[b];
    }
}

static void ws_free(exciteWork* w) {
  free(w->sel); free(w->W); free(w->Gm); free(w->ev); free(w->V);
  free(w->Mt); free(w->T1); free(w->GW); free(w->H); free(w->cs); free(w->dsc); free(w->ck);
  free(w->work);
  dyi_regressor_batch_free(w->rb); dyi_regressor_batch_free(w->rb0);
  free(w->pstart); free(w->pk); free(w->pv); free(w->gs); free(w->gphi);
  memset(w, 0, sizeof *w);
}

static int nvars(int rest, int nh, int n) { return 2 * n * (rest ? nh - 1 : nh); }

static int ws_make(exciteWork* w, const dyModel* m, const dyiBase* b, int nsamp, int nh,
                   double period, int rest, const double* sigma) {
  memset(w, 0, sizeof *w);
  w->m = m; w->b = b; w->nsamp = nsamp;
  w->n = m->n;
  w->npar = b->npar;
  w->nb = b->nb;
  w->rows = m->n * nsamp;
  w->nvar = nvars(rest, nh, m->n);
  for (int j = 0; j < m->n; j++) w->rw[j] = sigma ? 1 / sigma[j] : 1;
  size_t nb = (size_t)w->nb, rows = (size_t)w->rows, np = (size_t)w->npar, n = (size_t)m->n;
  w->W = malloc(sizeof(double) * rows * nb);
  w->GW = malloc(sizeof(double) * rows * nb);
  w->Gm = malloc(sizeof(double) * nb * nb);
  w->V = malloc(sizeof(double) * nb * nb);
  w->Mt = malloc(sizeof(double) * nb * nb);
  w->T1 = malloc(sizeof(double) * nb * nb);
  w->ev = malloc(sizeof(double) * nb);
  w->dsc = malloc(sizeof(double) * nb);
  w->ck = malloc(sizeof(double) * nb);
  w->H = malloc(sizeof(double) * n * np);
  w->cs = malloc(sizeof(double) * (size_t)nsamp * (size_t)nh * 2);
  double q;
  w->lwork = -1;
  LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', w->nb, w->V, w->nb, w->ev, &q, -1);
  w->lwork = (int)q;
  LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, w->rows, w->nb, w->W, w->rows, w->ev, &q, -1);
  if ((int)q > w->lwork) w->lwork = (int)q;
  LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', w->nb, w->nb, w->V, w->nb, w->ev, NULL, 1, w->Mt, w->nb, &q, -1);
  if ((int)q > w->lwork) w->lwork = (int)q;
  w->lwork += 5 * (w->rows + w->nb) + 64;
  w->work = malloc(sizeof(double) * (size_t)w->lwork);
  if (!w->W || !w->GW || !w->Gm || !w->V || !w->Mt || !w->T1 ||
      !w->ev || !w->dsc || !w->ck || !w->H || !w->cs || !w->work)
    return -1;
  double wf = 2 * M_PI / period;
  for (int s = 0; s < nsamp; s++)
    for (int l = 1; l <= nh; l++) {
      double th = l * wf * (period * s / nsamp);
      w->cs[((size_t)s * nh + (l - 1)) * 2] = sin(th);
      w->cs[((size_t)s * nh + (l - 1)) * 2 + 1] = cos(th);
    }
  w->pstart = malloc(sizeof(int) * (nb + 1));
  w->pk = malloc(sizeof(int) * (np * nb + 1));
  w->pv = malloc(sizeof(double) * (np * nb + 1));
  if (!w->pstart || !w->pk || !w->pv) return -1;
  dyi_base_sparse(b, 0, w->pstart, w->pk, w->pv);   /* every non-zero */
  w->gld = (1 + 5 * m->n + DY_BATCH_LANES - 1) / DY_BATCH_LANES * DY_BATCH_LANES;
  w->gs = malloc(sizeof(double) * 3 * n * (size_t)w->gld);
  w->gphi = malloc(sizeof(double) * (size_t)w->gld);
  w->rb = dyi_regressor_batch_make(m, b->friction);
  w->rb0 = dyi_regressor_batch_make(m, 0);
  if (!w->gs || !w->gphi || !w->rb || !w->rb0) return -1;
  /* is P a selection (one 1 per column)? then Y_b is a column pick */
  w->sel = malloc(sizeof(int) * nb);
  for (int c = 0; c < w->nb && w->sel; c++) {
    int k1 = -1, others = 0;
    for (int k = 0; k < w->npar; k++) {
      double v = b->P[(size_t)k * nb + c];
      if (v == 1 && k1 < 0) k1 = k; else if (v != 0) others = 1;
    }
    if (k1 < 0 || others) { free(w->sel); w->sel = NULL; break; }
    w->sel[c] = k1;
  }
  return 0;
}

/* the state of w->f at criterion sample s, from the tables */
static void state_at(const exciteWork* w, int s, double* q, double* qd, double* qdd) {
  const dyiFourier* f = &w->f;
  for (int j = 0; j < w->n; j++) {
    double x = f->q0[j], v = 0, a = 0;
    for (int l = 1; l <= f->nh; l++) {
      double sn = w->cs[((size_t)s * f->nh + (l - 1)) * 2], cn = w->cs[((size_t)s * f->nh + (l - 1)) * 2 + 1];
      double om = l * f->wf, A = f->a[l - 1][j], B = f->b[l - 1][j];
      x += (A * sn - B * cn) / om;
      v += A * cn + B * sn;
      a += (-A * sn + B * cn) * om;
    }
    /* round-off around a rest (qd(0) = 0 with --rest) must not flip the
     * Coulomb column sign(qd) */
    if (fabs(v) < 1e-10) v = 0;
    q[j] = x; qd[j] = v; qdd[j] = a;
  }
}

/* W (column-major, rows x nb) along w->f, rows of joint j times rw[j]:
 * the regressor of DY_BATCH_LANES samples per call, mapped on the base
 * columns lane by lane (base_lanes) */
static void fill_W(exciteWork* w) {
  const int n = w->n, nb = w->nb;
  dyLanes S;
  for (int s0 = 0; s0 < w->nsamp; s0 += DY_BATCH_LANES) {
    const int cnt = w->nsamp - s0 < DY_BATCH_LANES ? w->nsamp - s0 : DY_BATCH_LANES;
    S.nb = 0;
    for (int b = 0; b < cnt; b++) {
      double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ];
      state_at(w, s0 + b, qs, qds, qdds);
      dy_lanes_push(&S, n, qs, qds, qdds, NULL, 0, s0 + b);
    }
    const double* L = dyi_regressor_lanes(w->m, w->rb, cnt, S.q, S.qd, S.qdd, DY_BATCH_LANES);
    double* out = w->W + (size_t)s0 * (size_t)n;
    base_lanes(L, n, nb, w->pstart, w->pk, w->pv, cnt, out, (size_t)w->rows);
    for (int c = 0; c < nb; c++)
      for (int b = 0; b < cnt; b++)
        for (int i = 0; i < n; i++) out[(size_t)c * (size_t)w->rows + (size_t)(b * n + i)] *= w->rw[i];
  }
}

/* Gram matrix of W (scaled to unit diagonal for cond-scaled; dsc the
 * column scales), its eigen-decomposition into ev (ascending) and V. 0, or
 * -1 if LAPACK fails. */
static int gram_eig(exciteWork* w, int scaled) {
  int nb = w->nb;
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, nb, w->rows, 1.0, w->W, w->rows, 0.0, w->Gm, nb);
  for (int c = 0; c < nb; c++) {
    double g = w->Gm[(size_t)c * nb + c];
    w->dsc[c] = scaled ? (g > 0 ? 1 / sqrt(g) : 1) : 1;
  }
  for (int c = 0; c < nb; c++)
    for (int r = c; r < nb; r++) {
      double g = w->Gm[(size_t)c * nb + r] * w->dsc[r] * w->dsc[c];
      w->Gm[(size_t)c * nb + r] = w->Gm[(size_t)r * nb + c] = g;
    }
  memcpy(w->V, w->Gm, sizeof(double) * (size_t)nb * nb);
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', nb, w->V, nb, w->ev, w->work, w->lwork)) return -1;
  if (w->ev[0] > 1e-10 * w->ev[nb - 1]) return 0;
  /* nearly singular: the Gram matrix squares the condition number, so take
   * the singular values and right vectors from W = QR, R = U S V^T */
  int r = w->rows;
  for (int c = 0; c < nb; c++)
    for (int i = 0; i < r; i++) w->GW[(size_t)c * r + i] = w->W[(size_t)c * r + i] * w->dsc[c];
  double* tau = w->ck;
  if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, r, nb, w->GW, r, tau, w->work, w->lwork)) return -1;
  for (int c = 0; c < nb; c++)
    for (int i = 0; i < nb; i++) w->T1[(size_t)c * nb + i] = i <= c ? w->GW[(size_t)c * r + i] : 0;
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', nb, nb, w->T1, nb, w->ev, NULL, 1, w->Mt, nb,
                          w->work, w->lwork)) return -1;
  /* ascending order as dsyev: lambda_k = s_(nb-1-k)^2, v_k = row nb-1-k of V^T */
  for (int k = 0; k < nb / 2; k++) { double t = w->ev[k]; w->ev[k] = w->ev[nb - 1 - k]; w->ev[nb - 1 - k] = t; }
  for (int k = 0; k < nb; k++) {
    w->ev[k] *= w->ev[k];
    for (int i = 0; i < nb; i++) w->V[(size_t)k * nb + i] = w->Mt[(size_t)i * nb + (nb - 1 - k)];
  }
  return 0;
}

/* criterion value from the eigenvalues, and c_k = d value / d lambda_k * 2
 * into w->T1[k] (so that d value / d W = W V diag(c) V^T, unscaled case) */
static double crit_from_eig(exciteWork* w, double* c) {
  int nb = w->nb;
  double lmax = w->ev[nb - 1];
  if (!(lmax > 0)) { for (int k = 0; k < nb; k++) c[k] = 0; return 1e3; }
  double floor = lmax * 1e-30;
  if (w->crit == DYI_EXC_DOPT) {
    double v = 0;
    for (int k = 0; k < nb; k++) {
      double l = w->ev[k] > floor ? w->ev[k] : floor;
      v -= log(l) / nb;
      c[k] = -2.0 / (nb * l);
    }
    return v;
  }
  double lmin = w->ev[0] > floor ? w->ev[0] : floor;
  double v = 0.5 * log(lmax / lmin);
  if (w->p <= 0) {
    for (int k = 0; k < nb; k++) c[k] = 0;
    c[nb - 1] = 1 / lmax;
    c[0] = -1 / lmin;
    return v;
  }
  double sp = 0, sm = 0, p = w->p;
  for (int k = 0; k < nb; k++) {
    double l = w->ev[k] > floor ? w->ev[k] : floor;
    sp += exp(p * log(l / lmax));
    sm += exp(p * log(lmin / l));
  }
  for (int k = 0; k < nb; k++) {
    double l = w->ev[k] > floor ? w->ev[k] : floor;
    double wp = exp(p * log(l / lmax)) / sp, wm = exp(p * log(lmin / l)) / sm;
    c[k] = (wp - wm) / l;
  }
  return v + (log(sp) + log(sm)) / (2 * p);
}

/* phi(state) = sum_{i,k} H[i,k] Y[i,k](state) over the link columns, for
 * cnt <= DY_BATCH_LANES states whose link-column regressor lanes are L
 * (dyi_regressor_lanes, no friction): into out[0..cnt-1] */
DY_CLONES
static void phi_lanes(const double* restrict H, const double* restrict L, int ne, int cnt,
                      double* restrict out) {
  enum { B = DY_BATCH_LANES };
  double acc[B];
  for (int b = 0; b < B; b++) acc[b] = 0;
  for (int k = 0; k < ne; k++)
    for (int b = 0; b < B; b++) acc[b] += H[k] * L[(size_t)k * B + (size_t)b];
  for (int b = 0; b < cnt; b++) out[b] = acc[b];
}

/* The gradient of the criterion with respect to W (the stacked base
 * regressor, rows = samples x joints): d value / d W = W M with
 * M = V diag(c) V^T (c from crit_from_eig); for cond-scaled, where the
 * Gram matrix is D W^T W D with D = diag(1 / ||W e_k||), it becomes
 * W D (M - Diag(Gs M)) D. Into w->GW (rows x nb). */
static void grad_W(exciteWork* w, const double* ck, int scaled) {
  int nb = w->nb, rows = w->rows;
  for (int a = 0; a < nb; a++)
    for (int k = 0; k < nb; k++) w->T1[(size_t)k * nb + a] = w->V[(size_t)k * nb + a] * ck[k];
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nb, nb, nb, 1.0, w->T1, nb, w->V, nb, 0.0, w->Mt, nb);
  if (scaled) {
    for (int a = 0; a < nb; a++) {
      double g = 0;
      for (int k = 0; k < nb; k++) g += w->Gm[(size_t)k * nb + a] * w->Mt[(size_t)a * nb + k];
      w->T1[a] = g;
    }
    for (int a = 0; a < nb; a++) w->Mt[(size_t)a * nb + a] -= w->T1[a];
    for (int a = 0; a < nb; a++)
      for (int k = 0; k < nb; k++) w->Mt[(size_t)k * nb + a] *= w->dsc[a] * w->dsc[k];
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, nb, nb, 1.0, w->W, rows, w->Mt, nb, 0.0,
              w->GW, rows);
}

/* H = G_s P^T (n x npar, column-major) for sample s: the gradient rows of
 * the sample's n equations, each times its weight rw[i], carried back
 * from the base columns to the standard ones (a column selection when
 * w->sel is set) */
static void sample_H(exciteWork* w, int s) {
  int n = w->n, nb = w->nb, np = w->npar, rows = w->rows;
  memset(w->H, 0, sizeof(double) * (size_t)n * np);
  for (int cc = 0; cc < nb; cc++) {
    const double* g = w->GW + (size_t)cc * rows + (size_t)s * n;
    if (w->sel) {
      double* h = w->H + (size_t)w->sel[cc] * n;
      for (int i = 0; i < n; i++) h[i] += g[i] * w->rw[i];
    } else {
      for (int k = 0; k < np; k++) {
        double pk = w->b->P[(size_t)k * nb + cc];
        if (pk == 0) continue;
        double* h = w->H + (size_t)k * n;
        for (int i = 0; i < n; i++) h[i] += g[i] * w->rw[i] * pk;
      }
    }
  }
}

/* d phi / d q_j by central differences (h = 1e-6), d phi / d qd_j
 * (quadratic in qd: exact with steps of 1) and d phi / d qdd_j (linear:
 * exact), plus the joint terms IA qdd + FV qd (FC sign + FO are flat) */
static void state_grad(exciteWork* w, double* q, double* qd, double* qdd, double* gq, double* gv, double* ga) {
  const int n = w->n, ns = 1 + 5 * n, ld = w->gld, ne = n * DY_NPAR_LINK * n;
  const double hq = 1e-6;
  /* the states: the sample, then per joint q +- hq, qd +- 1, qdd + 1 */
  double *Q = w->gs, *V = Q + (size_t)n * ld, *A = V + (size_t)n * ld;
  for (int j = 0; j < n; j++) {
    for (int s = 0; s < ns; s++) { Q[j*ld + s] = q[j]; V[j*ld + s] = qd[j]; A[j*ld + s] = qdd[j]; }
    Q[j*ld + 1 + 5*j] = q[j] + hq; Q[j*ld + 2 + 5*j] = q[j] - hq;
    V[j*ld + 3 + 5*j] = qd[j] + 1; V[j*ld + 4 + 5*j] = qd[j] - 1;
    A[j*ld + 5 + 5*j] = qdd[j] + 1;
  }
  for (int s0 = 0; s0 < ns; s0 += DY_BATCH_LANES) {
    const int cnt = ns - s0 < DY_BATCH_LANES ? ns - s0 : DY_BATCH_LANES;
    const double* L = dyi_regressor_lanes(w->m, w->rb0, cnt, Q + s0, V + s0, A + s0, ld);
    phi_lanes(w->H, L, ne, cnt, w->gphi + s0);
  }
  const double* ph = w->gphi;
  for (int j = 0; j < n; j++) {
    gq[j] = (ph[1 + 5*j] - ph[2 + 5*j]) / (2 * hq);
    gv[j] = (ph[3 + 5*j] - ph[4 + 5*j]) / 2;
    ga[j] = ph[5 + 5*j] - ph[0];
    if (w->b->friction) {
      size_t base = (size_t)DY_NPAR_LINK * n + (size_t)DY_NPAR_JNT * j;
      ga[j] += w->H[j + (base + DY_IA) * n];
      gv[j] += w->H[j + (base + DY_FV) * n];
    }
  }
}

/* Criterion of w->f; with grad (n x 2 nh: d/d a[l][j] at grad[(j*nh + l)*2],
 * d/d b at +1), its gradient with respect to the scaled coefficients:
 * per sample, the state gradient (state_grad of phi = sum H . Y) through
 * q_j = sum_l (a_l sin(l wf t) - b_l cos(l wf t)) / (l wf) + q0_j and its
 * derivatives. */
static double crit_eval(exciteWork* w, double* grad) {
  int n = w->n, nh = w->f.nh;
  int scaled = w->crit == DYI_EXC_COND_SCALED;
  w->evals++;
  fill_W(w);
  if (gram_eig(w, scaled)) {
    if (grad) memset(grad, 0, sizeof(double) * (size_t)n * nh * 2);
    return 1e3;
  }
  double* ck = w->ck;
  double val = crit_from_eig(w, ck);
  if (!grad) return val;
  grad_W(w, ck, scaled);
  memset(grad, 0, sizeof(double) * (size_t)n * nh * 2);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  double gq[DY_MAXJ], gv[DY_MAXJ], ga[DY_MAXJ];
  for (int s = 0; s < w->nsamp; s++) {
    sample_H(w, s);
    state_at(w, s, q, qd, qdd);
    state_grad(w, q, qd, qdd, gq, gv, ga);
    for (int j = 0; j < n; j++)
      for (int l = 1; l <= nh; l++) {
        double sn = w->cs[((size_t)s * nh + (l - 1)) * 2], cn = w->cs[((size_t)s * nh + (l - 1)) * 2 + 1];
        double om = l * w->f.wf;
        grad[((size_t)j * nh + (l - 1)) * 2] += gq[j] * sn / om + gv[j] * cn - ga[j] * om * sn;
        grad[((size_t)j * nh + (l - 1)) * 2 + 1] += -gq[j] * cn / om + gv[j] * sn + ga[j] * om * cn;
      }
  }
  return val;
}

/* ------------------------------------------------------------ variables */

/* x -> u (rest applied) -> f (scaled to the limits) */
static void vars_to_f(exciteWork* w, const double* x, int rest, double margin) {
  const dyModel* m = w->m;
  int n = m->n, nh = w->u.nh, l0 = rest ? 1 : 0, k = 0;
  for (int j = 0; j < n; j++) {
    for (int l = l0; l < nh; l++) { w->u.a[l][j] = x[k++]; w->u.b[l][j] = x[k++]; }
    if (rest) {
      double sa = 0, sb = 0;
      for (int l = 1; l < nh; l++) { sa += w->u.a[l][j]; sb += (l + 1) * w->u.b[l][j]; }
      w->u.a[0][j] = -sa;      /* qd(0)  = sum_l a_l = 0 */
      w->u.b[0][j] = -sb;      /* qdd(0) = wf sum_l l b_l = 0 */
    }
    double q0, h, v, a;
    dyi_joint_envelope(m, j, &q0, &h, &v, &a);
    w->u.q0[j] = q0;
    w->kj[j] = fit_scale(&w->u, m, j, margin, &w->act[j], &w->tact[j], &w->peak[j]);
  }
  w->f = w->u;
  for (int j = 0; j < n; j++)
    for (int l = 0; l < nh; l++) { w->f.a[l][j] *= w->kj[j]; w->f.b[l][j] *= w->kj[j]; }
}


/* gradient with respect to f (layout of crit_eval) -> with respect to x */
static void grad_to_vars(const exciteWork* w, const double* gf, int rest, double* gx) {
  int n = w->n, nh = w->u.nh, l0 = rest ? 1 : 0, k = 0;
  double gu[2 * DYI_FOURIER_MAXH];
  for (int j = 0; j < n; j++) {
    double kk = w->kj[j];
    if (!(kk > 0)) {
      for (int l = l0; l < nh; l++) { gx[k++] = 0; gx[k++] = 0; }
      continue;
    }
    /* f = k(u) u, k = margin lim / peak(u), peak = |D_d(u, t*)|:
     * dL/du = k (g - (g . u) / peak * sign(D) dD/du) */
    double gdotu = 0;
    for (int l = 0; l < nh; l++)
      gdotu += gf[((size_t)j * nh + l) * 2] * w->u.a[l][j] + gf[((size_t)j * nh + l) * 2 + 1] * w->u.b[l][j];
    int d = w->act[j];
    double t = w->tact[j];
    double sg = dyi_fourier_deriv(&w->u, j, d, t) >= 0 ? 1 : -1;
    for (int l = 1; l <= nh; l++) {
      double om = l * w->u.wf, th = om * t, s = sin(th), c = cos(th), sd, cd, wd = 1 / om;
      for (int e = 0; e < d; e++) wd *= om;
      switch (d & 3) {
        case 0: sd = s; cd = c; break;
        case 1: sd = c; cd = -s; break;
        case 2: sd = -s; cd = -c; break;
        default: sd = -c; cd = s; break;
      }
      double dDa = wd * sd, dDb = -wd * cd;
      double r = w->peak[j] > 0 ? gdotu / w->peak[j] * sg : 0;
      gu[2 * (l - 1)] = kk * (gf[((size_t)j * nh + (l - 1)) * 2] - r * dDa);
      gu[2 * (l - 1) + 1] = kk * (gf[((size_t)j * nh + (l - 1)) * 2 + 1] - r * dDb);
    }
    for (int l = l0; l < nh; l++) {
      double ga = gu[2 * l], gb = gu[2 * l + 1];
      if (rest) { ga -= gu[0]; gb -= (l + 1) * gu[1]; }
      gx[k++] = ga; gx[k++] = gb;
    }
  }
}

/* ------------------------------------------------------------ search */

/* u's shape (coefficients set by vars_to_f) */
static void init_u(exciteWork* w, const dyiExciteOpt* o) {
  memset(&w->u, 0, sizeof w->u);
  w->u.n = w->n; w->u.nh = o->nh; w->u.wf = 2 * M_PI / o->period;
}

typedef struct {
  exciteWork* w;
  int rest;
  double margin;
  double* gf;           /* gradient w.r.t. f (n x nh x 2) */
} exciteObj;

static double objective(unsigned nx, const double* x, double* grad, void* data) {
  (void)nx;
  exciteObj* oc = data;
  exciteWork* w = oc->w;
  vars_to_f(w, x, oc->rest, oc->margin);
  double v = crit_eval(w, grad ? oc->gf : NULL);
  if (grad) grad_to_vars(w, oc->gf, oc->rest, grad);
  if (!isfinite(v)) v = 1e3;
  return v;
}

/* exact criterion at x (cond: log cond; dopt: -log det / nb) */
static double exact_at(exciteObj* oc, const double* x) {
  double p = oc->w->p;
  oc->w->p = 0;
  double v = objective(0, x, NULL, oc);
  oc->w->p = p;
  return v;
}

/* starting coefficients of start i (unscaled; vars_to_f scales) */
static void start_vars(const dyiExciteOpt* o, int n, int i, double* x) {
  int l0 = o->rest ? 1 : 0, k = 0;
  unsigned long long s = o->seed * 0x9e3779b97f4a7c15ull + (unsigned long long)i * 0xd1b54a32d192ed03ull;
  dyi_rng_next(&s);
  for (int j = 0; j < n; j++)
    for (int l = l0; l < o->nh; l++) {
      if (i == 0) {
        /* Schroeder phases (low crest factor), shifted per joint */
        double ph = M_PI * (l + 1) * l / o->nh + 2.399963229728653 * j * (l + 1);
        x[k++] = cos(ph) / (l + 1);
        x[k++] = sin(ph) / (l + 1);
      } else {
        x[k++] = 2 * dyi_rng_uniform(&s) - 1;
        x[k++] = 2 * dyi_rng_uniform(&s) - 1;
      }
    }
}

static void normalise_vars(int n, int nv, double* x) {
  /* scale invariance per joint: keep each joint's block at unit norm */
  int per = nv / n;
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int k = 0; k < per; k++) s += x[j * per + k] * x[j * per + k];
    if (s > 0) for (int k = 0; k < per; k++) x[j * per + k] /= sqrt(s);
  }
}

/* the smoothing exponents of a local search's three steps, and of a
 * screening search's (three L-BFGS runs on the smoothest bound) */
static const double STEPS[3] = {4, 32, 256}, SCREEN_STEPS[3] = {4, 4, 4};
#define SCREEN_EVAL 40    /* evaluations of a screening search */

/* one local search from x (in place) through the bounds L_p, p = ps[0..2],
 * maxeval / 3 evaluations each; returns the exact criterion */
static double local_search(exciteObj* oc, double* x, int maxeval, const double* ps) {
  exciteWork* w = oc->w;
  int nx = w->nvar;
  int per = maxeval / 3 > 10 ? maxeval / 3 : 10;
  double best = exact_at(oc, x);
  double* xt = malloc(sizeof(double) * (size_t)nx);
  if (!xt) return best;
  for (int st = 0; st < 3 && !w->stop; st++) {
    w->p = w->crit == DYI_EXC_DOPT ? 0 : ps[st];
    if (w->crit == DYI_EXC_DOPT && st > 0) break;
    double left = w->deadline - dy_now_s();
    if (left <= 0) { w->stop = 1; break; }
    normalise_vars(w->n, nx, x);
    nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, (unsigned)nx);
    nlopt_set_min_objective(opt, objective, oc);
    nlopt_set_maxeval(opt, w->crit == DYI_EXC_DOPT ? maxeval : per);
    if (isfinite(left)) nlopt_set_maxtime(opt, left);
    nlopt_set_ftol_rel(opt, 1e-10);
    nlopt_set_xtol_rel(opt, 1e-9);
    memcpy(xt, x, sizeof(double) * (size_t)nx);
    double fv;
    nlopt_result r = nlopt_optimize(opt, xt, &fv);
    nlopt_destroy(opt);
    if (r == NLOPT_MAXTIME_REACHED) w->stop = 1;
    double e = exact_at(oc, xt);
    if (e <= best) { memcpy(x, xt, sizeof(double) * (size_t)nx); best = e; }
  }
  w->p = 0;
  free(xt);
  return best;
}

typedef struct {
  const dyModel* m;
  const dyiBase* b;
  const dyiExciteOpt* o;
  pthread_mutex_t lock;
  int next, done;
  double* xs;          /* starts x results (starts x nvar) */
  double* val;         /* exact criterion per start (inf: not done) */
  double best;
  long evals;
  int stopped;
  double deadline;
  int fail;
  /* the round: searches i = 0..nrun-1 on slot order[i] (NULL: slot i),
   * fresh: from start_vars of the slot, else from the point in it;
   * maxeval evaluations through the exponents ps */
  int nrun, fresh, maxeval, total;
  int hops;            /* hop searches run */
  const int* order;
  const double* ps;
} excitePool;

static void* worker(void* arg) {
  excitePool* P = arg;
  const dyiExciteOpt* o = P->o;
  exciteWork w;
  if (ws_make(&w, P->m, P->b, o->nsamp, o->nh, o->period, o->rest, o->weighted ? o->sigma : NULL)) {
    ws_free(&w);
    pthread_mutex_lock(&P->lock); P->fail = 1; pthread_mutex_unlock(&P->lock);
    return NULL;
  }
  w.o = o; w.crit = o->criterion; w.deadline = P->deadline;
  init_u(&w, o);
  double* gf = malloc(sizeof(double) * (size_t)w.n * o->nh * 2);
  exciteObj oc = {&w, o->rest, o->margin, gf};
  for (;;) {
    pthread_mutex_lock(&P->lock);
    int i = P->next < P->nrun && !P->stopped && gf ? P->next++ : -1;
    pthread_mutex_unlock(&P->lock);
    if (i < 0) break;
    if (P->order) i = P->order[i];
    double* x = P->xs + (size_t)i * w.nvar;
    if (P->fresh) start_vars(o, w.n, i, x);
    long e0 = w.evals;
    double v = local_search(&oc, x, P->maxeval, P->ps);
    pthread_mutex_lock(&P->lock);
    P->evals += w.evals - e0;
    if (w.stop) P->stopped = 1;
    P->val[i] = v;          /* the best point of the search, even if cut short */
    P->done++;
    if (v < P->best) P->best = v;
    if (o->progress) {
      double shown = o->criterion == DYI_EXC_DOPT ? -P->best * w.nb : exp(P->best);
      o->progress(o->progress_ctx, P->done, P->total, shown);
    }
    pthread_mutex_unlock(&P->lock);
  }
  free(gf);
  ws_free(&w);
  return NULL;
}

/* ------------------------------------------------------------ evaluation */

/* cond, cond_scaled, logdet and vif of w->f (SVD for the reported cond) */
static int eval_report(exciteWork* w, double* cond, double* cond_scaled, double* logdet, double* vif) {
  int r = w->rows, c = w->nb, bad = 0;
  fill_W(w);
  /* column norms */
  for (int a = 0; a < c; a++) {
    double na = 0;
    for (int i = 0; i < r; i++) na += w->W[(size_t)a * r + i] * w->W[(size_t)a * r + i];
    w->dsc[a] = na > 0 ? 1 / sqrt(na) : 0;
  }
  if (vif) {
    /* Gram matrix of the column-normalised W, inverted by Cholesky */
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, c, r, 1.0, w->W, r, 0.0, w->Gm, c);
    for (int a = 0; a < c; a++)
      for (int bb = a; bb < c; bb++) w->Gm[(size_t)a * c + bb] *= w->dsc[a] * w->dsc[bb];
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', c, w->Gm, c) == 0 &&
        LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', c, w->Gm, c) == 0)
      for (int a = 0; a < c; a++) vif[a] = w->Gm[(size_t)a * c + a];
    else
      for (int a = 0; a < c; a++) vif[a] = INFINITY;
  }
  /* singular values of W D (into ev), then of W (GW: a copy) */
  for (int a = 0; a < c; a++)
    for (int i = 0; i < r; i++) w->GW[(size_t)a * r + i] = w->W[(size_t)a * r + i] * w->dsc[a];
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', r, c, w->GW, r, w->ev, NULL, 1, NULL, 1, w->work,
                          w->lwork)) bad = 1;
  if (cond_scaled) *cond_scaled = !bad && w->ev[c - 1] > 0 ? w->ev[0] / w->ev[c - 1] : INFINITY;
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', r, c, w->W, r, w->ev, NULL, 1, NULL, 1, w->work,
                          w->lwork)) bad = 1;
  double smax = w->ev[0], smin = w->ev[c - 1], ld = 0;
  for (int k = 0; k < c; k++) ld += 2 * log(w->ev[k] > 0 ? w->ev[k] : 1e-300);
  if (bad) { smin = 0; ld = -INFINITY; }
  if (logdet) *logdet = ld;
  if (cond) *cond = smin > 0 ? smax / smin : INFINITY;
  return smin > 0 ? 0 : -1;
}

int dyi_excite_eval(const dyModel* m, const dyiBase* b, const dyiFourier* f, int nsamp,
                    const double* sigma, double* cond, double* cond_scaled, double* logdet,
                    double* vif) {
  exciteWork w;
  if (nsamp < 2 || ws_make(&w, m, b, nsamp, f->nh, 2 * M_PI / f->wf, 0, sigma)) {
    if (nsamp >= 2) ws_free(&w);
    if (cond) *cond = INFINITY;
    if (cond_scaled) *cond_scaled = INFINITY;
    if (logdet) *logdet = -INFINITY;
    return -1;
  }
  w.f = *f;
  int r = eval_report(&w, cond, cond_scaled, logdet, vif);
  ws_free(&w);
  return r;
}

/* the options: harmonics 1 (2 at rest)..DYI_FOURIER_MAXH, positive
 * period and budget, >= 2 samples (with n nsamp >= nb rows), >= 1 start,
 * evaluation and thread, margin in (0, 1], positive finite noises */
static int excite_check(const dyModel* m, const dyiBase* b, const dyiExciteOpt* o, char* err, int errsz) {
  if (o->nh < (o->rest ? 2 : 1) || o->nh > DYI_FOURIER_MAXH || !(o->period > 0) || o->nsamp < 2 ||
      o->starts < 1 || o->maxeval < 1 || o->threads < 1 || !(o->margin > 0 && o->margin <= 1) ||
      !(o->maxtime >= 0) || o->hops < 0 || o->hop_rounds < 0 || (o->hops > 0 && o->hop_rounds > 0 &&
      (o->hop_eval < 1 || !(o->hop_scale > 0) || !isfinite(o->hop_scale)))) {
    snprintf(err, (size_t)errsz, "excite: need %d..%d harmonics, a positive period, >= 2 samples, "
             ">= 1 start, evaluation and thread, a margin in (0, 1], a time budget >= 0 (0: none), "
             "hops and hop rounds >= 0, and with hops >= 1 evaluation each and a positive hop scale",
             o->rest ? 2 : 1, DYI_FOURIER_MAXH);
    return -1;
  }
  if ((long)o->nsamp * m->n < b->nb) {
    snprintf(err, (size_t)errsz, "excite: %d samples x %d joints cannot determine %d base parameters; "
             "raise the samples per period", o->nsamp, m->n, b->nb);
    return -1;
  }
  for (int j = 0; o->weighted && j < m->n; j++)
    if (!(o->sigma[j] > 0) || !isfinite(o->sigma[j])) {
      snprintf(err, (size_t)errsz, "excite: the noise of joint %d must be positive (got %g)", j + 1, o->sigma[j]);
      return -1;
    }
  return 0;
}

/* the local searches: nt - 1 extra threads and the calling one take the
 * starts from the pool */
static void run_starts(excitePool* P, const dyiExciteOpt* o) {
  int nt = o->threads < P->nrun ? o->threads : P->nrun;
  P->next = 0;
  pthread_t th[64];
  if (nt > 64) nt = 64;
  int started = 0;
  for (int t = 1; t < nt; t++)
    if (pthread_create(&th[started], NULL, worker, P) == 0) started++;
  worker(P);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

/* rank[0..n-1]: slots 0..n-1 by value, ties by index (deterministic) */
static void rank_slots(const double* val, int n, int* rank) {
  for (int i = 0; i < n; i++) rank[i] = i;
  for (int i = 1; i < n; i++)      /* insertion sort */
    for (int k = i; k > 0 && val[rank[k]] < val[rank[k - 1]]; k--) {
      int t = rank[k]; rank[k] = rank[k - 1]; rank[k - 1] = t;
    }
}

/* The screening: ns starting points get a short search each on the
 * smoothest bound; the best S of them (rank_slots) move in that order to
 * slots 0..S-1 with their values, the other slots emptied. 0, or -1 out of
 * memory. */
static int screen_round(excitePool* P, const dyiExciteOpt* o, int nx, int ns, int S) {
  int* rank = malloc(sizeof(int) * (size_t)ns);
  double* keep = malloc(sizeof(double) * (size_t)nx * (size_t)S);
  if (!rank || !keep) { free(rank); free(keep); return -1; }
  P->nrun = ns; P->fresh = 1; P->maxeval = SCREEN_EVAL; P->ps = SCREEN_STEPS;
  run_starts(P, o);
  rank_slots(P->val, ns, rank);
  for (int k = 0; k < S; k++) {     /* P->val holds ns + S: the values via its tail */
    memcpy(keep + (size_t)k * nx, P->xs + (size_t)rank[k] * nx, sizeof(double) * (size_t)nx);
    P->val[ns + k] = P->val[rank[k]];
  }
  for (int k = 0; k < ns; k++) P->val[k] = k < S ? P->val[ns + k] : INFINITY;
  memcpy(P->xs, keep, sizeof(double) * (size_t)nx * (size_t)S);
  free(rank); free(keep);
  return 0;
}

/* hop i of round g: the best point so far (per joint unit norm) plus a
 * uniform perturbation of +-hop_scale on every variable, drawn from
 * (seed, g, i) only */
static void hop_point(const dyiExciteOpt* o, int n, int nx, const double* best, int g, int i, double* x) {
  unsigned long long s = o->seed * 0x9e3779b97f4a7c15ull +
                         (unsigned long long)(g * 4099 + i + 1) * 0xbf58476d1ce4e5b9ull;
  dyi_rng_next(&s);
  memcpy(x, best, sizeof(double) * (size_t)nx);
  normalise_vars(n, nx, x);
  for (int k = 0; k < nx; k++) x[k] += o->hop_scale * (2 * dyi_rng_uniform(&s) - 1);
}

/* Basin hopping: o->hop_rounds rounds of o->hops local searches (hop_eval
 * evaluations each) from perturbations of the best point so far; a round's
 * best (rank_slots) replaces it only when lower. At the end slot 0 holds
 * the best point and value, the other slots are emptied. *better: rounds
 * that improved. 0, or -1 out of memory. */
static int hop_rounds(excitePool* P, const dyiExciteOpt* o, int nx, int nslot, int* better) {
  int H = o->hops < nslot ? o->hops : nslot, n = P->m->n;
  int* rank = malloc(sizeof(int) * (size_t)nslot);
  double* best = malloc(sizeof(double) * (size_t)nx);
  if (!rank || !best) { free(rank); free(best); return -1; }
  rank_slots(P->val, nslot, rank);
  memcpy(best, P->xs + (size_t)rank[0] * nx, sizeof(double) * (size_t)nx);
  double bv = P->val[rank[0]];
  *better = 0;
  for (int g = 0; g < o->hop_rounds && H > 0 && isfinite(bv) && !P->stopped; g++) {
    for (int i = 0; i < nslot; i++) P->val[i] = INFINITY;
    for (int i = 0; i < H; i++) hop_point(o, n, nx, best, g, i, P->xs + (size_t)i * nx);
    P->nrun = H; P->fresh = 0; P->maxeval = o->hop_eval; P->ps = STEPS;
    int d0 = P->done;
    run_starts(P, o);
    P->hops += P->done - d0;   /* fewer than H when the time cap stopped the round */
    rank_slots(P->val, H, rank);
    if (P->val[rank[0]] < bv) {
      bv = P->val[rank[0]];
      memcpy(best, P->xs + (size_t)rank[0] * nx, sizeof(double) * (size_t)nx);
      (*better)++;
    }
  }
  for (int i = 0; i < nslot; i++) P->val[i] = INFINITY;
  memcpy(P->xs, best, sizeof(double) * (size_t)nx);
  P->val[0] = bv;
  free(rank); free(best);
  return 0;
}

/* The rounds of local searches: the screening (when ns > starts), the
 * local searches of the `starts` best points (without screening: from
 * their starting points), then the hops. The best point ends in slot 0
 * (P->val[0]; the others are infinite). *screened: the screening searches
 * done. 0, or -1 out of memory. */
static int search_rounds(excitePool* P, const dyiExciteOpt* o, int nx, int ns, int nslot, int* screened,
                         int* better) {
  int S = o->starts;
  P->total = (ns > S ? ns : 0) + S + o->hops * o->hop_rounds;
  *screened = 0;
  *better = 0;
  if (ns > S) {
    if (screen_round(P, o, nx, ns, S)) return -1;
    *screened = P->done;
  }
  P->nrun = S; P->fresh = ns <= S; P->maxeval = o->maxeval; P->ps = STEPS;
  if (!P->stopped) run_starts(P, o);
  return hop_rounds(P, o, nx, nslot, better);
}

/* Polish x on the exact criterion (p = 0), derivative-free (BOBYQA, at
 * most o->polish evaluations within the deadline); x is replaced only when
 * the exact value improves. */
static void polish(exciteObj* oc, excitePool* P, const dyiExciteOpt* o, int n, int nx, double* x) {
  oc->w->p = 0;
  normalise_vars(n, nx, x);
  double fv = exact_at(oc, x);
  nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, (unsigned)nx);
  nlopt_set_min_objective(opt, objective, oc);
  nlopt_set_maxeval(opt, o->polish);
  if (isfinite(P->deadline)) nlopt_set_maxtime(opt, P->deadline - dy_now_s());
  nlopt_set_xtol_rel(opt, 1e-9);
  nlopt_set_initial_step1(opt, 0.02);
  double* xt = malloc(sizeof(double) * (size_t)nx);
  if (xt) {
    memcpy(xt, x, sizeof(double) * (size_t)nx);
    double fp;
    nlopt_result r = nlopt_optimize(opt, xt, &fp);
    if (r == NLOPT_MAXTIME_REACHED) P->stopped = 1;
    double e = exact_at(oc, xt);
    if (e < fv) memcpy(x, xt, sizeof(double) * (size_t)nx);
    free(xt);
  }
  nlopt_destroy(opt);
}

/* The search: the first start is the reference "before" (cond0, logdet0);
 * the local searches run on the pool; the best start (lowest value, then
 * lowest index: deterministic) is polished and reported. */
int dyi_excite(const dyModel* m, const dyiBase* b, const dyiExciteOpt* o, dyiFourier* f,
               dyiExciteInfo* info, char* err, int errsz) {
  double t0 = dy_now_s();
  if (excite_check(m, b, o, err, errsz)) return -1;
  exciteWork w;
  int nx = nvars(o->rest, o->nh, m->n);
  excitePool P;
  memset(&P, 0, sizeof P);
  P.m = m; P.b = b; P.o = o; P.best = INFINITY; P.deadline = o->maxtime > 0 ? t0 + o->maxtime : INFINITY;
  int ns = o->screen > o->starts ? o->screen : o->starts, screened = 0, better = 0;
  int nslot = ns > o->hops ? ns : o->hops;
  P.xs = malloc(sizeof(double) * (size_t)nx * (size_t)nslot);
  P.val = malloc(sizeof(double) * (size_t)(nslot + o->starts));
  double* x0 = malloc(sizeof(double) * (size_t)nx);
  double* gf = malloc(sizeof(double) * (size_t)m->n * o->nh * 2);
  if (ws_make(&w, m, b, o->nsamp, o->nh, o->period, o->rest, o->weighted ? o->sigma : NULL) || !P.xs || !P.val ||
      !x0 || !gf) {
    free(x0); free(gf); ws_free(&w); free(P.xs); free(P.val);
    snprintf(err, (size_t)errsz, "excite: out of memory");
    return -1;
  }
  w.o = o; w.crit = o->criterion; w.deadline = P.deadline;
  init_u(&w, o);
  for (int i = 0; i < nslot + o->starts; i++) P.val[i] = INFINITY;
  pthread_mutex_init(&P.lock, NULL);
  exciteObj oc = {&w, o->rest, o->margin, gf};
  start_vars(o, m->n, 0, x0);
  vars_to_f(&w, x0, o->rest, o->margin);
  double cond0, logdet0;
  eval_report(&w, &cond0, NULL, &logdet0, NULL);
  if (search_rounds(&P, o, nx, ns, nslot, &screened, &better)) P.stopped = P.fail = 1;   /* out of memory: x0 */
  int ib = -1;
  for (int i = 0; i < o->starts; i++)
    if (isfinite(P.val[i]) && (ib < 0 || P.val[i] < P.val[ib])) ib = i;
  double* x = ib >= 0 ? P.xs + (size_t)ib * nx : x0;   /* the first start unless a search finished */
  long pevals = w.evals;
  if (o->polish > 0 && ib >= 0 && dy_now_s() < P.deadline && !P.stopped) polish(&oc, &P, o, m->n, nx, x);
  P.evals += w.evals - pevals;
  vars_to_f(&w, x, o->rest, o->margin);
  double cond, cs, logdet;
  int rr = eval_report(&w, &cond, &cs, &logdet, info ? info->vif : NULL);
  *f = w.f;
  if (info) {
    info->cond0 = cond0; info->logdet0 = logdet0;
    info->cond = cond; info->cond_scaled = cs; info->logdet = logdet;
    info->evals = P.evals + 1;
    info->starts_done = P.done - screened - P.hops;
    info->screened = screened;
    info->hops = P.hops;
    info->hops_better = better;
    info->budget_hit = P.stopped;
    info->seconds = dy_now_s() - t0;
  }
  pthread_mutex_destroy(&P.lock);
  free(x0); free(gf); free(P.xs); free(P.val);
  ws_free(&w);
  if (rr || P.fail) {
    snprintf(err, (size_t)errsz, P.fail ? "excite: out of memory" : "excite: the base regressor stays rank "
             "deficient along every trajectory tried (more harmonics or samples may help)");
    return -1;
  }
  return 0;
}

double dyi_excite_check(const dyModel* m, const dyiFourier* f, double duration, double rate,
                        char what[16], double* tworst) {
  double worst = -INFINITY, q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  long N = lround(duration * rate);
  snprintf(what, 16, "none");
  *tworst = 0;
  for (long s = 0; s <= N; s++) {
    double t = (double)s / rate;
    dyi_fourier_eval(f, t, q, qd, qdd);
    for (int j = 0; j < m->n; j++) {
      double q0, half, vmax, amax;
      dyi_joint_envelope(m, j, &q0, &half, &vmax, &amax);
      double v[3] = {fabs(q[j] - q0) / half - 1, fabs(qd[j]) / vmax - 1, fabs(qdd[j]) / amax - 1};
      static const char* const nm[3] = {"q", "qd", "qdd"};
      for (int k = 0; k < 3; k++)
        if (v[k] > worst) { worst = v[k]; snprintf(what, 16, "%s%d", nm[k], j + 1); *tworst = t; }
    }
  }
  return worst;
}

/* ------------------------------------------------------------ predictions */

int dyi_excite_default_noise(const dyModel* m, const dyiFourier* f, double duration,
                             double rate, double* sigma, int* fallback) {
  int n = m->n;
  dyData* d = dy_make_data(m);
  if (!d) return -1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tg[DY_MAXJ], ta[DY_MAXJ];
  double sg[DY_MAXJ] = {0}, sa[DY_MAXJ] = {0};
  long N = lround(duration * rate);
  if (N < 1) N = 1;
  for (long k = 0; k < N; k++) {
    dyi_fourier_eval(f, (double)k / rate, q, qd, qdd);
    dy_rnea_g(m, d, m->par, q, NULL, NULL, m->gravity, 0, tg);
    dy_rnea(m, d, m->par, q, qd, qdd, ta);
    for (int j = 0; j < n; j++) { sg[j] += tg[j] * tg[j]; sa[j] += ta[j] * ta[j]; }
  }
  double gmax = 0;
  for (int j = 0; j < n; j++) { sg[j] = sqrt(sg[j] / N); sa[j] = sqrt(sa[j] / N); if (sg[j] > gmax) gmax = sg[j]; }
  for (int j = 0; j < n; j++) {
    int fb = !(sg[j] >= 0.01 * gmax) || !(sg[j] > 0);
    sigma[j] = 0.01 * (fb ? sa[j] : sg[j]);
    if (!(sigma[j] > 0)) sigma[j] = 1e-3;  /* a joint with no torque at all */
    if (fallback) fallback[j] = fb;
  }
  dy_free_data(d);
  return 0;
}

int dyi_excite_predict(const dyModel* m, const dyiBase* b, const dyiFourier* f, double duration,
                       double rate, const double* sigma, double* beta, double* std, char* err,
                       int errsz) {
  enum { CH = 64, L8 = DY_BATCH_LANES };   /* CH: a multiple of the lanes */
  int n = m->n, nb = b->nb;
  size_t rows = (size_t)CH * n;
  dyiRegBatch* rb = dyi_regressor_batch_make(m, b->friction);
  int* pstart = malloc(sizeof(int) * (size_t)(nb + 1));
  int* pk = malloc(sizeof(int) * (size_t)(b->npar * nb + 1));
  double* pv = malloc(sizeof(double) * (size_t)(b->npar * nb + 1));
  double* A = malloc(sizeof(double) * rows * nb);      /* chunk of rows */
  double* As = malloc(sizeof(double) * rows * nb);     /* the same times sigma */
  double* G = calloc((size_t)nb * nb, sizeof(double));  /* W^T W */
  double* S = calloc((size_t)nb * nb, sizeof(double));  /* W^T S^2 W */
  int rc = -1;
  if (!rb || !pstart || !pk || !pv || !A || !As || !G || !S) { snprintf(err, (size_t)errsz, "excite: out of memory"); goto out; }
  dyi_base_sparse(b, 0, pstart, pk, pv);   /* every non-zero */
  long N = lround(duration * rate);
  dyLanes Ls;
  int ns = 0;
  for (long k0 = 0; k0 < N; k0 += L8) {
    const int cnt = N - k0 < L8 ? (int)(N - k0) : L8;
    Ls.nb = 0;
    for (int e = 0; e < cnt; e++) {
      double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ], t = (double)(k0 + e) / rate;
      dyi_fourier_eval(f, t, qs, qds, qdds);
      dy_lanes_push(&Ls, n, qs, qds, qdds, NULL, t, k0 + e);
    }
    const double* L = dyi_regressor_lanes(m, rb, cnt, Ls.q, Ls.qd, Ls.qdd, L8);
    base_lanes(L, n, nb, pstart, pk, pv, cnt, A + (size_t)ns * n, rows);
    for (int c = 0; c < nb; c++)
      for (int r = ns * n; r < (ns + cnt) * n; r++)
        As[(size_t)c * rows + (size_t)r] = A[(size_t)c * rows + (size_t)r] * sigma[r % n];
    ns += cnt;
    if (ns == CH || k0 + cnt == N) {
      int r = ns * n;
      cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, nb, r, 1.0, A, (int)rows, 1.0, G, nb);
      cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, nb, r, 1.0, As, (int)rows, 1.0, S, nb);
      ns = 0;
    }
  }
  for (int c = 0; c < nb; c++)
    for (int r = c + 1; r < nb; r++) S[(size_t)r * nb + c] = S[(size_t)c * nb + r];
  /* cov = G^-1 S G^-1: X = G^-1 S, then cov = G^-1 X^T (S symmetric) */
  if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nb, G, nb) ||
      LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', nb, nb, G, nb, S, nb)) {
    snprintf(err, (size_t)errsz, "excite: the base regressor of the trajectory is rank deficient");
    goto out;
  }
  for (int c = 0; c < nb; c++)
    for (int r = c + 1; r < nb; r++) {
      double t = S[(size_t)r * nb + c];
      S[(size_t)r * nb + c] = S[(size_t)c * nb + r];
      S[(size_t)c * nb + r] = t;
    }
  LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', nb, nb, G, nb, S, nb);
  for (int c = 0; c < nb; c++) {
    double v = S[(size_t)c * nb + c];
    std[c] = v > 0 ? sqrt(v) : 0;
    double acc = 0;
    for (int p = 0; p < b->npar; p++) acc += b->B[(size_t)c * b->npar + p] * m->par[p];
    beta[c] = acc;
  }
  rc = 0;
out:
  dyi_regressor_batch_free(rb);
  free(pstart); free(pk); free(pv);
  free(A); free(As); free(G); free(S);
  return rc;
}
