/* SPDX-License-Identifier: MIT */
/* dynid verify: validation metrics, inertia-matrix check, short-horizon
 * simulation and physical consistency (see validate.h). */
#include "verify/validate.h"
#include "core/dynamics.h"
#include "core/mathu.h"
#include "verify/sim.h"
#include "ident/regressor.h"
#include "ident/identify.h"
#include <lapacke.h>
#include "ident/consistent.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ metrics */
void dyv_stats_init(dyvTorqueStats* s, int n) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->maxjoint = -1;
}

void dyv_stats_add(dyvTorqueStats* s, const double* meas, const double* pred, long row, double t) {
  if (s->count == 0) for (int j = 0; j < s->n; j++) s->shift[j] = meas[j];
  for (int j = 0; j < s->n; j++) {
    double e = meas[j] - pred[j], y = meas[j] - s->shift[j];
    s->sse[j] += e*e;
    s->ssm[j] += meas[j]*meas[j];
    s->s1[j] += y;
    s->s2[j] += y*y;
    if (fabs(e) > s->maxerr || s->maxjoint < 0) {
      s->maxerr = fabs(e); s->maxjoint = j; s->maxrow = row; s->maxt = t;
    }
  }
  s->count++;
}

void dyv_stats_result(const dyvTorqueStats* s, double* rms, double* rel, double* r2) {
  const int n = s->n;
  double se = 0, sm = 0, st = 0;
  for (int j = 0; j <= n; j++) rms[j] = rel[j] = r2[j] = NAN;
  if (s->count == 0) return;
  const double N = (double)s->count;
  for (int j = 0; j < n; j++) {
    double sst = s->s2[j] - s->s1[j]*s->s1[j]/N;
    rms[j] = sqrt(s->sse[j]/N);
    rel[j] = s->ssm[j] > 0 ? 100*sqrt(s->sse[j]/s->ssm[j]) : NAN;
    r2[j] = sst > 0 ? 1 - s->sse[j]/sst : NAN;
    se += s->sse[j]; sm += s->ssm[j]; st += sst > 0 ? sst : 0;
  }
  rms[n] = sqrt(se/(N*n));
  rel[n] = sm > 0 ? 100*sqrt(se/sm) : NAN;
  r2[n] = st > 0 ? 1 - se/st : NAN;
}

int dyv_mineig_lwork(int n) { return n*n + 4*n + 8; }

/* 1 when H - shift I is positive definite (H symmetric, n x n), by a
 * Cholesky factorisation into L (n*n scratch): n^3/6 multiply-adds, far
 * cheaper than the eigenvalues */
static int pd_shifted(const double* H, int n, double shift, double* L) {
  for (int j = 0; j < n; j++) {
    double d = H[j*n + j] - shift;
    for (int k = 0; k < j; k++) d -= L[j*n + k] * L[j*n + k];
    if (!(d > 0)) return 0;
    const double ljj = sqrt(d);
    L[j*n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double a = H[i*n + j];
      for (int k = 0; k < j; k++) a -= L[i*n + k] * L[j*n + k];
      L[i*n + j] = a / ljj;
    }
  }
  return 1;
}

/* 1 when H + delta I is not positive definite (its Cholesky fails) with
 * delta = 1e-12 tr(H): the smallest eigenvalue of H is then below
 * -delta + c n eps ||H||, negative: Cholesky in floating point is the
 * exact factorisation of a matrix within c n eps ||H|| of H (its
 * backward error, ~1.6e-15 ||H|| at n = 7), far under delta. An indefinite set, where every sample fails, then needs
 * no eigenvalue per sample. */
static int not_pd_clearly(const double* H, int n, double* L) {
  double tr = 0;
  for (int j = 0; j < n; j++) tr += fabs(H[j*n + j]);
  return !pd_shifted(H, n, -1e-12 * tr, L);
}

double dyv_mineig(const double* H, int n, double* work) {
  double *A = work, *w = work + n*n, *wk = w + n;
  memcpy(A, H, sizeof(double) * (size_t)n * (size_t)n);
  lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', n, A, n, w, wk, 3*n + 8);
  return info == 0 ? w[0] : NAN;
}

/* ------------------------------------------------- samples in chunks */
#define VB DY_BATCH_LANES

/* up to VB samples (core's lane packing, the unfiltered measured torque
 * as tau) with the predicted torque, for one call of each batch kernel */
struct dyvPending_ {
  dyLanes l;
  double pred[DY_MAXJ*VB]; /* predicted torque */
  double* H;               /* inertia matrices, n*n*VB (validator only) */
  dyBatch* w;              /* scratch of the batch kernels */
};

/* a chunk for model m (with room for VB inertia matrices if withH); NULL
 * on allocation failure */
static dyvPending* pend_make(const dyModel* m, int withH) {
  dyvPending* c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->w = dy_make_batch(m);
  if (withH) c->H = malloc(sizeof(double) * (size_t)(m->n * m->n * VB));
  if (!c->w || (withH && !c->H)) { dy_free_batch(c->w); free(c->H); free(c); return NULL; }
  return c;
}

static void pend_free(dyvPending* c) {
  if (c) { dy_free_batch(c->w); free(c->H); free(c); }
}

/* sample s into the next lane */
static void pend_push(dyvPending* c, const dyiSample* s, int n) {
  dy_lanes_push(&c->l, n, s->q, s->qd, s->qdd, s->tau_raw, s->t, s->row);
}

/* the torque predicted for every lane (pred) by the base-parameter
 * Newton-Euler, one call for the chunk; the lanes after the samples are
 * set to the zero state first */
static void pend_predict(dyvPending* c, const dyvNeBase* plan, const double* par, int n) {
  dy_lanes_pad(&c->l, n);
  dyv_nebase_rnea_batch(plan, c->w, par, VB, c->l.q, c->l.qd, c->l.qdd, c->pred);
}

/* lane b's measured and predicted torque (n each) */
static void pend_lane(const dyvPending* c, int b, int n, double* meas, double* pred) {
  dy_lane_get(c->l.tau, n, b, meas);
  dy_lane_get(c->pred, n, b, pred);
}

/* ----------------------------------------------------------- validator */
dyvValidator* dyv_validator_make(const dyModel* m, const double* par,
                                 const unsigned char* zero, const double* dyn, double horizon) {
  const int n = m->n;
  dyvValidator* v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->m = m;
  v->d = dy_make_data(m);
  v->par = malloc(sizeof(double) * (size_t)dy_npar(m));
  v->dyn = malloc(sizeof(double) * (size_t)dy_npar(m));
  v->H = malloc(sizeof(double) * (size_t)n * (size_t)n);
  v->work = malloc(sizeof(double) * (size_t)dyv_mineig_lwork(n));
  v->pend = pend_make(m, 1);
  v->sim = dyv_sim_make(m, dyn ? dyn : par);
  if (!v->d || !v->par || !v->dyn || !v->H || !v->work || !v->pend || !v->sim) { dyv_validator_free(v); return NULL; }
  memcpy(v->par, par, sizeof(double) * (size_t)dy_npar(m));
  memcpy(v->dyn, dyn ? dyn : par, sizeof(double) * (size_t)dy_npar(m));
  dyv_nebase_make(&v->plan, m, zero);
  dyv_stats_init(&v->st, n);
  v->mineig = INFINITY;
  v->horizon = horizon;
  return v;
}

void dyv_validator_free(dyvValidator* v) {
  if (!v) return;
  dy_free_data(v->d);
  free(v->par); free(v->dyn); free(v->H); free(v->work);
  pend_free(v->pend);
  dyv_sim_free(v->sim);
  free(v);
}

static void sim_restart(dyvValidator* v, const dyiSample* s) {
  const int n = v->m->n;
  memcpy(v->sim_q, s->q, sizeof(double) * n);
  memcpy(v->sim_qd, s->qd, sizeof(double) * n);
  memcpy(v->sim_tau, s->tau_raw, sizeof(double) * n);
  v->sim_t0 = v->sim_tprev = s->t;
  v->sim_on = 1;
  v->sim_segments++;
}

/* The buffered samples, in order: the torque metrics against the
 * predicted torque, and the smallest eigenvalue of each inertia matrix
 * (one call of each batch kernel for all of them) */
void dyv_validator_flush(dyvValidator* v) {
  dyvPending* c = v->pend;
  const int n = v->m->n;
  if (c->l.nb == 0) return;
  pend_predict(c, &v->plan, v->par, n);
  dy_crba_batch(v->m, c->w, v->dyn, VB, c->l.q, c->H);
  for (int b = 0; b < c->l.nb; b++) {
    double meas[DY_MAXJ], pred[DY_MAXJ];
    pend_lane(c, b, n, meas, pred);
    dyv_stats_add(&v->st, meas, pred, c->l.row[b], c->l.t[b]);
    for (int i = 0; i < n*n; i++) v->H[i] = c->H[i*VB + b];
    /* positive definite by Cholesky, and H - mineig I too: then its smallest
     * eigenvalue is above both 0 and the smallest so far, and not needed;
     * elsewhere the eigenvalue decides (also between the two tests' round-off) */
    if (pd_shifted(v->H, n, 0, v->work) && (v->mineig <= 0 || pd_shifted(v->H, n, v->mineig, v->work))) continue;
    if (not_pd_clearly(v->H, n, v->work) && isfinite(v->mineig) && pd_shifted(v->H, n, v->mineig, v->work)) {
      v->not_pd++;   /* the eigenvalue is below 0 and above the smallest so far */
      continue;
    }
    double e = dyv_mineig(v->H, n, v->work);
    if (!(e > 0)) v->not_pd++;
    if (e < v->mineig || isnan(e)) { v->mineig = e; v->mineig_row = c->l.row[b]; v->mineig_t = c->l.t[b]; }
  }
  c->l.nb = 0;
}

void dyv_validator_add(dyvValidator* v, const dyiSample* s) {
  const int n = v->m->n;
  pend_push(v->pend, s, n);
  if (v->pend->l.nb == VB) dyv_validator_flush(v);
  if (v->horizon > 0) {
    if (!v->sim_on) { sim_restart(v, s); return; }
    double dt = s->t - v->sim_tprev;
    if (!(dt > 0) || dyv_sim_advance(v->sim, v->sim_q, v->sim_qd, v->sim_tau, dt)) {
      v->sim_fail++; sim_restart(v, s); return;
    }
    for (int j = 0; j < n; j++) {
      double err = s->q[j] - v->sim_q[j];
      v->sim_se[j] += err*err;
      if (fabs(err) > v->sim_max[j]) { v->sim_max[j] = fabs(err); v->sim_maxrow[j] = s->row; }
    }
    v->sim_count++;
    v->sim_tprev = s->t;
    memcpy(v->sim_tau, s->tau_raw, sizeof(double) * n);
    if (s->t - v->sim_t0 >= v->horizon * (1 - 1e-9)) sim_restart(v, s);
  }
}

double dyv_time_shown(double t) { return round(t * 1e9) / 1e9 + 0.0; }

void dyv_validator_write(dyvValidator* v, FILE* csv, FILE* notes) {
  const int n = v->m->n;
  dyv_validator_flush(v);
  double rms[DY_MAXJ + 1], rel[DY_MAXJ + 1], r2[DY_MAXJ + 1];
  dyv_stats_result(&v->st, rms, rel, r2);
  fprintf(csv, "joint,rms,rel_err_pct,r2\n");
  for (int j = 0; j <= n; j++) {
    if (j < n) fprintf(csv, "%d,", j + 1); else fprintf(csv, "all,");
    fprintf(csv, "%.6g,%.6g,%.6g\n", rms[j], rel[j], r2[j]);
  }
  if (!notes) return;
  fprintf(notes, "# samples: %ld; torque predicted by the base-parameter Newton-Euler "
          "(%d of %d parameters structurally zero) against the unfiltered logged torque\n",
          v->st.count, v->plan.nzero, dy_npar(v->m));
  if (v->st.count > 0) {
    /* each joint's rel_err_pct is its normalised rms (rms error / rms measured);
     * "all" weighs the joints by their torque, their mean weighs them alike */
    double mean = 0;
    for (int j = 0; j < n; j++) mean += rel[j] / n;
    fprintf(notes, "# mean of the per-joint relative errors (normalised rms, every joint alike): %.6g %%; "
            "all: %.6g %% (weighted by torque, dominated by the large joints)\n", mean, rel[n]);
    fprintf(notes, "# largest error: %.6g on joint %d at data row %ld (t = %.6g s)\n",
            v->st.maxerr, v->st.maxjoint + 1, v->st.maxrow, dyv_time_shown(v->st.maxt));
    fprintf(notes, "# inertia matrix (CRBA on the realisation): smallest eigenvalue %.6g at data row %ld "
            "(t = %.6g s); %s (%ld of %ld samples not positive definite)\n",
            v->mineig, v->mineig_row, dyv_time_shown(v->mineig_t),
            v->not_pd ? "NOT positive definite along the log" : "positive definite at every sample",
            v->not_pd, v->st.count);
  }
  if (v->horizon > 0) {
    fprintf(notes, "# forward simulation (Rosenbrock-W on ABA, measured torque held between samples), horizon %.6g s, "
            "%ld segments, %ld compared samples, %ld restarts after failure\n",
            v->horizon, v->sim_segments, v->sim_count, v->sim_fail);
    if (v->sim_fail > 0)
      fprintf(notes, "# sim: %ld integration steps failed (forward dynamics needs a positive definite "
              "inertia matrix; see above) and were restarted from the measured state\n", v->sim_fail);
    for (int j = 0; j < n && v->sim_count > 0; j++)
      fprintf(notes, "# sim joint %d: position error rms %.6g, max %.6g at data row %ld\n", j + 1,
              sqrt(v->sim_se[j] / (double)v->sim_count), v->sim_max[j], v->sim_maxrow[j]);
  }
}

/* -------------------------------------------- a sparse realisation */
static int try_columns(double* Ps, const dyiBase* b, const int* S) {
  const int nb = b->nb, np = b->npar;
  double* A = malloc(sizeof(double) * (size_t)nb * (size_t)nb);
  double* X = calloc((size_t)nb * (size_t)nb, sizeof(double));
  lapack_int* ip = malloc(sizeof(lapack_int) * (size_t)nb);
  int ok = 0;
  if (A && X && ip) {
    /* column-major B_S and identity */
    for (int i = 0; i < nb; i++) {
      X[(size_t)i*nb + i] = 1;
      for (int c = 0; c < nb; c++) A[(size_t)c*nb + i] = b->B[(size_t)i*np + S[c]];
    }
    if (LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nb, nb, A, nb, ip, X, nb) == 0) {
      memset(Ps, 0, sizeof(double) * (size_t)np * (size_t)nb);
      /* Ps[S[c], :] = row c of B_S^-1 = X[c, :] */
      for (int c = 0; c < nb; c++)
        for (int k = 0; k < nb; k++) Ps[(size_t)S[c]*nb + k] = X[(size_t)k*nb + c];
      double worst = 0;
      for (int i = 0; i < nb && worst <= 1e-9; i++)
        for (int k = 0; k < nb; k++) {
          double acc = 0;
          for (int c = 0; c < nb; c++) acc += b->B[(size_t)i*np + S[c]] * Ps[(size_t)S[c]*nb + k];
          worst = fmax(worst, fabs(acc - (i == k)));
        }
      ok = isfinite(worst) && worst <= 1e-9;
    }
  }
  free(A); free(X); free(ip);
  return ok;
}

int dyv_sparse_P(double* Ps, const dyiBase* b, char* err, int errsz) {
  const int nb = b->nb, np = b->npar;
  int* S = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
  if (!S) { snprintf(err, errsz, "sparse realisation: out of memory"); return -1; }
  int leads = 1;
  for (int i = 0; i < nb && leads; i++) {
    S[i] = b->lead ? b->lead[i] : -1;
    if (S[i] < 0 || S[i] >= np) leads = 0;
    for (int k = 0; k < i && leads; k++) if (S[k] == S[i]) leads = 0;
  }
  if (leads && try_columns(Ps, b, S)) { free(S); return 0; }
  /* QR with column pivoting of B (column-major nb x np) */
  double* A = malloc(sizeof(double) * (size_t)nb * (size_t)np);
  lapack_int* jp = calloc((size_t)np, sizeof(lapack_int));
  double* tq = malloc(sizeof(double) * (size_t)(nb < np ? nb : np) + sizeof(double));
  int ok = 0;
  if (A && jp && tq) {
    for (int i = 0; i < nb; i++)
      for (int k = 0; k < np; k++) A[(size_t)k*nb + i] = b->B[(size_t)i*np + k];
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, nb, np, A, nb, jp, tq) == 0) {
      for (int i = 0; i < nb; i++) S[i] = jp[i] - 1;
      ok = try_columns(Ps, b, S);
    }
  }
  free(A); free(jp); free(tq); free(S);
  if (!ok) { snprintf(err, errsz, "sparse realisation: the rows of B are linearly dependent"); return -1; }
  return 0;
}

int dyv_realise_sparse(const dyModel* m, const dyiBase* b, const double* beta, double* par,
                       unsigned char* zero, char* err, int errsz) {
  const int nb = b->nb, npb = b->npar, np = dy_npar(m);
  double* Ps = malloc(sizeof(double) * (size_t)npb * (size_t)(nb > 0 ? nb : 1));
  if (!Ps) { snprintf(err, errsz, "out of memory"); return -1; }
  if (dyv_sparse_P(Ps, b, err, errsz)) { free(Ps); return -1; }
  memset(par, 0, sizeof(double) * (size_t)np);
  for (int k = 0; k < npb; k++)
    for (int i = 0; i < nb; i++) par[k] += Ps[(size_t)k*nb + i] * beta[i];
  if (zero) dyv_nebase_zero_from_P(zero, m, Ps, npb, nb);
  for (int k = 0; b->fix && k < npb; k++)   /* held parameters (ident/base.h dyi_base_fix) */
    if (!isnan(b->fix[k])) {
      par[k] = b->fix[k];
      if (zero) zero[k] = b->fix[k] == 0;
    }
  free(Ps);
  return 0;
}

/* ------------------------------------------ k-fold cross-validation */
/* the chunk's samples, predicted by the base-parameter Newton-Euler on
 * par, into the fold's and the pooled metrics in sample order */
static void cv_flush(dyvPending* ch, const dyvNeBase* plan, const double* par, int n,
                     dyvTorqueStats* fs, dyvTorqueStats* pooled) {
  if (ch->l.nb == 0) return;
  pend_predict(ch, plan, par, n);
  for (int b = 0; b < ch->l.nb; b++) {
    double meas[DY_MAXJ], pred[DY_MAXJ];
    pend_lane(ch, b, n, meas, pred);
    dyv_stats_add(fs, meas, pred, ch->l.row[b], ch->l.t[b]);
    dyv_stats_add(pooled, meas, pred, ch->l.row[b], ch->l.t[b]);
  }
  ch->l.nb = 0;
}

/* Fold f's held-out block [skip0, skip1) of the log predicted with par,
 * VB samples per call of the batch kernel: the fold's rel_err_pct over
 * all joints, the pooled metrics and the block's first and last data rows
 * into out. 0, or -1 on a log error (err set). */
static int cv_heldout(dyvCrossVal* out, int f, dyiLogReader* lr, long skip0, long skip1,
                      const dyvNeBase* plan, const double* par, dyvPending* ch, char* err,
                      int errsz) {
  const int n = plan->n;
  if (dyi_log_rewind(lr, err, errsz)) return -1;
  dyvTorqueStats fs;
  dyv_stats_init(&fs, n);
  dyiSample s;
  int k;
  long i = 0;
  while ((k = dyi_log_next(lr, &s, err, errsz)) == 1 && i < skip1) {
    if (i >= skip0) {
      pend_push(ch, &s, n);
      if (ch->l.nb == VB) cv_flush(ch, plan, par, n, &fs, &out->pooled);
      if (i == skip0) out->fold_first[f] = s.row;
      out->fold_last[f] = s.row;
    }
    i++;
  }
  cv_flush(ch, plan, par, n, &fs, &out->pooled);
  if (k < 0) return -1;
  double rms[DY_MAXJ + 1], rel[DY_MAXJ + 1], r2[DY_MAXJ + 1];
  dyv_stats_result(&fs, rms, rel, r2);
  out->fold_rel[f] = rel[n];
  return 0;
}

int dyv_crossval(dyvCrossVal* out, const dyModel* m, const dyiBase* b,
                 dyiLogReader* lr, long N, int K, char* err, int errsz) {
  const int n = m->n, nb = b->nb, np = b->npar;
  memset(out, 0, sizeof *out);
  if (K < 2 || K > DYV_MAXFOLD) { snprintf(err, errsz, "cross-validation: K = %d folds (2..%d)", K, DYV_MAXFOLD); return -1; }
  out->K = K;
  dyv_stats_init(&out->pooled, n);
  if (N <= 0) {   /* not known: a pass to count them */
    dyiSample s;
    int k;
    if (dyi_log_rewind(lr, err, errsz)) return -1;
    while ((k = dyi_log_next(lr, &s, err, errsz)) == 1) N++;
    if (k < 0) return -1;
  }
  out->N = N;
  if (N < (long)K * (nb + n) / n + K) { snprintf(err, errsz, "cross-validation: %ld samples are too few for %d folds of %d base parameters", N, K, nb); return -1; }
  dyiLogRows* c = dyi_logrows_make(m, b, &lr, 1, err, errsz);
  if (!c) return -1;
  dyvPending* ch = pend_make(m, 0);
  double* par = calloc((size_t)dy_npar(m), sizeof(double));
  unsigned char* zero = malloc((size_t)dy_npar(m));
  double* Ps = malloc(sizeof(double) * (size_t)np * (size_t)(nb > 0 ? nb : 1));
  int status = -1;
  dyiEstim* e = NULL;
  if (!ch || !par || !zero || !Ps) { snprintf(err, errsz, "cross-validation: out of memory"); goto done; }
  if (dyv_sparse_P(Ps, b, err, errsz)) goto done;
  dyv_nebase_zero_from_P(zero, m, Ps, np, nb);
  dyvNeBase plan;
  dyv_nebase_make(&plan, m, zero);
  dyiEstOpt eo;
  dyi_est_defaults(&eo);
  eo.method = DYI_OLS;
  e = dyi_est_make(n, nb, &eo, err, errsz);
  if (!e) goto done;
  for (int f = 0; f < K; f++) {
    const long skip0 = N * f / K, skip1 = N * (f + 1) / K;
    dyi_logrows_window(c, skip0, skip1);
    dyiRowSource src = dyi_logrows_source(c);
    if (src.rewind(src.ctx, err, errsz)) goto done;
    if (dyi_est_run(e, &src, err, errsz)) {
      char tmp[256];
      snprintf(tmp, sizeof tmp, "%s", err);
      snprintf(err, errsz, "cross-validation fold %d: %s", f + 1, tmp);
      goto done;
    }
    for (int kk = 0; kk < np; kk++) {
      double acc = 0;
      for (int i = 0; i < nb; i++) acc += Ps[(size_t)kk*nb + i] * e->beta[i];
      par[kk] = acc;
    }
    if (cv_heldout(out, f, lr, skip0, skip1, &plan, par, ch, err, errsz)) goto done;
  }
  status = 0;
done:
  dyi_est_free(e);
  pend_free(ch); free(par); free(zero); free(Ps);
  dyi_logrows_free(c);
  return status;
}

void dyv_crossval_print(FILE* f, const dyvCrossVal* cv) {
  const int n = cv->pooled.n;
  double rms[DY_MAXJ + 1], rel[DY_MAXJ + 1], r2[DY_MAXJ + 1];
  dyv_stats_result(&cv->pooled, rms, rel, r2);
  fprintf(f, "# %d-fold cross-validation by time blocks (%ld samples; OLS on K-1 blocks, "
          "held-out block predicted by the base-parameter NE against the unfiltered torque):\n",
          cv->K, cv->N);
  for (int j = 0; j <= n; j++) {
    if (j < n) fprintf(f, "# cv joint %d", j + 1); else fprintf(f, "# cv all");
    fprintf(f, ": rms %.6g, rel_err_pct %.6g, r2 %.6g\n", rms[j], rel[j], r2[j]);
  }
  for (int k = 0; k < cv->K; k++)
    fprintf(f, "# cv fold %d (rows %ld..%ld): rel_err_pct %.6g\n", k + 1, cv->fold_first[k],
            cv->fold_last[k], cv->fold_rel[k]);
}

/* ------------------------------------------------- physical consistency */
void dyv_link_phys(dyvLinkPhys* o, const double* p) {
  memset(o, 0, sizeof *o);
  o->mass = p[DY_M];
  o->pi_mineig = dyi_pseudo_mineig(p);
  double Ic[9];
  const double* h = p + DY_MX;
  dyu_sym6ToMat(Ic, p);
  if (o->mass > 0) {
    for (int k = 0; k < 3; k++) o->com[k] = h[k] / o->mass;
    double hh = dyu_dot3(h, h);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) Ic[3*r + c] -= ((r == c ? hh : 0) - h[r]*h[c]) / o->mass;
  }
  double w[3], wk[64];
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', 3, Ic, 3, w, wk, 64) != 0) w[0] = w[1] = w[2] = NAN;
  memcpy(o->pmom, w, sizeof w);
  o->tri = w[0] + w[1] - w[2];
  double sc = fmax(fabs(w[2]), 1e-300);
  o->ok = o->mass > 0 && w[0] > 0 && o->tri >= -1e-12 * sc;
}

int dyv_phys_check(dyvPhys* out, const dyModel* m, const double* pi0, const double* B,
                   int nb, int npar, char* err, int errsz) {
  const int n = m->n;
  memset(out, 0, sizeof *out);
  out->n = n;
  out->best_par = calloc((size_t)dy_npar(m), sizeof(double));
  double* beta = calloc((size_t)(nb > 0 ? nb : 1), sizeof(double));
  if (!out->best_par || !beta) { free(beta); snprintf(err, errsz, "physical consistency: out of memory"); return -1; }
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < npar; k++) beta[i] += B[(size_t)i*npar + k] * pi0[k];
  for (int j = 0; j < n; j++) dyv_link_phys(&out->given[j], pi0 + DY_NPAR_LINK*j);
  /* centre of the scaled variables: the nominal model when it has masses */
  double mass = 0;
  for (int j = 0; j < n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  int r = dyi_consistent_check(m, B, nb, npar, beta, mass > 0 ? m->par : NULL, &out->dist,
                               &out->lower, out->best_par, err, errsz);
  free(beta);
  if (r < 0) return -1;
  out->verdict = r;
  for (int k = npar; k < dy_npar(m); k++) out->best_par[k] = pi0[k];
  for (int j = 0; j < n; j++) dyv_link_phys(&out->best[j], out->best_par + DY_NPAR_LINK*j);
  return 0;
}

/* dyv_phys_carried's test of link l (dyv_link_phys of p): m > 0, the
 * pseudo-inertia's smallest eigenvalue, the smallest principal moment and
 * the triangle inequality each >= -1e-9 tr(PI) */
static int link_carried_ok(const dyvLinkPhys* l, const double* p) {
  double trJ = p[DY_XX] + p[DY_YY] + p[DY_ZZ];
  double tol = 1e-9 * (fabs(trJ) / 2 + fabs(p[DY_M]));   /* tr(PI) = tr(J)/2 + m */
  return l->mass > 0 && l->pi_mineig >= -tol && l->pmom[0] >= -tol && l->tri >= -tol;
}

void dyv_phys_carried(dyvPhys* out, const dyModel* m, const double* pi, int npar) {
  const int n = m->n, nl = DY_NPAR_LINK * n;
  memset(out, 0, sizeof *out);
  out->n = n;
  out->carried = 1;
  out->verdict = 1;
  for (int j = 0; j < n; j++) {
    dyv_link_phys(&out->given[j], pi + DY_NPAR_LINK*j);
    out->given_ok[j] = link_carried_ok(&out->given[j], pi + DY_NPAR_LINK*j);
    if (!out->given_ok[j]) out->verdict = 0;
  }
  if (npar > nl) {
    out->joints = 1;
    out->joint_min = INFINITY;
    for (int j = 0; j < n; j++)
      for (int q = 0; q < 3; q++) out->joint_min = fmin(out->joint_min, pi[nl + DY_NPAR_JNT*j + q]);
    if (!(out->joint_min >= -1e-9)) out->verdict = 0;
  }
}

void dyv_phys_free(dyvPhys* p) {
  if (p) { free(p->best_par); p->best_par = NULL; }
}

static void print_link(FILE* f, int j, const dyvLinkPhys* l) {
  fprintf(f, "#   link %d: m %.6g, principal moments about com %.4g %.4g %.4g, "
          "I1+I2-I3 %.4g, pseudo-inertia min eig %.4g: %s", j + 1, l->mass,
          l->pmom[0], l->pmom[1], l->pmom[2], l->tri, l->pi_mineig, l->ok ? "valid" : "INVALID (");
  if (!l->ok) {
    const char* sep = "";
    if (!(l->mass > 0)) { fprintf(f, "%smass <= 0", sep); sep = ", "; }
    if (!(l->pmom[0] > 0)) { fprintf(f, "%snegative principal moment", sep); sep = ", "; }
    if (!(l->tri >= 0)) { fprintf(f, "%striangle inequality fails", sep); }
    fprintf(f, ")");
  }
  fprintf(f, "\n");
}

/* one link of carried standard parameters: mass, centre of mass in frame j
 * and its distance from O_j, principal moments about it, its verdict */
static void print_carried_link(FILE* f, int j, const dyvLinkPhys* l, int ok) {
  const double* c = l->com;
  fprintf(f, "#   link %d: m %.6g kg, centre of mass (%.4g, %.4g, %.4g) m in frame %d, %.4g m from O_%d, "
          "principal moments about it %.4g %.4g %.4g kg m^2: ", j + 1, l->mass, c[0], c[1], c[2], j + 1,
          sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]), j + 1, l->pmom[0], l->pmom[1], l->pmom[2]);
  if (ok) fprintf(f, "valid\n");
  else fprintf(f, "INVALID (%spseudo-inertia min eig %.4g)\n", l->mass > 0 ? "" : "mass <= 0, ", l->pi_mineig);
}

/* the verdict on carried standard parameters (naming what fails) and their links */
static void print_carried(FILE* f, const dyvPhys* p) {
  const int jbad = p->joints && !(p->joint_min >= -1e-9);
  if (p->verdict == 1)
    fprintf(f, "# physical consistency: consistent (certified): the PARAMS file carries physically consistent "
            "standard parameters (every link's pseudo-inertia positive semi-definite%s)\n",
            p->joints ? ", IA, FV, FC >= 0" : "");
  else {
    fprintf(f, "# physical consistency: INCONSISTENT: the standard parameters the PARAMS file carries fail");
    const char* sep = " at link";
    for (int j = 0; j < p->n; j++)
      if (!p->given_ok[j]) { fprintf(f, "%s %d", sep, j + 1); sep = ","; }
    if (jbad) fprintf(f, "%s IA, FV or FC (smallest %.4g)", sep[0] == ',' ? " and at" : " at", p->joint_min);
    fprintf(f, " (identify --consistent writes them consistent: edited by hand?)\n");
  }
  for (int j = 0; j < p->n; j++) print_carried_link(f, j, &p->given[j], p->given_ok[j]);
}

void dyv_phys_print(FILE* f, const dyvPhys* p) {
  if (p->carried) { print_carried(f, p); return; }
  double d = sqrt(fmax(p->dist, 0)), lb = sqrt(fmax(p->lower, 0));
  if (p->verdict == 1)
    fprintf(f, "# physical consistency: consistent (certified): a realisation with every link's "
            "pseudo-inertia positive semi-definite and IA, FV, FC >= 0 reproduces the base parameters "
            "(relative distance %.2g)\n", d);
  else if (p->verdict == 0)
    fprintf(f, "# physical consistency: INCONSISTENT (certified): every physically consistent "
            "realisation is at a relative distance >= %.3g from the base parameters (closest found %.3g; "
            "identify with --consistent)\n", lb, d);
  else
    fprintf(f, "# physical consistency: undecided: closest consistent realisation at relative distance "
            "%.3g, certified lower bound %.3g\n", d, lb);
  fprintf(f, "# given realisation P beta:\n");
  for (int j = 0; j < p->n; j++) print_link(f, j, &p->given[j]);
  fprintf(f, "# closest physically consistent realisation:\n");
  for (int j = 0; j < p->n; j++) print_link(f, j, &p->best[j]);
}

/* ------------------------------------------------------ the whole check */
int dyv_validate_log(FILE* out, const dyModel* m, const double* par, const dyiBase* b, int carried,
                     const char* logpath, const dyiLogOpt* lopt, double horizon, int folds,
                     int threads, char* err, int errsz) {
  const int n = m->n, np = dy_npar(m);
  const double* given = par;   /* the standard parameters as given */
  int status = -1;
  unsigned char* zero = malloc((size_t)np);
  double* Bid = NULL;
  double* ps = NULL;
  dyvValidator* v = NULL;
  dyiLogReader* lr = NULL;
  dyvPhys phys;
  dyvCrossVal cv;
  memset(&phys, 0, sizeof phys);
  if (!zero) { snprintf(err, errsz, "validate: out of memory"); goto done; }
  if (b) {
    /* the sparse realisation of the same base parameters beta = B par */
    const int nb = b->nb, npb = b->npar;
    ps = calloc((size_t)np, sizeof(double));
    double* beta = calloc((size_t)(nb > 0 ? nb : 1), sizeof(double));
    if (!ps || !beta) { free(beta); snprintf(err, errsz, "validate: out of memory"); goto done; }
    for (int i = 0; i < nb; i++)
      for (int k = 0; k < npb; k++) beta[i] += b->B[(size_t)i*npb + k] * par[k];
    int rr = dyv_realise_sparse(m, b, beta, ps, zero, err, errsz);
    free(beta);
    if (rr) goto done;
    par = ps;
  } else {
    dyv_nebase_zero_from_par(zero, m, par);
  }
  v = dyv_validator_make(m, par, zero, carried ? given : NULL, horizon);
  if (!v) { snprintf(err, errsz, "validate: out of memory"); goto done; }
  lr = dyi_log_open(logpath, n, lopt, err, errsz);
  if (!lr) goto done;
  if (threads > 1) dyi_log_readahead(lr);
  dyiSample s;
  int k;
  while ((k = dyi_log_next(lr, &s, err, errsz)) == 1) dyv_validator_add(v, &s);
  dyv_validator_flush(v);
  if (k < 0) goto done;
  if (v->st.count == 0) { snprintf(err, errsz, "%s: the log has no samples", logpath); goto done; }
  if (carried) {
    dyv_phys_carried(&phys, m, given, b ? b->npar : DY_NPAR_LINK * n);
  } else if (b) {
    int nbh;   /* held parameters are constants of the check: rows e_k beside B */
    Bid = dyi_base_held_B(b, &nbh);
    if (dyv_phys_check(&phys, m, par, Bid ? Bid : b->B, nbh, b->npar, err, errsz)) goto done;
  } else {
    /* no base set: every link parameter is fixed, B = identity */
    Bid = calloc((size_t)(10*n) * (size_t)(10*n), sizeof(double));
    if (!Bid) { snprintf(err, errsz, "validate: out of memory"); goto done; }
    for (int i = 0; i < 10*n; i++) Bid[(size_t)i*10*n + i] = 1;
    if (dyv_phys_check(&phys, m, par, Bid, 10*n, 10*n, err, errsz)) goto done;
  }
  if (folds >= 2) {
    if (!b) { snprintf(err, errsz, "validate: cross-validation needs the base set"); goto done; }
    if (dyv_crossval(&cv, m, b, lr, v->st.count, folds, err, errsz)) goto done;
  }
  dyv_validator_write(v, out, out);
  dyv_phys_print(out, &phys);
  if (v->not_pd > 0)
    fprintf(out, "# DECIDED infeasible: H(q) depends on the base parameters only (every realisation "
            "has the same H), and it is not positive definite at data row %ld (smallest eigenvalue "
            "%.6g); physically valid links and non-negative armatures would make it positive "
            "semi-definite, so no physically consistent realisation exists\n",
            v->mineig_row, v->mineig);
  if (folds >= 2) dyv_crossval_print(out, &cv);
  status = 0;
done:
  dyv_phys_free(&phys);
  if (lr) dyi_log_close(lr);
  dyv_validator_free(v);
  free(zero); free(Bid); free(ps);
  return status;
}
