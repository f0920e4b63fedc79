/* SPDX-License-Identifier: MIT */
/* dynid ident: the payload estimate of payload.h: the map A from the
 * load's tip-frame parameters to link n's, the physical form and its
 * Jacobian, and the streaming least squares on the arm's residual torque
 * (one QR triangle of [Y_n A, r], a scaled SVD for the rank). */
#include "ident/payload.h"
#include "ident/regressor.h"
#include "ident/consistent.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "core/util.h"
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NC 11          /* columns of the triangle: 10 parameters and r */
#define BLK 512        /* rows folded per QR */

/* the (row, column) of each of the six symmetric entries xx xy xz yy yz zz */
static const int sym_r[6] = {0, 0, 0, 1, 1, 2}, sym_c[6] = {0, 1, 2, 1, 2, 2};

void dyi_payload_map(const double T[12], double A[100]) {
  const double* R = T;
  const double* p = T + 9;
  memset(A, 0, sizeof(double) * 100);
  const double pp = p[0]*p[0] + p[1]*p[1] + p[2]*p[2];
  for (int i = 0; i < 6; i++) {
    const int a = sym_r[i], b = sym_c[i], dab = a == b;
    /* R J_T R^T: entry (a,b) = sum_cd R_ac J_cd R_bd, J_cd = J_dc = phi_k */
    for (int k = 0; k < 6; k++) {
      const int c = sym_r[k], d = sym_c[k];
      A[i*10 + k] = R[a*3 + c] * R[b*3 + d] + (c != d ? R[a*3 + d] * R[b*3 + c] : 0);
    }
    /* 2 (p . h') I - p h'^T - h' p^T, h' = R h_T: d/dh_T_f */
    for (int f = 0; f < 3; f++) {
      double ph = p[0]*R[0*3 + f] + p[1]*R[1*3 + f] + p[2]*R[2*3 + f];
      A[i*10 + 6 + f] = 2*dab*ph - p[a]*R[b*3 + f] - R[a*3 + f]*p[b];
    }
    /* m (|p|^2 I - p p^T) */
    A[i*10 + 9] = dab*pp - p[a]*p[b];
  }
  for (int a = 0; a < 3; a++) {   /* h_n = R h_T + m p */
    for (int f = 0; f < 3; f++) A[(6 + a)*10 + 6 + f] = R[a*3 + f];
    A[(6 + a)*10 + 9] = p[a];
  }
  A[99] = 1;
}

void dyi_payload_phys_to_std(double m, const double c[3], const double Ic[6], double phi[10]) {
  const double cc = c[0]*c[0] + c[1]*c[1] + c[2]*c[2];
  for (int i = 0; i < 6; i++) {
    const int a = sym_r[i], b = sym_c[i];
    phi[i] = Ic[i] + m * ((a == b) * cc - c[a]*c[b]);
  }
  for (int a = 0; a < 3; a++) phi[6 + a] = m * c[a];
  phi[9] = m;
}

void dyi_payload_std_to_phys(const double phi[10], double phys[10], double* Jac) {
  const double m = phi[9], *h = phi + 6;
  const double hh = h[0]*h[0] + h[1]*h[1] + h[2]*h[2];
  phys[0] = m;
  for (int a = 0; a < 3; a++) phys[1 + a] = h[a] / m;
  /* Ic_ab = J_ab - (delta_ab |h|^2 - h_a h_b) / m */
  for (int i = 0; i < 6; i++) {
    const int a = sym_r[i], b = sym_c[i];
    phys[4 + i] = phi[i] - ((a == b) * hh - h[a]*h[b]) / m;
  }
  if (!Jac) return;
  memset(Jac, 0, sizeof(double) * 100);
  Jac[0*10 + 9] = 1;
  for (int a = 0; a < 3; a++) {
    Jac[(1 + a)*10 + 6 + a] = 1 / m;
    Jac[(1 + a)*10 + 9] = -h[a] / (m*m);
  }
  for (int i = 0; i < 6; i++) {
    const int a = sym_r[i], b = sym_c[i], dab = a == b;
    double* J = Jac + (4 + i)*10;
    J[i] = 1;
    for (int k = 0; k < 3; k++)
      J[6 + k] = -(dab * 2*h[k] - (a == k) * h[b] - (b == k) * h[a]) / m;
    J[9] = (dab * hh - h[a]*h[b]) / (m*m);
  }
}

const char* dyi_payload_phys_name(int k) {
  static const char* const names[10] = {"m", "cx", "cy", "cz", "ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  return k >= 0 && k < 10 ? names[k] : "?";
}

struct dyiPayload_ {
  const dyModel* m;
  dyData* d;
  double* par;          /* the arm's 14n */
  double A[100];
  double* Y;            /* n x 10n (link columns only) */
  double* blk;          /* (NC + BLK) x NC, column-major: rows 0..NC-1 the triangle */
  int ld, nrow;         /* leading dimension, rows pending below the triangle */
  long samples, equations;
};

dyiPayload* dyi_payload_make(const dyModel* m, const double* arm_par, char* err, int errsz) {
  dyiPayload* p = calloc(1, sizeof *p);
  const int n = m->n;
  if (p) {
    p->m = m;
    p->ld = NC + BLK;
    p->d = dy_make_data(m);
    p->par = malloc(sizeof(double) * (size_t)dy_npar(m));
    p->Y = malloc(sizeof(double) * (size_t)(n * dyi_ncols(m, 0)));
    p->blk = calloc((size_t)p->ld * NC, sizeof(double));
  }
  if (!p || !p->d || !p->par || !p->Y || !p->blk) {
    snprintf(err, (size_t)errsz, "payload: out of memory");
    dyi_payload_free(p);
    return NULL;
  }
  memcpy(p->par, arm_par, sizeof(double) * (size_t)dy_npar(m));
  dyi_payload_map(m->tip_T, p->A);
  return p;
}

void dyi_payload_free(dyiPayload* p) {
  if (!p) return;
  if (p->d) dy_free_data(p->d);
  free(p->par);
  free(p->Y);
  free(p->blk);
  free(p);
}

/* Fold the pending rows into the triangle: QR of the (NC + nrow) x NC
 * block, the R factor kept in rows 0..NC-1, everything below cleared. */
static void fold(dyiPayload* p) {
  if (!p->nrow) return;
  const int rows = NC + p->nrow;
  double tau[NC];
  LAPACKE_dgeqrf(LAPACK_COL_MAJOR, rows, NC, p->blk, p->ld, tau);
  for (int j = 0; j < NC; j++)
    for (int i = j + 1; i < rows; i++) p->blk[i + (size_t)p->ld * j] = 0;
  p->nrow = 0;
}

void dyi_payload_add(dyiPayload* p, const double* q, const double* qd, const double* qdd, const double* tau) {
  const dyModel* m = p->m;
  const int n = m->n;
  double ta[DY_MAXJ];
  dy_rnea(m, p->d, p->par, q, qd, qdd, ta);
  dyi_regressor(m, p->d, q, qd, qdd, 0, p->Y, n);
  const double* Yn = p->Y + (size_t)n * 10 * (n - 1);   /* link n's 10 columns */
  for (int i = 0; i < n; i++) {
    if (p->nrow == BLK) fold(p);
    const int row = NC + p->nrow++;
    for (int k = 0; k < 10; k++) {
      double w = 0;
      for (int l = 0; l < 10; l++) w += Yn[i + n*l] * p->A[l*10 + k];
      p->blk[row + (size_t)p->ld * k] = w;
    }
    p->blk[row + (size_t)p->ld * 10] = tau[i] - ta[i];
  }
  p->samples++;
  p->equations += n;
}

long dyi_payload_samples(const dyiPayload* p) { return p->samples; }

/* Which phi_T entries each physical entry depends on (bit k: phi_k). */
static unsigned phys_deps(int i) {
  static const unsigned deps[10] = {
      1u << 9, 1u << 6 | 1u << 9, 1u << 7 | 1u << 9, 1u << 8 | 1u << 9,
      1u << 0 | 1u << 7 | 1u << 8 | 1u << 9, 1u << 1 | 1u << 6 | 1u << 7 | 1u << 9,
      1u << 2 | 1u << 6 | 1u << 8 | 1u << 9, 1u << 3 | 1u << 6 | 1u << 8 | 1u << 9,
      1u << 4 | 1u << 7 | 1u << 8 | 1u << 9, 1u << 5 | 1u << 6 | 1u << 7 | 1u << 9};
  return deps[i];
}

int dyi_payload_solve(const dyiPayload* pc, double mass, dyiPayloadFit* fit, char* err, int errsz) {
  dyiPayload* p = (dyiPayload*)pc;   /* folding the pending rows changes no result */
  fold(p);
  memset(fit, 0, sizeof *fit);
  const int fixm = mass > 0 && isfinite(mass);
  const int nf = fixm ? 9 : 10;
  fit->samples = p->samples;
  fit->equations = p->equations;
  fit->nfree = nf;
  if (p->equations <= nf) {
    snprintf(err, (size_t)errsz, "%ld equations (%ld samples) for %d parameters: too few samples", p->equations,
             p->samples, nf);
    return -1;
  }
  /* G: the triangle, whose columns have the Gram matrix of [W r] */
  double G[NC*NC], rhs[NC], As[NC*10], D[10];
  for (int j = 0; j < NC; j++)
    for (int i = 0; i < NC; i++) G[i + NC*j] = p->blk[i + (size_t)p->ld * j];
  double rr = 0;
  for (int i = 0; i < NC; i++) {
    rhs[i] = G[i + NC*10] - (fixm ? G[i + NC*9] * mass : 0);
    rr += G[i + NC*10] * G[i + NC*10];
  }
  fit->r_rms = sqrt(rr / (double)p->equations);
  for (int k = 0; k < nf; k++) {
    double s = 0;
    for (int i = 0; i < NC; i++) s += G[i + NC*k] * G[i + NC*k];
    D[k] = s > 0 ? sqrt(s) : 1;
    for (int i = 0; i < NC; i++) As[i + NC*k] = G[i + NC*k] / D[k];
  }
  double s[10], U[NC*NC], Vt[100], sup[10];
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'A', NC, nf, As, NC, s, U, NC, Vt, 10, sup)) {
    snprintf(err, (size_t)errsz, "payload: the singular value decomposition failed");
    return -1;
  }
  int r = 0;
  while (r < nf && s[r] > 1e-9 * s[0]) r++;
  fit->rank = r;
  fit->cond = r ? s[0] / s[r - 1] : INFINITY;
  /* u_i^T rhs, the scaled solution and the residual */
  double ur[10] = {0}, xs[10] = {0}, rss = 0;
  for (int i = 0; i < NC; i++) rss += rhs[i] * rhs[i];
  for (int i = 0; i < r; i++) {
    for (int l = 0; l < NC; l++) ur[i] += U[l + NC*i] * rhs[l];
    rss -= ur[i] * ur[i];
    for (int k = 0; k < nf; k++) xs[k] += Vt[i + 10*k] * ur[i] / s[i];
  }
  if (rss < 0) rss = 0;
  fit->sigma = p->equations > r ? sqrt(rss / (double)(p->equations - r)) : NAN;
  double rr_fit = 0;   /* ||r||^2 of the residual torque, mass fixed or not */
  for (int i = 0; i < NC; i++) rr_fit += G[i + NC*10] * G[i + NC*10];
  fit->rel_resid = rr_fit > 0 ? sqrt(rss / rr_fit) : 0;
  for (int k = 0; k < 10; k++) fit->phi[k] = NAN;
  for (int k = 0; k < nf; k++) {
    double nul = 0;   /* the axis's component in the null space */
    for (int i = r; i < nf; i++) nul += Vt[i + 10*k] * Vt[i + 10*k];
    fit->det[k] = sqrt(nul) < 1e-6;
    if (fit->det[k]) fit->phi[k] = xs[k] / D[k];
  }
  if (fixm) { fit->det[9] = 2; fit->phi[9] = mass; }
  const double s2 = fit->sigma * fit->sigma;
  for (int a = 0; a < nf; a++)
    for (int b = 0; b < nf; b++) {
      if (fit->det[a] != 1 || fit->det[b] != 1) continue;
      double c = 0;
      for (int i = 0; i < r; i++) c += Vt[i + 10*a] * Vt[i + 10*b] / (s[i] * s[i]);
      fit->cov[a*10 + b] = isfinite(s2) ? s2 * c / (D[a] * D[b]) : NAN;
    }
  /* the physical form, determined where everything it depends on is */
  unsigned known = 0;
  for (int k = 0; k < 10; k++) if (fit->det[k]) known |= 1u << k;
  const int mpos = fit->det[9] && fit->phi[9] > 0;
  double phi[10], phys[10], J[100];
  for (int k = 0; k < 10; k++) phi[k] = fit->det[k] ? fit->phi[k] : 0;
  if (mpos) dyi_payload_std_to_phys(phi, phys, J);
  for (int i = 0; i < 10; i++) {
    fit->phys[i] = fit->phys_std[i] = NAN;
    if (i == 0 && fixm) { fit->phys_det[0] = 2; fit->phys[0] = mass; fit->phys_std[0] = 0; continue; }
    if (i == 0 && fit->det[9]) { fit->phys_det[0] = 1; fit->phys[0] = fit->phi[9]; fit->phys_std[0] = sqrt(fit->cov[99]); continue; }
    if ((phys_deps(i) & known) != phys_deps(i) || !mpos) continue;
    fit->phys_det[i] = 1;
    fit->phys[i] = phys[i];
    double v = 0;
    for (int a = 0; a < 10; a++)
      for (int b = 0; b < 10; b++) v += J[i*10 + a] * fit->cov[a*10 + b] * J[i*10 + b];
    fit->phys_std[i] = sqrt(v > 0 ? v : 0);
  }
  return 0;
}

/* the one-body model the semidefinite program is posed on: its length
 * scale (consistent.c) the sphere's radius */
static dyModel* body_model(double radius) {
  dyModel* b = dy_make_model(1);
  if (!b) return NULL;
  b->dh_d[0] = radius;
  snprintf(b->source, sizeof b->source, "payload");
  dy_set_const(b);
  return b;
}

/* the physical form of pi into fit (all determined; the mass fixed when fixm) */
static void cons_outputs(const double* pi, int fixm, dyiPayloadFit* fit) {
  dyi_payload_std_to_phys(pi, fit->phys, NULL);
  for (int k = 0; k < 10; k++) {
    fit->phi[k] = pi[k];
    fit->det[k] = k == 9 && fixm ? 2 : 1;
    fit->phys_det[k] = k == 0 && fixm ? 2 : 1;
    fit->phys_std[k] = k == 0 && fixm ? 0 : NAN;
  }
  memset(fit->cov, 0, sizeof fit->cov);
  fit->margin = dyi_pseudo_mineig(pi);
}

int dyi_payload_consistent(const dyiPayload* pc, double mass, double radius, dyiPayloadFit* fit, char* err,
                           int errsz) {
  dyiPayloadFit ls;
  if (dyi_payload_solve(pc, mass, &ls, err, errsz)) return -1;   /* folds; the rank and residual figures */
  if (!(radius > DYI_PAYLOAD_THICK)) {
    snprintf(err, (size_t)errsz, "payload: the bounding sphere's radius %.4g m is below the %.4g m a load needs",
             radius, DYI_PAYLOAD_THICK);
    return -1;
  }
  const int fixm = mass > 0 && isfinite(mass);
  double R[100], z[10], K[100] = {0};
  for (int j = 0; j < 10; j++) {
    K[j*10 + j] = 1;
    z[j] = pc->blk[j + (size_t)pc->ld * 10];
    for (int i = 0; i < 10; i++) R[i + 10*j] = i <= j ? pc->blk[i + (size_t)pc->ld * j] : 0;
  }
  const double r10 = pc->blk[10 + (size_t)pc->ld * 10];
  dyiLinkBound bd = {{0}, radius, fixm ? mass : 1e-9, fixm ? mass : INFINITY, DYI_PAYLOAD_THICK};
  dyiConsProblem pr = {.p = 10, .npar = 10, .K = K, .R = R, .ldr = 10, .z = z, .rho2 = r10 * r10,
                       .prior_weight = DYI_NOPRIOR_W, .bounds = &bd};
  dyModel* bm = body_model(radius);
  dyiConsResult res;
  memset(&res, 0, sizeof res);
  int rc = bm ? dyi_consistent(bm, &pr, &res, err, errsz) : -1;
  if (!bm) snprintf(err, (size_t)errsz, "payload: out of memory");
  if (!rc) {
    *fit = ls;
    cons_outputs(res.pi, fixm, fit);
    fit->consistent = 1;
    fit->certified = res.certified;
    fit->radius = radius;
    fit->rss_rise_pct = res.rss_rise_pct;
    double rr = 0;   /* ||r||^2, the arm's residual torque */
    for (int i = 0; i <= 10; i++) rr += pc->blk[i + (size_t)pc->ld * 10] * pc->blk[i + (size_t)pc->ld * 10];
    fit->rel_resid = rr > 0 ? sqrt(res.rss / rr) : 0;
  }
  dyi_cons_free(&res);
  dy_free_model(bm);
  return rc;
}

/* one row name,value,std of a payload CSV into phys/std/det (seen: rows had) */
static int payload_row(dyCsv* csv, char** fl, int nf, const int col[3], double* phys, double* std, int* det, int* seen,
                       char* err, int errsz) {
  const char* name = col[0] < nf ? fl[col[0]] : "";
  int k = 0;
  while (k < 10 && strcmp(name, dyi_payload_phys_name(k))) k++;
  char shown[40];
  if (k == 10) {
    snprintf(err, (size_t)errsz, "%s:%ld:%d: unknown payload parameter '%s' (expected m, cx, cy, cz, ixx, ixy, ixz, "
             "iyy, iyz, izz)", dy_csv_path(csv), dy_csv_line(csv), col[0] + 1, dy_field_shown(name, shown, sizeof shown));
    return -1;
  }
  if (seen[k]++) {
    snprintf(err, (size_t)errsz, "%s:%ld:%d: '%s' given twice", dy_csv_path(csv), dy_csv_line(csv), col[0] + 1,
             dy_field_shown(name, shown, sizeof shown));
    return -1;
  }
  const char* v = col[1] < nf ? fl[col[1]] : "";
  const char* s = col[2] >= 0 && col[2] < nf ? fl[col[2]] : "";
  det[k] = v[strspn(v, " \t")] != 0;
  if (det[k] && dy_csv_double(csv, v, col[1], 0, &phys[k], err, errsz)) return -1;
  if (s[strspn(s, " \t")] && dy_csv_double(csv, s, col[2], 0, &std[k], err, errsz)) return -1;
  return 0;
}

int dyi_payload_read(const char* path, double phys[10], double std[10], int det[10], char* err, int errsz) {
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return -1;
  char** fl;
  int nf, seen[10] = {0}, col[3] = {-1, -1, -1}, rc = 0, r;
  for (int k = 0; k < 10; k++) { phys[k] = std[k] = NAN; det[k] = 0; }
  if ((r = dy_csv_next(csv, &fl, &nf, err, errsz)) <= 0) {
    if (!r) snprintf(err, (size_t)errsz, "%s: empty (expected a header name,value,std)", path);
    dy_csv_close(csv);
    return -1;
  }
  col[0] = dy_csv_find(fl, nf, "name"); col[1] = dy_csv_find(fl, nf, "value"); col[2] = dy_csv_find(fl, nf, "std");
  if (col[0] < 0 || col[1] < 0) {
    snprintf(err, (size_t)errsz, "%s:%ld: missing column '%s' (a payload file has name,value,std, as dynid payload "
             "writes it)", path, dy_csv_line(csv), col[0] < 0 ? "name" : "value");
    dy_csv_close(csv);
    return -1;
  }
  while (!rc && (r = dy_csv_next(csv, &fl, &nf, err, errsz)) > 0)
    rc = payload_row(csv, fl, nf, col, phys, std, det, seen, err, errsz);
  if (r < 0) rc = -1;
  for (int k = 0; !rc && k < 10; k++)
    if (!seen[k]) { snprintf(err, (size_t)errsz, "%s: no row '%s'", path, dyi_payload_phys_name(k)); rc = -1; }
  dy_csv_close(csv);
  return rc;
}

dyModel* dyi_payload_loaded_model(const dyModel* m, const double phi_T[10]) {
  dyModel* ml = dy_copy_model(m);
  if (!ml) return NULL;
  double A[100];
  dyi_payload_map(m->tip_T, A);
  for (int i = 0; i < 10; i++)
    for (int k = 0; k < 10; k++) ml->par[DY_NPAR_LINK * (m->n - 1) + i] += A[i*10 + k] * phi_T[k];
  return ml;
}
