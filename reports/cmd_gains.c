/* SPDX-License-Identifier: MIT */
/* dynid program: identify --estimate-gains, the joint drive gains with the
 * arm's base parameters and the other parameters of a load of known mass
 * (ident/gains.h: the model, the output-error estimate and why not plain
 * least squares).
 *
 *   dynid identify MODEL LOG... --payload-log LOADED [--payload-log ...]
 *                  --payload-mass KG --estimate-gains [--gain K0] [--set S]
 *                  [--friction[=LIST]] [log options] -o PARAMS
 *
 * LOG... are recorded without the load, every --payload-log with it; all
 * go through the log reader with the same options (--rows: one range, or
 * one per log, the unloaded ones first). The logged column times --gain
 * (K0, default 1) is what the estimator sees; the gains it finds relative
 * to K0 are multiplied back, and a gain the data do not determine stays at
 * K0 (said on standard error). Each log is watched for the usual mistakes
 * (reports/cli_scan.c), a loaded one against the model with the load's
 * mass at the tip origin; a loaded log that does not follow that gravity
 * torque while the unloaded ones follow the model's is refused (a log of
 * another arm). PARAMS: the base parameters (torques as K x column), then rows
 * GAIN1..GAINn; '#' lines with the load's centre of mass and inertia. */
#include "reports/cli.h"
#include "ident/base.h"
#include "ident/gains.h"
#include "ident/log.h"
#include "ident/params.h"
#include "ident/payload.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAIN_MAX_REL 0.05   /* a gain with a larger relative std is held at K0 (help: 5 %) */
#define MAXLOGS 16

/* options of identify that do not apply to the gains' estimate */
static const char* const not_here[] = {"method", "consistent", "prior", "prior-weight", "min-eig", "model-out",
                                       "bounds", "mass-range", "total-mass", "boot", "stats", "save-stats",
                                       "threads", "block", "fix", "drop", "transmission", NULL};

int cli_gains_wanted(const cliArgs* c) {
  return cli_flag(c, "estimate-gains") || cli_opt(c, "payload-log") || cli_opt(c, "payload-mass");
}

typedef struct {
  const char* log[MAXLOGS];   /* unloaded logs, then loaded ones */
  int nlog, nun;              /* all, unloaded */
  double mass;
  dyiBaseSet kind;
  int friction;
  unsigned keep;
} gainsOpt;

/* The options checked before anything is read. 0, or 2 after the usage line. */
static int gains_options(const cliArgs* c, gainsOpt* g) {
  memset(g, 0, sizeof *g);
  if (!cli_flag(c, "estimate-gains"))
    return cli_usage("identify: --payload-log and --payload-mass go with --estimate-gains (the drive gains)");
  for (int i = 0; not_here[i]; i++)
    if (cli_opt(c, not_here[i]) || cli_flag(c, not_here[i]))
      return cli_usage("identify --estimate-gains: --%s does not apply (least squares on the output error)", not_here[i]);
  for (int k = 1; k < c->npos && g->nlog < MAXLOGS; k++) g->log[g->nlog++] = c->pos[k];
  g->nun = g->nlog;
  if (!g->nun) return cli_usage("identify --estimate-gains: needs LOG, a recording without the load, after MODEL");
  for (int i = 0; i < c->nopt; i++)
    if (!strcmp(c->key[i], "payload-log")) {
      if (g->nlog == MAXLOGS) return cli_usage("identify: at most %d logs in all", MAXLOGS);
      g->log[g->nlog++] = c->val[i];
    }
  if (g->nlog == g->nun)
    return cli_usage("identify --estimate-gains: needs --payload-log LOADED, a recording with the load of known "
                     "mass on (and LOG without it)");
  const char* v = cli_opt(c, "payload-mass");
  if (!v) return cli_usage("identify --estimate-gains: needs --payload-mass KG, the load's mass");
  if (cli_doubles(v, &g->mass, 1) || !(g->mass > 0) || !isfinite(g->mass))
    return cli_usage("identify: --payload-mass must be the load's mass in kg, a number > 0, got '%s'", v);
  const char* set = cli_opt(c, "set") ? cli_opt(c, "set") : "khalil";
  if ((g->kind = dyi_base_set_parse(set, NULL, 0)) == DYI_SET_NONE)
    return cli_usage("identify: --set must be qr, khalil or lin, got '%s'", set);
  g->friction = cli_flag(c, "friction") || cli_opt(c, "friction");
  g->keep = 15u;
  if (g->friction && cli_kinds(c, &g->keep)) return 2;
  return 0;
}

/* The model with the load's mass at the tip origin (its centre of mass is
 * not known yet): what the loaded recordings are checked against, so that
 * a heavy load does not read as another arm. NULL when out of memory. */
static dyModel* loaded_model(const dyModel* m, double mass) {
  const double phi[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, mass};
  return dyi_payload_loaded_model(m, phi);
}

/* Log k through the reader (its options, --gain K0 applied) into the
 * estimator, watched against mw (the model, with the load for a loaded
 * log); its warning count into *nwarn. 0, or 1/2 after printing. */
static int read_one(const cliArgs* c, const dyModel* m, const dyModel* mw, const gainsOpt* g, int k, dyiGains* est,
                    double* K0, int* nwarn) {
  dyiLogOpt lo;
  int rc = cli_logopt_k(c, m, k, g->nlog, &lo);
  if (rc) return rc;
  for (int j = 0; j < m->n; j++) K0[j] = lo.has_gain ? lo.gain[j] : 1;
  char err[DY_ERRSZ];
  cliWatch* w = cli_watch_start(c, mw, &lo);
  dyiLogReader* r = dyi_log_open(g->log[k], m->n, &lo, err, sizeof err);
  int st = r ? 0 : -1;
  dyiSample s;
  while (r && (st = dyi_log_next(r, &s, err, sizeof err)) == 1) dyi_gains_add(est, k >= g->nun, s.q, s.qd, s.qdd, s.tau);
  if (r) dyi_log_close(r);
  *nwarn = cli_watch_end(c, w, g->log[k], 1);
  cli_watch_free(w);
  if (st < 0) return cli_fail_log(g->log[k], &lo, m->n, err);
  return 0;
}

/* Every log; a loaded log warned about while no unloaded one is: another
 * arm's. 0, or 1/2 after printing. */
static int read_logs(const cliArgs* c, const dyModel* m, const gainsOpt* g, dyiGains* est, double* K0) {
  int warn[MAXLOGS], un = 0, rc = 0;
  dyModel* ml = loaded_model(m, g->mass);
  if (!ml) return cli_fail("identify: out of memory");
  for (int k = 0; k < g->nlog && !rc; k++) rc = read_one(c, m, k < g->nun ? m : ml, g, k, est, K0, &warn[k]);
  dy_free_model(ml);
  if (rc) return rc;
  for (int k = 0; k < g->nun; k++) un += warn[k];
  for (int k = g->nun; k < g->nlog; k++)
    if (warn[k] && !un) {
      cli_flush_warnings(0);
      return cli_fail("%s: the loaded recording does not follow the gravity torque of %s with the load's mass at "
                      "the tip as %s does without it: a log of another arm? (nothing written)", g->log[k], m->source,
                      g->log[0]);
    }
  int all = 0;
  for (int k = 0; k < g->nlog; k++) all += warn[k];
  if (all && cli_flag(c, "strict")) return cli_strict_fail("identify", all);
  return 0;
}

/* The '#' lines of PARAMS (ident/params.h parses model, log, samples and
 * the relative error). Caller frees; NULL when out of memory. */
static char* comment(const dyModel* m, const dyiBase* b, const gainsOpt* g, const dyiGainsFit* f) {
  char* cm = NULL;
  size_t cl = 0;
  FILE* o = open_memstream(&cm, &cl);
  if (!o) return NULL;
  char fr[32] = "off";
  if (b->friction) cli_kinds_text(b->joint_keep, fr, sizeof fr);
  fprintf(o, "dynid identify --estimate-gains\nmodel: %s\n", m->source);
  for (int k = 0; k < g->nun; k++) fprintf(o, "log: %s\n", g->log[k]);
  for (int k = g->nun; k < g->nlog; k++) fprintf(o, "payload log: %s\n", g->log[k]);
  fprintf(o, "set: %s\nmethod: output error (drive gains, base parameters and the load's parameters together, the "
             "logged current as output)\nfriction: %s\n", dyi_base_set_name(b->set), fr);
  fprintf(o, "samples: %ld\n", f->samples[0] + f->samples[1]);
  fprintf(o, "samples without the load: %ld, with it: %ld\n", f->samples[0], f->samples[1]);
  fprintf(o, "relative error all joints [%%]: %.4g\n", 100 * f->rel_resid);
  fprintf(o, "gains: rows GAIN1..GAIN%d, torque = GAIN x logged column [N m (N) per logged unit]; held at --gain "
             "(not determined by the data, empty std):", m->n);
  int held = 0;
  for (int j = 0; j < m->n; j++) if (!f->gain_det[j]) { fprintf(o, " GAIN%d", j + 1); held++; }
  fprintf(o, "%s\n", held ? "" : " none");
  const double* v = f->phys;
  const double* s = f->phys_std;
  fprintf(o, "payload: m %.17g kg (given), centre of mass %.9g %.9g %.9g m (std %.3g %.3g %.3g) in the tip frame\n",
          v[0], v[1], v[2], v[3], s[1], s[2], s[3]);
  fprintf(o, "payload: inertia about the centre of mass, tip axes [kg m^2]: ixx %.6g ixy %.6g ixz %.6g iyy %.6g "
             "iyz %.6g izz %.6g", v[4], v[5], v[6], v[7], v[8], v[9]);
  fclose(o);
  return cm;
}

/* PARAMS: base parameters, then the GAIN rows (held ones without std). 0 or 1. */
static int write_params(const cliArgs* c, const dyModel* m, const dyiBase* b, const gainsOpt* g,
                        const dyiGainsFit* f) {
  char err[DY_ERRSZ];
  char* cm = comment(m, b, g, f);
  if (!cm) return cli_fail("identify: out of memory");
  double sd[DY_MAXJ];
  for (int j = 0; j < m->n; j++) sd[j] = f->gain_det[j] ? f->gain_std[j] : NAN;
  dyOut o;
  int rc = dy_out_open(&o, cli_opt(c, "o"), err, sizeof err);
  if (!rc && (dyi_params_write(o.f, m, b, f->beta, f->beta_std, cm, NULL, NULL) ||
              dyi_params_write_gains(o.f, m->n, f->gain, sd))) {
    dy_out_abort(&o);
    snprintf(err, sizeof err, "%s: write failed", cli_opt(c, "o") ? cli_opt(c, "o") : "standard output");
    rc = -1;
  } else if (!rc) rc = dy_out_commit(&o, err, sizeof err);
  free(cm);
  return rc ? cli_fail("%s", err) : 0;
}

/* The summary on standard error: the gains beside plain least squares',
 * the held ones, the load. */
static void summary(const dyModel* m, const dyiBase* b, double mass, const dyiGainsFit* f) {
  const int n = m->n;
  fprintf(stderr, "identify --estimate-gains: %ld samples without the load, %ld with it (%.6g kg), %d joints, %d "
          "base parameters (set %s%s), %d Gauss-Newton iterations\n", f->samples[0], f->samples[1], mass, n, b->nb,
          dyi_base_set_name(b->set), b->friction ? ", friction" : "", f->iter);
  fprintf(stderr, "joint  gain          std         rel_std_pct  plain_lsq     current_noise_std\n");
  for (int j = 0; j < n; j++) {
    if (f->gain_det[j])
      fprintf(stderr, "%5d  %-12.6g  %-10.3g  %-11.3g  %-12.6g  %.4g\n", j + 1, f->gain[j], f->gain_std[j],
              100 * f->gain_std[j] / f->gain[j], f->gain_ls[j], f->noise[j]);
    else
      fprintf(stderr, "%5d  %-12.6g  held at --gain (%s)\n", j + 1, f->gain[j],
              f->gain_null[j] ? "the data do not determine it" : "relative std above 5 %");
  }
  fprintf(stderr, "plain_lsq: least squares with the currents in the regressor, biased low by their noise (for "
          "comparison only)\n");
  const double* v = f->phys;
  const double* s = f->phys_std;
  fprintf(stderr, "payload %.6g kg (given), centre of mass (%.4g, %.4g, %.4g) +- (%.2g, %.2g, %.2g) mm in the tip "
          "frame\n", v[0], 1e3 * v[1], 1e3 * v[2], 1e3 * v[3], 1e3 * s[1], 1e3 * s[2], 1e3 * s[3]);
  fprintf(stderr, "residual: %.4g %% of the currents (all joints)\n", 100 * f->rel_resid);
  int held = 0;
  for (int j = 0; j < n; j++) held += !f->gain_det[j];
  if (held)
    fprintf(stderr, "dynid: warning: %d gain%s not determined by these recordings, kept at --gain's value%s "
            "(default 1): a load that moves those joints' torque more, or more data\n", held, held > 1 ? "s" : "",
            held > 1 ? "s" : "");
}

/* options -> model -> base set -> logs -> estimate -> PARAMS -> summary */
int cmd_identify_gains(cliArgs* c) {
  gainsOpt g;
  int rc = gains_options(c, &g);
  if (rc) return rc;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  if (m->has_trans) {   /* tau = R^T diag(K) i_m: not one gain per joint */
    cli_fail("identify --estimate-gains: the model carries a transmission; the gains are estimated per joint, "
             "from joint-side logs only");
    dy_free_model(m);
    return 1;
  }
  char err[DY_ERRSZ];
  dyiGains* est = NULL;
  double K0[DY_MAXJ], one[DY_MAXJ];
  dyiGainsFit f;
  rc = 1;
  dyiBase* b = dyi_base_make(m, g.kind, g.friction, err, sizeof err);
  if (!b || dyi_base_keep_joint(m, b, g.keep, err, sizeof err)) { cli_fail("%s", err); goto done; }
  if (!(est = dyi_gains_make(m, b, g.mass, err, sizeof err))) { cli_fail("%s", err); goto done; }
  if ((rc = read_logs(c, m, &g, est, K0))) goto done;
  rc = 1;
  for (int j = 0; j < m->n; j++) one[j] = 1;   /* the gains relative to K0 */
  if (dyi_gains_solve(est, one, GAIN_MAX_REL, &f, err, sizeof err)) { cli_fail("identify: %s", err); goto done; }
  for (int j = 0; j < m->n; j++) {
    f.gain[j] *= K0[j]; f.gain_std[j] *= K0[j]; f.gain_ls[j] *= K0[j]; f.noise[j] /= K0[j];
  }
  if (write_params(c, m, b, &g, &f)) goto done;
  cli_flush_warnings(1);
  if (!cli_flag(c, "quiet")) summary(m, b, g.mass, &f);
  rc = 0;
done:
  cli_flush_warnings(0);
  dyi_gains_free(est);
  dyi_base_free(b);
  dy_free_model(m);
  return rc;
}
