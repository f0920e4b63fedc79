/* dynid program: report, one self-contained HTML page on an identified
 * model and the logs it is judged on.
 *
 *   dynid report MODEL PARAMS LOG... -o REPORT.html [--title T]
 *                [--horizon S] [log options]
 *
 * Sections: the model; identifiability (which standard parameters are
 * identifiable, in which combinations); the base parameters with value,
 * standard deviation and expression; the identification summary of the
 * PARAMS file (condition number, samples); per log: data-quality findings,
 * the metrics of `dynid validate` (computed by the same validator, so the
 * numbers are the same), measured against predicted torque per joint,
 * residual histograms, per-joint errors and the smallest eigenvalue of the
 * inertia matrix along the log; the physical consistency of the MLCs.
 * Plots are inline SVG drawn by PLplot (reports/plot.h). The page is
 * well-formed XML (XHTML), so xmllint can check it. */
#include "cli.h"
#include "base.h"
#include "dynamics.h"
#include "params.h"
#include "plot.h"
#include "quality.h"
#include "validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXPTS 20000   /* samples kept per log for the plots (thinned beyond) */

static void esc(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else if (*s == '"') fputs("&quot;", f);
    else if ((unsigned char)*s < 32 && *s != '\n' && *s != '\t') fputc('?', f);
    else fputc(*s, f);
  }
}

/* the text a function printed into a memory stream, escaped into <pre> */
static void pre_begin(char** buf, size_t* len, FILE** mf) { *buf = NULL; *len = 0; *mf = open_memstream(buf, len); }
static void pre_end(FILE* f, char** buf, FILE* mf, const char* cls) {
  fclose(mf);                  /* sets *buf */
  fprintf(f, "<pre class=\"%s\">", cls);
  esc(f, *buf ? *buf : "");
  fputs("</pre>\n", f);
  free(*buf);
}

typedef struct {
  long n, stride, seen;
  double* t;            /* kept samples' time (MAXPTS) */
  double* meas;         /* n_j x MAXPTS, joint-major */
  double* pred;
  double* eig;          /* smallest eigenvalue of H (MAXPTS) */
} series_t;

static const char* css =
  "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
  "h1{border-bottom:2px solid #1f77b4}h2{margin-top:2em;border-bottom:1px solid #ccc}"
  "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
  "th{background:#eef}td.l{text-align:left;font-family:monospace}tr.warn td{background:#fee}"
  "pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:85%}"
  ".grid{display:flex;flex-wrap:wrap}.grid svg{width:540px;height:auto}.ok{color:#2a2}.bad{color:#c22}"
  "svg{max-width:100%;height:auto}";

int cmd_report(dyCli* c) {
  static const char* use =
      "dynid report MODEL PARAMS LOG... -o REPORT.html [--title TEXT] [--horizon SECONDS]\n"
      "       [log options: --map NAME=COLUMN --gain K1,..,Kn --rows A..B --cutoff HZ --derive qd|qdd ...]";
  int r = cli_check(c, "title,horizon," CLI_LOG_OPTS, 3, 16, use);
  if (r) return r;
  if (!cli_opt(c, "o")) return cli_usage("report: -o REPORT.html is required");
  double horizon;
  if (cli_double(c, "horizon", 0.05, &horizon)) return 2;

  dyModel* m = cli_model(c);
  if (!m) return 1;
  const int n = m->n;
  char err[DY_ERRSZ];
  int status = 1, opened = 0;
  dyParams* prm = NULL;
  double* par = NULL;
  unsigned char* zero = NULL;
  dyvPhys phys;
  memset(&phys, 0, sizeof phys);
  series_t S;
  memset(&S, 0, sizeof S);
  dyOut o;
  dyLogOpt lopt;
  dyi_log_defaults(&lopt);
  if ((r = cli_logopt(c, n, &lopt)) != 0) { status = r; goto done; }
  prm = dyi_params_read(c->pos[1], m, err, sizeof err);
  if (!prm) { cli_fail("%s", err); goto done; }
  par = malloc(sizeof(double) * (size_t)(14 * n));
  zero = malloc((size_t)(14 * n));
  S.t = malloc(sizeof(double) * MAXPTS);
  S.eig = malloc(sizeof(double) * MAXPTS);
  S.meas = malloc(sizeof(double) * MAXPTS * (size_t)n);
  S.pred = malloc(sizeof(double) * MAXPTS * (size_t)n);
  if (!par || !zero || !S.t || !S.eig || !S.meas || !S.pred) { cli_fail("report: out of memory"); goto done; }
  if (dyv_realise_sparse(m, prm->base, prm->value, par, zero, err, sizeof err)) { cli_fail("%s", err); goto done; }

  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  FILE* f = o.f;
  const char* title = cli_opt(c, "title");
  char tbuf[300];
  if (!title) { snprintf(tbuf, sizeof tbuf, "dynid report: %s", m->source); title = tbuf; }
  fprintf(f, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\"/>\n<title>");
  esc(f, title);
  fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
  esc(f, title);
  fputs("</h1>\n", f);

  /* ---- model */
  fputs("<h2 id=\"model\">Model</h2>\n<p>", f);
  char types[DY_MAXJ + 1];
  for (int j = 0; j < n; j++) types[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
  types[n] = 0;
  fprintf(f, "Source <code>");
  esc(f, m->source);
  fprintf(f, "</code>: %d joints (%s), modified Denavit-Hartenberg; gravity in frame 0 "
             "(%.4g, %.4g, %.4g) m/s<sup>2</sup>; conversion check %.2g.</p>\n",
          n, types, m->gravity[0], m->gravity[1], m->gravity[2], m->load_fk_err);
  fputs("<table><tr><th>joint</th><th>type</th><th>alpha [rad]</th><th>a [m]</th><th>theta [rad]</th><th>d [m]</th>"
        "<th>nominal mass [kg]</th></tr>\n", f);
  for (int j = 0; j < n; j++)
    fprintf(f, "<tr><td>%d</td><td>%c</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.4g</td></tr>\n",
            j + 1, types[j], m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j], m->par[10*j + DY_M]);
  fputs("</table>\n", f);

  /* ---- identifiability */
  fputs("<h2 id=\"identifiability\">Identifiability</h2>\n", f);
  fprintf(f, "<p>%d base parameters (minimal linear combinations) over %d standard parameters%s. "
             "Each standard parameter is identifiable alone, only in combination, or not at all:</p>\n",
          prm->base->nb, prm->base->npar, prm->base->npar > 10 * n ? " (with joint friction and armature)" : "");
  {
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    dyi_base_report(mf, m, prm->base);
    pre_end(f, &buf, mf, "ident");
  }

  /* ---- parameters */
  fputs("<h2 id=\"parameters\">Base parameters</h2>\n", f);
  if (prm->comment[0]) {
    fputs("<p>Identification summary (from the parameters file):</p>\n<pre>", f);
    esc(f, prm->comment);
    fputs("</pre>\n", f);
  }
  fputs("<table><tr><th>name</th><th>value</th><th>std</th><th>rel. std [%]</th><th>expression</th></tr>\n", f);
  int nwarn = 0;
  for (int i = 0; i < prm->base->nb; i++) {
    double v = prm->value[i], sd = prm->std[i], rel = fabs(v) > 0 ? 100 * sd / fabs(v) : INFINITY;
    int warn = isfinite(sd) && !(rel <= 10);
    nwarn += warn;
    char expr[4096];
    dyi_base_expr(m, prm->base, i, expr, sizeof expr);
    fprintf(f, "<tr%s><td class=\"l\">", warn ? " class=\"warn\"" : "");
    esc(f, prm->base->name[i]);
    fprintf(f, "</td><td>%.6g</td><td>%.3g</td><td>%.3g</td><td class=\"l\">", v, sd, rel);
    esc(f, expr);
    fputs("</td></tr>\n", f);
  }
  fprintf(f, "</table>\n<p>%d parameter%s with a relative standard deviation above 10 %% (shaded): "
             "poorly excited, or with little effect on the torque.</p>\n", nwarn, nwarn == 1 ? "" : "s");

  /* ---- each log */
  for (int li = 2; li < c->npos; li++) {
    const char* path = c->pos[li];
    fprintf(f, "<h2 id=\"log%d\">Held-out data: <code>", li - 1);
    esc(f, path);
    fputs("</code></h2>\n", f);
    dyLogReader* lr = dyi_log_open(path, n, &lopt, err, sizeof err);
    if (!lr) { cli_fail("%s", err); goto done; }
    dyvValidator* v = dyv_validator_make(m, par, zero, horizon);
    if (!v) { dyi_log_close(lr); cli_fail("report: out of memory"); goto done; }
    dySample s;
    double tau[DY_MAXJ];
    long cnt = 0;
    int k;
    S.n = 0; S.stride = 1; S.seen = 0;
    while ((k = dyi_log_next(lr, &s, err, sizeof err)) == 1) {
      dyv_validator_add(v, &s);
      if (S.seen++ % S.stride == 0) {
        if (S.n == MAXPTS) {          /* thin what is kept by two */
          for (long a = 0; a < MAXPTS / 2; a++) {
            S.t[a] = S.t[2*a]; S.eig[a] = S.eig[2*a];
            for (int j = 0; j < n; j++) {
              S.meas[j*MAXPTS + a] = S.meas[j*MAXPTS + 2*a];
              S.pred[j*MAXPTS + a] = S.pred[j*MAXPTS + 2*a];
            }
          }
          S.n = MAXPTS / 2;
          S.stride *= 2;
        }
        if ((S.seen - 1) % S.stride == 0) {
          dyv_nebase_rnea(&v->plan, v->d, v->par, s.q, s.qd, s.qdd, tau);
          dy_crba(m, v->d, v->par, s.q, v->H);
          S.t[S.n] = s.t;
          S.eig[S.n] = dyv_mineig(v->H, n, v->work);
          for (int j = 0; j < n; j++) { S.meas[j*MAXPTS + S.n] = s.tau_raw[j]; S.pred[j*MAXPTS + S.n] = tau[j]; }
          S.n++;
        }
      }
      if ((++cnt & 1023) == 0) cli_progress("report", cnt, "samples", 0);
    }
    cli_progress("report", cnt, "samples", 1);
    if (k < 0 || cnt == 0) {
      if (k >= 0) snprintf(err, sizeof err, "%s: the log has no samples", path);
      dyv_validator_free(v); dyi_log_close(lr);
      cli_fail("%s", err);
      goto done;
    }
    /* data quality */
    fputs("<h3>Data quality</h3>\n", f);
    {
      char* buf; size_t len; FILE* mf;
      pre_begin(&buf, &len, &mf);
      dyi_quality_print(mf, dyi_log_quality(lr));
      pre_end(f, &buf, mf, "quality");
    }
    dyi_log_close(lr);
    /* metrics: the validator's own CSV, as a table */
    fputs("<h3>Torque prediction</h3>\n", f);
    char* csv = NULL; size_t clen = 0;
    char* notes = NULL; size_t nlen = 0;
    FILE* mc = open_memstream(&csv, &clen);
    FILE* mn = open_memstream(&notes, &nlen);
    dyv_validator_write(v, mc, mn);
    fclose(mc); fclose(mn);
    fputs("<table class=\"metrics\"><tr><th>joint</th><th>rms [N m]</th><th>rel. error [%]</th><th>R<sup>2</sup></th></tr>\n", f);
    double rel[DY_MAXJ + 1];
    int nrel = 0;
    for (char* line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
      if (line[0] == '#' || !strncmp(line, "joint,", 6)) continue;
      char name[32], ta[40], tb[40], tc[40];
      if (sscanf(line, "%31[^,],%39[^,],%39[^,],%39s", name, ta, tb, tc) != 4) continue;
      /* the validator's own text, so the page shows exactly what validate prints */
      fprintf(f, "<tr><td>");
      esc(f, name);
      fprintf(f, "</td><td>");
      esc(f, ta);
      fprintf(f, "</td><td>");
      esc(f, tb);
      fprintf(f, "</td><td>");
      esc(f, tc);
      fprintf(f, "</td></tr>\n");
      if (nrel <= n) rel[nrel++] = strtod(tb, NULL);
    }
    fputs("</table>\n<pre class=\"notes\">", f);
    esc(f, notes ? notes : "");
    fputs("</pre>\n", f);
    free(csv); free(notes);
    fprintf(f, "<p>Inertia matrix along the log: %s (smallest eigenvalue %.4g at t = %.4g s).</p>\n",
            v->not_pd ? "<span class=\"bad\">NOT positive definite everywhere</span>"
                      : "<span class=\"ok\">positive definite at every sample</span>", v->mineig, v->mineig_t);
    dyv_validator_free(v);

    fputs("<div class=\"grid\">\n", f);
    const char* jl[DY_MAXJ];
    char jlbuf[DY_MAXJ][16];
    for (int j = 0; j < n; j++) { snprintf(jlbuf[j], 16, "%d", j + 1); jl[j] = jlbuf[j]; }
    if (nrel >= n) {
      dypFrame fb = {"relative error per joint (held-out)", "joint", "100 ||e|| / ||tau|| [%]", 540, 300};
      dyp_bars(f, &fb, jl, rel, n);
    }
    dypFrame fe = {"smallest eigenvalue of the inertia matrix", "time [s]", "lambda_min [kg m^2]", 540, 300};
    const double* ye[1] = {S.eig};
    const char* ne[1] = {"lambda_min(M(q))"};
    dyp_lines(f, &fe, S.t, (int)S.n, ye, ne, 1);
    double* resid = malloc(sizeof(double) * (size_t)S.n);
    for (int j = 0; j < n && resid; j++) {
      char tt[96];
      snprintf(tt, sizeof tt, "joint %d: measured and predicted torque", j + 1);
      dypFrame fl = {tt, "time [s]", m->jnt_type[j] == DY_REVOLUTE ? "torque [N m]" : "force [N]", 540, 300};
      const double* y2[2] = {S.meas + j*MAXPTS, S.pred + j*MAXPTS};
      const char* n2[2] = {"measured", "predicted"};
      dyp_lines(f, &fl, S.t, (int)S.n, y2, n2, 2);
      for (long a = 0; a < S.n; a++) resid[a] = S.meas[j*MAXPTS + a] - S.pred[j*MAXPTS + a];
      snprintf(tt, sizeof tt, "joint %d: residual (measured - predicted)", j + 1);
      dypFrame fh = {tt, m->jnt_type[j] == DY_REVOLUTE ? "residual [N m]" : "residual [N]", "density", 540, 300};
      dyp_histogram(f, &fh, resid, (int)S.n, 40);
    }
    free(resid);
    fputs("</div>\n", f);
  }

  /* ---- physical consistency */
  fputs("<h2 id=\"physical\">Physical consistency</h2>\n", f);
  if (dyv_phys_check(&phys, m, par, prm->base->B, prm->base->nb, prm->base->npar, err, sizeof err)) {
    cli_fail("%s", err);
    goto done;
  }
  {
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    dyv_phys_print(mf, &phys);
    pre_end(f, &buf, mf, "phys");
  }
  fputs("<p>Written by dynid. Torque predicted by the base-parameter Newton-Euler on a realisation of the "
        "identified base parameters; measured torque as logged (never filtered).</p>\n</body>\n</html>\n", f);
  if (dy_out_commit(&o, err, sizeof err)) { opened = 0; cli_fail("%s", err); goto done; }
  opened = 0;
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  dyv_phys_free(&phys);
  if (prm) dyi_params_free(prm);
  free(par); free(zero); free(S.t); free(S.eig); free(S.meas); free(S.pred);
  dy_freeModel(m);
  return status;
}
