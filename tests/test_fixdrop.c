/* SPDX-License-Identifier: MIT */
/* dynid tests: single standard parameters held instead of estimated
 * (`identify --fix NAME=VALUE`, `--drop NAME`; ident/base.h dyi_base_fix),
 * run from the repository root after `make dynid`.
 *
 * Logs are written here from the library: a random Fourier trajectory of
 * the Panda (ident/traj.h), torques by dy_rnea on parameters chosen here
 * (the model's, with friction, FC1 = FO1 = 0 and M7 1.5x its nominal
 * value), %.17g, read without filtering (--cutoff none). The second
 * computation each check leans on:
 *  - Structure: each base parameter of a set holding FO1, FC1 (or M7) is
 *    the same-named one of the full set with those columns cleared
 *    (exactly); the full set's FO1 and FC1 rows are gone.
 *  - Dropping FO1 and FC1, true zeros here, on a noisy log: every other
 *    estimate stays within 4 std of the full set's (the difference of
 *    nested estimates has a std below the full set's), within 4 std of
 *    B' pi_true, and no std grows (beyond 1 %: the noise estimate's dof
 *    change), FV1's (the column most like sign(qd1)) falls clearly.
 *  - --fix M7 at the value the log was made with, noise-free: the rest
 *    is recovered to 1e-8 (round-off). M7's column lies in the span of
 *    the others (Y e_M7 = Y_b B[:, M7] of the full set), so held at the
 *    nominal value instead the fit stays exact but every base parameter
 *    moves by B[:, M7] (M7_true - M7_held): checked to 1e-8 too.
 *  - The program: the PARAMS file records the held values; its
 *    realisation predicts dy_rnea(pi_true) at random states (1e-7) and
 *    `dynid validate` on the log finds ~0 error; without the header line
 *    the error is large. --consistent keeps M7 at the held value.
 *  - Messages: unknown names list close ones, parameters that cannot be
 *    held say why (exit 2, nothing written); a joint that turns one way
 *    only makes FC1 and FO1 inseparable and the error names
 *    "--drop FC1 or --drop FO1"; holding one of them then works. */
#include "testhelp.h"
#include "teststats.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "ident/base.h"
#include "ident/identify.h"
#include "ident/log.h"
#include "ident/params.h"
#include "ident/traj.h"
#include <unistd.h>

static char tmp[256];
static dyModel* panda;
static double pi_true[DY_NPL * DY_MAXJ];   /* the parameters the logs are made with */
static int kFO1, kFC1, kFV1, kM7;

static int run(const char* cmd) { return th_run(tmp, cmd); }
static const char* err_text(void) {
  static char p[300];
  snprintf(p, sizeof p, "%s/stderr", tmp);
  return th_slurp(p);
}

/* a log of panda along a random Fourier trajectory (seed) at 100 Hz with
 * torques dy_rnea(par) + sigma N(0,1); mono 1: joint 1 turns one way only;
 * 2: positions written in degrees (a user's mistake) */
static void write_log(const char* path, const double* par, int ns, double sigma, unsigned long long seed, int mono) {
  const dyModel* m = panda;
  const int n = m->n;
  dyiFourier f;
  char err[256];
  dyi_fourier_random(&f, m, 5, ns / 100.0, seed, err, sizeof err);
  dyData* d = dy_make_data(m);
  FILE* o = fopen(path, "w");
  unsigned long long s = seed * 7 + 1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  dyi_traj_header(o, n, 1);
  for (int k = 0; k < ns; k++) {
    double t = k / 100.0;
    dyi_fourier_eval(&f, t, q, qd, qdd);
    if (mono == 1) { q[0] = -2.5 + 0.15 * t + 0.1 * sin(t); qd[0] = 0.15 + 0.1 * cos(t); qdd[0] = -0.1 * sin(t); }
    dy_rnea(m, d, par, q, qd, qdd, tau);
    for (int j = 0; j < n; j++) tau[j] += sigma * dyi_rng_gauss(&s);
    for (int j = 0; j < n && mono == 2; j++) q[j] *= 180 / M_PI;
    dyi_traj_row(o, n, t, q, qd, qdd, tau);
  }
  fclose(o);
  dy_free_data(d);
}

/* base set khalil with friction, holding nk parameters k at v */
static dyiBase* held_set(const int* k, const double* v, int nk) {
  char err[DY_ERRSZ];
  dyiBase* b = dyi_base_make(panda, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "khalil set: %s", err);
  if (b && dyi_base_fix(panda, b, k, v, nk, err, sizeof err)) { CHECK(0, "dyi_base_fix: %s", err); dyi_base_free(b); b = NULL; }
  return b;
}

/* OLS of set b on the log at path, unfiltered */
static dyiEstim* identify(const dyiBase* b, const char* path) {
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  lo.cutoff_hz = -1;
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(path, panda->n, &lo, err, sizeof err);
  CHECK(r != NULL, "open %s: %s", path, err);
  if (!r) return NULL;
  dyiEstOpt o;
  dyi_est_defaults(&o);
  dyiEstim* e = dyi_identify(panda, b, r, &o, NULL, err, sizeof err);
  CHECK(e != NULL, "identify: %s", err);
  dyi_log_close(r);
  return e;
}

/* row of the base parameter called name, -1 if none */
static int row_of(const dyiBase* b, const char* name) {
  for (int i = 0; i < b->nb; i++) if (!strcmp(b->name[i], name)) return i;
  return -1;
}

/* B_held pi_true, row i */
static double true_value(const dyiBase* b, int i) {
  double s = 0;
  for (int k = 0; k < b->npar; k++) s += b->B[(size_t)i * (size_t)b->npar + (size_t)k] * pi_true[k];
  return s;
}

/* each row of h is the same-named row of full with the held columns cleared;
 * rows of full that hold only held parameters are gone from h */
static void check_structure(const dyiBase* full, const dyiBase* h, const char* what) {
  int bad = 0, missing = 0;
  const int np = full->npar;
  for (int i = 0; i < full->nb; i++) {
    int r = row_of(h, full->name[i]), any = 0;
    for (int k = 0; k < np; k++) any |= isnan(h->fix[k]) && full->B[(size_t)i*np + k] != 0;
    if (r < 0) { missing += any; continue; }
    for (int k = 0; k < np; k++) {
      double want = isnan(h->fix[k]) ? full->B[(size_t)i*np + k] : 0;
      bad += h->B[(size_t)r*np + k] != want;
    }
  }
  CHECK(!bad && !missing, "%s: %d coefficients differ from the full set's, %d rows lost", what, bad, missing);
}

/* the std of base parameter `name` in e (set b) */
static double std_of(const dyiBase* b, const dyiEstim* e, const char* name) {
  int i = row_of(b, name);
  return i >= 0 ? e->std[i] : NAN;
}

static void test_drop(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/noisy.csv", tmp);
  write_log(path, pi_true, 3000, 0.05, 21, 0);
  int k[2] = {kFO1, kFC1};
  double v[2] = {0, 0};
  dyiBase *b0 = held_set(NULL, NULL, 0), *b1 = held_set(k, v, 2);
  if (!b0 || !b1) { dyi_base_free(b0); dyi_base_free(b1); return; }
  CHECK(b1->nb == b0->nb - 2 && row_of(b1, "FO1") < 0 && row_of(b1, "FC1") < 0,
        "drop FO1 FC1: %d base parameters of %d", b1->nb, b0->nb);
  check_structure(b0, b1, "drop FO1 FC1");
  dyiEstim *e0 = identify(b0, path), *e1 = identify(b1, path);
  if (e0 && e1) {
    int off_full = 0, off_true = 0, grew = 0;
    for (int i = 0; i < b1->nb; i++) {
      int r = row_of(b0, b1->name[i]);
      off_full += r < 0 || !(fabs(e1->beta[i] - e0->beta[r]) <= 4 * e0->std[r]);
      off_true += !(fabs(e1->beta[i] - true_value(b1, i)) <= 4 * e1->std[i]);
      grew += r < 0 || !(e1->std[i] <= 1.01 * e0->std[r]);
    }
    double fv = std_of(b1, e1, "FV1") / std_of(b0, e0, "FV1");
    printf("drop FO1 FC1: std of FV1 %.3g of the full set's\n", fv);
    CHECK(!off_full && !off_true && !grew, "drop: %d estimates off the full set's, %d off the truth, %d std grew",
          off_full, off_true, grew);
    CHECK(fv < 0.8, "drop FO1 FC1: FV1's std %.3g of the full set's (expected to fall)", fv);
  }
  dyi_est_free(e0); dyi_est_free(e1); dyi_base_free(b0); dyi_base_free(b1);
}

/* noise-free log made with M7 = pi_true's: held there, the rest exact;
 * held at another value, the fit is off */
static void test_fix_mass(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/clean.csv", tmp);
  write_log(path, pi_true, 1500, 0, 23, 0);
  double vals[2] = {pi_true[kM7], panda->par[kM7]};
  dyiBase* b0 = held_set(NULL, NULL, 0);
  for (int t = 0; t < 2 && b0; t++) {
    dyiBase* b = held_set(&kM7, vals + t, 1);
    if (!b) break;
    check_structure(b0, b, "fix M7");
    dyiEstim* e = identify(b, path);
    double worst = 0, moved = 0;
    for (int i = 0; e && i < b->nb; i++) {
      /* M7's column is Y_b0 B0[:, M7]: a wrong held value dv shifts the rest by B0[:, M7] (-dv) */
      int r = row_of(b0, b->name[i]);
      double tv = true_value(b, i), shift = r < 0 ? 0 : b0->B[(size_t)r * (size_t)b0->npar + (size_t)kM7] *
                                                      (pi_true[kM7] - vals[t]);
      worst = fmax(worst, fabs(e->beta[i] - tv - shift) / fmax(fabs(tv), 1e-3));
      moved = fmax(moved, fabs(shift) / fmax(fabs(tv), 1e-3));
    }
    CHECK(e && worst < 1e-8 && e->relerr_all_pct < 1e-6 && (t == 0 || moved > 1e-3),
          "fix M7 at %s value: worst rel err %.3g, residual %.3g %%, shift by the wrong value %.3g",
          t ? "another" : "the log's", worst, e ? e->relerr_all_pct : NAN, moved);
    dyi_est_free(e);
    dyi_base_free(b);
  }
  dyi_base_free(b0);
}

/* the "all" rel_err_pct of `dynid validate` with PARAMS p on the log, NAN on failure */
static double validate_all(const char* p, const char* log) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/panda.csv %s %s --cutoff none", p, log);
  if (run(cmd) != 0) return NAN;
  char out[300];
  snprintf(out, sizeof out, "%s/stdout", tmp);
  const char* s = strstr(th_slurp(out), "\nall,");
  double rms, rel;
  return s && sscanf(s + 5, "%lf,%lf", &rms, &rel) == 2 ? rel : NAN;
}

/* PARAMS p's realisation against dy_rnea(pi_true) at 50 random states: max rel err */
static double realised_err(const char* p) {
  char err[DY_ERRSZ];
  dyiParams* prm = dyi_params_read(p, panda, err, sizeof err);
  CHECK(prm != NULL, "read %s: %s", p, err);
  if (!prm) return NAN;
  double par[DY_NPL * DY_MAXJ], q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ], worst = 0;
  dyi_params_realise(panda, prm, par);
  dyData* d = dy_make_data(panda);
  for (int s = 0; s < 50; s++) {
    double big = 0, diff = 0;
    for (int j = 0; j < panda->n; j++) { q[j] = th_uniform(-2, 2); qd[j] = th_uniform(-2, 2); qdd[j] = th_uniform(-5, 5); }
    dy_rnea(panda, d, par, q, qd, qdd, t1);
    dy_rnea(panda, d, pi_true, q, qd, qdd, t2);
    for (int j = 0; j < panda->n; j++) { big = fmax(big, fabs(t2[j])); diff = fmax(diff, fabs(t1[j] - t2[j])); }
    worst = fmax(worst, diff / big);
  }
  dy_free_data(d);
  dyi_params_free(prm);
  return worst;
}

/* `dynid base --drop --fix` prints the set identify used: the same names
 * and expressions as the PARAMS file p, in order, and says what is held */
static void check_base_cmd(const char* p) {
  char cmd[1200], out[300];
  snprintf(out, sizeof out, "%s/base.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid base datasets/models/panda.csv --friction --drop FO1 --drop FC1 --fix M7=%.17g "
           "-o %s", pi_true[kM7], out);
  CHECK(run(cmd) == 0, "base --drop --fix: %s", err_text());
  const char* b = th_slurp(out);
  const char* q = th_slurp(p);
  int rows = 0, same = 0;
  for (const char* s = strstr(q, "\nname,value"); s && (s = strchr(s + 1, '\n')) && s[1];) {
    char name[40], expr[600], line[700];
    const char* c1 = strchr(s + 1, ',');
    const char* c4 = c1;
    for (int k = 0; k < 3 && c4; k++) c4 = strchr(c4 + 1, ',');
    if (!c1 || !c4) break;
    snprintf(name, sizeof name, "%.*s", (int)(c1 - s - 1), s + 1);
    snprintf(expr, sizeof expr, "%.*s", (int)strcspn(c4 + 1, "\n"), c4 + 1);
    snprintf(line, sizeof line, "\n%s,%s\n", name, expr);
    rows++;
    same += strstr(b, line) != NULL;
  }
  CHECK(rows > 0 && same == rows && strstr(b, "#   FO1: held at 0, not estimated"),
        "base --drop --fix: %d of %d PARAMS rows printed alike", same, rows);
}

/* the report's re-identification (dyi_identify_scales over the PARAMS
 * file's own set, held parameters read back) against the scales of the
 * estimator identify ran (a held set made here): ||tau - Y_fix pi_fix|| /
 * ||Y_k|| alike to round-off (1e-9: the file's %.17g expressions) */
static void check_scales(const char* p, const char* log) {
  char err[DY_ERRSZ];
  dyiParams* prm = dyi_params_read(p, panda, err, sizeof err);
  int k[3] = {kFO1, kFC1, kM7};
  double v[3] = {0, 0, pi_true[kM7]};
  dyiBase* b = held_set(k, v, 3);
  dyiEstim* e = b ? identify(b, log) : NULL;
  if (prm && e && prm->base->nb == b->nb) {
    dyiLogOpt lo;
    dyi_log_defaults(&lo);
    lo.cutoff_hz = -1;
    double* s1 = malloc(sizeof(double) * (size_t)b->nb);
    double* s2 = malloc(sizeof(double) * (size_t)b->nb);
    int rc = dyi_identify_scales(panda, prm->base, &log, 1, &lo, s1, err, sizeof err);
    dyi_est_scales(e, s2);
    double worst = 0;
    for (int i = 0; !rc && i < b->nb; i++) if (isfinite(s2[i])) worst = fmax(worst, fabs(s1[i] / s2[i] - 1));
    CHECK(!rc && worst < 1e-9, "scales from the PARAMS file's set vs identify's: %s worst %.3g", rc ? err : "", worst);
    free(s1); free(s2);
  } else CHECK(0, "scales: PARAMS %s, estimator %p", prm ? "read" : err, (void*)e);
  dyi_est_free(e); dyi_base_free(b); dyi_params_free(prm);
}

static void test_program(void) {
  char log[300], p[300], cmd[1200];
  snprintf(log, sizeof log, "%s/clean.csv", tmp);
  snprintf(p, sizeof p, "%s/held.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s --friction --cutoff none --quiet "
           "--drop FO1 --drop FC1 --fix M7=%.17g -o %s", log, pi_true[kM7], p);
  CHECK(run(cmd) == 0, "identify --drop --fix: %s", err_text());
  char want[200];
  snprintf(want, sizeof want, "# held (not estimated): M7=%.17g, FC1=0, FO1=0\n", pi_true[kM7]);
  CHECK(strstr(th_slurp(p), want) != NULL, "PARAMS header records the held parameters (%s)", want);
  double re = realised_err(p), va = validate_all(p, log);
  CHECK(re < 1e-7, "PARAMS realisation vs dy_rnea(pi_true): %.3g", re);
  CHECK(va < 1e-5, "validate on the noise-free log: rel err %.3g %%", va);
  /* without the header line M7 is lost: the prediction is off */
  snprintf(cmd, sizeof cmd, "grep -v '^# held' %s > %s/noheld.csv", p, tmp);
  CHECK(system(cmd) == 0, "strip the held line");
  snprintf(cmd, sizeof cmd, "%s/noheld.csv", tmp);
  double vb = validate_all(cmd, log);
  CHECK(vb > 0.1, "validate without the held line: rel err %.3g %% (expected large)", vb);
  printf("validate: %.3g %% with the held parameters, %.3g %% without them\n", va, vb);
  check_base_cmd(p);
  check_scales(p, log);
}

/* --consistent: the #! pi line of M7 is the held value, exactly */
static void test_consistent(void) {
  char log[300], p[300], cmd[1200];
  snprintf(log, sizeof log, "%s/clean.csv", tmp);
  snprintf(p, sizeof p, "%s/cons.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s --friction --cutoff none --quiet "
           "--fix M7=%.17g --consistent --boot 0 --prior-weight 1 -o %s", log, pi_true[kM7], p);
  CHECK(run(cmd) == 0, "identify --fix --consistent: %s", err_text());
  char want[200];
  snprintf(want, sizeof want, "#! pi,M7,%.17g\n", pi_true[kM7]);
  CHECK(strstr(th_slurp(p), want) != NULL, "consistent pi keeps M7 at its held value (%s)", want);
}

/* one refused command: exit status, a phrase of its message, no output */
static void refused(const char* opts, int status, const char* phrase) {
  char cmd[1200], out[300];
  snprintf(out, sizeof out, "%s/refused.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s/clean.csv --cutoff none %s -o %s", tmp,
           opts, out);
  int r = run(cmd);
  const char* e = err_text();
  CHECK(r == status && strstr(e, phrase) && access(out, F_OK) != 0, "%s: exit %d, expected %d and '%s': %s", opts, r,
        status, phrase, e);
}

static void test_messages(void) {
  refused("--friction --drop F01", 2, "close names: FV1, FC1, FO1");
  refused("--friction --drop mx9", 2, "close names: MX1, MX2");
  refused("--friction --drop QQ9", 2, "names are XXj");
  refused("--friction --drop XX1", 2, "XX1 is in no base parameter");
  refused("--drop FO1", 2, "FO1 is a joint parameter and the set has none (identify with --friction)");
  refused("--friction=fv,fc --drop FO1", 2, "left out of the set already");
  refused("--friction --fix M7", 2, "--fix takes NAME=VALUE");
  refused("--friction --fix M7=heavy", 2, "the value must be a number");
  refused("--friction --drop FO1 --fix fo1=1", 2, "FO1 is held twice");
  refused("--friction --drop FO1=0", 2, "--drop takes a parameter name");
}

/* a joint that turns one way: FC1 and FO1 cannot be told apart; the error
 * names the options, and holding one of them works */
static void test_hint(void) {
  char log[300], cmd[1200], p[300];
  snprintf(log, sizeof log, "%s/oneway.csv", tmp);
  snprintf(p, sizeof p, "%s/oneway_params.csv", tmp);
  write_log(log, pi_true, 1500, 0.01, 25, 1);
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s --friction --cutoff none --quiet -o %s",
           log, p);
  CHECK(run(cmd) == 1 && strstr(err_text(), "or hold one of them: --drop FC1 or --drop FO1)"), "one-way joint 1: the error names the options: %s",
        err_text());
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s --friction --cutoff none --quiet "
           "--drop FO1 -o %s", log, p);
  CHECK(run(cmd) == 0, "one-way joint 1 with --drop FO1: %s", err_text());
}

/* identify on a log in degrees: after its summary, before "wrote", the
 * closing block with one short line per warning; validate, whose
 * warnings are its last lines anyway, and a clean log: no block */
static void test_closing_block(void) {
  char log[300], cmd[1200], p[300];
  snprintf(log, sizeof log, "%s/degrees.csv", tmp);
  snprintf(p, sizeof p, "%s/deg_params.csv", tmp);
  write_log(log, pi_true, 1500, 0.01, 27, 2);
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s -o %s", log, p);
  CHECK(run(cmd) == 0, "identify on a log in degrees: %s", err_text());
  const char* e = err_text();
  const char* blk = strstr(e, "dynid: warning: these warnings above question this result:\n");
  const char* deg = blk ? strstr(blk, "\n  ") : NULL;
  CHECK(blk && blk > strstr(e, "joint  residual_rms") && blk < strstr(e, "dynid: wrote") && deg &&
        strstr(deg, "q1 outside the model's joint limits: positions in degrees?\n"),
        "the closing block after the summary: %s", e);
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/panda.csv %s %s", p, log);
  CHECK(run(cmd) == 0 && strstr(err_text(), "dynid: warning:") && !strstr(err_text(), "question this result"),
        "validate: warnings last, no block: %s", err_text());
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s/clean.csv --cutoff none -o %s", tmp, p);
  CHECK(run(cmd) == 0 && !strstr(err_text(), "question this result"), "clean log: no block: %s", err_text());
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_test_fixdrop_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  char err[DY_ERRSZ];
  dyLoadOpt lo;
  memset(&lo, 0, sizeof lo);
  if (dy_load_model("datasets/models/panda.csv", &lo, &panda, err, sizeof err)) { CHECK(0, "%s", err); return test_report(); }
  kFO1 = dy_parindex(panda, "FO1"); kFC1 = dy_parindex(panda, "FC1"); kFV1 = dy_parindex(panda, "FV1");
  kM7 = dy_parindex(panda, "M7");
  memcpy(pi_true, panda->par, sizeof(double) * (size_t)dy_npar(panda));
  pi_true[kFO1] = pi_true[kFC1] = 0;
  pi_true[kM7] *= 1.5;
  void (*tests[])(void) = {test_drop, test_fix_mass, test_program, test_consistent, test_messages, test_hint,
                           test_closing_block};
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    double t0 = dy_now_s();
    tests[i]();
    printf("section %zu: %.2f s\n", i, dy_now_s() - t0);
  }
  dy_free_model(panda);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (!getenv("KEEP") && system(cmd)) {}
  return test_report();
}
