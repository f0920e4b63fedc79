/* SPDX-License-Identifier: MIT */
/* dynid ident: base parameters (see base.h) -- the numerical set (qr), the
 * Khalil-Mayeda closed-form grouping (khalil), the QR rank test that proves
 * every set, the expressions and their parser, the identifiability report.
 *
 * The QR rank test. The regressor is stacked over ns = 30 npar / n random
 * states (seeded), each column scaled to unit 2-norm (a column whose norm is
 * <= DYI_ZERO_COL times the largest is set to zero: the parameter has no
 * effect on the torques), and factored by LAPACKE dgeqp3 (column pivoting,
 * jpvt zeroed). The rank is the number of |R_kk| > DYI_RANK_TOL |R_11|
 * (1e-8: with unit columns the kept diagonal is typically 1e-1 .. 1e-4 and
 * the dropped one 1e-14 .. 1e-16); rank_gap = |R_rr| / |R_r+1,r+1| says how
 * sharp the decision is (>= 1e6 is clean).
 *
 * The numerical set. Among the columns, the independent ones are chosen
 * leftmost first (a column is kept if its residual after projection on the
 * columns kept before it exceeds the same tolerance; the dgeqp3 choice is
 * the fallback if that does not give the same rank), so that, as in
 * Khalil's grouping, the parameters of links near the base are the ones
 * that survive. With the kept columns first, an unpivoted QR of the scaled
 * matrix gives [R11 R12]; K = R11^-1 R12, unscaled, is the dependency
 * Y_dep = Y_ind K, so Y pi = Y_ind (pi_ind + K pi_dep): B = [1 K] in that
 * order, P = the selection of the kept columns. */
#include "ident/base.h"
#include "ident/estimate.h"
#include "core/io.h"
#include "ident/regressor.h"
#include "core/mathu.h"
#include "core/util.h"
#include <ctype.h>
#include <errno.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ random states */

static double rnd(unsigned long long* s, double a, double b) { return dy_uniform(s, a, b); }

int dyi_base_nsamples(const dyModel* m, int friction) {
  int ns = 30 * dyi_ncols(m, friction) / m->n;
  return ns < 40 ? 40 : ns;
}

void dyi_base_stack(const dyModel* m, int friction, int ns, unsigned long long seed, double* Y) {
  int n = m->n, N = ns * n;
  unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 88172645463325252ull;
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  for (int i = 0; i < ns; i++) {
    for (int j = 0; j < n; j++) {
      double lo = m->jnt_type[j] == DY_REVOLUTE ? -M_PI : -0.5, hi = -lo;
      if (isfinite(m->jnt_qmin[j]) && isfinite(m->jnt_qmax[j]) && m->jnt_qmax[j] > m->jnt_qmin[j]) {
        lo = m->jnt_qmin[j]; hi = m->jnt_qmax[j];
      }
      q[j] = rnd(&s, lo, hi);
      qd[j] = rnd(&s, -2, 2);
      qdd[j] = rnd(&s, -5, 5);
    }
    dyi_regressor(m, d, q, qd, qdd, friction, Y + (size_t)n*i, N);
  }
  dy_free_data(d);
}

/* ------------------------------------------------------------ QR machinery */

/* Equilibrate: nrm[k] = ||A e_k||, a column at or below DYI_ZERO_COL times
 * the largest set to zero (nrm[k] = 0), the others scaled to unit norm */
static void qr_equilibrate(double* A, int N, int c, double* nrm) {
  double big = 0;
  for (int k = 0; k < c; k++) {
    double s = 0;
    for (int i = 0; i < N; i++) s += A[i + (size_t)N*k] * A[i + (size_t)N*k];
    nrm[k] = sqrt(s);
    big = fmax(big, nrm[k]);
  }
  for (int k = 0; k < c; k++) {
    if (nrm[k] <= DYI_ZERO_COL * big || nrm[k] == 0) nrm[k] = 0;
    double sc = nrm[k] > 0 ? 1 / nrm[k] : 0;
    for (int i = 0; i < N; i++) A[i + (size_t)N*k] *= sc;
  }
}

/* The rank by dgeqp3 of A2 (overwritten; jpvt its pivots): the number of
 * |R_kk| > DYI_RANK_TOL |R_11|, *gap = |R_rr| / |R_r+1,r+1| (inf when the
 * rank is 0 or full); *r11 = |R_11|. work: lwork doubles. 0 or -1. */
static int qr_rank(double* A2, int N, int c, lapack_int* jpvt, double* tau, double* work, int lwork,
                   int* rank, double* gap, double* r11) {
  if (LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, N, c, A2, N, jpvt, tau, work, lwork)) return -1;
  int kmax = N < c ? N : c, r = 0;
  *r11 = kmax ? fabs(A2[0]) : 0;
  while (r < kmax && *r11 > 0 && fabs(A2[r + (size_t)N*r]) > DYI_RANK_TOL * *r11) r++;
  if (r == 0 || r == kmax) *gap = INFINITY;
  else {
    double next = fabs(A2[r + (size_t)N*r]);
    *gap = next > 0 ? fabs(A2[(r-1) + (size_t)N*(r-1)]) / next : INFINITY;
  }
  *rank = r;
  return 0;
}

/* The leftmost independent columns by Gram-Schmidt (classical, twice, for
 * orthogonality: each pass one product with the kept basis, Qb^T v, and
 * one update, v - Qb s, in BLAS): a column is kept if its residual exceeds
 * DYI_RANK_TOL r11; when that does not give r columns, the dgeqp3 choice
 * (jpvt). Qb: N x r scratch, v: N scratch, s: r scratch. */
static void qr_leftmost(const double* A, int N, int c, const double* nrm, int r, double r11,
                        const lapack_int* jpvt, double* Qb, double* v, double* s, int* kept) {
  int nk = 0;
  for (int k = 0; k < c && nk <= r; k++) {
    if (nrm[k] == 0) continue;
    memcpy(v, A + (size_t)N*k, sizeof(double) * (size_t)N);
    for (int pass = 0; pass < 2 && nk > 0; pass++) {
      cblas_dgemv(CblasColMajor, CblasTrans, N, nk, 1.0, Qb, N, v, 1, 0.0, s, 1);
      cblas_dgemv(CblasColMajor, CblasNoTrans, N, nk, -1.0, Qb, N, s, 1, 1.0, v, 1);
    }
    const double t = cblas_dnrm2(N, v, 1);
    if (t > DYI_RANK_TOL * r11) {
      if (nk == r) { nk++; break; }   /* more than the rank: fall back */
      for (int i = 0; i < N; i++) Qb[i + (size_t)N*nk] = v[i] / t;
      kept[k] = 1;
      nk++;
    }
  }
  if (nk != r) {    /* fall back to the dgeqp3 choice */
    memset(kept, 0, sizeof(int) * (size_t)c);
    for (int l = 0; l < r; l++) kept[jpvt[l] - 1] = 1;
  }
}

/* K = R11^-1 R12 from an unpivoted QR of the scaled [A_ind A_dep] (A2:
 * scratch), unscaled by the column norms; |coefficients| below
 * DYI_COEF_TOL (scaled) are zero. 0 or -1. */
static int qr_K(const double* A, double* A2, int N, int c, int r, int nd, const int* ind, const int* dep,
                const double* nrm, double* tau, double* work, int lwork, double* K) {
  for (int l = 0; l < r; l++) memcpy(A2 + (size_t)N*l, A + (size_t)N*ind[l], sizeof(double) * (size_t)N);
  for (int l = 0; l < nd; l++) memcpy(A2 + (size_t)N*(r + l), A + (size_t)N*dep[l], sizeof(double) * (size_t)N);
  if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, N, c, A2, N, tau, work, lwork)) return -1;
  for (int l = 0; l < nd; l++)
    for (int i = 0; i < r; i++) K[i + (size_t)r*l] = A2[i + (size_t)N*(r + l)];
  if (LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'U', 'N', 'N', r, nd, A2, N, K, r)) return -1;
  for (int l = 0; l < nd; l++)
    for (int i = 0; i < r; i++) {
      double* kk = K + i + (size_t)r*l;
      if (fabs(*kk) < DYI_COEF_TOL || nrm[dep[l]] == 0) *kk = 0;
      else *kk *= nrm[dep[l]] / nrm[ind[i]];
    }
  return 0;
}

/* Dependencies among the c columns of A (N x c, column-major, overwritten).
 * Out: *rank, *gap, ind[rank] (kept columns, ascending), dep[c - rank] (the
 * others, ascending) and K (rank x (c - rank), column-major) with
 * A_dep = A_ind K (unscaled, round-off coefficients zeroed). K may be NULL
 * (rank only). 0, or -1 on a LAPACK failure / no memory.
 * A tall A is first reduced to its R factor (c x c, A = Q R, by the
 * estimator's fold in blocks of QR_BLOCK rows): the column norms, the
 * pivoted QR, the Gram-Schmidt residuals and K see A only through
 * A^T A = R^T R, so they come the same from R, with c rows of work in
 * place of N (the stacked regressor has 30 rows a column). */
#define QR_BLOCK 256
static int qr_deps(double* A, int N, int c, int* rank, double* gap, int* ind, int* dep,
                   double* K) {
  int status = -1;
  double* R = NULL;
  if (N > c) {
    R = calloc((size_t)c * (size_t)c, sizeof(double));
    double* w = malloc(sizeof(double) * DYI_FOLD_WORK(QR_BLOCK));
    if (!R || !w) { free(R); free(w); return -1; }
    for (int r0 = 0; r0 < N; r0 += QR_BLOCK) dyi_qr_fold(N - r0 < QR_BLOCK ? N - r0 : QR_BLOCK, c, R, A + r0, N, w);
    free(w);
    A = R;
    N = c;
  }
  double* nrm = calloc((size_t)c, sizeof(double));
  double* A2 = malloc(sizeof(double) * (size_t)N * (size_t)c);
  double* tau = malloc(sizeof(double) * (size_t)(c + 1));
  lapack_int* jpvt = calloc((size_t)c, sizeof(lapack_int));
  int* kept = calloc((size_t)c, sizeof(int));
  double* Qb = NULL;
  double* work = NULL;
  if (!nrm || !A2 || !tau || !jpvt || !kept) goto done;
  qr_equilibrate(A, N, c, nrm);
  memcpy(A2, A, sizeof(double) * (size_t)N * (size_t)c);
  double wq, r11;
  if (LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, N, c, A2, N, jpvt, tau, &wq, -1)) goto done;
  int lwork = (int)wq + 64 * c;
  work = malloc(sizeof(double) * (size_t)lwork);
  if (!work) goto done;
  if (qr_rank(A2, N, c, jpvt, tau, work, lwork, rank, gap, &r11)) goto done;
  int r = *rank;
  Qb = malloc(sizeof(double) * ((size_t)N + 1) * (size_t)(r ? r : 1));
  if (!Qb) goto done;
  qr_leftmost(A, N, c, nrm, r, r11, jpvt, Qb, A2, Qb + (size_t)N * (size_t)(r ? r : 1), kept);
  int ni = 0, nd = 0;
  for (int k = 0; k < c; k++) {
    if (kept[k]) ind[ni++] = k;
    else dep[nd++] = k;
  }
  if (K && nd > 0 && r > 0 && qr_K(A, A2, N, c, r, nd, ind, dep, nrm, tau, work, lwork, K)) goto done;
  status = 0;
done:
  free(nrm); free(A2); free(tau); free(jpvt); free(kept); free(Qb); free(work); free(R);
  return status;
}

/* ------------------------------------------------------------ the qr set */

static dyiBase* base_qr(const dyModel* m, int friction, char* err, int errsz) {
  int npar = dyi_ncols(m, friction), ns = dyi_base_nsamples(m, friction), N = ns * m->n;
  double* Y = dy_malloc_huge(sizeof(double) * (size_t)N * (size_t)npar);   /* written whole: few page faults */
  double* K = malloc(sizeof(double) * (size_t)npar * (size_t)npar);
  int *ind = malloc(sizeof(int) * (size_t)npar), *dep = malloc(sizeof(int) * (size_t)npar);
  dyiBase* b = NULL;
  int r;
  double gap;
  if (!Y || !K || !ind || !dep) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  dyi_base_stack(m, friction, ns, 1, Y);
  if (qr_deps(Y, N, npar, &r, &gap, ind, dep, K)) {
    snprintf(err, (size_t)errsz, "QR of the stacked regressor failed");
    goto done;
  }
  b = dyi_base_make_empty(DYI_SET_QR, r, npar, friction);
  if (!b) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  for (int i = 0; i < r; i++) {
    char nm[24];
    dy_parname(m, ind[i], nm, sizeof nm);
    snprintf(b->name[i], sizeof b->name[i], "%sR", nm);
    b->lead[i] = ind[i];
    b->B[(size_t)i*npar + ind[i]] = 1;
    b->P[(size_t)ind[i]*r + i] = 1;
    for (int l = 0; l < npar - r; l++) b->B[(size_t)i*npar + dep[l]] = K[i + (size_t)r*l];
  }
done:
  free(Y); free(K); free(ind); free(dep);
  return b;
}

/* ------------------------------------------------------------ the khalil set
 *
 * Khalil-Mayeda grouping in modified DH (Khalil & Dombre, Modeling,
 * Identification and Control of Robots, ch. 9 / 12; Gautier & Khalil 1990),
 * derived here as moves of a part of link j onto link j-1 that leave every
 * torque unchanged. Link j's parameters are the already-grouped ones (the
 * rules run from the tip to the base); a move adds to link j-1 the standard
 * parameters of the moved part expressed at O_{j-1} in frame j-1:
 *     ms' = R ms + m p,   m' = m,
 *     J'  = R J R^T + 2 (p.R ms) 1 - p (R ms)^T - (R ms) p^T + m (|p|^2 1 - p p^T)
 * with R = Rx(alpha_j) Rz(theta_j), p = (a_j, -sin(alpha_j) d_j, cos(alpha_j) d_j).
 *
 * Revolute j: J_j = J' + YY_j diag(1,1,0), so XXR_j = XX_j - YY_j, and the
 * part {YY_j diag(1,1,0), MZ_j e_z, M_j} is symmetric about z_j: rotating
 * about z_j does not change it, so it may ride on link j-1. Its image does
 * not depend on theta_j; with S = sin(alpha_j), C = cos(alpha_j), a = a_j,
 * d = d_j it is
 *     XX_{j-1} += YY_j + 2 d MZ_j + d^2 M_j
 *     XY_{j-1} += a S MZ_j + a d S M_j
 *     XZ_{j-1} += -a C MZ_j - a d C M_j
 *     YY_{j-1} += C^2 YY_j + 2 d C^2 MZ_j + (a^2 + d^2 C^2) M_j
 *     YZ_{j-1} += C S YY_j + 2 d C S MZ_j + d^2 C S M_j
 *     ZZ_{j-1} += S^2 YY_j + 2 d S^2 MZ_j + (a^2 + d^2 S^2) M_j
 *     MX_{j-1} += a M_j,  MY_{j-1} += -S MZ_j - d S M_j,
 *     MZ_{j-1} += C MZ_j + d C M_j,  M_{j-1} += M_j
 * (j = 1: link 0 is the fixed base, the part vanishes).
 * Prismatic j: link j does not rotate relative to link j-1, so its inertia
 * tensor (a massless part) rides on link j-1: J_{j-1} += R J_j R^T.
 *
 * Near the base (r1 = the first revolute joint):
 *  - links before r1 only translate: their first moments give no force along
 *    the (prismatic) joint axes: MX, MY, MZ are not identifiable;
 *  - link r1 turns about the fixed direction z_r1: of its inertia only ZZ
 *    acts (XXR, XY, XZ, YZ vanish; MX, MY: see the last rule); with
 *    friction IA_r1 has the column of ZZ_r1: ZZ_r1R += IA_r1;
 *  - links j > r1 whose revolute joints r1..j are all parallel turn about
 *    the same fixed direction: XXR_j, XY_j, XZ_j, YZ_j vanish; a prismatic
 *    joint j along that direction: MZ_j vanishes and (MX_j, MY_j) ride on
 *    link j-1 (the move above with m = 0, p at q_j = 0; the q_j part of p
 *    only reaches XZ, YZ of link j-1, which vanish);
 *  - r2, the first revolute joint not parallel to r1, perpendicular to it:
 *    ZZ_r2 acts on joint r2 with qdd_r2 only and not on the joints before
 *    (their axes are parallel to z_r1): ZZ_r2R += IA_r2;
 *  - with friction, a prismatic joint j whose mass acts on the joints before
 *    it as a mass on link j-1 (every revolute joint before j parallel to
 *    z_j, every prismatic one perpendicular to it): the M_j column is the
 *    column of that moved mass + the IA_j column + (-z_j.g) times the FO_j
 *    column, so M_j rides on link j-1 and IA_jR = IA_j + M_j,
 *    FO_jR = FO_j - (z_j.g) M_j;
 *  - links of the parallel zone (every revolute joint r1..j parallel): the
 *    first moment along z_r1 (the unit vector u in frame j) acts on no
 *    joint: with c the largest |u_c|, MS_c goes and MS_k becomes
 *    MS_k - (u_k/u_c) MS_c;
 *  - MX, MY of r1 vanish when z_r1 is parallel to gravity (or there is none)
 *    and every prismatic joint before r1 is parallel to z_r1; so do those of
 *    the revolute joints of the zone that are coaxial with r1;
 *  - without gravity, a link j after revolute joints only whose axes meet
 *    in a fixed point C = O_j + t z_j turns about C: its torques depend on
 *    its inertia about C only: XZ_jR = XZ_j + t MX_j, YZ_jR = YZ_j + t MY_j,
 *    and MX_j, MY_j go.
 * What the rules miss (special geometry) is found by the QR test on the
 * grouped set and reduced numerically; the set's note says which. */

/* the grouped-parameter image on link j-1 of a part of link j (ms in frame j,
 * J about O_j): out10 += image */
static void move_part(double out[10], const double R[9], const double p[3], const double J6[6],
                      const double ms[3], double mass) {
  double rms[3], Jr[6];
  dyu_mulMatVec3(rms, R, ms);
  dyu_rotSym6(Jr, R, J6);
  double pp = dyu_dot3(p, p), pm = dyu_dot3(p, rms);
  double Jm[9];
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++)
      Jm[3*a + c] = (a == c ? 2*pm + mass*pp : 0) - p[a]*rms[c] - rms[a]*p[c] - mass*p[a]*p[c];
  double J6m[6];
  dyu_matToSym6(J6m, Jm);
  for (int k = 0; k < 6; k++) out[k] += Jr[k] + J6m[k];
  for (int k = 0; k < 3; k++) out[DY_MX + k] += rms[k] + mass*p[k];
  out[DY_M] += mass;
}

/* snap cos/sin round-off of exact right angles to zero */
static double snap(double x) { return fabs(x) < 1e-15 ? 0 : x; }

static void joint_R_p(const dyModel* m, int j, double R[9], double p[3]) {
  dy_jointframe(m, j, 0, R, p);
  for (int k = 0; k < 9; k++) R[k] = snap(R[k]);
  for (int k = 0; k < 3; k++) p[k] = snap(p[k]);
}

/* geometry facts the rules use */
typedef struct {
  int r1;                 /* first revolute joint (0-based), n if none */
  int zone[DY_MAXJ];      /* 1: j >= r1 and every revolute joint r1..j parallel to r1 */
  int par_r1[DY_MAXJ];    /* 1: z_j parallel to z_r1 (constant, checked at random q) */
  int r2;                 /* first revolute joint not parallel to r1, n if none */
  int r2_perp;            /* 1: z_r2 perpendicular to z_r1 */
  int ms_r1_drop;         /* 1: MX, MY of link r1 vanish: z_r1 parallel to gravity
                             (or none) and every prismatic joint before r1 parallel to z_r1 */
  int uzone[DY_MAXJ];     /* 1: link j in the parallel zone, u[j] defined */
  double u[DY_MAXJ][3];   /* z_r1 in frame j (constant in the zone) */
  int mrule[DY_MAXJ];     /* prismatic j whose mass acts on the joints before it
                             as a mass on link j-1 (see kh_group) */
  double cg[DY_MAXJ];     /* -z_j . g, z_j in frame 0 (constant where mrule) */
  int onaxis[DY_MAXJ];    /* 1: O_j on the line of axis r1 (checked at random q) */
  int fixedpt[DY_MAXJ];   /* 1: joints 1..j revolute and their axes meet in a
                             fixed point C = O_j + tfix[j] z_j */
  double tfix[DY_MAXJ];
  int nograv;             /* 1: gravity is zero */
} khGeom;

static void kh_zone(const dyModel* m, khGeom* g, double zr[2][3], double zj[2][DY_MAXJ][3],
                    double oj[2][DY_MAXJ][3]);
static void kh_fixed_points(const dyModel* m, khGeom* g, double zj[2][DY_MAXJ][3], double oj[2][DY_MAXJ][3]);
static void kh_axis_facts(const dyModel* m, khGeom* g, double zr[2][3], double zj[2][DY_MAXJ][3],
                          double R0[DY_MAXJ][9]);

/* The geometry facts, read off the axes z_j and origins O_j in frame 0 at
 * two random configurations t (zr[t] = z_r1; R0: frame j's rotation at the
 * first): a fact that holds at both holds for every q (to 1e-9). */
static void kh_geometry(const dyModel* m, khGeom* g) {
  int n = m->n;
  memset(g, 0, sizeof *g);
  g->r1 = n;
  for (int j = 0; j < n; j++) if (m->jnt_type[j] == DY_REVOLUTE) { g->r1 = j; break; }
  /* axis directions in frame 0 at two random configurations */
  double zr[2][3] = {{0}}, zj[2][DY_MAXJ][3], R0[DY_MAXJ][9], oj[2][DY_MAXJ][3];
  unsigned long long s = 12345;
  for (int t = 0; t < 2; t++) {
    double q[DY_MAXJ];
    for (int j = 0; j < n; j++) q[j] = rnd(&s, -M_PI, M_PI);
    double Rc[9], Rj[9], pj[3], Rt[9], pc[3] = {0, 0, 0}, tt[3];
    dyu_eye3(Rc);
    for (int j = 0; j < n; j++) {
      dy_jointframe(m, j, q[j], Rj, pj);
      dyu_mulMatVec3(tt, Rc, pj);
      for (int c = 0; c < 3; c++) { pc[c] += tt[c]; oj[t][j][c] = pc[c]; }
      dyu_mulMat3(Rt, Rc, Rj);
      memcpy(Rc, Rt, sizeof Rc);
      zj[t][j][0] = Rc[2]; zj[t][j][1] = Rc[5]; zj[t][j][2] = Rc[8];
      if (t == 0) memcpy(R0[j], Rc, sizeof Rc);
    }
    if (g->r1 < n) memcpy(zr[t], zj[t][g->r1], sizeof zr[t]);
  }
  kh_zone(m, g, zr, zj, oj);
  kh_fixed_points(m, g, zj, oj);
  kh_axis_facts(m, g, zr, zj, R0);
}

/* par_r1: z_j parallel to z_r1; zone: j >= r1 with every revolute joint
 * r1..j parallel; onaxis: O_j on the line of axis r1; r2: the first
 * revolute joint not parallel to r1, r2_perp: perpendicular to it */
static void kh_zone(const dyModel* m, khGeom* g, double zr[2][3], double zj[2][DY_MAXJ][3],
                    double oj[2][DY_MAXJ][3]) {
  int n = m->n;
  for (int j = 0; j < n && g->r1 < n; j++) {
    int par = 1;
    for (int t = 0; t < 2; t++) {
      double c[3];
      dyu_cross(c, zj[t][j], zr[t]);
      if (sqrt(dyu_dot3(c, c)) > 1e-9) par = 0;
    }
    g->par_r1[j] = par;
  }
  for (int j = g->r1, ok = 1; j < n; j++) {
    if (m->jnt_type[j] == DY_REVOLUTE && !g->par_r1[j]) ok = 0;
    g->zone[j] = ok;
    int on = 1;
    for (int t = 0; t < 2; t++) {
      double dv[3], c[3];
      for (int k = 0; k < 3; k++) dv[k] = oj[t][j][k] - oj[t][g->r1][k];
      dyu_cross(c, dv, zr[t]);
      if (sqrt(dyu_dot3(c, c)) > 1e-9) on = 0;
    }
    g->onaxis[j] = on;
  }
  g->r2 = n;
  for (int j = g->r1 + 1; j < n; j++)
    if (m->jnt_type[j] == DY_REVOLUTE && !g->par_r1[j]) { g->r2 = j; break; }
  if (g->r2 < n)
    g->r2_perp = fabs(dyu_dot3(zj[0][g->r2], zr[0])) <= 1e-9 && fabs(dyu_dot3(zj[1][g->r2], zr[1])) <= 1e-9;
}

/* nograv; for the leading revolute joints the point O_j + t z_j that is
 * the same at both configurations (least squares in t): fixedpt[j] when
 * it matches to 1e-9, tfix[j] = t */
static void kh_fixed_points(const dyModel* m, khGeom* g, double zj[2][DY_MAXJ][3], double oj[2][DY_MAXJ][3]) {
  g->nograv = sqrt(dyu_dot3(m->gravity, m->gravity)) == 0;
  for (int j = 0; j < m->n && m->jnt_type[j] == DY_REVOLUTE; j++) {
    double dO[3], dz[3], res[3];
    for (int k = 0; k < 3; k++) { dO[k] = oj[0][j][k] - oj[1][j][k]; dz[k] = zj[0][j][k] - zj[1][j][k]; }
    double zz = dyu_dot3(dz, dz), t = zz > 1e-18 ? -dyu_dot3(dz, dO) / zz : 0;
    for (int k = 0; k < 3; k++) res[k] = dO[k] + t * dz[k];
    g->fixedpt[j] = sqrt(dyu_dot3(res, res)) <= 1e-9;
    g->tfix[j] = fabs(t) <= 1e-12 ? 0 : t;
  }
}

/* ms_r1_drop: z_r1 parallel to gravity (or none) and every joint before
 * r1 parallel to z_r1; per joint: u[j] = z_r1 in frame j in the zone,
 * cg[j] = -z_j . g, mrule[j] for a prismatic joint before r1 or along the
 * zone's axis, perpendicular to every prismatic joint before it */
static void kh_axis_facts(const dyModel* m, khGeom* g, double zr[2][3], double zj[2][DY_MAXJ][3],
                          double R0[DY_MAXJ][9]) {
  int n = m->n;
  double gn = sqrt(dyu_dot3(m->gravity, m->gravity));
  if (g->r1 < n) {
    double cr[3];
    dyu_cross(cr, zr[0], m->gravity);
    g->ms_r1_drop = gn == 0 || sqrt(dyu_dot3(cr, cr)) <= 1e-9 * gn;
    for (int i = 0; i < g->r1; i++) if (!g->par_r1[i]) g->ms_r1_drop = 0;
  }
  for (int j = 0; j < n; j++) {
    if (g->r1 < n && g->zone[j]) {
      g->uzone[j] = 1;
      dyu_mulMatTVec3(g->u[j], R0[j], zr[0]);
      for (int c = 0; c < 3; c++) g->u[j][c] = fabs(g->u[j][c]) <= 1e-12 ? 0 : g->u[j][c];
    }
    double c = -dyu_dot3(zj[0][j], m->gravity);
    g->cg[j] = fabs(c) <= 1e-12 * gn ? 0 : c;
    if (m->jnt_type[j] != DY_PRISMATIC) continue;
    int ok = j < g->r1 || (g->zone[j] && g->par_r1[j]);
    for (int i = 0; i < j && ok; i++)
      if (m->jnt_type[i] == DY_PRISMATIC)
        for (int t = 0; t < 2; t++) if (fabs(dyu_dot3(zj[t][i], zj[t][j])) > 1e-9) ok = 0;
    g->mrule[j] = ok;
  }
}

/* The grouping works on G (npar x npar, row-major): row k is grouped
 * parameter k as a combination of the standard ones (G = 1 at the start),
 * alive[k] whether it survives. Each rule below is one function; kh_group
 * applies them in the order of the comment above. */
typedef struct {
  double* G;
  int* alive;
  int npar, nl;           /* columns (10n or 14n), link parameters 10n */
} khRows;

#define KROW(t, k) ((t)->G + (size_t)(k)*(t)->npar)

/* row dst += cf * row src */
static void row_add(khRows* t, int dst, double cf, int src) {
  double* d = KROW(t, dst);
  const double* s = KROW(t, src);
  for (int c = 0; c < t->npar; c++) d[c] += cf * s[c];
}

/* rows Lp..Lp+nt-1 of link j-1 += img[t] * row src (a moved part's image,
 * round-off of right angles snapped to zero) */
static void add_image(khRows* t, int Lp, const double* img, int nt, int src) {
  for (int k = 0; k < nt; k++) {
    double cf = snap(img[k]);
    if (cf != 0) row_add(t, Lp + k, cf, src);
  }
}

/* Revolute j: XXR_j = XX_j - YY_j, and {YY_j diag(1,1,0), MZ_j e_z, M_j}
 * ride on link j-1 (their images by move_part; j = 0: the base) */
static void kh_revolute(khRows* t, const double R[9], const double p[3], int j) {
  int L = DY_NPAR_LINK * j, Lp = L - DY_NPAR_LINK;
  for (int c = 0; c < t->npar; c++) KROW(t, L + DY_XX)[c] -= KROW(t, L + DY_YY)[c];
  if (j > 0) {
    static const double zero3[3] = {0, 0, 0}, ez[3] = {0, 0, 1}, zero6[6] = {0};
    static const double J110[6] = {1, 0, 0, 1, 0, 0};
    double img[3][10] = {{0}};
    move_part(img[0], R, p, J110, zero3, 0);   /* YY_j diag(1,1,0) */
    move_part(img[1], R, p, zero6, ez, 0);     /* MZ_j e_z */
    move_part(img[2], R, p, zero6, zero3, 1);  /* M_j */
    const int src[3] = {L + DY_YY, L + DY_MZ, L + DY_M};
    for (int s = 0; s < 3; s++) add_image(t, Lp, img[s], DY_NPAR_LINK, src[s]);
  }
  t->alive[L + DY_YY] = t->alive[L + DY_MZ] = t->alive[L + DY_M] = 0;
}

/* Prismatic j: the inertia tensor rides on link j-1, J_{j-1} += R J_j R^T */
static void kh_prismatic_inertia(khRows* t, const double R[9], const double p[3], int j) {
  int L = DY_NPAR_LINK * j, Lp = L - DY_NPAR_LINK;
  if (j > 0) {
    for (int s = 0; s < 6; s++) {
      double E[6] = {0}, img[10] = {0};
      E[s] = 1;
      static const double zero3[3] = {0, 0, 0};
      move_part(img, R, p, E, zero3, 0);
      add_image(t, Lp, img, 6, L + s);
    }
  }
  for (int s = 0; s < 6; s++) t->alive[L + s] = 0;
}

/* Prismatic j along the common axis of the revolute joints before it:
 * MZ_j vanishes and (MX_j, MY_j) ride on link j-1 (m = 0, p at q_j = 0) */
static void kh_prismatic_axis(khRows* t, const double R[9], const double p[3], int j) {
  int L = DY_NPAR_LINK * j, Lp = L - DY_NPAR_LINK;
  t->alive[L + DY_MZ] = 0;
  static const double zero6[6] = {0};
  for (int s = 0; s < 2; s++) {
    double e[3] = {0, 0, 0}, img[10] = {0};
    e[s] = 1;
    move_part(img, R, p, zero6, e, 0);
    add_image(t, Lp, img, DY_NPAR_LINK, L + DY_MX + s);
    t->alive[L + DY_MX + s] = 0;
  }
}

/* With friction, prismatic j under mrule: M_j acts on the joints before j
 * as a mass on link j-1 at O_j and on joint j as M_j (qdd_j - z_j.g): its
 * column is the moved image + the IA_j column + cg_j times the FO_j
 * column, so IA_jR = IA_j + M_j, FO_jR = FO_j + cg_j M_j */
static void kh_prismatic_mass(khRows* t, const khGeom* g, const double R[9], const double p[3], int j) {
  int L = DY_NPAR_LINK * j, Lp = L - DY_NPAR_LINK;
  int ia = t->nl + DY_NPAR_JNT*j + DY_IA, fo = t->nl + DY_NPAR_JNT*j + DY_FO;
  if (j > 0) {
    static const double zero3[3] = {0, 0, 0}, zero6[6] = {0};
    double img[10] = {0};
    move_part(img, R, p, zero6, zero3, 1);
    add_image(t, Lp, img, DY_NPAR_LINK, L + DY_M);
  }
  for (int c = 0; c < t->npar; c++) {
    KROW(t, ia)[c] += KROW(t, L + DY_M)[c];
    KROW(t, fo)[c] += g->cg[j] * KROW(t, L + DY_M)[c];
  }
  t->alive[L + DY_M] = 0;
}

/* Near the base: links before r1 only translate (MX MY MZ go); revolute
 * links of the parallel zone turn about one fixed direction (XXR XY XZ
 * YZ go); MX, MY of r1 and of the zone's revolute joints coaxial with it
 * go when ms_r1_drop */
static void kh_near_base(khRows* t, const dyModel* m, const khGeom* g) {
  int n = m->n;
  for (int j = 0; j < g->r1 && j < n; j++)
    t->alive[DY_NPAR_LINK*j + DY_MX] = t->alive[DY_NPAR_LINK*j + DY_MY] = t->alive[DY_NPAR_LINK*j + DY_MZ] = 0;
  for (int j = g->r1; j < n; j++) {
    if (!g->zone[j] || m->jnt_type[j] != DY_REVOLUTE) continue;
    int L = DY_NPAR_LINK * j;
    t->alive[L + DY_XX] = t->alive[L + DY_XY] = t->alive[L + DY_XZ] = t->alive[L + DY_YZ] = 0;
  }
  for (int j = g->r1; j < n && g->ms_r1_drop; j++)
    if (g->zone[j] && g->onaxis[j] && m->jnt_type[j] == DY_REVOLUTE)
      t->alive[DY_NPAR_LINK*j + DY_MX] = t->alive[DY_NPAR_LINK*j + DY_MY] = 0;
}

/* No gravity, joints 1..j revolute with axes meeting in a fixed point
 * C = O_j + t z_j: link j turns about C, its torques depend on its inertia
 * about C only, J_C = J - 2 t MZ 1 + t (e_z MS^T + MS e_z^T) + M (...),
 * so XZ_jR = XZ_j + t MX_j, YZ_jR = YZ_j + t MY_j and MX_j, MY_j go */
static void kh_fixed_point(khRows* t, const dyModel* m, const khGeom* g) {
  for (int j = 0; j < m->n && g->nograv; j++) {
    if (!g->fixedpt[j]) continue;
    int L = DY_NPAR_LINK*j;
    double tf = g->tfix[j];
    if (tf != 0)
      for (int k = 0; k < t->npar; k++) {
        KROW(t, L + DY_XZ)[k] += tf * KROW(t, L + DY_MX)[k];
        KROW(t, L + DY_YZ)[k] += tf * KROW(t, L + DY_MY)[k];
      }
    t->alive[L + DY_MX] = t->alive[L + DY_MY] = 0;
  }
}

/* Links of the parallel zone: the first moment along z_r1 (u in frame j)
 * acts on no joint: with c the largest |u_c|, MS_c is eliminated and the
 * others become MS_k - (u_k / u_c) MS_c */
static void kh_zone_moment(khRows* t, const dyModel* m, const khGeom* g) {
  for (int j = g->r1; j < m->n; j++) {
    if (!g->uzone[j]) continue;
    const double* u = g->u[j];
    int L = DY_NPAR_LINK*j + DY_MX, cm = 0;
    for (int c = 1; c < 3; c++) if (fabs(u[c]) > fabs(u[cm])) cm = c;
    if (!t->alive[L + cm]) continue;   /* revolute: MZ_j, already grouped */
    for (int c = 0; c < 3; c++) {
      if (c == cm || u[c] == 0 || !t->alive[L + c]) continue;
      double f = -u[c] / u[cm];
      for (int k = 0; k < t->npar; k++) KROW(t, L + c)[k] += f * KROW(t, L + cm)[k];
    }
    t->alive[L + cm] = 0;
  }
}

/* With friction: IA of r1 has the column of ZZ_r1 (ZZ_r1R += IA_r1); so
 * has IA of r2 when z_r2 is perpendicular to z_r1 (ZZ_r2R += IA_r2) */
static void kh_rotor(khRows* t, const dyModel* m, const khGeom* g) {
  int n = m->n, rj[2] = {g->r1, g->r2};
  for (int i = 0; i < 2; i++) {
    if (rj[i] >= n || (i == 1 && !g->r2_perp)) continue;
    int L = DY_NPAR_LINK * rj[i], ia = t->nl + DY_NPAR_JNT * rj[i] + DY_IA;
    for (int c = 0; c < t->npar; c++) KROW(t, L + DY_ZZ)[c] += KROW(t, ia)[c];
    t->alive[ia] = 0;
  }
}

/* closed-form grouping: G (npar x npar, row-major) the grouped parameters as
 * rows over pi, alive[k] whether grouped parameter k survives; the moves
 * run from the tip to the base, then the rules near the base */
static void kh_group(const dyModel* m, int friction, const khGeom* g, double* G, int* alive) {
  int n = m->n, npar = dyi_ncols(m, friction);
  khRows t = {G, alive, npar, DY_NPAR_LINK * n};
  memset(G, 0, sizeof(double) * (size_t)npar * (size_t)npar);
  for (int k = 0; k < npar; k++) { G[(size_t)k*npar + k] = 1; alive[k] = 1; }
  for (int j = n - 1; j >= 0; j--) {
    double R[9], p[3];
    joint_R_p(m, j, R, p);
    if (m->jnt_type[j] == DY_REVOLUTE) { kh_revolute(&t, R, p, j); continue; }
    kh_prismatic_inertia(&t, R, p, j);
    if (j > g->r1 && g->zone[j] && g->par_r1[j]) kh_prismatic_axis(&t, R, p, j);
    if (friction && g->mrule[j]) kh_prismatic_mass(&t, g, R, p, j);
  }
  kh_near_base(&t, m, g);
  kh_fixed_point(&t, m, g);
  kh_zone_moment(&t, m, g);
  if (friction) kh_rotor(&t, m, g);
}
#undef KROW

static dyiBase* base_khalil(const dyModel* m, int friction, char* err, int errsz) {
  int n = m->n, npar = dyi_ncols(m, friction);
  khGeom g;
  kh_geometry(m, &g);
  double* G = malloc(sizeof(double) * (size_t)npar * (size_t)npar);
  int* alive = malloc(sizeof(int) * (size_t)npar);
  int ns = dyi_base_nsamples(m, friction), N = ns * n;
  double *Y = NULL, *Yb = NULL, *K = NULL;
  int *lead = NULL, *ind = NULL, *dep = NULL;
  dyiBase* b = NULL;
  if (!G || !alive) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  kh_group(m, friction, &g, G, alive);
  int nb0 = 0;
  for (int k = 0; k < npar; k++) if (alive[k]) nb0++;
  lead = malloc(sizeof(int) * (size_t)(nb0 + 1));
  ind = malloc(sizeof(int) * (size_t)(nb0 + 1));
  dep = malloc(sizeof(int) * (size_t)(nb0 + 1));
  K = malloc(sizeof(double) * (size_t)(nb0 + 1) * (size_t)(nb0 + 1));
  /* written whole (2.3 MB each for the Panda with friction): in huge pages,
   * ~1,100 page faults fewer (half the time of the set on a virtual machine) */
  Y = dy_malloc_huge(sizeof(double) * (size_t)N * (size_t)npar);
  Yb = dy_malloc_huge(sizeof(double) * (size_t)N * (size_t)(nb0 + 1));
  if (!lead || !ind || !dep || !K || !Y || !Yb) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  nb0 = 0;
  for (int k = 0; k < npar; k++) if (alive[k]) lead[nb0++] = k;

  /* the QR test on the grouped set: Y_b0 = the columns of the leads */
  dyi_base_stack(m, friction, ns, 1, Y);
  for (int i = 0; i < nb0; i++) memcpy(Yb + (size_t)N*i, Y + (size_t)N*lead[i], sizeof(double) * (size_t)N);
  int r;
  double gap;
  if (qr_deps(Yb, N, nb0, &r, &gap, ind, dep, K)) {
    snprintf(err, (size_t)errsz, "QR of the grouped regressor failed");
    goto done;
  }
  b = dyi_base_make_empty(DYI_SET_KHALIL, r, npar, friction);
  if (!b) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  for (int i = 0; i < r; i++) {
    int k = lead[ind[i]];
    const double* row = G + (size_t)k*npar;
    double* out = b->B + (size_t)i*npar;
    memcpy(out, row, sizeof(double) * (size_t)npar);
    for (int l = 0; l < nb0 - r; l++) {
      double cf = K[i + (size_t)r*l];
      if (cf == 0) continue;
      const double* rd = G + (size_t)lead[dep[l]]*npar;
      for (int c = 0; c < npar; c++) out[c] += cf * rd[c];
    }
    /* cancellations (e.g. a^2 M from two paths) leave round-off: zero it */
    double big = 0;
    for (int c = 0; c < npar; c++) big = fmax(big, fabs(out[c]));
    for (int c = 0; c < npar; c++) if (fabs(out[c]) <= 1e-14 * big) out[c] = 0;
    int grown = 0;
    for (int c = 0; c < npar; c++) if (out[c] != (c == k)) grown = 1;
    char nm[24];
    dy_parname(m, k, nm, sizeof nm);
    snprintf(b->name[i], sizeof b->name[i], "%s%s", nm, grown ? "R" : "");
    b->lead[i] = k;
    b->P[(size_t)k*r + i] = 1;   /* the lead appears in no other row */
  }
  /* what the closed-form rules missed */
  if (r < nb0) {
    int len = snprintf(b->note, sizeof b->note,
                       "the closed-form rules left %d dependent combination%s (special geometry); "
                       "reduced numerically by QR on the grouped regressor: eliminated",
                       nb0 - r, nb0 - r > 1 ? "s" : "");
    for (int l = 0; l < nb0 - r && len < (int)sizeof b->note; l++) {
      char nm[24];
      dy_parname(m, lead[dep[l]], nm, sizeof nm);
      len += snprintf(b->note + len, sizeof b->note - (size_t)len, " %s", nm);
    }
  }
done:
  free(G); free(alive); free(lead); free(ind); free(dep); free(K); free(Y); free(Yb);
  return b;
}

/* ------------------------------------------------------------ P = B^+ */

int dyi_base_pinv(dyiBase* b, char* err, int errsz) {
  int nb = b->nb, np = b->npar;
  if (nb == 0) return 0;
  double* Gm = malloc(sizeof(double) * (size_t)nb * (size_t)nb);
  if (!Gm) { snprintf(err, (size_t)errsz, "out of memory"); return -1; }
  for (int i = 0; i < nb; i++)
    for (int k = 0; k <= i; k++) {
      double s = 0;
      for (int c = 0; c < np; c++) s += b->B[(size_t)i*np + c] * b->B[(size_t)k*np + c];
      Gm[i + (size_t)nb*k] = Gm[k + (size_t)nb*i] = s;
    }
  /* B^T (B B^T)^-1: solve (B B^T) X = B with X column-major nb x npar, which
   * is P row-major npar x nb; B row-major nb x npar is that layout already */
  memcpy(b->P, b->B, sizeof(double) * (size_t)nb * (size_t)np);
  double* dg = malloc(sizeof(double) * (size_t)(nb > 0 ? nb : 1));
  if (!dg) { free(Gm); snprintf(err, (size_t)errsz, "out of memory"); return -1; }
  for (int i = 0; i < nb; i++) dg[i] = Gm[i + (size_t)nb*i];
  int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nb, Gm, nb);
  /* a row (nearly) in the span of the ones before it: L_ii^2 <= 1e-12 G_ii */
  for (int i = 0; !info && i < nb; i++)
    if (!(Gm[i + (size_t)nb*i] * Gm[i + (size_t)nb*i] > 1e-12 * dg[i])) info = i + 1;
  free(dg);
  if (!info) {
    /* X(i,c) at P[i + nb c] must start as B(i,c) = B[i np + c]: transpose */
    double* X = malloc(sizeof(double) * (size_t)nb * (size_t)np);
    if (!X) { free(Gm); snprintf(err, (size_t)errsz, "out of memory"); return -1; }
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < np; c++) X[i + (size_t)nb*c] = b->B[(size_t)i*np + c];
    info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', nb, np, Gm, nb, X, nb);
    if (!info)
      for (int i = 0; i < nb; i++)
        for (int c = 0; c < np; c++) b->P[(size_t)c*nb + i] = X[i + (size_t)nb*c];
    free(X);
  }
  free(Gm);
  if (info) {
    snprintf(err, (size_t)errsz, "set %s: the base-parameter expressions are linearly dependent", dyi_base_set_name(b->set));
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ the proof */

/* max |B P - 1| */
static double bp_error(const dyiBase* b) {
  int nb = b->nb, np = b->npar;
  double bp = 0;
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < nb; k++) {
      double s = 0;
      for (int c = 0; c < np; c++) s += b->B[(size_t)i*np + c] * b->P[(size_t)c*nb + k];
      bp = fmax(bp, fabs(s - (i == k)));
    }
  return bp;
}

/* max |Y - Y_b B| / max |Y| over the N rows of Y, with Y - Y_b B =
 * Y (1 - P B); A (N) and Mt (np x np) are scratch */
static double repro_error(const dyiBase* b, const double* Y, int N, double* A, double* Mt) {
  int nb = b->nb, np = b->npar;
  for (int c = 0; c < np; c++)
    for (int k = 0; k < np; k++) {
      double s = 0;
      for (int i = 0; i < nb; i++) s += b->P[(size_t)c*nb + i] * b->B[(size_t)i*np + k];
      Mt[c + (size_t)np*k] = (c == k) - s;
    }
  double ymax = 0, emax = 0;
  for (size_t i = 0; i < (size_t)N*np; i++) ymax = fmax(ymax, fabs(Y[i]));
  for (int k = 0; k < np; k++) {
    double* e = A;  /* column k of the residual */
    memset(e, 0, sizeof(double) * (size_t)N);
    for (int c = 0; c < np; c++) {
      double f = Mt[c + (size_t)np*k];
      if (f == 0) continue;
      const double* yc = Y + (size_t)N*c;
      for (int i = 0; i < N; i++) e[i] += f * yc[i];
    }
    for (int i = 0; i < N; i++) emax = fmax(emax, fabs(e[i]));
  }
  return ymax > 0 ? emax / ymax : emax;
}

int dyi_base_verify(const dyModel* m, dyiBase* b, char* err, int errsz) {
  int np = b->npar, nb = b->nb, ns = dyi_base_nsamples(m, b->friction), N = ns * m->n;
  if (np != dyi_ncols(m, b->friction)) {
    snprintf(err, (size_t)errsz, "set %s: %d full parameters, the model has %d", dyi_base_set_name(b->set), np,
             dyi_ncols(m, b->friction));
    return -1;
  }
  double* Y = dy_malloc_huge(sizeof(double) * (size_t)N * (size_t)np);   /* written whole (base_khalil) */
  double* A = dy_malloc_huge(sizeof(double) * (size_t)N * (size_t)np);
  double* Mt = malloc(sizeof(double) * (size_t)np * (size_t)np);
  int* iw = malloc(sizeof(int) * (size_t)np * 2);
  int status = -1;
  if (!Y || !A || !Mt || !iw) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  /* fresh states: another seed than the one the sets are computed with;
   * joint parameters the set leaves out (joint_keep) are zero: their
   * columns too */
  dyi_base_stack(m, b->friction, ns, 2, Y);
  for (int k = DY_NPAR_LINK * m->n; k < np; k++)
    if (!(b->joint_keep & (1u << dy_parkind(m, k))))
      memset(Y + (size_t)N*k, 0, sizeof(double) * (size_t)N);
  for (int k = 0; b->fix && k < np; k++)   /* held parameters (dyi_base_fix): columns out */
    if (!isnan(b->fix[k])) memset(Y + (size_t)N*k, 0, sizeof(double) * (size_t)N);
  memcpy(A, Y, sizeof(double) * (size_t)N * (size_t)np);
  if (qr_deps(A, N, np, &b->rank, &b->rank_gap, iw, iw + np, NULL)) {
    snprintf(err, (size_t)errsz, "QR of the stacked regressor failed");
    goto done;
  }
  double bp = b->bp_err = bp_error(b);
  b->repro_err = repro_error(b, Y, N, A, Mt);
  if (bp > 1e-9) {
    snprintf(err, (size_t)errsz, "set %s fails the QR rank test: B P differs from 1 by %.3g", dyi_base_set_name(b->set), bp);
    goto done;
  }
  if (b->rank != nb) {
    snprintf(err, (size_t)errsz,
             "set %s fails the QR rank test: %d base parameters but the regressor has rank %d "
             "(gap %.3g)", dyi_base_set_name(b->set), nb, b->rank, b->rank_gap);
    goto done;
  }
  if (!(b->repro_err <= 1e-9)) {
    snprintf(err, (size_t)errsz,
             "set %s fails the QR rank test: the regressor is not reproduced through the set "
             "(max |Y - Y_b B| / max |Y| = %.3g on fresh random states)", dyi_base_set_name(b->set), b->repro_err);
    goto done;
  }
  status = 0;
done:
  free(Y); free(A); free(Mt); free(iw);
  return status;
}

/* ------------------------------------------------------------ compute */

dyiBase* dyi_base_make(const dyModel* m, dyiBaseSet set, int friction, char* err, int errsz) {
  dyiBase* b = NULL;
  if (set == DYI_SET_QR) b = base_qr(m, friction, err, errsz);
  else if (set == DYI_SET_KHALIL) b = base_khalil(m, friction, err, errsz);
  else if (set == DYI_SET_LIN) {
    b = dyi_base_lin(m, friction, err, errsz);
    if (b) {
      /* a set that gave no realisation gets P = B^+ */
      int any = 0;
      for (size_t i = 0; i < (size_t)b->nb * (size_t)b->npar; i++) if (b->P[i] != 0) any = 1;
      if (!any && dyi_base_pinv(b, err, errsz)) { dyi_base_free(b); return NULL; }
    }
  } else {
    snprintf(err, (size_t)errsz, "base-parameter set %s cannot be computed (qr, khalil or lin)",
             dyi_base_set_name(set));
    return NULL;
  }
  if (!b) return NULL;
  if (dyi_base_verify(m, b, err, errsz)) { dyi_base_free(b); return NULL; }
  return b;
}

/* ------------------------------------------------------------ expressions */

int dyi_base_expr(const dyModel* m, const dyiBase* b, int i, char* buf, int bufsz) {
  return dyi_base_expr_fmt(m, b, i, 0, buf, bufsz);
}

int dyi_base_expr_fmt(const dyModel* m, const dyiBase* b, int i, int shortest, char* buf, int bufsz) {
  const double* row = b->B + (size_t)i*b->npar;
  double big = 0;
  for (int c = 0; c < b->npar; c++) big = fmax(big, fabs(row[c]));
  int len = 0, first = 1;
  char tmp[96];
  for (int c = 0; c < b->npar; c++) {
    double v = row[c];
    if (v == 0 || fabs(v) <= 1e-14 * big) continue;
    char nm[24];
    dy_parname(m, c, nm, sizeof nm);
    const char* sep = first ? (v < 0 ? "-" : "") : (v < 0 ? " - " : " + ");
    double a = fabs(v);
    if (a == 1) snprintf(tmp, sizeof tmp, "%s%s", sep, nm);
    else {
      char num[32];
      if (shortest) dy_fmt_shortest(num, sizeof num, a);
      else snprintf(num, sizeof num, "%.17g", a);
      snprintf(tmp, sizeof tmp, "%s%s*%s", sep, num, nm);
    }
    int L = (int)strlen(tmp);
    if (len < bufsz - 1) {   /* copy what fits, snprintf-like */
      int cp = L < bufsz - 1 - len ? L : bufsz - 1 - len;
      memcpy(buf + len, tmp, (size_t)cp);
      buf[len + cp] = 0;
    }
    len += L;
    first = 0;
  }
  if (first) {
    if (bufsz > 1) snprintf(buf, (size_t)bufsz, "0");
    len = 1;
  }
  if (bufsz > 0 && len >= bufsz) buf[bufsz - 1] = 0;
  return len;
}

int dyi_expr_parse(const dyModel* m, int npar, const char* expr, double* row, char* err, int errsz) {
  memset(row, 0, sizeof(double) * (size_t)npar);
  const char* s = expr;
  int nterm = 0;
  while (isspace((unsigned char)*s)) s++;
  if (*s == 0) { snprintf(err, (size_t)errsz, "empty expression"); return -1; }
  for (;;) {
    /* sign */
    double sign = 1;
    if (nterm > 0) {
      if (*s == '+') sign = 1;
      else if (*s == '-') sign = -1;
      else {
        snprintf(err, (size_t)errsz, "column %d: expected '+' or '-' before '%.16s'", (int)(s - expr) + 1, s);
        return -1;
      }
      s++;
      while (isspace((unsigned char)*s)) s++;
    } else if (*s == '-' || *s == '+') {
      sign = *s == '-' ? -1 : 1;
      s++;
      while (isspace((unsigned char)*s)) s++;
    }
    /* optional coefficient "NUM*" */
    double coef = 1;
    if (isdigit((unsigned char)*s) || *s == '.') {
      char* e;
      errno = 0;
      coef = strtod(s, &e);
      if (e == s || errno == ERANGE || !isfinite(coef)) {
        snprintf(err, (size_t)errsz, "column %d: bad number '%.16s'", (int)(s - expr) + 1, s);
        return -1;
      }
      s = e;
      while (isspace((unsigned char)*s)) s++;
      if (*s != '*') {
        if (*s == 0 && nterm == 0 && coef == 0) return 0;   /* "0": the empty combination */
        snprintf(err, (size_t)errsz, "column %d: expected '*' after the number", (int)(s - expr) + 1);
        return -1;
      }
      s++;
      while (isspace((unsigned char)*s)) s++;
    }
    /* name */
    const char* n0 = s;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    if (s == n0) {
      snprintf(err, (size_t)errsz, "column %d: expected a parameter name", (int)(n0 - expr) + 1);
      return -1;
    }
    char name[32];
    if (s - n0 >= (long)sizeof name) {
      snprintf(err, (size_t)errsz, "column %d: name too long", (int)(n0 - expr) + 1);
      return -1;
    }
    memcpy(name, n0, (size_t)(s - n0));
    name[s - n0] = 0;
    int k = dy_parindex(m, name);
    if (k < 0 || k >= npar) {
      int motor = k < 0 && (!strncasecmp(name, "IAM", 3) || !strncasecmp(name, "FVM", 3) || !strncasecmp(name, "FCM", 3));
      snprintf(err, (size_t)errsz, "column %d: unknown parameter '%s'%s", (int)(n0 - expr) + 1, name,
               k >= npar ? " (a joint parameter, but friction is off)"
               : motor ? " (a coupled motor's: give the transmission it was identified with, --transmission)" : "");
      return -1;
    }
    row[k] += sign * coef;
    nterm++;
    while (isspace((unsigned char)*s)) s++;
    if (*s == 0) break;
  }
  return 0;
}

/* ------------------------------------------------------------ report */

/* why standard parameter k has a zero regressor column, where the rules say */
static void why_zero(const dyModel* m, const khGeom* g, int k, char* buf, int bufsz) {
  int n = m->n, nl = DY_NPAR_LINK * n;
  if (k >= nl) { snprintf(buf, (size_t)bufsz, "no effect on the joint torques"); return; }
  int j = k / DY_NPAR_LINK, c = k % DY_NPAR_LINK;
  int inert = c <= DY_ZZ, ms = c >= DY_MX && c <= DY_MZ;
  if (j < g->r1) {
    snprintf(buf, (size_t)bufsz, "joints 1..%d are prismatic: link %d only translates, so its %s no force along the joint axes",
             j + 1, j + 1, inert ? "inertia tensor gives" : ms ? "first moments give" : "mass gives");
    return;
  }
  if (j == g->r1 && inert) {
    snprintf(buf, (size_t)bufsz, "link %d turns only about z%d (joint %d is the first revolute joint): of its inertia only ZZ acts",
             j + 1, j + 1, j + 1);
    return;
  }
  if ((c == DY_MX || c == DY_MY) && g->ms_r1_drop && j == g->r1) {
    snprintf(buf, (size_t)bufsz, "joint %d is revolute about gravity%s", j + 1,
             j > 0 ? " and the prismatic joints before it are parallel to it" : "");
    return;
  }
  if ((c == DY_MX || c == DY_MY) && g->ms_r1_drop && g->zone[j] && g->onaxis[j] &&
      m->jnt_type[j] == DY_REVOLUTE) {
    snprintf(buf, (size_t)bufsz, "joint %d is coaxial with joint %d, which is revolute about gravity", j + 1, g->r1 + 1);
    return;
  }
  if (ms && g->nograv && g->fixedpt[j]) {
    snprintf(buf, (size_t)bufsz, "no gravity and the axes of joints 1..%d meet in a fixed point: link %d's first moments act only through its inertia about that point",
             j + 1, j + 1);
    return;
  }
  if (ms && g->uzone[j] && fabs(fabs(g->u[j][c - DY_MX]) - 1) <= 1e-12) {
    snprintf(buf, (size_t)bufsz, "link %d turns only about the axis of joint %d, and its first moment along that axis gives no torque",
             j + 1, g->r1 + 1);
    return;
  }
  if (j == 0 && g->r1 == 0 && (c == DY_MZ || c == DY_M)) {
    snprintf(buf, (size_t)bufsz, "joint 1 is revolute: %s lies on its fixed axis", c == DY_M ? "the mass at O1" : "MZ1");
    return;
  }
  if (g->zone[j] && j > g->r1 && inert && m->jnt_type[j] == DY_REVOLUTE) {
    snprintf(buf, (size_t)bufsz, "revolute joints %d..%d are parallel: link %d turns about one fixed direction, only ZZ acts",
             g->r1 + 1, j + 1, j + 1);
    return;
  }
  if (g->zone[j] && j > g->r1 && c == DY_MZ && m->jnt_type[j] == DY_PRISMATIC && g->par_r1[j]) {
    snprintf(buf, (size_t)bufsz, "joint %d is prismatic along the common axis of the revolute joints before it", j + 1);
    return;
  }
  snprintf(buf, (size_t)bufsz, "no effect on the joint torques (zero regressor column)");
}

int dyi_base_report(FILE* f, const dyModel* m, const dyiBase* b) {
  int np = b->npar, nb = b->nb, lines = 0;
  khGeom g;
  kh_geometry(m, &g);
  /* orthonormal basis of the row space of B: Q from QR of B^T (np x nb) */
  double* Q = malloc(sizeof(double) * (size_t)np * (size_t)(nb ? nb : 1));
  double* tau = malloc(sizeof(double) * (size_t)(nb ? nb : 1));
  double* work = malloc(sizeof(double) * (size_t)64 * (size_t)(np + nb + 1));
  int ok = Q && tau && work && nb > 0;
  if (ok) {
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < np; c++) Q[c + (size_t)np*i] = b->B[(size_t)i*np + c];
    int lw = 64 * (np + nb + 1);
    ok = !LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, np, nb, Q, np, tau, work, lw) &&
         !LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, np, nb, nb, Q, np, tau, work, lw);
  }
  fprintf(f, "# identifiability of each standard parameter (set %s):\n", dyi_base_set_name(b->set));
  lines++;
  for (int k = 0; k < np; k++) {
    char nm[24], why[200];
    dy_parname(m, k, nm, sizeof nm);
    double colmax = 0, big = 0;
    for (int i = 0; i < nb; i++) {
      double v = fabs(b->B[(size_t)i*np + k]);
      colmax = fmax(colmax, v);
      for (int c = 0; c < np; c++) big = fmax(big, fabs(b->B[(size_t)i*np + c]));
    }
    if (b->fix && !isnan(b->fix[k])) {   /* dyi_base_fix */
      fprintf(f, "#   %s: held at %.17g, not estimated (--fix, --drop)\n", nm, b->fix[k]);
    } else if (colmax <= 1e-14 * big || nb == 0) {
      why_zero(m, &g, k, why, sizeof why);
      fprintf(f, "#   %s: not identifiable: %s\n", nm, why);
    } else {
      double pr = 0;  /* |projection of e_k on the row space|^2 */
      if (ok) for (int i = 0; i < nb; i++) pr += Q[k + (size_t)np*i] * Q[k + (size_t)np*i];
      if (ok && pr > 1 - 1e-9) {
        int who = -1;
        for (int i = 0; i < nb; i++) if (b->lead[i] == k) who = i;
        fprintf(f, "#   %s: identifiable alone%s%s\n", nm, who >= 0 ? " as " : "", who >= 0 ? b->name[who] : "");
      } else {
        fprintf(f, "#   %s: identifiable only in combination, in", nm);
        for (int i = 0; i < nb; i++)
          if (fabs(b->B[(size_t)i*np + k]) > 1e-14 * big) fprintf(f, " %s", b->name[i]);
        fputc('\n', f);
      }
    }
    lines++;
  }
  free(Q); free(tau); free(work);
  return lines;
}

/* the joint parameters of the kinds not kept removed from the set, which
 * is then proved again (pinv, verify) */
int dyi_base_keep_joint(const dyModel* m, dyiBase* b, unsigned keep, char* err, int errsz) {
  const int n = m->n, nl = DY_NPAR_LINK*n, np = b->npar;
  if (np != dy_npar(m) || (keep & 15u) == 15u) return 0;
  /* the excluded joint parameters are zero: their columns of B go */
  for (int i = 0; i < b->nb; i++)
    for (int k = nl; k < np; k++)
      if (!(keep & (1u << dy_parkind(m, k)))) b->B[(size_t)i*np + k] = 0;
  /* rows left without a coefficient (IA_j alone) go too */
  dyi_base_drop_empty(b);
  for (int i = 0; i < b->nb; i++)
    if (b->lead[i] >= nl && !(keep & (1u << dy_parkind(m, b->lead[i])))) b->lead[i] = -1;
  b->joint_keep = keep & 15u;
  if (dyi_base_pinv(b, err, errsz)) return -1;
  return dyi_base_verify(m, b, err, errsz);
}
