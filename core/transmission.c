/* SPDX-License-Identifier: MIT */
/* dynid core: transmission files, their inverse and the coupled motors'
 * dynamics (see transmission.h). */
#include "core/transmission.h"
#include "core/io.h"
#include "core/mathu.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dy_trans_mul(double* out, const double* A, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i*n + j] * x[j];
    out[i] = s;
  }
}

void dy_trans_mulT(double* out, const double* A, const double* x, int n) {
  for (int j = 0; j < n; j++) out[j] = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) out[j] += A[i*n + j] * x[i];
}

/* largest column sum of |A| (n x n) */
static double norm1(const double* A, int n) {
  double best = 0;
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += fabs(A[i*n + j]);
    if (!(s <= best)) best = s;
  }
  return best;
}

int dy_trans_invert(const double* R, int n, double* Rinv, double* cond) {
  double LU[DY_MAXJ * DY_MAXJ];
  int piv[DY_MAXJ];
  memcpy(LU, R, sizeof(double) * (size_t)(n*n));
  *cond = INFINITY;
  /* LU with partial pivoting, PA = LU */
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++) if (fabs(LU[i*n + k]) > fabs(LU[p*n + k])) p = i;
    piv[k] = p;
    if (!(LU[p*n + k] != 0) || !isfinite(LU[p*n + k])) return -1;
    if (p != k)
      for (int j = 0; j < n; j++) { double t = LU[k*n + j]; LU[k*n + j] = LU[p*n + j]; LU[p*n + j] = t; }
    for (int i = k + 1; i < n; i++) {
      double l = LU[i*n + k] /= LU[k*n + k];
      for (int j = k + 1; j < n; j++) LU[i*n + j] -= l * LU[k*n + j];
    }
  }
  /* columns of the inverse: solve L U x = P e_c */
  for (int c = 0; c < n; c++) {
    double x[DY_MAXJ];
    for (int i = 0; i < n; i++) x[i] = i == c;
    for (int k = 0; k < n; k++) if (piv[k] != k) { double t = x[k]; x[k] = x[piv[k]]; x[piv[k]] = t; }
    for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) x[i] -= LU[i*n + j] * x[j];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = i + 1; j < n; j++) x[i] -= LU[i*n + j] * x[j];
      x[i] /= LU[i*n + i];
    }
    for (int i = 0; i < n; i++) Rinv[i*n + c] = x[i];
  }
  *cond = norm1(R, n) * norm1(Rinv, n);
  return isfinite(*cond) && *cond <= DY_TRANS_MAXCOND ? 0 : -1;
}

int dy_trans_coupled(const double* R, int n, int k) {
  int nz = 0;
  for (int j = 0; j < n; j++) nz += R[k*n + j] != 0;
  return nz > 1;
}

int dy_set_transmission(dyModel* m, const double* R, char* err, int errsz) {
  const int n = m->n;
  if (!R) {
    memset(m->trans, 0, sizeof(double) * (size_t)(n*n));
    m->has_trans = 0; m->nmot = 0;
    return 0;
  }
  double Rinv[DY_MAXJ * DY_MAXJ], cond;
  if (dy_trans_invert(R, n, Rinv, &cond)) {
    snprintf(err, (size_t)errsz, "%s: singular transmission (condition number %.3g, above %g)",
             m->source, cond, DY_TRANS_MAXCOND);
    return -1;
  }
  memcpy(m->trans, R, sizeof(double) * (size_t)(n*n));
  m->has_trans = 1;
  m->nmot = 0;
  for (int k = 0; k < n; k++)
    if (dy_trans_coupled(R, n, k)) m->mot_k[m->nmot++] = k;
  for (int c = DY_NPL*n; c < (DY_NPL + DY_NPAR_MOT)*n; c++) m->par[c] = 0;
  return 0;
}

void dy_motor_tau(const dyModel* m, const double* par, const double* qd, const double* qdd,
                  double* tau) {
  const int n = m->n;
  const double* pm = par + DY_NPL*n;
  for (int c = 0; c < m->nmot; c++, pm += DY_NPAR_MOT) {
    const double* Rk = m->trans + n*m->mot_k[c];
    double v = 0, a = 0;
    for (int j = 0; j < n; j++) {
      if (qd) v += Rk[j] * qd[j];
      if (qdd) a += Rk[j] * qdd[j];
    }
    double tm = pm[DY_IAM]*a + pm[DY_FVM]*v + pm[DY_FCM]*(double)((v > 0) - (v < 0));
    for (int j = 0; j < n; j++) tau[j] += Rk[j] * tm;
  }
}

void dy_motor_inertia(const dyModel* m, const double* par, double* H) {
  const int n = m->n;
  for (int c = 0; c < m->nmot; c++) {
    const double* Rk = m->trans + n*m->mot_k[c];
    double ia = par[DY_NPL*n + DY_NPAR_MOT*c + DY_IAM];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) H[i*n + j] += ia * Rk[i] * Rk[j];
  }
}

/* ------------------------------------------------------- the file */

/* 1 if no field of the row reads as a number (a header) */
static int no_number(char** f, int nf) {
  for (int c = 0; c < nf; c++) {
    char* e;
    const char* s = f[c];
    while (*s == ' ' || *s == '\t') s++;
    strtod(s, &e);
    if (e != s) return 0;
  }
  return 1;
}

/* row k of R from the fields of one line; 0 or -1 (err set) */
static int trans_row(dyCsv* c, char** f, int nf, int n, double* Rk, char* err, int errsz) {
  if (nf != n) {
    dy_errpos(err, (size_t)errsz, dy_csv_path(c), dy_csv_line(c), nf > n ? n + 1 : 0,
              "%d numbers in this row, expected %d (one per joint of the model)", nf, n);
    return -1;
  }
  for (int j = 0; j < n; j++)
    if (dy_csv_double(c, f[j], j, 0, &Rk[j], err, errsz)) return -1;
  return 0;
}

int dy_trans_read(const char* path, int n, double* R, char* err, int errsz) {
  dyCsv* c = dy_csv_open(path, err, errsz);
  if (!c) return -1;
  char** f; int nf, rc, rows = 0, first = 1;
  while ((rc = dy_csv_next(c, &f, &nf, err, errsz)) == 1) {
    int header = first && no_number(f, nf);
    first = 0;
    if (header) continue;
    if (rows == n) {
      dy_errpos(err, (size_t)errsz, path, dy_csv_line(c), 0,
                "more than %d rows: a transmission has one row per motor of the %d-joint model", n, n);
      rc = -1;
      break;
    }
    if ((rc = trans_row(c, f, nf, n, R + n*rows, err, errsz))) break;
    rows++;
  }
  dy_csv_close(c);
  if (rc < 0) return -1;
  if (rows < n) {
    dy_errpos(err, (size_t)errsz, path, 0, 0, "%d rows, expected %d (one per motor of the %d-joint model)",
              rows, n, n);
    return -1;
  }
  double Rinv[DY_MAXJ * DY_MAXJ], cond;
  if (dy_trans_invert(R, n, Rinv, &cond)) {
    dy_errpos(err, (size_t)errsz, path, 0, 0, "singular transmission: condition number %.3g (above %g); "
              "row k holds motor k's velocity as a combination of the joint velocities", cond, DY_TRANS_MAXCOND);
    return -1;
  }
  return 0;
}
