/* dynid ident: excitation design by NLopt over Fourier coefficients (see
 * excite.h). The criterion is evaluated on the base regressor at nsamp
 * evenly spaced instants of one period; the workspace is made once per
 * optimisation and reused by every evaluation. */
#include "excite.h"
#include "regressor.h"
#include <lapacke.h>
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dyi_excite_defaults(dyExciteOpt* o) {
  memset(o, 0, sizeof *o);
  o->nh = 5; o->period = 10; o->nsamp = 100; o->criterion = DYI_EXC_COND;
  o->maxeval = 600; o->maxtime = 60; o->margin = 0.9; o->seed = 1;
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

void dyi_fourier_fit(dyFourier* f, const dyModel* m, int j, double margin) {
  double q0, half, vmax, amax, dq, dqd, dqdd;
  dyi_joint_envelope(m, j, &q0, &half, &vmax, &amax);
  f->q0[j] = q0;
  dyi_fourier_bounds(f, j, &dq, &dqd, &dqdd);
  if (!(dq > 0)) return;                  /* all-zero coefficients stay so */
  double k = margin * half / dq;
  if (margin * vmax / dqd < k) k = margin * vmax / dqd;
  if (margin * amax / dqdd < k) k = margin * amax / dqdd;
  for (int l = 0; l < f->nh; l++) { f->a[l][j] *= k; f->b[l][j] *= k; }
}

/* workspace of one optimisation */
typedef struct {
  const dyModel* m;
  const dyBase* b;
  const dyExciteOpt* o;
  dyData* d;
  dyFourier f;          /* current trajectory */
  int npar, ncol, rows;
  int* sel;             /* column of Y for each base parameter when P is a
                           selection, else NULL */
  double *Y, *W, *S, *work, *G;
  int lwork;
  int evals;
  double best;
} excite_ws;

static void ws_free(excite_ws* w) {
  dy_freeData(w->d);
  free(w->sel); free(w->Y); free(w->W); free(w->S); free(w->work); free(w->G);
}

static int ws_make(excite_ws* w, const dyModel* m, const dyBase* b, int nsamp) {
  memset(w, 0, sizeof *w);
  w->m = m; w->b = b;
  w->npar = b->npar;
  w->ncol = b->nb;
  w->rows = m->n * nsamp;
  w->d = dy_makeData(m);
  w->Y = malloc(sizeof(double) * (size_t)m->n * (size_t)w->npar);
  w->W = malloc(sizeof(double) * (size_t)w->rows * (size_t)w->ncol);
  w->S = malloc(sizeof(double) * (size_t)w->ncol);
  w->G = malloc(sizeof(double) * (size_t)w->ncol * (size_t)w->ncol);
  w->lwork = 5 * (w->rows + w->ncol) + 64;
  w->work = malloc(sizeof(double) * (size_t)w->lwork);
  if (!w->d || !w->Y || !w->W || !w->S || !w->G || !w->work) return -1;
  /* is P a selection (one 1 per column)? then Y_b is a column pick */
  w->sel = malloc(sizeof(int) * (size_t)w->ncol);
  for (int c = 0; c < w->ncol && w->sel; c++) {
    int k1 = -1, others = 0;
    for (int k = 0; k < w->npar; k++) {
      double v = b->P[(size_t)k * w->ncol + c];
      if (v == 1 && k1 < 0) k1 = k; else if (v != 0) others = 1;
    }
    if (k1 < 0 || others) { free(w->sel); w->sel = NULL; break; }
    w->sel[c] = k1;
  }
  return 0;
}

/* fill W (column-major, rows x ncol) along w->f */
static void fill_W(excite_ws* w, int nsamp) {
  const dyModel* m = w->m;
  int n = m->n;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  double T = 2 * M_PI / w->f.wf;
  for (int s = 0; s < nsamp; s++) {
    dyi_fourier_eval(&w->f, T * s / nsamp, q, qd, qdd);
    dyi_regressor(m, w->d, q, qd, qdd, w->b->friction, w->Y, n);
    for (int c = 0; c < w->ncol; c++) {
      double* out = w->W + (size_t)c * w->rows + (size_t)s * n;
      if (w->sel) {
        memcpy(out, w->Y + (size_t)w->sel[c] * n, sizeof(double) * (size_t)n);
      } else {
        for (int i = 0; i < n; i++) {
          double acc = 0;
          for (int k = 0; k < w->npar; k++) acc += w->Y[i + (size_t)k * n] * w->b->P[(size_t)k * w->ncol + c];
          out[i] = acc;
        }
      }
    }
  }
}

/* singular values of W into S (W destroyed); 0 or LAPACK info */
static int svals(excite_ws* w) {
  return LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', w->rows, w->ncol, w->W, w->rows, w->S,
                             NULL, 1, NULL, 1, w->work, w->lwork);
}

static int eval_ws(excite_ws* w, int nsamp, double* cond, double* logdet, double* vif) {
  fill_W(w, nsamp);
  if (vif) {
    /* Gram matrix of the column-normalised W, inverted by Cholesky */
    int r = w->rows, c = w->ncol;
    for (int a = 0; a < c; a++) {
      double na = 0;
      for (int i = 0; i < r; i++) na += w->W[(size_t)a * r + i] * w->W[(size_t)a * r + i];
      w->S[a] = na > 0 ? 1 / sqrt(na) : 0;
    }
    for (int a = 0; a < c; a++)
      for (int bb = 0; bb <= a; bb++) {
        double g = 0;
        for (int i = 0; i < r; i++) g += w->W[(size_t)a * r + i] * w->W[(size_t)bb * r + i];
        w->G[(size_t)a * c + bb] = w->G[(size_t)bb * c + a] = g * w->S[a] * w->S[bb];
      }
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', c, w->G, c) == 0 &&
        LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', c, w->G, c) == 0)
      for (int a = 0; a < c; a++) vif[a] = w->G[(size_t)a * c + a];
    else
      for (int a = 0; a < c; a++) vif[a] = INFINITY;
  }
  if (svals(w) != 0) { *cond = INFINITY; *logdet = -INFINITY; return -1; }
  double smax = w->S[0], smin = w->S[w->ncol - 1], ld = 0;
  for (int k = 0; k < w->ncol; k++) ld += 2 * log(w->S[k] > 0 ? w->S[k] : 1e-300);
  *logdet = ld;
  *cond = smin > 0 ? smax / smin : INFINITY;
  return smin > 0 ? 0 : -1;
}

int dyi_excite_eval(const dyModel* m, const dyBase* b, const dyFourier* f, int nsamp,
                    double* cond, double* logdet, double* vif) {
  excite_ws w;
  if (ws_make(&w, m, b, nsamp)) { ws_free(&w); *cond = INFINITY; *logdet = -INFINITY; return -1; }
  w.f = *f;
  int r = eval_ws(&w, nsamp, cond, logdet, vif);
  ws_free(&w);
  return r;
}

/* optimisation variables <-> coefficients: with rest, a_1 and b_1 follow */
static int nvars(const dyExciteOpt* o, int n) { return 2 * n * (o->rest ? o->nh - 1 : o->nh); }

static void vars_to_f(excite_ws* w, const double* x) {
  const dyModel* m = w->m;
  int n = m->n, l0 = w->o->rest ? 1 : 0, k = 0;
  for (int j = 0; j < n; j++) {
    for (int l = l0; l < w->o->nh; l++) { w->f.a[l][j] = x[k++]; w->f.b[l][j] = x[k++]; }
    if (w->o->rest) {
      double sa = 0, sb = 0;
      for (int l = 1; l < w->o->nh; l++) { sa += w->f.a[l][j]; sb += (l + 1) * w->f.b[l][j]; }
      w->f.a[0][j] = -sa;      /* qd(0)  = sum_l a_l = 0 */
      w->f.b[0][j] = -sb;      /* qdd(0) = wf sum_l l b_l = 0 */
    }
    dyi_fourier_fit(&w->f, m, j, w->o->margin);
  }
}

static void f_to_vars(const excite_ws* w, double* x) {
  int l0 = w->o->rest ? 1 : 0, k = 0;
  for (int j = 0; j < w->m->n; j++)
    for (int l = l0; l < w->o->nh; l++) { x[k++] = w->f.a[l][j]; x[k++] = w->f.b[l][j]; }
}

static double objective(unsigned nx, const double* x, double* grad, void* data) {
  (void)nx; (void)grad;
  excite_ws* w = data;
  vars_to_f(w, x);
  double cond, logdet;
  w->evals++;
  if (eval_ws(w, w->o->nsamp, &cond, &logdet, NULL)) return 1e300;
  double v = w->o->criterion == DYI_EXC_DOPT ? -logdet : cond;
  if (v < w->best) w->best = v;
  return v;
}

int dyi_excite(const dyModel* m, const dyBase* b, const dyExciteOpt* o, dyFourier* f,
               dyExciteInfo* info, char* err, int errsz) {
  if (o->nh < (o->rest ? 2 : 1) || o->nh > DYI_FOURIER_MAXH || !(o->period > 0) || o->nsamp < 2) {
    snprintf(err, (size_t)errsz, "excite: need %d..%d harmonics, a positive period and >= 2 samples",
             o->rest ? 2 : 1, DYI_FOURIER_MAXH);
    return -1;
  }
  if ((long)o->nsamp * m->n < b->nb) {
    snprintf(err, (size_t)errsz, "excite: %d samples x %d joints cannot determine %d base parameters; "
             "raise the samples per period", o->nsamp, m->n, b->nb);
    return -1;
  }
  excite_ws w;
  if (ws_make(&w, m, b, o->nsamp)) {
    ws_free(&w);
    snprintf(err, (size_t)errsz, "excite: out of memory");
    return -1;
  }
  w.o = o;
  w.best = INFINITY;
  if (dyi_fourier_random(&w.f, m, o->nh, o->period, o->seed, err, errsz)) { ws_free(&w); return -1; }
  int nx = nvars(o, m->n);
  double* x = malloc(sizeof(double) * (size_t)nx);
  double* x0 = malloc(sizeof(double) * (size_t)nx);
  if (!x || !x0) { free(x); free(x0); ws_free(&w); snprintf(err, (size_t)errsz, "excite: out of memory"); return -1; }
  f_to_vars(&w, x);
  vars_to_f(&w, x);                       /* the starting guess, rest and fit applied */
  f_to_vars(&w, x);
  memcpy(x0, x, sizeof(double) * (size_t)nx);
  double cond0, logdet0;
  eval_ws(&w, o->nsamp, &cond0, &logdet0, NULL);

  /* subplex, derivative-free; the fit makes every point feasible */
  nlopt_opt opt = nlopt_create(NLOPT_LN_SBPLX, (unsigned)nx);
  nlopt_set_min_objective(opt, objective, &w);
  nlopt_set_maxeval(opt, o->maxeval);
  nlopt_set_maxtime(opt, o->maxtime);
  nlopt_set_xtol_rel(opt, 1e-6);
  double step = 0;
  for (int k = 0; k < nx; k++) step += fabs(x[k]);
  nlopt_set_initial_step1(opt, nx ? 0.3 * step / nx : 0.1);
  double fmin = 0;
  nlopt_result res = nlopt_optimize(opt, x, &fmin);
  nlopt_destroy(opt);
  if (res < 0 && res != NLOPT_ROUNDOFF_LIMITED) {
    /* keep the starting guess rather than fail: say so */
    memcpy(x, x0, sizeof(double) * (size_t)nx);
  }
  vars_to_f(&w, x);
  double cond, logdet;
  int rr = eval_ws(&w, o->nsamp, &cond, &logdet, info ? info->vif : NULL);
  /* never return something worse than the start */
  double c0 = o->criterion == DYI_EXC_DOPT ? -logdet0 : cond0;
  double c1 = o->criterion == DYI_EXC_DOPT ? -logdet : cond;
  if (rr || c1 > c0) {
    vars_to_f(&w, x0);
    rr = eval_ws(&w, o->nsamp, &cond, &logdet, info ? info->vif : NULL);
  }
  *f = w.f;
  if (info) {
    info->cond0 = cond0; info->logdet0 = logdet0;
    info->cond = cond; info->logdet = logdet; info->evals = w.evals;
  }
  free(x); free(x0);
  ws_free(&w);
  if (rr) {
    snprintf(err, (size_t)errsz, "excite: the base regressor stays rank deficient along every trajectory "
             "tried (more harmonics or samples may help)");
    return -1;
  }
  return 0;
}

double dyi_excite_check(const dyModel* m, const dyFourier* f, double duration, double rate,
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
