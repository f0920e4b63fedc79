/* SPDX-License-Identifier: MIT */
/* dynid ident: the PARAMS file (see params.h). Reading parses every
 * expression into a row of B (dyi_expr_parse), so the file describes its own
 * base set; P = B^+ (dyi_base_pinv) gives the realisation pi = P beta with
 * B P = 1, hence Y pi = Y_b beta for any valid set, whichever wrote it. The
 * "#! pi" lines, when present, replace that realisation by the standard
 * parameters the estimate was solved as (checked: B pi = beta). */
#include "ident/params.h"
#include "core/io.h"
#include "core/numparse.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    dy_fprint_double(f, value[i]);
    fputc(',', f);
    double sd = std ? std[i] : NAN;
    if (isfinite(sd)) {
      dy_fprint_double(f, sd);
      fputc(',', f);
      double ref = scale ? fmax(fabs(value[i]), scale[i]) : fabs(value[i]);
      if (ref != 0) dy_fprint_double(f, 100 * sd / ref);
    } else fputc(',', f);
    fprintf(f, ",%s\n", buf);
  }
  free(buf);
  return ferror(f) ? -1 : 0;
}

void dyi_params_free(dyiParams* p) {
  if (!p) return;
  dyi_base_free(p->base);
  free(p->value);
  free(p->std);
  free(p->rel_std_pct);
  free(p->pi);
  free(p);
}

/* the '#' lines at the top of the file, joined with newlines; the #! lines
 * and the writer's note before the #! pi lines are not part of it */
static void read_comments(const char* path, char* out, int outsz) {
  out[0] = 0;
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  int len = 0;
  while (fgets(line, sizeof line, f)) {
    const char* s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '\n' || *s == '\r' || *s == 0) continue;
    if (*s != '#') break;
    s++;
    if (*s == '!') continue;
    if (*s == ' ') s++;
    size_t L = strcspn(s, "\r\n");
    if (L == strlen(DYI_PARAMS_PI_NOTE) && !strncmp(s, DYI_PARAMS_PI_NOTE, L)) continue;
    if (len + (int)L + 2 >= outsz) break;
    if (len) out[len++] = '\n';
    memcpy(out + len, s, L);
    len += (int)L;
    out[len] = 0;
  }
  fclose(f);
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
    dy_errpos(err, errsz, t->path, dy_csv_line(csv), 0, "missing column '%s' in the header",
             t->cname < 0 ? "name" : t->cval < 0 ? "value" : "expression");
    return -1;
  }
  t->header_line = dy_csv_line(csv);
  return 0;
}

/* One row: its cells present, at most npar rows (independent combinations
 * of npar parameters), value finite, std empty or a number, the expression
 * parsed into row nb of B (dyi_expr_parse). */
static int prows_add(pRows* t, dyCsv* csv, char** f, int nf, char* err, int errsz) {
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
        if (t->B[(size_t)i*npar + k] != 0) p->base->joint_keep |= 1u << ((k - nl) % DY_NPAR_JNT);
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

dyiParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz) {
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return NULL;
  pRows t;
  memset(&t, 0, sizeof t);
  t.path = path; t.m = m; t.npar = dy_npar(m); t.nl = DY_NPAR_LINK * m->n; t.cap = 64;
  t.cname = t.cval = t.cstd = t.crel = t.cexpr = -1;
  dyiParams* p = calloc(1, sizeof *p);
  t.names = malloc((size_t)t.cap * sizeof *t.names);
  t.B = malloc(sizeof(double) * (size_t)t.cap * (size_t)t.npar);
  t.val = malloc(sizeof(double) * (size_t)t.cap);
  t.sd = malloc(sizeof(double) * (size_t)t.cap);
  t.rel = malloc(sizeof(double) * (size_t)t.cap);
  int bad = 0;
  if (!p || !t.names || !t.B || !t.val || !t.sd || !t.rel) { snprintf(err, (size_t)errsz, "%s: out of memory", path); bad = 1; }
  if (!bad) read_comments(path, p->comment, sizeof p->comment);
  dy_csv_on_directive(csv, on_directive, &t);
  bad = bad || prows_header(&t, csv, err, errsz) || prows_read(&t, csv, err, errsz) ||
        prows_to_params(&t, p, err, errsz) || prows_pi(&t, p, err, errsz);
  prows_free(&t);
  dy_csv_close(csv);
  if (!bad) return p;
  one_line(err);
  dyi_params_free(p);
  return NULL;
}

void dyi_params_realise(const dyModel* m, const dyiParams* p, double* par) {
  int npar = dy_npar(m), np = p->base->npar, nb = p->base->nb;
  if (p->pi) { memcpy(par, p->pi, sizeof(double) * (size_t)npar); return; }
  for (int k = 0; k < npar; k++) {
    double s = 0;
    if (k < np)
      for (int i = 0; i < nb; i++) s += p->base->P[(size_t)k*nb + i] * p->value[i];
    par[k] = s;
  }
}
