/* SPDX-License-Identifier: MIT */
/* dynid tests: plausible identified models (ident/consistent.h,
 * dyi_link_bounds and dyi_consistent_est; identify --consistent).
 *
 * The plausibility test, written here from its definition and sharing no
 * code with the bounds the solver imposes: for every link j, against the
 * nominal model in the same (modified-DH) frames,
 *   - mass within [1/3, 3] x nominal (links of nominal mass >= 0.1 kg);
 *   - centre of mass within R_j of O_j, R_j = max(0.15 m, 1.5 x the
 *     distance from O_j to the next joint's frame (the tip frame for the
 *     last link), 1.5 x |nominal com|, 1.5 x the nominal largest radius of
 *     gyration about the com), distances taken from forward kinematics;
 *   - largest principal moment about the com <= m R_j^2;
 *   - smallest principal moment about the com >= m (5 mm)^2.
 * Checked on:
 *  - real logs: the KUKA LWR4+ identified on each of its three
 *    recordings and the Panda on its first 14 s (identify --friction
 *    --consistent --model-out): no fault, certified, and the held-out
 *    error (the other recordings together; the Panda's last 6.5 s) within
 *    1.05x of least squares';
 *  - a simulated arm: the Panda as the truth, a nominal model perturbed
 *    from it (masses +-30 %, com +-3 cm, inertias +-30 %) given to the
 *    identification, 2 % torque noise: no fault against that nominal,
 *    certified, the masses and centres of mass closer to the truth than
 *    the nominal's, held-out error at the noise floor; the bootstrap std
 *    against the spread of estimates from independent noise;
 *  - exact torques: certified, and the program writes the URDF;
 *  - bad input: one line each. */
#include "testmodels.h"
#include "ident/base.h"
#include "ident/consistent.h"
#include "core/dynamics.h"
#include "ident/estimate.h"
#include "core/io.h"
#include "ident/regressor.h"
#include "core/util.h"
#include <lapacke.h>
#include <string.h>
#include <sys/stat.h>

static double gauss(void) {
  double u = th_uniform(1e-12, 1), v = th_uniform(0, 1);
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* mass, com [m] and principal moments about the com (ascending) of ten parameters */
static void link_props(const double* u, double* m, double c[3], double pm[3]) {
  *m = u[DY_M];
  for (int k = 0; k < 3; k++) c[k] = *m > 0 ? u[DY_MX + k] / *m : 0;
  /* I_c = J_O - m (|c|^2 1 - c c^T), J_O from XX..ZZ */
  double J[9] = {u[DY_XX], u[DY_XY], u[DY_XZ], u[DY_XY], u[DY_YY], u[DY_YZ], u[DY_XZ], u[DY_YZ], u[DY_ZZ]};
  double cc = c[0]*c[0] + c[1]*c[1] + c[2]*c[2], wk[32];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) J[3*a + b] -= *m * ((a == b) * cc - c[a] * c[b]);
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', 3, J, 3, pm, wk, 32)) pm[0] = pm[1] = pm[2] = NAN;
}

/* the number of plausibility faults of pi (14n) against the nominal
 * model nm; the first few described in why */
static int faults(const dyModel* nm, const double* pi, char* why, int whysz) {
  const int n = nm->n;
  int bad = 0, len = 0;
  double q[DY_MAXJ] = {0}, R[9], p0[3], p1[3];
  why[0] = 0;
  for (int j = 0; j < n; j++) {
    double m0, c0[3], pm0[3], m, c[3], pm[3];
    link_props(nm->par + 10*j, &m0, c0, pm0);
    link_props(pi + 10*j, &m, c, pm);
    dy_fk(nm, q, j, R, p0);       /* the frame of link j (0-based) */
    dy_fk(nm, q, j + 1, R, p1);   /* the next joint's frame, the tip frame for the last link */
    double dn = sqrt((p1[0]-p0[0])*(p1[0]-p0[0]) + (p1[1]-p0[1])*(p1[1]-p0[1]) + (p1[2]-p0[2])*(p1[2]-p0[2]));
    double rg0 = m0 > 0 && pm0[2] > 0 ? sqrt(pm0[2] / m0) : 0;
    double Rj = fmax(fmax(0.15, 1.5 * dn), fmax(1.5 * sqrt(c0[0]*c0[0] + c0[1]*c0[1] + c0[2]*c0[2]), 1.5 * rg0));
    double dc = sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]);
    const char* f = NULL;
    if (m0 >= 0.1 && !(m >= m0 / 3 && m <= 3 * m0)) f = "mass";
    else if (!(dc <= Rj)) f = "com";
    else if (!(pm[2] <= m * Rj * Rj)) f = "largest moment";
    else if (!(pm[0] >= m * 25e-6)) f = "smallest moment";
    if (f) {
      bad++;
      if (len < whysz)
        len += snprintf(why + len, (size_t)(whysz - len), " link %d %s (m %.3g of %.3g kg, com %.3g of R %.3g m, "
                        "moments %.3g %.3g)", j + 1, f, m, m0, dc, Rj, pm[0], pm[2]);
    }
  }
  return bad;
}

/* ---------------------------------------------------- real logs (CLI) */

static const char* T = "build/tests/plaus";

/* the "all" relative error of validate MODEL PARAMS LOG OPTS, or NAN */
static double validate_all(const char* model, const char* params, const char* log) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "./dynid validate %s %s %s -o %s/v.csv", model, params, log, T);
  if (th_run(T, cmd)) return NAN;
  const char* v = th_slurp("build/tests/plaus/v.csv");
  const char* a = strstr(v, "\nall,");
  double rms, rel;
  return a && sscanf(a + 5, "%lf,%lf", &rms, &rel) == 2 ? rel : NAN;
}

/* identify ARM on train (log options included) both ways, check the
 * consistent model's plausibility and certificate, and the held-out error
 * over the logs held (each "LOG OPTS") against least squares' */
static void real_arm(const char* name, const char* model, const char* train, const char** held, int nh) {
  char cmd[2048], why[1024], err[DY_ERRSZ];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --friction --consistent --boot 0 --quiet --model-out %s/%s.csv "
           "-o %s/%s.c.csv", model, train, T, name, T, name);
  CHECK(th_run(T, cmd) == 0, "%s: identify --consistent: %s", name, th_slurp("build/tests/plaus/stderr"));
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --friction --quiet -o %s/%s.u.csv", model, train, T, name);
  CHECK(th_run(T, cmd) == 0, "%s: identify: %s", name, th_slurp("build/tests/plaus/stderr"));
  char path[512];
  snprintf(path, sizeof path, "%s/%s.c.csv", T, name);
  CHECK(strstr(th_slurp(path), "# consistent: certified optimal, physically consistent and plausible") != NULL,
        "%s: certified", name);
  dyModel *nm = NULL, *im = NULL;
  snprintf(path, sizeof path, "%s/%s.csv", T, name);
  if (dy_load_model(model, NULL, &nm, err, sizeof err) || dy_load_model(path, NULL, &im, err, sizeof err)) {
    CHECK(0, "%s: %s", name, err);
    dy_free_model(nm);
    return;
  }
  int nf = faults(nm, im->par, why, sizeof why);
  CHECK(nf == 0, "%s: every link plausible (%d faults:%s)", name, nf, why);
  double su = 0, sc = 0;
  for (int k = 0; k < nh; k++) {
    char pu[512], pc[512];
    snprintf(pu, sizeof pu, "%s/%s.u.csv", T, name);
    snprintf(pc, sizeof pc, "%s/%s.c.csv", T, name);
    double eu = validate_all(model, pu, held[k]), ec = validate_all(model, pc, held[k]);
    printf("# %s held-out %s: least squares %.3f %%, plausible %.3f %%\n", name, held[k], eu, ec);
    su += eu * eu; sc += ec * ec;
  }
  CHECK(sqrt(sc) <= 1.05 * sqrt(su), "%s: held-out error within 1.05x of least squares (%.3f vs %.3f %%, rms over "
        "the held-out logs)", name, sqrt(sc / nh), sqrt(su / nh));
  dy_free_model(nm);
  dy_free_model(im);
}

static void test_real(void) {
  const char* K = "datasets/urdf/kuka_lwr4.urdf";
  char tr[3][256], ho[3][256];
  for (int r = 0; r < 3; r++) {
    snprintf(tr[r], sizeof tr[r], "datasets/kuka_lwr4/measurements_%d.csv.gz --map t=t_s", r + 1);
    snprintf(ho[r], sizeof ho[r], "%s", tr[r]);
  }
  for (int r = 0; r < 3; r++) {
    const char* held[2];
    int nh = 0;
    for (int s = 0; s < 3; s++) if (s != r) held[nh++] = ho[s];
    char name[32];
    snprintf(name, sizeof name, "kuka%d", r + 1);
    real_arm(name, K, tr[r], held, nh);
  }
  const char* held = "datasets/panda/exciting_traj.csv.gz --map t=t_s --rows 14001..20544";
  real_arm("panda", "datasets/models/panda.csv", "datasets/panda/exciting_traj.csv.gz --map t=t_s --rows 1..14000",
           &held, 1);
}

/* ------------------------------------------------------- simulated arm */

/* ns random states of m with torques of ptrue plus noise (relative to each
 * joint's RMS) folded into a fresh OLS estimator of b that keeps the
 * cross-validation parts; states and noisy torques into X, Y (if not NULL) */
static dyiEstim* fold(const dyModel* m, const dyiBase* b, const double* ptrue, int ns, double noise,
                      double* X, double* Yt) {
  const int n = m->n, np = b->npar, nb = b->nb;
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.block = 64;
  o.folds = DYI_CV_PARTS;
  char err[DY_ERRSZ];
  dyiEstim* e = dyi_est_make(n, nb, &o, err, sizeof err);
  dyData* d = dy_make_data(m);
  double* S = malloc(sizeof(double) * (size_t)ns * 3 * n);
  double* t = malloc(sizeof(double) * (size_t)ns * n);
  double* Y = malloc(sizeof(double) * (size_t)n * np);
  double* A = malloc(sizeof(double) * (size_t)n * 64 * nb);
  double* y = malloc(sizeof(double) * (size_t)n * 64);
  double rms[DY_MAXJ] = {0};
  for (int s = 0; s < ns; s++) {
    double* x = S + (size_t)s * 3 * n;
    th_random_state(n, x, x + n, x + 2*n);
    dy_rnea(m, d, ptrue, x, x + n, x + 2*n, t + (size_t)s*n);
    for (int j = 0; j < n; j++) rms[j] += t[(size_t)s*n + j] * t[(size_t)s*n + j] / ns;
  }
  for (int s = 0; s < ns * n; s++) t[s] += noise * sqrt(rms[s % n]) * gauss();
  for (int s0 = 0; s0 < ns; s0 += 64) {
    int cnt = ns - s0 < 64 ? ns - s0 : 64, lda = n * cnt;
    for (int s = 0; s < cnt; s++) {
      const double* x = S + (size_t)(s0 + s) * 3 * n;
      dyi_regressor(m, d, x, x + n, x + 2*n, 1, Y, n);
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < nb; i++) {
          double acc = 0;
          for (int k = 0; k < np; k++) acc += Y[j + (size_t)n*k] * b->P[(size_t)k*nb + i];
          A[(size_t)s*n + j + (size_t)lda * i] = acc;
        }
        y[(size_t)s*n + j] = t[(size_t)(s0 + s)*n + j];
      }
    }
    if (dyi_est_add(e, A, lda, y, cnt, NULL, err, sizeof err)) CHECK(0, "est_add: %s", err);
  }
  if (dyi_est_solve(e, NULL, err, sizeof err)) CHECK(0, "solve: %s", err);
  if (X) memcpy(X, S, sizeof(double) * (size_t)ns * 3 * n);
  if (Yt) memcpy(Yt, t, sizeof(double) * (size_t)ns * n);
  free(S); free(t); free(Y); free(A); free(y);
  dy_free_data(d);
  return e;
}

/* relative torque error [%] of par over states X against torques Tq */
static double heldout(const dyModel* m, const double* par, const double* X, const double* Tq, int ns) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  double t[DY_MAXJ], se = 0, sm = 0;
  for (int s = 0; s < ns; s++) {
    const double* x = X + (size_t)s * 3 * n;
    dy_rnea(m, d, par, x, x + n, x + 2*n, t);
    for (int j = 0; j < n; j++) {
      double e = Tq[(size_t)s*n + j] - t[j];
      se += e * e; sm += Tq[(size_t)s*n + j] * Tq[(size_t)s*n + j];
    }
  }
  dy_free_data(d);
  return 100 * sqrt(se / sm);
}

/* summed relative mass errors and com errors [m] of pi against the truth */
static void errors(int n, const double* pi, const double* pt, double* em, double* ec) {
  *em = *ec = 0;
  for (int j = 0; j < n; j++) {
    const double *a = pi + 10*j, *b = pt + 10*j;
    *em += fabs(a[DY_M] - b[DY_M]) / b[DY_M];
    double dc = 0;
    for (int k = 0; k < 3; k++) {
      double ca = a[DY_M] > 0 ? a[DY_MX + k] / a[DY_M] : 0, cb = b[DY_MX + k] / b[DY_M];
      dc += (ca - cb) * (ca - cb);
    }
    *ec += sqrt(dc);
  }
}

/* the bootstrap std of r against the spread of 6 independent estimates,
 * each on its own noise, at r's prior weight */
static void boot_vs_spread(const dyModel* truth, const dyiBase* b, int ns,
                           const dyiConsOpt* co, const dyiConsResult* r) {
  char err[DY_ERRSZ];
  int held = 0;
  for (int i = 0; i < b->nb; i++) held += r->held[i];
  double spread[DY_NPL * DY_MAXJ] = {0}, mean[DY_NPL * DY_MAXJ] = {0};
  const int reps = 6;
  double (*bs)[DY_NPL * DY_MAXJ] = calloc(reps, sizeof *bs);
  for (int k = 0; k < reps; k++) {
    th_rng = 1000 + k;
    dyiEstim* ek = fold(truth, b, truth->par, ns, 0.02, NULL, NULL);
    dyiConsOpt ck = *co;
    ck.weight = r->weight;
    ck.boot = 0;
    dyiConsResult rk;
    if (!dyi_consistent_est(truth, b, ek, &ck, &rk, err, sizeof err)) {
      for (int i = 0; i < b->nb; i++) { bs[k][i] = rk.beta[i]; mean[i] += rk.beta[i] / reps; }
      dyi_cons_free(&rk);
    }
    dyi_est_free(ek);
  }
  for (int k = 0; k < reps; k++)
    for (int i = 0; i < b->nb; i++) spread[i] += (bs[k][i] - mean[i]) * (bs[k][i] - mean[i]) / (reps - 1);
  /* the median ratio of the bootstrap std to the observed spread: the
   * spread of 6 estimates is itself uncertain (a factor ~1.5 either way) */
  double ratio[DY_NPL * DY_MAXJ];
  int nr = 0;
  for (int i = 0; i < b->nb; i++)
    if (!r->held[i] && spread[i] > 0) ratio[nr++] = r->std[i] / sqrt(spread[i]);
  qsort(ratio, (size_t)nr, sizeof ratio[0], dy_cmp_double);
  double med = nr ? ratio[nr / 2] : NAN;
  CHECK(nr > b->nb / 2 && med > 0.5 && med < 2, "bootstrap std agrees with the spread of independent estimates "
        "(median ratio %.3g over %d parameters; %d held)", med, nr, held);
  free(bs);
}

/* the nominal model given to the identification: the truth perturbed
 * (generator seeded 2718) */
static dyModel* perturbed_nominal(const dyModel* truth) {
  const int n = truth->n;
  dyModel* nom = dy_copy_model(truth);
  th_rng = 2718;
  for (int j = 0; j < n; j++) {
    double mass, c[3], Ic[6];
    dy_linkpar_to_com(truth->par + 10*j, &mass, c, Ic);
    mass *= th_uniform(0.7, 1.3);
    for (int k = 0; k < 3; k++) c[k] += th_uniform(-0.03, 0.03);
    double f = th_uniform(0.7, 1.3);   /* the tensor scaled as a whole stays a valid one */
    for (int k = 0; k < 6; k++) Ic[k] *= f;
    dy_linkpar_from_com(nom->par + 10*j, mass, c, Ic);
    for (int k = 0; k < 4; k++) nom->par[10*n + 4*j + k] = truth->par[10*n + 4*j + k] * th_uniform(0.7, 1.3);
  }
  return nom;
}

/* the held-out states X, their noisy torques Tn and (filled here) clean Tc */
typedef struct { int nh; double *X, *Tn, *Tc; } held_t;

/* the estimate with the nominal prior and bounds (co): certified, the weight
 * by cross-validation, plausible links, closer to the truth than the
 * nominal, held-out error at the noise floor, the bootstrap std; -1 if it fails */
static int check_sim_prior(const dyModel* truth, const dyModel* nom, const dyiBase* b, const dyiEstim* e,
                           const dyiConsOpt* co, held_t* h, int ns) {
  char err[DY_ERRSZ], why[1024];
  const int n = truth->n, nh = h->nh;
  dyiConsResult r;
  if (dyi_consistent_est(truth, b, e, co, &r, err, sizeof err)) { CHECK(0, "consistent: %s", err); return -1; }
  CHECK(r.certified, "simulated: certified (gap %.2g, status %d)", r.gap, r.solver_status);
  CHECK(r.ncv >= DYI_CV_NW && r.weight > 0, "the prior weight chosen by cross-validation: %.3g", r.weight);
  int nf = faults(nom, r.pi, why, sizeof why);
  CHECK(nf == 0, "simulated: every link plausible against the nominal given (%d faults:%s)", nf, why);
  double em, ec, em0, ec0;
  errors(n, r.pi, truth->par, &em, &ec);
  errors(n, nom->par, truth->par, &em0, &ec0);
  CHECK(em + ec / 0.1 < em0 + ec0 / 0.1, "closer to the truth than the nominal: masses %.3g vs %.3g (summed "
        "relative), com %.3g vs %.3g m (summed)", em, em0, ec, ec0);
  for (int s = 0; s < nh; s++) {   /* clean held-out torques for the floor */
    dyData* d = dy_make_data(truth);
    const double* x = h->X + (size_t)s * 3 * n;
    dy_rnea(truth, d, truth->par, x, x + n, x + 2*n, h->Tc + (size_t)s*n);
    dy_free_data(d);
  }
  double floor_n = heldout(truth, truth->par, h->X, h->Tn, nh), eh_n = heldout(truth, r.pi, h->X, h->Tn, nh);
  CHECK(eh_n <= 1.01 * floor_n, "held-out error at the noise floor: %.4g %% vs %.4g %%", eh_n, floor_n);
  (void)ns;   /* used by the plain build only */
#ifndef __SANITIZE_ADDRESS__   /* six more estimates: the plain build's */
  boot_vs_spread(truth, b, ns, co, &r);
#endif
  dyi_cons_free(&r);
  return 0;
}

/* a known total mass: the links' masses add up to it within 1 % */
static void check_total_mass(const dyModel* truth, const dyModel* nom, const dyiBase* b, const dyiEstim* e,
                             const dyiLinkBound* lb) {
  char err[DY_ERRSZ];
  const int n = truth->n;
  double total = 0, sum = 0;
  for (int j = 0; j < n; j++) total += truth->par[10*j + DY_M];
  dyiConsOpt ct = {.prior = nom->par, .weight = 1, .bounds = lb, .total_mass = 1.1 * total, .total_tol = 0.01};
  dyiConsResult r;
  if (dyi_consistent_est(truth, b, e, &ct, &r, err, sizeof err)) { CHECK(0, "total mass: %s", err); return; }
  for (int j = 0; j < n; j++) sum += r.pi[10*j + DY_M];
  CHECK(r.certified && fabs(sum / (1.1 * total) - 1) <= 0.01 * (1 + 1e-6), "--total-mass: the masses add up to "
        "%.4g kg of %.4g kg (certified %d)", sum, 1.1 * total, r.certified);
  dyi_cons_free(&r);
}

/* exact torques (generator seeded 5): certified, the data term's floor keeps
 * the program sound; held-out error against the clean torques */
static void check_exact(const dyModel* truth, const dyiBase* b, const dyiConsOpt* co, const held_t* h) {
  char err[DY_ERRSZ];
  th_rng = 5;
  dyiEstim* ex = fold(truth, b, truth->par, 1000, 0, NULL, NULL);
  dyiConsOpt cx = *co;
  cx.weight = -1;
  cx.boot = 0;
  dyiConsResult r;
  if (dyi_consistent_est(truth, b, ex, &cx, &r, err, sizeof err)) CHECK(0, "exact: %s", err);
  else {
    CHECK(r.certified, "exact torques: certified (gap %.2g, status %d)", r.gap, r.solver_status);
    double eex = heldout(truth, r.pi, h->X, h->Tc, h->nh);
    CHECK(eex < 0.01, "exact torques: held-out error %.3g %% < 0.01 %%", eex);
    dyi_cons_free(&r);
  }
  dyi_est_free(ex);
}

/* the simulated Panda identified with the perturbed nominal as prior and its
 * bounds, with a total mass, and from exact torques */
static void simulated_estimates(const dyModel* truth, const dyModel* nom, const dyiBase* b) {
  char err[DY_ERRSZ];
  const int n = truth->n, ns = 3000, nh = 1000;
  held_t h = {nh, malloc(sizeof(double) * (size_t)nh * 3 * n), malloc(sizeof(double) * (size_t)nh * n),
              malloc(sizeof(double) * (size_t)nh * n)};
  th_rng = 99;
  dyiEstim* e = fold(truth, b, truth->par, ns, 0.02, NULL, NULL);
  th_rng = 4242;
  dyiEstim* eh = fold(truth, b, truth->par, nh, 0.02, h.X, h.Tn);   /* held-out states, noisy torques */
  dyiLinkBound lb[DY_MAXJ];
  dyiBoundOpt bo = {.volumes = 1, .mass_lo = DYI_MASS_LO, .mass_hi = DYI_MASS_HI, .thick = DYI_THICK};
  CHECK(dyi_link_bounds(nom, nom->par, &bo, lb, NULL, 0, err, sizeof err) == 0, "bounds: %s", err);
  dyiConsOpt co = {.prior = nom->par, .weight = -1, .bounds = lb, .boot = TH_SWEEP(20), .seed = 7};
  if (check_sim_prior(truth, nom, b, e, &co, &h, ns) == 0) {
    check_total_mass(truth, nom, b, e, lb);
    check_exact(truth, b, &co, &h);
  }
  dyi_est_free(e);
  dyi_est_free(eh);
  free(h.X); free(h.Tn); free(h.Tc);
}

/* the Panda with joint friction as the truth, a perturbed copy as the nominal */
static void test_simulated(void) {
  char err[DY_ERRSZ];
  dyModel* truth = NULL;
  if (dy_load_model("datasets/models/panda.csv", NULL, &truth, err, sizeof err)) { CHECK(0, "%s", err); return; }
  const int n = truth->n;
  for (int j = 0; j < n; j++) {
    double* q = truth->par + 10*n + 4*j;
    q[DY_IA] = 0.02; q[DY_FV] = fabs(q[DY_FV]) + 0.05; q[DY_FC] = fabs(q[DY_FC]) + 0.1; q[DY_FO] = 0.05;
  }
  dyModel* nom = perturbed_nominal(truth);
  dyiBase* b = dyi_base_make(truth, DYI_SET_KHALIL, 1, err, sizeof err);
  if (!b) CHECK(0, "%s", err);
  else simulated_estimates(truth, nom, b);
  dyi_base_free(b);
  dy_free_model(truth);
  dy_free_model(nom);
}

/* ------------------------------------------------ exact log, bad input */
static void test_program(void) {
  char cmd[2048];
  const char* P = "datasets/models/panda.csv";
  snprintf(cmd, sizeof cmd, "./dynid excite %s --seed 3 --screen 0 --starts 2 --maxeval 200 --hops 0 -o %s/traj.csv && ./dynid simulate %s "
           "%s/traj.csv -o %s/exact.csv", P, T, P, T, T);
  CHECK(th_run(T, cmd) == 0, "an exact simulated log: %s", th_slurp("build/tests/plaus/stderr"));
  snprintf(cmd, sizeof cmd, "rm -f %s/exact.urdf; ./dynid identify %s %s/exact.csv --consistent --boot 0 --quiet "
           "--model-out %s/exact.urdf -o %s/exact.params.csv", T, P, T, T, T);
  CHECK(th_run(T, cmd) == 0, "identify --consistent on exact torques: %s", th_slurp("build/tests/plaus/stderr"));
  struct stat st;
  CHECK(stat("build/tests/plaus/exact.urdf", &st) == 0, "exact torques: the URDF is written");
  CHECK(strstr(th_slurp("build/tests/plaus/exact.params.csv"), "certified optimal") != NULL,
        "exact torques: certified");
  FILE* f = fopen("build/tests/plaus/far.csv", "w");
  fprintf(f, "joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n3,2,0,0,0.1,0.1,0.1\n");
  fclose(f);
  struct { const char* opt; int rc; const char* says; } bad[] = {
    {"--consistent --mass-range 3,1", 2, "LO > HI"},
    {"--consistent --mass-range 1", 2, "--mass-range must be LO,HI"},
    {"--mass-range 0.5,2", 2, "go with --consistent"},
    {"--consistent --total-mass -3", 2, "--total-mass must be a mass > 0"},
    {"--consistent --bounds build/tests/plaus/nothere.csv", 1, "nothere.csv"},
    {"--consistent --bounds build/tests/plaus/far.csv", 1, "link 3"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "rm -f %s/bad.csv; ./dynid identify %s %s/exact.csv --friction %s -o %s/bad.csv", T, P,
             T, bad[i].opt, T);
    int rc = th_run(T, cmd);
    const char* e = th_slurp("build/tests/plaus/stderr");
    /* bad input: one line; bad usage: its line and where to look */
    const char* nl = strchr(e, '\n');
    int one = nl && (!nl[1] || (bad[i].rc == 2 && strstr(nl + 1, "--help")));
    CHECK(rc == bad[i].rc && strstr(e, bad[i].says) && !strncmp(e, "dynid: ", 7) && one &&
          stat("build/tests/plaus/bad.csv", &st) != 0, "%s: exit %d, one line '%s'", bad[i].opt, rc, e);
  }
}

int main(void) {
  mkdir("build/tests/plaus", 0755);
  test_simulated();
  test_program();
#ifndef __SANITIZE_ADDRESS__
  test_real();   /* eight identifications of real logs: minutes under the sanitizers, run in the plain build */
#endif
  return test_report();
}
