/* SPDX-License-Identifier: MIT */
/* dynid as a C library: load a model, stream measured rows from memory into
 * the estimator, identify the base parameters, predict torques with them.
 *
 *   cc example_identify.c $(pkg-config --cflags --libs dynid) -o example
 *   ./example datasets/models/panda.csv     (any model table or URDF)
 *
 * The "measurements" are made here: a smooth motion and the model's own
 * torques plus noise. In your program they come from the robot. Built and
 * run by `make test` against an installed tree (tests/test_install.sh). */
#include <dynid/dynid.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NS 2000    /* samples held in memory */

typedef struct {
  const dyModel* m;
  const dyiBase* b;
  dyData* d;
  double *q, *qd, *qdd, *tau;   /* NS x n each, row-major */
  double* Y;                    /* n x npar scratch */
  int next;                     /* next sample to hand out */
} rows_t;

/* the estimator pulls blocks of samples: A = Y_b = Y P (n rows per sample) and y = tau */
static int fill(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err, int errsz) {
  (void)rw; (void)err; (void)errsz;
  rows_t* r = ctx;
  const int n = r->m->n, np = r->b->npar, nb = r->b->nb;
  int s = 0;
  for (; s < maxs && r->next < NS; s++, r->next++) {
    int k = r->next;
    dyi_regressor(r->m, r->d, r->q + k*n, r->qd + k*n, r->qdd + k*n, r->b->friction, r->Y, n);
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < nb; c++) {
        double v = 0;
        for (int p = 0; p < np; p++) v += r->Y[i + n*p] * r->b->P[p*nb + c];
        A[s*n + i + (size_t)lda*c] = v;
      }
      y[s*n + i] = r->tau[k*n + i];
    }
  }
  return s;
}

static int rewind_rows(void* ctx, char* err, int errsz) {
  (void)err; (void)errsz;
  ((rows_t*)ctx)->next = 0;
  return 0;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "datasets/models/panda.csv";
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  dyLoadOpt lo = {0};
  if (dy_load_model(path, &lo, &m, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
  const int n = m->n;
  /* the base parameters (with the joint friction terms when the model has them) */
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, m->has_friction, err, sizeof err);
  if (!b) { fprintf(stderr, "%s\n", err); return 1; }

  /* rows in memory: q_j(t) = a sum of sines, the model's torque plus 0.01 N m noise */
  rows_t r = {m, b, dy_make_data(m), NULL, NULL, NULL, NULL, NULL, 0};
  r.q = malloc(sizeof(double) * NS * n); r.qd = malloc(sizeof(double) * NS * n);
  r.qdd = malloc(sizeof(double) * NS * n); r.tau = malloc(sizeof(double) * NS * n);
  r.Y = malloc(sizeof(double) * (size_t)n * (size_t)b->npar);
  unsigned long long rng = 12345;
  for (int k = 0; k < NS; k++) {
    double t = 0.005 * k;
    for (int j = 0; j < n; j++) {
      double w1 = 0.7 + 0.13 * j, w2 = 1.9 + 0.21 * j;
      r.q[k*n + j] = 0.5 * sin(w1 * t + j) + 0.3 * sin(w2 * t);
      r.qd[k*n + j] = 0.5 * w1 * cos(w1 * t + j) + 0.3 * w2 * cos(w2 * t);
      r.qdd[k*n + j] = -0.5 * w1 * w1 * sin(w1 * t + j) - 0.3 * w2 * w2 * sin(w2 * t);
    }
    dy_rnea(m, r.d, m->par, r.q + k*n, r.qd + k*n, r.qdd + k*n, r.tau + k*n);
    for (int j = 0; j < n; j++) {
      rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
      r.tau[k*n + j] += 0.01 * ((double)(rng >> 11) / 9007199254740992.0 - 0.5) * 3.4641;
    }
  }

  /* identify: stream the rows through the estimator */
  dyiEstOpt opt;
  dyi_est_defaults(&opt);
  dyiEstim* e = dyi_est_make(n, b->nb, &opt, err, sizeof err);
  dyiRowSource src = {&r, fill, rewind_rows};
  if (!e || dyi_est_run(e, &src, err, sizeof err)) { fprintf(stderr, "identify: %s\n", err); return 1; }
  printf("%s: %d base parameters from %ld samples, condition number %.4g\n", path, b->nb, e->samples, e->cond);
  for (int k = 0; k < b->nb && k < 5; k++)
    printf("  %-6s %12.6g +- %.2g\n", b->name[k], e->beta[k], e->std[k]);

  /* predict: the realisation pi = P beta gives the identified torques through Newton-Euler */
  double* pi = calloc((size_t)dy_npar(m), sizeof(double));
  for (int p = 0; p < b->npar; p++)
    for (int c = 0; c < b->nb; c++) pi[p] += b->P[p*b->nb + c] * e->beta[c];
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tp[DY_MAXJ], tm[DY_MAXJ], err2 = 0, ref2 = 0;
  for (int j = 0; j < n; j++) { q[j] = 0.2 * j - 0.3; qd[j] = 0.4; qdd[j] = -0.7 + 0.1 * j; }
  dy_rnea(m, r.d, pi, q, qd, qdd, tp);
  dy_rnea(m, r.d, m->par, q, qd, qdd, tm);
  for (int j = 0; j < n; j++) { err2 += (tp[j] - tm[j]) * (tp[j] - tm[j]); ref2 += tm[j] * tm[j]; }
  printf("predicted torque at a new state: relative error %.3g %%\n", 100 * sqrt(err2 / ref2));
  int ok = sqrt(err2 / ref2) < 0.01;
  free(pi); free(r.q); free(r.qd); free(r.qdd); free(r.tau); free(r.Y);
  dy_free_data(r.d);
  dyi_est_free(e);
  dyi_base_free(b);
  dy_free_model(m);
  return ok ? 0 : 1;
}
