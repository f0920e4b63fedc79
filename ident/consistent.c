/* SPDX-License-Identifier: MIT */
/* dynid ident: physically consistent identification as a semidefinite
 * program (see consistent.h for the problem, the scaling and the
 * certificate). The solver is DSDP 5 (Debian's libdsdp-dev): it maximises
 * b^T y subject to C - sum_i y_i A_i >= 0 over a product of PSD blocks and
 * bounds on y; symmetric data matrices are given in packed lower-triangular
 * form, entry (i, j), i >= j, at index i (i + 1) / 2 + j. DSDP keeps
 * pointers to the data arrays: they live until DSDPDestroy. */
#include "ident/consistent.h"
#include "core/util.h"
#include "core/mathu.h"
#include <dsdp/dsdp5.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int pk(int i, int j) { return i >= j ? i*(i+1)/2 + j : j*(j+1)/2 + i; }

static double sym4_mineig(double A[16]) {   /* destroyed */
  double w[4], wk[64];
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', 4, A, 4, w, wk, 64) != 0) return NAN;
  return w[0];
}

double dyi_pseudo_mineig(const double par10[10]) {
  double A[16];
  dy_pseudo_inertia(par10, A);
  return sym4_mineig(A);
}

void dyi_cons_free(dyiConsResult* r) {
  if (!r) return;
  free(r->pi); free(r->beta); free(r->std); free(r->held); free(r->scale);
  r->pi = r->beta = r->std = r->scale = NULL;
  r->held = NULL;
}

/* per-parameter scales S (npar) and per-link block scales: a mass scale per
 * link (the prior's mass, at least 5 % of the mean prior mass; 1 kg without
 * a prior) and a length scale per link L_j: with a prior with mass, the
 * link's own size (the larger of its centre of mass's distance from O_j
 * and its rms radius about it, sqrt(tr I_c / 2m)), else the arm's (the
 * mean |a| + |d| of its joints), clamped to [0.05, 1] m. IA scales as
 * the mean mass times the arm's length squared. */
static void scales(const dyModel* m, const double* prior, int npar, double* S, double* ms, double* L) {
  int n = m->n;
  double len = 0, mean = 0;
  for (int j = 0; j < n; j++) len += fabs(m->dh_a[j]) + fabs(m->dh_d[j]);
  len = fmin(1, fmax(0.05, len / n));
  if (prior) for (int j = 0; j < n; j++) mean += fmax(0, prior[DY_NPAR_LINK*j + DY_M]) / n;
  double msum = 0;
  for (int j = 0; j < n; j++) {
    ms[j] = mean > 0 ? fmax(prior[DY_NPAR_LINK*j + DY_M], 0.05 * mean) : 1;
    msum += ms[j] / n;
    L[j] = len;
    if (mean > 0 && prior[DY_NPAR_LINK*j + DY_M] > 0) {
      double mass, c[3], Ic[6];
      dy_linkpar_to_com(prior + DY_NPAR_LINK*j, &mass, c, Ic);
      double r = sqrt(fmax(0, (Ic[0] + Ic[3] + Ic[5]) / (2 * mass)));
      L[j] = fmin(1, fmax(0.05, fmax(r, sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]))));
    }
    double* s = S + DY_NPAR_LINK*j;
    for (int k = DY_XX; k <= DY_ZZ; k++) s[k] = ms[j] * L[j] * L[j];
    for (int k = DY_MX; k <= DY_MZ; k++) s[k] = ms[j] * L[j];
    s[DY_M] = ms[j];
  }
  for (int k = DY_NPAR_LINK*n; k < npar; k++)
    S[k] = dy_parkind(m, k) == DY_IA ? msum * len * len : 1;
}

/* Multipliers this close to feasible give a trusted bound (the solver's
 * primal infeasibility, DSDPGetPInfeasibility). DSDP itself reports
 * DSDP_CONVERGED with up to its primal tolerance (1e-4 by default); the
 * same Panda iterate with 5.9e-6 is labelled converged or "indefinite
 * Schur matrix" depending on the gap tolerance and the BLAS kernels
 * (AVX-512 here), its bound within 4e-10 of the objective. A bound spoiled
 * by infeasible multipliers shows as a bound above the objective, which
 * both checks below refuse. */
#define PINFEAS_OK 1e-5

/* d pi_k / d x_k: S_k, 0 for a held parameter (pi_k = pic_k whatever x_k) */
#define SMAP(c, k) ((c)->held[k] ? 0.0 : (c)->S[k])

/* the data of one sparse packed matrix, kept alive for DSDP */
typedef struct { int* ind; double* val; int nnz; } spmat;

/* one solve: the scaled problem and the solver's data */
typedef struct {
  const dyModel* m;
  const dyiConsProblem* pr;
  int n, p, nv, q;          /* joints, base and full parameters, residual rows (nv) */
  double f0, w;             /* residual normalisation, prior weight */
  double c2;                /* ||G x - h||^2 = ||Gr x - hr||^2 + c2 */
  double *S, *pic;          /* scales and centre (nv each): pi = pic + S x */
  double *prs;              /* the prior in scaled variables, (prior - pic) / S (nv) */
  double *G, *h;            /* reduced residual r = G x - h, row-major q x nv */
  double ms[DY_MAXJ], L[DY_MAXJ];  /* per-link mass and length scales */
  unsigned char flag[DY_MAXPAR];  /* pi_k >= 0 */
  unsigned char held[DY_MAXPAR];  /* pi_k = pic_k, a constant (pr->fixed) */
  DSDP dsdp;
  spmat* mats;
  int nmats;
} consCtx;

/* the next sparse matrix slot with room for cap entries; NULL when out of memory */
static spmat* new_mat(consCtx* c, int cap) {
  spmat* A = c->mats + c->nmats++;
  A->ind = malloc(sizeof(int) * (size_t)cap);
  A->val = malloc(sizeof(double) * (size_t)cap);
  return A->ind && A->val ? A : NULL;
}

/* Scales, centre and the residual in scaled variables,
 *   G = [R K S / sqrt(f0); sqrt(w) 1],  h = [(z - R K pic) / sqrt(f0); sqrt(w) prs],
 * reduced by the QR of [G h] ((p + nv) x (nv + 1)) to its nv x nv triangle
 * and the constant c2. 0, or -1 with err set. */
static int setup_residual(consCtx* c, char* err, int errsz) {
  const dyiConsProblem* pr = c->pr;
  const int p = c->p, nv = c->nv, nl = DY_NPAR_LINK * c->n, q0 = p + nv, nc = nv + 1;
  scales(c->m, pr->prior, nv, c->S, c->ms, c->L);
  if (pr->prior) memcpy(c->pic, pr->prior, sizeof(double) * (size_t)nv);
  for (int k = 0; k < nv; k++) {
    c->flag[k] = pr->nonneg ? pr->nonneg[k] : (k >= nl && dy_parkind(c->m, k) != DY_FO);   /* IA FV FC, IAM FVM FCM >= 0 */
    c->prs[k] = 0;   /* the centre is the prior (or 0 without one) */
    c->held[k] = pr->fixed && !isnan(pr->fixed[k]);
    if (c->held[k]) { c->pic[k] = pr->fixed[k]; c->flag[k] = 0; }   /* its x_k acts nowhere */
  }
  /* [G h], column-major (q0 x nc) */
  double* A = calloc((size_t)q0 * (size_t)nc, sizeof(double));
  double* tau = malloc(sizeof(double) * (size_t)nc);
  c->q = nv;
  c->G = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
  c->h = malloc(sizeof(double) * (size_t)nv);
  if (!A || !tau || !c->G || !c->h) { free(A); free(tau); snprintf(err, errsz, "consistent: out of memory"); return -1; }
  const double isf = 1 / sqrt(c->f0), sw = sqrt(c->w);
  for (int i = 0; i < p; i++) {
    double hs = pr->z[i];
    for (int j = 0; j < nv; j++) {
      double rk = 0;   /* (R K)_ij, R upper triangular */
      for (int l = i; l < p; l++) rk += pr->R[i + (size_t)pr->ldr * l] * pr->K[(size_t)l*nv + j];
      A[i + (size_t)q0 * j] = rk * SMAP(c, j) * isf;
      hs -= rk * c->pic[j];
    }
    A[i + (size_t)q0 * nv] = hs * isf;
  }
  for (int k = 0; k < nv; k++) {
    A[p + k + (size_t)q0 * k] = sw;
    A[p + k + (size_t)q0 * nv] = sw * c->prs[k];
  }
  if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, q0, nc, A, q0, tau)) {
    free(A); free(tau); snprintf(err, errsz, "consistent: QR of the residual failed"); return -1;
  }
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) c->G[(size_t)i*nv + j] = j >= i ? A[i + (size_t)q0 * j] : 0;
    c->h[i] = A[i + (size_t)q0 * nv];
  }
  c->c2 = A[nv + (size_t)q0 * nv] * A[nv + (size_t)q0 * nv];
  free(A); free(tau);
  return 0;
}

/* Block 0, the residual as a second-order cone: [s r^T; r s 1] >= 0, i.e.
 * s >= ||r||, r = G x - h: C = [0 -h^T; -h 0], A_x = -[0 g^T; g 0], A_s = -1.
 * 0, or -1 out of memory. */
static int add_residual_block(consCtx* c, SDPCone cone) {
  const int q = c->q, nv = c->nv, mvar = nv + 1;
  SDPConeSetBlockSize(cone, 0, q + 1);
  spmat* C = new_mat(c, q);
  if (!C) return -1;
  for (int i = 1; i <= q; i++)
    if (c->h[i-1] != 0) { C->ind[C->nnz] = pk(i, 0); C->val[C->nnz++] = -c->h[i-1]; }
  if (C->nnz) SDPConeSetASparseVecMat(cone, 0, 0, q + 1, 1.0, 0, C->ind, C->val, C->nnz);
  for (int j = 0; j < nv; j++) {
    spmat* A = new_mat(c, q);
    if (!A) return -1;
    for (int i = 1; i <= q; i++) {
      double g = c->G[(size_t)(i-1)*nv + j];
      if (g != 0) { A->ind[A->nnz] = pk(i, 0); A->val[A->nnz++] = -g; }
    }
    if (A->nnz) SDPConeSetASparseVecMat(cone, 0, j + 1, q + 1, 1.0, 0, A->ind, A->val, A->nnz);
  }
  spmat* T = new_mat(c, q + 1);
  if (!T) return -1;
  for (int i = 0; i <= q; i++) { T->ind[i] = pk(i, i); T->val[i] = -1; }
  T->nnz = q + 1;
  SDPConeSetASparseVecMat(cone, 0, mvar, q + 1, 1.0, 0, T->ind, T->val, T->nnz);
  return 0;
}

/* the thickness s of link j (0 without bounds) */
static double thick(const consCtx* c, int j) { return c->pr->bounds ? c->pr->bounds[j].thick : 0; }

/* PI(u) - diag(m s^2, m s^2, m s^2, 0) of ten link parameters u: linear in u */
static void pseudo_thick(const double u[10], double s, double PI[16]) {
  dy_pseudo_inertia(u, PI);
  for (int a = 0; a < 3; a++) PI[5*a] -= u[DY_M] * s * s;
}

/* Blocks 1..n: D (PI_j(pic + S x) - m s^2 diag(1,1,1,0) - E 1) D >= 0 with
 * the congruence D = diag(1/L_j, 1/L_j, 1/L_j, 1) / sqrt(m_s) (entries of order
 * 1). 0, or -1. */
static int add_link_blocks(consCtx* c, SDPCone cone) {
  for (int j = 0; j < c->n; j++) {
    double d[4] = {1/c->L[j], 1/c->L[j], 1/c->L[j], 1}, PI[16];
    for (int a = 0; a < 4; a++) d[a] /= sqrt(c->ms[j]);
    SDPConeSetBlockSize(cone, 1 + j, 4);
    for (int v = -1; v < DY_NPAR_LINK; v++) {   /* v < 0: C, else A of x_(10j+v) */
      double u[10] = {0};
      if (v < 0) memcpy(u, c->pic + DY_NPAR_LINK*j, sizeof u);
      else u[v] = SMAP(c, DY_NPAR_LINK*j + v);
      pseudo_thick(u, thick(c, j), PI);
      if (v < 0) for (int a = 0; a < 4; a++) PI[5*a] -= c->pr->min_eig;
      spmat* A = new_mat(c, 10);
      if (!A) return -1;
      for (int a = 0; a < 4; a++)
        for (int b = 0; b <= a; b++) {
          double e = PI[4*a + b] * d[a] * d[b] * (v < 0 ? 1 : -1);
          if (e != 0) { A->ind[A->nnz] = pk(a, b); A->val[A->nnz++] = e; }
        }
      if (A->nnz) SDPConeSetASparseVecMat(cone, 1 + j, v < 0 ? 0 : DY_NPAR_LINK*j + v + 1, 4, 1.0, 0,
                                          A->ind, A->val, A->nnz);
    }
  }
  return 0;
}

/* tr(Q PI(u)) for the ellipsoid (centre e[0..2], semi-axes e[3..5]) of ten
 * link parameters u [kg]: m - sum_k (Sigma_kk - 2 c_k h_k + c_k^2 m) / r_k^2,
 * with Sigma = tr(J)/2 1 - J the second moment about O_j. Linear in u. */
double dyi_ellipsoid_margin(const double e[6], const double u[10]) {
  double PI[16];
  dy_pseudo_inertia(u, PI);
  double v = PI[15];
  for (int k = 0; k < 3; k++)
    v -= (PI[5*k] - 2 * e[k] * PI[4*k + 3] + e[k] * e[k] * PI[15]) / (e[3+k] * e[3+k]);
  return v;
}

/* the linear constraints of link j (ellipsoid, sphere) as centre-sphere pairs */
static int link_ellipsoids(const consCtx* c, int j, double el[2][6]) {
  int k = 0;
  if (!c->pr->bounds) return 0;
  const dyiLinkBound* b = c->pr->bounds + j;
  if (b->ell[3] > 0 && b->ell[4] > 0 && b->ell[5] > 0) memcpy(el[k++], b->ell, sizeof el[0]);
  if (b->radius > 0) { double s[6] = {0, 0, 0, b->radius, b->radius, b->radius}; memcpy(el[k++], s, sizeof s); }
  return k;
}

/* One 1x1 block: g(pic + S x) >= 0 for a linear g given on the variables
 * of link j (or every mass, j < 0: the total-mass rows, g = sgn (sum m - M))
 * as C = g(pic) / m_s, A_i = -g(S_i e_i) / m_s. 0, or -1. */
static int add_scalar_block(consCtx* c, SDPCone cone, int blk, int j, const double* el, double sgn, double M) {
  const double sc = j >= 0 ? c->ms[j] : c->ms[0];
  SDPConeSetBlockSize(cone, blk, 1);
  int v0 = j >= 0 ? DY_NPAR_LINK*j : 0, v1 = j >= 0 ? v0 + DY_NPAR_LINK : DY_NPAR_LINK*c->n;
  for (int v = v0 - 1; v < v1; v++) {   /* v0 - 1: C */
    double g;
    if (j >= 0) {
      double u[10] = {0};
      if (v < v0) memcpy(u, c->pic + v0, sizeof u); else u[v - v0] = SMAP(c, v);
      g = dyi_ellipsoid_margin(el, u);
    } else if (v < v0) {
      g = -sgn * M;
      for (int l = 0; l < c->n; l++) g += sgn * c->pic[DY_NPAR_LINK*l + DY_M];
    } else g = (v % DY_NPAR_LINK == DY_M) ? sgn * SMAP(c, v) : 0;
    if (g == 0) continue;
    spmat* A = new_mat(c, 1);
    if (!A) return -1;
    A->ind[0] = 0; A->val[0] = (v < v0 ? 1 : -1) * g / sc; A->nnz = 1;
    SDPConeSetASparseVecMat(cone, blk, v < v0 ? 0 : v + 1, 1, 1.0, 0, A->ind, A->val, 1);
  }
  return 0;
}

/* the number of 1x1 blocks of the problem */
static int scalar_blocks(const consCtx* c) {
  int k = c->pr->total_mass > 0 ? 2 : 0;
  for (int j = 0; j < c->n; j++) { double el[2][6]; k += link_ellipsoids(c, j, el); }
  return k;
}

/* Blocks n+1...: every link's ellipsoid and sphere, the total mass. 0 or -1. */
static int add_linear_blocks(consCtx* c, SDPCone cone) {
  int blk = 1 + c->n;
  for (int j = 0; j < c->n; j++) {
    double el[2][6];
    int k = link_ellipsoids(c, j, el);
    for (int i = 0; i < k; i++)
      if (add_scalar_block(c, cone, blk++, j, el[i], 0, 0)) return -1;
  }
  if (c->pr->total_mass > 0) {
    const double M = c->pr->total_mass, t = c->pr->total_tol;
    if (add_scalar_block(c, cone, blk++, -1, NULL, 1, M * (1 - t)) ||
        add_scalar_block(c, cone, blk++, -1, NULL, -1, M * (1 + t))) return -1;
  }
  return 0;
}

/* Bounds: flagged pi_k = pic_k + S_k x_k >= 0, the masses in their
 * bounds, and the box |x_k| <= DYI_BOX (directions of zero curvature
 * otherwise make DSDP's Schur matrix singular near the optimum). */
static void add_bounds(consCtx* c) {
  BCone bc;
  DSDPCreateBCone(c->dsdp, &bc);
  BConeAllocateBounds(bc, 2 * c->nv);
  for (int j = 0; j < c->nv; j++) {
    double lo = c->flag[j] ? fmax(-c->pic[j] / c->S[j], -DYI_BOX) : -DYI_BOX, hi = DYI_BOX;
    if (c->pr->bounds && !c->held[j] && j < DY_NPAR_LINK * c->n && j % DY_NPAR_LINK == DY_M) {
      const dyiLinkBound* b = c->pr->bounds + j / DY_NPAR_LINK;
      if (b->mass_lo > 0) lo = fmax(lo, (b->mass_lo - c->pic[j]) / c->S[j]);
      if (b->mass_hi < INFINITY) hi = fmin(hi, (b->mass_hi - c->pic[j]) / c->S[j]);
    }
    BConeSetLowerBound(bc, j + 1, lo);
    BConeSetUpperBound(bc, j + 1, hi);
  }
}

/* The result from the solver's y = (x, s), everything recomputed from pi:
 * beta = K pi, the residual, the prior term, the margins; the bound from
 * the solver's primal objective -(C . X) >= -s*. Joint parameters that no
 * base parameter uses (kinds left out with --friction=LIST) are set to 0. */
static void evaluate(consCtx* c, const double* y, dyiConsResult* res) {
  const dyiConsProblem* pr = c->pr;
  const int p = c->p, nv = c->nv, nl = DY_NPAR_LINK * c->n;
  for (int j = 0; j < nv; j++) {
    res->pi[j] = c->pic[j] + SMAP(c, j) * y[j];
    if (c->flag[j] && res->pi[j] < 0 && res->pi[j] > -1e-12 * c->S[j]) res->pi[j] = 0;
    int used = j < nl || c->held[j];
    for (int i = 0; i < p && !used; i++) used = pr->K[(size_t)i*nv + j] != 0;
    if (!used) res->pi[j] = 0;
  }
  for (int i = 0; i < p; i++) {
    double s = 0;
    for (int j = 0; j < nv; j++) s += pr->K[(size_t)i*nv + j] * res->pi[j];
    res->beta[i] = s;
  }
  double rd = 0, pt = 0;
  for (int i = 0; i < p; i++) {
    double s = -pr->z[i];
    for (int l = i; l < p; l++) s += pr->R[i + (size_t)pr->ldr * l] * res->beta[l];
    rd += s*s;
  }
  for (int j = 0; j < nv; j++) {
    double s = c->held[j] ? 0 : (res->pi[j] - c->pic[j]) / c->S[j] - c->prs[j];
    pt += s*s;
  }
  res->rss = rd + pr->rho2;
  res->rss_rise_pct = pr->rho2 > 0 ? 100 * rd / pr->rho2 : INFINITY;
  res->prior_term = c->w * pt;
  res->objective = rd / c->f0 + pr->rho2 / c->f0 + res->prior_term;
  double pobj = NAN, slb;
  DSDPGetPObjective(c->dsdp, &pobj);
  slb = fmax(0, -pobj);   /* lower bound of s = ||r|| */
  res->lower_bound = slb * slb + c->c2 + pr->rho2 / c->f0;
  res->gap = (res->objective - res->lower_bound) / fmax(1, fabs(res->objective));
  DSDPGetPInfeasibility(c->dsdp, &res->pinfeas);
  /* optimal to 1e-5 of the normalised objective (the training residual to
   * 0.001 %: DSDP's final accuracy on these problems is ~1e-6..1e-8), by a
   * dual bound that is not above the objective and comes from (nearly)
   * feasible multipliers */
  int ok = res->gap <= 1e-5 && res->lower_bound <= res->objective * (1 + 1e-6) &&
           (res->solver_status == DSDP_CONVERGED || res->pinfeas <= PINFEAS_OK);
  for (int j = 0; j < c->n; j++) {
    double PI[16], el[2][6];
    const double* u = res->pi + DY_NPAR_LINK*j;
    dy_pseudo_inertia(u, PI);
    double tr = PI[0] + PI[5] + PI[10] + PI[15];
    pseudo_thick(u, thick(c, j), PI);
    for (int a = 0; a < 4; a++) PI[5*a] -= pr->min_eig;
    res->link_margin[j] = sym4_mineig(PI);
    res->link_margin_rel[j] = res->link_margin[j] / fmax(tr, 1e-300);
    ok &= res->link_margin_rel[j] >= -1e-9;
    res->bound_margin[j] = INFINITY;
    int k = link_ellipsoids(c, j, el);
    for (int i = 0; i < k; i++)
      res->bound_margin[j] = fmin(res->bound_margin[j], dyi_ellipsoid_margin(el[i], u) / fmax(u[DY_M], 1e-300));
    ok &= !(res->bound_margin[j] < -1e-7);
    if (pr->bounds && !c->held[DY_NPAR_LINK*j + DY_M]) {   /* a held mass is the user's */
      const dyiLinkBound* b = pr->bounds + j;
      ok &= !(u[DY_M] < b->mass_lo * (1 - 1e-9)) && !(u[DY_M] > b->mass_hi * (1 + 1e-9));
    }
  }
  res->nonneg_margin = INFINITY;
  for (int j = 0; j < nv; j++) if (c->flag[j]) res->nonneg_margin = fmin(res->nonneg_margin, res->pi[j]);
  res->certified = ok && !(res->nonneg_margin < 0);
}

/* set up (scaled residual, blocks, bounds), solve, evaluate */
int dyi_consistent(const dyModel* m, const dyiConsProblem* pr, dyiConsResult* res,
                   char* err, int errsz) {
  const int n = m->n, p = pr->p, nv = pr->npar;
  memset(res, 0, sizeof *res);
  if (nv != DY_NPAR_LINK*n && nv != dy_npar(m)) { snprintf(err, errsz, "consistent: %d parameters for %d joints", nv, n); return -1; }
  if (p < 1 || p > nv) { snprintf(err, errsz, "consistent: %d base parameters for %d", p, nv); return -1; }
  if (!(pr->min_eig >= 0) || !isfinite(pr->min_eig)) {
    snprintf(err, errsz, "consistent: the eigenvalue margin must be >= 0, got %g", pr->min_eig);
    return -1;
  }
  if (!(pr->prior_weight >= 0) || !isfinite(pr->prior_weight)) {
    snprintf(err, errsz, "consistent: the prior weight must be >= 0"); return -1;
  }
  const double t0 = dy_now_s();
  consCtx c = {.m = m, .pr = pr, .n = n, .p = p, .nv = nv,
               .f0 = pr->f0 > 0 ? pr->f0 : pr->rho2 > 0 ? pr->rho2 : 1, .w = pr->prior_weight};
  int status = -1;
  const int mvar = nv + 1;   /* DSDP's y: x (nv), then s; maximise -s */
  c.S = malloc(sizeof(double) * (size_t)nv);
  c.pic = calloc((size_t)nv, sizeof(double));
  c.prs = calloc((size_t)nv, sizeof(double));
  double* y = calloc((size_t)mvar, sizeof(double));
  res->pi = calloc((size_t)nv, sizeof(double));
  res->beta = calloc((size_t)p, sizeof(double));
  if (!c.S || !c.pic || !c.prs || !y || !res->pi || !res->beta) {
    snprintf(err, errsz, "consistent: out of memory"); goto done;
  }
  if (setup_residual(&c, err, errsz)) goto done;
  const int nsc = scalar_blocks(&c);
  c.mats = calloc((size_t)(mvar + 1) * (size_t)(1 + n) + (size_t)nsc * (DY_MAXPAR + 1), sizeof(spmat));
  if (!c.mats) { snprintf(err, errsz, "consistent: out of memory"); goto done; }
  double hh = 0;
  for (int i = 0; i < c.q; i++) hh += c.h[i] * c.h[i];
  SDPCone cone;
  if (DSDPCreate(mvar, &c.dsdp) || DSDPCreateSDPCone(c.dsdp, 1 + n + nsc, &cone)) {
    snprintf(err, errsz, "consistent: DSDP could not be created"); goto done;
  }
  if (add_residual_block(&c, cone) || add_link_blocks(&c, cone) || add_linear_blocks(&c, cone)) {
    snprintf(err, errsz, "consistent: out of memory"); goto done;
  }
  add_bounds(&c);
  DSDPSetDualObjective(c.dsdp, mvar, -1.0);
  DSDPSetY0(c.dsdp, mvar, sqrt(hh) + 1);
  DSDPSetGapTolerance(c.dsdp, pr->gaptol > 0 ? pr->gaptol : 1e-7);   /* tighter runs into breakdowns */
  DSDPSetMaxIts(c.dsdp, 500);
  DSDPUseLAPACKForSchur(c.dsdp, 1);
  DSDPSetYBounds(c.dsdp, -1e7, 1e7 + 2*sqrt(hh));
  if (pr->verbose) DSDPSetStandardMonitor(c.dsdp, 1);
  if (DSDPSetup(c.dsdp) || DSDPSolve(c.dsdp)) { snprintf(err, errsz, "consistent: the SDP solver failed"); goto done; }
  DSDPTerminationReason why;
  DSDPStopReason(c.dsdp, &why);
  res->solver_status = (int)why;
  DSDPComputeX(c.dsdp);
  DSDPGetY(c.dsdp, y, mvar);
  DSDPGetIts(c.dsdp, &res->iterations);
  evaluate(&c, y, res);
  res->seconds = dy_now_s() - t0;
  status = 0;
done:
  if (c.dsdp) DSDPDestroy(c.dsdp);
  for (int i = 0; i < c.nmats; i++) { free(c.mats[i].ind); free(c.mats[i].val); }
  free(c.mats); free(c.S); free(c.pic); free(c.prs); free(c.G); free(c.h); free(y);
  if (status) dyi_cons_free(res);
  return status;
}

int dyi_consistent_check(const dyModel* m, const double* K, int p, int npar, const double* beta,
                         const double* prior, double* dist, double* lower, double* pi_out,
                         char* err, int errsz) {
  double* R = calloc((size_t)p * (size_t)p, sizeof(double));
  double* z = malloc(sizeof(double) * (size_t)p);
  if (!R || !z) { free(R); free(z); snprintf(err, errsz, "consistent: out of memory"); return -1; }
  double big = 0;
  for (int i = 0; i < p; i++) big = fmax(big, fabs(beta[i]));
  for (int i = 0; i < p; i++) {
    double d = 1 / fmax(fabs(beta[i]), 1e-3 * big + 1e-300);
    R[i + (size_t)p * i] = d;
    z[i] = d * beta[i];
  }
  /* the distance alone (no pull toward the centre), so that the dual bound
   * bounds every consistent realisation's distance */
  const double tol = 1e-12;
  dyiConsProblem pr = {.p = p, .npar = npar, .K = K, .R = R, .ldr = p, .z = z, .prior = prior};
  dyiConsResult r;
  if (dyi_consistent(m, &pr, &r, err, errsz)) { free(R); free(z); return -1; }
  int valid = !(r.nonneg_margin < 0);
  for (int j = 0; j < m->n; j++) valid &= r.link_margin_rel[j] >= -1e-9;
  *dist = r.rss;
  *lower = 0;
  if (pi_out) memcpy(pi_out, r.pi, sizeof(double) * (size_t)npar);
  /* a bound is trusted when it is not above the distance found by more
   * than the solver's accuracy (1e-4 relative on these flat problems) and
   * comes from (nearly) feasible multipliers */
  int bound_ok = r.lower_bound <= r.rss * (1 + 1e-4) && r.pinfeas <= PINFEAS_OK;
  if (bound_ok) *lower = fmin(r.lower_bound, r.rss) * (1 - 1e-4);   /* the solver's accuracy taken off */
  int ans = 2;
  if (*dist <= tol && valid) ans = 1;
  else if (bound_ok && *lower > 1e6 * tol) ans = 0;   /* a clear margin: distance >= 1e-3 */
  dyi_cons_free(&r);
  free(R); free(z);
  return ans;
}

void dyi_base_scales(const dyModel* m, const double* K, int p, int npar, const double* prior, double* scale) {
  double S[DY_MAXPAR], ms[DY_MAXJ], L[DY_MAXJ];
  scales(m, prior, npar, S, ms, L);
  for (int i = 0; i < p; i++) {
    scale[i] = 0;
    for (int k = 0; k < npar; k++) scale[i] += fabs(K[(size_t)i*npar + k]) * S[k];
  }
}

int dyi_realise_near(const dyModel* m, const double* K, int p, int npar, const double* beta,
                     const double* prior, double* pi, char* err, int errsz) {
  const int n = m->n;
  double S[DY_MAXPAR], ms[DY_MAXJ], L[DY_MAXJ];
  scales(m, prior, npar, S, ms, L);
  /* x = (K S)^+ (beta - K prior) by the SVD of K S; pi = prior + S x */
  double* A = malloc(sizeof(double) * (size_t)p * (size_t)npar);
  double* rhs = malloc(sizeof(double) * (size_t)(npar > p ? npar : p));
  double* sv = malloc(sizeof(double) * (size_t)p);
  int rank, st = -1;
  if (!A || !rhs || !sv) { snprintf(err, errsz, "realise: out of memory"); goto done; }
  for (int i = 0; i < p; i++) {
    double s = beta[i];
    for (int c = 0; c < npar; c++) {
      A[i + (size_t)p * c] = K[(size_t)i*npar + c] * S[c];
      if (prior) s -= K[(size_t)i*npar + c] * prior[c];
    }
    rhs[i] = s;
  }
  if (LAPACKE_dgelss(LAPACK_COL_MAJOR, p, npar, 1, A, p, rhs, npar > p ? npar : p, sv, 1e-12, &rank)) {
    snprintf(err, errsz, "realise: least squares failed"); goto done;
  }
  for (int c = 0; c < npar; c++) {
    pi[c] = (prior ? prior[c] : 0) + S[c] * rhs[c];
    int used = c < DY_NPAR_LINK*n;   /* joint parameters no base parameter uses are 0 */
    for (int i = 0; i < p && !used; i++) used = K[(size_t)i*npar + c] != 0;
    if (!used) pi[c] = 0;
  }
  for (int c = npar; c < dy_npar(m); c++) pi[c] = 0;
  st = 0;
done:
  free(A); free(rhs); free(sv);
  return st;
}
