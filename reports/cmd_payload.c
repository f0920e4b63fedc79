/* SPDX-License-Identifier: MIT */
/* dynid program: payload, the 10 inertial parameters of a rigid load fixed
 * to the model's tip frame, from a log recorded with the load on.
 *
 *   dynid payload MODEL ARM_PARAMS LOG [--mass KG] [--consistent [--radius M]]
 *                 [-o PAYLOAD.csv|PAYLOAD.urdf] [model options] [log options]
 *
 * The arm's torque predicted from ARM_PARAMS (its standard parameters,
 * friction included: dyi_params_realise) is subtracted from the torque as
 * the log reader delivers it (the raw torque by default, the filtered one
 * with --no-parallel), at the reader's filtered q, qd, qdd, and the
 * residual is fitted to the regressor of a body fixed to the tip frame
 * (ident/payload.h: the maths and units). Output: rows name,value,std (m,
 * cx, cy, cz, ixx..izz: centre of mass in the tip frame, inertia about it
 * in tip axes), undetermined rows empty; or a URDF <link> and fixed
 * <joint> to paste into the arm's URDF. Summary on standard error.
 * --consistent: the plausible load instead (payload.h
 * dyi_payload_consistent: inside a sphere of radius --radius, default
 * 0.3 m, about the tip origin). Without --gain, the GAIN rows of
 * ARM_PARAMS scale the torque columns when it has them (cli_log.c). */
#include "reports/cli.h"
#include "ident/params.h"
#include "ident/payload.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const USAGE =
    "dynid payload MODEL ARM_PARAMS LOG [--mass KG] [--consistent [--radius M]] [-o PAYLOAD.csv|PAYLOAD.urdf]\n"
    "       [--no-header] [--map NAME=COLUMN] [--gain K1,...,Kn] [--rows A..B] [--cutoff HZ] [--on-bad drop|stop]\n"
    "       [--time-scale K] [--resample HZ] [--decimate D] [--filter-order N] [--no-parallel]";

static const char* const phi_names[10] = {"XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M"};

/* 1 when path ends in .urdf (any case) */
static int is_urdf(const char* path) {
  size_t L = path ? strlen(path) : 0;
  return L >= 5 && !strcasecmp(path + L - 5, ".urdf");
}

/* The log through the reader into the estimator, watched for the usual
 * mistakes against mw: the model with the load's mass at the tip origin
 * when --mass gives it; else the arm's, without the gravity-torque check
 * (an unknown load changes that torque by design). 0, or 1 after printing. */
static int read_log(const cliArgs* c, const dyModel* m, const dyModel* mw, dyiLogOpt* lopt, dyiPayload* est) {
  char err[DY_ERRSZ];
  const char* path = c->pos[2];
  cliWatch* watch = cli_watch_start(c, mw ? mw : m, lopt);
  if (!mw) cli_watch_no_gravity(watch);
  dyiLogReader* r = dyi_log_open(path, m->n, lopt, err, sizeof err);
  int rc = r ? 0 : -1;
  dyiSample s;
  while (r && (rc = dyi_log_next(r, &s, err, sizeof err)) == 1) dyi_payload_add(est, s.q, s.qd, s.qdd, s.tau);
  if (r) dyi_log_close(r);
  cli_watch_end(c, watch, path, 1);
  cli_watch_free(watch);   /* after its reader */
  lopt->watch = NULL;
  if (rc < 0) return cli_fail_log(path, lopt, m->n, err);
  return 0;
}

/* "XX, MY, ..." of the undetermined phi_T entries into buf ("" if none) */
static void undetermined_text(const dyiPayloadFit* f, char* buf, size_t sz, const char* const* names, int phys) {
  buf[0] = 0;
  for (int k = 0; k < 10; k++) {
    int det = phys ? f->phys_det[k] : f->det[k];
    if (det) continue;
    size_t L = strlen(buf);
    snprintf(buf + L, sz - L, "%s%s", L ? " " : "", names[k]);
  }
}

/* The CSV: '#' lines (model, log, arm PARAMS, what the log determines),
 * then name,value,std. */
static void write_csv(FILE* f, const cliArgs* c, const dyModel* m, const dyiPayloadFit* fit, double mass) {
  char und[256], undp[256];
  const char* pn[10];
  for (int k = 0; k < 10; k++) pn[k] = dyi_payload_phys_name(k);
  undetermined_text(fit, und, sizeof und, phi_names, 0);
  undetermined_text(fit, undp, sizeof undp, pn, 1);
  fprintf(f, "# dynid payload: model %s, arm params %s, log %s\n", m->source, c->pos[1], c->pos[2]);
  fprintf(f, "# a rigid load fixed to the tip frame: m [kg], c = (cx, cy, cz) centre of mass in the tip frame [m], "
             "ixx..izz inertia about the centre of mass in tip-frame axes, tensor entries [kg m^2]\n");
  fprintf(f, "# tip frame in frame %d: R = %.9g %.9g %.9g; %.9g %.9g %.9g; %.9g %.9g %.9g, p = %.9g %.9g %.9g m\n",
          m->n, m->tip_T[0], m->tip_T[1], m->tip_T[2], m->tip_T[3], m->tip_T[4], m->tip_T[5], m->tip_T[6],
          m->tip_T[7], m->tip_T[8], m->tip_T[9], m->tip_T[10], m->tip_T[11]);
  fprintf(f, "# samples: %ld, equations: %ld\n", fit->samples, fit->equations);
  if (mass > 0) fprintf(f, "# mass fixed by --mass at %.17g kg; the other 9 estimated\n", mass);
  fprintf(f, "# the log determines %d of %d combinations of the load's parameters (rank), condition number %.6g "
             "(column-scaled)\n", fit->rank, fit->nfree, fit->cond);
  fprintf(f, "# undetermined tip-frame parameters: %s\n", und[0] ? und : "none");
  fprintf(f, "# undetermined: %s\n", undp[0] ? undp : "none");
  if (fit->phys_det[0] == 1 && !(fit->phys[0] > 0))
    fprintf(f, "# the estimated mass is not positive: no centre of mass or inertia about it\n");
  fprintf(f, "# residual torque RMS %.6g N m, unexplained by the load %.4g %%, residual std %.6g N m per equation\n",
          fit->r_rms, 100 * fit->rel_resid, fit->sigma);
  if (fit->consistent)
    fprintf(f, "# plausible load (--consistent): mass > 0, inertia about the centre of mass positive definite "
               "(principal moments >= 2 m (%.3g m)^2) with the triangle inequalities, the mass within %.6g m of the tip "
               "origin (mean square distance); residual +%.4g %% over least squares; optimality %s; no std (a constrained estimate)\n",
            DYI_PAYLOAD_THICK, fit->radius, fit->rss_rise_pct, fit->certified ? "certified" : "NOT certified");
  else fprintf(f, "# std: first-order propagation of sigma^2 (W^T W)^-1\n");
  fprintf(f, "name,value,std\n");
  for (int k = 0; k < 10; k++) {
    fprintf(f, "%s,", pn[k]);
    if (!fit->phys_det[k]) { fprintf(f, ",\n"); continue; }
    dy_fprint_double(f, fit->phys[k]);
    fputc(',', f);
    if (isfinite(fit->phys_std[k])) dy_fprint_double(f, fit->phys_std[k]);
    fputc('\n', f);
  }
}

/* The URDF fragment: a link "payload" with its <inertial> (origin at the
 * centre of mass, tip axes) and a fixed joint from the tip link. */
static void write_urdf(FILE* f, const cliArgs* c, const dyModel* m, const dyiPayloadFit* fit) {
  const char* tip = cli_opt(c, "tip") ? cli_opt(c, "tip") : "tip";
  const double* v = fit->phys;
  fprintf(f, "<!-- dynid payload: model %s, arm params %s, log %s; paste into the arm's URDF%s -->\n", m->source,
          c->pos[1], c->pos[2],
          cli_opt(c, "tip") ? "" : " (parent 'tip': the tip link dynid writes; rename it to your chain's end link)");
  fprintf(f, "<link name=\"payload\">\n  <inertial>\n    <origin xyz=\"%.17g %.17g %.17g\" rpy=\"0 0 0\"/>\n", v[1], v[2],
          v[3]);
  fprintf(f, "    <mass value=\"%.17g\"/>\n", v[0]);
  fprintf(f, "    <inertia ixx=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyy=\"%.17g\" iyz=\"%.17g\" izz=\"%.17g\"/>\n",
          v[4], v[5], v[6], v[7], v[8], v[9]);
  fprintf(f, "  </inertial>\n</link>\n");
  fprintf(f, "<joint name=\"payload_fixed\" type=\"fixed\">\n  <parent link=\"%s\"/>\n  <child link=\"payload\"/>\n"
             "  <origin xyz=\"0 0 0\" rpy=\"0 0 0\"/>\n</joint>\n", tip);
}

/* The terminal summary: mass, centre of mass in mm, what is undetermined. */
static void summary(const dyiPayloadFit* fit) {
  const double* v = fit->phys;
  const double* s = fit->phys_std;
  if (fit->consistent) {   /* no std: the constrained estimate */
    fprintf(stderr, "payload %.4g kg%s, centre of mass (%.4g, %.4g, %.4g) mm in the tip frame (plausible within %.3g m; "
            "residual +%.3g %% over least squares%s)\n", v[0], fit->phys_det[0] == 2 ? " (fixed)" : "", 1e3*v[1],
            1e3*v[2], 1e3*v[3], fit->radius, fit->rss_rise_pct, fit->certified ? "" : "; NOT certified");
    return;
  }
  if (fit->phys_det[0] == 2) fprintf(stderr, "payload %.4g kg (fixed)", v[0]);
  else if (fit->phys_det[0]) fprintf(stderr, "payload %.4g +- %.2g kg", v[0], s[0]);
  else fprintf(stderr, "payload mass undetermined");
  if (fit->phys_det[1] && fit->phys_det[2] && fit->phys_det[3])
    fprintf(stderr, ", centre of mass (%.4g, %.4g, %.4g) +- (%.2g, %.2g, %.2g) mm in the tip frame", 1e3*v[1], 1e3*v[2],
            1e3*v[3], 1e3*s[1], 1e3*s[2], 1e3*s[3]);
  fprintf(stderr, "\n");
  if (fit->phys_det[4]) {
    fprintf(stderr, "payload: inertia about the centre of mass [kg m^2]:");
    for (int k = 4; k < 10; k++)
      if (fit->phys_det[k]) fprintf(stderr, " %s %.4g +- %.2g", dyi_payload_phys_name(k), v[k], s[k]);
    fprintf(stderr, "\n");
  }
  char und[256];
  const char* pn[10];
  for (int k = 0; k < 10; k++) pn[k] = dyi_payload_phys_name(k);
  undetermined_text(fit, und, sizeof und, pn, 1);
  fprintf(stderr, "payload: %d of %d combinations determined by the log; undetermined: %s\n", fit->rank, fit->nfree,
          und[0] ? und : "none");
  if (fit->phys_det[0] == 1 && !(v[0] > 0))
    fprintf(stderr, "payload: the mass is not positive: no centre of mass or inertia (is there a load, and are the "
                    "ARM_PARAMS of this arm?)\n");
}

/* --mass (NaN: estimated) and --radius, checked. 0, or 2 after the usage line. */
static int payload_options(const cliArgs* c, double* mass, double* radius) {
  if (cli_double(c, "mass", NAN, mass) || cli_double(c, "radius", DYI_PAYLOAD_RADIUS, radius)) return 2;
  if (cli_opt(c, "radius") && !cli_flag(c, "consistent")) return cli_usage("payload: --radius goes with --consistent");
  if (!(*radius > DYI_PAYLOAD_THICK) || !isfinite(*radius))
    return cli_usage("payload: --radius must be a length in m above %g (the bounding sphere about the tip origin)",
                     DYI_PAYLOAD_THICK);
  if (cli_opt(c, "mass") && !(*mass > 0 && isfinite(*mass))) return cli_usage("payload: --mass must be a positive mass in kg");
  return 0;
}

int cmd_payload(cliArgs* c) {
  int r = cli_check(c, "mass,force,quiet,consistent,radius," CLI_LOG_OPTS, 3, 3, USAGE);
  if (r) return r;
  double mass, radius;
  if ((r = payload_options(c, &mass, &radius))) return r;
  const char* out = cli_opt(c, "o");
  dyModel* m = cli_model(c);
  if (!m) return 1;
  char err[DY_ERRSZ];
  int status = 1, opened = 0;
  dyiParams* prm = NULL;
  double* par = NULL;
  dyiPayload* est = NULL;
  dyOut o;
  dyiLogOpt lopt;
  dyi_log_defaults(&lopt);
  if ((r = cli_logopt(c, m, &lopt)) != 0) { status = r; goto done; }
  if (!(prm = cli_params_read(c, m, c->pos[1]))) goto done;
  par = malloc(sizeof(double) * (size_t)dy_npar(m));
  if (!par) { cli_fail("payload: out of memory"); goto done; }
  dyi_params_realise(m, prm, par);
  if (!(est = dyi_payload_make(m, par, err, sizeof err))) { cli_fail("%s", err); goto done; }
  const double known[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, mass};
  dyModel* ml = mass > 0 ? dyi_payload_loaded_model(m, known) : NULL;
  r = read_log(c, m, ml, &lopt, est);
  dy_free_model(ml);
  if (r) goto done;
  if (dyi_payload_samples(est) < 10) {
    cli_fail("%s: %ld samples: too few to estimate a payload (at least 10; check --rows)", c->pos[2],
             dyi_payload_samples(est));
    goto done;
  }
  dyiPayloadFit fit;
  const int bad = cli_flag(c, "consistent") ? dyi_payload_consistent(est, mass, radius, &fit, err, sizeof err)
                                            : dyi_payload_solve(est, mass, &fit, err, sizeof err);
  if (bad) { cli_fail("%s: %s", c->pos[2], err); goto done; }
  if (is_urdf(out)) {
    char miss[256] = "";
    for (int k = 0; k < 10; k++)
      if (!fit.phys_det[k]) {
        size_t L = strlen(miss);
        snprintf(miss + L, sizeof miss - L, "%s%s", L ? " " : "", dyi_payload_phys_name(k));
      }
    if (miss[0]) {
      cli_fail("%s: the log does not determine %s: no URDF written (give --mass KG, or a log that moves more joints)",
               c->pos[2], miss);
      goto done;
    }
  }
  if (dy_out_open(&o, out, err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  if (is_urdf(out)) write_urdf(o.f, c, m, &fit);
  else write_csv(o.f, c, m, &fit, mass);
  if (dy_out_commit(&o, err, sizeof err)) { opened = 0; cli_fail("%s", err); goto done; }
  opened = 0;
  if (!cli_flag(c, "quiet")) summary(&fit);
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  dyi_payload_free(est);
  if (prm) dyi_params_free(prm);
  free(par);
  dy_free_model(m);
  return status;
}
