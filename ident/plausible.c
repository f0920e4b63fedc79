/* SPDX-License-Identifier: MIT */
/* dynid ident: the plausible estimate of an identification (consistent.h,
 * dyi_link_bounds and dyi_consistent_est): the bounds of each link from
 * the model, the prior weight chosen by cross-validation over the
 * estimator's parts, the semidefinite program of consistent.c, and the
 * estimate's own uncertainty by a parametric bootstrap. */
#include "ident/consistent.h"
#include "core/util.h"
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nominal mass, centre of mass [m] and largest radius of gyration about
 * it [m] of link j */
static void nominal_link(const double* nom, int j, double* mass, double c[3], double* rg) {
  double Ic6[6], w[3], wk[32];
  dy_linkpar_to_com(nom + DY_NPAR_LINK*j, mass, c, Ic6);
  *rg = 0;
  if (!(*mass > 0)) { c[0] = c[1] = c[2] = 0; return; }
  double A[9] = {Ic6[0], Ic6[1], Ic6[2], Ic6[1], Ic6[3], Ic6[4], Ic6[2], Ic6[4], Ic6[5]};
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', 3, A, 3, w, wk, 32) == 0 && w[2] > 0)
    *rg = sqrt(w[2] / *mass);
}

/* O_j+1 in frame j (the tip frame for the last link) [m] */
static void next_origin(const dyModel* m, int j, double p[3]) {
  double R[9];
  if (j + 1 < m->n) dy_jointframe(m, j + 1, 0, R, p);
  else memcpy(p, m->tip_T + 9, sizeof(double) * 3);
}

double dyi_plausible_radius(const dyModel* m, const double* nom, int j) {
  double mass, c[3], rg, p[3];
  nominal_link(nom, j, &mass, c, &rg);
  next_origin(m, j, p);
  double r = fmax(0.15, 1.5 * sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2]));
  r = fmax(r, 1.5 * sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]));
  return fmax(r, 1.5 * rg);
}

/* the ellipsoid of link j from its kinematics: the box holding O_j, O_j+1
 * and the nominal centre of mass, padded by max(5 cm, r_g), circumscribed
 * (semi-axes sqrt(3) times the box's half-extents) */
static void kinematic_ellipsoid(const dyModel* m, const double* nom, int j, double e[6]) {
  double mass, c[3], rg, p[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  nominal_link(nom, j, &mass, c, &rg);
  next_origin(m, j, p);
  const double pad = fmax(0.05, rg);
  for (int k = 0; k < 3; k++) {
    lo[k] = fmin(fmin(lo[k], p[k]), c[k]) - pad;
    hi[k] = fmax(fmax(hi[k], p[k]), c[k]) + pad;
    e[k] = (lo[k] + hi[k]) / 2;
    e[3 + k] = sqrt(3.0) * (hi[k] - lo[k]) / 2;
  }
}

/* the ellipsoid e grown about its centre until the nominal link u fits
 * (margin >= 0, with 2 % to spare); returns the factor (1: unchanged) */
static double grow_to_fit(double e[6], const double* u) {
  if (!(u[DY_M] > 0)) return 1;
  double mean = 1 - dyi_ellipsoid_margin(e, u) / u[DY_M];   /* E[(x-c)^T D (x-c)] */
  if (!(mean > 1)) return 1;
  double k = 1.02 * sqrt(mean);
  for (int a = 3; a < 6; a++) e[a] *= k;
  return k;
}

/* can some mass satisfy link j's bounds: the mass range, the thickness
 * within the ellipsoid's and the sphere's smallest semi-axis, the
 * ellipsoid meeting the sphere (its centre within R + its largest
 * semi-axis). 0, or -1 with err set. */
static int bounds_possible(const dyiLinkBound* b, int j, char* err, int errsz) {
  double rmin = b->radius > 0 ? b->radius : INFINITY, rmax = 0;
  int has = b->ell[3] > 0;
  for (int a = 3; a < 6 && has; a++) { rmin = fmin(rmin, b->ell[a]); rmax = fmax(rmax, b->ell[a]); }
  if (b->mass_lo > b->mass_hi) {
    snprintf(err, errsz, "link %d: no mass satisfies its bounds (%.4g kg <= m <= %.4g kg)", j + 1, b->mass_lo,
             b->mass_hi);
    return -1;
  }
  if (b->thick > 0 && !(b->thick < rmin)) {
    snprintf(err, errsz, "link %d: its bounding volume (smallest semi-axis %.4g m) is thinner than the %.4g m "
             "a body needs", j + 1, rmin, b->thick);
    return -1;
  }
  double dc = sqrt(b->ell[0]*b->ell[0] + b->ell[1]*b->ell[1] + b->ell[2]*b->ell[2]);
  if (has && b->radius > 0 && dc > b->radius + rmax) {
    snprintf(err, errsz, "link %d: its bounding ellipsoid (centre %.4g m from the joint frame, largest "
             "semi-axis %.4g m) lies outside the %.4g m its mass may be from the frame", j + 1, dc, rmax, b->radius);
    return -1;
  }
  return 0;
}

int dyi_link_bounds(const dyModel* m, const double* nom, const dyiBoundOpt* o, dyiLinkBound* out,
                    char* note, int notesz, char* err, int errsz) {
  int len = 0;
  if (note && notesz > 0) note[0] = 0;
  for (int j = 0; j < m->n; j++) {
    dyiLinkBound* b = out + j;
    const double* u = nom + DY_NPAR_LINK*j;
    const double mn = u[DY_M];
    memset(b, 0, sizeof *b);
    b->mass_hi = INFINITY;
    if (mn > 0 && o->mass_lo > 0) b->mass_lo = mn >= 0.1 ? o->mass_lo * mn : 0;
    if (mn > 0 && o->mass_hi < INFINITY) b->mass_hi = o->mass_hi * fmax(mn, 0.1);
    if (!o->volumes) continue;
    b->thick = o->thick;
    b->radius = dyi_plausible_radius(m, nom, j);
    const double* given = o->ell ? o->ell + 6*j : NULL;
    const char* how = NULL;
    if (given && given[3] > 0 && given[4] > 0 && given[5] > 0) memcpy(b->ell, given, sizeof b->ell);
    else { kinematic_ellipsoid(m, nom, j, b->ell); how = "from its kinematics"; }
    double k = how || !o->keep ? grow_to_fit(b->ell, u) : 1;
    if (note && (how || k > 1) && len < notesz)
      len += snprintf(note + len, (size_t)(notesz - len), "link %d: bounding ellipsoid %s%s%s (semi-axes %.3g %.3g "
                      "%.3g m)\n", j + 1, how ? how : "", how && k > 1 ? ", " : "",
                      k > 1 ? "grown to hold the nominal link" : "", b->ell[3], b->ell[4], b->ell[5]);
    if (bounds_possible(b, j, err, errsz)) return -1;
  }
  return 0;
}

#define DYI_FLOOR 1e-8     /* the smallest noise variance, relative to the mean squared torque */
#define DYI_GAP_AUX 1e-5   /* the cross-validation's and the bootstrap's solves: 1e-5 of the objective */

/* the data term's normaliser: the noise variance of one weighted equation,
 * at least floor times the mean squared weighted torque */
static double noise_floor(const dyiEstim* e, double floor) {
  long rows = 0;
  for (int j = 0; j < e->n; j++) rows += e->rows_j[j];
  const double yy = dyi_est_yy(e);
  return fmax(e->sigma2, floor * yy / (double)(rows > 0 ? rows : 1));
}

/* one solve of the program on estimator t's triangle with weight w and
 * right-hand side z (NULL: t's own) */
static int solve_on(const dyModel* m, const dyiBase* b, const dyiEstim* t, const dyiConsOpt* o, double w,
                    const double* z, double gaptol, double floor, dyiConsResult* r, char* err, int errsz) {
  const int p = t->p;
  int P1;
  const double* R = dyi_est_raug(t, &P1);
  dyiConsProblem pr = {.p = p, .npar = b->npar, .K = b->B, .R = R, .ldr = P1,
                       .z = z ? z : R + (size_t)P1 * p, .rho2 = dyi_est_rho2(t), .prior = o->prior,
                       .prior_weight = w, .min_eig = o->min_eig, .bounds = o->bounds,
                       .total_mass = o->total_mass, .total_tol = o->total_tol, .f0 = noise_floor(t, floor),
                       .gaptol = gaptol, .fixed = b->fix};
  return dyi_consistent(m, &pr, r, err, errsz);
}

/* the held-out residual of part f for beta: the sum over joints of its
 * rss (WLS: each divided by the joint's noise variance) */
static double heldout(const dyiEstim* e, int f, const double* beta) {
  double s = 0;
  for (int j = 0; j < e->n; j++) {
    double v = dyi_est_part_rss(e, f, j, beta);
    if (e->opt.method == DYI_WLS && e->sigma_j[j] > 0) v /= e->sigma_j[j] * e->sigma_j[j];
    s += v;
  }
  return s;
}

/* the prior weight by cross-validation (see consistent.h); *w unchanged
 * (and res->ncv 0) when the parts cannot be solved without one of theirs */
static int choose_weight(const dyModel* m, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* o,
                         dyiConsResult* res, double* w, int* done, int total, char* err, int errsz) {
  const int F = e->opt.folds;
  dyiEstim* t[DYI_CV_NW_MAX * 8] = {0};
  if (F < 2 || F > DYI_CV_NW_MAX * 8) return 0;
  for (int f = 0; f < F; f++) {
    char e2[512];
    if (!(t[f] = dyi_est_without_part(e, f, e2, sizeof e2))) {
      for (int g = 0; g < f; g++) dyi_est_free(t[g]);
      return 0;
    }
  }
  /* 0.1, 1, 10, 100; then on outward by decades (to 1e-3 or 1e4) while
   * the smallest held-out sum is at an end of the weights tried */
  int st = 0, nw = 0, lo = 0, hi = 0;
  double best = INFINITY, wt[DYI_CV_NW_MAX], sum[DYI_CV_NW_MAX];
  for (int k = 0; !st && nw < DYI_CV_NW_MAX; k++) {
    double wk;
    if (k < 4) wk = 0.1 * pow(10, k);
    else if (*w == wt[lo] && wt[lo] > 2e-3) wk = wt[lo] / 10;
    else if (*w == wt[hi] && wt[hi] < 5e3) wk = wt[hi] * 10;
    else break;
    double s = 0;
    for (int f = 0; f < F && !st; f++) {
      dyiConsResult r;
      if (solve_on(m, b, t[f], o, wk, NULL, DYI_GAP_AUX, DYI_FLOOR, &r, err, errsz)) { st = -1; break; }
      s += heldout(e, f, r.beta);
      dyi_cons_free(&r);
      if (o->progress) o->progress(++*done, total);
    }
    wt[nw] = wk; sum[nw] = s;
    if (wk < wt[lo]) lo = nw;
    if (wk > wt[hi]) hi = nw;
    nw++;
    if (s < best) { best = s; *w = wk; }
  }
  /* in ascending order of weight */
  for (int k = 0; k < nw; k++) {
    int r = 0;
    for (int l = 0; l < nw; l++) r += wt[l] < wt[k];
    res->cv_weight[r] = wt[k];
    res->cv_err[r] = sum[k];
  }
  res->ncv = nw;

  res->cv_parts = F;
  for (int f = 0; f < F; f++) dyi_est_free(t[f]);
  return st;
}

/* a standard normal deviate (Box-Muller) */
static double gauss(unsigned long long* s) {
  double u = dy_rng_u01(dy_rng_xorshift(s)), v = dy_rng_u01(dy_rng_xorshift(s));
  return sqrt(-2 * log(fmax(u, 1e-300))) * cos(2 * M_PI * v);
}

/* the parametric bootstrap of the estimate res (see consistent.h) */
static int bootstrap(const dyModel* m, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* o, double w,
                     dyiConsResult* res, int* done, int total, char* err, int errsz) {
  const int p = e->p, B = o->boot;
  int P1;
  const double* R = dyi_est_raug(e, &P1);
  const double sb = sqrt(e->sigma2 * (e->opt.var_factor > 0 ? e->opt.var_factor : 1));
  double* z = malloc(sizeof(double) * (size_t)p);
  double* s1 = calloc((size_t)p, sizeof(double));
  double* s2 = calloc((size_t)p, sizeof(double));
  res->std = malloc(sizeof(double) * (size_t)p);
  res->held = calloc((size_t)p, 1);
  if (!z || !s1 || !s2 || !res->std || !res->held) {
    free(z); free(s1); free(s2);
    snprintf(err, errsz, "consistent: out of memory");
    return -1;
  }
  unsigned long long seed = o->seed ? o->seed : 0x9e3779b97f4a7c15ULL;
  int st = 0;
  for (int r = 0; r < B && !st; r++) {
    for (int i = 0; i < p; i++) {   /* z* = R beta + sigma_b e */
      double v = 0;
      for (int l = i; l < p; l++) v += R[i + (size_t)P1 * l] * res->beta[l];
      z[i] = v + sb * gauss(&seed);
    }
    dyiConsResult rb;
    if (solve_on(m, b, e, o, w, z, DYI_GAP_AUX, DYI_FLOOR, &rb, err, errsz)) { st = -1; break; }
    for (int i = 0; i < p; i++) {
      double d = rb.beta[i] - res->beta[i];
      s1[i] += d; s2[i] += d * d;
    }
    dyi_cons_free(&rb);
    if (o->progress) o->progress(++*done, total);
  }
  for (int i = 0; i < p && !st; i++) {
    double mean = s1[i] / B, var = fmax(0, s2[i] / B - mean * mean) * B / (B > 1 ? B - 1 : 1);
    res->std[i] = sqrt(var);
    res->held[i] = !(res->std[i] >= 0.05 * e->std[i]);
    if (res->held[i]) res->std[i] = NAN;
  }
  res->boot = B;
  free(z); free(s1); free(s2);
  return st;
}

int dyi_consistent_est(const dyModel* m, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* o,
                       dyiConsResult* res, char* err, int errsz) {
  const int p = e->p;
  memset(res, 0, sizeof *res);
  if (p != b->nb) { snprintf(err, errsz, "consistent: the estimator has %d parameters, the set %d", p, b->nb); return -1; }
  const double t0 = dy_now_s();
  double w = o->prior ? (o->weight >= 0 ? o->weight : DYI_PRIOR_W) : DYI_NOPRIOR_W;
  dyiConsResult cv;
  memset(&cv, 0, sizeof cv);
  int done = 0, total = 1 + (o->boot > 0 ? o->boot : 0);
  const int cvs = o->prior && o->weight < 0 && e->opt.folds > 1;
  if (cvs) total += 4 * e->opt.folds;
  if (cvs && choose_weight(m, b, e, o, &cv, &w, &done, total, err, errsz)) return -1;
  /* nearly exact torques: the floor is the normaliser; where the solver
   * cannot certify at that scale, a 100x coarser one (at most 3 times) */
  for (double fl = DYI_FLOOR;; fl *= 100) {
    if (solve_on(m, b, e, o, w, NULL, 0, fl, res, err, errsz)) return -1;
    if (res->certified || e->sigma2 >= noise_floor(e, fl) || fl >= 1e5 * DYI_FLOOR) break;
    dyi_cons_free(res);
  }
  if (o->progress) o->progress(++done, total);
  res->weight = w;
  if (!(res->scale = malloc(sizeof(double) * (size_t)p))) {
    dyi_cons_free(res);
    snprintf(err, errsz, "consistent: out of memory");
    return -1;
  }
  dyi_base_scales(m, b->B, p, b->npar, o->prior, res->scale);
  res->ncv = cv.ncv;
  res->cv_parts = cv.cv_parts;
  memcpy(res->cv_weight, cv.cv_weight, sizeof cv.cv_weight);
  memcpy(res->cv_err, cv.cv_err, sizeof cv.cv_err);
  if (o->boot > 0 && bootstrap(m, b, e, o, w, res, &done, total, err, errsz)) { dyi_cons_free(res); return -1; }
  if (o->progress && done != total) o->progress(total, total);   /* the weights tried were not 4 */
  res->seconds_total = dy_now_s() - t0;
  return 0;
}
