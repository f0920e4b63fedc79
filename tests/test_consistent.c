/* SPDX-License-Identifier: MIT */
/* dynid tests: physically consistent identification (ident/consistent.h).
 *
 *  - Optimality, checked by a second, independent method: a primal
 *    log-barrier interior point (damped Newton on F - mu sum log det PI_j,
 *    mu -> 0) on the same least-squares objective over the same set (each
 *    link's pseudo-inertia PSD, IA, FV, FC >= 0), written here from the
 *    definitions: it shares no code and no formulation with the SDP. Data made inconsistent on
 *    purpose (negative masses and armatures in the generating parameters)
 *    so that the constraints are active. The two objectives agree to 1e-6
 *    (relative), the SDP is never worse, and its certified lower bound
 *    is below both.
 *  - Simulated identification of the Panda (a consistent model with joint
 *    friction) from noisy data (2 % of each joint's torque RMS): the
 *    consistent estimate is certified, its links are PSD to round-off,
 *    its held-out error is at the noise floor (within 1 %) and within
 *    1.05x the unconstrained one; from a perturbed nominal model as the
 *    prior its standard parameters land closer to the truth than without
 *    a prior; the default prior weight raises the training residual by at
 *    most 0.1 % over the solution without a prior; --min-eig margins hold.
 *  - The command line: --consistent writes a PARAMS file whose values are
 *    K pi of a consistent pi and whose header carries the certificate;
 *    bad input answered by one line (negative --min-eig, a prior file of
 *    another arm, --prior without --consistent). */
#include "testmodels.h"
#include "ident/base.h"
#include "ident/consistent.h"
#include "core/dynamics.h"
#include "ident/estimate.h"
#include "core/io.h"
#include "ident/regressor.h"
#include "kdl_urdf.h"
#include <lapacke.h>
#include <string.h>
#include <sys/stat.h>

static double gauss(void) {   /* Box-Muller on the harness's generator */
  double u = th_uniform(1e-12, 1), v = th_uniform(0, 1);
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Fold ns random states of model m with torques of parameters ptrue (+
 * noise of relative size noise per joint RMS) into a fresh estimator of
 * base set b; returns it solved (OLS). tau_rms: out, per joint. */
static dyiEstim* fold(const dyModel* m, const dyiBase* b, const double* ptrue, int ns, double noise,
                     unsigned long long seed) {
  const int n = m->n, np = b->npar, nb = b->nb;
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.block = 64;
  char err[DY_ERRSZ];
  dyiEstim* e = dyi_est_make(n, nb, &o, err, sizeof err);
  dyData* d = dy_make_data(m);
  double* Y = malloc(sizeof(double) * (size_t)n * (size_t)np);
  double* A = malloc(sizeof(double) * (size_t)n * 64 * (size_t)nb);
  double* y = malloc(sizeof(double) * (size_t)n * 64);
  double* tt = malloc(sizeof(double) * (size_t)n * (size_t)ns);
  double rms[DY_MAXJ] = {0};
  th_rng = seed;
  /* first the clean torques, for the per-joint RMS the noise is scaled to */
  double* S = malloc(sizeof(double) * (size_t)ns * 3 * (size_t)n);
  for (int s = 0; s < ns; s++) {
    double* x = S + (size_t)s * 3 * n;
    th_random_state(n, x, x + n, x + 2*n);
    dy_rnea(m, d, ptrue, x, x + n, x + 2*n, tt + (size_t)s*n);
    for (int j = 0; j < n; j++) rms[j] += tt[(size_t)s*n + j] * tt[(size_t)s*n + j] / ns;
  }
  for (int j = 0; j < n; j++) rms[j] = sqrt(rms[j]);
  for (int s0 = 0; s0 < ns; s0 += 64) {
    int cnt = ns - s0 < 64 ? ns - s0 : 64, lda = n * cnt;
    memset(A, 0, sizeof(double) * (size_t)lda * (size_t)nb);
    for (int s = 0; s < cnt; s++) {
      const double* x = S + (size_t)(s0 + s) * 3 * n;
      dyi_regressor(m, d, x, x + n, x + 2*n, np == 14*n, Y, n);
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < nb; i++) {
          double acc = 0;
          for (int k = 0; k < np; k++) acc += Y[j + (size_t)n*k] * b->P[(size_t)k*nb + i];
          A[(size_t)s*n + j + (size_t)lda * i] = acc;
        }
        y[(size_t)s*n + j] = tt[(size_t)(s0+s)*n + j] + noise * rms[j] * gauss();
      }
    }
    if (dyi_est_add(e, A, lda, y, cnt, NULL, err, sizeof err)) CHECK(0, "est_add: %s", err);
  }
  if (dyi_est_solve(e, NULL, err, sizeof err)) CHECK(0, "est_solve: %s", err);
  free(Y); free(A); free(y); free(tt); free(S);
  dy_free_data(d);
  return e;
}

/* ----------------------------------------------- the independent method */

typedef struct {
  int n, np, p;
  const double *K, *R, *z;   /* R: p x p upper, leading dimension ldr */
  int ldr;
  double f0, rho2, E;
  double *r, *g;             /* work: p, np */
} pgProb;

/* F(pi) = (||R K pi - z||^2 + rho2) / f0 and its gradient in pi */
static double pg_f(pgProb* q, const double* pi, double* gpi) {
  int p = q->p, np = q->np;
  double* beta = q->g;   /* reuse as scratch before the gradient */
  for (int i = 0; i < p; i++) {
    double s = 0;
    for (int k = 0; k < np; k++) s += q->K[(size_t)i*np + k] * pi[k];
    beta[i] = s;
  }
  double f = q->rho2;
  for (int i = 0; i < p; i++) {
    double s = -q->z[i];
    for (int l = i; l < p; l++) s += q->R[i + (size_t)q->ldr*l] * beta[l];
    q->r[i] = s;
    f += s*s;
  }
  if (gpi) {
    /* g = 2 K^T R^T r / f0 */
    double* u = malloc(sizeof(double) * (size_t)p);
    for (int l = 0; l < p; l++) {
      double s = 0;
      for (int i = 0; i <= l; i++) s += q->R[i + (size_t)q->ldr*l] * q->r[i];
      u[l] = s;
    }
    for (int k = 0; k < np; k++) {
      double s = 0;
      for (int i = 0; i < p; i++) s += q->K[(size_t)i*np + k] * u[i];
      gpi[k] = 2 * s / q->f0;
    }
    free(u);
  }
  return f / q->f0;
}

/* dPI/dpi_a for the ten parameters of a link, written out from the
 * definition PI = [tr(J)/2 1 - J, h; h^T, m] (4x4, row-major) */
static void dpi_unit(int a, double A[16]) {
  memset(A, 0, 16 * sizeof(double));
  switch (a) {
    case DY_XX: A[0] = -0.5; A[5] = 0.5; A[10] = 0.5; break;
    case DY_YY: A[0] = 0.5; A[5] = -0.5; A[10] = 0.5; break;
    case DY_ZZ: A[0] = 0.5; A[5] = 0.5; A[10] = -0.5; break;
    case DY_XY: A[1] = A[4] = -1; break;
    case DY_XZ: A[2] = A[8] = -1; break;
    case DY_YZ: A[6] = A[9] = -1; break;
    case DY_MX: A[3] = A[12] = 1; break;
    case DY_MY: A[7] = A[13] = 1; break;
    case DY_MZ: A[11] = A[14] = 1; break;
    default: A[15] = 1;
  }
}

/* phi = F - mu (sum_j log det(PI_j - E 1) + sum log pi_k (flagged));
 * with g non-NULL also its gradient g and Hessian H (np x np row-major,
 * from the constant H_F). +inf outside the constraints. */
static double phi(pgProb* q, const double* pi, double mu, double* g, double* H, const double* HF,
                  double U[10][16]) {
  const int n = q->n, np = q->np, nl = 10*n;
  double f = pg_f(q, pi, g), bar = 0;
  if (g) memcpy(H, HF, sizeof(double) * (size_t)np * np);
  for (int j = 0; j < n; j++) {
    double P[16], W[16], WU[10][16];
    dy_pseudo_inertia(pi + 10*j, P);
    for (int a = 0; a < 4; a++) P[5*a] -= q->E;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', 4, P, 4)) return INFINITY;
    for (int a = 0; a < 4; a++) bar += 2 * log(P[5*a]);
    if (!g) continue;
    memcpy(W, P, sizeof W);          /* W = (PI - E)^-1 */
    LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', 4, W, 4);
    for (int a = 0; a < 4; a++) for (int b = 0; b < a; b++) W[4*b + a] = W[4*a + b];
    for (int a = 0; a < 10; a++)
      for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
          double s = 0;
          for (int k = 0; k < 4; k++) s += W[4*r + k] * U[a][4*k + c];
          WU[a][4*r + c] = s;
        }
    /* d log det / d pi_a = tr(W U_a), d^2 = -tr(W U_a W U_b) */
    for (int a = 0; a < 10; a++) {
      double tr = 0;
      for (int r = 0; r < 4; r++) tr += WU[a][5*r];
      g[10*j + a] -= mu * tr;
      for (int b = 0; b < 10; b++) {
        double s = 0;
        for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) s += WU[a][4*r + c] * WU[b][4*c + r];
        H[(size_t)(10*j + a)*np + 10*j + b] += mu * s;
      }
    }
  }
  for (int k = nl; k < np; k++) {
    if ((k - nl) % 4 == DY_FO) continue;
    if (!(pi[k] > 0)) return INFINITY;
    bar += log(pi[k]);
    if (g) { g[k] -= mu / pi[k]; H[(size_t)k*np + k] += mu / (pi[k]*pi[k]); }
  }
  /* log(B^2 - |pi|^2), B = 1e3: keeps the barrier problem bounded along the
   * directions the data do not see (the minimum of F is reached well inside) */
  double r2 = 0, B2 = 1e6;
  for (int k = 0; k < np; k++) r2 += pi[k]*pi[k];
  if (!(r2 < B2)) return INFINITY;
  bar += log(B2 - r2);
  if (g) {
    double u = B2 - r2;
    for (int k = 0; k < np; k++) {
      g[k] += mu * 2 * pi[k] / u;
      for (int l = 0; l < np; l++) H[(size_t)k*np + l] += mu * ((k == l ? 2 / u : 0) + 4 * pi[k] * pi[l] / (u*u));
    }
  }
  return f - mu * bar;
}

/* log-barrier interior point in pi (a primal method, nothing shared with
 * the SDP's dual-scaling solver): minimise F(pi) - mu (sum_j log det(PI_j -
 * E 1) + sum_k log pi_k (flagged)) by damped Newton steps for mu = 1,
 * 0.2, 0.04, ... until mu times the barrier's degree (4n + flagged + 1) is below
 * 1e-11: then F is within that of the optimum. Returns F. */
static double barrier(pgProb* q, double* pi, int* ok) {
  const int n = q->n, np = q->np, nl = 10*n;
  double *H = malloc(sizeof(double) * (size_t)np * np), *g = malloc(sizeof(double) * (size_t)np);
  double *d = malloc(sizeof(double) * (size_t)np), *t = malloc(sizeof(double) * (size_t)np);
  double *HF = malloc(sizeof(double) * (size_t)np * np), *gf = malloc(sizeof(double) * (size_t)np);
  double U[10][16];
  for (int a = 0; a < 10; a++) dpi_unit(a, U[a]);
  int nflag = 0;
  for (int k = nl; k < np; k++) nflag += (k - nl) % 4 != DY_FO;
  /* H_F = 2 (R K)^T (R K) / f0, constant: from the gradient of unit vectors */
  {
    double* e = calloc((size_t)np, sizeof(double));
    double* g0 = malloc(sizeof(double) * (size_t)np);
    pg_f(q, e, g0);
    for (int k = 0; k < np; k++) {
      e[k] = 1;
      pg_f(q, e, gf);
      for (int l = 0; l < np; l++) HF[(size_t)k*np + l] = gf[l] - g0[l];
      e[k] = 0;
    }
    free(e); free(g0);
  }
  /* strictly feasible start: PI_j = (1 + E) 1, joint parameters 1 (FO 0) */
  memset(pi, 0, sizeof(double) * (size_t)np);
  for (int j = 0; j < n; j++) {
    double c = 1 + q->E;
    pi[10*j + DY_XX] = pi[10*j + DY_YY] = pi[10*j + DY_ZZ] = 2*c;
    pi[10*j + DY_M] = c;
  }
  for (int k = nl; k < np; k++) pi[k] = (k - nl) % 4 != DY_FO;
  double mu = 1;
  int newton = 0;
  *ok = 1;
  while (mu * (4*n + nflag + 1) > 1e-11) {
    for (int it = 0; it < 100; it++, newton++) {
      double f = phi(q, pi, mu, g, H, HF, U);
      for (int k = 0; k < np; k++) d[k] = -g[k];
      if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', np, 1, H, np, d, 1)) { *ok = 0; break; }
      double dec = 0;
      for (int k = 0; k < np; k++) dec -= g[k] * d[k];
      if (dec < 1e-14 * fmax(1, fabs(f))) break;
      double s = 1, fn;
      for (;;) {
        for (int k = 0; k < np; k++) t[k] = pi[k] + s * d[k];
        fn = phi(q, t, mu, NULL, NULL, HF, U);
        if (fn <= f - 0.25 * s * dec || s < 1e-12) break;
        s *= 0.5;
      }
      if (!(fn < f)) break;
      memcpy(pi, t, sizeof(double) * (size_t)np);
    }
    mu *= 0.2;
  }
  double F = pg_f(q, pi, NULL);
  free(H); free(g); free(d); free(t); free(HF); free(gf);
  return F;
}

/* Every standard parameter identifiable (K = 1, R a random well-conditioned
 * triangle), so the optimum is unique and both methods must find it: z =
 * R pi_bad + noise with pi_bad inconsistent on purpose (link 2 negated,
 * IA3 and FV1 negative), so that constraints are active. */
static void test_against_barrier(void) {
  for (int trial = 0; trial < 4; trial++) {
    th_rng = 1234567ull + (unsigned long long)trial;
    dyModel* m = th_random_model(trial == 3 ? 5 : 3, 0.3, 0.5, 1);
    const int n = m->n, np = 14*n, p = np;
    char err[DY_ERRSZ];
    double pt[14*DY_MAXJ];
    memcpy(pt, m->par, sizeof(double) * (size_t)np);
    for (int k = 0; k < 10; k++) pt[10 + k] = -pt[10 + k];
    pt[10*n + 4*2 + DY_IA] = -0.2;
    pt[10*n + DY_FV] = -0.5;
    double* K = calloc((size_t)np * np, sizeof(double));
    double* R = calloc((size_t)np * np, sizeof(double));
    double z[14*DY_MAXJ];
    for (int i = 0; i < np; i++) {
      K[(size_t)i*np + i] = 1;
      R[i + (size_t)np*i] = th_uniform(0.5, 2);
      for (int c = i + 1; c < np; c++) R[i + (size_t)np*c] = th_uniform(-0.3, 0.3);
    }
    for (int i = 0; i < np; i++) {
      double s = 0;
      for (int c = i; c < np; c++) s += R[i + (size_t)np*c] * pt[c];
      z[i] = s + 0.01 * gauss();
    }
    double rho2 = 0.05;
    dyiConsProblem pr = {.p = p, .npar = np, .K = K, .R = R, .ldr = np, .z = z, .rho2 = rho2,
                         .min_eig = trial == 2 ? 1e-3 : 0};
    dyiConsResult r;
    int st = dyi_consistent(m, &pr, &r, err, sizeof err);
    CHECK(st == 0, "dyi_consistent: %s", err);
    if (st) { free(K); free(R); dy_free_model(m); continue; }
    pgProb q = {n, np, p, K, R, z, np, rho2, rho2, pr.min_eig,
                malloc(sizeof(double) * (size_t)p), malloc(sizeof(double) * (size_t)p)};
    double pipg[14*DY_MAXJ];
    int bok;
    double fpg = barrier(&q, pipg, &bok);
    CHECK(bok, "trial %d: the barrier method ran", trial);
    double fsdp = r.objective - r.prior_term;
    CHECK(fabs(fsdp - fpg) <= 1e-6 * fabs(fpg),
          "trial %d: SDP objective %.12g vs barrier method %.12g (rel %.2g)", trial, fsdp, fpg,
          fabs(fsdp - fpg) / fpg);
    CHECK(r.lower_bound <= fpg * (1 + 1e-9) && r.lower_bound <= r.objective * (1 + 1e-9),
          "trial %d: the certified lower bound %.12g is below both", trial, r.lower_bound);
    CHECK(r.certified, "trial %d: certified (gap %.2g, DSDP status %d, %d iterations)", trial, r.gap,
          r.solver_status, r.iterations);
    CHECK(r.objective > 1 + 1e-3, "trial %d: the constraints are active (objective %.6g > 1)", trial, r.objective);
    for (int j = 0; j < n; j++)
      CHECK(r.link_margin[j] >= -1e-9 * (1 + fabs(r.pi[10*j + DY_M])),
            "trial %d link %d: pseudo-inertia - E >= 0 (%.3g)", trial, j + 1, r.link_margin[j]);
    CHECK(!(r.nonneg_margin < 0), "trial %d: IA FV FC >= 0 (%.3g)", trial, r.nonneg_margin);
    free(q.r); free(q.g);
    dyi_cons_free(&r);
    free(K); free(R);
    dy_free_model(m);
  }
}

/* relative torque error of parameters par over states X (3n each) against
 * torques T (n each) */
static double heldout(const dyModel* m, dyData* d, const double* par, const double* X, const double* T,
                      int ns) {
  const int n = m->n;
  double t[DY_MAXJ], se = 0, sm = 0;
  for (int s = 0; s < ns; s++) {
    const double* x = X + (size_t)s*3*n;
    dy_rnea(m, d, par, x, x + n, x + 2*n, t);
    for (int j = 0; j < n; j++) {
      double e = T[(size_t)s*n + j] - t[j];
      se += e*e; sm += T[(size_t)s*n + j]*T[(size_t)s*n + j];
    }
  }
  return 100 * sqrt(se / sm);
}

/* sum over links of the relative mass error and the centre-of-mass error / 0.1 m */
static double dist_truth(int n, const double* pi, const double* pt) {
  double s = 0;
  for (int j = 0; j < n; j++) {
    const double *a = pi + 10*j, *b = pt + 10*j;
    s += fabs(a[DY_M] - b[DY_M]) / b[DY_M];
    double dc = 0;
    for (int k = 0; k < 3; k++) {
      double ca = a[DY_M] > 0 ? a[DY_MX + k] / a[DY_M] : 0, cb = b[DY_MX + k] / b[DY_M];
      dc += (ca - cb) * (ca - cb);
    }
    s += sqrt(dc) / 0.1;
  }
  return s;
}

/* the held-out data of the simulated Panda: nh states X (3n each), their
 * clean torques Tc and the same with 2 % noise Tn; the error of the true
 * parameters on Tn (the noise floor) and of the unconstrained estimate */
typedef struct { int nh; double *X, *Tc, *Tn; double floor_n, eu_n; } heldout_t;

/* the held-out states and torques (generator seeded 777) */
static void make_heldout(const dyModel* m, dyData* d, heldout_t* h) {
  const int n = m->n, nh = h->nh;
  double rms[DY_MAXJ] = {0};
  h->X = malloc(sizeof(double) * (size_t)nh * 3 * n);
  h->Tc = malloc(sizeof(double) * (size_t)nh * n);
  h->Tn = malloc(sizeof(double) * (size_t)nh * n);
  th_rng = 777;
  for (int s = 0; s < nh; s++) {
    double* x = h->X + (size_t)s*3*n;
    th_random_state(n, x, x + n, x + 2*n);
    dy_rnea(m, d, m->par, x, x + n, x + 2*n, h->Tc + (size_t)s*n);
    for (int j = 0; j < n; j++) rms[j] += h->Tc[(size_t)s*n + j] * h->Tc[(size_t)s*n + j] / nh;
  }
  for (int s = 0; s < nh; s++)
    for (int j = 0; j < n; j++) h->Tn[(size_t)s*n + j] = h->Tc[(size_t)s*n + j] + 0.02 * sqrt(rms[j]) * gauss();
}

/* the consistent estimate without a prior into r0: certified, links PSD to
 * round-off, held-out error at the noise floor and within 1.05x the
 * unconstrained one; returns dyi_consistent_est's status */
static int check_no_prior(const dyModel* m, dyData* d, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* co,
                          const heldout_t* h, dyiConsResult* r0) {
  const int n = m->n;
  char err[DY_ERRSZ];
  int st = dyi_consistent_est(m, b, e, co, r0, err, sizeof err);
  CHECK(st == 0, "consistent (no prior): %s", err);
  if (st) return st;
  CHECK(r0->certified, "certified (gap %.2g, status %d)", r0->gap, r0->solver_status);
  int psd = 1;
  for (int j = 0; j < n; j++) psd &= dyi_pseudo_mineig(r0->pi + 10*j) >= -1e-9 * (1 + r0->pi[10*j + DY_M]);
  CHECK(psd, "every link's pseudo-inertia PSD to round-off");
  double ec_n = heldout(m, d, r0->pi, h->X, h->Tn, h->nh), ec_c = heldout(m, d, r0->pi, h->X, h->Tc, h->nh);
  CHECK(ec_n <= 1.01 * h->floor_n, "held-out error at the noise floor: %.4g %% vs %.4g %%", ec_n, h->floor_n);
  CHECK(ec_n <= 1.05 * h->eu_n, "held-out error within 1.05x the unconstrained: %.4g %% vs %.4g %%", ec_n, h->eu_n);
  CHECK(ec_c < 0.5, "noise-free held-out error %.4g %% < 0.5 %%", ec_c);
  return 0;
}

/* a perturbed nominal model (still consistent) into prior (generator seeded 31337) */
static void perturbed_prior(const dyModel* m, double* prior) {
  const int n = m->n;
  th_rng = 31337;
  for (int j = 0; j < n; j++) {
    double mass, c[3], Ic[6];
    dy_linkpar_to_com(m->par + 10*j, &mass, c, Ic);
    mass *= th_uniform(0.8, 1.2);
    for (int k = 0; k < 3; k++) c[k] += th_uniform(-0.02, 0.02);
    double f = th_uniform(0.8, 1.2);
    for (int k = 0; k < 6; k++) Ic[k] *= f;
    dy_linkpar_from_com(prior + 10*j, mass, c, Ic);
    for (int k = 0; k < 4; k++) prior[10*n + 4*j + k] = m->par[10*n + 4*j + k] * th_uniform(0.8, 1.2);
  }
}

/* the estimate with co's prior into r1: closer to the truth than r0, the
 * training residual within 1 % of r0's, held-out error at the noise floor;
 * returns dyi_consistent_est's status */
static int check_with_prior(const dyModel* m, dyData* d, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* co,
                            const heldout_t* h, const dyiConsResult* r0, dyiConsResult* r1) {
  const int n = m->n;
  char err[DY_ERRSZ];
  int st = dyi_consistent_est(m, b, e, co, r1, err, sizeof err);
  CHECK(st == 0, "consistent (prior): %s", err);
  if (st) return st;
  double d0 = dist_truth(n, r0->pi, m->par), d1 = dist_truth(n, r1->pi, m->par);
  CHECK(d1 < d0, "with the perturbed nominal as prior the parameters land closer to the truth: %.4g vs %.4g",
        d1, d0);
  double w = r1->weight;
  CHECK(r1->rss <= 1.01 * r0->rss, "default prior weight %.3g: training residual within 1 %% of no prior "
        "(%.8g vs %.8g)", w, r1->rss, r0->rss);
  CHECK(heldout(m, d, r1->pi, h->X, h->Tn, h->nh) <= 1.01 * h->floor_n,
        "with the prior: held-out error at the noise floor");
  return 0;
}

/* a margin (co's min_eig 1e-3): every link's pseudo-inertia >= E */
static void check_min_eig(const dyModel* m, const dyiBase* b, const dyiEstim* e, const dyiConsOpt* co) {
  char err[DY_ERRSZ];
  dyiConsResult r2;
  int st = dyi_consistent_est(m, b, e, co, &r2, err, sizeof err);
  CHECK(st == 0, "consistent (min-eig): %s", err);
  if (st) return;
  int ok = 1;
  for (int j = 0; j < m->n; j++) ok &= dyi_pseudo_mineig(r2.pi + 10*j) >= 1e-3 * (1 - 1e-6);
  CHECK(ok && r2.certified, "--min-eig 1e-3: every pseudo-inertia >= 1e-3");
  dyi_cons_free(&r2);
}

/* the Panda with joint friction, identified from noisy simulated data:
 * without a prior, with a perturbed nominal prior, with a margin */
static void test_panda_simulated(void) {
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  if (dy_load_model("datasets/models/panda.csv", NULL, &m, err, sizeof err)) { CHECK(0, "%s", err); return; }
  const int n = m->n;
  for (int j = 0; j < n; j++) {
    double* q = m->par + 10*n + 4*j;
    q[DY_IA] = 0.02; q[DY_FV] = fabs(q[DY_FV]) + 0.05; q[DY_FC] = fabs(q[DY_FC]) + 0.1; q[DY_FO] = 0;
  }
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  if (!b) { CHECK(0, "%s", err); dy_free_model(m); return; }
  dyiEstim* e = fold(m, b, m->par, 3000, 0.02, 4242);
  dyData* d = dy_make_data(m);
  heldout_t h = {.nh = 1000};
  make_heldout(m, d, &h);
  double pu[14*DY_MAXJ];
  if (dyi_realise_near(m, b->B, b->nb, b->npar, e->beta, NULL, pu, err, sizeof err)) CHECK(0, "%s", err);
  h.floor_n = heldout(m, d, m->par, h.X, h.Tn, h.nh);
  h.eu_n = heldout(m, d, pu, h.X, h.Tn, h.nh);
  dyiConsResult r0, r1;
  dyiConsOpt co = {.weight = -1};
  if (check_no_prior(m, d, b, e, &co, &h, &r0) == 0) {
    double prior[14*DY_MAXJ];
    perturbed_prior(m, prior);
    co.prior = prior;
    if (check_with_prior(m, d, b, e, &co, &h, &r0, &r1) == 0) {
      co.min_eig = 1e-3;
      check_min_eig(m, b, e, &co);
      dyi_cons_free(&r1);
    }
    dyi_cons_free(&r0);
  }
  free(h.X); free(h.Tc); free(h.Tn);
  dy_free_data(d);
  dyi_est_free(e);
  dyi_base_free(b);
  dy_free_model(m);
}

/* ----------------------------------------------------- the program */

static const char* T = "build/tests/cons";

/* every numeric row of a CSV file (skipping '#' lines and the header) into v; returns rows */
static int read_rows(const char* path, double* v, int maxv, int* cols) {
  FILE* f = fopen(path, "r");
  char line[8192];
  int nv = 0, rows = 0, hdr = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!hdr) { hdr = 1; continue; }
    int c = 0;
    for (char* t = strtok(line, ",\n"); t && nv < maxv; t = strtok(NULL, ",\n")) { v[nv++] = strtod(t, NULL); c++; }
    *cols = c;
    rows++;
  }
  fclose(f);
  return rows;
}

/* identify --consistent with --model-out .csv and .urdf: the PARAMS header
 * carries the certificate, the model table says how it was made */
static void identify_consistent(const char* P, const char* L) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --rows 1..4000 --friction --consistent --model-out %s/id.csv "
           "-o %s/p.csv", P, L, T, T);
  CHECK(th_run(T, cmd) == 0, "identify --consistent --model-out .csv: %s", th_slurp("build/tests/cons/stderr"));
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --rows 1..4000 --friction --consistent --quiet --boot 0 "
           "--model-out %s/id.urdf -o %s/p2.csv", P, L, T, T);
  CHECK(th_run(T, cmd) == 0, "identify --consistent --model-out .urdf: %s", th_slurp("build/tests/cons/stderr"));
  const char* hdr = th_slurp("build/tests/cons/p.csv");
  CHECK(strstr(hdr, "# consistent: certified optimal, physically consistent and plausible") != NULL,
        "the PARAMS header carries the certificate");
  const char* mh = th_slurp("build/tests/cons/id.csv");
  CHECK(strstr(mh, "# dynid identify") && strstr(mh, "#! gravity"), "the model table says how it was made");
}

/* 50 random states of n joints (generator seeded 555) into S and states.csv */
static void write_cons_states(int n, double S[50][3*DY_MAXJ]) {
  char path[512];
  snprintf(path, sizeof path, "%s/states.csv", T);
  FILE* f = fopen(path, "w");
  fprintf(f, "q1");
  for (int j = 2; j <= n; j++) fprintf(f, ",q%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",qd%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",qdd%d", j);
  fprintf(f, "\n");
  th_rng = 555;
  for (int s = 0; s < 50; s++) {
    th_random_state(n, S[s], S[s] + n, S[s] + 2*n);
    for (int k = 0; k < 3*n; k++) fprintf(f, "%s%.17g", k ? "," : "", S[s][k]);
    fprintf(f, "\n");
  }
  fclose(f);
}

/* the identified torques by --params into a; each written model file (id.csv,
 * id.urdf) reproduces them */
static void check_written_models(const char* P, int n, double* a) {
  static double b[50*DY_MAXJ];
  char cmd[2048];
  int cols = 0;
  snprintf(cmd, sizeof cmd, "./dynid id %s %s/states.csv --params %s/p.csv -o %s/t_params.csv", P, T, T, T);
  CHECK(th_run(T, cmd) == 0, "id --params");
  int ra = read_rows("build/tests/cons/t_params.csv", a, 50*DY_MAXJ, &cols);
  const char* files[2] = {"id.csv", "id.urdf"};
  for (int fi = 0; fi < 2; fi++) {
    snprintf(cmd, sizeof cmd, "./dynid id %s/%s %s/states.csv -o %s/t_file.csv", T, files[fi], T, T);
    CHECK(th_run(T, cmd) == 0, "id on the written %s: %s", files[fi], th_slurp("build/tests/cons/stderr"));
    int rb = read_rows("build/tests/cons/t_file.csv", b, 50*DY_MAXJ, &cols);
    double worst = 0, scale = 0;
    for (int i = 0; i < ra * n && ra == rb; i++) {
      worst = fmax(worst, fabs(a[i] - b[i]));
      scale = fmax(scale, fabs(a[i]));
    }
    CHECK(ra == 50 && rb == 50 && worst <= 1e-9 * scale,
          "the written %s reproduces the identified torques: %.3g of %.3g", files[fi], worst, scale);
  }
}

/* KDL, built from the written URDF by its own parser, gives the identified torques a */
static void check_kdl_urdf(const dyModel* m, double S[50][3*DY_MAXJ], const double* a) {
  const int n = m->n;
  static double c[50*DY_MAXJ];
  char path[512], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/id.urdf", T);
  kdl_urdf* k = kdl_urdf_load(path, err, sizeof err);
  CHECK(k != NULL, "KDL loads the written URDF: %s", err);
  if (!k) return;
  const char* names[DY_MAXJ];
  for (int j = 0; j < n; j++) names[j] = m->jnt_name[j];
  double worst = 0, scale = 0;
  for (int s = 0; s < 50; s++) {
    kdl_urdf_id(k, names, n, S[s], S[s] + n, S[s] + 2*n, c + s*n);
    for (int j = 0; j < n; j++) {
      worst = fmax(worst, fabs(c[s*n + j] - a[s*n + j]));
      scale = fmax(scale, fabs(a[s*n + j]));
    }
  }
  CHECK(worst <= 1e-9 * scale, "KDL on the written URDF gives the identified torques: %.3g of %.3g", worst, scale);
  kdl_urdf_free(k);
}

/* downstream: validate says consistent and positive definite, simulates */
static void check_cons_validate(const char* P, const char* L) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "./dynid validate %s %s/p.csv %s --rows 14001..15000 --horizon 0.05 -o %s/v.csv",
           P, T, L, T);
  CHECK(th_run(T, cmd) == 0, "validate: %s", th_slurp("build/tests/cons/stderr"));
  const char* v = th_slurp("build/tests/cons/v.csv");
  CHECK(strstr(v, "# physical consistency: consistent (certified)") != NULL, "validate: consistent (certified)");
  CHECK(strstr(v, "positive definite at every sample") != NULL, "validate: H positive definite along the log");
  CHECK(strstr(v, "# sim joint") != NULL, "validate --horizon compares samples");
}

/* forward dynamics of the identified model at the identified torques a gives back qdd */
static void check_cons_fd(const char* P, int n, double S[50][3*DY_MAXJ], const double* a) {
  static double b[50*DY_MAXJ];
  char cmd[2048], path[512];
  int cols = 0;
  snprintf(path, sizeof path, "%s/fdlog.csv", T);
  FILE* f = fopen(path, "w");
  for (int j = 1; j <= n; j++) fprintf(f, "%sq%d", j > 1 ? "," : "", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",qd%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",tau%d", j);
  fprintf(f, "\n");
  for (int s = 0; s < 50; s++) {
    for (int k = 0; k < 2*n; k++) fprintf(f, "%s%.17g", k ? "," : "", S[s][k]);
    for (int j = 0; j < n; j++) fprintf(f, ",%.17g", a[s*n + j]);
    fprintf(f, "\n");
  }
  fclose(f);
  snprintf(cmd, sizeof cmd, "./dynid fd %s %s/fdlog.csv --params %s/p.csv -o %s/fd.csv", P, T, T, T);
  CHECK(th_run(T, cmd) == 0, "fd --params works: %s", th_slurp("build/tests/cons/stderr"));
  int rb = read_rows("build/tests/cons/fd.csv", b, 50*DY_MAXJ, &cols);
  double worst = 0;
  for (int s = 0; s < 50 && rb == 50; s++)
    for (int j = 0; j < n; j++) worst = fmax(worst, fabs(b[s*n + j] - S[s][2*n + j]) / (1 + fabs(S[s][2*n + j])));
  /* H is well conditioned here (smallest eigenvalue ~1e-4 of ~1): 1e-6 */
  CHECK(rb == 50 && worst < 1e-6, "fd at the identified torques gives back qdd: %.3g", worst);
}

/* bad input: one line, the right exit status, no output file */
static void check_cons_bad(const char* P, const char* L) {
  static const struct { const char* opt; int rc; const char* says; } bad[] = {
    {"--consistent --min-eig -1", 2, "--min-eig must be a number >= 0"},
    {"--prior none", 2, "go with --consistent"},
    {"--consistent --prior-weight -2", 2, "--prior-weight must be a number >= 0"},
    {"--consistent --prior datasets/models/puma560.csv", 1, "the prior model has 6 joints"},
    {"--consistent --prior build/tests/cons/nothere.csv", 1, "nothere.csv"},
  };
  char cmd[2048];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "./dynid identify %s %s --rows 1..3000 --friction %s -o %s/bad.csv", P, L,
             bad[i].opt, T);
    int rc = th_run(T, cmd);
    const char* e = th_slurp("build/tests/cons/stderr");
    struct stat st;
    CHECK(rc == bad[i].rc && strstr(e, bad[i].says) && strncmp(e, "dynid: ", 7) == 0 &&
          stat("build/tests/cons/bad.csv", &st) != 0,
          "%s: exit %d, '%s'", bad[i].opt, rc, e);
  }
}

/* the command line: identify --consistent, its files against the library
 * and KDL, validate and fd downstream, bad input */
static void test_program(void) {
  mkdir("build/tests/cons", 0755);
  const char* P = "datasets/models/panda.csv";
  const char* L = "datasets/panda/exciting_traj.csv.gz --map t=t_s";
  identify_consistent(P, L);
  /* random states; the identified torques by --params, by each model file, and by KDL on the URDF */
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_model(P, NULL, &m, err, sizeof err)) { CHECK(0, "%s", err); return; }
  const int n = m->n;
  static double S[50][3*DY_MAXJ], a[50*DY_MAXJ];
  write_cons_states(n, S);
  check_written_models(P, n, a);
  check_kdl_urdf(m, S, a);
  check_cons_validate(P, L);
  check_cons_fd(P, n, S, a);
  check_cons_bad(P, L);
  dy_free_model(m);
}

int main(void) {
  test_against_barrier();
  test_panda_simulated();
  test_program();
  return test_report();
}
