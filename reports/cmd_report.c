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
 * Sections, results first and reference after, each with a line on how
 * to read it: the summary; the parameter sets at a glance (training
 * residual from the PARAMS headers, error per log, physical consistency,
 * model files); per log: data-quality findings (a table), the metrics of
 * `dynid validate` of each set (computed by the same validator, so the
 * numbers are the same), each set's checks along the log (largest error,
 * inertia matrix, forward simulation with its position error per joint in
 * rad and degrees), measured against predicted torque per joint, residual
 * histograms, per-joint errors and the smallest eigenvalue of the inertia
 * matrix along the log; the base parameters (the PARAMS headers as a
 * table of quantity, unit and value; each base parameter with its unit,
 * value, standard deviation and expression); the place of payload and
 * drive gains (gains_section); the physical consistency of each set
 * (certified verdict) and, per link, nominal against identified mass,
 * centre of mass and principal moments with the link's validity;
 * identifiability (which standard parameters are identifiable, alone, in
 * which combinations, or not and why: tables by status); the model.
 * Units in one typography (kg m^2 as kg&#183;m<sup>2</sup>: H_ and P_
 * below), in every table.
 *
 * The identified links are the standard parameters the PARAMS
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
#include "ident/payload.h"
#include "reports/plot.h"
#include "ident/quality.h"
#include "verify/validate.h"
#include "core/mathu.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAXPTS 20000   /* samples kept per log for the plots (thinned beyond) */
#define MAXSET 2       /* PARAMS and --compare PARAMS2 */
#define MAXFILES 4     /* model files linked per set */
#define MAXLOG 14      /* held-out logs */

/* One unit typography on the page: a centred dot between factors, powers
 * as superscripts; H_ for the HTML (tables, text, headings), P_ for the
 * plots (PLplot text: the UTF-8 dot, #u superscript, #d back down). */
#define H_KGM2 "kg&#183;m<sup>2</sup>"
#define H_KGM "kg&#183;m"
#define H_NM "N&#183;m"
#define H_NMSR "N&#183;m&#183;s/rad"
#define H_NSM "N&#183;s/m"
#define P_DOT "\xc2\xb7"
#define P_NM "N" P_DOT "m"
#define P_KGM2 "kg" P_DOT "m#u2#d"

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

/* a path or command line escaped, with a break opportunity after each
 * '/', '.', '_' and ',' (long paths wrap instead of widening the page) */
static void esc_path(FILE* f, const char* s) {
  char b[2] = {0, 0};
  for (; *s; s++) {
    b[0] = *s;
    esc(f, b);
    if (strchr("/._,", *s) && s[1]) fputs("<wbr/>", f);
  }
}

/* s escaped, with the units of header text in the page's typography
 * (kg m^2, m/s^2, m s^2: superscript powers, a centred dot) */
static void esc_units(FILE* f, const char* s) {
  const char* s0 = s;
  static const struct { const char* in; const char* out; } U[] = {
    {"kg m^2", H_KGM2}, {"m/s^2", "m/s<sup>2</sup>"}, {"m s^2", "m&#183;s<sup>2</sup>"}, {"N m", H_NM}};
  char b[2] = {0, 0};
  while (*s) {
    size_t i = 0;
    while (i < sizeof U / sizeof U[0] && strncmp(s, U[i].in, strlen(U[i].in))) i++;
    if (i < sizeof U / sizeof U[0] && !isalnum((unsigned char)s[strlen(U[i].in)]) &&
        (s == s0 || !isalnum((unsigned char)s[-1]))) {
      fputs(U[i].out, f);
      s += strlen(U[i].in);
      continue;
    }
    b[0] = *s++;
    esc(f, b);
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

/* the same, each line's leading "# " (a file's comment mark) dropped */
static void pre_end_plain(FILE* f, char** buf, FILE* mf, const char* cls) {
  fclose(mf);
  fprintf(f, "<pre class=\"%s\">", cls);
  for (const char* s = *buf ? *buf : ""; *s;) {
    size_t L = strcspn(s, "\n");
    size_t skip = !strncmp(s, "# ", 2) ? 2 : 0;
    char* line = strndup(s + skip, L - skip);
    if (line) { esc(f, line); fputc('\n', f); }
    free(line);
    s += L + (s[L] == '\n');
  }
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

/* No box clips or scrolls its text: cells and preformatted text wrap
 * (long words and paths anywhere), numbers align right, text left. */
static const char* css =
  "body{font-family:sans-serif;max-width:1300px;margin:2em auto;padding:0 1em;color:#222;line-height:1.35}"
  "h1{border-bottom:2px solid #1f77b4}h2{margin-top:2em;border-bottom:1px solid #ccc}"
  "table{border-collapse:collapse;font-size:90%;margin:0.5em 0}"
  "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top;white-space:nowrap}"
  "th{background:#eef;white-space:normal}td.l,td.t,th.t{text-align:left;white-space:normal;overflow-wrap:break-word}"
  "td.l{font-family:monospace}"
  "td.u{text-align:left;white-space:nowrap}"
  "tr.warn td{background:#fee}tr.nom td{background:#f4f4f4;color:#555}td.warn{background:#fee}"
  "table.links tr.nom td{border-top:2px solid #999}"
  "td.link{background:#fff !important;color:#222 !important;text-align:center;font-weight:bold}"
  "pre{background:#f7f7f7;padding:8px;font-size:85%;white-space:pre-wrap;overflow-wrap:anywhere}"
  ".grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0.5em}"
  "@media (max-width:1000px){.grid{grid-template-columns:minmax(0,1fr)}}"
  ".grid svg{width:100%;max-width:760px;height:auto}.ok{color:#2a2}.bad{color:#c22}"
  "summary{cursor:pointer;margin:0.5em 0}details{margin:0.3em 0}"
  "sup{line-height:0}svg{max-width:100%;height:auto}p.how{color:#555;font-style:italic;margin:0.3em 0 0.8em}"
  "nav{margin:0.5em 0 1em}nav a{margin-right:1em;white-space:nowrap}"
  ".summary{border:2px solid #1f77b4;border-radius:6px;padding:0.2em 1.2em 0.8em;background:#f8fbff}"
  ".summary h2{margin-top:0.6em;border:none}table.kv th{text-align:left}"
  "table.errs td{min-width:3.5em}table.errs td.all{font-weight:bold}p.cap{margin:0.8em 0 0.2em}"
  "td.nomv{color:#555;background:#f4f4f4}";

/* The unit of standard parameter k of m (CONVENTIONS order), as HTML:
 * XX..ZZ kg m^2, MX..MZ kg m, M kg; a revolute joint's IA, FV, FC, FO
 * kg m^2, N m s/rad, N m, N m; a prismatic joint's kg, N s/m, N, N. */
static const char* par_unit(const dyModel* m, int k) {
  static const char* joint[2][DY_NPAR_JNT] = {{"kg", H_NSM, "N", "N"}, {H_KGM2, H_NMSR, H_NM, H_NM}};
  const int nl = DY_NPAR_LINK * m->n;
  if (k < nl) return k % DY_NPAR_LINK < DY_MX ? H_KGM2 : k % DY_NPAR_LINK < DY_M ? H_KGM : "kg";
  return joint[m->jnt_type[(k - nl) / DY_NPAR_JNT] == DY_REVOLUTE][(k - nl) % DY_NPAR_JNT];
}

/* The unit of base parameter i of b: its lead's (the standard parameter
 * it is named after or grows), else its highest-order term's (kg m^2 over
 * kg m over the rest: a grouping adds lower-order parameters times
 * lengths to a higher-order one, and friction groups with nothing). */
static const char* base_unit(const dyModel* m, const dyiBase* b, int i) {
  if (b->lead[i] >= 0) return par_unit(m, b->lead[i]);
  const double* row = b->B + (size_t)i * b->npar;
  double big = 0;
  for (int k = 0; k < b->npar; k++) big = fmax(big, fabs(row[k]));
  const char* best = "";
  int rank = -1;
  for (int k = 0; k < b->npar; k++) {
    if (!(fabs(row[k]) > 1e-14 * big)) continue;
    const char* u = par_unit(m, k);
    int r = !strcmp(u, H_KGM2) ? 2 : !strcmp(u, H_KGM) ? 1 : 0;
    if (r > rank) { rank = r; best = u; }
  }
  return best;
}

/* "how to read this" under a section's heading */
static void how(FILE* f, const char* text) { fprintf(f, "<p class=\"how\">%s</p>\n", text); }

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
    esc_path(f, base_name(s->files[k]));
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
  if (last) fprintf(f, "<th class=\"t\">%s</th>", last);
  fputs("</tr>\n", f);
}

/* The base-parameter table: one set, or several over the same base set
 * (name, unit, the nominal model's value, then value/std/rel. std of each
 * set, then the expression); anchors: each row an id (bp-NAME) that the
 * identifiability table links to (the first table of the page only). */
static void param_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns, int anchors) {
  const dyiBase* b = sv[0]->prm->base;
  fputs("<table class=\"params\">", f);
  set_header(f, sv, ns, "name</th><th class=\"t\">unit</th><th>nominal", "<th>value</th><th>std</th><th>rel. std [%]</th>",
             "expression");
  for (int i = 0; i < b->nb; i++) {
    char expr[4096];
    dyi_base_expr_fmt(m, b, i, 1, expr, sizeof expr);   /* for reading: the fewest digits */
    fputs(anchors ? "<tr id=\"bp-" : "<tr>", f);
    if (anchors) { esc(f, b->name[i]); fputs("\">", f); }
    fputs("<td class=\"l\">", f);
    esc(f, b->name[i]);
    double nom = 0;   /* the nominal model's value of this combination */
    for (int k = 0; k < b->npar; k++) nom += b->B[(size_t)i * b->npar + k] * m->par[k];
    fprintf(f, "</td><td class=\"u\">%s</td><td class=\"nomv\">%.6g</td>", base_unit(m, b, i), nom);
    for (int k = 0; k < ns; k++) param_cells(f, sv[k], i);
    fputs("<td class=\"l\">", f);
    esc(f, expr);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
  for (int k = 0; k < ns; k++) {
    /* the lines `dynid identify` prints on the terminal, by the same rule
     * (preformatted as there, wrapped: other tests read them as they are) */
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
        "parameters; a base parameter's unit is that of the standard parameter it is named after (the others "
        "in its expression enter times lengths or squared lengths).</p>\n", f);
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

/* The log's data-quality findings as a table (file lines, column, kind,
 * what it means and what to do, rows concerned), then the rows read and
 * dropped and the time steps. */
static void quality_table(FILE* f, const dyiQuality* q) {
  fputs("<h3>Data quality</h3>\n", f);
  long rows, dropped;
  double dmin, dmed, dmax;
  dyi_quality_stats(q, &rows, &dropped, &dmin, &dmed, &dmax);
  const int nf = dyi_quality_count(q);
  how(f, nf ? "What the data-quality gate found in the log's rows: each finding names the file lines (as an editor "
              "numbers them), the column, what it means and what to do."
            : "The data-quality gate checks every row (numbers, time steps, stale rows, lagging velocities, "
              "saturated torque) and found nothing to report.");
  if (nf) {
    fputs("<table class=\"quality\"><tr><th>file lines</th><th class=\"t\">column</th><th class=\"t\">kind</th>"
          "<th class=\"t\">finding and fix</th><th>rows</th></tr>\n", f);
    for (int i = 0; i < nf; i++) {
      const dyiFinding* x = dyi_quality_get(q, i);
      fputs(x->bad ? "<tr class=\"warn\"><td>" : "<tr><td>", f);
      if (x->first_line > 0) fprintf(f, x->last_line > x->first_line ? "%ld..%ld" : "%ld", x->first_line, x->last_line);
      else fputs("whole log", f);
      fputs("</td><td class=\"t\">", f);
      if (x->col > 0) { fprintf(f, "%d: ", x->col); esc(f, x->what); }
      else fputs("whole row", f);
      fprintf(f, "</td><td class=\"t\">%s</td><td class=\"t\">", dyi_quality_kind(x->kind));
      esc_units(f, x->verdict);
      if (x->bad) fputs(" (these rows were dropped)", f);
      fprintf(f, "</td><td>%ld</td></tr>\n", x->count);
    }
    fputs("</table>\n", f);
  }
  fprintf(f, "<p>%ld rows read, %ld dropped, %d finding%s; time step min %.4g s, median %.4g s, max %.4g s.</p>\n",
          rows, dropped, nf, nf == 1 ? "" : "s", dmin, dmed, dmax);
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
  quality_table(f, dyi_log_quality(lr));
  dyi_log_close(lr);
  return 0;
}

/* The metrics of each set on one log, as its validator writes them (the
 * CSV text of `dynid validate`, so that the page shows exactly what
 * validate prints). */
typedef struct {
  char cell[MAXSET][DY_MAXJ + 1][3][40];   /* rms, rel. error, R^2 per row */
  char rowname[DY_MAXJ + 1][32];           /* joint number, then "all" */
  double rel[MAXSET][DY_MAXJ + 1];         /* the relative errors as numbers [%] */
  int nrow;
} reportMetrics;

/* Each validator's CSV into M, and into the set: the relative error per
 * joint and "all" on log li (heldj, heldout), the samples and those where
 * the inertia matrix is not positive definite. */
static void log_metrics(reportMetrics* M, int li, int n, reportSet* const* sv, int ns, dyvValidator* const* v, long cnt) {
  for (int k = 0; k < ns; k++) {
    char* csv = NULL; size_t clen = 0;
    FILE* mc = open_memstream(&csv, &clen);
    if (!mc) continue;
    dyv_validator_write(v[k], mc, NULL);   /* flushes the validator: its fields are current */
    fclose(mc);
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

/* the unit of the inertia matrix's eigenvalues: kg m^2 for an arm of
 * revolute joints, mixed with prismatic ones */
static const char* inertia_unit(const dyModel* m) {
  for (int j = 0; j < m->n; j++)
    if (m->jnt_type[j] == DY_PRISMATIC) return H_KGM2 ", " H_KGM ", kg (mixed joint types)";
  return H_KGM2;
}

/* The torque metrics table: per joint and all, each set's rms error,
 * relative error and R^2 as validate prints them, in the digits a reader
 * compares (3 significant; 0.01 %, as the summary; 1e-4). */
static void metrics_table(FILE* f, const dyModel* m, const reportMetrics* M, reportSet* const* sv, int ns) {
  int prismatic = 0;
  for (int j = 0; j < m->n; j++) prismatic |= m->jnt_type[j] == DY_PRISMATIC;
  char three[256];
  snprintf(three, sizeof three, "<th>rms error [%s]</th><th>rel. error [%%]</th><th>R<sup>2</sup></th>",
           prismatic ? H_NM " | N" : H_NM);
  fputs("<h3>Torque prediction</h3>\n", f);
  how(f, "How well each set predicts the measured torque of this log: rms error, relative error (rms error / rms "
         "measured torque) and R<sup>2</sup> per joint and over all joints, as <code>dynid validate</code> prints "
         "them (rounded). Lower errors and R<sup>2</sup> nearer 1 are better; the light joints have large relative errors.");
  fputs("<table class=\"metrics\">", f);
  set_header(f, sv, ns, "joint", three, NULL);
  for (int row = 0; row < M->nrow; row++) {
    fputs("<tr><td>", f);
    esc(f, M->rowname[row]);
    fputs("</td>", f);
    for (int k = 0; k < ns; k++)
      fprintf(f, "<td>%.3g</td><td>%.2f</td><td>%.4f</td>", strtod(M->cell[k][row][0], NULL),
              strtod(M->cell[k][row][1], NULL), strtod(M->cell[k][row][2], NULL));
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* Each set's checks along the log, a row each: the largest torque error,
 * the inertia matrix (positive definite at every sample, or on how many
 * not, its smallest eigenvalue and when) and the forward simulation. */
static void checks_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns, dyvValidator* const* v, long cnt) {
  fputs("<table class=\"checks\"><tr><th class=\"t\">check</th><th class=\"t\">unit</th>", f);
  for (int k = 0; k < ns; k++) { fputs("<th class=\"t\">", f); esc(f, ns > 1 ? sv[k]->label : "result"); fputs("</th>", f); }
  int prismatic = 0;
  for (int j = 0; j < m->n; j++) prismatic |= m->jnt_type[j] == DY_PRISMATIC;
  fprintf(f, "</tr>\n<tr><td class=\"t\">largest torque error</td><td class=\"u\">%s</td>",
          prismatic ? H_NM " (revolute),<br/>N (prismatic)" : H_NM);
  for (int k = 0; k < ns; k++)
    fprintf(f, "<td class=\"t\">%.3g on joint %d at data row %ld (t = %.4g s)</td>", v[k]->st.maxerr,
            v[k]->st.maxjoint + 1, v[k]->st.maxrow, dyv_time_shown(v[k]->st.maxt));
  fprintf(f, "</tr>\n<tr><td class=\"t\">smallest eigenvalue of the inertia matrix</td><td class=\"u\">%s</td>",
          inertia_unit(m));
  for (int k = 0; k < ns; k++) {
    fprintf(f, "<td class=\"t\">%.4g at t = %.4g s: ", v[k]->mineig, dyv_time_shown(v[k]->mineig_t));
    if (v[k]->not_pd)
      fprintf(f, "<span class=\"bad\">NOT positive definite on %ld of %ld samples</span></td>", v[k]->not_pd, cnt);
    else fputs("<span class=\"ok\">positive definite at every sample</span></td>", f);
  }
  fputs("</tr>\n<tr><td class=\"t\">forward simulation</td><td class=\"u\"></td>", f);
  for (int k = 0; k < ns; k++) {
    const dyvValidator* x = v[k];
    if (x->horizon <= 0) fputs("<td class=\"t\">not run (--horizon 0)</td>", f);
    else if (!x->sim_count)
      fprintf(f, "<td class=\"t\"><span class=\"bad\">not run to the end of any horizon</span>: every step failed "
                 "(%ld restarts), as forward dynamics needs a positive definite inertia matrix</td>", x->sim_fail);
    else
      fprintf(f, "<td class=\"t\">Rosenbrock-W on ABA from the measured state, measured torque held between samples; horizon "
                 "%.3g s, %ld segments, %ld compared samples, %ld restarts after a failed step</td>",
              x->horizon, x->sim_segments, x->sim_count, x->sim_fail);
  }
  fputs("</tr>\n</table>\n", f);
}

/* The forward simulation's position error per joint of each set that ran
 * it: rms and largest, in rad (degrees beside) for a revolute joint, in m
 * (mm beside) for a prismatic one, and the data row of the largest. */
static void sim_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns, dyvValidator* const* v) {
  reportSet* rs[MAXSET];
  const dyvValidator* rv[MAXSET];
  int nr = 0;
  for (int k = 0; k < ns; k++)
    if (v[k]->horizon > 0 && v[k]->sim_count > 0) { rs[nr] = sv[k]; rv[nr++] = v[k]; }
  if (!nr) return;
  fprintf(f, "<p class=\"cap\">Forward simulation over %.3g s horizons: position error (simulated - measured) per "
             "joint, in rad for a revolute joint (degrees in brackets), in m for a prismatic one (mm in brackets)",
          rv[0]->horizon);
  if (nr < ns) { fputs("; only ", f); esc(f, rs[0]->label); fputs(" could be simulated", f); }
  fputs("</p>\n", f);
  fputs("<table class=\"sim\">", f);
  set_header(f, rs, nr, "joint</th><th class=\"t\">unit", "<th>rms</th><th>largest</th><th>data row of the largest</th>",
             NULL);
  for (int j = 0; j < m->n; j++) {
    const int rev = m->jnt_type[j] == DY_REVOLUTE;
    const double to = rev ? 180 / M_PI : 1e3;
    fprintf(f, "<tr><td>%d</td><td class=\"u\">%s</td>", j + 1, rev ? "rad (&#176;)" : "m (mm)");
    for (int k = 0; k < nr; k++) {
      double rms = sqrt(rv[k]->sim_se[j] / (double)rv[k]->sim_count);
      fprintf(f, "<td>%.3g (%.3g)</td><td>%.3g (%.3g)</td><td>%ld</td>", rms, rms * to, rv[k]->sim_max[j],
              rv[k]->sim_max[j] * to, rv[k]->sim_maxrow[j]);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* The metrics of the sets on one log: the torque table, each set's checks
 * along the log and the forward simulation's position errors. */
static void metrics_section(FILE* f, const dyModel* m, reportMetrics* M, reportSet* const* sv, int ns,
                            dyvValidator* const* v, long cnt) {
  metrics_table(f, m, M, sv, ns);
  checks_table(f, m, sv, ns, v, cnt);
  sim_table(f, m, sv, ns, v);
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
    cliPlotFrame fb = {"relative torque error per joint", "joint", "rms error / rms torque [%]", 540, 300, c0};
    dyp_groupbars(f, &fb, jl, rv, ns > 1 ? names : NULL, ns, n);
  }
  int prismatic = 0;
  for (int j = 0; j < n; j++) prismatic |= m->jnt_type[j] == DY_PRISMATIC;
  cliPlotFrame fe = {"smallest eigenvalue of the inertia matrix", "time [s]",
                     prismatic ? "#gl#dmin#u [mixed units]" : "#gl#dmin#u [" P_KGM2 "]", 540, 300, c0};
  const double* ye[MAXSET];
  const char* ne[MAXSET];
  char nebuf[MAXSET][96];
  for (int k = 0; k < ns; k++) {
    ye[k] = S->eig[k];
    snprintf(nebuf[k], sizeof nebuf[k], ns > 1 ? "smallest eigenvalue, %s" : "smallest eigenvalue", sv[k]->label);
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
    cliPlotFrame fl = {tt, "time [s]", m->jnt_type[j] == DY_REVOLUTE ? "torque [" P_NM "]" : "force [N]", 540, 300, 0};
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
    cliPlotFrame fh = {tt, m->jnt_type[j] == DY_REVOLUTE ? "residual [" P_NM "]" : "residual [N]",
                       m->jnt_type[j] == DY_REVOLUTE ? "density [1/(" P_NM ")]" : "density [1/N]", 540, 300, c0};
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
  esc_path(f, path);
  fputs("</code></h2>\n", f);
  dyvValidator* v[MAXSET] = {NULL};
  long cnt;
  if (log_pass(f, li, path, m, sv, ns, lopt, horizon, S, v, &cnt)) {
    for (int k = 0; k < ns; k++) dyv_validator_free(v[k]);
    return -1;
  }
  reportMetrics M;
  log_metrics(&M, li, m->n, sv, ns, v, cnt);
  metrics_section(f, m, &M, sv, ns, v, cnt);
  for (int k = 0; k < ns; k++) dyv_validator_free(v[k]);
  const int c0 = ns > 1 ? 2 : 0;
  const char* names[MAXSET + 1];
  for (int k = 0; k < ns; k++) names[k] = sv[k]->label;
  fputs("<h3>Plots</h3>\n", f);
  how(f, "The relative error per joint (the numbers of the torque table), the smallest eigenvalue of the inertia "
         "matrix along the log (it must stay above zero for a model that can be simulated), then per joint the "
         "measured and predicted torque and the histogram of their difference (narrow and centred on zero is good).");
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
        fputs("<details><summary><b>Bounds", f);
        if (ns > 1) { fputs(" of ", f); esc(f, sv[k]->label); }
        fprintf(f, "</b>: %d lines</summary>\n<p>Ellipsoid centre and semi-axes in the link frame, R_j the radius "
                   "about the frame's origin the mass must lie within, the mass range; margin 0: the bound holds "
                   "the link.</p>\n<ul class=\"bounds\">\n", p->nbound);
      }
      char line[1024];
      snprintf(line, sizeof line, "%s", p->bound[i]);
      fputs("<li>", f); esc_units(f, line); fputs("</li>\n", f);
    }
    if (any) fputs("</ul>\n</details>\n", f);
  }
}

/* Physical consistency of every set: certified verdicts, the per-link
 * table (nominal against each set's identified links), the details. */
static void phys_section(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const char* out) {
  const int n = m->n;
  fputs("<h2 id=\"physical\">Physical consistency</h2>\n", f);
  how(f, "Whether each set describes links that can exist (every link's pseudo-inertia positive semi-definite, "
         "the friction coefficients and rotor inertias not negative), certified by a convex test, and per link "
         "the identified mass, centre of mass and principal moments beside the nominal model's.");
  fputs("<ul>\n", f);
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
  fputs("<table class=\"links\"><tr><th>link</th><th class=\"t\">parameters</th><th>mass [kg]</th>"
        "<th>&#916; mass [%]</th><th>com x [mm]</th><th>com y [mm]</th><th>com z [mm]</th>"
        "<th>&#916; com [mm]</th><th>I1 [" H_KGM2 "]</th><th>I2 [" H_KGM2 "]</th>"
        "<th>I3 [" H_KGM2 "]</th><th>pseudo-inertia smallest eigenvalue [SI, mixed]</th><th class=\"t\">valid</th>"
        "</tr>\n", f);
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
  fputs("</table>\n", f);
  bounds_list(f, sv, ns);
  for (int k = 0; k < ns; k++) {
    fputs("<details><summary>Details of the consistency check", f);
    if (ns > 1) { fputs(": ", f); esc(f, sv[k]->label); }
    fputs("</summary>\n", f);
    char* buf; size_t len; FILE* mf;
    pre_begin(&buf, &len, &mf);
    dyv_phys_print(mf, &sv[k]->phys);
    pre_end_plain(f, &buf, mf, "phys");
    fputs("</details>\n", f);
  }
}

/* The sets at a glance: training residual, held-out error per log,
 * consistency verdict, model files. */
static void sets_section(FILE* f, reportSet* const* sv, int ns, const cliArgs* c, const char* out) {
  const int nlog = c->npos - 2;
  fputs("<h2 id=\"sets\">Parameter sets</h2>\n", f);
  how(f, "Each parameter set at a glance: its file, how well it fits its training data, how well it predicts "
         "each log of this report (relative torque error over all joints), whether it is physically consistent, "
         "and the model files written from it.");
  fputs("<table class=\"sets\"><tr><th class=\"t\">set</th>"
        "<th class=\"t\">parameters file</th><th>training rel. error [%]</th>"
        "<th>training residual rise over least squares [%]</th>", f);
  for (int li = 0; li < nlog; li++) {
    fputs("<th>rel. error [%] on ", f);
    esc(f, base_name(c->pos[2 + li]));
    fputs("</th>", f);
  }
  fputs("<th class=\"t\">physical consistency</th><th class=\"t\">model files</th></tr>\n", f);
  for (int k = 0; k < ns; k++) {
    const reportSet* s = sv[k];
    fputs("<tr><td class=\"t\">", f);
    esc(f, s->label);
    fputs("</td><td class=\"l\">", f);
    esc_path(f, base_name(s->path));
    fprintf(f, "</td><td>%.4g</td>", s->train_rel);
    if (s->consistent_est) fprintf(f, "<td>%+.3g</td>", s->train_rise);
    else fputs("<td>0 (the least-squares estimate)</td>", f);
    for (int li = 0; li < nlog; li++) fprintf(f, "<td>%.2f</td>", strtod(s->heldout[li], NULL));
    fprintf(f, "<td class=\"t\">%s", verdict_text(s));
    long bad = 0, all = 0;
    for (int li = 0; li < nlog; li++) { bad += s->not_pd[li]; all += s->samples[li]; }
    if (bad) fprintf(f, "<br/>inertia matrix indefinite on %ld of %ld held-out samples", bad, all);
    fputs("</td><td class=\"t\">", f);
    file_links(f, s, out);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n<p>Training residual from the parameters files' headers: the least-squares "
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
  fputs("<div class=\"summary\"><h2 id=\"summary\">Summary</h2>\n", f);
  how(f, "The answer first: which arm, which data trained the parameters and which judge them, and how well each "
         "set predicts the torque of the logs it is judged on, beside the nominal model's prediction.");
  fputs("<table class=\"kv\">\n<tr><th>arm</th><td class=\"t\"><code>", f);
  esc_path(f, m->source);
  fprintf(f, "</code>: %d joints (%s), fingerprint %s</td></tr>\n<tr><th>identified on</th><td class=\"t\">", n, types,
          strstr(fp, "geometry ") ? strstr(fp, "geometry ") + 9 : fp);
  for (int k = 0; k < p0->nlog; k++) {
    fputs(k ? ", <code>" : "<code>", f);
    char p[512];
    snprintf(p, sizeof p, "%s", p0->log[k]);
    esc_path(f, p);
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
    esc_path(f, c->pos[2 + li]);
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
    int nbh;   /* held parameters are constants of the check: rows e_k beside B */
    double* Bh = dyi_base_held_B(b, &nbh);
    int bad = dyv_phys_check(&s->phys, m, s->par, Bh ? Bh : b->B, nbh, b->npar, err, sizeof err);
    free(Bh);
    if (bad) { cli_fail("%s: %s", s->path, err); return -1; }
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

/* the logs set s's scales come from: the report's logs that trained it
 * (the "log:" lines of its header), or all of them when none did; their
 * count */
static int scale_paths(const cliArgs* c, const reportSet* s, const char** paths) {
  int np = 0;
  for (int li = 0; li + 2 < c->npos; li++)
    if (trained_on(s->prm, c->pos[2 + li])) paths[np++] = c->pos[2 + li];
  if (!np)
    for (int li = 0; li + 2 < c->npos; li++) paths[np++] = c->pos[2 + li];
  return np;
}

/* 1 when sets a and b get the same scales: the same logs and the same
 * rows (base set's columns P, held parameters), as a least-squares and a
 * consistent set identified on the same data have; the second then takes
 * the first's instead of reading the logs again (a pass over the training
 * rows: ~7 % of a report --compare on the Panda's held-out rows) */
static int same_scales(const cliArgs* c, const reportSet* a, const reportSet* b) {
  const char *pa[MAXLOG], *pb[MAXLOG];
  const int na = scale_paths(c, a, pa), nb = scale_paths(c, b, pb);
  const dyiBase *x = a->prm->base, *y = b->prm->base;
  if (na != nb || x->npar != y->npar || x->nb != y->nb || !x->fix != !y->fix) return 0;
  for (int i = 0; i < na; i++)
    if (pa[i] != pb[i]) return 0;
  return !memcmp(x->P, y->P, sizeof(double) * (size_t)x->npar * (size_t)x->nb) &&
         (!x->fix || !memcmp(x->fix, y->fix, sizeof(double) * (size_t)x->npar));
}

/* Set s's parameter scales ||tau|| / ||Y_k|| for the poorly identified
 * list (dyi_identify_scales, the rows identify makes) over its logs
 * (scale_paths). 0, or -1 after printing. */
static int set_scales(const cliArgs* c, const dyModel* m, reportSet* s, const dyiLogOpt* lopt) {
  const char* paths[MAXLOG];
  const int np = scale_paths(c, s, paths);
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

/* The transmission the logs were mapped through (--transmission, a model
 * table's or a URDF's): R, row k for motor k, motor velocity = R x joint
 * velocity, the gain each motor's torque column was read with (--gain, or
 * the PARAMS's GAIN rows; 1 when none), the motors whose rows couple
 * joints (their own inertia and friction, IAMk FVMk FCMk, are parameters
 * of the set), and the joints' position offsets (--q-offset; 0 when none).
 * Without a transmission, only the offsets when --q-offset was given. */
static void trans_table(FILE* f, const dyModel* m, const dyiLogOpt* lo) {
  const int n = m->n, tr = m->has_trans;
  fputs(tr ? "<h3>Transmission</h3>\n" : "<h3>Joint position offsets</h3>\n", f);
  if (tr)
    how(f, "The logs' motor columns mapped to the joints: motor velocity = R &#215; joint velocity, so q = "
           "R<sup>-1</sup> q<sub>m</sub> + offset and &#964; = R<sup>T</sup> (gain &#215; column). Row k is motor k.");
  else
    how(f, "The logs' joint positions: q = column + offset (--q-offset), for encoders whose zero is not the model's.");
  fputs("<table><tr><th>motor</th>", f);
  for (int j = 0; j < n; j++) fprintf(f, "<th>joint %d</th>", j + 1);
  fputs(tr ? "<th>gain [N&#183;m per column unit]</th><th class=\"t\">couples joints</th></tr>\n" : "</tr>\n", f);
  for (int k = 0; tr && k < n; k++) {
    int coupled = 0;
    for (int c = 0; c < m->nmot; c++) coupled |= m->mot_k[c] == k;
    fprintf(f, "<tr><td>%d</td>", k + 1);
    for (int j = 0; j < n; j++) fprintf(f, "<td>%.6g</td>", m->trans[k*n + j]);
    fprintf(f, "<td>%.6g</td><td class=\"t\">%s</td></tr>\n", lo->has_gain ? lo->gain[k] : 1.0,
            coupled ? "yes: IAM, FVM, FCM of this motor are parameters" : "no");
  }
  fputs("<tr><td>q offset [rad|m]</td>", f);
  for (int j = 0; j < n; j++) fprintf(f, "<td>%.6g</td>", lo->has_qoff ? lo->q_offset[j] : 0.0);
  fputs(tr ? "<td></td><td class=\"t\"></td></tr>\n</table>\n" : "</tr>\n</table>\n", f);
}

/* The model: source, joints and types, gravity, the conversion check, per
 * joint the modified-DH geometry and the nominal mass, and how the logs
 * were mapped to its joints (trans_table). */
static void model_section(FILE* f, const dyModel* m, const dyiLogOpt* lo) {
  const int n = m->n;
  fputs("<h2 id=\"model\">Model</h2>\n", f);
  how(f, "The arm the parameters belong to, as dynid read it: its modified Denavit-Hartenberg geometry (theta "
         "and d at q = 0) and nominal masses. The conversion check is the largest forward-kinematics difference "
         "between the file and the converted model (about 1e-15 when the file was read right).");
  fputs("<p>", f);
  char types[DY_MAXJ + 1];
  for (int j = 0; j < n; j++) types[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
  types[n] = 0;
  fprintf(f, "Source <code>");
  esc_path(f, m->source);
  fprintf(f, "</code>: %d joints (%s), modified Denavit-Hartenberg; gravity in frame 0 "
             "(%.4g, %.4g, %.4g) m/s<sup>2</sup>; conversion check %.2g.</p>\n",
          n, types, m->gravity[0], m->gravity[1], m->gravity[2], m->load_fk_err);
  fputs("<table><tr><th>joint</th><th>type</th><th>alpha [rad]</th><th>a [m]</th><th>theta [rad]</th><th>d [m]</th>"
        "<th>nominal mass [kg]</th></tr>\n", f);
  for (int j = 0; j < n; j++)
    fprintf(f, "<tr><td>%d</td><td>%c</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.4g</td></tr>\n",
            j + 1, types[j], m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j], m->par[10*j + DY_M]);
  fputs("</table>\n", f);
  if (m->has_trans || lo->has_qoff) trans_table(f, m, lo);
}

/* The standard parameters that share a status and a reason: one row of
 * the identifiability table. */
typedef struct {
  int status;          /* 0 not identifiable, 1 only in combination, 2 alone, 3 held (--fix, --drop) */
  int grp;             /* alone: the link of a link parameter, n for the joint parameters */
  char why[1024];      /* the reason, or the base parameters it is in */
  char names[2048];    /* the standard parameters, ", " between them */
  int count;
} identRow;

/* One line of dyi_base_report ("#   NAME: not identifiable: WHY",
 * "#   NAME: identifiable only in combination, in A B",
 * "#   NAME: identifiable alone[ as X]") into a row of rows (merged with an
 * earlier one of the same status and reason); the number of rows. */
static int ident_parse(const dyModel* m, char* line, identRow* rows, int nrow) {
  char* nm = line + strspn(line, "# ");
  char* c = strstr(nm, ": ");
  if (!c || strchr(nm, ' ') < c) return nrow;   /* the heading line */
  *c = 0;
  const char* rest = c + 2;
  identRow r = {.count = 1};
  if (!strncmp(rest, "not identifiable: ", 18)) { r.status = 0; snprintf(r.why, sizeof r.why, "%s", rest + 18); }
  else if (!strncmp(rest, "identifiable only in combination, in ", 37)) {
    r.status = 1;
    snprintf(r.why, sizeof r.why, "%s", rest + 37);
  } else if (!strncmp(rest, "identifiable alone", 18)) {
    r.status = 2;
    const char* as = strstr(rest, " as ");
    if (as && strcmp(as + 4, nm)) snprintf(r.why, sizeof r.why, "as %s", as + 4);
    else snprintf(r.why, sizeof r.why, as ? "a base parameter itself" : "alone, as a combination of its own");
    int k = dy_parindex(m, nm);
    r.grp = k < 0 ? -1 : k < DY_NPAR_LINK * m->n ? k / DY_NPAR_LINK : m->n;
  } else if (!strncmp(rest, "held at ", 8)) {   /* "held at V, not estimated (--fix, --drop)" */
    r.status = 3;
    snprintf(r.why, sizeof r.why, "%s", rest);
  } else return nrow;
  for (int i = 0; i < nrow; i++)
    if (rows[i].status == r.status && rows[i].grp == r.grp && !strcmp(rows[i].why, r.why)) {
      size_t L = strlen(rows[i].names);
      snprintf(rows[i].names + L, sizeof rows[i].names - L, ", %s", nm);
      rows[i].count++;
      return nrow;
    }
  snprintf(r.names, sizeof r.names, "%s", nm);
  rows[nrow] = r;
  return nrow + 1;
}

/* the base parameters A B C of a combination, each linked to its row of
 * the base-parameter table */
static void ident_links(FILE* f, const char* list) {
  fputs("in ", f);
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  int k = 0;
  char* save = NULL;
  for (char* t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    fputs(k++ ? ", <a href=\"#bp-" : "<a href=\"#bp-", f);
    esc(f, t);
    fputs("\">", f);
    esc(f, t);
    fputs("</a>", f);
  }
}

/* One status group: its rows as a table in a <details>, open when short. */
static void ident_group(FILE* f, const identRow* rows, int nrow, int status) {
  static const char* title[4] = {"Not identifiable", "Identifiable only in combination", "Identifiable alone",
                                 "Held, not estimated"};
  static const char* head[4] = {"why", "in the base parameters", "as", "value"};
  static const char* word[4] = {"not identifiable", "only in combination", "alone", "held"};
  int nr = 0, np = 0;
  for (int i = 0; i < nrow; i++)
    if (rows[i].status == status) { nr++; np += rows[i].count; }
  if (!nr) return;
  fprintf(f, "<details%s><summary><b>%s</b>: %d standard parameter%s</summary>\n", nr <= 12 ? " open=\"open\"" : "",
          title[status], np, np == 1 ? "" : "s");
  fprintf(f, "<table class=\"ident\"><tr><th class=\"t\">parameters</th><th class=\"t\">status</th>"
             "<th class=\"t\">%s</th></tr>\n", head[status]);
  for (int i = 0; i < nrow; i++) {
    if (rows[i].status != status) continue;
    fputs("<tr><td class=\"l\">", f);
    esc(f, rows[i].names);
    fprintf(f, "</td><td class=\"u\">%s</td><td class=\"t\">", word[status]);
    if (status == 1) ident_links(f, rows[i].why);
    else esc(f, rows[i].why);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n</details>\n", f);
}

/* Identifiability of the first set's base parameters: which standard
 * parameters are identifiable alone, only in combination, or not at all
 * and why (dyi_base_report), as one table per status, the parameters of
 * the same status and reason on one row. */
static void ident_section(FILE* f, const dyModel* m, const dyiBase* b0) {
  fputs("<h2 id=\"identifiability\">Identifiability</h2>\n", f);
  how(f, "What the torques can tell apart, whatever the motion: a standard parameter is identifiable alone, "
         "only inside base parameters (minimal linear combinations, whose expressions are in the table above), "
         "or not at all. The reasons follow from the model's geometry alone.");
  char* buf = NULL; size_t len = 0;
  FILE* mf = open_memstream(&buf, &len);
  if (!mf) return;
  dyi_base_report(mf, m, b0);
  fclose(mf);
  identRow* rows = malloc(sizeof(identRow) * (size_t)(b0->npar + 1));
  int nrow = 0, cnt[4] = {0, 0, 0, 0};
  for (char* line = rows && buf ? strtok(buf, "\n") : NULL; line; line = strtok(NULL, "\n"))
    nrow = ident_parse(m, line, rows, nrow);
  for (int i = 0; i < nrow; i++) cnt[rows[i].status] += rows[i].count;
  fprintf(f, "<p>%d standard parameters%s, %d base parameters%s: %d identifiable alone, %d only in combination, "
             "%d not identifiable", b0->npar, b0->npar > DY_NPAR_LINK * m->n ? " (with joint friction and "
             "armature)" : "", b0->nb, b0->set == DYI_SET_FILE ? " (the set of the parameters file, rebuilt from "
             "its expressions)" : "", cnt[2], cnt[1], cnt[0]);
  if (cnt[3]) fprintf(f, ", %d held at a given value", cnt[3]);
  fputs(".</p>\n", f);
  for (int st = 0; st < 4 && rows; st++) ident_group(f, rows, nrow, st);
  free(rows);
  free(buf);
}

/* The identification summary: the quantities of the PARAMS headers (the
 * "key: value" lines identify writes), each with its unit, the sets side
 * by side. The bounds of a consistent estimate are left to the physical
 * consistency section, which lists them. */
#define MAXQ 32
typedef struct {
  int nq;
  char key[MAXQ][48];            /* the header's key */
  char* val[MAXQ][MAXSET];       /* its values per set, "\n" between repeated lines (owned) */
} reportHeader;

/* The quantity a header key names, its unit (HTML) and how to show it:
 * 0 text, 1 a list of numbers (per joint), 2 code. NULL name: skipped. */
static void header_key(const char* key, const dyModel* m, const char** name, const char** unit, int* kind) {
  static const struct { const char* key; const char* name; const char* unit; int kind; } K[] = {
    {"program", "written by", "", 0}, {"command", "command", "", 2}, {"model", "model", "", 2},
    {"input", "input", "", 2}, {"log", "log", "", 2}, {"rows", "rows and filtering", "", 0},
    {"set", "base-parameter set", "", 0}, {"method", "method", "", 0},
    {"friction", "joint parameters (IA, FV, FC, FO)", "", 0},
    {"samples", "samples (after filtering and decimation)", "", 0},
    {"condition number", "regressor condition number", "(dimensionless)", 0},
    {"residual rms per joint", "residual rms, joints 1..n", H_NM, 1},
    {"relative error per joint [%]", "relative error, joints 1..n", "%", 1},
    {"relative error all joints [%]", "relative error, all joints", "%", 0},
    {"consistent", "consistent estimate", "", 0}, {"warning", "warning", "", 0}};
  *name = key; *unit = ""; *kind = 0;
  for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
    if (!strcmp(key, K[i].key)) { *name = K[i].name; *unit = K[i].unit; *kind = K[i].kind; }
  int prismatic = 0;
  for (int j = 0; j < m->n; j++) prismatic |= m->jnt_type[j] == DY_PRISMATIC;
  if (!strcmp(key, "residual rms per joint") && prismatic) *unit = H_NM " (revolute), N (prismatic)";
}

/* Set k's header lines into H: "key: value" (a line without ": " is the
 * program's name; "dynid identify" and a repeated model line say nothing
 * new; the consistent estimate's bounds are left out). */
static void header_parse(reportHeader* H, const char* comment, int k) {
  char* buf = strdup(comment);
  char* save = NULL;
  for (char* line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
    char key[48] = "program";
    const char* val = line;
    char* c = strstr(line, ": ");
    if (c && (size_t)(c - line) < sizeof key) { memcpy(key, line, (size_t)(c - line)); key[c - line] = 0; val = c + 2; }
    else if (!strncmp(line, "dynid identify", 14)) continue;
    if (!strcmp(key, "consistent") && (!strncmp(val, "link ", 5) || !strncmp(val, "bounds ", 7))) continue;
    int q = 0;
    while (q < H->nq && strcmp(H->key[q], key)) q++;
    if (q == MAXQ) continue;
    if (q == H->nq) { snprintf(H->key[q], sizeof H->key[q], "%s", key); H->nq++; }
    char* old = H->val[q][k];
    if (old && !strcmp(key, "model")) continue;     /* provenance and summary name it alike */
    size_t L = (old ? strlen(old) + 1 : 0) + strlen(val) + 1;
    char* v = malloc(L);
    if (!v) continue;
    snprintf(v, L, "%s%s%s", old ? old : "", old ? "\n" : "", val);
    free(old);
    H->val[q][k] = v;
  }
  free(buf);
}

/* one value cell: lines joined by line breaks; a list of numbers in %.3g
 * with commas; code in <code> */
static void header_cell(FILE* f, const char* v, int kind) {
  fputs("<td class=\"t\">", f);
  if (!v) { fputs("-</td>", f); return; }
  char* buf = strdup(v);
  char* save = NULL;
  int first = 1;
  for (char* line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save), first = 0) {
    if (!first) fputs("<br/>", f);
    if (kind == 1) {
      char* e;
      int k = 0;
      for (double x = strtod(line, &e); e != line; line = e, x = strtod(line, &e)) fprintf(f, k++ ? ", %.3g" : "%.3g", x);
      continue;
    }
    if (kind == 2) fputs("<code>", f);
    if (kind == 2) esc_path(f, line); else esc_units(f, line);
    if (kind == 2) fputs("</code>", f);
  }
  free(buf);
  fputs("</td>", f);
}

/* The identification summary of the sets (their PARAMS headers) as one
 * table: quantity, unit, each set's value. */
static void header_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns) {
  reportHeader H;
  memset(&H, 0, sizeof H);
  for (int k = 0; k < ns; k++) header_parse(&H, sv[k]->prm->comment, k);
  if (!H.nq) return;
  fputs("<h3>Identification summary</h3>\n", f);
  how(f, "What the parameters files record of their identification: the logs and rows, the method, the "
         "conditioning and the training residual (on the filtered training rows).");
  fputs("<table class=\"header\"><tr><th class=\"t\">quantity</th><th class=\"t\">unit</th>", f);
  for (int k = 0; k < ns; k++) {
    fputs("<th class=\"t\">", f);
    esc(f, ns > 1 ? sv[k]->label : "value");
    fputs("</th>", f);
  }
  fputs("</tr>\n", f);
  for (int q = 0; q < H.nq; q++) {
    const char *name, *unit;
    int kind;
    header_key(H.key[q], m, &name, &unit, &kind);
    fputs(!strcmp(H.key[q], "warning") ? "<tr class=\"warn\"><td class=\"t\">" : "<tr><td class=\"t\">", f);
    esc(f, name);
    fprintf(f, "</td><td class=\"u\">%s</td>", unit);
    for (int k = 0; k < ns; k++) { header_cell(f, H.val[q][k], kind); free(H.val[q][k]); }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* Base parameters: the identification summary of the sets, then one
 * table with the sets side by side when they share the base set, else
 * one table per set. */
static void params_section(FILE* f, const dyModel* m, reportSet* const* sv, int ns) {
  fputs("<h2 id=\"parameters\">Base parameters</h2>\n", f);
  how(f, "The identified values: each base parameter with its unit, the nominal model's value of the same "
         "combination, the estimate, its standard deviation (absolute and relative) and its expression in "
         "the standard parameters. Shaded rows are poorly identified.");
  header_table(f, m, sv, ns);
  fputs("<h3>Values</h3>\n", f);
  if (ns > 1 && same_base(sv[0]->prm, sv[1]->prm)) param_table(f, m, sv, ns, 1);
  else
    for (int k = 0; k < ns; k++) {
      if (ns > 1) { fputs("<h3>", f); esc(f, sv[k]->label); fputs("</h3>\n", f); }
      param_table(f, m, sv + k, 1, k == 0);
    }
}

/* ---- Payload and drive gains: what is identified beside the arm's base
 * parameters. The drive gains: rows GAIN1..GAINn of a PARAMS file
 * (identify --estimate-gains, or the gains a run was given: N m, or N for
 * a prismatic joint, per logged unit), value and std per set; the payload:
 * a file of `dynid payload` (--payload). Absent when there is neither. */
typedef struct {
  const char* path;        /* --payload FILE, or NULL */
  double v[10], sd[10];    /* m cx cy cz ixx ixy ixz iyy iyz izz (ident/payload.h) */
  int det[10];
} reportPayload;

static void gains_table(FILE* f, const dyModel* m, reportSet* const* sv, int ns, double (*val)[DY_MAXJ],
                        double (*sd)[DY_MAXJ]) {
  how(f, "The drive gain of each joint: logged torque unit (e.g. motor current) to joint torque, with its standard "
         "deviation (none: a gain given to identify, not estimated).");
  fputs("<table class=\"gains\">", f);
  set_header(f, sv, ns, "joint</th><th class=\"t\">unit", "<th>gain</th><th>std</th><th>rel. std [%]</th>", NULL);
  for (int j = 0; j < m->n; j++) {
    fprintf(f, "<tr><td>%d</td><td class=\"u\">%s per logged unit</td>", j + 1,
            m->jnt_type[j] == DY_REVOLUTE ? H_NM : "N");
    for (int k = 0; k < ns; k++)
      if (isnan(val[k][j])) fputs("<td>-</td><td>-</td><td>-</td>", f);
      else if (isnan(sd[k][j])) fprintf(f, "<td>%.6g</td><td>given</td><td>-</td>", val[k][j]);
      else fprintf(f, "<td>%.6g</td><td>%.3g</td><td>%.3g</td>", val[k][j], sd[k][j], 100 * sd[k][j] / fabs(val[k][j]));
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void payload_table(FILE* f, const reportPayload* p) {
  static const char* const what[10] = {"mass", "centre of mass x", "centre of mass y", "centre of mass z",
                                       "inertia xx", "inertia xy", "inertia xz", "inertia yy", "inertia yz",
                                       "inertia zz"};
  fputs("<h3>Payload</h3>\n", f);
  how(f, "The load fixed to the tip frame, from <code>dynid payload</code>: centre of mass in the tip frame, inertia "
         "about the centre of mass in tip-frame axes (tensor entries). Undetermined: the log does not excite it.");
  fputs("<p class=\"cap\">", f);
  esc_path(f, p->path);
  fputs("</p>\n<table class=\"gains\"><tr><th class=\"t\">quantity</th><th class=\"t\">name</th>"
        "<th class=\"t\">unit</th><th>value</th><th>std</th></tr>\n", f);
  for (int k = 0; k < 10; k++) {
    fprintf(f, "<tr><td class=\"t\">%s</td><td class=\"t\">%s</td><td class=\"u\">%s</td>", what[k],
            dyi_payload_phys_name(k), k == 0 ? "kg" : k < 4 ? "mm" : H_KGM2);
    const double sc = k >= 1 && k < 4 ? 1e3 : 1;   /* the centre of mass in mm */
    if (!p->det[k]) fputs("<td>undetermined</td><td>-</td>", f);
    else if (isnan(p->sd[k])) fprintf(f, "<td>%.6g</td><td>-</td>", sc * p->v[k]);
    else fprintf(f, "<td>%.6g</td><td>%.3g</td>", sc * p->v[k], sc * p->sd[k]);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void gains_section(FILE* f, const dyModel* m, reportSet* const* sv, int ns, const reportPayload* pl) {
  double val[MAXSET][DY_MAXJ], sd[MAXSET][DY_MAXJ];
  char err[DY_ERRSZ];
  int any = 0;
  for (int k = 0; k < ns; k++) {
    int g = dyi_params_read_gains(sv[k]->path, m->n, val[k], sd[k], err, sizeof err);
    if (g <= 0)
      for (int j = 0; j < m->n; j++) val[k][j] = sd[k][j] = NAN;
    any += g > 0;
  }
  if (!any && !pl->path) return;
  fprintf(f, "<h2 id=\"gains\">%s</h2>\n", !pl->path ? "Drive gains" : any ? "Payload and drive gains" : "Payload");
  if (any) gains_table(f, m, sv, ns, val, sd);
  if (pl->path) payload_table(f, pl);
}

/* A line of links to the page's sections, in their order. */
static void nav(FILE* f, const cliArgs* c, char (*role)[160]) {
  fputs("<nav>Contents: <a href=\"#summary\">Summary</a> <a href=\"#sets\">Parameter sets</a> ", f);
  for (int li = 0; li + 2 < c->npos; li++) {
    fprintf(f, "<a href=\"#log%d\">", li + 1);
    esc(f, strncmp(role[li], "Training", 8) ? "Held-out " : "Training ");
    fprintf(f, "log %d</a> ", li + 1);
  }
  fputs("<a href=\"#parameters\">Base parameters</a> <a href=\"#physical\">Physical consistency</a> "
        "<a href=\"#identifiability\">Identifiability</a> <a href=\"#model\">Model</a></nav>\n", f);
}

/* The page: title, contents, summary, sets, the logs' sections (body),
 * base parameters, the place of payload and drive gains, physical
 * consistency, identifiability, model (results first, the reference
 * after), and how it was written (the command line and the model's
 * fingerprint). */
static void write_page(FILE* f, const cliArgs* c, const dyModel* m, reportSet* const* sv, int ns, char (*role)[160],
                       const char* body, size_t blen, const reportPayload* pl, const dyiLogOpt* lo) {
  const char* out = cli_opt(c, "o");
  const char* title = cli_opt(c, "title");
  char tbuf[300];
  if (!title) { snprintf(tbuf, sizeof tbuf, "dynid report: %s", m->source); title = tbuf; }
  fprintf(f, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
             "<title>");
  esc(f, title);
  fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
  esc(f, title);
  fputs("</h1>\n", f);
  nav(f, c, role);
  summary_box(f, m, sv, ns, c, role);
  sets_section(f, sv, ns, c, out);
  fwrite(body, 1, blen, f);
  params_section(f, m, sv, ns);
  gains_section(f, m, sv, ns, pl);
  phys_section(f, m, sv, ns, out);
  ident_section(f, m, sv[0]->prm->base);
  model_section(f, m, lo);
  char fpr[96];
  cli_fingerprint(m, fpr, sizeof fpr);
  fprintf(f, "<p class=\"cap\">Written by dynid %s: <code>", DYNID_VERSION);
  for (int i = 0; i < c->argc; i++) { if (i) fputc(' ', f); esc_path(f, i ? c->argv[i] : "dynid"); }
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
      "                     joined by '+'; the first is read for the per-link table, all are linked\n"
      "  --payload FILE     a load identified by dynid payload, shown beside the drive gains";
  int r = cli_check(c, "title,horizon,compare,labels,models,force,payload," CLI_LOG_OPTS, 3, 2 + MAXLOG, use);
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
  reportPayload pl = {.path = cli_opt(c, "payload")};
  if (pl.path && dyi_payload_read(pl.path, pl.v, pl.sd, pl.det, err, sizeof err)) { cli_fail("%s", err); goto done; }
  dyi_log_defaults(&lopt);
  if ((r = cli_logopt(c, m, &lopt)) != 0) { status = r; goto done; }
  if (series_alloc(&S, m->n, ns)) goto done;
  for (int k = 0; k < ns; k++)
    if (load_set(c, m, &set[k])) goto done;
  if (ns > 1 && !cli_opt(c, "labels") && !strcmp(set[0].label, set[1].label))
    for (int k = 0; k < ns; k++) snprintf(set[k].label, sizeof set[k].label, "%.63s", base_name(set[k].path));
  if (logs_body(c, m, sv, ns, &lopt, horizon, &S, role, &body, &blen)) goto done;
  for (int k = 0; k < ns; k++) {
    int j = 0;
    while (j < k && !same_scales(c, &set[j], &set[k])) j++;
    if (j < k) memcpy(set[k].scale, set[j].scale, sizeof(double) * (size_t)set[k].prm->base->nb);
    else if (set_scales(c, m, &set[k], &lopt)) goto done;
  }
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  write_page(o.f, c, m, sv, ns, role, body, blen, &pl, &lopt);
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
