/* SPDX-License-Identifier: MIT */
/* dynid ident: the PARAMS file (see params.h). Reading parses every
 * expression into a row of B (dyi_expr_parse), so the file describes its own
 * base set; P = B^+ (dyi_base_pinv) gives the realisation pi = P beta with
 * B P = 1, hence Y pi = Y_b beta for any valid set, whichever wrote it. The
 * "#! pi" lines, when present, replace that realisation by the standard
 * parameters the estimate was solved as (checked: B pi = beta). The '#'
 * header comes from the same pass (the CSV reader hands its comment lines
 * over): the comment as text and its fields (params.h) parsed once here,
 * for every consumer. */
#include "ident/params.h"
#include "core/util.h"
#include "core/io.h"
#include "core/numparse.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The value,std,rel_std_pct cells of a PARAMS row: the std and its
 * relative value (rel, when has_rel) only where the std is finite, else
 * both empty (a value given, not estimated) */
static void value_cells(FILE* f, double v, double sd, double rel, int has_rel) {
  dy_fprint_double(f, v);
  fputc(',', f);
  if (isfinite(sd)) {
    dy_fprint_double(f, sd);
    fputc(',', f);
    if (has_rel) dy_fprint_double(f, rel);
  } else fputc(',', f);
}

/* the held parameters of b (base.h dyi_base_fix) as one header line */
static void write_held(FILE* f, const dyModel* m, const dyiBase* b) {
  int L = dyi_base_fix_text(m, b, NULL, 0);
  char* t = L > 0 ? malloc((size_t)L + 1) : NULL;
  if (!t) return;
  dyi_base_fix_text(m, b, t, L + 1);
  fprintf(f, "# %s%s\n", DYI_PARAMS_HELD, t);
  free(t);
}

int dyi_params_write(FILE* f, const dyModel* m, const dyiBase* b, const double* value,
                     const double* std, const char* comment, const double* pi, const double* scale) {
  if (comment && *comment) {
    const char* s = comment;
    while (*s) {
      const char* e = strchr(s, '\n');
      int L = e ? (int)(e - s) : (int)strlen(s);
      fprintf(f, "# %.*s\n", L, s);
      s += L + (e ? 1 : 0);
    }
  }
  write_held(f, m, b);
  if (pi) {
    fprintf(f, "# %s\n", DYI_PARAMS_PI_NOTE);
    for (int k = 0; k < dy_npar(m); k++) {
      char nm[32];
      dy_parname(m, k, nm, sizeof nm);
      fprintf(f, "#! pi,%s,", nm);
      dy_fprint_double(f, pi[k]);
      fputc('\n', f);
    }
  }
  fprintf(f, "name,value,std,rel_std_pct,expression\n");
  int cap = 4096;
  char* buf = malloc((size_t)cap);
  if (!buf) return -1;
  for (int i = 0; i < b->nb; i++) {
    int need = dyi_base_expr(m, b, i, buf, cap);
    if (need >= cap) {
      char* nb = realloc(buf, (size_t)need + 1);
      if (!nb) { free(buf); return -1; }
      buf = nb; cap = need + 1;
      dyi_base_expr(m, b, i, buf, cap);
    }
    fprintf(f, "%s,", b->name[i]);
    const double sd = std ? std[i] : NAN, ref = scale ? fmax(fabs(value[i]), scale[i]) : fabs(value[i]);
    value_cells(f, value[i], sd, 100 * sd / ref, ref != 0);
    fprintf(f, ",%s\n", buf);
  }
  free(buf);
  return ferror(f) ? -1 : 0;
}

int dyi_params_write_gains(FILE* f, int n, const double* gain, const double* std) {
  for (int j = 0; j < n; j++) {
    fprintf(f, "GAIN%d,", j + 1);
    const double sd = std ? std[j] : NAN;
    value_cells(f, gain[j], sd, 100 * sd / gain[j], 1);
    fputs(",\n", f);
  }
  return ferror(f) ? -1 : 0;
}

/* ---- GAIN rows, shared by both readers */

typedef struct {
  int n, cname, cval, cstd;
  double gain[DY_MAXJ], std[DY_MAXJ];
  long line[DY_MAXJ];          /* line of each (0: not given) */
  int count;
  long last;
} pGains;

/* "GAINk" (any case, k = 1..n with no leading zero) -> k, else 0 */
static int gain_index(const char* name, int n) {
  if (strncasecmp(name, "GAIN", 4)) return 0;
  const char* d = name + 4;
  if (*d < '1' || *d > '9' || strspn(d, "0123456789") != strlen(d) || strlen(d) > 4) return -1;
  int k = atoi(d);
  return k <= n ? k : -1;
}

/* Row f: 1 a GAIN row taken into g, 0 another row, -1 with err */
static int gain_row(pGains* g, dyCsv* csv, const char* path, char** f, int nf, char* err, int errsz) {
  if (g->cname >= nf) return 0;
  const int k = gain_index(f[g->cname], g->n);
  if (!k) return 0;
  const long line = dy_csv_line(csv);
  if (k < 0) {
    dy_errpos(err, errsz, path, line, g->cname + 1, "'%s': a drive gain is GAIN1..GAIN%d for this %d-joint model",
              f[g->cname], g->n, g->n);
    return -1;
  }
  if (g->line[k - 1]) {
    dy_errpos(err, errsz, path, line, g->cname + 1, "GAIN%d given twice (also on line %ld)", k, g->line[k - 1]);
    return -1;
  }
  double v, sd = NAN;
  if (g->cval >= nf || dy_csv_double(csv, f[g->cval], g->cval, 0, &v, err, errsz)) {
    if (g->cval >= nf) dy_errpos(err, errsz, path, line, nf + 1, "GAIN%d has no value", k);
    return -1;
  }
  if (!(v != 0)) {
    dy_errpos(err, errsz, path, line, g->cval + 1, "GAIN%d is 0: a drive gain must not be zero", k);
    return -1;
  }
  const int cs = g->cstd;
  if (cs >= 0 && cs < nf && f[cs][strspn(f[cs], " \t")] != 0 && dy_csv_double(csv, f[cs], cs, 1, &sd, err, errsz))
    return -1;
  g->gain[k - 1] = v; g->std[k - 1] = sd; g->line[k - 1] = line;
  g->count++; g->last = line;
  return 1;
}

/* none or all n given; -1 with err naming the first missing one */
static int gains_complete(const pGains* g, const char* path, char* err, int errsz) {
  if (!g->count || g->count == g->n) return 0;
  int k = 0;
  while (g->line[k]) k++;
  dy_errpos(err, errsz, path, g->last, 0, "the GAIN rows give %d of the %d drive gains: GAIN%d is missing", g->count,
            g->n, k + 1);
  return -1;
}

int dyi_params_read_gains(const char* path, int n, double* gain, double* std, char* err, int errsz) {
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return -1;
  pGains g;
  memset(&g, 0, sizeof g);
  g.n = n;
  char** f; int nf, r = dy_csv_next(csv, &f, &nf, err, errsz);
  if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected a PARAMS file", path);
  if (r > 0) {
    g.cname = dy_csv_find(f, nf, "name"); g.cval = dy_csv_find(f, nf, "value"); g.cstd = dy_csv_find(f, nf, "std");
    if (g.cname < 0 || g.cval < 0) {
      dy_errpos(err, errsz, path, dy_csv_line(csv), 0, "missing column '%s': not a PARAMS file",
                g.cname < 0 ? "name" : "value");
      r = -1;
    }
  }
  while (r > 0 && (r = dy_csv_next(csv, &f, &nf, err, errsz)) > 0)
    if (gain_row(&g, csv, path, f, nf, err, errsz) < 0) r = -1;
  dy_csv_close(csv);
  if (r < 0 || gains_complete(&g, path, err, errsz)) return -1;
  if (!g.count) return 0;
  memcpy(gain, g.gain, sizeof(double) * (size_t)n);
  memcpy(std, g.std, sizeof(double) * (size_t)n);
  return 1;
}

/* the rows' part of p freed (NULL again) */
static void free_rows(dyiParams* p) {
  dyi_base_free(p->base);
  free(p->value);
  free(p->std);
  free(p->rel_std_pct);
  free(p->pi);
  free(p->gain);
  p->base = NULL;
  p->value = p->std = p->rel_std_pct = p->pi = p->gain = p->gain_std = NULL;
}

void dyi_params_free(dyiParams* p) {
  if (!p) return;
  free_rows(p);
  for (int i = 0; i < p->nlog; i++) free(p->log[i]);
  for (int i = 0; i < p->nbound; i++) free(p->bound[i]);
  free(p->log);
  free(p->bound);
  free(p->path);
  free(p);
}

/* ---- the header: the '#' lines at the top, handed over by the CSV reader
 * (dy_csv_on_comment) in the pass that reads the rows */

/* The header being read into p: the comment so far (len bytes; full once a
 * line did not fit: later lines are left out of it, not out of the fields),
 * done once the first row is read (comment lines after it are not the
 * header), the room of the lists, which single-line fields were seen. */
typedef struct {
  dyiParams* p;
  int len, full, done, oom;
  int logcap, boundcap;
  int seen;                         /* HEAD_* bits */
} pHead;

enum { HEAD_FP = 1, HEAD_SAMPLES = 2, HEAD_COND = 4, HEAD_REL = 8, HEAD_RISE = 16 };

/* the text after key when line starts with it, else NULL */
static const char* after(const char* line, const char* key) {
  size_t k = strlen(key);
  return strncmp(line, key, k) ? NULL : line + k;
}

/* the number s starts with, NaN when none */
static double number_at(const char* s) {
  char* e;
  double x = strtod(s, &e);
  return e == s ? NAN : x;
}


/* The fields one header line s (without "# ") gives (params.h, the
 * header; the lines as dynid identify writes them). A single-valued field
 * is taken from its first line, --rows from the last command line. -1 out
 * of memory. */
static int head_fields(pHead* h, const char* s) {
  dyiParams* p = h->p;
  const char* v;
  if ((v = after(s, "model: "))) {
    const char* fp = strstr(v, ", fingerprint: ");
    if (fp && !(h->seen & HEAD_FP)) {          /* the provenance's line */
      h->seen |= HEAD_FP;
      snprintf(p->model, sizeof p->model, "%.*s", (int)(fp - v), v);
      snprintf(p->fingerprint, sizeof p->fingerprint, "%s", fp + strlen(", fingerprint: "));
    } else if (!fp && !(h->seen & HEAD_FP) && !p->model[0])
      snprintf(p->model, sizeof p->model, "%s", v);
  } else if ((v = after(s, "command: "))) {
    const char* r = strstr(v, " --rows ");
    if (r) snprintf(p->rows, sizeof p->rows, "%.*s", (int)strcspn(r + 8, " "), r + 8);
  } else if ((v = after(s, "log: "))) {
    return dy_strv_push(&p->log, &p->nlog, &h->logcap, v);
  } else if ((v = after(s, "low-pass: "))) {
    if (!isnan(p->cutoff)) return 0;
    p->cutoff = after(v, "none") ? 0 : number_at(v);
    p->cutoff_measured = strncmp(v + strcspn(v, "(,"), "(default", 8) == 0;
  } else if ((v = after(s, "samples: "))) {
    char* e;
    long x = strtol(v, &e, 10);
    if (!(h->seen & HEAD_SAMPLES) && e != v && x >= 0) p->samples = x;
    h->seen |= HEAD_SAMPLES;
  } else if ((v = after(s, "condition number: "))) {
    if (h->seen & HEAD_COND) return 0;
    h->seen |= HEAD_COND;
    p->cond = number_at(v);
    p->cond_weighted = strstr(v, "(regressor as weighted") != NULL;
    const char* q = strstr(v, "; ");
    if (q) p->cond_scaled = number_at(q + 2);
  } else if ((v = after(s, "relative error all joints [%]: "))) {
    if (!(h->seen & HEAD_REL)) p->rel_err = number_at(v);
    h->seen |= HEAD_REL;
  } else if ((v = after(s, DYI_PARAMS_HELD))) {
    if (!p->held[0]) snprintf(p->held, sizeof p->held, "%s", v);
  } else if ((v = after(s, "consistent: "))) {
    p->consistent = 1;
    const char* r = after(v, "training residual ");
    if (r && !(h->seen & HEAD_RISE)) { p->rss_rise = number_at(r); h->seen |= HEAD_RISE; }
    if (after(v, "bounds ") || after(v, "link ")) return dy_strv_push(&p->bound, &p->nbound, &h->boundcap, v);
  }
  return 0;
}

/* One comment line from the CSV reader: before the first row, into the
 * comment (its text after '#' and one blank; not the #! lines, not the
 * writer's note before the #! pi lines) and the fields */
static int on_comment(void* ud, const char* text, long line, char* err, int errsz) {
  pHead* h = ud;
  (void)line;
  if (h->done) return 0;
  const char* s = text + strspn(text, " \t\r\n");
  s++;                                         /* the '#' */
  if (*s == '!') return 0;                     /* a directive no callback took */
  if (*s == ' ') s++;
  size_t L = strcspn(s, "\r\n");
  if (L == strlen(DYI_PARAMS_PI_NOTE) && !strncmp(s, DYI_PARAMS_PI_NOTE, L)) return 0;
  char* c = h->p->comment;
  const int csz = (int)sizeof h->p->comment;
  if (!h->full && h->len + (int)L + 2 >= csz) h->full = 1;
  if (!h->full) {
    if (h->len) c[h->len++] = '\n';
    memcpy(c + h->len, s, L);
    h->len += (int)L;
    c[h->len] = 0;
  }
  char* own = s[L] ? malloc(L + 1) : NULL;     /* the line alone, when more follows it */
  if (own) { memcpy(own, s, L); own[L] = 0; }
  int r = s[L] && !own ? -1 : head_fields(h, own ? own : s);
  free(own);
  if (r) {
    h->oom = 1;
    snprintf(err, (size_t)errsz, "%s: out of memory", h->p->path);
  }
  return r;
}

/* a new dyiParams for path: no rows, every header field absent */
static dyiParams* params_new(const char* path, char* err, int errsz) {
  dyiParams* p = calloc(1, sizeof *p);
  if (p && !(p->path = strdup(path))) { free(p); p = NULL; }
  if (!p) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return NULL; }
  p->samples = -1;
  p->cond = p->cond_scaled = p->rel_err = p->rss_rise = p->cutoff = NAN;
  return p;
}

/* a message quoting file text stays one line: control characters
 * (newlines of a quoted field) become '?' */
static void one_line(char* s) {
  for (; *s; s++) if ((unsigned char)*s < 32) *s = '?';
}

/* The rows read so far (nb of them, room for cap): names, the parsed
 * expressions as rows of B over the npar = 14n parameters, values and
 * standard deviations; the header's columns; the #! pi lines. */
typedef struct {
  const char* path;
  const dyModel* m;
  int npar, nl;                     /* dy_npar (14n), DY_NPAR_LINK n */
  int cap, nb, friction;            /* friction: an expression uses a joint parameter */
  char (*names)[32];
  double *B, *val, *sd, *rel;
  int cname, cval, cstd, crel, cexpr;
  long header_line;                 /* line of the header once read, else 0 */
  double* pi;                       /* the #! pi values (npar), NULL before the first */
  long* piline;                     /* line of each (0: not given) */
  int npi;                          /* how many given */
  long pilast;                      /* line of the last */
  pGains g;                         /* the GAIN rows */
} pRows;

static void prows_free(pRows* t) {
  free(t->names); free(t->B); free(t->val); free(t->sd); free(t->rel); free(t->pi); free(t->piline);
}

/* One "#! pi,NAME,VALUE" line (text without its line end) into t->pi;
 * errors "FILE:LINE:COL: ..." */
static int on_directive(void* ud, const char* text, long line, char* err, int errsz) {
  pRows* t = ud;
  const char* s = strstr(text, "#!") + 2;
  while (*s == ' ' || *s == '\t') s++;
  int col = (int)(s - text) + 1;
  if (t->header_line) {
    dy_errpos(err, errsz, t->path, line, col, "directive after the header (line %ld): #! lines go before it", t->header_line);
    return -1;
  }
  size_t L = strcspn(s, ", \t");
  if (L != 2 || strncasecmp(s, "pi", 2)) {
    dy_errpos(err, errsz, t->path, line, col, "unknown directive '%.*s' (pi)",
             (int)(L < 40 ? L : 40), s);
    return -1;
  }
  /* the fields after "pi": NAME and VALUE, blanks around them allowed */
  const char* p = s + L;
  const char* f[2];
  size_t fl[2];
  for (int i = 0; i < 2; i++) {
    while (*p == ' ' || *p == '\t') p++;
    if (*p != ',') {
      dy_errpos(err, errsz, t->path, line, (int)(p - text) + 1, "expected ',' and the %s: #! pi,NAME,VALUE", i ? "value" : "parameter name");
      return -1;
    }
    p++;
    while (*p == ' ' || *p == '\t') p++;
    f[i] = p;
    fl[i] = strcspn(p, ",");
    while (fl[i] > 0 && (p[fl[i] - 1] == ' ' || p[fl[i] - 1] == '\t')) fl[i]--;
    p += strcspn(p, ",");
  }
  if (*p) {
    dy_errpos(err, errsz, t->path, line, (int)(p - text) + 1, "more than a name and a value: #! pi,NAME,VALUE");
    return -1;
  }
  char nm[32];
  snprintf(nm, sizeof nm, "%.*s", (int)(fl[0] < sizeof nm - 1 ? fl[0] : sizeof nm - 1), f[0]);
  int k = fl[0] < sizeof nm - 1 ? dy_parindex(t->m, nm) : -1;
  if (k < 0 || k >= t->npar) {
    dy_errpos(err, errsz, t->path, line, (int)(f[0] - text) + 1, "'%.*s' is not a standard parameter of the %d-joint model "
             "(XX1 .. FO%d)", (int)(fl[0] < 40 ? fl[0] : 40), f[0],
             t->m->n, t->m->n);
    return -1;
  }
  if (!t->pi) {
    t->pi = calloc((size_t)t->npar, sizeof(double));
    t->piline = calloc((size_t)t->npar, sizeof(long));
    if (!t->pi || !t->piline) { snprintf(err, (size_t)errsz, "%s: out of memory", t->path); return -1; }
  }
  if (t->piline[k]) {
    dy_parname(t->m, k, nm, sizeof nm);
    dy_errpos(err, errsz, t->path, line, (int)(f[0] - text) + 1, "second value of %s (the first is on line %ld)", nm, t->piline[k]);
    return -1;
  }
  char num[64], *end;
  snprintf(num, sizeof num, "%.*s", (int)(fl[1] < sizeof num - 1 ? fl[1] : sizeof num - 1), f[1]);
  double x = dy_strtod(num, &end);
  if (fl[1] == 0 || fl[1] >= sizeof num - 1 || *end || !isfinite(x)) {
    dy_parname(t->m, k, nm, sizeof nm);
    dy_errpos(err, errsz, t->path, line, (int)(f[1] - text) + 1, "value of %s: not a finite number: '%.*s'", nm, (int)(fl[1] < 40 ? fl[1] : 40), f[1]);
    return -1;
  }
  t->pi[k] = x;
  t->piline[k] = line;
  t->npi++;
  t->pilast = line;
  return 0;
}

/* room for twice as many rows */
static int prows_grow(pRows* t, char* err, int errsz) {
  t->cap *= 2;
  void* a = realloc(t->names, (size_t)t->cap * sizeof *t->names);
  if (a) t->names = a;
  void* b2 = realloc(t->B, sizeof(double) * (size_t)t->cap * (size_t)t->npar);
  if (b2) t->B = b2;
  void* c2 = realloc(t->val, sizeof(double) * (size_t)t->cap);
  if (c2) t->val = c2;
  void* d2 = realloc(t->sd, sizeof(double) * (size_t)t->cap);
  if (d2) t->sd = d2;
  void* e2 = realloc(t->rel, sizeof(double) * (size_t)t->cap);
  if (e2) t->rel = e2;
  if (!a || !b2 || !c2 || !d2 || !e2) { snprintf(err, (size_t)errsz, "%s: out of memory", t->path); return -1; }
  return 0;
}

/* the header: name, value and expression required, std optional */
static int prows_header(pRows* t, dyCsv* csv, char* err, int errsz) {
  char** f; int nf;
  int r = dy_csv_next(csv, &f, &nf, err, errsz);
  if (r <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected the header name,value,std,rel_std_pct,expression", t->path);
    return -1;
  }
  t->cname = dy_csv_find(f, nf, "name");
  t->cval = dy_csv_find(f, nf, "value");
  t->cstd = dy_csv_find(f, nf, "std");
  t->crel = dy_csv_find(f, nf, "rel_std_pct");
  t->cexpr = dy_csv_find(f, nf, "expression");
  if (t->cname < 0 || t->cval < 0 || t->cexpr < 0) {
    /* a file of another kind where PARAMS belongs: say which (arguments swapped?) */
    const char* kind = dy_csv_find(f, nf, "alpha") >= 0 && dy_csv_find(f, nf, "joint") >= 0 ? "a model table"
                     : dy_csv_find(f, nf, "q1") >= 0 || dy_csv_find(f, nf, "tau1") >= 0 ? "a log"
                     : dy_csv_find(f, nf, "residual_rms") >= 0 ? "validate's metrics" : NULL;
    char hint[200] = "";
    if (kind)
      snprintf(hint, sizeof hint, ": this looks like %s, not a PARAMS file (the file identify -o writes): "
               "are the arguments swapped?", kind);
    dy_errpos(err, errsz, t->path, dy_csv_line(csv), 0, "missing column '%s' in the header%s",
             t->cname < 0 ? "name" : t->cval < 0 ? "value" : "expression", hint);
    return -1;
  }
  t->header_line = dy_csv_line(csv);
  t->g.n = t->m->n; t->g.cname = t->cname; t->g.cval = t->cval; t->g.cstd = t->cstd;
  return 0;
}

/* the GAIN rows, if any, all n, into p->gain and p->gain_std */
static int prows_gains(pRows* t, dyiParams* p, char* err, int errsz) {
  if (gains_complete(&t->g, t->path, err, errsz)) return -1;
  if (!t->g.count) return 0;
  const int n = t->g.n;
  if (!(p->gain = malloc(sizeof(double) * 2 * (size_t)n))) {
    snprintf(err, (size_t)errsz, "%s: out of memory", t->path);
    return -1;
  }
  p->gain_std = p->gain + n;
  memcpy(p->gain, t->g.gain, sizeof(double) * (size_t)n);
  memcpy(p->gain_std, t->g.std, sizeof(double) * (size_t)n);
  return 0;
}

/* One row: its cells present, at most npar rows (independent combinations
 * of npar parameters), value finite, std empty or a number, the expression
 * parsed into row nb of B (dyi_expr_parse). */
static int prows_add(pRows* t, dyCsv* csv, char** f, int nf, char* err, int errsz) {
  const int gr = gain_row(&t->g, csv, t->path, f, nf, err, errsz);
  if (gr) return gr < 0 ? -1 : 0;
  int need = t->cname > t->cval ? t->cname : t->cval, nb = t->nb, npar = t->npar;
  if (t->cexpr > need) need = t->cexpr;
  if (nf <= need) {
    dy_errpos(err, errsz, t->path, dy_csv_line(csv), nf + 1, "row has %d columns, expected at least %d", nf, need + 1);
    return -1;
  }
  if (nb == npar) {
    dy_errpos(err, errsz, t->path, dy_csv_line(csv), 0, "more than %d base parameters, the number of standard "
             "parameters of the %d-joint model", npar, t->m->n);
    return -1;
  }
  if (nb == t->cap && prows_grow(t, err, errsz)) return -1;
  snprintf(t->names[nb], sizeof t->names[nb], "%s", f[t->cname]);
  if (dy_csv_double(csv, f[t->cval], t->cval, 0, &t->val[nb], err, errsz)) return -1;
  t->sd[nb] = NAN;
  int cs = t->cstd;
  if (cs >= 0 && cs < nf && f[cs][strspn(f[cs], " \t")] != 0)
    if (dy_csv_double(csv, f[cs], cs, 1, &t->sd[nb], err, errsz)) return -1;
  t->rel[nb] = NAN;
  int cr = t->crel;
  if (cr >= 0 && cr < nf && f[cr][strspn(f[cr], " \t")] != 0)
    if (dy_csv_double(csv, f[cr], cr, 1, &t->rel[nb], err, errsz)) return -1;
  char perr[256];
  double* row = t->B + (size_t)nb*npar;
  if (dyi_expr_parse(t->m, npar, f[t->cexpr], row, perr, sizeof perr)) {
    dy_errpos(err, errsz, t->path, dy_csv_line(csv), t->cexpr + 1, "expression of %s: %s",
             t->names[nb], perr);
    return -1;
  }
  for (int k = t->nl; k < npar; k++) if (row[k] != 0) t->friction = 1;
  t->nb++;
  return 0;
}

/* The lead of base parameter `name`: the standard parameter of that name,
 * or of the name without its R suffix (a grouped parameter); -1 if none
 * or beyond the set's np parameters. */
static int lead_of(const dyModel* m, const char* name, int np) {
  char nm[32];
  snprintf(nm, sizeof nm, "%s", name);
  size_t L = strlen(nm);
  int k = dy_parindex(m, nm);
  if (k < 0 && L > 1 && (nm[L-1] == 'R' || nm[L-1] == 'r')) { nm[L-1] = 0; k = dy_parindex(m, nm); }
  return k < np ? k : -1;
}

/* The set the rows describe: over 14n parameters when an expression uses
 * a joint parameter (10n otherwise), joint_keep the kinds of joint
 * parameter used (the others are zero), P = B^+ (dyi_base_pinv). */
static int prows_to_params(pRows* t, dyiParams* p, char* err, int errsz) {
  int nb = t->nb, npar = t->npar, nl = t->nl, np = t->friction ? npar : nl;
  p->base = dyi_base_make_empty(DYI_SET_FILE, nb, np, t->friction);
  p->value = malloc(sizeof(double) * (size_t)nb);
  p->std = malloc(sizeof(double) * (size_t)nb);
  p->rel_std_pct = malloc(sizeof(double) * (size_t)nb);
  if (!p->base || !p->value || !p->std || !p->rel_std_pct) { snprintf(err, (size_t)errsz, "%s: out of memory", t->path); return -1; }
  if (t->friction) {
    p->base->joint_keep = 0;
    for (int i = 0; i < nb; i++)
      for (int k = nl; k < npar; k++)
        if (t->B[(size_t)i*npar + k] != 0) p->base->joint_keep |= 1u << dy_parkind(t->m, k);
  }
  for (int i = 0; i < nb; i++) {
    memcpy(p->base->name[i], t->names[i], sizeof p->base->name[i]);
    memcpy(p->base->B + (size_t)i*np, t->B + (size_t)i*npar, sizeof(double) * (size_t)np);
    p->value[i] = t->val[i];
    p->std[i] = t->sd[i];
    p->rel_std_pct[i] = t->rel[i];
    p->base->lead[i] = lead_of(t->m, t->names[i], np);
  }
  char perr[256];
  if (dyi_base_pinv(p->base, perr, sizeof perr)) {
    snprintf(err, (size_t)errsz, "%s: %s", t->path, perr);
    return -1;
  }
  return 0;
}

/* The held parameters of the header (p->held) onto the set read: b->fix
 * (base.h dyi_base_fix; the expressions leave them out already). A held
 * joint parameter beyond the set's columns must be 0 (dropped). */
static int prows_held(dyiParams* p, const dyModel* m, char* err, int errsz) {
  if (!p->held[0]) return 0;
  int k[DY_MAXPAR];
  double v[DY_MAXPAR];
  char why[DY_ERRSZ];
  int nk = dyi_base_fix_parse(m, p->held, k, v, why, sizeof why);
  dyiBase* b = p->base;
  if (nk < 0) { snprintf(err, (size_t)errsz, "%s: the held parameters (%s line): %s", p->path, DYI_PARAMS_HELD, why); return -1; }
  if (!(b->fix = malloc(sizeof(double) * (size_t)b->npar))) { snprintf(err, (size_t)errsz, "%s: out of memory", p->path); return -1; }
  for (int c = 0; c < b->npar; c++) b->fix[c] = NAN;
  for (int i = 0; i < nk; i++) {
    if (k[i] < b->npar) { b->fix[k[i]] = v[i]; continue; }
    if (v[i] != 0) {
      char nm[24];
      dy_parname(m, k[i], nm, sizeof nm);
      snprintf(err, (size_t)errsz, "%s: %s is held at %.17g but no expression has a joint parameter", p->path, nm, v[i]);
      return -1;
    }
  }
  return 0;
}

/* The #! pi lines, if any: all npar given, and B pi = beta to 1e-9 of
 * max(max |beta|, sum_k |B_ik pi_k|) for every row i; then p->pi owns them. */
static int prows_pi(pRows* t, dyiParams* p, char* err, int errsz) {
  if (!t->pi) return 0;
  char nm[32];
  if (t->npi < t->npar) {
    int k = 0;
    while (t->piline[k]) k++;
    dy_parname(t->m, k, nm, sizeof nm);
    dy_errpos(err, errsz, t->path, t->pilast, 0, "the #! pi lines give %d of the %d standard parameters: %s is missing "
             "(all are required once one is given)", t->npi, t->npar, nm);
    return -1;
  }
  const dyiBase* b = p->base;
  double big = 0;
  for (int i = 0; i < b->nb; i++) big = fmax(big, fabs(p->value[i]));
  for (int i = 0; i < b->nb; i++) {
    double v = 0, mag = 0;
    for (int k = 0; k < b->npar; k++) {
      double c = b->B[(size_t)i * b->npar + k] * t->pi[k];
      v += c;
      mag += fabs(c);
    }
    if (!(fabs(v - p->value[i]) <= 1e-9 * fmax(big, mag))) {
      snprintf(err, (size_t)errsz, "%s: the standard parameters (#! pi lines) do not reproduce the base "
               "parameters (%s: %.17g vs %.17g)", t->path, b->name[i], v, p->value[i]);
      return -1;
    }
  }
  p->pi = t->pi;
  t->pi = NULL;
  return 0;
}

/* the rows of the file, after its header */
static int prows_read(pRows* t, dyCsv* csv, char* err, int errsz) {
  char** f; int nf, r;
  while ((r = dy_csv_next(csv, &f, &nf, err, errsz)) > 0)
    if (prows_add(t, csv, f, nf, err, errsz)) return -1;
  if (r < 0) return -1;
  if (t->nb == 0) { snprintf(err, (size_t)errsz, "%s: no base parameters", t->path); return -1; }
  return 0;
}

/* The rows of p's file for model m into p; with h, the header too, in the
 * same pass. 0, or -1 with err (one line). */
static int read_rows(dyiParams* p, const dyModel* m, pHead* h, char* err, int errsz) {
  const char* path = p->path;
  free_rows(p);
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return -1;
  pRows t;
  memset(&t, 0, sizeof t);
  t.path = path; t.m = m; t.npar = dy_npar(m); t.nl = DY_NPAR_LINK * m->n; t.cap = 64;
  t.cname = t.cval = t.cstd = t.crel = t.cexpr = -1;
  t.names = malloc((size_t)t.cap * sizeof *t.names);
  t.B = malloc(sizeof(double) * (size_t)t.cap * (size_t)t.npar);
  t.val = malloc(sizeof(double) * (size_t)t.cap);
  t.sd = malloc(sizeof(double) * (size_t)t.cap);
  t.rel = malloc(sizeof(double) * (size_t)t.cap);
  int bad = 0;
  if (!t.names || !t.B || !t.val || !t.sd || !t.rel) { snprintf(err, (size_t)errsz, "%s: out of memory", path); bad = 1; }
  if (h) dy_csv_on_comment(csv, on_comment, h);
  dy_csv_on_directive(csv, on_directive, &t);
  bad = bad || prows_header(&t, csv, err, errsz);
  if (h) h->done = 1;
  bad = bad || prows_read(&t, csv, err, errsz) || prows_to_params(&t, p, err, errsz) || prows_held(p, m, err, errsz) ||
        prows_pi(&t, p, err, errsz) || prows_gains(&t, p, err, errsz);
  prows_free(&t);
  dy_csv_close(csv);
  if (!bad) return 0;
  one_line(err);
  free_rows(p);
  return -1;
}

dyiParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz) {
  dyiParams* p = params_new(path, err, errsz);
  if (!p) return NULL;
  pHead h;
  memset(&h, 0, sizeof h);
  h.p = p;
  if (!read_rows(p, m, &h, err, errsz)) return p;
  dyi_params_free(p);
  return NULL;
}

dyiParams* dyi_params_read_header(const char* path, char* err, int errsz) {
  dyiParams* p = params_new(path, err, errsz);
  if (!p) return NULL;
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) { dyi_params_free(p); return NULL; }
  pHead h;
  memset(&h, 0, sizeof h);
  h.p = p;
  dy_csv_on_comment(csv, on_comment, &h);
  char** f; int nf;
  char rerr[DY_ERRSZ];
  dy_csv_next(csv, &f, &nf, rerr, sizeof rerr);   /* up to the first row; its errors are the rows' */
  dy_csv_close(csv);
  if (!h.oom) return p;
  snprintf(err, (size_t)errsz, "%s: out of memory", path);
  dyi_params_free(p);
  return NULL;
}

int dyi_params_read_rows(dyiParams* p, const dyModel* m, char* err, int errsz) {
  return read_rows(p, m, NULL, err, errsz);
}

void dyi_params_realise(const dyModel* m, const dyiParams* p, double* par) {
  int npar = dy_npar(m), np = p->base->npar, nb = p->base->nb;
  if (p->pi) memcpy(par, p->pi, sizeof(double) * (size_t)npar);
  else for (int k = 0; k < npar; k++) {
    double s = 0;
    if (k < np)
      for (int i = 0; i < nb; i++) s += p->base->P[(size_t)k*nb + i] * p->value[i];
    par[k] = s;
  }
  for (int k = 0; p->base->fix && k < np; k++)   /* held parameters: their values */
    if (!isnan(p->base->fix[k])) par[k] = p->base->fix[k];
}
