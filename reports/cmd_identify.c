/* SPDX-License-Identifier: MIT */
/* dynid program: the identify subcommand.
 *
 *   dynid identify MODEL LOG [LOG ...] [--set khalil|lin|qr] [--method ols|wls|irls]
 *                  [--friction] [log options] [--quiet] -o PARAMS
 *
 * Reads each log through the log reader (ident/log.h: checked, filtered,
 * differentiated samples) and identifies the base set with
 * dyi_identify_logs (ident/identify.h: Y_b = Y P per sample, torque and
 * columns filtered in parallel and decimated per log, the logs' rows
 * stacked into the estimator),
 * then writes the PARAMS file (README.md,
 * Model tables and files): '#' lines with the model, log, set, method, samples, condition
 * number and residuals, then name,value,std,rel_std_pct,expression.
 * A summary goes to standard error (samples, condition number, per-joint
 * residual RMS and relative error, warnings) unless --quiet. Samples the
 * reader flags as slow (--qd-min) leave that joint's equation out. */
#include "reports/cli.h"
#include "core/util.h"
#include "ident/base.h"
#include "ident/identify.h"
#include "ident/params.h"
#include "ident/log.h"
#include "ident/consistent.h"
#include "ident/stats.h"
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* USAGE =
    "dynid identify MODEL LOG [LOG ...] [--set khalil|lin|qr] [--method ols|wls|irls] [--friction[=ia,fv,fc,fo]]\n"
    "       [--no-header] [--map NAME=COLUMN] [--gain K1,...,Kn] [--rows A..B] [--cutoff HZ]\n"
    "       [--on-bad drop|stop] [--time-scale K] [--resample HZ] [--qd-min V] [--decimate D]\n"
    "       [--filter-order N] [--no-parallel] [--block SAMPLES] [--quiet]\n"
    "       [--consistent [--prior nominal|none|MODELFILE] [--prior-weight W] [--min-eig E]]\n"
    "       [--model-out FILE.csv|FILE.urdf] -o PARAMS";

/* the logs being read, for the fraction of their bytes behind the progress bar */
static dyiLogReader* const* prog_logs;
static int prog_nlog;

static void progress(long long samples, int pass, int final) {
  char what[32];
  snprintf(what, sizeof what, pass > 1 ? "identify (pass %d)" : "identify", pass);
  long long done = 0, total = 0;
  for (int k = 0; k < prog_nlog; k++) {
    long long d, t;
    dyi_log_progress(prog_logs[k], &d, &t);
    done += d; total += t;
  }
  cli_progress_of(what, samples, "samples", done, total, final);
}

static const char* method_name(dyiMethod m) {
  return m == DYI_WLS ? "wls" : m == DYI_IRLS ? "irls" : "ols";
}

/* The command's resolved options. */
typedef struct {
  const char* set;            /* base set: khalil (default), lin or qr */
  dyiBaseSet kind;            /* the same, parsed */
  dyiEstOpt eo;                /* estimator: method, block, threads, fold_only */
  int friction, quiet, consistent;
  unsigned keep;              /* the joint-parameter kinds kept (--friction=LIST) */
  double prior_w, min_eig;    /* --consistent: prior weight (< 0: automatic), pseudo-inertia margin */
  const char* bounds;         /* --bounds auto|none|FILE */
  double mass_lo, mass_hi;    /* --mass-range factors (0, INFINITY: none) */
  double total_mass;          /* --total-mass [kg], 0: none */
  long boot;                  /* --boot replicates for the std */
  const char* stats_in;       /* --stats: estimate from statistics files */
  const char* stats_out;      /* --save-stats */
  int nheld;                  /* --fix NAME=VALUE, --drop NAME (cli_held) */
  int held_k[DY_MAXPAR];
  double held_v[DY_MAXPAR];
} idOpt;

/* The training residual of the estimate written (least squares or the
 * consistent one) from the estimator's triangles: per joint the rms
 * [N m|N] and 100 ||r_j|| / ||y_j||, entry n over all joints. */
static void fit_residuals(const dyiEstim* e, const double* beta, double* rms, double* rel) {
  double rss_all = 0, yy_all = 0;
  long rows = 0;
  for (int j = 0; j < e->n; j++) {
    double rss, yy;
    dyi_est_joint_rss(e, j, beta, &rss, &yy);
    rms[j] = e->rows_j[j] > 0 ? sqrt(rss / (double)e->rows_j[j]) : 0;
    rel[j] = yy > 0 ? 100 * sqrt(rss / yy) : 0;
    rss_all += rss; yy_all += yy; rows += e->rows_j[j];
  }
  rms[e->n] = rows > 0 ? sqrt(rss_all / (double)rows) : 0;
  rel[e->n] = yy_all > 0 ? 100 * sqrt(rss_all / yy_all) : 0;
}

/* The summary of the identification, '#'-line text for the PARAMS file
 * and the model files (caller frees; NULL when out of memory). Its lines
 * are what ident/params.h parses into the header fields of dyiParams
 * (model, logs, samples, condition number, relative error, consistent:
 * lines): a change of their wording goes there too. */
static char* summary(const cliArgs* c, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                     const double* beta, const char* note, const char* cons, const char* rows_note,
                     const char* stats_note) {
  char* cm = NULL;
  size_t cl = 0;
  FILE* f = open_memstream(&cm, &cl);
  if (!f) return NULL;
  char fr[32] = "off";
  if (b->friction) cli_kinds_text(b->joint_keep, fr, sizeof fr);
  fprintf(f, "dynid identify\nmodel: %s\n", m->source);
  if (stats_note) fprintf(f, "%s\n", stats_note);
  else for (int k = 1; k < c->npos; k++) fprintf(f, "log: %s\n", c->pos[k]);   /* every log stacked */
  fprintf(f, "%sset: %s\nmethod: %s\nfriction: %s\n", rows_note, dyi_base_set_name(b->set), method_name(e->opt.method), fr);
  fprintf(f, "samples: %ld\n", e->samples);
  char cond[160];
  cli_cond_text(cond, sizeof cond, e->cond, e->opt.method != DYI_OLS, e->cond_scaled);
  fprintf(f, "condition number: %s\n", cond);
  double rms[DY_MAXJ + 1], rel[DY_MAXJ + 1];
  fit_residuals(e, beta, rms, rel);
  fprintf(f, "residual rms per joint:");
  for (int j = 0; j < m->n; j++) fprintf(f, " %.6g", rms[j]);
  fprintf(f, "\nrelative error per joint [%%]:");
  for (int j = 0; j < m->n; j++) fprintf(f, " %.4g", rel[j]);
  fprintf(f, "\nrelative error all joints [%%]: %.4g", rel[m->n]);
  if (cons && cons[0]) fprintf(f, "\n%s", cons);
  if (note && note[0]) fprintf(f, "\nwarning: %s", note);
  fclose(f);
  return cm;
}

/* PARAMS file (README.md, Model tables and files) through dyi_params_write with the
 * summary as its comment lines. 0 or -1 (err set). */
static int write_params(const char* path, const dyModel* m, const dyiBase* b, const double* std,
                        const double* beta, const double* pi, const double* scale, const char* comment, char* err,
                        int errsz) {
  dyOut o;
  if (dy_out_open(&o, path, err, errsz)) return -1;
  if (dyi_params_write(o.f, m, b, beta, std, comment, pi, scale) || cli_write_run_gains(o.f)) {
    dy_out_abort(&o);
    snprintf(err, (size_t)errsz, "%s: write failed", path);
    return -1;
  }
  return dy_out_commit(&o, err, errsz);
}

/* --model-out FILE: the identified standard parameters as a model file
 * (core/io.h dy_write_model: .csv table or .urdf). pi: the consistent
 * solution, or NULL: the realisation of beta nearest the nominal model
 * (ident/consistent.h dyi_realise_near), which is physically consistent
 * only by chance: a warning says so. lb (NULL: none): the bounds of the
 * consistent estimate, whose ellipsoids the file carries. 0, or -1 after
 * printing. */
static int write_model(const char* path, const dyModel* m, const dyiBase* b, const double* beta,
                       const double* pi, const dyiLinkBound* lb, const char* comment, int quiet) {
  char err[DY_ERRSZ];
  double par[DY_MAXPAR];
  int n = m->n;
  if (pi) {
    memset(par, 0, sizeof par);
    memcpy(par, pi, sizeof(double) * (size_t)b->npar);
  } else {
    double mass = 0;
    for (int j = 0; j < n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
    if (dyi_realise_near(m, b->B, b->nb, b->npar, beta, mass > 0 ? m->par : NULL, par, err, sizeof err))
      { cli_fail("%s", err); return -1; }
    for (int k = 0; b->fix && k < b->npar; k++) if (!isnan(b->fix[k])) par[k] = b->fix[k];   /* held */
  }
  dyModel* w = dy_copy_model(m);
  if (!w) { cli_fail("out of memory"); return -1; }
  w->has_friction = b->friction;
  for (int j = 0; j < n && lb; j++)   /* the ellipsoids the estimate was bounded by */
    if (dy_ell_given(lb[j].ell)) memcpy(w->link_ell + 6*j, lb[j].ell, sizeof lb[j].ell);
  int r = dy_write_model(path, w, par, comment, err, sizeof err);
  dy_free_model(w);
  if (r < 0) { cli_fail("--model-out %s", err); return -1; }
  if (r > 0 && !quiet) fprintf(stderr, "dynid: warning: --model-out %s\n", err);
  if (!pi && !quiet) {
    int bad = 0;
    for (int j = 0; j < n; j++) bad += !dy_link_consistent(par + DY_NPAR_LINK*j);
    if (bad)
      fprintf(stderr, "dynid: warning: --model-out %s: %d of %d links are not physically consistent "
              "(unconstrained estimate): it cannot be simulated reliably; identify with --consistent\n",
              path, bad, n);
  }
  return 0;
}

/* The prior of --consistent: "nominal" (the model's own inertial and
 * joint parameters; the default when the model has a mass), "none", or a
 * model file of the same arm (same joints and geometry, loaded with the
 * same options). Fills prior (14n) and returns 1 (a prior), 0 (none) or
 * -1 after printing the error. */
static int read_prior(const cliArgs* c, const dyModel* m, double* prior, const char** what) {
  const char* s = cli_opt(c, "prior");
  double mass = 0;
  for (int j = 0; j < m->n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  if (!s) s = mass > 0 ? "nominal" : "none";
  *what = s;
  if (!strcmp(s, "none")) return 0;
  if (!strcmp(s, "nominal")) {
    if (!(mass > 0)) { cli_fail("--prior nominal: the model %s has no link masses; give a prior model file "
                                "or --prior none", m->source); return -1; }
    memcpy(prior, m->par, sizeof(double) * (size_t)dy_npar(m));
    return 1;
  }
  char err[DY_ERRSZ];
  dyModel* pm = NULL;
  if (dy_load_model(s, &c->load, &pm, err, sizeof err)) { cli_fail("--prior: %s", err); return -1; }
  const char* bad = NULL;
  int j = 0;
  if (pm->n != m->n) bad = "joints";
  else for (; j < m->n && !bad; j++) {
    if (pm->jnt_type[j] != m->jnt_type[j]) bad = "type";
    else if (fabs(pm->dh_alpha[j] - m->dh_alpha[j]) > 1e-6 || fabs(pm->dh_a[j] - m->dh_a[j]) > 1e-6 ||
             fabs(pm->dh_theta[j] - m->dh_theta[j]) > 1e-6 || fabs(pm->dh_d[j] - m->dh_d[j]) > 1e-6)
      bad = "geometry";
  }
  if (bad) {
    if (!strcmp(bad, "joints"))
      cli_fail("--prior %s: the prior model has %d joints, the model %s has %d", s, pm->n, m->source, m->n);
    else
      cli_fail("--prior %s: joint %d's %s differs from the model %s (the prior must describe the same "
               "arm in the same frames)", s, j, !strcmp(bad, "type") ? "type" : "modified-DH geometry", m->source);
    dy_free_model(pm);
    return -1;
  }
  memcpy(prior, pm->par, sizeof(double) * (size_t)dy_npar(m));
  dy_free_model(pm);
  return 1;
}

/* progress of the consistent estimate's solves on a terminal */
static void cons_progress(int done, int total) {
  cli_progress_of("consistent", done, "solves", done, total, done == total);
}

/* The bounds of --consistent (ident/consistent.h dyi_link_bounds) for the
 * nominal model nom: --bounds auto (the model's ellipsoids, else each
 * link's kinematics), none, or a file of ellipsoids; --mass-range. note:
 * what was derived. 0, or -1 after printing. */
static int consistent_bounds(const dyModel* m, const double* nom, const idOpt* io,
                             dyiLinkBound* lb, char* note, int notesz) {
  char err[DY_ERRSZ];
  dyiBoundOpt bo = {.volumes = strcmp(io->bounds, "none") != 0, .ell = m->link_ell, .mass_lo = io->mass_lo,
                    .mass_hi = io->mass_hi, .thick = DYI_THICK};
  double ell[6 * DY_MAXJ];
  if (bo.volumes && strcmp(io->bounds, "auto")) {
    if (dy_read_ellipsoids(io->bounds, m, ell, err, sizeof err)) { cli_fail("--bounds %s", err); return -1; }
    bo.ell = ell;
    bo.keep = 1;
  }
  if (dyi_link_bounds(m, nom, &bo, lb, note, notesz, err, sizeof err)) {
    cli_fail("--consistent: %s%s", err, strcmp(io->bounds, "auto") ? "" : " (--bounds FILE gives other volumes, "
             "--bounds none none)");
    return -1;
  }
  return 0;
}

/* --consistent: the plausible, physically consistent estimate from the
 * estimator's triangle (ident/consistent.h), its certificate as comment
 * lines into cons and, unless quiet, on standard error; lb (n): the
 * bounds it was solved with. 0, or -1 after printing. */
static int identify_consistent(const cliArgs* c, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                               const idOpt* io, dyiConsResult* cr, dyiLinkBound* lb, char* cons, size_t consz) {
  const int quiet = io->quiet, n = m->n;
  double prior[DY_MAXPAR];
  const char* what;
  int hp = read_prior(c, m, prior, &what);
  if (hp < 0) return -1;
  char err[DY_ERRSZ], note[2048];
  if (consistent_bounds(m, hp ? prior : m->par, io, lb, note, sizeof note)) return -1;
  dyiConsOpt co = {.prior = hp ? prior : NULL, .weight = io->prior_w, .min_eig = io->min_eig, .bounds = lb,
                   .total_mass = io->total_mass, .total_tol = 0.01, .boot = (int)io->boot,
                   .progress = quiet ? NULL : cons_progress};
  if (!quiet) fprintf(stderr, "consistent: solving the semidefinite program (%d parameters, %d links)%s\n",
                      b->npar, n, co.weight < 0 && hp ? ", the prior weight by cross-validation" : "");
  if (dyi_consistent_est(m, b, e, &co, cr, err, sizeof err)) { cli_fail("%s", err); return -1; }
  const double rho2 = dyi_est_rho2(e);
  FILE* f = fmemopen(cons, consz, "w");
  if (!f) { cli_fail("out of memory"); return -1; }
  fprintf(f, "consistent: %s (objective %.10g, certified lower bound %.10g, relative gap %.2g; "
          "DSDP status %d, multiplier infeasibility %.2g, %d iterations, %.3g s; %.3g s in all)\n",
          cr->certified ? "certified optimal, physically consistent and plausible" : "NOT certified",
          cr->objective, cr->lower_bound, cr->gap, cr->solver_status, cr->pinfeas, cr->iterations, cr->seconds,
          cr->seconds_total);
  fprintf(f, "consistent: training residual %+.4g %% over the unconstrained estimate (weighted rss %.8g vs %.8g)\n",
          cr->rss_rise_pct, cr->rss, rho2);
  fprintf(f, "consistent: prior %s", what);
  if (strcmp(what, "none")) {
    fprintf(f, ", weight %.3g", cr->weight);
    if (cr->ncv) {
      fprintf(f, " chosen by %d-part cross-validation (held-out sum:", cr->cv_parts);
      for (int k = 0; k < cr->ncv; k++) fprintf(f, " %.3g at %.3g%s", cr->cv_err[k], cr->cv_weight[k],
                                                k + 1 < cr->ncv ? "," : ")");
    } else fprintf(f, io->prior_w < 0 ? " (default)" : " (given)");
  }
  fprintf(f, "; pseudo-inertia margin --min-eig %.3g\n", io->min_eig);
  if (strcmp(io->bounds, "none")) {
    fprintf(f, "consistent: bounds %s: each link's mass in an ellipsoid and within R_j of its frame, at least "
            "%.3g m thick (principal moments >= 2 m s^2)", io->bounds, DYI_THICK);
    if (io->mass_hi < INFINITY) fprintf(f, ", mass in [%.3g, %.3g] x nominal", io->mass_lo, io->mass_hi);
    if (io->total_mass > 0) fprintf(f, ", total mass %.4g kg +- 1 %%", io->total_mass);
    fprintf(f, "\n");
    for (int j = 0; j < n; j++)
      fprintf(f, "consistent: link %d: ellipsoid centre (%.4g, %.4g, %.4g) m, semi-axes (%.4g, %.4g, %.4g) m; "
              "R_j %.4g m; mass %.4g..%.4g kg; margin %.3g\n", j + 1, lb[j].ell[0], lb[j].ell[1], lb[j].ell[2],
              lb[j].ell[3], lb[j].ell[4], lb[j].ell[5], lb[j].radius, lb[j].mass_lo, lb[j].mass_hi,
              cr->bound_margin[j]);
    if (note[0]) {
      size_t L = strlen(note);
      if (L && note[L-1] == '\n') note[L-1] = 0;
      for (char* s = note; s && *s;) {
        char* e2 = strchr(s, '\n');
        if (e2) *e2 = 0;
        fprintf(f, "consistent: %s\n", s);
        s = e2 ? e2 + 1 : NULL;
      }
    }
  } else if (io->mass_hi < INFINITY)
    fprintf(f, "consistent: bounds none (density realisable anywhere); mass in [%.3g, %.3g] x nominal\n",
            io->mass_lo, io->mass_hi);
  if (cr->boot) {
    int held = 0;
    for (int i = 0; i < e->p; i++) held += cr->held[i];
    fprintf(f, "consistent: std by a parametric bootstrap of %d re-solves; %d of %d base parameters held by the "
            "bounds or the prior (moved by the data less than 5 %% of their least-squares std: no std given)\n",
            cr->boot, held, e->p);
  }
  fprintf(f, "consistent: smallest eigenvalue of each link's pseudo-inertia minus the margins [SI]:");
  for (int j = 0; j < n; j++) fprintf(f, " %.4g", cr->link_margin[j]);
  if (isfinite(cr->nonneg_margin)) fprintf(f, "\nconsistent: smallest of IA, FV, FC: %.4g", cr->nonneg_margin);
  fclose(f);
  cons[consz - 1] = 0;
  size_t L = strlen(cons);
  while (L && cons[L-1] == '\n') cons[--L] = 0;
  if (!quiet) fprintf(stderr, "%s\n", cons);
  return 0;
}

/* ---- mergeable statistics (ident/stats.h): --save-stats FILE, --stats FILES */

/* the options that change the rows, as one text compared between files */
static void stats_options(const cliArgs* c, char* buf, int sz) {
  static const char* const keys[] = {"no-parallel", "cutoff", "decimate", "filter-order", "qd-min", "derive",
                                     "resample"};
  int len = 0;
  buf[0] = 0;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const char* v = cli_opt(c, keys[k]);
    if (!strcmp(keys[k], "no-parallel")) v = cli_flag(c, keys[k]) ? "on" : "off";
    len += snprintf(buf + len, (size_t)(sz - len > 0 ? sz - len : 0), "%s%s=%s", k ? " " : "", keys[k],
                    v ? v : "default");
  }
}

/* --save-stats: the estimator's triangles and the logs behind them, written
 * whole or not at all. 0, or -1 after printing. */
static int save_stats(const char* path, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                      const dyiStatsHead* h, const dyiStatsLog* logs, int nlog) {
  char err[DY_ERRSZ];
  dyOut o;
  if (dy_out_open(&o, path, err, sizeof err)) { cli_fail("%s", err); return -1; }
  if (dyi_stats_write(o.f, m, b, e, h, logs, nlog)) {
    dy_out_abort(&o);
    { cli_fail("%s: write failed", path); return -1; }
  }
  if (dy_out_commit(&o, err, sizeof err)) { cli_fail("%s", err); return -1; }
  return 0;
}


static int by_name(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* add one --stats argument to the list: a file, a directory (its files
 * ending in .stats, in name order) or @LIST (one path per line, '#' lines
 * skipped); a directory or a list without any file is an error */
static int stats_files_add(const char* arg, char*** list, int* nl, int* cap) {
  char** tmp = NULL;
  int nt = 0, ct = 0;
  char err[DY_ERRSZ];
  DIR* d = NULL;
  FILE* f = NULL;
  if (arg[0] == '@') {
    f = fopen(arg + 1, "r");
    if (!f) { snprintf(err, sizeof err, "%s: cannot open the list of statistics files", arg + 1); goto bad; }
    char line[4096];
    long row = 0;
    while (fgets(line, sizeof line, f)) {
      row++;
      size_t L = strlen(line);
      if (L == sizeof line - 1 && line[L - 1] != '\n') {
        snprintf(err, sizeof err, "%s:%ld:1: path longer than %d characters", arg + 1, row, (int)sizeof line - 2);
        goto bad;
      }
      while (L && (line[L - 1] == '\n' || line[L - 1] == '\r')) line[--L] = 0;
      if (L && line[0] != '#') { if (dy_strv_push(&tmp, &nt, &ct, line)) goto oom; }
    }
    fclose(f); f = NULL;
    if (!nt) { snprintf(err, sizeof err, "%s: no statistics files in this list", arg + 1); goto bad; }
  } else if ((d = opendir(arg))) {
    struct dirent* de;
    while ((de = readdir(d))) {
      size_t L = strlen(de->d_name);
      if (L > 6 && !strcmp(de->d_name + L - 6, ".stats")) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", arg, de->d_name);
        { if (dy_strv_push(&tmp, &nt, &ct, path)) goto oom; }
      }
    }
    closedir(d); d = NULL;
    if (!nt) { snprintf(err, sizeof err, "%s: no statistics files (*.stats) in this directory", arg); goto bad; }
    qsort(tmp, (size_t)nt, sizeof(char*), by_name);
  } else if (dy_strv_push(&tmp, &nt, &ct, arg)) goto oom;
  for (int k = 0; k < nt; k++)
    if (dy_strv_push(list, nl, cap, tmp[k])) goto oom;
  for (int k = 0; k < nt; k++) free(tmp[k]);
  free(tmp);
  return 0;
oom:
  snprintf(err, sizeof err, "out of memory");
bad:
  if (f) fclose(f);
  if (d) closedir(d);
  for (int k = 0; k < nt; k++) free(tmp[k]);
  free(tmp);
  { cli_fail("%s", err); return -1; }
}

/* The statistics files of --stats and of the arguments after MODEL, in
 * that order (each a file, a directory or @LIST). 0, or -1 after printing
 * (the list is freed then). */
static int stats_file_list(const cliArgs* c, char*** files, int* nf) {
  int cap = 0;
  *files = NULL;
  *nf = 0;
  int bad = stats_files_add(cli_opt(c, "stats"), files, nf, &cap);
  for (int k = 1; k < c->npos && !bad; k++) bad = stats_files_add(c->pos[k], files, nf, &cap);
  if (!bad) return 0;
  for (int k = 0; k < *nf; k++) free((*files)[k]);
  free(*files);
  return -1;
}

/* The base set of the statistics, from the first file's head ref: made on
 * a model with this model's fingerprint, of the set --set names (if
 * given), with the friction kinds --friction names (if given: the same
 * kinds exactly). NULL after printing. */
static dyiBase* stats_base(const cliArgs* c, const dyModel* m, const dyiStatsHead* ref, const char* file0) {
  char err[DY_ERRSZ];
  uint64_t fp = dyi_model_fingerprint(m);
  if (ref->fingerprint != fp) {
    cli_fail("%s: statistics of another model (fingerprint %016llx, model %s; %s has %016llx): merge them "
             "with the model they were made with", file0, (unsigned long long)ref->fingerprint, ref->model,
             m->source, (unsigned long long)fp);
    return NULL;
  }
  const char* set = cli_opt(c, "set");
  if (set && dyi_base_set_parse(set, NULL, 0) != ref->set) {
    cli_fail("%s: statistics of base set %s, --set %s given", file0, dyi_base_set_name(ref->set), set);
    return NULL;
  }
  int friction = strcmp(ref->friction, "off") != 0;
  unsigned keep = 15u;
  char kinds[32], bad[40];
  snprintf(kinds, sizeof kinds, "%s", ref->friction);
  for (char* p = kinds; *p; p++) if (*p == ' ') *p = ',';
  if (friction && dyi_friction_kinds(kinds, &keep, bad, sizeof bad)) {
    cli_fail("%s: unknown friction kind '%s'", file0, bad);
    return NULL;
  }
  if (cli_opt(c, "friction") || cli_flag(c, "friction")) {
    unsigned k2 = 15u;
    if (dyi_friction_kinds(cli_opt(c, "friction"), &k2, bad, sizeof bad) || !friction || k2 != keep) {
      cli_fail("%s: statistics with friction %s, --friction%s%s given", file0, ref->friction,
               cli_opt(c, "friction") ? "=" : "", cli_opt(c, "friction") ? cli_opt(c, "friction") : "");
      return NULL;
    }
  }
  dyiBase* b = dyi_base_make(m, ref->set, friction, err, sizeof err);
  if (!b || dyi_base_keep_joint(m, b, keep, err, sizeof err)) { cli_fail("%s", err); dyi_base_free(b); return NULL; }
  return b;
}

/* An empty estimator for base set b with the options eo0, the per-joint
 * mask of the base parameters and their names (owned by the estimator).
 * NULL after printing. */
static dyiEstim* stats_estimator(const dyModel* m, const dyiBase* b, const dyiEstOpt* eo0) {
  char err[DY_ERRSZ];
  dyiEstOpt eo = *eo0;
  unsigned char* mask = malloc((size_t)m->n * (size_t)b->nb);
  const char** names = malloc(sizeof(char*) * (size_t)b->nb);
  if (!mask || !names) { cli_fail("out of memory"); free(mask); free(names); return NULL; }
  dyi_base_mask(m, b, mask);
  for (int k = 0; k < b->nb; k++) names[k] = b->name[k];
  eo.mask = mask; eo.names = names;
  dyiEstim* e = dyi_est_make(m->n, b->nb, &eo, err, sizeof err);
  if (!e) { cli_fail("%s", err); free(mask); free(names); return NULL; }
  dyi_est_own(e, mask, names);
  return e;
}

/* --stats: merge every statistics file (the value of --stats and the
 * arguments after MODEL) into one estimator for base set *bout, taken from
 * the files (set and friction) and checked against --set and --friction
 * when given. acc: the sums and the files' head. NULL after printing. */
static dyiEstim* merge_stats(const cliArgs* c, const dyModel* m, const dyiEstOpt* eo0, dyiBase** bout,
                            dyiStatsHead* acc) {
  char err[DY_ERRSZ];
  char** files;
  int nf;
  dyiEstim* e = NULL;
  dyiBase* b = NULL;
  if (stats_file_list(c, &files, &nf)) return NULL;
  dyiStatsHead ref;
  if (dyi_stats_head(files[0], &ref, err, sizeof err)) { cli_fail("%s", err); goto fail; }
  if (!(b = stats_base(c, m, &ref, files[0])) || !(e = stats_estimator(m, b, eo0))) goto fail;
  memset(acc, 0, sizeof *acc);
  *acc = ref;
  acc->samples = acc->logs = acc->rows_read = acc->rows_dropped = acc->files = 0;
  acc->var_factor = 0;
  for (int k = 0; k < nf; k++) {
    if (dyi_stats_merge_file(files[k], &ref, b, e, acc, err, sizeof err)) { cli_fail("%s", err); goto fail; }
    if (nf > 100) cli_progress_of("merge", k + 1, "files", k + 1, nf, k + 1 == nf);
  }
  e->opt.var_factor = acc->var_factor;
  for (int k = 0; k < nf; k++) free(files[k]);
  free(files);
  *bout = b;
  return e;
fail:
  for (int k = 0; k < nf; k++) free(files[k]);
  free(files);
  dyi_est_free(e);
  dyi_base_free(b);
  return NULL;
}

/* The estimate written: least squares, or with --consistent the
 * semidefinite program's (its certificate into cons). Its summary (note: a
 * warning line; src: where the rows came from, NULL: the logs) is the '#'
 * lines of the --model-out file, written first, and of the PARAMS file;
 * the model file is removed again when PARAMS cannot be written. *beta:
 * the estimate written. 0, or -1 after printing. */
static int write_estimate(const cliArgs* c, const dyModel* m, const dyiBase* b, const dyiEstim* e, const idOpt* io,
                          dyiConsResult* cr, const char* note, const char* rows_note, const char* src,
                          const double** beta) {
  char err[DY_ERRSZ];
  *beta = e->beta;
  char cons[8192] = "";
  dyiLinkBound lb[DY_MAXJ];
  memset(lb, 0, sizeof lb);
  if (io->consistent) {
    if (identify_consistent(c, m, b, e, io, cr, lb, cons, sizeof cons)) return -1;
    *beta = cr->beta;
  }
  char* comment = summary(c, m, b, e, *beta, note, cons, rows_note, src);
  if (!comment) { cli_fail("out of memory"); return -1; }
  const char* mout = cli_opt(c, "model-out");
  int rc = 0;
  double pi14[DY_MAXPAR] = {0};   /* the consistent pi, joint parameters 0 without friction */
  if (io->consistent) memcpy(pi14, cr->pi, sizeof(double) * (size_t)b->npar);
  if (mout && write_model(mout, m, b, *beta, io->consistent ? cr->pi : NULL, io->consistent ? lb : NULL, comment,
                          io->quiet)) rc = -1;
  else if (write_params(cli_opt(c, "o"), m, b, io->consistent && cr->std ? cr->std : e->std, *beta,
                        io->consistent ? pi14 : NULL, io->consistent ? cr->scale : NULL, comment, err, sizeof err)) {
    if (mout) remove(mout);
    cli_fail("%s", err);
    rc = -1;
  }
  free(comment);
  return rc;
}

/* identify MODEL --stats FILES: merge, optionally save the merged
 * statistics (and stop there without -o), estimate (OLS/WLS,
 * --consistent) and write PARAMS; the summary names the files, logs and
 * rows merged and the row options they were made with. Frees m. */
static int identify_from_stats(const cliArgs* c, dyModel* m, const idOpt* io) {
  char err[DY_ERRSZ];
  int rc = 1, n = m->n;
  dyiBase* b = NULL;
  dyiStatsHead acc;
  dyiConsResult cr;
  memset(&cr, 0, sizeof cr);
  dyiEstim* e = merge_stats(c, m, &io->eo, &b, &acc);
  if (!e) goto done;
  if (io->stats_out && save_stats(io->stats_out, m, b, e, &acc, NULL, 0)) goto done;
  if (io->stats_out && !cli_opt(c, "o")) {
    if (!io->quiet)
      fprintf(stderr, "identify: %ld statistics files (%ld logs, %ld samples) merged into %s\n", acc.files, acc.logs,
              e->samples, io->stats_out);
    rc = 0;
    goto done;
  }
  if (dyi_est_finish(e, err, sizeof err)) { cli_fail("identify --stats: %s", err); goto done; }
  char src[1024], rows_note[700];
  snprintf(src, sizeof src, "statistics: %ld files merged, %ld logs, %ld rows read, %ld dropped",
           acc.files, acc.logs, acc.rows_read, acc.rows_dropped);
  snprintf(rows_note, sizeof rows_note, "rows: %s; std scaled for the filtered noise by %.4g\n", acc.options,
           sqrt(acc.var_factor));
  const double* beta;
  if (write_estimate(c, m, b, e, io, &cr, "", rows_note, src, &beta)) goto done;
  if (!io->quiet) {
    fprintf(stderr, "identify: %ld statistics files, %ld logs, %ld samples x %d joints, %d base parameters "
            "(set %s, method %s, friction %s)\n", acc.files, acc.logs, e->samples, n, b->nb, dyi_base_set_name(b->set),
            method_name(io->eo.method), acc.friction);
    fprintf(stderr, "condition number %.6g (%.6g after column scaling)\n", e->cond, e->cond_scaled);
    for (int w = 0; w < e->nwarn && w < DYI_MAXWARN; w++) fprintf(stderr, "dynid: warning: %s\n", e->warn[w]);
  }
  rc = 0;
done:
  dyi_cons_free(&cr);
  dyi_est_free(e);
  dyi_base_free(b);
  dy_free_model(m);
  return rc;
}

/* Where the rows come from: logs, or --stats files (then --method irls and
 * the log options are refused: IRLS reweights every row, and the files
 * carry the options they were made with). --save-stats without -o folds
 * the rows and saves them, no estimate; --consistent and --model-out need
 * the estimate. 0, or 2 after printing the usage error. */
static int identify_sources(const cliArgs* c, idOpt* io) {
  io->stats_in = cli_opt(c, "stats");
  io->stats_out = cli_opt(c, "save-stats");
  if (!io->stats_in && c->npos < 2) return cli_usage("identify: give a log (or --stats FILES)");
  if (io->stats_in) {
    if (io->eo.method == DYI_IRLS)
      return cli_usage("identify: --stats allows --method ols or wls (IRLS reweights every row: it needs the logs)");
    static const char* const logopts[] = {"no-header", "map", "gain", "rows", "cutoff", "on-bad", "time-scale",
                                          "decimate", "resample", "qd-min", "filter-order", "derive",
                                          "drop-stale", "no-parallel", "block", "threads"};
    for (size_t k = 0; k < sizeof logopts / sizeof logopts[0]; k++)
      if (cli_opt(c, logopts[k]) || cli_flag(c, logopts[k]))
        return cli_usage("identify: --%s goes with logs; statistics (--stats) carry the options they were "
                         "made with", logopts[k]);
  }
  int no_o = io->stats_out && !cli_opt(c, "o");
  if (no_o && !io->stats_in && !io->consistent && !cli_opt(c, "model-out")) io->eo.fold_only = 1;
  if (no_o && (io->consistent || cli_opt(c, "model-out")))
    return cli_usage("identify: --consistent and --model-out need -o PARAMS");
  return 0;
}

/* --bounds auto|none|FILE, --mass-range LO,HI|none, --total-mass KG, --boot N:
 * only with --consistent. The estimator keeps 4 parts of the rows for the
 * prior weight's cross-validation. 0, or 2 after printing the usage error. */
static int consistent_options(const cliArgs* c, idOpt* io) {
  io->bounds = cli_opt(c, "bounds") ? cli_opt(c, "bounds") : "auto";
  io->mass_lo = DYI_MASS_LO;
  io->mass_hi = DYI_MASS_HI;
  const char* mr = cli_opt(c, "mass-range");
  if (!io->consistent && (cli_opt(c, "bounds") || mr || cli_opt(c, "total-mass") || cli_opt(c, "boot")))
    return cli_usage("identify: --bounds, --mass-range, --total-mass and --boot go with --consistent");
  if (mr && !strcmp(mr, "none")) { io->mass_lo = 0; io->mass_hi = INFINITY; }
  else if (mr) {
    char* e1;
    io->mass_lo = strtod(mr, &e1);
    char* e2 = e1;
    if (*e1 == ',') io->mass_hi = strtod(e1 + 1, &e2);
    if (*e1 != ',' || *e2 || !(io->mass_lo >= 0) || !(io->mass_hi > 0) || !isfinite(io->mass_lo))
      return cli_usage("identify: --mass-range must be LO,HI (factors on the nominal mass, 0 <= LO <= HI) or "
                       "none, got '%s'", mr);
    if (io->mass_lo > io->mass_hi)
      return cli_usage("identify: --mass-range %s: LO > HI (no mass is in it)", mr);
  }
  if (cli_double(c, "total-mass", 0, &io->total_mass)) return 2;
  if (cli_opt(c, "total-mass") && !(io->total_mass > 0 && isfinite(io->total_mass)))
    return cli_usage("identify: --total-mass must be a mass > 0 [kg], got '%s'", cli_opt(c, "total-mass"));
  if (cli_int(c, "boot", DYI_BOOT, &io->boot)) return 2;
  if (io->boot < 0 || io->boot > 10000) return cli_usage("identify: --boot must be 0..10000 re-solves");
  if (io->consistent) { io->eo.folds = DYI_CV_PARTS; io->eo.fold_len = 32; }
  return 0;
}

/* Options: --set khalil|lin|qr (default khalil, as dynid base), --method
 * ols|wls|irls, --block 1..65536 samples, --threads 1..256 (default the
 * cores), --friction[=LIST]; --prior, --prior-weight (>= 0) and --min-eig
 * (>= 0) only with --consistent; a log or --stats, and --stats without
 * IRLS and without the log options (the files carry those). --save-stats
 * without -o only folds the rows (no estimate), which --consistent and
 * --model-out cannot follow. 0, or 2 after printing the usage error. */
static int identify_options(const cliArgs* c, idOpt* io) {
  memset(io, 0, sizeof *io);
  const char* meth = cli_opt(c, "method");
  io->set = cli_opt(c, "set");
  if (!io->set) io->set = "khalil";
  io->kind = dyi_base_set_parse(io->set, NULL, 0);
  if (io->kind == DYI_SET_NONE) return cli_usage("identify: --set must be qr, khalil or lin, got '%s'", io->set);
  dyiEstOpt* eo = &io->eo;
  dyi_est_defaults(eo);
  if (!meth || !strcmp(meth, "ols")) eo->method = DYI_OLS;
  else if (!strcmp(meth, "wls")) eo->method = DYI_WLS;
  else if (!strcmp(meth, "irls")) eo->method = DYI_IRLS;
  else return cli_usage("identify: --method must be ols, wls or irls, got '%s'", meth);
  long block, ncpu = sysconf(_SC_NPROCESSORS_ONLN), threads;
  if (cli_int(c, "block", 256, &block)) return 2;
  if (block < 1 || block > 1 << 16) return cli_usage("identify: --block must be 1..65536");
  eo->block = (int)block;
  if (cli_int(c, "threads", ncpu > 0 ? ncpu : 1, &threads)) return 2;
  if (threads < 1 || threads > 256) return cli_usage("identify: --threads must be 1..256");
  eo->threads = (int)threads;
  io->friction = cli_flag(c, "friction");
  io->quiet = cli_flag(c, "quiet");
  io->keep = 15u;
  if (io->friction && cli_kinds(c, &io->keep)) return 2;
  io->consistent = cli_flag(c, "consistent");
  if (cli_double(c, "prior-weight", -1, &io->prior_w) || cli_double(c, "min-eig", 0, &io->min_eig)) return 2;
  if (!io->consistent && (cli_opt(c, "prior") || cli_opt(c, "prior-weight") || cli_opt(c, "min-eig")))
    return cli_usage("identify: --prior, --prior-weight and --min-eig go with --consistent");
  if (cli_opt(c, "prior-weight") && !(io->prior_w >= 0 && isfinite(io->prior_w)))
    return cli_usage("identify: --prior-weight must be a number >= 0, got '%s'", cli_opt(c, "prior-weight"));
  if (!(io->min_eig >= 0 && isfinite(io->min_eig)))
    return cli_usage("identify: --min-eig must be a number >= 0 (kg m^2 on the inertia block, kg on the "
                     "mass), got '%s'", cli_opt(c, "min-eig"));
  return consistent_options(c, io) ? 2 : identify_sources(c, io);
}

/* --save-stats with logs: the estimator's triangles, the row options and
 * each log's rows, rate, cutoff and decimation. 1 when that was all
 * (--save-stats without -o: a line on standard error unless quiet), 0 to
 * go on to the estimate, -1 after printing. */
static int save_log_stats(const cliArgs* c, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                          dyiLogReader* const* rs, int nlog, const idOpt* io) {
  dyiStatsHead h;
  dyiStatsLog sl[16];
  memset(&h, 0, sizeof h);
  stats_options(c, h.options, sizeof h.options);
  h.var_factor = e->opt.var_factor > 0 ? e->opt.var_factor : 1;
  h.logs = nlog; h.files = 1;
  for (int k = 0; k < nlog; k++) {
    dyiLogInfo lk;
    dyi_log_info(rs[k], &lk);
    sl[k].path = c->pos[1 + k]; sl[k].rows_read = lk.rows_read; sl[k].rows_dropped = lk.rows_dropped;
    sl[k].fs = lk.fs; sl[k].fc = lk.fc; sl[k].decim = lk.parallel ? lk.decim : 1;
    h.rows_read += lk.rows_read; h.rows_dropped += lk.rows_dropped;
  }
  if (save_stats(io->stats_out, m, b, e, &h, sl, nlog)) return -1;
  if (!io->eo.fold_only) return 0;
  if (!io->quiet)
    fprintf(stderr, "identify: statistics of %ld samples from %d log%s (%ld rows read, %ld dropped) written to %s\n",
            e->samples, nlog, nlog == 1 ? "" : "s", h.rows_read, h.rows_dropped, io->stats_out);
  return 1;
}

/* What the filtering did to the rows, for the summary: rows_note (the
 * parallel filter: stopband, decimation D, samples left out at each end,
 * and the std scaled for the filtered noise) and corr, a warning when the
 * std are too small. A torque low-pass filtered at fc and kept at fs/D has
 * residuals correlated over ~fs/(2 fc D) samples: the std (which assume
 * independent equations) are then too small by about the square root of
 * that (measured on simulated Panda logs, 1 kHz, fc = 50 Hz: spread/std
 * 3.1 without decimation, 1.06 with --decimate 10); warned above 1.5. */
static void filter_notes(const dyiLogOpt* lo, const dyiLogInfo* li, const dyiEstim* e, char* rows_note, size_t rsz,
                         char* corr, size_t csz) {
  if (li->parallel && (li->fstop > 0 || li->decim > 1))   /* --cutoff none: nothing filtered */
    snprintf(rows_note, rsz, "rows: parallel filtering: torque and regressor columns low-passed "
             "(zero-phase FIR, stopband %.4g Hz) and decimated by %d; %d samples left out at each file end; "
             "std scaled for the filtered noise by %.4g\n", li->fstop, li->decim, li->guard, sqrt(e->opt.var_factor));
  int D = lo->decimate > 1 ? lo->decimate : 1;
  double ratio = li->fc > 0 && lo->filter_tau && !li->parallel ? li->fs / (2 * li->fc * D) : 0;
  if (ratio > 1.5)
    snprintf(corr, csz, "the torque is low-pass filtered at %.3g Hz and kept at %.4g Hz: "
             "residuals are correlated and the std are too small (by up to ~%.2gx); use --decimate %d "
             "for honest std", li->fc, li->fs / D, sqrt(ratio), (int)lround(li->fs / (2 * li->fc)));
}

/* the parameters held instead of estimated (--fix, --drop), one line */
static void print_held(const dyModel* m, const dyiBase* b) {
  char t[1024];
  if (dyi_base_fix_text(m, b, t, sizeof t) > 0) fprintf(stderr, "held (not estimated): %s\n", t);
}

/* The PARAMS header's "low-pass:" line: each log's cutoff [Hz] (or none),
 * and whether it is the default measured on the log (ident/log.h), then
 * the lines `then`; the header parser (ident/params.h, dyiParams.cutoff)
 * reads the first cutoff. */
static void lowpass_lines(dyiLogReader* const* rs, int nlog, const char* then, char* out, size_t sz) {
  size_t L = (size_t)snprintf(out, sz, "low-pass:");
  for (int k = 0; k < nlog && L < sz; k++) {
    dyiLogInfo li;
    dyi_log_info(rs[k], &li);
    if (li.fc > 0)
      L += (size_t)snprintf(out + L, sz - L, "%s %.6g Hz (%s)", k ? "," : "", li.fc,
                            li.fc_measured ? "default, measured on the log" : "--cutoff");
    else L += (size_t)snprintf(out + L, sz - L, "%s none", k ? "," : "");
  }
  if (L < sz) snprintf(out + L, sz - L, "\n%s", then);
}

/* The summary on standard error: samples, passes, each log's rows, rate
 * and cutoff, the filtering, the condition number, per joint the training
 * residual of the estimate written (rms, relative error) beside the noise
 * std, the method's note, then the warnings: correlated residuals, the
 * estimator's (the poorly identified ones on their own line), and base
 * parameters far from the nominal model's. */
static void print_log_summary(const cliArgs* c, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                              dyiLogReader* const* rs, int nlog, const idOpt* io, const double* beta,
                              const double* std, const char* rows_note, const char* corr) {
  int n = m->n;
  fprintf(stderr, "identify: %ld samples x %d joints, %d base parameters (set %s, method %s%s), "
          "%d pass%s over the %s\n", e->samples, n, b->nb, dyi_base_set_name(b->set), method_name(io->eo.method),
          io->friction ? ", friction" : "", e->iterations, e->iterations == 1 ? "" : "es", nlog > 1 ? "logs" : "log");
  for (int k = 0; k < nlog; k++) {
    dyiLogInfo li;
    dyi_log_info(rs[k], &li);
    char lp[64] = "none";
    if (li.fc > 0) snprintf(lp, sizeof lp, "%.6g Hz%s", li.fc, li.fc_measured ? " (the default, measured on the log)" : "");
    fprintf(stderr, "log%s%s: %ld rows read, %ld dropped, sample rate %.6g Hz, low-pass %s%s%s%s\n",
            nlog > 1 ? " " : "", nlog > 1 ? c->pos[1 + k] : "", li.rows_read, li.rows_dropped, li.fs, lp,
            li.units[0] ? "; units from the header (" : "", li.units, li.units[0] ? ", converted to SI)" : "");
  }
  if (rows_note[0]) fprintf(stderr, "%s", rows_note);
  print_held(m, b);
  fprintf(stderr, "condition number %.6g (%.6g after column scaling)\n", e->cond, e->cond_scaled);
  double rms[DY_MAXJ + 1], rel[DY_MAXJ + 1];
  fit_residuals(e, beta, rms, rel);
  fprintf(stderr, "joint  residual_rms  rel_err_pct  noise_std%s\n", io->consistent ? "   (consistent estimate)" : "");
  for (int j = 0; j < n; j++)
    fprintf(stderr, "%5d  %12.6g  %11.4g  %9.4g\n", j + 1, rms[j], rel[j], e->sigma_j[j]);
  fprintf(stderr, "  all  %12.6g  %11.4g\n", rms[n], rel[n]);
  if (io->eo.method == DYI_IRLS)
    fprintf(stderr, "IRLS: %ld equations down-weighted in the last pass (smallest weight %.3g); "
            "noise_std is the robust scale 1.4826 MAD\n", e->downweighted, e->weight_min);
  if (io->eo.method == DYI_WLS)
    fprintf(stderr, "WLS: rows of joint j weighted by 1/noise_std_j\n");
  if (corr[0]) fprintf(stderr, "dynid: warning: %s\n", corr);
  for (int w = 0; w < e->nwarn && w < DYI_MAXWARN; w++)
    if (!strstr(e->warn[w], "poorly identified")) fprintf(stderr, "dynid: warning: %s\n", e->warn[w]);
  cli_poorly_identified(e, beta, std);
  cli_nominal_outliers(m, b, e, beta);
  if (e->nwarn > DYI_MAXWARN) fprintf(stderr, "dynid: warning: ... and %d more estimator warnings\n", e->nwarn - DYI_MAXWARN);
}

/* The estimate failed with err: too few samples says where they went (the
 * filter's edges, decimation, of the first log r0); a combination the data
 * do not determine names the --drop options that would hold it. */
static void identify_failed(const cliArgs* c, const dyModel* m, const dyiBase* b, dyiLogReader* r0, int nlog,
                            const char* err) {
  char why[600] = "";
  dyiLogInfo li;
  dyi_log_info(r0, &li);
  if (!strncmp(err, "not enough data", 15) && li.parallel && (li.guard > 0 || li.decim > 1))
    snprintf(why, sizeof why, " (the log gives %ld samples; the low-pass filter leaves out %d at each end of "
             "a file and the rows are decimated by %d: a longer log, or --cutoff none, keeps more)",
             li.samples, li.guard, li.decim);
  char hint[300];
  cli_drop_hint(m, b, err, hint, sizeof hint);
  if (hint[0] && !why[0])   /* holding one parameter of the combination removes it */
    snprintf(why, sizeof why, " (%s: %s)", strstr(hint, " or ") ? "or hold one of them" : "or hold it", hint);
  cli_fail("%s: %s%s", nlog > 1 ? "identify" : c->pos[1], err, why);
}

/* The base parameters of identify's set with the joints' friction kept
 * (dyi_base_make, its proof included, and dyi_base_keep_joint): b, or
 * NULL with err. Run beside the logs' first pass. */
typedef struct {
  const dyModel* m;
  const idOpt* io;
  dyiBase* b;
  char err[DY_ERRSZ];
} baseJob;

static void* base_job(void* arg) {
  baseJob* j = arg;
  j->b = dyi_base_make(j->m, j->io->kind, j->io->friction, j->err, sizeof j->err);
  if (j->b && dyi_base_keep_joint(j->m, j->b, j->io->keep, j->err, sizeof j->err)) {
    dyi_base_free(j->b);
    j->b = NULL;
  }
  return NULL;
}

/* identify MODEL LOG...: the log options of every log checked first (one
 * set for all; --rows may give one range per log) -> base set -> each log
 * opened, watched for mistakes (cli_watch_start) -> rows into the estimator
 * (dyi_identify_logs) -> --save-stats -> estimate and files -> the
 * scan's warnings, then the summary. Frees m. */
static int identify_from_logs(const cliArgs* c, dyModel* m, const idOpt* io) {
  int n = m->n, nlog = c->npos - 1, rc;
  dyiLogOpt lo, lok;
  dyiLogReader* rs[16] = {NULL};
  cliWatch* watch[16] = {NULL};   /* each log's checks, in the pass that reads it */
  for (int k = 0; k < nlog; k++)
    if ((rc = cli_logopt_k(c, m, k, nlog, k ? &lok : &lo))) { dy_free_model(m); return rc; }
  char err[DY_ERRSZ];
  rc = 1;
  dyiEstim* e = NULL;
  dyiConsResult cr;
  memset(&cr, 0, sizeof cr);
  /* the base set's proof (tens of ms) on a thread of its own while the
   * logs are opened (their first pass, which measures the cutoff, reads
   * the whole file); its errors come first, as when it ran before them */
  baseJob bj = {m, io, NULL, ""};
  pthread_t bth;
  const int bthread = io->eo.threads > 1 && !pthread_create(&bth, NULL, base_job, &bj);
  if (!bthread) base_job(&bj);
  dyiBase* b = NULL;
  int kbad = -1, optbad = 0;
  for (int k = 0; k < nlog; k++) {
    if (k && cli_logopt_k(c, m, k, nlog, &lok)) { optbad = 1; break; }
    watch[k] = cli_watch_start(c, m, k ? &lok : &lo);   /* units, rates, model */
    rs[k] = dyi_log_open(c->pos[1 + k], n, k ? &lok : &lo, err, sizeof err);
    if (!rs[k]) { kbad = k; break; }
  }
  if (bthread) pthread_join(bth, NULL);
  if (!(b = bj.b)) { cli_fail("%s", bj.err); goto done; }
  if ((rc = cli_held_apply(c, m, b, io->held_k, io->held_v, io->nheld))) goto done;
  rc = 1;
  if (b->note[0] && !io->quiet) fprintf(stderr, "dynid: warning: %s\n", b->note);
  if (optbad) goto done;
  if (kbad >= 0) { cli_fail_log(c->pos[1 + kbad], kbad ? &lok : &lo, n, err); goto done; }
  prog_logs = rs; prog_nlog = nlog;
  e = dyi_identify_logs(m, b, rs, nlog, &io->eo, progress, err, sizeof err);
  prog_nlog = 0;
  if (!e) { identify_failed(c, m, b, rs[0], nlog, err); goto done; }
  int saved = io->stats_out ? save_log_stats(c, m, b, e, rs, nlog, io) : 0;
  if (saved) { rc = saved > 0 ? 0 : 1; goto done; }
  dyiLogInfo li;
  dyi_log_info(rs[0], &li);
  char rows_note[256] = "", corr[DYI_WARNSZ] = "", hdr_note[1024];
  filter_notes(&lo, &li, e, rows_note, sizeof rows_note, corr, sizeof corr);
  lowpass_lines(rs, nlog, rows_note, hdr_note, sizeof hdr_note);   /* the PARAMS header's */
  const double* beta;
  int nwarn = 0;
  for (int k = 0; k < nlog; k++) nwarn += cli_watch_end(c, watch[k], c->pos[1 + k], 1);
  if (nwarn && cli_flag(c, "strict")) { cli_strict_fail("identify", nwarn); goto done; }
  if (write_estimate(c, m, b, e, io, &cr, corr, hdr_note, NULL, &beta)) goto done;
  cli_flush_warnings(1);
  if (!io->quiet) print_log_summary(c, m, b, e, rs, nlog, io, beta, io->consistent ? cr.std : NULL, rows_note, corr);
  rc = 0;
done:
  dyi_cons_free(&cr);
  for (int k = 0; k < nlog; k++) dyi_log_close(rs[k]);
  for (int k = 0; k < nlog; k++) cli_watch_free(watch[k]);   /* after its reader */
  dyi_est_free(e);
  dyi_base_free(b);
  dy_free_model(m);
  return rc;
}

/* --fix NAME=VALUE, --drop NAME: parsed against model m (cli_held); not
 * with statistics files, which record the set without them. 0 or 2. */
static int identify_held(const cliArgs* c, const dyModel* m, idOpt* io) {
  int rc = cli_held(c, m, io->held_k, io->held_v, &io->nheld);
  if (rc || !io->nheld) return rc;
  if (io->stats_in || io->stats_out)
    return cli_usage("identify: --fix and --drop do not go with --stats or --save-stats (statistics files do not "
                     "record held parameters)");
  return 0;
}

/* options -> model -> from the logs or from statistics files */
int cmd_identify(cliArgs* c) {
  int rc = cli_check(c, "set,method,friction,quiet,block,threads,stats,save-stats,consistent,prior,prior-weight,"
                     "min-eig,model-out,bounds,mass-range,total-mass,boot,fix,drop," CLI_GAINS_OPTS CLI_LOG_OPTS, 1, 16, USAGE);
  if (rc) return rc;
  if (cli_gains_wanted(c)) return cmd_identify_gains(c);   /* reports/cmd_gains.c */
  idOpt io;
  if ((rc = identify_options(c, &io))) return rc;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  if ((rc = identify_held(c, m, &io))) { dy_free_model(m); return rc; }
  if (io.stats_in) return identify_from_stats(c, m, &io);
  return identify_from_logs(c, m, &io);
}
