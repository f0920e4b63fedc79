/* SPDX-License-Identifier: MIT */
/* dynid program: report, one self-contained HTML page on an identified
 * model and the logs it is judged on, for one parameter set or two side by
 * side (e.g. the unconstrained and the physically consistent estimate).
 *
 *   dynid report MODEL PARAMS LOG... -o REPORT.html [--compare PARAMS2]
 *                [--labels A,B] [--models FILES_A[,FILES_B]] [--title T]
 *                [--horizon S] [log options]
 *
 * --models gives, per set, the model files written from it (identify
 * --model-out), several of one set joined by '+': the first is read
 * (dy_load_model; same arm, same modified-DH geometry) for the per-link
 * table, all are linked from the page. An empty entry: none for that set.
 *
 * Sections: the model; the parameter sets at a glance (training residual
 * from the PARAMS headers, held-out error per log, physical consistency,
 * model files); identifiability (which standard parameters are
 * identifiable, in which combinations); the base parameters of each set
 * with value, standard deviation and expression; per log: data-quality
 * findings, the metrics of `dynid validate` of each set (computed by the
 * same validator, so the numbers are the same), measured against predicted
 * torque per joint, residual histograms, per-joint errors and the smallest
 * eigenvalue of the inertia matrix along the log; the physical consistency
 * of each set (certified verdict) and, per link, nominal against
 * identified mass, centre of mass and principal moments with the link's
 * validity. The identified links are the standard parameters the PARAMS
 * file carries ("#! pi" lines: the ones its estimate was solved as, checked
 * link by link, no search); else they come from the set's model file, or
 * from the closest physically consistent realisation of its base
 * parameters (nearest the nominal model where the data are blind).
 * Plots are inline SVG drawn by PLplot (reports/plot.h). The page is
 * well-formed XML (XHTML), so xmllint can check it. */
#include "reports/cli.h"
#include "reports/version.h"
#include "ident/base.h"
#include "ident/consistent.h"
#include "ident/identify.h"
#include "core/dynamics.h"
#include "ident/params.h"
#include "reports/plot.h"
#include "ident/quality.h"
#include "verify/validate.h"
#include "core/mathu.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXPTS 20000   /* samples kept per log for the plots (thinned beyond) */
#define MAXSET 2       /* PARAMS and --compare PARAMS2 */
#define MAXFILES 4     /* model files linked per set */
#define MAXLOG 14      /* held-out logs */

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

/* One parameter set and what the page says about it. */
typedef struct {
  const char* path;           /* PARAMS file */
  char label[64];
  dyiParams* prm;
  double* par;                /* sparse realisation (14n) for the torque */
  double* scale;              /* each base parameter's scale ||tau|| / ||Y_k|| (nb) */
  unsigned char* zero;        /* its structural zeros */
  dyvPhys phys;               /* certified consistency of the base parameters */
  int nfiles;
  char* files[MAXFILES];      /* model files written from the set (owned) */
  double* links;              /* standard parameters shown per link (14n) */
  int from_file;              /* 1: links read from files[0]; 0: solver realisation */
  int carried;                /* 1: links = the standard parameters the PARAMS file carries */
  double links_dist;          /* relative distance of B links from the base parameters */
  int witness;                /* the model file is a consistent realisation of the set */
  double train_rel, train_rise;  /* from the PARAMS header (NaN if absent) */
  int consistent_est;         /* the header carries a `consistent:` certificate */
  char heldout[MAXLOG][40];   /* "all" relative error per log, as validate prints it */
  double heldj[MAXLOG][DY_MAXJ + 1];  /* per joint, then all [%] */
  long not_pd[MAXLOG], samples[MAXLOG];
} reportSet;

/* the nominal model on each log: the baseline an identification must beat */
static int have_nominal;
static double nominal_rel[MAXLOG][DY_MAXJ + 1];

typedef struct {
  long n, stride, seen;
  double* t;                  /* kept samples' time (MAXPTS) */
  double* meas;               /* n_j x MAXPTS, joint-major */
  double* pred[MAXSET];       /* per set, as meas */
  double* eig[MAXSET];        /* smallest eigenvalue of H per set (MAXPTS) */
} reportSeries;

static const char* css =
  "body{font-family:sans-serif;max-width:1300px;margin:2em auto;color:#222}"
  "h1{border-bottom:2px solid #1f77b4}h2{margin-top:2em;border-bottom:1px solid #ccc}"
  "table{border-collapse:collapse;font-size:90%;margin:0.5em 0}"
  "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
  "th{background:#eef}td.l{text-align:left;font-family:monospace}td.t{text-align:left}"
  "tr.warn td{background:#fee}tr.nom td{background:#f4f4f4;color:#555}td.warn{background:#fee}"
  "table.links td{white-space:nowrap}table.links tr.nom td{border-top:2px solid #999}"
  "td.link{background:#fff !important;color:#222 !important;text-align:center;font-weight:bold}"
  "pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:85%}"
  ".grid{display:flex;flex-wrap:wrap}.grid svg{width:540px;height:auto}.ok{color:#2a2}.bad{color:#c22}"
  ".wide{overflow-x:auto}summary{cursor:pointer;margin:0.5em 0}"
  "svg{max-width:100%;height:auto}"
  ".summary{border:2px solid #1f77b4;border-radius:6px;padding:0.2em 1.2em 0.8em;background:#f8fbff}"
  ".summary h2{margin-top:0.6em;border:none}table.kv th{text-align:left;width:12em}table.kv td{min-width:40em}"
  "table.errs td{min-width:3.5em}table.errs td.all{font-weight:bold}p.cap{margin:0.8em 0 0.2em}"
  "td.nomv{color:#555;background:#f4f4f4}";

static const char* base_name(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* href of file relative to the directory of the page at out (both as
 * given on the command line; falls back to file itself) */
static void rel_href(const char* out, const char* file, char* buf, size_t bufsz) {
  char dir[PATH_MAX], od[PATH_MAX], fp[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", out);
  char* sl = strrchr(dir, '/');
  if (sl) *sl = 0; else snprintf(dir, sizeof dir, ".");
  if (!realpath(dir, od) || !realpath(file, fp)) { snprintf(buf, bufsz, "%s", file); return; }
  size_t common = 0;             /* length of the common directory prefix */
  for (size_t i = 0; od[i] && od[i] == fp[i]; i++)
    if (od[i + 1] == 0 && fp[i + 1] == '/') common = i + 1;
    else if (od[i] == '/') common = i;
  if (!strcmp(od, "/")) common = 0;
  buf[0] = 0;
  size_t L = 0;
  for (const char* s = od + common; *s; s++)       /* one "../" per directory left in od */
    if (*s == '/' && L + 4 < bufsz) { memcpy(buf + L, "../", 4); L += 3; }
  snprintf(buf + L, bufsz - L, "%s", fp + common + (fp[common] == '/'));
}

/* links to the set's model files, or a dash */
static void file_links(FILE* f, const reportSet* s, const char* out) {
  if (!s->nfiles) { fputs("-", f); return; }
  for (int k = 0; k < s->nfiles; k++) {
    char href[PATH_MAX + 64];
    rel_href(out, s->files[k], href, sizeof href);
    fputs(k ? "<br/><a href=\"" : "<a href=\"", f);
    for (const char* c = href; *c; c++) if (*c == ' ') fputs("%20", f); else { char b[2] = {*c, 0}; esc(f, b); }
    fputs("\">", f);
    esc(f, base_name(s->files[k]));
    fputs("</a>", f);
  }
}

/* --models A1+A2,B1: the files of each set. 0, or 2 after printing usage. */
static int split_models(const char* spec, reportSet* set, int nset) {
  if (!spec) return 0;
  int k = 0;
  for (const char* s = spec;; k++) {
    const char* e = strchr(s, ',');
    size_t L = e ? (size_t)(e - s) : strlen(s);
    if (k >= nset) return cli_usage("report: --models has more entries than parameter sets (%d)", nset);
    for (const char* a = s; a < s + L;) {
      const char* b = memchr(a, '+', (size_t)(s + L - a));
      size_t la = b ? (size_t)(b - a) : (size_t)(s + L - a);
      if (la) {
        if (set[k].nfiles == MAXFILES) return cli_usage("report: --models: at most %d files per set", MAXFILES);
        set[k].files[set[k].nfiles] = strndup(a, la);
        if (!set[k].files[set[k].nfiles++]) return cli_usage("report: out of memory");
      }
      a += la + (b != NULL);
    }
    if (!e) break;
    s = e + 1;
  }
  return 0;
}

/* pose of frame j of the model fm in frame j of m at joint positions q:
 * x_m = Q x_fm + t */
static void frame_in_frame(const dyModel* m, const dyModel* fm, const double* q, int j, double Q[9], double t[3]) {
  double R[9], p[3], Rf[9], pf[3], d[3];
  dy_fk(m, q, j, R, p);
  dy_fk(fm, q, j, Rf, pf);
  dyu_mulMatTMat3(Q, R, Rf);
  for (int k = 0; k < 3; k++) d[k] = pf[k] - p[k];
  dyu_mulMatTVec3(t, R, d);
}

/* a link's ten parameters carried into another frame (x_new = Q x + t)
 * through its pseudo-inertia, which transforms as T PI T^T for any mass */
static void link_to_frame(double out[10], const double in[10], const double Q[9], const double t[3]) {
  double P[16], T[16] = {Q[0], Q[1], Q[2], t[0], Q[3], Q[4], Q[5], t[1], Q[6], Q[7], Q[8], t[2], 0, 0, 0, 1};
  double TP[16], O[16];
  dy_pseudo_inertia(in, P);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) {
      TP[4*r + c] = 0;
      for (int k = 0; k < 4; k++) TP[4*r + c] += T[4*r + k] * P[4*k + c];
    }
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) {
      O[4*r + c] = 0;
      for (int k = 0; k < 4; k++) O[4*r + c] += TP[4*r + k] * T[4*c + k];
    }
  double tr = O[0] + O[5] + O[10];   /* J = tr(E) 1 - E, E the 3x3 block */
  out[DY_XX] = tr - O[0]; out[DY_XY] = -O[1]; out[DY_XZ] = -O[2];
  out[DY_YY] = tr - O[5]; out[DY_YZ] = -O[6]; out[DY_ZZ] = tr - O[10];
  out[DY_MX] = O[3]; out[DY_MY] = O[7]; out[DY_MZ] = O[11]; out[DY_M] = O[15];
}

/* The links of set s from its first model file, a table or URDF of the
 * same arm: same joints, and each of its link frames fixed to the same
 * link as m's (the relative pose is the same at two configurations). Its
 * links are carried into m's frames (a URDF may come back in other
 * modified-DH frames). 0, or -1 after printing the error. */
static int links_from_file(const cliArgs* c, const dyModel* m, reportSet* s) {
  char err[DY_ERRSZ];
  dyModel* fm = NULL;
  dyLoadOpt lo = c->load;
  lo.classic_dh = 0;               /* dynid writes modified DH */
  if (dy_load_model(s->files[0], &lo, &fm, err, sizeof err)) { cli_fail("%s", err); return -1; }
  const int n = m->n;
  int bad = -1;
  if (fm->n == n) {
    double q0[DY_MAXJ] = {0}, q1[DY_MAXJ];
    for (int j = 0; j < n; j++) q1[j] = 0.3 + 0.17 * j;
    for (int j = 0; j < n && bad < 0; j++) {
      double Q0[9], t0[3], Q1[9], t1[3], dev = 0;
      frame_in_frame(m, fm, q0, j, Q0, t0);
      frame_in_frame(m, fm, q1, j, Q1, t1);
      for (int k = 0; k < 9; k++) dev = fmax(dev, fabs(Q0[k] - Q1[k]));
      for (int k = 0; k < 3; k++) dev = fmax(dev, fabs(t0[k] - t1[k]));
      if (fm->jnt_type[j] != m->jnt_type[j] || !(dev <= 1e-6)) bad = j;
      else link_to_frame(s->links + DY_NPAR_LINK*j, fm->par + DY_NPAR_LINK*j, Q0, t0);
    }
  }
  int st = fm->n != n || bad >= 0 ? -1 : 0;
  if (fm->n != n)
    cli_fail("%s: %d joints, the model %s has %d (--models must describe the same arm)",
             s->files[0], fm->n, m->source, n);
  else if (bad >= 0)
    cli_fail("%s: joint %d moves differently from the model %s (--models must describe the same arm)",
             s->files[0], bad + 1, m->source);
  else
    memcpy(s->links + DY_NPAR_LINK*n, fm->par + DY_NPAR_LINK*n, sizeof(double) * (size_t)(DY_NPAR_JNT*n));
  dy_free_model(fm);
  s->from_file = 1;
  return st;
}

/* the relative scale of base parameter i in the distance of
 * dyi_consistent_check: 1 / max(|beta_i|, 1e-3 max |beta|) */
static double rel_scale(const double* beta, int p, int i) {
  double big = 0;
  for (int k = 0; k < p; k++) big = fmax(big, fabs(beta[k]));
  return 1 / fmax(fabs(beta[i]), 1e-3 * big + 1e-300);
}

/* The links of set s without a model file: the closest physically
 * consistent realisation of its base parameters (in the relative distance
 * of dyi_consistent_check); among equally close ones, the nearest to the
 * nominal model (a tiny prior weight, so the base parameters come first).
 * 0, or -1 after printing. */
static int links_from_solver(const dyModel* m, reportSet* s) {
  const dyiBase* b = s->prm->base;
  const int p = b->nb, n = m->n;
  double* R = calloc((size_t)p * (size_t)p, sizeof(double));
  double* z = malloc(sizeof(double) * (size_t)p);
  if (!R || !z) { free(R); free(z); { cli_fail("report: out of memory"); return -1; } }
  double mass = 0;
  for (int i = 0; i < p; i++) {
    R[i + (size_t)p * i] = rel_scale(s->prm->value, p, i);
    z[i] = R[i + (size_t)p * i] * s->prm->value[i];
  }
  for (int j = 0; j < n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  dyiConsProblem pr = {.p = p, .npar = b->npar, .K = b->B, .R = R, .ldr = p, .z = z,
                       .prior = mass > 0 ? m->par : NULL, .prior_weight = mass > 0 ? 1e-9 : 0};
  dyiConsResult r;
  char err[DY_ERRSZ];
  int st = dyi_consistent(m, &pr, &r, err, sizeof err);
  free(R); free(z);
  if (st) { cli_fail("%s: %s", s->path, err); return -1; }
  memcpy(s->links, r.pi, sizeof(double) * (size_t)b->npar);
  for (int k = b->npar; k < dy_npar(m); k++) s->links[k] = 0;
  dyi_cons_free(&r);
  s->from_file = 0;
  return 0;
}

/* relative distance of the links from the base parameters, as
 * dyi_consistent_check measures it: || D (B links - beta) || */
static double links_distance(const reportSet* s) {
  const dyiBase* b = s->prm->base;
  double d2 = 0;
  for (int i = 0; i < b->nb; i++) {
    double v = 0;
    for (int k = 0; k < b->npar; k++) v += b->B[(size_t)i * b->npar + k] * s->links[k];
    double e = (v - s->prm->value[i]) * rel_scale(s->prm->value, b->nb, i);
    d2 += e * e;
  }
  return sqrt(d2);
}

/* the verdict on set s: certified consistent, certified inconsistent or
 * undecided; carried standard parameters that fail are inconsistent
 * themselves (another realisation of their base parameters may not be) */
static const char* verdict_text(const reportSet* s) {
  int v = s->phys.verdict;
  if (s->carried && v != 1) return "<span class=\"bad\">inconsistent standard parameters</span>";
  return v == 1 ? "<span class=\"ok\">certified consistent</span>"
       : v == 0 ? "<span class=\"bad\">inconsistent (certified)</span>" : "undecided";
}

/* one set's base-parameter rows (value, std, rel. std) as table cells,
 * shaded when poorly identified (dyi_ident_class, the rule of identify's
 * terminal list); a parameter without std is held by a bound */
static void param_cells(FILE* f, const reportSet* s, int i) {
  double v = s->prm->value[i], sd = s->prm->std[i], rel = s->prm->rel_std_pct[i];
  if (!isfinite(rel)) rel = fabs(v) > 0 ? 100 * sd / fabs(v) : INFINITY;   /* as the file says, else of |value| */
  dyiIdClass c = dyi_ident_class(v, sd, s->scale[i]);
  const char* warn = c == DYI_ID_POOR ? " class=\"warn\"" : "";
  if (c == DYI_ID_BOUND) fprintf(f, "<td>%.6g</td><td colspan=\"2\" class=\"t\">held by a bound</td>", v);
  else fprintf(f, "<td>%.6g</td><td%s>%.3g</td><td%s>%.3g</td>", v, warn, sd, warn, rel);
}

static int same_base(const dyiParams* a, const dyiParams* b) {
  if (a->base->nb != b->base->nb) return 0;
  for (int i = 0; i < a->base->nb; i++)
    if (strcmp(a->base->name[i], b->base->name[i])) return 0;
  return 1;
}

/* The header row naming each set over its three columns (several sets),
 * then the column names: first, the set's three, then last. */
static void set_header(FILE* f, reportSet* const* sv, int ns, const char* first, const char* three, const char* last) {
  if (ns > 1) {
    int lead = 1;
    for (const char* s = first; (s = strstr(s, "<th")); s++) lead++;   /* several leading columns */
    fprintf(f, "<tr><th colspan=\"%d\"></th>", lead);
    for (int k = 0; k < ns; k++) { fputs("<th colspan=\"3\">", f); esc(f, sv[k]->label); fputs("</th>", f); }
    fputs(last ? "<th></th></tr>\n" : "</tr>\n", f);
  }
  fprintf(f, "<tr><th>%s</th>", first);
  for (int k = 0; k < ns; k++) fputs(three, f);
  if (last) fprintf(f, "<th>%s</th>", last);
  fputs("</tr>\n", f);
}

/* The base-parameter table: one set, or several over the same base set
 * (name, then value/std/rel. std of each set, then the expression). */
static void param_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns) {
  const dyiBase* b = sv[0]->prm->base;
  fputs("<div class=\"wide\"><table>", f);
  set_header(f, sv, ns, "name</th><th>nominal", "<th>value</th><th>std</th><th>rel. std [%]</th>", "expression");
  for (int i = 0; i < b->nb; i++) {
    char expr[4096];
    dyi_base_expr_fmt(m, b, i, 1, expr, sizeof expr);   /* for reading: the fewest digits */
    fputs("<tr><td class=\"l\">", f);
    esc(f, b->name[i]);
    double nom = 0;   /* the nominal model's value of this combination */
    for (int k = 0; k < b->npar; k++) nom += b->B[(size_t)i * b->npar + k] * m->par[k];
    fprintf(f, "</td><td class=\"nomv\">%.6g</td>", nom);
    for (int k = 0; k < ns; k++) param_cells(f, sv[k], i);
    fputs("<td class=\"l\">", f);
    esc(f, expr);
    fputs("</td></tr>\n", f);
  }
  fputs("</table></div>\n", f);
  for (int k = 0; k < ns; k++) {
    /* the lines `dynid identify` prints on the terminal, by the same rule */
    const reportSet* s = sv[k];
    const char** names = malloc(sizeof(char*) * (size_t)b->nb);
    if (!names) continue;
    for (int i = 0; i < b->nb; i++) names[i] = s->prm->base->name[i];
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    if (ns > 1) fprintf(mf, "%s:\n", s->label);
    cli_ident_lines(mf, b->nb, names, s->prm->value, s->prm->std, s->scale);
    pre_end(f, &buf, mf, "poorly");
    free(names);
  }
  fputs("<p>Shaded: poorly identified (relative standard deviation above 10 % and standard deviation above "
        "1e-3 of the parameter's scale ||tau|| / ||Y_k||, here over the rows of the training logs among this "
        "report's logs, else of all of them), as <code>dynid identify</code> flags them: poorly excited, or "
        "with little effect on the torque. The nominal column is the same combination of the model file's "
        "parameters.</p>\n", f);
}

/* keep sample s of the log for the plots (thinning by two when full) */
static void keep_sample(reportSeries* S, int n, int ns, const dyiSample* s, dyvValidator* const* v) {
  if (S->seen++ % S->stride) return;
  if (S->n == MAXPTS) {
    for (long a = 0; a < MAXPTS / 2; a++) {
      S->t[a] = S->t[2*a];
      for (int k = 0; k < ns; k++) S->eig[k][a] = S->eig[k][2*a];
      for (int j = 0; j < n; j++) {
        S->meas[j*MAXPTS + a] = S->meas[j*MAXPTS + 2*a];
        for (int k = 0; k < ns; k++) S->pred[k][j*MAXPTS + a] = S->pred[k][j*MAXPTS + 2*a];
      }
    }
    S->n = MAXPTS / 2;
    S->stride *= 2;
    if ((S->seen - 1) % S->stride) return;
  }
  S->t[S->n] = s->t;
  for (int j = 0; j < n; j++) S->meas[j*MAXPTS + S->n] = s->tau_raw[j];
  for (int k = 0; k < ns; k++) {
    double tau[DY_MAXJ];
    dyv_nebase_rnea(&v[k]->plan, v[k]->d, v[k]->par, s->q, s->qd, s->qdd, tau);
    dy_crba(v[k]->m, v[k]->d, v[k]->dyn, s->q, v[k]->H);
    S->eig[k][S->n] = dyv_mineig(v[k]->H, n, v[k]->work);
    for (int j = 0; j < n; j++) S->pred[k][j*MAXPTS + S->n] = tau[j];
  }
  S->n++;
}

/* 1 when the PARAMS file p was identified on log path (its header's logs) */
static int trained_on(const dyiParams* p, const char* path) {
  for (int k = 0; k < p->nlog; k++)
    if (!strcmp(p->log[k], path)) return 1;
  return 0;
}

/* The role of a log on the page from the PARAMS header (the logs and the
 * --rows it was identified on): held out, held-out rows of the training
 * log, or the training data itself (then the errors measure the fit). */
static void log_role(const dyiParams* p, const char* path, const char* rows, char* buf, size_t sz) {
  int trained = trained_on(p, path);
  const char* trows = p->rows;
  if (!trained) snprintf(buf, sz, "Held-out log");
  else if (rows && strcmp(rows, trows))
    snprintf(buf, sz, "Held-out rows %s of the training log%s%s%s", rows, trows[0] ? " (identified on rows " : "",
             trows, trows[0] ? ")" : "");
  else snprintf(buf, sz, "Training log (not held out: these errors measure the fit, not a prediction)");
}

/* a validator's notes with what did not happen said as such */
static void notes_text(FILE* f, const char* notes) {
  for (const char* s = notes; s && *s;) {
    size_t L = strcspn(s, "\n");
    const char* z = strstr(s, " 0 compared samples, ");
    if (z && z < s + L)
      fprintf(f, "# forward simulation: not run to the end of any horizon: every step failed (%ld restarts), "
              "as forward dynamics needs a positive definite inertia matrix (see above)\n",
              strtol(z + 21, NULL, 10));
    else { fwrite(s, 1, L, f); fputc('\n', f); }
    s += L + (s[L] == '\n');
  }
}

/* The nominal model's errors on a log (the baseline an identification
 * must beat), from its validator's CSV text: the relative error of each
 * joint and of all, into nominal_rel[li]; have_nominal when all n + 1 rows
 * were read. Frees vn. */
static void nominal_baseline(dyvValidator* vn, int li, int n) {
  char* csv = NULL; size_t clen = 0;
  FILE* mc = open_memstream(&csv, &clen);
  if (mc) {
    dyv_validator_write(vn, mc, NULL);
    fclose(mc);
    int row = 0;
    for (char* line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
      char name[32]; double rms, rel;
      if (line[0] == '#' || row > n || sscanf(line, "%31[^,],%lf,%lf", name, &rms, &rel) != 3) continue;
      nominal_rel[li][row++] = rel;
    }
    have_nominal = row == n + 1;
  }
  free(csv);
  dyv_validator_free(vn);
}

/* The pass over one log: every sample into each set's validator (and the
 * nominal model's, when the model has masses), the samples kept for the
 * plots into S; then the baseline and the log's data-quality findings
 * into f. v[k]: the validators, to be freed by the caller; *cnt: the
 * samples. 0, or -1 after printing (a reader error, or no samples). */
static int log_pass(FILE* f, int li, const char* path, const dyModel* m, reportSet* const* sv, int ns,
                    const dyiLogOpt* lopt, double horizon, reportSeries* S, dyvValidator** v, long* cnt) {
  const int n = m->n;
  char err[DY_ERRSZ];
  dyiLogReader* lr = dyi_log_open(path, n, lopt, err, sizeof err);
  if (!lr) { cli_fail_log(path, lopt, n, err); return -1; }
  for (int k = 0; k < ns; k++)
    if (!(v[k] = dyv_validator_make(m, sv[k]->par, sv[k]->zero, sv[k]->prm->pi, horizon))) {
      dyi_log_close(lr);
      { cli_fail("report: out of memory"); return -1; }
    }
  double mass = 0;
  for (int j = 0; j < n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  dyvValidator* vn = mass > 0 ? dyv_validator_make(m, m->par, NULL, NULL, 0) : NULL;
  dyiSample s;
  int r;
  *cnt = 0;
  S->n = 0; S->stride = 1; S->seen = 0;
  while ((r = dyi_log_next(lr, &s, err, sizeof err)) == 1) {
    for (int k = 0; k < ns; k++) dyv_validator_add(v[k], &s);
    if (vn) dyv_validator_add(vn, &s);
    keep_sample(S, n, ns, &s, v);
    if ((++*cnt & 1023) == 0) {
      long long done, total;
      dyi_log_progress(lr, &done, &total);
      cli_progress_of("report", *cnt, "samples", done, total, 0);
    }
  }
  cli_progress("report", *cnt, "samples", 1);
  if (r < 0 || *cnt == 0) {
    if (r >= 0) snprintf(err, sizeof err, "%s: the log has no samples", path);
    dyv_validator_free(vn);
    dyi_log_close(lr);
    { cli_fail("%s", err); return -1; }
  }
  if (vn) nominal_baseline(vn, li, n);
  fputs("<h3>Data quality</h3>\n", f);
  {
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    dyi_quality_print(mf, dyi_log_quality(lr));
    pre_end(f, &buf, mf, "quality");
  }
  dyi_log_close(lr);
  return 0;
}

/* The metrics of each set on one log, as its validator writes them (the
 * CSV text of `dynid validate`, so that the page shows exactly what
 * validate prints) and the notes after them. */
typedef struct {
  char cell[MAXSET][DY_MAXJ + 1][3][40];   /* rms, rel. error, R^2 per row */
  char rowname[DY_MAXJ + 1][32];           /* joint number, then "all" */
  char* notes[MAXSET];                     /* owned */
  double rel[MAXSET][DY_MAXJ + 1];         /* the relative errors as numbers [%] */
  int nrow;
} reportMetrics;

/* Each validator's CSV into M, and into the set: the relative error per
 * joint and "all" on log li (heldj, heldout), the samples and those where
 * the inertia matrix is not positive definite. */
static void log_metrics(reportMetrics* M, int li, int n, reportSet* const* sv, int ns, dyvValidator* const* v, long cnt) {
  for (int k = 0; k < ns; k++) {
    char* csv = NULL; size_t clen = 0, nlen = 0;
    FILE* mc = open_memstream(&csv, &clen);
    FILE* mn = open_memstream(&M->notes[k], &nlen);
    dyv_validator_write(v[k], mc, mn);
    fclose(mc); fclose(mn);
    int row = 0;
    for (char* line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
      if (line[0] == '#' || !strncmp(line, "joint,", 6) || row > n) continue;
      char name[32];
      if (sscanf(line, "%31[^,],%39[^,],%39[^,],%39s", name, M->cell[k][row][0], M->cell[k][row][1],
                 M->cell[k][row][2]) != 4) continue;
      if (k == 0) snprintf(M->rowname[row], sizeof M->rowname[row], "%s", name);
      M->rel[k][row] = strtod(M->cell[k][row][1], NULL);
      sv[k]->heldj[li][row] = M->rel[k][row];
      if (!strcmp(name, "all")) snprintf(sv[k]->heldout[li], sizeof sv[k]->heldout[li], "%s", M->cell[k][row][1]);
      row++;
    }
    free(csv);
    if (k == 0) M->nrow = row;
    sv[k]->not_pd[li] = v[k]->not_pd;
    sv[k]->samples[li] = cnt;
  }
}

/* The metrics table (the sets side by side), each set's notes (what did
 * not happen said as such) and the inertia matrix along the log: positive
 * definite at every sample, or on how many not, with its smallest
 * eigenvalue and when. Frees the notes. */
static void metrics_section(FILE* f, reportMetrics* M, reportSet* const* sv, int ns, dyvValidator* const* v, long cnt) {
  fputs("<h3>Torque prediction</h3>\n<table class=\"metrics\">", f);
  set_header(f, sv, ns, "joint", "<th>rms [N m]</th><th>rel. error [%]</th><th>R<sup>2</sup></th>", NULL);
  for (int row = 0; row < M->nrow; row++) {
    fputs("<tr><td>", f);
    esc(f, M->rowname[row]);
    fputs("</td>", f);
    for (int k = 0; k < ns; k++)
      for (int q = 0; q < 3; q++) { fputs("<td>", f); esc(f, M->cell[k][row][q]); fputs("</td>", f); }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
  for (int k = 0; k < ns; k++) {
    if (ns > 1) { fputs("<p>", f); esc(f, sv[k]->label); fputs(":</p>\n", f); }
    fputs("<pre class=\"notes\">", f);
    {
      char* nb = NULL; size_t nl = 0;
      FILE* nf = open_memstream(&nb, &nl);
      if (nf) { notes_text(nf, M->notes[k]); fclose(nf); }
      esc(f, nb ? nb : "");
      free(nb);
    }
    fputs("</pre>\n", f);
    free(M->notes[k]);
  }
  fputs("<p>Inertia matrix along the log: ", f);
  for (int k = 0; k < ns; k++) {
    if (ns > 1) { esc(f, sv[k]->label); fputs(" ", f); }
    if (v[k]->not_pd)
      fprintf(f, "<span class=\"bad\">NOT positive definite on %ld of %ld samples</span>", v[k]->not_pd, cnt);
    else
      fputs("<span class=\"ok\">positive definite at every sample</span>", f);
    fprintf(f, " (smallest eigenvalue %.4g at t = %.4g s)%s", v[k]->mineig, v[k]->mineig_t,
            k + 1 < ns ? "; " : ".</p>\n");
  }
}

/* The log's overview plots: the relative error per joint of each set
 * (when the metrics have a row per joint and "all") and the smallest
 * eigenvalue of the inertia matrix along the log. c0: the first set's
 * colour. */
static void plots_overview(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const reportSeries* S,
                           const reportMetrics* M, const char* const* names, int c0) {
  const int n = m->n;
  const char* jl[DY_MAXJ];
  char jlbuf[DY_MAXJ][16];
  for (int j = 0; j < n; j++) { snprintf(jlbuf[j], 16, "%d", j + 1); jl[j] = jlbuf[j]; }
  if (M->nrow > n) {
    const double* rv[MAXSET];
    for (int k = 0; k < ns; k++) rv[k] = M->rel[k];
    cliPlotFrame fb = {"relative error per joint (held-out)", "joint", "100 ||e|| / ||tau|| [%]", 540, 300, c0};
    dyp_groupbars(f, &fb, jl, rv, ns > 1 ? names : NULL, ns, n);
  }
  cliPlotFrame fe = {"smallest eigenvalue of the inertia matrix", "time [s]", "lambda_min [kg m^2]", 540, 300, c0};
  const double* ye[MAXSET];
  const char* ne[MAXSET];
  char nebuf[MAXSET][96];
  for (int k = 0; k < ns; k++) {
    ye[k] = S->eig[k];
    snprintf(nebuf[k], sizeof nebuf[k], ns > 1 ? "lambda_min(M(q)), %s" : "lambda_min(M(q))", sv[k]->label);
    ne[k] = nebuf[k];
  }
  dyp_lines(f, &fe, S->t, (int)S->n, ye, ne, ns);
}

/* Per joint: measured against each set's predicted torque along the log,
 * and the histogram of the residual e = measured - predicted of each set.
 * resid: room for S->n values per set. */
static void plots_joints(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const reportSeries* S,
                         const char* const* names, int c0, double* resid) {
  for (int j = 0; j < m->n; j++) {
    char tt[96];
    snprintf(tt, sizeof tt, "joint %d: measured and predicted torque", j + 1);
    cliPlotFrame fl = {tt, "time [s]", m->jnt_type[j] == DY_REVOLUTE ? "torque [N m]" : "force [N]", 540, 300, 0};
    const double* y[MAXSET + 1] = {S->meas + j*MAXPTS};
    const char* yn[MAXSET + 1] = {"measured"};
    char ynb[MAXSET][80];
    const double* rr[MAXSET];
    for (int k = 0; k < ns; k++) {
      y[k + 1] = S->pred[k] + j*MAXPTS;
      snprintf(ynb[k], sizeof ynb[k], ns > 1 ? "predicted, %s" : "predicted", sv[k]->label);
      yn[k + 1] = ynb[k];
      rr[k] = resid + k * S->n;
      for (long a = 0; a < S->n; a++) resid[k * S->n + a] = S->meas[j*MAXPTS + a] - S->pred[k][j*MAXPTS + a];
    }
    dyp_lines(f, &fl, S->t, (int)S->n, y, yn, ns + 1);
    snprintf(tt, sizeof tt, "joint %d: residual (measured - predicted)", j + 1);
    cliPlotFrame fh = {tt, m->jnt_type[j] == DY_REVOLUTE ? "residual [N m]" : "residual [N]", "density", 540, 300, c0};
    dyp_histograms(f, &fh, rr, (int)S->n, names, ns, 40);
  }
}

/* One held-out log: its section into f (heading, data quality, metrics,
 * plots). Each set keeps its colour from plot to plot (with two sets the
 * measurement takes the first colour, the sets the next ones). 0, or -1
 * after printing. */
static int log_section(FILE* f, int li, const char* path, const char* role, const dyModel* m, reportSet* const* sv,
                       int ns, const dyiLogOpt* lopt, double horizon, reportSeries* S) {
  fprintf(f, "<h2 id=\"log%d\">", li + 1);
  esc(f, role);
  fputs(": <code>", f);
  esc(f, path);
  fputs("</code></h2>\n", f);
  dyvValidator* v[MAXSET] = {NULL};
  long cnt;
  if (log_pass(f, li, path, m, sv, ns, lopt, horizon, S, v, &cnt)) {
    for (int k = 0; k < ns; k++) dyv_validator_free(v[k]);
    return -1;
  }
  reportMetrics M;
  for (int k = 0; k < MAXSET; k++) M.notes[k] = NULL;
  log_metrics(&M, li, m->n, sv, ns, v, cnt);
  metrics_section(f, &M, sv, ns, v, cnt);
  for (int k = 0; k < ns; k++) dyv_validator_free(v[k]);
  const int c0 = ns > 1 ? 2 : 0;
  const char* names[MAXSET + 1];
  for (int k = 0; k < ns; k++) names[k] = sv[k]->label;
  fputs("<div class=\"grid\">\n", f);
  plots_overview(f, m, sv, ns, S, &M, names, c0);
  double* resid = malloc(sizeof(double) * (size_t)(S->n * ns));
  if (resid) plots_joints(f, m, sv, ns, S, names, c0, resid);
  free(resid);
  fputs("</div>\n", f);
  return 0;
}

/* one row of the per-link table: mass, centre of mass, principal moments,
 * pseudo-inertia and validity of l against the nominal link nom (NULL: l
 * is the nominal link, first of its rows: the link number spans rows) */
static void link_row(FILE* f, int j, int rows, const char* who, const dyvLinkPhys* l, const dyvLinkPhys* nom) {
  if (!nom) fprintf(f, "<tr class=\"nom\"><td rowspan=\"%d\" class=\"link\">%d</td>", rows, j + 1);
  else fputs(l->ok ? "<tr>" : "<tr class=\"warn\">", f);
  fputs("<td class=\"t\">", f);
  esc(f, who);
  fprintf(f, "</td><td>%.4g</td>", l->mass);
  if (nom && nom->mass > 0) fprintf(f, "<td>%+.1f</td>", 100 * (l->mass - nom->mass) / nom->mass);
  else fputs("<td></td>", f);
  if (l->mass > 0) fprintf(f, "<td>%.1f</td><td>%.1f</td><td>%.1f</td>", 1e3 * l->com[0], 1e3 * l->com[1], 1e3 * l->com[2]);
  else fputs("<td>-</td><td>-</td><td>-</td>", f);
  if (nom && l->mass > 0 && nom->mass > 0) {
    double d[3] = {l->com[0] - nom->com[0], l->com[1] - nom->com[1], l->com[2] - nom->com[2]};
    fprintf(f, "<td>%.1f</td>", 1e3 * sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2]));
  } else fputs("<td></td>", f);
  fprintf(f, "<td>%.4g</td><td>%.4g</td><td>%.4g</td><td>%.3g</td><td class=\"t\">%s</td></tr>\n",
          l->pmom[0], l->pmom[1], l->pmom[2], l->pi_mineig,
          l->ok ? "<span class=\"ok\">valid</span>" : "<span class=\"bad\">INVALID</span>");
}

/* The certified verdict of each set: consistent (with the distance of
 * its consistent realisation), inconsistent (every consistent realisation
 * at least the certified distance away), or undecided (both); a model file
 * that witnesses consistency against a verdict that is not "consistent"
 * is pointed out as proof that the verdict is wrong. */
static void phys_verdicts(FILE* f, reportSet* const* sv, int ns) {
  for (int k = 0; k < ns; k++) {
    const dyvPhys* p = &sv[k]->phys;
    fputs("<li>", f);
    if (ns > 1) { fputs("<b>", f); esc(f, sv[k]->label); fputs("</b>: ", f); }
    fprintf(f, "%s: ", verdict_text(sv[k]));
    if (sv[k]->carried && p->verdict == 1)
      fprintf(f, "the parameters file carries physically consistent standard parameters, the ones the "
                 "estimate was solved as (every link's pseudo-inertia positive semi-definite%s).",
              p->joints ? ", IA, FV, FC &gt;= 0" : "");
    else if (sv[k]->carried) {
      fputs("the standard parameters the parameters file carries fail", f);
      const char* sep = " at link";
      for (int j = 0; j < p->n; j++)
        if (!p->given_ok[j]) { fprintf(f, "%s %d", sep, j + 1); sep = ","; }
      if (p->joints && !(p->joint_min >= -1e-9))
        fprintf(f, "%s IA, FV or FC (smallest %.4g)", sep[0] == ',' ? " and at" : " at", p->joint_min);
      fputs(" (<code>identify --consistent</code> writes them consistent: edited by hand?).", f);
    } else if (p->verdict == 1)
      fprintf(f, "a realisation with every link's pseudo-inertia positive semi-definite and IA, FV, FC "
                 ">= 0 reproduces the base parameters (relative distance %.2g).", sqrt(fmax(p->dist, 0)));
    else if (p->verdict == 0)
      fprintf(f, "every physically consistent realisation is at a relative distance &gt;= %.3g from the "
                 "base parameters.", sqrt(fmax(p->lower, 0)));
    else
      fprintf(f, "closest consistent realisation at relative distance %.3g, certified lower bound %.3g.",
              sqrt(fmax(p->dist, 0)), sqrt(fmax(p->lower, 0)));
    if (sv[k]->witness && p->verdict != 1) {
      fputs(" <span class=\"bad\">But the model file ", f);
      esc(f, base_name(sv[k]->files[0]));
      fprintf(f, " is a physically consistent realisation (every pseudo-inertia positive semi-definite, "
                 "IA, FV, FC &gt;= 0) of these base parameters to a relative %.2g: the verdict above is "
                 "wrong.</span>", sv[k]->links_dist);
    }
    fputs("</li>\n", f);
  }
}

/* The bounds each consistent set was identified within, as its PARAMS
 * header states them ("consistent: bounds ..." and one "consistent: link
 * J: ellipsoid ..." line per link): a list per set. */
static void bounds_list(FILE* f, reportSet* const* sv, int ns) {
  for (int k = 0; k < ns; k++) {
    const dyiParams* p = sv[k]->prm;
    int any = 0;
    for (int i = 0; i < p->nbound; i++) {
      if (!any++) {
        fputs("<p><b>Bounds", f);
        if (ns > 1) { fputs(" of ", f); esc(f, sv[k]->label); }
        fputs("</b> (ellipsoid centre and semi-axes in the link frame, R_j the radius about the frame's origin "
              "the mass must lie within, the mass range; margin 0: the bound holds the link):</p>\n<ul class=\"bounds\">\n", f);
      }
      char line[1024];
      snprintf(line, sizeof line, "%s", p->bound[i]);
      fputs("<li>", f); esc(f, line); fputs("</li>\n", f);
    }
    if (any) fputs("</ul>\n", f);
  }
}

/* Physical consistency of every set: certified verdicts, the per-link
 * table (nominal against each set's identified links), the details. */
static void phys_section(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const char* out) {
  const int n = m->n;
  fputs("<h2 id=\"physical\">Physical consistency</h2>\n<ul>\n", f);
  phys_verdicts(f, sv, ns);
  fputs("</ul>\n<h3 id=\"links\">Links: nominal against identified</h3>\n<p>Identified links:</p>\n<ul>\n", f);
  for (int k = 0; k < ns; k++) {
    const reportSet* s = sv[k];
    fputs("<li>", f);
    if (ns > 1) { fputs("<b>", f); esc(f, s->label); fputs("</b>: ", f); }
    if (s->carried) fputs("the standard parameters the parameters file carries (the ones the estimate was "
                          "solved as)", f);
    else if (s->from_file) { fputs("the model file ", f); file_links(f, s, out); }
    else fputs("the closest physically consistent realisation of the base parameters, nearest the nominal "
               "model in the directions the data do not fix", f);
    fprintf(f, "; relative distance from the base parameters %.2g", s->links_dist);
    if (s->links_dist > 1e-3 && s->phys.verdict != 1 && !s->carried)
      fputs(": it does not reproduce this estimate (no consistent realisation does); its links show where "
            "the nearest physically valid arm lies", f);
    fputs(".</li>\n", f);
  }
  fputs("</ul>\n<p>Mass and its change relative to the nominal model, centre of mass in the link frame and "
        "its distance from the nominal one, principal moments of inertia about the centre of mass "
        "(ascending), smallest eigenvalue of the pseudo-inertia (&gt;= 0: the link is physically valid). "
        "A consistent estimate keeps what the logs cannot see at the nominal values as far as its bounds and "
        "the data allow; its bounds follow the table.</p>\n", f);
  fputs("<div class=\"wide\"><table class=\"links\"><tr><th>link</th><th>parameters</th><th>mass [kg]</th>"
        "<th>&#916; mass [%]</th><th>com x [mm]</th><th>com y [mm]</th><th>com z [mm]</th>"
        "<th>&#916; com [mm]</th><th>I1 [kg m<sup>2</sup>]</th><th>I2 [kg m<sup>2</sup>]</th>"
        "<th>I3 [kg m<sup>2</sup>]</th><th>pseudo-inertia min eig</th><th>valid</th></tr>\n", f);
  for (int j = 0; j < n; j++) {
    dyvLinkPhys nom, id;
    dyv_link_phys(&nom, m->par + DY_NPAR_LINK*j);
    link_row(f, j, ns + 1, "nominal", &nom, NULL);
    for (int k = 0; k < ns; k++) {
      dyv_link_phys(&id, sv[k]->links + DY_NPAR_LINK*j);
      /* carried links: valid by the test that certified them (a pseudo-inertia on the
       * boundary of the semi-definite cone is valid) */
      if (sv[k]->carried) id.ok = sv[k]->phys.given_ok[j];
      link_row(f, j, ns + 1, sv[k]->label, &id, &nom);
    }
  }
  fputs("</table></div>\n", f);
  bounds_list(f, sv, ns);
  for (int k = 0; k < ns; k++) {
    fputs("<details><summary>Details of the consistency check", f);
    if (ns > 1) { fputs(": ", f); esc(f, sv[k]->label); }
    fputs("</summary>\n", f);
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    dyv_phys_print(mf, &sv[k]->phys);
    pre_end(f, &buf, mf, "phys");
    fputs("</details>\n", f);
  }
}

/* The sets at a glance: training residual, held-out error per log,
 * consistency verdict, model files. */
static void sets_section(FILE* f, reportSet* const* sv, int ns, const cliArgs* c, const char* out) {
  const int nlog = c->npos - 2;
  fputs("<h2 id=\"sets\">Parameter sets</h2>\n<div class=\"wide\"><table class=\"sets\"><tr><th>set</th>"
        "<th>parameters</th><th>training rel. error [%]</th>"
        "<th>training residual over least squares</th>", f);
  for (int li = 0; li < nlog; li++) {
    fputs("<th>held-out rel. error [%]: ", f);
    esc(f, base_name(c->pos[2 + li]));
    fputs("</th>", f);
  }
  fputs("<th>physical consistency</th><th>model files</th></tr>\n", f);
  for (int k = 0; k < ns; k++) {
    const reportSet* s = sv[k];
    fputs("<tr><td class=\"t\">", f);
    esc(f, s->label);
    fputs("</td><td class=\"l\">", f);
    esc(f, base_name(s->path));
    fprintf(f, "</td><td>%.4g</td>", s->train_rel);
    if (s->consistent_est) fprintf(f, "<td>%+.3g %%</td>", s->train_rise);
    else fputs("<td>0 % (the estimate)</td>", f);
    for (int li = 0; li < nlog; li++) { fputs("<td>", f); esc(f, s->heldout[li]); fputs("</td>", f); }
    fprintf(f, "<td class=\"t\">%s", verdict_text(s));
    long bad = 0, all = 0;
    for (int li = 0; li < nlog; li++) { bad += s->not_pd[li]; all += s->samples[li]; }
    if (bad) fprintf(f, "<br/>inertia matrix indefinite on %ld of %ld held-out samples", bad, all);
    fputs("</td><td class=\"t\">", f);
    file_links(f, s, out);
    fputs("</td></tr>\n", f);
  }
  fputs("</table></div>\n<p>Training residual from the parameters files' headers: the least-squares "
        "relative error on the training log (filtered torque) and, for an estimate made physically "
        "consistent, the rise of its weighted residual sum of squares over the least-squares optimum. "
        "Held-out errors are those of <code>dynid validate</code> (measured torque as logged).</p>\n", f);
}

/* The summary's error tables: per held-out log, the relative torque error
 * per joint and over all joints of every set, beside the nominal model's
 * (the baseline) when the model has masses. */
static void summary_errors(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const cliArgs* c, char (*role)[160]) {
  const int n = m->n, nlog = c->npos - 2;
  for (int li = 0; li < nlog; li++) {
    fputs("<p class=\"cap\">Relative torque error per joint [%] on <code>", f);
    esc(f, base_name(c->pos[2 + li]));
    fputs("</code> (", f);
    esc(f, role[li]);
    fputs("); lower is better</p>\n<table class=\"errs\"><tr><th>parameters</th>", f);
    for (int j = 0; j < n; j++) fprintf(f, "<th>%d</th>", j + 1);
    fputs("<th>all joints</th></tr>\n", f);
    for (int k = 0; k < ns; k++) {
      fputs("<tr><td class=\"t\"><b>", f);
      esc(f, sv[k]->label);
      fputs("</b></td>", f);
      for (int j = 0; j <= n; j++)
        fprintf(f, "<td%s>%.2f</td>", j == n ? " class=\"all\"" : "", sv[k]->heldj[li][j]);
      fputs("</tr>\n", f);
    }
    if (have_nominal) {
      fputs("<tr class=\"nom\"><td class=\"t\">nominal model (baseline)</td>", f);
      for (int j = 0; j <= n; j++) fprintf(f, "<td>%.2f</td>", nominal_rel[li][j]);
      fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
  }
}

/* The answer first: the arm, the data and their roles, the base
 * parameters and their conditioning, the held-out error per log and joint
 * of every set beside the nominal model's, the consistency verdicts. */
static void summary_box(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const cliArgs* c, char (*role)[160]) {
  const int n = m->n, nlog = c->npos - 2;
  const reportSet* s0 = sv[0];
  const dyiParams* p0 = s0->prm;
  char types[DY_MAXJ + 1], fp[96], cond[160] = "";
  for (int j = 0; j < n; j++) types[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
  types[n] = 0;
  cli_fingerprint(m, fp, sizeof fp);
  if (!isnan(p0->cond) && isnan(p0->cond_scaled)) snprintf(cond, sizeof cond, "%.6g", p0->cond);  /* an older header */
  else if (!isnan(p0->cond)) cli_cond_text(cond, sizeof cond, p0->cond, p0->cond_weighted, p0->cond_scaled);
  fputs("<div class=\"summary\"><h2 id=\"summary\">Summary</h2>\n<table class=\"kv\">\n<tr><th>arm</th><td class=\"t\"><code>", f);
  esc(f, m->source);
  fprintf(f, "</code>: %d joints (%s), fingerprint %s</td></tr>\n<tr><th>identified on</th><td class=\"t\">", n, types,
          strstr(fp, "geometry ") ? strstr(fp, "geometry ") + 9 : fp);
  for (int k = 0; k < p0->nlog; k++) {
    fputs(k ? ", <code>" : "<code>", f);
    char p[512];
    snprintf(p, sizeof p, "%s", p0->log[k]);
    esc(f, p);
    fputs("</code>", f);
  }
  if (!p0->nlog) fputs("not recorded in the parameters file", f);
  if (p0->samples >= 0) fprintf(f, " (%ld samples after filtering and decimation)", p0->samples);
  fputs("</td></tr>\n<tr><th>judged on</th><td class=\"t\">", f);
  for (int li = 0; li < nlog; li++) {
    if (li) fputs("<br/>", f);
    fprintf(f, "<a href=\"#log%d\">", li + 1);
    esc(f, role[li]);
    fputs("</a>: <code>", f);
    esc(f, c->pos[2 + li]);
    fputs("</code>", f);
  }
  fprintf(f, "</td></tr>\n<tr><th>base parameters</th><td class=\"t\">%d%s", s0->prm->base->nb,
          s0->prm->base->npar > DY_NPAR_LINK * n ? " (with joint friction)" : "");
  if (cond[0]) { fputs("; regressor condition number ", f); esc(f, cond); }
  fputs("</td></tr>\n<tr><th>physical consistency</th><td class=\"t\">", f);
  for (int k = 0; k < ns; k++) {
    if (ns > 1) { esc(f, sv[k]->label); fputs(": ", f); }
    fputs(verdict_text(sv[k]), f);
    if (k + 1 < ns) fputs("; ", f);
  }
  fputs("</td></tr>\n</table>\n", f);
  summary_errors(f, m, sv, ns, c, role);
  if (!have_nominal) fputs("<p>No baseline: the model file has no masses, so the nominal model predicts no torque.</p>\n", f);
  fputs("<p class=\"cap\">Relative error: RMS error / RMS measured torque per joint; all joints pooled "
        "(dominated by the large joints). Details: <a href=\"#sets\">parameter sets</a>, "
        "<a href=\"#parameters\">base parameters</a>, <a href=\"#physical\">physical consistency</a>.</p></div>\n", f);
}

/* Options: -o is required; --horizon (default 0.05 s); PARAMS and
 * --compare PARAMS2 are the sets; --labels gives one non-empty name under
 * 64 characters per set. *ns: the sets. 0, or 2 after printing the usage
 * error. */
static int report_options(const cliArgs* c, reportSet* set, int* ns, double* horizon) {
  if (!cli_opt(c, "o")) return cli_usage("report: -o REPORT.html is required");
  if (cli_double(c, "horizon", 0.05, horizon)) return 2;
  *ns = 1;
  set[0].path = c->pos[1];
  if (cli_opt(c, "compare")) set[(*ns)++].path = cli_opt(c, "compare");
  const char* labels = cli_opt(c, "labels");
  if (!labels) return 0;
  int k = 0;
  for (const char* s = labels;; k++) {
    const char* e = strchr(s, ',');
    size_t L = e ? (size_t)(e - s) : strlen(s);
    if (k >= *ns || !L || L >= sizeof set[0].label)
      return cli_usage("report: --labels needs one non-empty name (< 64 characters) per parameter set (%d)", *ns);
    memcpy(set[k].label, s, L);
    if (!e) break;
    s = e + 1;
  }
  if (k + 1 != *ns) return cli_usage("report: --labels needs one name per parameter set (%d)", *ns);
  return 0;
}

/* Room for the samples kept for the plots: MAXPTS times, torques and
 * per set predictions and eigenvalues. 0, or 1 after printing. */
static int series_alloc(reportSeries* S, int n, int ns) {
  S->t = malloc(sizeof(double) * MAXPTS);
  S->meas = malloc(sizeof(double) * MAXPTS * (size_t)n);
  int mem = S->t && S->meas;
  for (int k = 0; k < ns; k++) {
    S->pred[k] = malloc(sizeof(double) * MAXPTS * (size_t)n);
    S->eig[k] = malloc(sizeof(double) * MAXPTS);
    mem = mem && S->pred[k] && S->eig[k];
  }
  if (!mem) return cli_fail("report: out of memory");
  return 0;
}

/* One set: its PARAMS file (made on this model, unless --force), the
 * sparse realisation of its base parameters (for the torque); with the
 * standard parameters the file carries, those are its links, checked as
 * they are (dyv_phys_carried); else the certified consistency of its base
 * parameters, its links (from its model file, or the solver's
 * realisation) and whether the model file witnesses consistency: it
 * reproduces the base parameters to 1e-6 (relative) with every
 * pseudo-inertia positive semi-definite and IA, FV, FC >= 0 (to 1e-9);
 * the training figures of its header and, without --labels, its label
 * (consistent, when the header has a certificate or the file carries
 * standard parameters, or unconstrained). 0, or -1 after printing. */
static int load_set(const cliArgs* c, const dyModel* m, reportSet* s) {
  const int n = m->n;
  char err[DY_ERRSZ];
  if (!(s->prm = cli_params_read(c, m, s->path))) return -1;
  s->par = malloc(sizeof(double) * (size_t)dy_npar(m));
  s->zero = malloc((size_t)dy_npar(m));
  s->links = malloc(sizeof(double) * (size_t)dy_npar(m));
  s->scale = malloc(sizeof(double) * (size_t)s->prm->base->nb);
  if (!s->par || !s->zero || !s->links || !s->scale) { cli_fail("report: out of memory"); return -1; }
  if (dyv_realise_sparse(m, s->prm->base, s->prm->value, s->par, s->zero, err, sizeof err))
    { cli_fail("%s: %s", s->path, err); return -1; }
  const dyiBase* b = s->prm->base;
  if (s->prm->pi) {
    s->carried = 1;
    dyi_params_realise(m, s->prm, s->links);
    dyv_phys_carried(&s->phys, m, s->links, b->npar);
  } else {
    if (dyv_phys_check(&s->phys, m, s->par, b->B, b->nb, b->npar, err, sizeof err))
      { cli_fail("%s: %s", s->path, err); return -1; }
    if (s->nfiles ? links_from_file(c, m, s) : links_from_solver(m, s)) return -1;
  }
  s->links_dist = links_distance(s);
  s->witness = s->from_file && s->links_dist <= 1e-6;
  for (int j = 0; j < n && s->witness; j++) {
    dyvLinkPhys l;
    dyv_link_phys(&l, s->links + DY_NPAR_LINK*j);
    s->witness = l.pi_mineig >= -1e-9 * fmax(1, l.mass);
  }
  for (int j = 0; j < n && s->witness && b->npar > DY_NPAR_LINK*n; j++)
    for (int q = 0; q < 3; q++) s->witness &= s->links[DY_NPAR_LINK*n + DY_NPAR_JNT*j + q] >= -1e-9;
  s->train_rel = s->prm->rel_err;
  s->train_rise = s->prm->rss_rise;
  s->consistent_est = s->prm->consistent;
  if (!s->label[0])
    snprintf(s->label, sizeof s->label, "%s", s->consistent_est || s->carried ? "consistent" : "unconstrained");
  return 0;
}

/* Set s's parameter scales ||tau|| / ||Y_k|| for the poorly identified
 * list (dyi_identify_scales, the rows identify makes): over the report's
 * logs that trained it (the "log:" lines of its header), or over all of
 * them when none did. 0, or -1 after printing. */
static int set_scales(const cliArgs* c, const dyModel* m, reportSet* s, const dyiLogOpt* lopt) {
  const char* paths[MAXLOG];
  int np = 0;
  for (int li = 0; li + 2 < c->npos; li++)
    if (trained_on(s->prm, c->pos[2 + li])) paths[np++] = c->pos[2 + li];
  if (!np)
    for (int li = 0; li + 2 < c->npos; li++) paths[np++] = c->pos[2 + li];
  char err[DY_ERRSZ];
  if (dyi_identify_scales(m, s->prm->base, paths, np, lopt, s->scale, err, sizeof err))
    { cli_fail("report: %s", err); return -1; }
  return 0;
}

/* The logs' sections, first into memory (*body) so that the summary at
 * the top can quote them; each log watched for mistakes as it is read and given
 * its role (role[li]). 0, or -1 after printing. */
static int logs_body(const cliArgs* c, const dyModel* m, reportSet* const* sv, int ns, const dyiLogOpt* lopt,
                     double horizon, reportSeries* S, char (*role)[160], char** body, size_t* blen) {
  have_nominal = 0;
  FILE* bf = open_memstream(body, blen);
  if (!bf) { cli_fail("report: out of memory"); return -1; }
  int lr = 0;
  for (int li = 0; li + 2 < c->npos && !lr; li++) {
    dyiLogOpt lw = *lopt;
    cliWatch* watch = cli_watch_start(c, m, &lw);   /* units, rates, model, in the section's pass */
    log_role(sv[0]->prm, c->pos[2 + li], cli_opt(c, "rows"), role[li], sizeof role[li]);
    lr = log_section(bf, li, c->pos[2 + li], role[li], m, sv, ns, &lw, horizon, S);
    int nwarn = cli_watch_end(c, watch, c->pos[2 + li], 0);   /* the section's readers are closed */
    cli_watch_free(watch);
    if (!lr && nwarn && cli_flag(c, "strict")) { fclose(bf); free(*body); *body = NULL; return -cli_strict_fail("report", nwarn); }
  }
  fclose(bf);
  return lr ? -1 : 0;
}

/* The model: source, joints and types, gravity, the conversion check, and
 * per joint the modified-DH geometry and the nominal mass. */
static void model_section(FILE* f, const dyModel* m) {
  const int n = m->n;
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
}

/* Identifiability of the first set's base parameters: which standard
 * parameters are identifiable alone, only in combination, or not at all
 * (dyi_base_report, its "(set file)" said in words). */
static void ident_section(FILE* f, const dyModel* m, const dyiBase* b0) {
  fputs("<h2 id=\"identifiability\">Identifiability</h2>\n", f);
  fprintf(f, "<p>%d base parameters (minimal linear combinations) over %d standard parameters%s. "
             "Each standard parameter is identifiable alone, only in combination, or not at all:</p>\n",
          b0->nb, b0->npar, b0->npar > 10 * m->n ? " (with joint friction and armature)" : "");
  char* buf; size_t len; FILE* mf;
  pre_begin(&buf, &len, &mf);
  dyi_base_report(mf, m, b0);
  fclose(mf);
  char* sf = buf ? strstr(buf, "(set file)") : NULL;   /* a set read from a PARAMS file */
  fputs("<pre class=\"ident\">", f);
  if (sf) {
    *sf = 0;
    esc(f, buf);
    fputs("(the set of the parameters file, rebuilt from its expressions)", f);
    esc(f, sf + 10);
  } else esc(f, buf ? buf : "");
  fputs("</pre>\n", f);
  free(buf);
}

/* Base parameters: each set's identification summary (its PARAMS header),
 * then one table with the sets side by side when they share the base set,
 * else one table per set. */
static void params_section(FILE* f, const dyModel* m, reportSet* const* sv, int ns) {
  fputs("<h2 id=\"parameters\">Base parameters</h2>\n", f);
  for (int k = 0; k < ns; k++) {
    if (!sv[k]->prm->comment[0]) continue;
    fputs("<p>Identification summary (from the parameters file", f);
    if (ns > 1) { fputs(" <code>", f); esc(f, sv[k]->path); fputs("</code>, ", f); esc(f, sv[k]->label); }
    fputs("):</p>\n<pre>", f);
    esc(f, sv[k]->prm->comment);
    fputs("</pre>\n", f);
  }
  if (ns > 1 && same_base(sv[0]->prm, sv[1]->prm)) param_table(f, m, sv, ns);
  else
    for (int k = 0; k < ns; k++) {
      if (ns > 1) { fputs("<h3>", f); esc(f, sv[k]->label); fputs("</h3>\n", f); }
      param_table(f, m, sv + k, 1);
    }
}

/* The page: title, summary, model, sets, identifiability, base
 * parameters, the logs' sections (body), physical consistency, and how it
 * was written (the command line and the model's fingerprint). */
static void write_page(FILE* f, const cliArgs* c, const dyModel* m, reportSet* const* sv, int ns, char (*role)[160],
                       const char* body, size_t blen) {
  const char* out = cli_opt(c, "o");
  const char* title = cli_opt(c, "title");
  char tbuf[300];
  if (!title) { snprintf(tbuf, sizeof tbuf, "dynid report: %s", m->source); title = tbuf; }
  fprintf(f, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\"/>\n<title>");
  esc(f, title);
  fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
  esc(f, title);
  fputs("</h1>\n", f);
  summary_box(f, m, sv, ns, c, role);
  model_section(f, m);
  sets_section(f, sv, ns, c, out);
  ident_section(f, m, sv[0]->prm->base);
  params_section(f, m, sv, ns);
  fwrite(body, 1, blen, f);
  phys_section(f, m, sv, ns, out);
  char fpr[96];
  cli_fingerprint(m, fpr, sizeof fpr);
  fprintf(f, "<p class=\"cap\">Written by dynid %s: <code>", DYNID_VERSION);
  for (int i = 0; i < c->argc; i++) { if (i) fputc(' ', f); esc(f, i ? c->argv[i] : "dynid"); }
  fputs("</code>; model fingerprint ", f);
  esc(f, fpr);
  fputs(".</p>\n", f);
  fputs("<p>Torque predicted by the base-parameter Newton-Euler on a realisation of the "
        "identified base parameters; measured torque as logged (never filtered).</p>\n</body>\n</html>\n", f);
}

/* options -> model files per set -> model -> log options -> sets -> logs
 * (into memory) -> each set's parameter scales -> the page, written
 * atomically. Two sets of the same label without --labels are named by
 * their files. */
int cmd_report(cliArgs* c) {
  static const char* use =
      "dynid report MODEL PARAMS LOG... -o REPORT.html [--compare PARAMS2] [--labels A,B]\n"
      "       [--models FILE[+FILE..][,FILE[+FILE..]]] [--title TEXT] [--horizon SECONDS]\n"
      "       [log options: --map NAME=COLUMN --gain K1,..,Kn --rows A..B --cutoff HZ --derive qd|qdd ...]\n"
      "  --compare PARAMS2  a second parameter set shown beside PARAMS (e.g. identify --consistent)\n"
      "  --labels A,B       names of the sets (default from the headers: unconstrained, consistent)\n"
      "  --models ...       per set, the model files written from it (identify --model-out), several\n"
      "                     joined by '+'; the first is read for the per-link table, all are linked";
  int r = cli_check(c, "title,horizon,compare,labels,models,force," CLI_LOG_OPTS, 3, 2 + MAXLOG, use);
  if (r) return r;
  double horizon;
  reportSet set[MAXSET];
  memset(set, 0, sizeof set);
  reportSet* sv[MAXSET] = {&set[0], &set[1]};
  int ns = 1;
  if ((r = report_options(c, set, &ns, &horizon))) return r;
  int status = 1;
  dyModel* m = NULL;
  char* body = NULL;
  size_t blen = 0;
  reportSeries S;
  memset(&S, 0, sizeof S);
  char err[DY_ERRSZ];
  char role[MAXLOG][160];
  dyiLogOpt lopt;
  dyOut o;
  if ((r = split_models(cli_opt(c, "models"), set, ns))) { status = r; goto done; }
  if (!(m = cli_model(c))) goto done;
  dyi_log_defaults(&lopt);
  if ((r = cli_logopt(c, m, &lopt)) != 0) { status = r; goto done; }
  if (series_alloc(&S, m->n, ns)) goto done;
  for (int k = 0; k < ns; k++)
    if (load_set(c, m, &set[k])) goto done;
  if (ns > 1 && !cli_opt(c, "labels") && !strcmp(set[0].label, set[1].label))
    for (int k = 0; k < ns; k++) snprintf(set[k].label, sizeof set[k].label, "%.63s", base_name(set[k].path));
  if (logs_body(c, m, sv, ns, &lopt, horizon, &S, role, &body, &blen)) goto done;
  for (int k = 0; k < ns; k++)
    if (set_scales(c, m, &set[k], &lopt)) goto done;
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  write_page(o.f, c, m, sv, ns, role, body, blen);
  if (dy_out_commit(&o, err, sizeof err)) { cli_fail("%s", err); goto done; }
  status = 0;
done:
  for (int k = 0; k < MAXSET; k++) {
    dyv_phys_free(&set[k].phys);
    if (set[k].prm) dyi_params_free(set[k].prm);
    free(set[k].par); free(set[k].zero); free(set[k].links); free(set[k].scale);
    for (int a = 0; a < set[k].nfiles; a++) free(set[k].files[a]);
    free(S.pred[k]); free(S.eig[k]);
  }
  free(S.t); free(S.meas); free(body);
  dy_free_model(m);
  return status;
}
