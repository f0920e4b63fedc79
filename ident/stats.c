/* SPDX-License-Identifier: MIT */
/* dynid ident: mergeable statistics (see stats.h). */
#include "core/io.h"
#include "core/numparse.h"
#include "ident/stats.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_STATS 65536
#define MAXF 160               /* fields per line: T lines have 3 + NP + 1 <= 3 + DY_NPL DY_MAXJ */
#define P_TOL 1e-9             /* P entries agree to this, relative to max |P| */

static void fnv(uint64_t* h, const char* s) {
  for (; *s; s++) { *h ^= (unsigned char)*s; *h *= 1099511628211ull; }
}

uint64_t dyi_model_fingerprint(const dyModel* m) {
  uint64_t h = 14695981039346656037ull;
  char buf[64];
  snprintf(buf, sizeof buf, "n=%d;", m->n);
  fnv(&h, buf);
  for (int j = 0; j < m->n; j++) {
    snprintf(buf, sizeof buf, "%d,", m->jnt_type[j]); fnv(&h, buf);
    snprintf(buf, sizeof buf, "%.17g,", m->dh_alpha[j]); fnv(&h, buf);
    snprintf(buf, sizeof buf, "%.17g,", m->dh_a[j]); fnv(&h, buf);
    snprintf(buf, sizeof buf, "%.17g,", m->dh_theta[j]); fnv(&h, buf);
    snprintf(buf, sizeof buf, "%.17g;", m->dh_d[j]); fnv(&h, buf);
  }
  for (int k = 0; k < 3; k++) { snprintf(buf, sizeof buf, "%.17g,", m->gravity[k]); fnv(&h, buf); }
  return h;
}

void dyi_stats_friction_text(const dyiBase* b, char* buf, int bufsz) {
  static const char* kind[4] = {"ia", "fv", "fc", "fo"};
  int len = 0;
  buf[0] = 0;
  if (!b->friction) { snprintf(buf, (size_t)bufsz, "off"); return; }
  for (int k = 0; k < 4; k++)
    if (b->joint_keep >> k & 1u)
      len += snprintf(buf + len, (size_t)(bufsz - len > 0 ? bufsz - len : 0), "%s%s", len ? " " : "", kind[k]);
}

static double pmax_of(const dyiBase* b) {
  double pm = 0;
  for (long k = 0; k < (long)b->npar * b->nb; k++) pm = fmax(pm, fabs(b->P[k]));
  return pm;
}

int dyi_stats_write(FILE* f, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                    const dyiStatsHead* head, const dyiStatsLog* logs, int nlog) {
  char fr[32];
  dyi_stats_friction_text(b, fr, sizeof fr);
  fprintf(f, "dynid-stats,%d\n", DYI_STATS_VERSION);
  fprintf(f, "# mergeable statistics of an identification: dynid identify MODEL --stats FILE... -o PARAMS\n");
  fprintf(f, "model,%s\n", m->source);
  fprintf(f, "fingerprint,%016llx\n", (unsigned long long)dyi_model_fingerprint(m));
  fprintf(f, "joints,%d\nset,%s\nfriction,%s\noptions,%s\nbase,%d\n", m->n, dyi_base_set_name(b->set), fr, head->options, b->nb);
  for (int c = 0; c < b->nb; c++) fprintf(f, "param,%d,%s\n", c + 1, b->name[c]);
  double pm = pmax_of(b);
  for (int k = 0; k < b->npar; k++)
    for (int c = 0; c < b->nb; c++) {
      double v = b->P[(size_t)k * (size_t)b->nb + (size_t)c];
      if (fabs(v) > 1e-15 * pm) fprintf(f, "P,%d,%d,%.17g\n", k + 1, c + 1, v);
    }
  fprintf(f, "var_factor,%.17g\n", head->var_factor);
  fprintf(f, "logs,%ld,%ld,%ld,%ld\n", head->logs, head->rows_read, head->rows_dropped, head->files);
  for (int k = 0; k < nlog; k++)
    fprintf(f, "log,%ld,%ld,%.17g,%.17g,%d,%s\n", logs[k].rows_read, logs[k].rows_dropped, logs[k].fs,
            logs[k].fc, logs[k].decim, logs[k].path);
  fprintf(f, "samples,%ld\n", e->samples);
  for (int j = 0; j < e->n; j++) {
    int nc;
    const int* cols = dyi_est_cols(e, j, &nc);
    int m1 = nc + 1;
    const double* T = dyi_est_triangle(e, j);
    double rss = 0, yy = 0;
    rss = T[(m1 - 1) + (size_t)m1 * (size_t)(m1 - 1)];
    rss *= rss;
    for (int r = 0; r < m1; r++) yy += T[r + (size_t)m1 * (size_t)(m1 - 1)] * T[r + (size_t)m1 * (size_t)(m1 - 1)];
    fprintf(f, "joint,%d,%ld,%d,%.17g,%.17g\ncols,%d", j + 1, e->rows_j[j], nc, yy, rss, j + 1);
    for (int c = 0; c < nc; c++) fprintf(f, ",%d", cols[c] + 1);
    fputc('\n', f);
    for (int r = 0; r < m1; r++) {
      fprintf(f, "T,%d,%d", j + 1, r + 1);
      for (int c = r; c < m1; c++) fprintf(f, ",%.17g", T[r + (size_t)m1 * (size_t)c]);
      fputc('\n', f);
    }
  }
  fprintf(f, "end\n");
  return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------ reading */

typedef struct {
  const char* path;
  FILE* f;
  long row;
  char* line;
  int nf;
  char* fld[MAXF];
  char* err;
  int errsz;
} statsReader;

static int fail(statsReader* r, int col, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(statsReader* r, int col, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (col > 0) dy_errpos(r->err, r->errsz, r->path, r->row, col, "%s", msg);
  else if (r->row > 0) dy_errpos(r->err, r->errsz, r->path, r->row, 0, "%s", msg);
  else snprintf(r->err, (size_t)r->errsz, "%s: %s", r->path, msg);
  return -1;
}

/* next record (comments and blank lines skipped): 1, 0 at the end, -1 */
static int next(statsReader* r) {
  for (;;) {
    if (!fgets(r->line, LINE_MAX_STATS, r->f)) {
      if (ferror(r->f)) return fail(r, 0, "read error");
      return 0;
    }
    r->row++;
    size_t L = strlen(r->line);
    if (L == LINE_MAX_STATS - 1 && r->line[L - 1] != '\n')
      return fail(r, 0, "line longer than %d characters", LINE_MAX_STATS - 2);
    if (memchr(r->line, 0, L) != NULL && strlen(r->line) != L) return fail(r, 0, "NUL byte");
    while (L && (r->line[L - 1] == '\n' || r->line[L - 1] == '\r')) r->line[--L] = 0;
    if (!L || r->line[0] == '#') continue;
    r->nf = 0;
    char* p = r->line;
    for (;;) {
      if (r->nf == MAXF) return fail(r, MAXF + 1, "too many fields (at most %d)", MAXF);
      r->fld[r->nf++] = p;
      char* c = strchr(p, ',');
      if (!c) break;
      *c = 0;
      p = c + 1;
    }
    return 1;
  }
}

/* the next record must be KEY with nf fields (nf < 0: at least -nf) */
static int expect(statsReader* r, const char* key, int nf) {
  int q = next(r);
  if (q < 0) return -1;
  if (q == 0) return fail(r, 0, "truncated: the file ends before its '%s' line", key);
  if (strcmp(r->fld[0], key)) return fail(r, 1, "expected '%s', found '%.40s'", key, r->fld[0]);
  if (nf >= 0 && r->nf != nf) return fail(r, r->nf > nf ? nf + 1 : r->nf, "'%s' needs %d fields, found %d", key, nf, r->nf);
  if (nf < 0 && r->nf < -nf) return fail(r, r->nf, "'%s' needs at least %d fields, found %d", key, -nf, r->nf);
  return 0;
}

static int get_long(statsReader* r, int i, long lo, long hi, long* out) {
  char* end;
  errno = 0;
  long v = strtol(r->fld[i], &end, 10);
  if (!r->fld[i][0] || *end || errno) return fail(r, i + 1, "expected an integer, found '%.40s'", r->fld[i]);
  if (v < lo || v > hi) return fail(r, i + 1, "%ld out of range %ld..%ld", v, lo, hi);
  *out = v;
  return 0;
}

static int get_double(statsReader* r, int i, double* out) {
  char* end;
  errno = 0;
  double v = dy_strtod(r->fld[i], &end);
  if (!r->fld[i][0] || *end) return fail(r, i + 1, "expected a number, found '%.40s'", r->fld[i]);
  if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1)) return fail(r, i + 1, "number out of range or not finite: '%.40s'", r->fld[i]);
  *out = v;
  return 0;
}

/* the text of the fields from i on, joined by commas again (a path) */
static void rest(statsReader* r, int i, char* buf, int sz) {
  int len = 0;
  buf[0] = 0;
  for (int k = i; k < r->nf; k++)
    len += snprintf(buf + len, (size_t)(sz - len > 0 ? sz - len : 0), "%s%s", k > i ? "," : "", r->fld[k]);
}

static int open_rd(statsReader* r, const char* path, char* err, int errsz) {
  memset(r, 0, sizeof *r);
  r->path = path; r->err = err; r->errsz = errsz;
  r->line = malloc(LINE_MAX_STATS);
  if (!r->line) return fail(r, 0, "out of memory");
  r->f = fopen(path, "rb");
  if (!r->f) { fail(r, 0, "cannot open: %s", strerror(errno)); free(r->line); r->line = NULL; return -1; }
  return 0;
}

static void close_rd(statsReader* r) {
  if (r->f) fclose(r->f);
  free(r->line);
}

/* The head is read in the order of the format (stats.h): the version
 * line; what identifies the problem (model, fingerprint, joints, set,
 * friction, options), checked against ref when merging; the base
 * parameters, their P and the counts, up to and including the samples
 * line. */

/* "dynid-stats,VERSION": this reader's version only */
static int head_version(statsReader* r) {
  long v;
  int q = next(r);
  if (q < 0) return -1;
  if (q == 0) return fail(r, 0, "empty file: not a dynid statistics file");
  if (strcmp(r->fld[0], "dynid-stats"))
    return fail(r, 1, "not a dynid statistics file (it starts with '%.40s', expected 'dynid-stats')", r->fld[0]);
  if (r->nf != 2) return fail(r, r->nf > 2 ? 3 : 1, "'dynid-stats' needs a version");
  if (get_long(r, 1, 1, 1000000, &v)) return -1;
  if (v != DYI_STATS_VERSION)
    return fail(r, 2, "statistics format version %ld; this dynid reads version %d", v, DYI_STATS_VERSION);
  return 0;
}

/* model, fingerprint (16 hex digits), joints (1..DY_MAXJ), set (khalil,
 * lin or qr), friction (its kinds' text), options */
static int head_problem(statsReader* r, dyiStatsHead* h) {
  long v;
  if (expect(r, "model", -2)) return -1;
  rest(r, 1, h->model, sizeof h->model);
  if (expect(r, "fingerprint", 2)) return -1;
  char* end;
  errno = 0;
  h->fingerprint = strtoull(r->fld[1], &end, 16);
  if (strlen(r->fld[1]) != 16 || *end || errno) return fail(r, 2, "expected 16 hexadecimal digits, found '%.40s'", r->fld[1]);
  if (expect(r, "joints", 2) || get_long(r, 1, 1, DY_MAXJ, &v)) return -1;
  h->n = (int)v;
  if (expect(r, "set", 2)) return -1;
  h->set = dyi_base_set_parse(r->fld[1], NULL, 0);
  if (h->set == DYI_SET_NONE) return fail(r, 2, "unknown base set '%.40s' (expected khalil, lin or qr)", r->fld[1]);
  if (expect(r, "friction", 2)) return -1;
  if (strlen(r->fld[1]) >= sizeof h->friction) return fail(r, 2, "friction kinds too long");
  snprintf(h->friction, sizeof h->friction, "%s", r->fld[1]);
  if (expect(r, "options", -1)) return -1;
  rest(r, 1, h->options, sizeof h->options);
  return 0;
}

/* merging: the same problem as ref (model, set, friction, options) */
static int head_same(statsReader* r, const dyiStatsHead* h, const dyiStatsHead* ref) {
  if (h->fingerprint != ref->fingerprint) {
    r->row = 0;
    return fail(r, 0, "statistics of another model (fingerprint %016llx, model %s; the model given has "
                "%016llx): merge only statistics of the same arm", (unsigned long long)h->fingerprint, h->model,
                (unsigned long long)ref->fingerprint);
  }
  if (h->n != ref->n || h->set != ref->set || strcmp(h->friction, ref->friction) ||
      strcmp(h->options, ref->options)) {
    r->row = 0;
    return fail(r, 0, "statistics made with other options (set %s, friction %s, %s; expected set %s, "
                "friction %s, %s)", dyi_base_set_name(h->set), h->friction, h->options,
                dyi_base_set_name(ref->set), ref->friction, ref->options);
  }
  return 0;
}

/* base,NB and the NB param lines, named as in b (when given) */
static int head_params(statsReader* r, dyiStatsHead* h, const dyiBase* b) {
  long v;
  if (expect(r, "base", 2) || get_long(r, 1, 1, DY_MAXPAR, &v)) return -1;
  h->nb = (int)v;
  if (b && h->nb != b->nb)
    return fail(r, 2, "%d base parameters; the model's set %s has %d", h->nb, dyi_base_set_name(b->set), b->nb);
  for (int c = 0; c < h->nb; c++) {
    if (expect(r, "param", 3) || get_long(r, 1, c + 1, c + 1, &v)) return -1;
    if (b && strcmp(r->fld[2], b->name[c]))
      return fail(r, 3, "base parameter %d is '%.40s' here, '%s' in the model's set %s", c + 1, r->fld[2],
                  b->name[c], dyi_base_set_name(b->set));
  }
  return 0;
}

/* The P lines (K = 1..14n, C = 1..NB), each equal to b's entry within
 * P_TOL of max |P|, and as many as b's non-zeros; the record after them
 * is left in r. */
static int head_P(statsReader* r, const dyiStatsHead* h, const dyiBase* b) {
  long nz = 0;
  double pm = b ? pmax_of(b) : 0;
  long npar = b ? (long)b->npar : (long)(DY_NPL + DY_NPAR_MOT) * h->n;   /* with coupled motors up to 17n */
  for (;;) {
    int q = next(r);
    if (q <= 0) return q < 0 ? -1 : fail(r, 0, "truncated: the file ends in its P lines");
    if (strcmp(r->fld[0], "P")) break;
    long k, c;
    double x;
    if (r->nf != 4) return fail(r, r->nf > 4 ? 5 : r->nf, "'P' needs 4 fields, found %d", r->nf);
    if (get_long(r, 1, 1, npar, &k) || get_long(r, 2, 1, h->nb, &c) || get_double(r, 3, &x)) return -1;
    if (b) {
      if (k > b->npar) return fail(r, 2, "parameter %ld beyond the set's %d", k, b->npar);
      double y = b->P[(size_t)(k - 1) * (size_t)b->nb + (size_t)(c - 1)];
      if (!(fabs(x - y) <= P_TOL * pm))
        return fail(r, 4, "P(%ld,%ld) = %.17g here, %.17g in the model's set %s: another model or base set",
                    k, c, x, y, dyi_base_set_name(b->set));
    }
    nz++;
  }
  if (b) {
    long bnz = 0;
    for (long k = 0; k < (long)b->npar * b->nb; k++) bnz += fabs(b->P[k]) > 1e-15 * pm;
    if (bnz != nz) return fail(r, 1, "%ld non-zeros of P here, %ld in the model's set %s", nz, bnz, dyi_base_set_name(b->set));
  }
  return 0;
}

/* var_factor (> 0; its record already read), logs, the log lines
 * (information, checked as numbers), samples */
static int head_counts(statsReader* r, dyiStatsHead* h) {
  if (strcmp(r->fld[0], "var_factor")) return fail(r, 1, "expected 'var_factor', found '%.40s'", r->fld[0]);
  if (r->nf != 2) return fail(r, r->nf > 2 ? 3 : 1, "'var_factor' needs 2 fields");
  if (get_double(r, 1, &h->var_factor)) return -1;
  if (!(h->var_factor > 0)) return fail(r, 2, "var_factor must be > 0");
  if (expect(r, "logs", 5) || get_long(r, 1, 0, 1L << 40, &h->logs) || get_long(r, 2, 0, 1L << 60, &h->rows_read) ||
      get_long(r, 3, 0, 1L << 60, &h->rows_dropped) || get_long(r, 4, 1, 1L << 40, &h->files))
    return -1;
  for (;;) {
    int q = next(r);
    if (q <= 0) return q < 0 ? -1 : fail(r, 0, "truncated: the file ends in its log lines");
    if (strcmp(r->fld[0], "log")) break;
    if (r->nf < 7) return fail(r, r->nf, "'log' needs at least 7 fields, found %d", r->nf);
    long a;
    double x;
    if (get_long(r, 1, 0, 1L << 60, &a) || get_long(r, 2, 0, 1L << 60, &a) || get_double(r, 3, &x) ||
        get_double(r, 4, &x) || get_long(r, 5, 1, 1L << 30, &a))
      return -1;
  }
  if (strcmp(r->fld[0], "samples")) return fail(r, 1, "expected 'samples', found '%.40s'", r->fld[0]);
  if (r->nf != 2) return fail(r, r->nf > 2 ? 3 : 1, "'samples' needs 2 fields");
  if (get_long(r, 1, 0, 1L << 60, &h->samples)) return -1;
  return 0;
}

/* the head up to and including the samples line */
static int read_head(statsReader* r, dyiStatsHead* h, const dyiBase* b, const dyiStatsHead* ref) {
  memset(h, 0, sizeof *h);
  if (head_version(r) || head_problem(r, h) || (ref && head_same(r, h, ref)) ||
      head_params(r, h, b) || head_P(r, h, b) || head_counts(r, h))
    return -1;
  return 0;
}

int dyi_stats_head(const char* path, dyiStatsHead* h, char* err, int errsz) {
  statsReader r;
  if (open_rd(&r, path, err, errsz)) return -1;
  int rc = read_head(&r, h, NULL, NULL);
  close_rd(&r);
  return rc;
}

int dyi_stats_merge_file(const char* path, const dyiStatsHead* ref, const dyiBase* b, dyiEstim* e,
                         dyiStatsHead* acc, char* err, int errsz) {
  statsReader r;
  dyiStatsHead h;
  double* T = NULL;
  if (open_rd(&r, path, err, errsz)) return -1;
  int rc = -1;
  if (read_head(&r, &h, b, ref)) goto done;
  T = malloc(sizeof(double) * (size_t)(e->p + 1) * (size_t)(e->p + 1));
  if (!T) { fail(&r, 0, "out of memory"); goto done; }
  for (int j = 0; j < e->n; j++) {
    long v, rows, np;
    double yy, rss;
    int nc;
    const int* cols = dyi_est_cols(e, j, &nc);
    if (expect(&r, "joint", 6) || get_long(&r, 1, j + 1, j + 1, &v) || get_long(&r, 2, 0, 1L << 60, &rows) ||
        get_long(&r, 3, nc, nc, &np) || get_double(&r, 4, &yy) || get_double(&r, 5, &rss))
      goto done;
    if (expect(&r, "cols", (int)np + 2) || get_long(&r, 1, j + 1, j + 1, &v)) goto done;
    for (int c = 0; c < np; c++)
      if (get_long(&r, 2 + c, cols[c] + 1, cols[c] + 1, &v)) goto done;
    int m1 = (int)np + 1;
    for (int rr = 0; rr < m1; rr++) {
      if (expect(&r, "T", 3 + m1 - rr) || get_long(&r, 1, j + 1, j + 1, &v) || get_long(&r, 2, rr + 1, rr + 1, &v))
        goto done;
      for (int c = 0; c < m1; c++) {
        double x = 0;
        if (c >= rr && get_double(&r, 3 + c - rr, &x)) goto done;
        T[rr + (size_t)m1 * (size_t)c] = x;
      }
    }
    /* the sums beside the triangle must agree with it */
    double tyy = 0, trss = T[(m1 - 1) + (size_t)m1 * (size_t)(m1 - 1)];
    for (int rr = 0; rr < m1; rr++) tyy += T[rr + (size_t)m1 * (size_t)(m1 - 1)] * T[rr + (size_t)m1 * (size_t)(m1 - 1)];
    trss *= trss;
    if (!(fabs(tyy - yy) <= 1e-9 * fmax(yy, 1e-300)) || !(fabs(trss - rss) <= 1e-9 * fmax(tyy, 1e-300))) {
      fail(&r, 0, "joint %d: its sums (||y||^2 %.17g, rss %.17g) disagree with its triangle (%.17g, %.17g): "
           "the file is damaged", j + 1, yy, rss, tyy, trss);
      goto done;
    }
    if (dyi_est_merge_tri(e, j, T, rows, err, errsz)) goto done;
  }
  if (expect(&r, "end", 1)) goto done;
  int q = next(&r);
  if (q != 0) {
    if (q > 0) fail(&r, 1, "text after 'end'");
    goto done;
  }
  e->samples += h.samples;
  acc->samples += h.samples;
  acc->logs += h.logs;
  acc->rows_read += h.rows_read;
  acc->rows_dropped += h.rows_dropped;
  acc->files += h.files;
  acc->var_factor = fmax(acc->var_factor, h.var_factor);
  rc = 0;
done:
  free(T);
  close_rd(&r);
  return rc;
}
