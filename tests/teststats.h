/* SPDX-License-Identifier: MIT */
/* dynid tests: statistics shared by the estimation tests. */
#ifndef DYNID_TESTSTATS_H
#define DYNID_TESTSTATS_H
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* d^T cov^-1 d (cov p x p, column-major): chi-squared with p degrees of
 * freedom when d is the error of an unbiased estimate with covariance cov.
 * NaN if cov is not positive definite. */
static inline double chi2(const double* cov, const double* d, int p) {
  double* C = malloc(sizeof(double) * (size_t)p * (size_t)p), *x = malloc(sizeof(double) * (size_t)p);
  memcpy(C, cov, sizeof(double) * (size_t)p * (size_t)p);
  memcpy(x, d, sizeof(double) * (size_t)p);
  double s = NAN;
  if (LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', p, 1, C, p, x, p) == 0) {
    s = 0;
    for (int k = 0; k < p; k++) s += d[k] * x[k];
  }
  free(C); free(x);
  return s;
}

/* beta vs beta_true: max_k |beta_k - bt_k| / max(|bt_k|, 1e-3 max|bt|)
 * (a floor for base parameters that happen to be near zero) */
static inline double rel_err(const double* b, const double* bt, int p) {
  double mx = 0, worst = 0;
  for (int k = 0; k < p; k++) mx = fmax(mx, fabs(bt[k]));
  for (int k = 0; k < p; k++) worst = fmax(worst, fabs(b[k] - bt[k]) / fmax(fabs(bt[k]), 1e-3 * mx));
  return worst;
}
#endif
