/* SPDX-License-Identifier: MIT */
/* dynid tests: identification from logs, end to end (run from the
 * repository root after `make dynid`).
 *
 * Logs are written here from the library (Fourier trajectory of
 * ident/traj.h, torques by dy_rnea, %.17g so they read back exactly) and
 * read through the log reader without filtering (--cutoff none): the
 * samples are then exact and the only error left is round-off.
 *  - Noise-free logs of the shipped arms and random chains (revolute,
 *    prismatic, with and without friction) recover the true base
 *    parameters B pi_true to 1e-8 in every set (qr, khalil, lin; each
 *    must build on every one of these arms, all with gravity). The estimator
 *    never sees B: it sees only the log and Y_b = Y P, so a B, P or
 *    regressor that disagree fail this.
 *  - A noisy log through the whole pipeline (WLS): the whitened error
 *    chi^2 = d^T cov^-1 d, d = beta - beta_true, summed over several arms,
 *    is chi^2 with P = sum p dof (same criterion as test_estimate), and
 *    >= 95 % of the parameters are within 3 std.
 *  - `dynid simulate`: the torques it writes equal dy_rnea at the q, qd,
 *    qdd it writes (1e-12); its noise has the requested std (5 %: 3x
 *    10^4 draws give a relative sd of 0.4 %) and mean ~0; the same seed gives
 *    the same file, another seed another; --friction adds the joint terms.
 *  - `dynid identify` on a `dynid simulate` log (no filtering) writes a
 *    PARAMS file whose values equal B pi_true (1e-8) and whose expressions
 *    parse back to the rows of B (1e-12); the PARAMS reader gets the values
 *    back exactly and its realisation P beta gives the model's torques at
 *    random states (1e-7: beta is good to ~1e-10 relative); an arm with a joint that never
 *    moves is refused with exit 1, naming parameters, and no output file.
 *  - Filtered logs (default cutoff): with the torque filtered alone and not
 *    decimated (--no-parallel) the std are 2-3x too small (identify warns);
 *    with the default parallel filtering and decimation they match the
 *    (whitened) spread over repeated noise draws.
 *  - 10^6 samples read from a log file and identified with the peak RSS of
 *    this process staying under 100 MB (the stacked regressor would be
 *    10^6 x 2 x 7 x 8 B = 112 MB for this 2-joint arm, the file ~100 MB).
 *  - WLS on a log whose joints' noise differs up to 80x: its per-joint
 *    noise (its weights) equals the noise written into the log, its
 *    covariance is right (chi^2), and its squared error is well below
 *    OLS's (Gauss-Markov). */
#include "testmodels.h"
#include "teststats.h"
#include "ident/base.h"
#include "core/dynamics.h"
#include "ident/identify.h"
#include "core/io.h"
#include "ident/log.h"
#include "ident/params.h"
#include "ident/traj.h"
#include "core/util.h"
#include <lapacke.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static char tmp[256];

static int run(const char* cmd) { return th_run(tmp, cmd); }

/* x with 9 decimals (fast: printf of doubles costs ~1 us, too slow for
 * 10^7 numbers); |x| < 9e9 */
static void put9(FILE* o, double x) {
  char buf[32], *p = buf + sizeof buf;
  long long v = llround(fabs(x) * 1e9);
  *--p = 0;
  for (int k = 0; k < 9; k++) { *--p = (char)('0' + v % 10); v /= 10; }
  *--p = '.';
  do { *--p = (char)('0' + v % 10); v /= 10; } while (v);
  if (x < 0) *--p = '-';
  fputs(p, o);
}

/* write a log of the model along a random Fourier trajectory (from
 * traj_seed): tau_j = dy_rnea(par)_j (joint terms only with friction)
 * + e_j, e_j = sigma[j] N(0,1) (noise from seed; sigma: n per-joint std
 * [N m|N]); noise_ss, if not NULL, gets sum_k e_j(k)^2 per joint (n) */
static void write_log2(const char* path, const dyModel* m, int friction, int ns, double rate,
                       const double* sigma, unsigned long long traj_seed, unsigned long long seed,
                       int fixed9, double* noise_ss) {
  int n = m->n, np = dy_npar(m);
  dyiFourier f;
  char err[256];
  dyi_fourier_random(&f, m, 5, ns / rate, traj_seed, err, sizeof err);
  double* par = malloc(sizeof(double) * (size_t)np);
  memcpy(par, m->par, sizeof(double) * (size_t)np);
  if (!friction) memset(par + 10 * n, 0, sizeof(double) * (size_t)(4 * n));
  dyData* d = dy_make_data(m);
  FILE* o = fopen(path, "w");
  unsigned long long s = seed * 7 + 1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  dyi_traj_header(o, n, 1);
  if (noise_ss) memset(noise_ss, 0, sizeof(double) * (size_t)n);
  for (int k = 0; k < ns; k++) {
    double t = k / rate;
    dyi_fourier_eval(&f, t, q, qd, qdd);
    dy_rnea(m, d, par, q, qd, qdd, tau);
    for (int j = 0; j < n; j++) {
      double e = sigma[j] * dyi_rng_gauss(&s);
      tau[j] += e;
      if (noise_ss) noise_ss[j] += e * e;
    }
    if (!fixed9) dyi_traj_row(o, n, t, q, qd, qdd, tau);
    else {
      put9(o, t);
      const double* v[4] = {q, qd, qdd, tau};
      for (int a = 0; a < 4; a++) for (int j = 0; j < n; j++) { fputc(',', o); put9(o, v[a][j]); }
      fputc('\n', o);
    }
  }
  fclose(o);
  dy_free_data(d);
  free(par);
}

/* the same with noise sigma on every joint, trajectory and noise from seed */
static void write_log(const char* path, const dyModel* m, int friction, int ns, double rate,
                      double sigma, unsigned long long seed, int fixed9) {
  double sj[DY_MAXJ];
  for (int j = 0; j < m->n; j++) sj[j] = sigma;
  write_log2(path, m, friction, ns, rate, sj, seed, seed, fixed9, NULL);
}

/* beta_true = B pi (pi: the model's parameters, joint ones zero without friction) */
static void true_beta(const dyModel* m, const dyiBase* b, double* bt) {
  for (int i = 0; i < b->nb; i++) {
    double s = 0;
    for (int k = 0; k < b->npar; k++) s += b->B[(size_t)i * (size_t)b->npar + (size_t)k] * m->par[k];
    bt[i] = s;
  }
}

/* chi^2 = d^T cov^-1 d (Cholesky of a copy): for an unbiased estimate with
 * the right covariance it is chi^2-distributed with p degrees of freedom
 * (mean p, sd sqrt(2p)), whatever the correlations between parameters */


static dyiLogReader* open_log(const char* path, int n) {
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  lo.cutoff_hz = -1;   /* no filtering: exact samples */
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(path, n, &lo, err, sizeof err);
  CHECK(r != NULL, "log open: %s", err);
  return r;
}

/* noise-free recovery in every set for one model */
static void check_model(const dyModel* m, int friction, const char* what) {
  static const char* const sets[3] = {"qr", "khalil", "lin"};
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/clean.csv", tmp);
  write_log(path, m, friction, 1500, 100.0, 0, 11, 0);
  for (int si = 0; si < 3; si++) {
    dyiBase* b = dyi_base_make(m, dyi_base_set_parse(sets[si], NULL, 0), friction, err, sizeof err);
    CHECK(b != NULL, "%s set %s friction %d: %s", what, sets[si], friction, err);
    if (!b) continue;
    double* bt = malloc(sizeof(double) * (size_t)b->nb);
    true_beta(m, b, bt);
    for (int meth = 0; meth < 3; meth += 2) {
      dyiLogReader* r = open_log(path, m->n);
      if (!r) break;
      dyiEstOpt o;
      dyi_est_defaults(&o);
      o.method = (dyiMethod)meth;
      dyiEstim* e = dyi_identify(m, b, r, &o, NULL, err, sizeof err);
      CHECK(e != NULL, "%s set %s: %s", what, sets[si], err);
      if (e) {
        double re = rel_err(e->beta, bt, b->nb);
        CHECK(re < 1e-8 && e->samples == 1500, "%s set %s method %d friction %d: %d base parameters, "
              "rel err %.3g, cond %.4g (%.4g scaled)", what, sets[si], meth, friction, b->nb, re,
              e->cond, e->cond_scaled);
      }
      dyi_est_free(e);
      dyi_log_close(r);
    }
    free(bt);
    dyi_base_free(b);
  }
}

static void test_noise_free(void) {
  static const char* const models[] = {"planar3r", "puma560", "stanford", "renaud6r", "panda"};
  char path[256], err[DY_ERRSZ];
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "datasets/models/%s.csv", models[i]);
    dyModel* m = NULL;
    dyLoadOpt lo;
    memset(&lo, 0, sizeof lo);
    if (dy_load_model(path, &lo, &m, err, sizeof err)) { CHECK(0, "%s", err); continue; }
    check_model(m, m->has_friction, models[i]);
    if (!m->has_friction) check_model(m, 1, models[i]);
    dy_free_model(m);
  }
  for (int t = 0; t < 4; t++) {
    dyModel* m = th_random_model(3 + t, t >= 2 ? 0.3 : 0, 0, t % 2);
    char what[32];
    snprintf(what, sizeof what, "random %dDOF", m->n);
    check_model(m, t % 2, what);
    dy_free_model(m);
  }
}

static void test_noisy(void) {
  /* normalised errors over the base parameters of several random arms: see
   * test_estimate.c for the bounds (mean sd <= 1/sqrt(M), variance sd
   * sqrt(2/M)) */
  double sz = 0, szz = 0, c2 = 0;
  int M = 0, in3 = 0;
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/noisy.csv", tmp);
  for (int t = 0; t < 6; t++) {
    dyModel* m = th_random_model(4 + t % 3, 0.1, 0.3, 1);
    write_log(path, m, 1, 1200, 100.0, 0.05, 500 + (unsigned)t, 0);
    dyiBase* b = dyi_base_make(m, DYI_SET_QR, 1, err, sizeof err);
    CHECK(b != NULL, "qr set: %s", err);
    if (!b) { dy_free_model(m); continue; }
    double* bt = malloc(sizeof(double) * (size_t)b->nb);
    true_beta(m, b, bt);
    dyiLogReader* r = open_log(path, m->n);
    dyiEstOpt o;
    dyi_est_defaults(&o);
    o.method = DYI_WLS;
    dyiEstim* e = r ? dyi_identify(m, b, r, &o, NULL, err, sizeof err) : NULL;
    CHECK(e != NULL, "noisy identify: %s", err);
    if (e) {
      double* dv = malloc(sizeof(double) * (size_t)b->nb);
      for (int k = 0; k < b->nb; k++) {
        double z = (e->beta[k] - bt[k]) / e->std[k];
        sz += z; szz += z * z; M++; in3 += fabs(z) < 3;
        dv[k] = e->beta[k] - bt[k];
      }
      c2 += chi2(e->cov, dv, b->nb);
      free(dv);
    }
    dyi_est_free(e); dyi_log_close(r); free(bt); dyi_base_free(b); dy_free_model(m);
  }
  double mean = sz / M, var = szz / M - mean * mean, lim = 4 * sqrt(2.0 / M);
  CHECK(M >= 150 && fabs(c2 / M - 1) < lim && in3 >= 0.95 * M, "noisy logs: %d parameters, chi^2/dof "
        "%.3f (limit 1 +- %.3f), %d within 3 std", M, c2 / M, lim, in3);
  printf("noisy logs: %d parameters: chi^2/dof %.3f; normalised errors mean %.3f, variance %.3f, %d "
         "within 3 std\n", M, c2 / M, mean, var, in3);
}

/* read a simulate log: returns rows; fills q,qd,qdd,tau (row-major n each) */
static int read_log(const char* path, int n, double* v, int maxrows) {
  char err[DY_ERRSZ];
  dyCsv* c = dy_csv_open(path, err, sizeof err);
  if (!c) return -1;
  char** f; int nf, rows = 0;
  if (dy_csv_next(c, &f, &nf, err, sizeof err) != 1 || nf != 1 + 4 * n) { dy_csv_close(c); return -1; }
  while (rows < maxrows && dy_csv_next(c, &f, &nf, err, sizeof err) == 1) {
    for (int k = 0; k < nf && k < 1 + 4 * n; k++)
      if (dy_csv_double(c, f[k], k, 0, &v[(size_t)rows * (size_t)(1 + 4 * n) + (size_t)k], err, sizeof err)) {
        dy_csv_close(c);
        return -1;
      }
    rows++;
  }
  dy_csv_close(c);
  return rows;
}

/* the file of the last command's stderr */
static const char* err_file(void) {
  static char ef[300];
  snprintf(ef, sizeof ef, "%s/stderr", tmp);
  return ef;
}

/* `dynid simulate` of m (the file model) into a, read into v (W = 1 + 4n
 * numbers a row): its torques equal dy_rnea at its q, qd, qdd; returns the rows */
static int check_sim_torque(const char* model, const dyModel* m, const char* a, double* v) {
  char cmd[1024];
  int n = m->n, W = 1 + 4 * n;
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --duration 5 --rate 1000 --seed 4 -o %s", model, a);
  CHECK(run(cmd) == 0, "simulate fourier: %s", th_slurp(err_file()));
  int rows = read_log(a, n, v, 6000);
  CHECK(rows == 5000, "simulate: %d rows", rows);
  dyData* d = dy_make_data(m);
  double par[14 * DY_MAXJ], tau[DY_MAXJ], worst = 0;
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  memset(par + 10 * n, 0, sizeof(double) * (size_t)(4 * n));
  for (int r = 0; r < rows; r++) {
    double* x = v + (size_t)r * (size_t)W;
    dy_rnea(m, d, par, x + 1, x + 1 + n, x + 1 + 2 * n, tau);
    double sc = 1;
    for (int j = 0; j < n; j++) sc = fmax(sc, fabs(tau[j]));
    for (int j = 0; j < n; j++) worst = fmax(worst, fabs(x[1 + 3 * n + j] - tau[j]) / sc);
  }
  CHECK(worst < 1e-12, "simulate torque vs dy_rnea: %.3g", worst);
  dy_free_data(d);
  return rows;
}

/* noise: a per-joint list into b2 (read into w) changes only the torque, by
 * the requested std with mean ~0, against the noise-free rows v */
static void check_sim_noise(const char* model, int n, const char* b2, const double* v, int rows, double* w) {
  char cmd[1024];
  int W = 1 + 4 * n;
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --duration 5 --rate 1000 --seed 4 "
           "--noise 0.5,0.5,0.5,0.2,0.2,0.2 -o %s", model, b2);
  CHECK(run(cmd) == 0, "simulate with noise: %s", th_slurp(err_file()));
  int rows2 = read_log(b2, n, w, 6000);
  double s1[2] = {0, 0}, s2[2] = {0, 0};
  int same_traj = rows2 == rows;
  for (int r = 0; r < rows2 && same_traj; r++) {
    double* x = w + (size_t)r * (size_t)W;
    for (int k = 0; k < 1 + 3 * n; k++) same_traj &= x[k] == v[(size_t)r * (size_t)W + (size_t)k];
    for (int j = 0; j < n; j++) {
      double e = x[1 + 3 * n + j] - v[(size_t)r * (size_t)W + (size_t)(1 + 3 * n + j)];
      s1[j >= 3] += e; s2[j >= 3] += e * e;
    }
  }
  CHECK(same_traj, "noise changes only the torque");
  for (int g = 0; g < 2; g++) {
    double N = 3.0 * rows2, mu = s1[g] / N, sd = sqrt(s2[g] / N - mu * mu), want = g ? 0.2 : 0.5;
    /* 15000 draws: sd of the sample sd 0.6 %, of the mean 0.8 % of sigma */
    CHECK(fabs(sd / want - 1) < 0.05 && fabs(mu) < 0.05 * want, "simulate noise group %d: sd %.4f "
          "(want %.2f), mean %.4f", g, sd, want, mu);
  }
}

/* determinism: the same seed gives b2 again (into c3), another seed not a */
static void check_sim_seeds(const char* model, const char* a, const char* b2, const char* c3) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --duration 5 --rate 1000 --seed 4 "
           "--noise 0.5,0.5,0.5,0.2,0.2,0.2 -o %s", model, c3);
  CHECK(run(cmd) == 0, "simulate again with the same seed: %s", th_slurp(err_file()));
  {  /* the same after the provenance lines (which name the output file) */
    const char* x = th_slurp(b2);
    const char* y = th_slurp(c3);
    x = strstr(x, "\nt,"); y = strstr(y, "\nt,");
    CHECK(x && y && !strcmp(x, y), "same seed, same file (first 64 kB, after the '#' lines)");
  }
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --duration 5 --rate 1000 --seed 5 -o %s",
           model, c3);
  CHECK(run(cmd) == 0, "simulate with another seed: %s", th_slurp(err_file()));
  {  /* compared after the provenance lines, which differ anyway (they name the file) */
    const char* x = strstr(th_slurp(a), "\nt,");
    const char* y = strstr(th_slurp(c3), "\nt,");
    CHECK(x && y && strcmp(x, y) != 0, "another seed, another trajectory (after the '#' lines)");
  }
}

/* a trajectory file as input (a, whose rows are v): the log again, exactly;
 * then the refusals (--friction without joint parameters, a wrong --noise count) */
static void check_sim_trajfile(const char* model, int n, const char* a, const char* c3, const double* v, int rows,
                               double* w) {
  char cmd[1024];
  int W = 1 + 4 * n;
  snprintf(cmd, sizeof cmd, "./dynid simulate %s %s -o %s", model, a, c3);
  CHECK(run(cmd) == 0, "simulate from a trajectory file: %s", th_slurp(err_file()));
  int rows3 = read_log(c3, n, w, 6000), eq = rows3 == rows;
  for (int r = 0; r < rows3 && eq; r++)
    for (int k = 0; k < W; k++) eq &= w[(size_t)r * (size_t)W + (size_t)k] == v[(size_t)r * (size_t)W + (size_t)k];
  CHECK(eq, "simulate from the trajectory file reproduces the log exactly");
  /* --friction on a model without joint parameters: exit 1, no file */
  remove(c3);
  snprintf(cmd, sizeof cmd, "./dynid simulate datasets/models/planar3r.csv fourier --friction -o %s", c3);
  CHECK(run(cmd) == 1 && access(c3, F_OK) != 0, "--friction without joint parameters refused");
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --noise 1,2 -o %s", model, c3);
  CHECK(run(cmd) == 2, "--noise with a wrong count is bad usage");
}

/* --friction adds IA qdd + FV qd + FC sign(qd) + FO on the Panda */
static void check_sim_friction(const char* c3) {
  char cmd[1024], err[DY_ERRSZ];
  dyModel* pm = NULL;
  dyLoadOpt lo;
  memset(&lo, 0, sizeof lo);
  if (dy_load_model("datasets/models/panda.csv", &lo, &pm, err, sizeof err) != 0) return;
  snprintf(cmd, sizeof cmd, "./dynid simulate datasets/models/panda.csv fourier --duration 1 "
           "--rate 200 --friction -o %s", c3);
  CHECK(run(cmd) == 0, "simulate --friction: %s", th_slurp(err_file()));
  int pn = pm->n, PW = 1 + 4 * pn;
  double* x = malloc(sizeof(double) * 300 * (size_t)PW);
  int pr = read_log(c3, pn, x, 300);
  dyData* pd = dy_make_data(pm);
  double wf = 0, fmag = 0;
  for (int r = 0; r < pr; r++) {
    double* y = x + (size_t)r * (size_t)PW, t0[DY_MAXJ];
    dy_rnea_g(pm, pd, pm->par, y + 1, y + 1 + pn, y + 1 + 2 * pn, pm->gravity, 0, t0);
    for (int j = 0; j < pn; j++) {
      const double* pj = pm->par + 10 * pn + 4 * j;
      double qdj = y[1 + pn + j], fr = pj[DY_IA] * y[1 + 2 * pn + j] + pj[DY_FV] * qdj +
                   pj[DY_FC] * (qdj > 0 ? 1 : qdj < 0 ? -1 : 0) + pj[DY_FO];
      wf = fmax(wf, fabs(y[1 + 3 * pn + j] - t0[j] - fr) / fmax(1, fabs(t0[j])));
      fmag = fmax(fmag, fabs(fr));
    }
  }
  CHECK(pr == 200 && fmag > 0.01 && wf < 1e-12, "simulate --friction = rigid body + joint terms "
        "(%.3g; joint terms up to %.3g)", wf, fmag);
  free(x); dy_free_data(pd); dy_free_model(pm);
}

/* `dynid simulate`: torques, noise, seeds, a trajectory file, refusals, friction */
static void test_simulate(void) {
  char a[300], b2[300], c3[300];
  const char* model = "datasets/models/puma560.csv";
  snprintf(a, sizeof a, "%s/s1.csv", tmp);
  snprintf(b2, sizeof b2, "%s/s2.csv", tmp);
  snprintf(c3, sizeof c3, "%s/s3.csv", tmp);
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  dyLoadOpt lo;
  memset(&lo, 0, sizeof lo);
  if (dy_load_model(model, &lo, &m, err, sizeof err)) { CHECK(0, "%s", err); return; }
  int n = m->n, W = 1 + 4 * n;
  double* v = malloc(sizeof(double) * 6000 * (size_t)W);
  double* w = malloc(sizeof(double) * 6000 * (size_t)W);
  int rows = check_sim_torque(model, m, a, v);
  check_sim_noise(model, n, b2, v, rows, w);
  check_sim_seeds(model, a, b2, c3);
  check_sim_trajfile(model, n, a, c3, v, rows, w);
  check_sim_friction(c3);
  free(v); free(w); dy_free_model(m);
}

/* the PARAMS file out of set b: the header, the values into val, each row's
 * name and expression against the set's B rows (exprs_ok); returns the rows */
static int read_params_rows(const char* out, const dyModel* m, const dyiBase* b, double* val, int* hdr,
                            int* exprs_ok) {
  char err[DY_ERRSZ];
  double* row = malloc(sizeof(double) * (size_t)b->npar);
  dyCsv* c = dy_csv_open(out, err, sizeof err);
  char** f; int nf, k = 0;
  *hdr = 0; *exprs_ok = 1;
  while (c && dy_csv_next(c, &f, &nf, err, sizeof err) == 1) {
    if (!*hdr) {
      *hdr = nf == 5 && !strcmp(f[0], "name") && !strcmp(f[1], "value") && !strcmp(f[2], "std") &&
             !strcmp(f[3], "rel_std_pct") && !strcmp(f[4], "expression");
      continue;
    }
    if (k < b->nb && nf == 5) {
      val[k] = strtod(f[1], NULL);
      *exprs_ok &= !strcmp(f[0], b->name[k]);
      if (dyi_expr_parse(m, b->npar, f[4], row, err, sizeof err)) *exprs_ok = 0;
      else
        for (int q = 0; q < b->npar; q++)
          *exprs_ok &= fabs(row[q] - b->B[(size_t)k * (size_t)b->npar + (size_t)q]) <=
                       1e-12 * fmax(1, fabs(b->B[(size_t)k * (size_t)b->npar + (size_t)q]));
    }
    k++;
  }
  dy_csv_close(c);
  free(row);
  return k;
}

/* the PARAMS reader (ident/params.h) gets the values val back exactly, and
 * its realisation pi = P beta gives the torques of the true model */
static void check_params_realised(const dyModel* m, const dyiBase* b, const char* out, const double* val) {
  char err[DY_ERRSZ];
  dyiParams* pr = dyi_params_read(out, m, err, sizeof err);
  CHECK(pr != NULL, "PARAMS read back: %s", err);
  if (!pr) return;
  int same = pr->base->nb == b->nb;
  for (int q = 0; same && q < b->nb; q++) same &= pr->value[q] == val[q];
  CHECK(same, "PARAMS values read back exactly");
  double par[14 * DY_MAXJ], qq[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ], w = 0;
  dyi_params_realise(m, pr, par);
  dyData* d = dy_make_data(m);
  for (int trial = 0; trial < 5; trial++) {
    th_random_state(m->n, qq, qd, qdd);
    dy_rnea(m, d, par, qq, qd, qdd, t1);
    dy_rnea(m, d, m->par, qq, qd, qdd, t2);
    for (int j = 0; j < m->n; j++) w = fmax(w, fabs(t1[j] - t2[j]) / fmax(1, fabs(t2[j])));
  }
  CHECK(w < 1e-7, "identified realisation reproduces the model's torques: %.3g", w);
  dy_free_data(d);
  dyi_params_free(pr);
}

/* `dynid identify --set set` on the noise-free log: the PARAMS file's comment
 * lines, header, names and expressions, values B pi_true, read back */
static void check_identify_set(const char* model, const dyModel* m, const char* log, const char* out,
                               const char* set) {
  char cmd[1024], err[DY_ERRSZ];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --set %s --cutoff none -o %s", model, log, set, out);
  int rc = run(cmd);
  CHECK(rc == 0, "identify --set %s: exit %d: %s", set, rc, th_slurp(err_file()));
  CHECK(strstr(th_slurp(err_file()), "condition number") != NULL, "identify prints a summary");
  dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), 0, err, sizeof err);
  if (!b) { CHECK(0, "%s", err); return; }
  double* bt = malloc(sizeof(double) * (size_t)b->nb), *val = malloc(sizeof(double) * (size_t)b->nb);
  true_beta(m, b, bt);
  int hdr, exprs_ok;
  const char* txt = th_slurp(out);
  CHECK(strstr(txt, "# set: ") && strstr(txt, "# method: ols") && strstr(txt, "# samples: 1600") &&
        strstr(txt, "# condition number: "), "PARAMS comment lines");
  int k = read_params_rows(out, m, b, val, &hdr, &exprs_ok);
  CHECK(hdr && k == b->nb, "PARAMS header and %d rows (%d base parameters)", k, b->nb);
  CHECK(exprs_ok, "PARAMS names and expressions = the set's B rows");
  if (k == b->nb) {
    double re = rel_err(val, bt, b->nb);
    CHECK(re < 1e-8, "dynid identify --set %s: rel err %.3g", set, re);
    check_params_realised(m, b, out, val);
  }
  free(bt); free(val); dyi_base_free(b);
}

/* a joint that never moves: refused, parameters named, no output; a bad
 * --method is bad usage */
static void check_still_joint(const char* model, const dyModel* m, const char* log, const char* out) {
  char cmd[1024], err[DY_ERRSZ], traj[300];
  dyiFourier fr;
  dyi_fourier_random(&fr, m, 5, 8.0, 3, err, sizeof err);
  for (int l = 0; l < fr.nh; l++) fr.a[l][1] = fr.b[l][1] = 0;
  snprintf(traj, sizeof traj, "%s/still.csv", tmp);
  FILE* fo = fopen(traj, "w");
  dyi_traj_write(fo, &fr, 8.0, 200.0);
  fclose(fo);
  snprintf(cmd, sizeof cmd, "./dynid simulate %s %s -o %s", model, traj, log);
  CHECK(run(cmd) == 0, "simulate a still joint");
  remove(out);
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --cutoff none -o %s", model, log, out);
  int rc = run(cmd);
  const char* msg = th_slurp(err_file());
  CHECK(rc == 1 && access(out, F_OK) != 0 && !strncmp(msg, "dynid: ", 7) &&
        (strstr(msg, "rank deficient") || strstr(msg, "is zero")), "still joint refused: exit %d: %s", rc, msg);
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --method nope -o %s", model, log, out);
  CHECK(run(cmd) == 2, "identify --method nope is bad usage");
}

/* `dynid identify` on a `dynid simulate` log of the Stanford arm */
static void test_identify_cmd(void) {
  char cmd[1024], log[300], out[300], err[DY_ERRSZ];
  const char* model = "datasets/models/stanford.csv";
  snprintf(log, sizeof log, "%s/id.csv", tmp);
  snprintf(out, sizeof out, "%s/params.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid simulate %s fourier --duration 8 --rate 200 --seed 9 -o %s", model, log);
  CHECK(run(cmd) == 0, "simulate for identify");
  dyModel* m = NULL;
  dyLoadOpt lo;
  memset(&lo, 0, sizeof lo);
  if (dy_load_model(model, &lo, &m, err, sizeof err)) { CHECK(0, "%s", err); return; }
  static const char* const sets[2] = {"qr", "khalil"};
  for (int si = 0; si < 2; si++) check_identify_set(model, m, log, out, sets[si]);
  check_still_joint(model, m, log, out);
  dy_free_model(m);
}

static void test_big_log(void) {
  /* 10^6 samples of a random 2-joint arm with friction (nb = 12 or so) */
  dyModel* m = th_random_model(2, 0, 0.3, 1);
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/big.csv", tmp);
  double t0 = dy_now_s();
  write_log(path, m, 1, 1000000, 1000.0, 0.01, 77, 1);
  double t1 = dy_now_s();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long before = ru.ru_maxrss;
  dyiBase* b = dyi_base_make(m, DYI_SET_QR, 1, err, sizeof err);
  dyiLogReader* r = open_log(path, m->n);
  dyiEstim* e = b && r ? dyi_identify(m, b, r, NULL, NULL, err, sizeof err) : NULL;
  getrusage(RUSAGE_SELF, &ru);
  printf("10^6-sample log: written in %.1f s, identified in %.1f s\n", t1 - t0, dy_now_s() - t1);
  CHECK(e && e->samples == 1000000, "10^6-sample log identified: %s", e ? "" : err);
  if (e) {
    double* bt = malloc(sizeof(double) * (size_t)b->nb), zmax = 0;
    true_beta(m, b, bt);
    /* printing with 9 decimals adds 5e-10 rounding: far below the 0.01 noise */
    for (int k = 0; k < b->nb; k++) zmax = fmax(zmax, fabs(e->beta[k] - bt[k]) / e->std[k]);
    CHECK(zmax < 5, "10^6 samples: max normalised error %.2f", zmax);
    free(bt);
  }
#ifdef __SANITIZE_ADDRESS__
  long cap = before + 20 * 1024;   /* ASan's shadow memory: only the growth is meaningful */
#else
  long cap = 100 * 1024;
#endif
  CHECK(ru.ru_maxrss < cap && ru.ru_maxrss - before < 20 * 1024,
        "10^6-sample log: peak RSS %ld kB (before %ld kB)", ru.ru_maxrss, before);
  printf("10^6-sample log (2 joints, %d base parameters): peak RSS %ld kB (before %ld kB)\n",
         b ? b->nb : 0, ru.ru_maxrss, before);
  dyi_est_free(e); dyi_log_close(r); dyi_base_free(b); dy_free_model(m);
  remove(path);
}

/* The per-joint noise WLS estimated, pooled over R draws as
 * sqrt(mean sigma_j^2) (its rows were weighted by 1/sigma_j), against the
 * noise in the log (sig: true std, ssr: realised sum of squares over the
 * nj equations). Per draw, of N = nj / R samples, sigma_j^2 (N - p_j) =
 * ||r_j||^2 = ||e_j||^2 minus the part of the noise the fit absorbs: about
 * h_j sigma^2, h_j in [0, p_j] the leverage of joint j's rows, sd
 * ~sqrt(2 p_j) sigma^2. Bounds on sigma_j (half those on sigma_j^2):
 *   against the realised noise  fit_j  = p_j / (2N) + 4 sqrt(2 p_j) / (2N sqrt R)
 *   against the true std        fit_j + 4 / sqrt(2 nj)   (sd of a sample sd)
 *   weight ratio sigma_1 / sigma_j against the true one
 *                               fit_1 + fit_j + 4 / sqrt(nj)
 * Returns the largest relative error against the true std. */
static double wls_check_noise(int n, int R, const double* sig, const double* s2, const double* ssr,
                              const long* nj, const int* pj) {
  double worst = 0, fit[DY_MAXJ];
  for (int j = 0; j < n; j++) {
    double N = (double)nj[j] / R;
    fit[j] = pj[j] / (2 * N) + 2 * sqrt(2.0 * pj[j]) / (N * sqrt((double)R));
  }
  for (int j = 0; j < n; j++) {
    double sj = sqrt(s2[j]), sr = sqrt(ssr[j] / (double)nj[j]), e_real = sj / sr - 1, e_true = sj / sig[j] - 1;
    double lim = fit[j] + 4 / sqrt(2.0 * (double)nj[j]);
    double ratio = sqrt(s2[0]) / sj, want = sig[0] / sig[j], rlim = fit[0] + fit[j] + 4 / sqrt((double)nj[j]);
    worst = fmax(worst, fabs(e_true));
    CHECK(nj[j] > 0 && fabs(e_real) < fit[j], "wls: joint %d noise %.5g, in the log %.5g (rel %.3g, limit "
          "%.3g; %ld equations, %d columns)", j + 1, sj, sr, e_real, fit[j], nj[j], pj[j]);
    CHECK(fabs(e_true) < lim, "wls: joint %d noise %.5g, true %.5g (rel %.3g, limit %.3g)", j + 1, sj,
          sig[j], e_true, lim);
    if (j) CHECK(fabs(ratio / want - 1) < rlim, "wls: weight of joint %d / joint 1 %.4g, true %.4g (rel "
                 "%.3g, limit %.3g)", j + 1, ratio, want, ratio / want - 1, rlim);
  }
  return worst;
}

/* WLS through the whole pipeline, on a log whose joints have very
 * different noise (std 0.4, 0.02, 0.1, 0.005 N m: up to 80x), R = 8 noise
 * draws on one trajectory, each identified by OLS and WLS:
 *  - WLS's per-joint noise, i.e. its weights, match the log's
 *    (wls_check_noise);
 *  - the whitened error chi^2 = d^T cov^-1 d, d = beta - beta_true, summed
 *    over the draws, is chi^2 with R p dof (the WLS covariance is right):
 *    chi^2 / (R p) = 1 +- 4 sqrt(2 / (R p));
 *  - WLS beats OLS: by Gauss-Markov, WLS with the true weights has the
 *    smallest covariance of the linear unbiased estimates, so every
 *    parameter's mean squared error is below OLS's. Measured as
 *    E = sum over draws and parameters of (beta_k - beta_true_k)^2 / s_k^2
 *    (s_k: WLS std of the first draw, a fixed scale), E_wls must be below
 *    E_ols / 10. E_wls ~ R p, and E_ols / E_wls measured 111 when written
 *    (printed; 44-115 on other random arms): the noisy joint's errors leak
 *    into every OLS parameter. Each E is a sum of R p ~ 300 squared errors
 *    (relative sd ~10-20 %), so a tenth leaves a wide margin and still
 *    fails if the weights are not applied (ratio ~1). */
static void test_wls(void) {
  static const double sig[4] = {0.4, 0.02, 0.1, 0.005};
  enum { R = 8, NS = 2000 };
  dyModel* m = th_random_model(4, 0, 0.3, 1);
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/wls.csv", tmp);
  dyiBase* b = dyi_base_make(m, DYI_SET_QR, 1, err, sizeof err);
  CHECK(b != NULL, "wls: qr set: %s", err);
  if (!b) { dy_free_model(m); return; }
  int p = b->nb, n = m->n, ok = 1, pj[DY_MAXJ] = {0};
  double *bt = malloc(sizeof(double) * (size_t)p), *sc = malloc(sizeof(double) * (size_t)p);
  double *dv = malloc(sizeof(double) * (size_t)p), E[2] = {0, 0}, c2 = 0, s2[DY_MAXJ] = {0};
  double ss[DY_MAXJ], ssr[DY_MAXJ] = {0};
  long nj[DY_MAXJ] = {0};
  true_beta(m, b, bt);
  for (int r = 0; r < R && ok; r++) {
    write_log2(path, m, 1, NS, 100.0, sig, 700, 700 + (unsigned)r, 0, ss);
    for (int j = 0; j < n; j++) ssr[j] += ss[j];
    for (int meth = 1; meth >= 0; meth--) {   /* WLS first: its std are the scale */
      dyiLogReader* rd = open_log(path, n);
      dyiEstOpt o;
      dyi_est_defaults(&o);
      o.method = meth ? DYI_WLS : DYI_OLS;
      dyiEstim* e = rd ? dyi_identify(m, b, rd, &o, NULL, err, sizeof err) : NULL;
      CHECK(e != NULL, "wls: identify (method %d, draw %d): %s", meth, r, err);
      if (!e) { ok = 0; dyi_log_close(rd); break; }
      if (r == 0 && meth) memcpy(sc, e->std, sizeof(double) * (size_t)p);
      for (int k = 0; k < p; k++) {
        dv[k] = e->beta[k] - bt[k];
        E[meth] += dv[k] * dv[k] / (sc[k] * sc[k]);
      }
      if (meth) {
        c2 += chi2(e->cov, dv, p);
        for (int j = 0; j < n; j++) {
          s2[j] += e->sigma_j[j] * e->sigma_j[j] / R;
          nj[j] += e->rows_j[j];
          dyi_est_cols(e, j, &pj[j]);
        }
      }
      dyi_est_free(e);
      dyi_log_close(rd);
    }
  }
  if (ok) {
    double worst = wls_check_noise(n, R, sig, s2, ssr, nj, pj), lim = 4 * sqrt(2.0 / (R * p));
    CHECK(fabs(c2 / (R * p) - 1) < lim, "wls: chi^2/dof %.3f (limit 1 +- %.3f, %d dof)", c2 / (R * p), lim,
          R * p);
    CHECK(E[1] < 0.1 * E[0], "wls: squared error %.4g, ols %.4g (WLS must be below a tenth)", E[1], E[0]);
    printf("wls, %d draws, %d parameters, noise 0.4..0.005 N m: per-joint noise within %.2f %% of the true "
           "std, chi^2/dof %.3f, squared error ols/wls %.1f\n", R, p, 100 * worst, c2 / (R * p), E[0] / E[1]);
  }
  free(bt); free(sc); free(dv);
  dyi_base_free(b);
  dy_free_model(m);
}

/* OpenBLAS threads only cost on these ~60-column problems (their start-up outweighs the work) */
void openblas_set_num_threads(int num_threads);

/* the reader's default cutoff decides the decimation of the log at path: D > 1 */
static int default_decim(const char* path, int n) {
  char err[DY_ERRSZ];
  int D = 0;
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  dyiLogReader* rd = dyi_log_open(path, n, &lo, err, sizeof err);
  dyiLogInfo li;
  if (rd) { dyi_log_info(rd, &li); D = li.decim; }
  CHECK(rd && D > 1, "default cutoff: %s", rd ? "" : err);
  dyi_log_close(rd);
  return D;
}

/* draw r of R: the estimate and covariance (p parameters) of the log at path
 * read three ways (dec 0: torque filtered alone, 1: parallel filtering, 2:
 * not filtered) into beta and cov at dec R + r; 0 if one fails */
static int filtered_draw(const dyModel* m, const dyiBase* b, const char* path, int r, int R, double* beta,
                         double* cov) {
  char err[DY_ERRSZ];
  const int p = b->nb;
  for (int dec = 0; dec < 3; dec++) {
    dyiLogOpt lo;
    dyi_log_defaults(&lo);
    lo.no_parallel = dec == 0;
    if (dec == 2) lo.cutoff_hz = -1;
    dyiLogReader* rd = dyi_log_open(path, m->n, &lo, err, sizeof err);
    dyiEstim* e = rd ? dyi_identify(m, b, rd, NULL, NULL, err, sizeof err) : NULL;
    if (!e) { CHECK(0, "filtered identify: %s", err); dyi_log_close(rd); return 0; }
    memcpy(beta + (size_t)(dec * R + r) * (size_t)p, e->beta, sizeof(double) * (size_t)p);
    memcpy(cov + (size_t)(dec * R + r) * (size_t)(p * p), e->cov, sizeof(double) * (size_t)(p * p));
    dyi_est_free(e);
    dyi_log_close(rd);
  }
  return 1;
}

/* the whitened spread over the R draws of reading dec against their
 * covariances, sqrt(s / ((R-1) p)); the marginal one into *marg */
static double spread_ratio(const double* beta, const double* cov, int p, int R, int dec, double* marg) {
  double s = 0, dv[14 * DY_MAXJ];
  for (int k = 0; k < p; k++) {
    double mu = 0;
    for (int r = 0; r < R; r++) mu += beta[(size_t)(dec * R + r) * (size_t)p + (size_t)k] / R;
    dv[k] = mu;
  }
  for (int r = 0; r < R; r++) {
    double d[14 * DY_MAXJ];
    for (int k = 0; k < p; k++) d[k] = beta[(size_t)(dec * R + r) * (size_t)p + (size_t)k] - dv[k];
    s += chi2(cov + (size_t)(dec * R + r) * (size_t)(p * p), d, p);
  }
  double pm = 0;
  for (int k = 0; k < p; k++) {
    double v = 0, es = 0;
    for (int r = 0; r < R; r++) {
      double d = beta[(size_t)(dec * R + r) * (size_t)p + (size_t)k] - dv[k];
      v += d * d / (R - 1);
      es += cov[(size_t)(dec * R + r) * (size_t)(p * p) + (size_t)(k * p + k)] / R;
    }
    pm += v / es;
  }
  *marg = sqrt(pm / p);
  return sqrt(s / ((R - 1) * p));
}

/* std after low-pass filtering (the reader's default cutoff fc): with the
 * torque filtered alone (--no-parallel) and not decimated the residuals are
 * correlated over ~fs/(2 fc) samples and the std are several times too
 * small (what identify warns about); with the default parallel filtering
 * (rows decimated to 2.5 fc, std scaled by the white-equivalent noise
 * factor 1 / (D sum h^2), filter.h) they are right; unfiltered (control)
 * too. Measured by the whitened spread over R = 10 noise
 * draws on one trajectory,
 *   s = sum_r (beta_r - mean)^T cov_r^-1 (beta_r - mean),
 * which with the right covariance is chi^2 with (R - 1) p dof:
 * sqrt(s / ((R-1) p)) = 1 +- 1/sqrt(2 p) (p >= 12: sd <= 7 %),
 * whatever the correlations between parameters. One trajectory, so the
 * spread around the mean leaves out the bias of the filter's edge
 * transients (a log-reader matter). Bounds: control and parallel [0.8,
 * 1.25] (3 sd); undecimated --no-parallel > 1.8 (measured ~7). */
static void test_filtered_std(void) {
  dyModel* m = th_random_model(3, 0, 0, 0);
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/filt.csv", tmp);
  dyiBase* b = dyi_base_make(m, DYI_SET_QR, 0, err, sizeof err);
  if (!b) { CHECK(0, "%s", err); dy_free_model(m); return; }
  enum { R = 10 };
  int p = b->nb, ok = 1;
  double* beta = malloc(sizeof(double) * (size_t)(3 * R * p));
  double* cov = malloc(sizeof(double) * (size_t)(3 * R * p * p));
  int D = 0;
  for (int r = 0; r < R && ok; r++) {
    double sj[DY_MAXJ];
    for (int j = 0; j < m->n; j++) sj[j] = 0.05;
    write_log2(path, m, 0, 20000, 1000.0, sj, 9000, 9000 + (unsigned)r, 1, NULL);
    if (!D && (D = default_decim(path, m->n)) < 2) { ok = 0; break; }
    ok = filtered_draw(m, b, path, r, R, beta, cov);
  }
  if (ok) {
    double ratio[3], marg[3];
    for (int dec = 0; dec < 3; dec++) ratio[dec] = spread_ratio(beta, cov, p, R, dec, &marg[dec]);
    CHECK(ratio[1] > 0.8 && ratio[1] < 1.25, "parallel filtering, decimated by %d: spread/std %.3f", D, ratio[1]);
    CHECK(ratio[0] > 1.8, "torque filtered alone, not decimated: spread/std %.3f (std too small, as warned)",
          ratio[0]);
    CHECK(ratio[2] > 0.8 && ratio[2] < 1.25, "not filtered: spread/std %.3f", ratio[2]);
    printf("%d draws, %d parameters: whitened spread/std %.2f torque filtered alone, %.2f parallel "
           "filtering decimated by %d, %.2f unfiltered (marginal: %.2f, %.2f, %.2f)\n", R, p, ratio[0], ratio[1],
           D, ratio[2], marg[0], marg[1], marg[2]);
  }
  free(beta); free(cov);
  dyi_base_free(b);
  dy_free_model(m);
}

int main(void) {
  openblas_set_num_threads(1);
  snprintf(tmp, sizeof tmp, "/tmp/dynid_test_identify_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  void (*tests[7])(void) = {test_noise_free, test_noisy, test_simulate, test_identify_cmd,
                            test_filtered_std, test_big_log, test_wls};
  for (int i = 0; i < 7; i++) {
    double t0 = dy_now_s();
    tests[i]();
    printf("section %d: %.1f s\n", i, dy_now_s() - t0);
  }
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (!getenv("KEEP") && system(cmd)) {}
  return test_report();
}
