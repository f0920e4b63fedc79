/* SPDX-License-Identifier: MIT */
/* dynid program: validate, the identified model against a measured log.
 *
 *   dynid validate MODEL PARAMS LOG [-o METRICS] [--horizon SECONDS]
 *                  [--folds K] [log options]
 *
 * Torque predicted by the base-parameter Newton-Euler (verify/ne_base.h) on
 * a sparse realisation of the base parameters of PARAMS, against the
 * unfiltered logged torque: "joint,rms,rel_err_pct,r2" per joint and "all"
 * (reports/README.md, Errors, exit status and limits), then '#' comment lines: largest error and where,
 * the inertia matrix along the log (smallest eigenvalue, positive
 * definiteness), the physical-consistency report of the identified MLCs
 * (when PARAMS carries the standard parameters its estimate was solved as,
 * "#! pi" lines: those, checked link by link, and they are also the
 * parameters of the inertia matrix and the simulation), with --horizon a
 * short-horizon forward simulation driven by the measured torque, and with
 * --folds K a K-fold cross-validation by time blocks of the log (the base
 * set of PARAMS re-estimated by OLS on K-1 blocks). */
#include "reports/cli.h"
#include "ident/params.h"
#include "verify/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The metrics written to a file, summed up on standard error: the
 * relative error per joint and over all joints, the inertia matrix along
 * the log and the consistency verdict (the lines of dyv_validate_log). */
static void summary(const char* buf, const char* log) {
  char line[1024];
  const char* p = buf;
  fprintf(stderr, "validate: %s: rel. error per joint [%%]:", log);
  const char* keep[2] = {"# inertia matrix", "# physical consistency:"};
  char notes[2][1024] = {"", ""};
  while (*p) {
    const char* e = strchr(p, '\n');
    size_t L = e ? (size_t)(e - p) : strlen(p);
    snprintf(line, sizeof line, "%.*s", (int)(L < sizeof line - 1 ? L : sizeof line - 1), p);
    p += L + (e != NULL);
    double rms, rel;
    if (line[0] >= '1' && line[0] <= '9' && sscanf(strchr(line, ',') ? strchr(line, ',') + 1 : "", "%lf,%lf", &rms, &rel) == 2)
      fprintf(stderr, " %.3g", rel);
    else if (!strncmp(line, "all,", 4) && sscanf(line + 4, "%lf,%lf", &rms, &rel) == 2)
      fprintf(stderr, "   all %.3g\n", rel);
    for (int k = 0; k < 2; k++)
      if (!strncmp(line, keep[k], strlen(keep[k])) && !notes[k][0]) snprintf(notes[k], sizeof notes[k], "%s", line + 2);
  }
  for (int k = 0; k < 2; k++)
    if (notes[k][0]) fprintf(stderr, "validate: %.300s%s\n", notes[k], strlen(notes[k]) > 300 ? " ..." : "");
}

int cmd_validate(cliArgs* c) {
  static const char* use =
      "dynid validate MODEL PARAMS LOG [-o METRICS] [--horizon SECONDS] [--folds K] [--threads N]\n"
      "       [--no-header] [--map NAME=COLUMN] [--gain K1,...,Kn] [--rows A..B] [--cutoff HZ] [--on-bad drop|stop]\n"
      "       [--time-scale K] [--resample HZ] [--qd-min V] [--decimate D] [--filter-order N]";
  int r = cli_check(c, "horizon,folds,force,threads," CLI_LOG_OPTS, 3, 3, use);
  if (r) return r;
  double horizon;
  long folds, threads, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (cli_double(c, "horizon", 0, &horizon) || cli_int(c, "folds", 0, &folds) ||
      cli_int(c, "threads", ncpu > 0 ? ncpu : 1, &threads)) return 2;
  if (threads < 1 || threads > 256) return cli_usage("validate: --threads must be 1..256");
  if (horizon < 0 || !isfinite(horizon)) return cli_usage("--horizon must be a non-negative number of seconds");
  if (folds == 1 || folds < 0 || folds > DYV_MAXFOLD) return cli_usage("--folds must be 2..%d", DYV_MAXFOLD);

  dyModel* m = cli_model(c);
  if (!m) return 1;
  const int n = m->n;
  char err[DY_ERRSZ];
  int status = 1, opened = 0;
  dyiParams* prm = NULL;
  double* par = NULL;
  dyOut o;
  dyiLogOpt lopt;
  dyi_log_defaults(&lopt);
  if ((r = cli_logopt(c, m, &lopt)) != 0) { status = r; goto done; }
  if (!(prm = cli_params_read(c, m, c->pos[1]))) goto done;
  par = malloc(sizeof(double) * (size_t)dy_npar(m));
  if (!par) { cli_fail("validate: out of memory"); goto done; }
  dyi_params_realise(m, prm, par);
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  {
    /* into memory first, so that a failure prints nothing, even on stdout */
    char* buf = NULL;
    size_t len = 0;
    FILE* mf = open_memstream(&buf, &len);
    if (!mf) { cli_fail("validate: out of memory"); goto done; }
    cliWatch* watch = cli_watch_start(c, m, &lopt);   /* units, rates, model, in the validation pass */
    int vr = dyv_validate_log(mf, m, par, prm->base, prm->pi != NULL, c->pos[2], &lopt, horizon, (int)folds,
                              (int)threads, err, sizeof err);
    int nwarn = cli_watch_end(c, watch, c->pos[2], 1);   /* the reader is closed */
    cli_watch_free(watch);
    fclose(mf);
    if (vr) { free(buf); cli_fail_log(c->pos[2], &lopt, n, err); goto done; }
    if (nwarn && cli_flag(c, "strict")) { free(buf); cli_strict_fail("validate", nwarn); goto done; }
    fprintf(o.f, "# dynid validate: model %s, params %s, log %s\n", m->source, c->pos[1], c->pos[2]);
    fwrite(buf, 1, len, o.f);
    if (cli_opt(c, "o") && strcmp(cli_opt(c, "o"), "-") && !cli_flag(c, "quiet")) summary(buf, c->pos[2]);
    free(buf);
  }
  if (dy_out_commit(&o, err, sizeof err)) { opened = 0; cli_fail("%s", err); goto done; }
  opened = 0;
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  if (prm) dyi_params_free(prm);
  free(par);
  dy_free_model(m);
  return status;
}
