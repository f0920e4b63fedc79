/* SPDX-License-Identifier: MIT */
/* dynid ident: the log reader (see log.h for the pipeline).
 *
 * Memory: one CSV row (core/io.h caps its length and columns), the first
 * 1000 rows (for the sample rate), the zero-phase filter's block buffers
 * (filter.h: (B + 2M) x channels, at most DYI_ZPF_MAXBYTES: a cutoff too
 * small a fraction of the sample rate is refused with the ratio it would
 * need) and a three-sample window for the differences; nothing grows with
 * the log. Resampling makes at most RESAMPLE_MAXUP samples per row read. */
#include "ident/log.h"
#include "core/util.h"
#include "ident/filter.h"
#include "core/io.h"
#include "core/transmission.h"
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/numparse.h"

void dyi_log_defaults(dyiLogOpt* opt) {
  memset(opt, 0, sizeof *opt);
  for (int j = 0; j < DY_MAXJ; j++) opt->gain[j] = 1;
  opt->filter_tau = 1;
}

/* ---------------------------------------------- sample-major manifests
 * A manifest is a CSV with the header quantity,file,stride; each row names
 * a file (relative to the manifest's folder) holding one value per line,
 * sample-major: line stride*k + j of the file is value j of sample k. Its
 * values become columns NAME1..NAMEstride (NAME alone for stride 1), and
 * the log's rows are the samples: ROW in messages is the sample number. */

#define SM_MAX 16

typedef struct {
  int nfile;
  dyCsv* f[SM_MAX];
  int stride[SM_MAX];
  int ncol;
  char* text;                       /* ncol x SM_CELL cell texts */
  char** cells;                     /* (ncol) pointers into text */
  long sample;
} smSource;

#define SM_CELL 64

static void sm_close(smSource* m) {
  if (!m) return;
  for (int i = 0; i < m->nfile; i++) dy_csv_close(m->f[i]);
  free(m->text); free(m->cells);
  free(m);
}

/* open the files named by the manifest rows (the header already read);
 * names[ncol] are made for the columns (owned by m->text's tail). */
static smSource* sm_open(dyCsv* man, const char* path, char*** names, char* err, int errsz) {
  smSource* m = calloc(1, sizeof *m);
  char qn[SM_MAX][32];
  if (!m) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return NULL; }
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash) slash[1] = 0; else dir[0] = 0;
  char** f; int nf, rc;
  while ((rc = dy_csv_next(man, &f, &nf, err, errsz)) == 1) {
    long line = dy_csv_line(man);
    char* e;
    long st = nf == 3 ? strtol(f[2], &e, 10) : 0;
    if (nf != 3 || st < 1 || st > DY_MAXJ || *e || !*f[0] || strlen(f[0]) > 24) {
      dy_errpos(err, errsz, path, line, 0, "expected quantity,file,stride with stride 1..%d", DY_MAXJ);
      sm_close(m);
      return NULL;
    }
    if (m->nfile == SM_MAX) {
      dy_errpos(err, errsz, path, line, 0, "more than %d files", SM_MAX);
      sm_close(m);
      return NULL;
    }
    char fp[1100];
    snprintf(fp, sizeof fp, "%s%s", f[1][0] == '/' ? "" : dir, f[1]);
    m->f[m->nfile] = dy_csv_open(fp, err, errsz);
    if (!m->f[m->nfile]) { sm_close(m); return NULL; }
    snprintf(qn[m->nfile], sizeof qn[0], "%s", f[0]);
    m->stride[m->nfile++] = (int)st;
    m->ncol += (int)st;
  }
  if (rc < 0 || m->nfile == 0) {
    if (rc == 0) snprintf(err, (size_t)errsz, "%s: manifest names no file", path);
    sm_close(m);
    return NULL;
  }
  /* cell texts, then the column names */
  m->text = calloc((size_t)m->ncol * 2, SM_CELL);
  m->cells = calloc((size_t)m->ncol * 2, sizeof(char*));
  if (!m->text || !m->cells) { snprintf(err, (size_t)errsz, "%s: out of memory", path); sm_close(m); return NULL; }
  int c = 0;
  for (int i = 0; i < m->nfile; i++)
    for (int j = 0; j < m->stride[i]; j++, c++) {
      m->cells[c] = m->text + (size_t)c * SM_CELL;
      char* nm = m->text + (size_t)(m->ncol + c) * SM_CELL;
      if (m->stride[i] == 1) snprintf(nm, SM_CELL, "%s", qn[i]);
      else snprintf(nm, SM_CELL, "%s%d", qn[i], j + 1);
      m->cells[m->ncol + c] = nm;
    }
  *names = m->cells + m->ncol;
  return m;
}

/* next sample as cells: 1, 0 at the end, -1 on error; a file ending inside
 * a sample gives a short (truncated) row */
static int sm_next(smSource* m, char*** fields, int* nf, char* err, int errsz) {
  int c = 0;
  for (int i = 0; i < m->nfile; i++)
    for (int j = 0; j < m->stride[i]; j++) {
      char** f; int n;
      int rc = dy_csv_next(m->f[i], &f, &n, err, errsz);
      if (rc < 0) return -1;
      if (rc == 0) {
        if (c == 0) return 0;
        *fields = m->cells; *nf = c;
        m->sample++;
        return 1;
      }
      snprintf(m->cells[c], SM_CELL, "%s", n ? f[0] : "");
      c++;
    }
  *fields = m->cells; *nf = c;
  m->sample++;
  return 1;
}

static void sm_progress(const smSource* m, long long* done, long long* total) {
  *done = *total = 0;
  for (int i = 0; i < m->nfile; i++) {
    long long d, t;
    dy_csv_progress(m->f[i], &d, &t);
    *done += d; *total += t;
  }
}

/* ------------------------------------------------------------ raw rows */

struct dyiLogRaw_ {
  char path[512];
  int n;
  dyiLogOpt opt;
  dyCsv* csv;
  smSource* sm;                     /* a sample-major manifest instead */
  int ncol;
  int colt, colq[DY_MAXJ], colqd[DY_MAXJ], colqdd[DY_MAXJ], coltau[DY_MAXJ];
  int logged;
  double* vals;                     /* (ncol) */
  long row;                         /* data rows seen */
  int done;
  dyiQuality* q;
  struct rawAhead_* ahead;          /* rows parsed on a thread of their own, or NULL */
  struct splitState_* split;        /* the file parsed by byte ranges on threads, or NULL */
  double Rinv[DY_MAXJ * DY_MAXJ];   /* opt.trans inverted (n x n), with has_trans */
  int has_uscale;                   /* q, qd or qdd scaled by the header's units */
  double uscale[3][DY_MAXJ];        /* their factors to rad|m, rad/s|m/s, rad/s^2|m/s^2 */
  char units[96];                   /* what the header's units changed, for dyiLogInfo */
};

static int split_next(dyiLogRaw* r, char*** f, int* nf, int* pre, char* err, int errsz);
static void split_stop(dyiLogRaw* r);
static long split_line(const dyiLogRaw* r);
static void split_position(const dyiLogRaw* r, long long* done, long long* total);

/* "t", "q3", "qd3", "qdd3", "tau3" -> role and 0-based joint; 0 or -1 */
static int parse_quantity(const char* s, int n, int* role, int* joint) {
  static const struct { const char* p; int role; } P[] = {
    {"qdd", DYI_ROLE_QDD}, {"qd", DYI_ROLE_QD}, {"tau", DYI_ROLE_TAU}, {"q", DYI_ROLE_Q}};
  if (!strcasecmp(s, "t")) { *role = DYI_ROLE_T; *joint = 0; return 0; }
  for (int i = 0; i < 4; i++) {
    size_t L = strlen(P[i].p);
    if (strncasecmp(s, P[i].p, L) || !isdigit((unsigned char)s[L])) continue;
    char* e;
    long j = strtol(s + L, &e, 10);
    if (*e || j < 1 || j > n) return -1;
    *role = P[i].role; *joint = (int)j - 1;
    return 0;
  }
  return -1;
}

/* column of a header name or "cK"; -1 */
static int find_col(char** names, int nf, const char* col) {
  int c = dy_csv_find(names, nf, col);
  if (c >= 0) return c;
  if ((col[0] == 'c' || col[0] == 'C') && isdigit((unsigned char)col[1])) {
    char* e;
    long k = strtol(col + 1, &e, 10);
    if (!*e && k >= 1 && k <= nf) return (int)k - 1;
  }
  return -1;
}

/* a conventional name in the header: as it is, else with a unit beside
 * it ("q1 [rad]", "t_s"); -1 */
static int find_named(char** names, int nf, const char* name) {
  int c = dy_csv_find(names, nf, name);
  for (int i = 0; c < 0 && i < nf; i++) {
    char base[64], unit[32];
    if (dyi_unit_split(names[i], base, sizeof base, unit, sizeof unit) && !strcasecmp(base, name)) c = i;
  }
  return c;
}

static int raw_start(dyiLogRaw* r, char* err, int errsz) {
  r->csv = dy_csv_open(r->path, err, errsz);
  if (!r->csv) return -1;
  if (r->opt.no_header) return 0;
  char** f; int nf;
  int rc = dy_csv_next(r->csv, &f, &nf, err, errsz);
  if (rc == 0) snprintf(err, (size_t)errsz, "%s: empty log (no header row)", r->path);
  return rc == 1 ? 0 : -1;
}

/* The header while the columns are mapped: the names (the header's, or
 * c1..cN without one), and per column its role and joint for the gate. */
typedef struct {
  const char* path;                 /* as given, for messages */
  int nf;
  char** names;                     /* (nf) */
  char* store;                      /* (nf x 16) the texts c1..cN */
  int *role, *joint;                /* (nf) */
} rawHead;

static void head_free(rawHead* h) {
  free(h->names); free(h->store); free(h->role); free(h->joint);
}

/* the columns of role ro (DYI_ROLE_Q..DYI_ROLE_TAU), one per joint */
static int* role_cols(dyiLogRaw* r, int ro) {
  switch (ro) {
    case DYI_ROLE_Q: return r->colq;
    case DYI_ROLE_QD: return r->colqd;
    case DYI_ROLE_QDD: return r->colqdd;
    default: return r->coltau;
  }
}

/* The first record of the file; the header quantity,file,stride (unless
 * no_header) makes the file a sample-major manifest, and the column names
 * are then its files' (sm_open). *f, *nf: the header, or the first row. */
static int raw_first(dyiLogRaw* r, const char* path, char*** f, int* nf, char* err, int errsz) {
  r->csv = dy_csv_open(path, err, errsz);
  if (!r->csv) return -1;
  int rc = dy_csv_next(r->csv, f, nf, err, errsz);
  if (rc <= 0) {
    if (rc == 0) snprintf(err, (size_t)errsz, "%s: empty log", path);
    return -1;
  }
  char** h = *f;
  if (*nf == 3 && !r->opt.no_header && !strcasecmp(h[0], "quantity") && !strcasecmp(h[1], "file")
      && !strcasecmp(h[2], "stride")) {
    char** smnames;
    r->sm = sm_open(r->csv, path, &smnames, err, errsz);
    dy_csv_close(r->csv);
    r->csv = NULL;
    if (!r->sm) return -1;
    *f = smnames; *nf = r->sm->ncol;
  }
  return 0;
}

void dyi_log_qcols(char* const* names, int nf, int* nq, int* qmax) {
  *nq = *qmax = 0;
  for (int i = 0; i < nf; i++) {
    const char* s = names[i];
    while (*s == ' ') s++;
    if ((s[0] != 'q' && s[0] != 'Q') || !isdigit((unsigned char)s[1])) continue;
    char* e;
    long k = strtol(s + 1, &e, 10);
    while (*e == ' ') e++;
    if (!*e && k >= 1) { (*nq)++; if (k > *qmax) *qmax = (int)k; }
  }
}

void dyi_log_watch_free(dyiLogWatch* w) {
  if (w && w->own) dyi_quality_free(w->quality);
  if (w) { w->quality = NULL; w->own = 0; w->complete = 0; }
}

/* names: the header, or c1..cN by position; the per-column arrays */
static int head_make(rawHead* h, dyiLogRaw* r, char** f, int nf, char* err, int errsz) {
  h->nf = nf;
  h->names = calloc((size_t)nf, sizeof(char*));
  h->store = calloc((size_t)nf, 16);
  h->role = calloc((size_t)nf, sizeof(int));
  h->joint = calloc((size_t)nf, sizeof(int));
  r->vals = calloc((size_t)nf, sizeof(double));
  if (!h->names || !h->store || !h->role || !h->joint || !r->vals) {
    snprintf(err, (size_t)errsz, "%s: out of memory", h->path);
    return -1;
  }
  for (int c = 0; c < nf; c++) {
    if (r->opt.no_header) { snprintf(h->store + 16*c, 16, "c%d", c + 1); h->names[c] = h->store + 16*c; }
    else h->names[c] = f[c];
  }
  if (r->opt.watch && !r->opt.no_header) dyi_log_qcols(f, nf, &r->opt.watch->nq, &r->opt.watch->qmax);
  return 0;
}

/* --map QUANTITY=COLUMN first: QUANTITY is t, qJ, qdJ, qddJ or tauJ
 * (J = 1..n), COLUMN a header name or cK */
static int map_explicit(dyiLogRaw* r, const rawHead* h, char* err, int errsz) {
  const dyiLogOpt* opt = &r->opt;
  for (int i = 0; i < opt->nmap; i++) {
    int ro, jo;
    if (parse_quantity(opt->map_name[i], r->n, &ro, &jo)) {
      snprintf(err, (size_t)errsz, "%s: --map: unknown quantity '%s' (t, q1..q%d, qd.., qdd.., tau..)",
               h->path, opt->map_name[i], r->n);
      return -1;
    }
    int c = find_col(h->names, h->nf, opt->map_col[i]);
    if (c < 0) {
      snprintf(err, (size_t)errsz, "%s: --map %s=%s: no such column", h->path, opt->map_name[i], opt->map_col[i]);
      return -1;
    }
    if (ro == DYI_ROLE_T) r->colt = c; else role_cols(r, ro)[jo] = c;
  }
  return 0;
}

/* Then the conventional names t, qJ, qdJ, qddJ, tauJ for what --map left
 * open; without a header and without --map, by position: 1 + k n columns,
 * k = 2..4, as t, q, [qd, [qdd,]] tau. */
static int map_default(dyiLogRaw* r, const rawHead* h, char* err, int errsz) {
  int n = r->n, nf = h->nf;
  if (r->opt.no_header && r->opt.nmap == 0) {
    int k = (nf - 1) / n;
    if ((nf - 1) % n || k < 2 || k > 4) {
      snprintf(err, (size_t)errsz, "%s: %d columns without a header: expected 1 + %d x (2, 3 or 4) "
               "(t, q, [qd, [qdd,]] tau) or --map", h->path, nf, n);
      return -1;
    }
    r->colt = 0;
    for (int j = 0; j < n; j++) {
      r->colq[j] = 1 + j;
      if (k >= 3) r->colqd[j] = 1 + n + j;
      if (k >= 4) r->colqdd[j] = 1 + 2*n + j;
      r->coltau[j] = 1 + (k - 1)*n + j;
    }
  } else if (!r->opt.no_header) {
    if (r->colt < 0) r->colt = find_named(h->names, nf, "t");
    for (int ro = DYI_ROLE_Q; ro <= DYI_ROLE_TAU; ro++)
      for (int j = 0; j < n; j++)
        if (role_cols(r, ro)[j] < 0) {
          char nm[16];
          snprintf(nm, sizeof nm, "%s%d", dyi_role_name(ro), j + 1);
          role_cols(r, ro)[j] = find_named(h->names, nf, nm);
        }
  }
  return 0;
}

/* Logged derivatives the user wants recomputed (--derive) are dropped; t,
 * every q and every tau are required; qd and qdd all or none (r->logged
 * gets bit 0 for qd, bit 1 for qdd). */
static int check_columns(dyiLogRaw* r, const rawHead* h, char* err, int errsz) {
  int n = r->n;
  if (r->opt.derive >= 1) for (int j = 0; j < n; j++) r->colqdd[j] = -1;
  if (r->opt.derive >= 2) for (int j = 0; j < n; j++) r->colqd[j] = -1;
  const char* miss = NULL; char mbuf[16] = "";
  if (r->colt < 0) miss = "t";
  for (int j = 0; j < n && !miss; j++) {
    if (r->colq[j] < 0) { snprintf(mbuf, sizeof mbuf, "q%d", j + 1); miss = mbuf; }
    else if (r->coltau[j] < 0) { snprintf(mbuf, sizeof mbuf, "tau%d", j + 1); miss = mbuf; }
  }
  if (miss) {
    snprintf(err, (size_t)errsz, "%s: no column for %s (header names t, q1..q%d, tau1..tau%d, "
             "or --map %s=COLUMN)", h->path, miss, n, n, miss);
    return -1;
  }
  for (int d = 0; d < 2; d++) {
    int* col = d ? r->colqdd : r->colqd, cnt = 0;
    for (int j = 0; j < n; j++) cnt += col[j] >= 0;
    if (cnt && cnt < n) {
      snprintf(err, (size_t)errsz, "%s: only %d of %d %s columns: give all or none", h->path, cnt, n,
               d ? "qdd" : "qd");
      return -1;
    }
    if (cnt) r->logged |= 1 << d;
  }
  return 0;
}

/* The units the header gives beside the used columns' names (dyi_unit_scale):
 * t into time_scale and tau into the gains unless --time-scale / --gain
 * say otherwise, q, qd, qdd into uscale; a unit of another quantity, or a
 * current without --gain, is an error naming the column. */
static int header_units(dyiLogRaw* r, const rawHead* h, char* err, int errsz) {
  if (r->opt.no_header) return 0;
  int tauk = 0, said[6] = {0};
  size_t L = 0;
  for (int ro = DYI_ROLE_T; ro <= DYI_ROLE_TAU; ro++)
    for (int j = 0; j < (ro == DYI_ROLE_T ? 1 : r->n); j++) {
      int c = ro == DYI_ROLE_T ? r->colt : role_cols(r, ro)[j];
      char base[64], unit[32];
      double k;
      if (c < 0 || !dyi_unit_split(h->names[c], base, sizeof base, unit, sizeof unit)) continue;
      int rc = dyi_unit_scale(ro, unit, &k);
      if (rc < 0 || (rc == 2 && !r->opt.has_gain)) {
        snprintf(err, (size_t)errsz, "%s: column '%s' (%s%.0d) is in %s by its header: %s", h->path, h->names[c], dyi_role_name(ro),
                 ro == DYI_ROLE_T ? 0 : j + 1, unit, rc < 0 ? "not a unit of this quantity: is --map right?"
                 : "a motor current: --gain K1,...,Kn gives the torque (torque constant x gear ratio, N m/A)");
        return -1;
      }
      if (rc == 1 || k == 1 || (ro == DYI_ROLE_T && r->opt.time_scale > 0) || (ro == DYI_ROLE_TAU && r->opt.has_gain))
        continue;
      if (ro == DYI_ROLE_T) r->opt.time_scale = k;
      else if (ro == DYI_ROLE_TAU) { r->opt.gain[j] = k; tauk = 1; }
      else { r->uscale[ro - DYI_ROLE_Q][j] = k; r->has_uscale = 1; }
      if (!said[ro] && L + 24 < sizeof r->units) {
        L += (size_t)snprintf(r->units + L, sizeof r->units - L, "%s%s in %s", L ? ", " : "", dyi_role_name(ro), unit);
        said[ro] = 1;
      }
    }
  if (tauk) r->opt.has_gain = 1;   /* the other joints' gains stay 1 */
  return 0;
}

/* the gate (quality.h) with each column's role and joint */
static int make_gate(dyiLogRaw* r, rawHead* h, char* err, int errsz) {
  h->role[r->colt] = DYI_ROLE_T;
  for (int ro = DYI_ROLE_Q; ro <= DYI_ROLE_TAU; ro++)
    for (int j = 0; j < r->n; j++) {
      int c = role_cols(r, ro)[j];
      if (c >= 0) { h->role[c] = ro; h->joint[c] = j; }
    }
  r->q = dyi_quality_make(h->path, h->nf, h->names, h->role, h->joint, r->n, r->opt.absurd, r->opt.on_bad,
                         r->opt.taumax);
  if (!r->q) { snprintf(err, (size_t)errsz, "%s: out of memory", h->path); return -1; }
  return 0;
}

dyiLogRaw* dyi_lograw_open(const char* path, int n, const dyiLogOpt* opt, char* err, int errsz) {
  if (n < 1 || n > DY_MAXJ) { snprintf(err, (size_t)errsz, "%s: bad joint count %d", path, n); return NULL; }
  dyiLogRaw* r = calloc(1, sizeof *r);
  if (!r) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return NULL; }
  snprintf(r->path, sizeof r->path, "%s", path);
  r->n = n; r->opt = *opt;
  r->colt = -1;
  double cond;
  if (opt->has_trans && dy_trans_invert(opt->trans, n, r->Rinv, &cond)) {
    snprintf(err, (size_t)errsz, "%s: singular transmission (condition number %.3g)", path, cond);
    free(r);
    return NULL;
  }
  for (int j = 0; j < n; j++) {
    r->colq[j] = r->colqd[j] = r->colqdd[j] = r->coltau[j] = -1;
    r->uscale[0][j] = r->uscale[1][j] = r->uscale[2][j] = 1;
  }
  char** f = NULL; int nf = 0;
  rawHead h;
  memset(&h, 0, sizeof h);
  h.path = path;
  if (opt->watch && !opt->watch->complete && opt->watch->row) opt->watch->row(opt->watch->ctx, NULL);
  if (raw_first(r, path, &f, &nf, err, errsz)) { dyi_lograw_close(r); return NULL; }
  r->ncol = nf;
  int bad = head_make(&h, r, f, nf, err, errsz) || map_explicit(r, &h, err, errsz) ||
            map_default(r, &h, err, errsz) || check_columns(r, &h, err, errsz) ||
            header_units(r, &h, err, errsz) || make_gate(r, &h, err, errsz);
  head_free(&h);
  if (bad) { dyi_lograw_close(r); return NULL; }
  if (opt->no_header && !r->sm) {   /* the first row is data: start again */
    dy_csv_close(r->csv);
    r->csv = NULL;
    if (raw_start(r, err, errsz)) { dyi_lograw_close(r); return NULL; }
  }
  return r;
}

/* motor side to joint side, in place: q = R^-1 q_m + offset, qd = R^-1 qd_m,
 * qdd = R^-1 qdd_m, tau = R^T tau_m. O(n^2), no allocation. */
static void to_joint(const dyiLogRaw* r, dyiLogRow* row) {
  const int n = r->n;
  double x[DY_MAXJ];
  size_t bytes = sizeof(double) * (size_t)n;
  if (r->has_uscale)   /* the header's units first: the columns as logged, in SI */
    for (int j = 0; j < n; j++) {
      row->q[j] *= r->uscale[0][j]; row->qd[j] *= r->uscale[1][j]; row->qdd[j] *= r->uscale[2][j];
    }
  if (r->opt.has_trans) {
    dy_trans_mul(x, r->Rinv, row->q, n); memcpy(row->q, x, bytes);
    if (r->logged & 1) { dy_trans_mul(x, r->Rinv, row->qd, n); memcpy(row->qd, x, bytes); }
    if (r->logged & 2) { dy_trans_mul(x, r->Rinv, row->qdd, n); memcpy(row->qdd, x, bytes); }
    dy_trans_mulT(x, r->opt.trans, row->tau, n); memcpy(row->tau, x, bytes);
  }
  if (r->opt.has_qoff) for (int j = 0; j < n; j++) row->q[j] += r->opt.q_offset[j];
}

static int raw_next(dyiLogRaw* r, dyiLogRow* row, char* err, int errsz) {
  if (r->done) return 0;
  for (;;) {
    char** f = NULL; int nf = 0, pre = 0;   /* pre: the cells parsed and checked by split_next */
    int rc = r->sm ? sm_next(r->sm, &f, &nf, err, errsz)
           : r->split ? split_next(r, &f, &nf, &pre, err, errsz) : dy_csv_next(r->csv, &f, &nf, err, errsz);
    if (rc < 0) return -1;
    if (rc == 0 || (r->opt.row_last > 0 && r->row >= r->opt.row_last)) {
      r->done = 1;
      dyi_quality_finish(r->q);
      dyiLogWatch* w = r->opt.watch;
      if (w && !w->complete) { w->complete = 1; w->quality = r->q; }   /* borrowed until close */
      return 0;
    }
    r->row++;
    if (r->opt.row_first > 0 && r->row < r->opt.row_first) continue;
    long line = r->sm ? r->sm->sample : pre ? split_line(r) : dy_csv_line(r->csv);
    int bad = 0;
    if (pre) dyi_quality_clean_row(r->q);
    else bad = dyi_quality_cells(r->q, line, f, nf, r->vals, err, errsz);
    double ts = r->opt.time_scale > 0 ? r->opt.time_scale : 1;
    double t = ts * r->vals[r->colt];
    if (!bad) bad = dyi_quality_time(r->q, line, t, r->colt + 1, err, errsz);
    if (bad) {
      if (!r->opt.on_bad) return -1;
      dyi_quality_dropped(r->q);
      continue;
    }
    row->row = r->row; row->line = line; row->t = t;
    for (int j = 0; j < r->n; j++) {
      row->q[j] = r->vals[r->colq[j]];
      row->qd[j] = r->logged & 1 ? r->vals[r->colqd[j]] : 0;
      row->qdd[j] = r->logged & 2 ? r->vals[r->colqdd[j]] : 0;
      row->tau[j] = (r->opt.has_gain ? r->opt.gain[j] : 1) * r->vals[r->coltau[j]];
    }
    if (r->opt.has_trans || r->opt.has_qoff || r->has_uscale) to_joint(r, row);
    if (dyi_quality_row(r->q, row) && r->opt.drop_stale) {
      dyi_quality_dropped(r->q);
      continue;
    }
    if (r->opt.watch && !r->opt.watch->complete && r->opt.watch->row) r->opt.watch->row(r->opt.watch->ctx, row);
    return 1;
  }
}

/* the reading position in bytes of the file(s) behind r, and their size */
static void raw_position(const dyiLogRaw* r, long long* done, long long* total) {
  if (r->sm) sm_progress(r->sm, done, total);
  else if (r->split) split_position(r, done, total);
  else dy_csv_progress(r->csv, done, total);
}

/* threads parsing byte ranges of one file: 3 in the cutoff's pre-pass,
 * where the calling thread only meters the rows (2e5 rows of the Panda,
 * 20 interleaved runs: 0.323 -> 0.312 s, ~30 ms less CPU: with more ranges
 * in flight a range waits less for its one thread), 2 in the read proper,
 * where the row stage's threads need the cores (3 there: 0.292 -> 0.304 s) */
#define SPLIT_PARSERS 3             /* at most */
#define SPLIT_PREPASS 3
#define SPLIT_READ 2
#define SPLIT_BLOCK (1LL << 20)     /* bytes per range (nominal: it ends at a line end) */

/* ---------------------------------------------------------- read-ahead */

/* AHEAD_BUFS buffers of AHEAD_ROWS rows: the thread fills one (raw_next: the CSV
 * row, the cell checks, the gate) while the reader takes rows from the
 * other; a buffer ends full (rc 1) or with the end (0) or an error (-1)
 * and its message. The thread owns r (its CSV and quality record) until
 * it has published the end or an error, or is stopped. */
#define AHEAD_ROWS 2048   /* rows per buffer: few hand-overs between the threads (4 x 2048 rows,
                             the memory of the 2 x 4096 before: 0.5 MiB each for 7 joints) */
#define AHEAD_BUFS 4      /* buffers: with two, the thread often waited for the reader to free
                             one while the parsers waited for it (see SPLIT_AHEAD) */

typedef struct rawAhead_ {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  double* buf[AHEAD_BUFS];          /* AHEAD_ROWS packed rows each (ahead_pack) */
  int cnt[AHEAD_BUFS], rc[AHEAD_BUFS], full[AHEAD_BUFS];
  char err[AHEAD_BUFS][DY_ERRSZ];
  long long done, total;            /* progress when the last buffer was published */
  int cur, pos, have;               /* the reader's buffer, its next row, whether it holds it */
  int stop;
} rawAhead;

/* A row's values packed: t, then q, qd, qdd, tau of its n joints (1 + 4n
 * doubles, row_values), as the read-ahead hands rows over and the
 * pre-pass keeps them; loops, not memcpy: a library call per array costs
 * more than these few values */
static size_t row_values(int n) { return 1 + 4 * (size_t)n; }

DY_LOOP_COPIES
static void row_pack(double* v, const dyiLogRow* s, int n) {
  v[0] = s->t;
  double *q = v + 1, *qd = q + n, *qdd = qd + n, *tau = qdd + n;
  for (int j = 0; j < n; j++) {
    q[j] = s->q[j]; qd[j] = s->qd[j]; qdd[j] = s->qdd[j]; tau[j] = s->tau[j];
  }
}

/* the values of row_pack into d (its t and n joints) */
DY_LOOP_COPIES
static void row_unpack(dyiLogRow* d, const double* v, int n) {
  d->t = v[0];
  const double *q = v + 1, *qd = q + n, *qdd = qd + n, *tau = qdd + n;
  for (int j = 0; j < n; j++) {
    d->q[j] = q[j]; d->qd[j] = qd[j]; d->qdd[j] = qdd[j]; d->tau[j] = tau[j];
  }
}

/* A row in the read-ahead's buffers: row, line (their bits), then its
 * values (row_pack): 3 + 4n doubles (31 cache lines of 64 rows of 7
 * joints, where a dyiLogRow takes 17 of one): the rows pass from one
 * thread's core to the other's, a cache line at a time */
static size_t ahead_rec(int n) { return 2 + row_values(n); }

/* one of the read-ahead's buffers [bytes]: AHEAD_ROWS records */
static size_t ahead_bytes(int n) { return sizeof(double) * ahead_rec(n) * AHEAD_ROWS; }

static void ahead_pack(double* d, const dyiLogRow* s, int n) {
  memcpy(d, &s->row, sizeof(double)); memcpy(d + 1, &s->line, sizeof(double));
  row_pack(d + 2, s, n);
}

static void ahead_unpack(dyiLogRow* d, const double* s, int n) {
  memcpy(&d->row, s, sizeof(double)); memcpy(&d->line, s + 1, sizeof(double));
  row_unpack(d, s + 2, n);
}

static void* ahead_main(void* arg) {
  dyiLogRaw* r = arg;
  rawAhead* a = r->ahead;
  /* 0.5 MiB each (7 joints), written over and over: faulted in here, while
   * the caller goes on, not before the thread starts (1-4 ms on a VM) */
  for (int b = 0; b < AHEAD_BUFS; b++) {
    dy_huge_pages(a->buf[b], ahead_bytes(r->n));
    dy_prefault(a->buf[b], ahead_bytes(r->n));
  }
  for (int b = 0, rc = 1; rc == 1; b = (b + 1) % AHEAD_BUFS) {
    pthread_mutex_lock(&a->mu);
    while (a->full[b] && !a->stop) pthread_cond_wait(&a->cv, &a->mu);
    int stop = a->stop;
    pthread_mutex_unlock(&a->mu);
    if (stop) break;
    int k = 0;
    char err[DY_ERRSZ] = "";
    const size_t rec = ahead_rec(r->n);
    dyiLogRow row;
    while (k < AHEAD_ROWS && (rc = raw_next(r, &row, err, sizeof err)) == 1) ahead_pack(a->buf[b] + rec * (size_t)k++, &row, r->n);
    long long d, t;
    raw_position(r, &d, &t);
    pthread_mutex_lock(&a->mu);
    a->cnt[b] = k; a->rc[b] = rc;
    memcpy(a->err[b], err, sizeof err);
    a->done = d; a->total = t;
    a->full[b] = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
  }
  return NULL;
}

/* stop and join the thread (waking it if it waits for a buffer) */
static void ahead_stop(dyiLogRaw* r) {
  rawAhead* a = r->ahead;
  if (!a) return;
  pthread_mutex_lock(&a->mu);
  a->stop = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->th, NULL);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->cv);
  for (int b = 0; b < AHEAD_BUFS; b++) free(a->buf[b]);
  free(a);
  r->ahead = NULL;
}

/* the read-ahead, the file split on `parsers` threads where it allows */
static int ahead_start(dyiLogRaw* r, int parsers) {
  if (r->ahead || r->done) return 0;
  dyi_lograw_split(r, parsers, SPLIT_BLOCK);
  rawAhead* a = calloc(1, sizeof *a);
  if (!a) return -1;
  int ok = 1;
  for (int b = 0; b < AHEAD_BUFS; b++) ok &= (a->buf[b] = malloc(ahead_bytes(r->n))) != NULL;
  if (!ok || pthread_mutex_init(&a->mu, NULL)) goto fail;
  if (pthread_cond_init(&a->cv, NULL)) { pthread_mutex_destroy(&a->mu); goto fail; }
  r->ahead = a;
  if (pthread_create(&a->th, NULL, ahead_main, r)) {
    r->ahead = NULL;
    pthread_mutex_destroy(&a->mu); pthread_cond_destroy(&a->cv);
    goto fail;
  }
  return 0;
fail:   /* no thread: the rows are read on the calling thread as before */
  for (int b = 0; b < AHEAD_BUFS; b++) free(a->buf[b]);
  free(a);
  return -1;
}

int dyi_lograw_readahead(dyiLogRaw* r) { return ahead_start(r, SPLIT_READ); }

/* the read-ahead's next row as it packed it (ahead_pack; valid until the
 * next call): 1, 0 at the end, -1 (err); r has a read-ahead */
static int ahead_next(dyiLogRaw* r, const double** rec, char* err, int errsz) {
  rawAhead* a = r->ahead;
  for (;;) {
    if (a->have) {
      const int b = a->cur;
      if (a->pos < a->cnt[b]) { *rec = a->buf[b] + ahead_rec(r->n) * (size_t)a->pos++; return 1; }
      int rc = a->rc[b];
      if (rc != 1) {   /* the end or an error: the thread has stopped */
        if (rc < 0) snprintf(err, (size_t)errsz, "%s", a->err[b]);
        ahead_stop(r);
        return rc;
      }
      pthread_mutex_lock(&a->mu);
      a->full[b] = 0;
      pthread_cond_broadcast(&a->cv);
      pthread_mutex_unlock(&a->mu);
      a->cur = (a->cur + 1) % AHEAD_BUFS; a->pos = 0; a->have = 0;
    }
    pthread_mutex_lock(&a->mu);
    while (!a->full[a->cur]) pthread_cond_wait(&a->cv, &a->mu);
    pthread_mutex_unlock(&a->mu);
    a->have = 1;
  }
}

int dyi_lograw_next(dyiLogRaw* r, dyiLogRow* row, char* err, int errsz) {
  if (!r->ahead) return raw_next(r, row, err, errsz);
  const double* rec;
  const int rc = ahead_next(r, &rec, err, errsz);
  if (rc == 1) ahead_unpack(row, rec, r->n);
  return rc;
}

/* the next row as the read-ahead packs it (ahead_pack; valid until the
 * next call): the read-ahead's own record, or, without one, the row read
 * here packed into one (AHEAD_ONE doubles). 1, 0, -1 as dyi_lograw_next. */
#define AHEAD_ONE (3 + 4 * DY_MAXJ)
static int lograw_next_packed(dyiLogRaw* r, double* one, const double** rec, char* err, int errsz) {
  if (r->ahead) return ahead_next(r, rec, err, errsz);
  dyiLogRow row;
  const int rc = raw_next(r, &row, err, errsz);
  if (rc == 1) { ahead_pack(one, &row, r->n); *rec = one; }
  return rc;
}

int dyi_lograw_logged(const dyiLogRaw* r) { return r->logged; }
dyiQuality* dyi_lograw_quality(dyiLogRaw* r) { return r->q; }
void dyi_lograw_detach(dyiLogRaw* r) { r->q = NULL; }
void dyi_lograw_progress(const dyiLogRaw* r, long long* done, long long* total) {
  if (r->ahead) {   /* the thread's reading position as last published */
    pthread_mutex_lock(&r->ahead->mu);
    *done = r->ahead->done; *total = r->ahead->total;
    pthread_mutex_unlock(&r->ahead->mu);
    return;
  }
  raw_position(r, done, total);
}
void dyi_lograw_close(dyiLogRaw* r) {
  if (!r) return;
  ahead_stop(r);
  split_stop(r);
  dy_csv_close(r->csv);
  sm_close(r->sm);
  if (r->opt.watch && r->opt.watch->quality == r->q && r->q) r->opt.watch->own = 1;   /* the watch keeps it */
  else dyi_quality_free(r->q);
  free(r->vals);
  free(r);
}

/* -------------------------------------- one file on several threads */

/* A plain (not compressed) log is cut into ranges of about SPLIT_BLOCK
 * bytes, each starting at a line start (the first after its nominal
 * offset); P threads parse them in turn (range k on thread k mod P)
 * into numbers, up to SPLIT_AHEAD P ranges ahead (slots), and split_next
 * hands the rows out in file order, to the same gate as every row.
 * A range's parser takes only plain data rows (dy_csv_next_plain) whose
 * first ncol cells are numbers that dyi_quality_cells would pass (parsed
 * whole by the same dy_strtod, finite, not absurd). It reads the lines in
 * place from the file mapped read-only (dy_csv_numbers_line), or where the
 * file cannot be mapped through a CSV reader of its own: validate of 10^5
 * samples (58 MB), 20 runs under perf, system time 24-25 -> 14-17 ms a
 * run (the copy out of the page cache gone), user time the same. At the
 * first other line (a comment, a quote, blanks, a NUL byte, a bad or
 * short row, a line over DY_CSV_MAXROW, the last line without a newline)
 * it stops, and the reader's own CSV takes over there
 * (dy_csv_seek), through dy_csv_next and dyi_quality_cells as on one
 * thread, up to the start of a later range which it reaches between two
 * records: that range's rows are used from there; ranges passed inside a
 * record (a quoted field across the cut) are dropped. So every row,
 * value, line number and message is the one-thread reader's. Memory: the
 * slots' numbers (a few MB), whatever the file. */
/* ranges a parser may hold parsed ahead of the reader: the reader takes
 * them in file order, so while it waits for the next range only that
 * range's parser can work unless the others have room to go on (with 2,
 * the cutoff's pre-pass left a core idle ~15 % of its time; with 4 here
 * and AHEAD_BUFS 4, 2e5 rows of the Panda with --friction on 2 threads,
 * 12 interleaved runs: wall mean 0.311 -> 0.294 s, 90th percentile 0.353
 * -> 0.300 s; 6 or 8, and 8 buffers, no better). 3 since the program's
 * heap is in huge pages, where the slots' memory is cleared 2 MiB at a
 * time (3 parsers: 12 slots of ~0.5 MB took 4 huge pages, 9 take 3): the
 * same wide log, 12 interleaved runs, the same wall time (0.229 against
 * 0.239 s mean), system time 56 -> 36 ms; validate of 1e5 samples 20.2
 * -> 17.4 ms (perf, 30 runs each) */
#define SPLIT_AHEAD 3
#define SPLIT_SLOTS (SPLIT_AHEAD * SPLIT_PARSERS)   /* at most */

typedef struct {
  int k;                            /* range number, -1: the slot is free */
  int ready;                        /* parsed */
  long long stop_pos;               /* stopped: where the line left to dy_csv_next starts */
  long nrows, cap;                  /* rows parsed; room */
  double* vals;                     /* (cap x ncol) their cells */
  long* rel;                        /* (cap) their lines, 1 = the range's first */
  long lines;                       /* lines in the range (up to the stop) */
  int stopped;
  int own;                          /* vals and rel its own allocations (else in the pool) */
} splitSlot;

typedef struct splitState_ {
  pthread_mutex_t mu;
  /* parser p waits on freed[p] for its next slot (range k's slot is next
   * used by range k + nslot, the same parser's: nslot is a multiple of
   * nth), the consumer on parsed: each hand-over wakes the one thread
   * that waits for it, not every parser */
  pthread_cond_t freed[SPLIT_PARSERS], parsed;
  pthread_t th[SPLIT_PARSERS];
  int nth, started, quit;            /* parsers, threads running, stop */
  splitSlot slot[SPLIT_SLOTS];
  int nslot;                        /* the slots in use: SPLIT_AHEAD nth */
  void* pool;                       /* the slots' first room, one allocation (split_pool) */
  int fd;                           /* the file, for the range bounds (pread) */
  const char* map;                  /* the file mapped read-only (size bytes), or NULL */
  _Atomic long long* bound;         /* (nblocks + 1) each range's start once found, else -1 */
  char path[512];
  long long base, size, block;      /* first range's start, file size, bytes per range */
  int nblocks, ncol, colt;
  double absurd;
  char delim;
  int k;                            /* the consumer: current range */
  splitSlot* got;                   /* its slot once parsed (split_wait), else NULL */
  long i;                           /* its next row */
  int seq;                          /* 1: rows from the reader's CSV */
  long linebase;                    /* lines before range k */
  long line;                        /* line of the row handed out last */
  long long done;                   /* progress: start of range k */
} splitState;

typedef struct { splitState* s; int p; } splitArg;

/* the first line start at or after the nominal start of range k (k = 0:
 * base; k = nblocks: the file's end) */
static long long split_bound(const splitState* s, int k) {
  if (k <= 0) return s->base;
  if (k >= s->nblocks) return s->size;
  /* each bound is asked for three times (the ranges on both sides, the
   * reader's progress): found once, by whichever thread asks first (two
   * that ask at once find the same) */
  long long b = atomic_load_explicit(&s->bound[k], memory_order_relaxed);
  if (b >= 0) return b;
  long long x = s->base + (long long)k * s->block - 1;   /* the byte before the nominal start */
  char buf[4096];
  for (b = s->size;;) {
    ssize_t got = pread(s->fd, buf, sizeof buf, (off_t)x);
    if (got <= 0) break;
    const char* nl = memchr(buf, '\n', (size_t)got);
    if (nl) { b = x + (nl - buf) + 1; break; }
    x += got;
  }
  atomic_store_explicit(&s->bound[k], b, memory_order_relaxed);
  return b;
}

/* the first ncol cells v as dyi_quality_cells reads them (dy_strtod, whole
 * cells: dy_csv_next_numbers); 1 when each is finite, not absurd (the
 * time column may be) */
static int split_cells(const splitState* s, const double* v) {
  for (int c = 0; c < s->ncol; c++)
    if (!isfinite(v[c]) || (c != s->colt && fabs(v[c]) > s->absurd)) return 0;
  return 1;
}

/* room for one more row in slot b: when it is full, twice its rows in
 * allocations of its own (the rows so far copied there; the old ones
 * freed when they were its own, not the pool's); 0, or -1 */
static int split_room(const splitState* s, splitSlot* b) {
  if (b->nrows < b->cap) return 0;
  const long cap = b->cap ? 2 * b->cap : 1024;
  const size_t nv = sizeof(double) * (size_t)s->ncol, used = (size_t)b->nrows;
  double* v = malloc(nv * (size_t)cap);
  long* l = malloc(sizeof(long) * (size_t)cap);
  if (!v || !l) { free(v); free(l); return -1; }
  if (used) { memcpy(v, b->vals, nv * used); memcpy(l, b->rel, sizeof(long) * used); }
  if (b->own) { free(b->vals); free(b->rel); }
  b->vals = v; b->rel = l; b->own = 1; b->cap = cap;
  return 0;
}

/* The slots' first room in one allocation (in huge pages when it is
 * large: a few hundred page faults fewer, ~3 ms on a virtual machine):
 * the rows of a range, from the lines' length on a sample of the file
 * (64 KiB from byte pos), with a quarter's margin; none when the sample
 * holds fewer than 8 lines (each slot then grows as it fills) */
static void split_pool(splitState* s, long long pos) {
  char buf[65536];
  const ssize_t got = pread(s->fd, buf, sizeof buf, (off_t)pos);
  long lines = 0;
  for (const char* p = buf; got > 0 && (p = memchr(p, '\n', (size_t)(buf + got - p))); p++) lines++;
  if (lines < 8) return;
  const long rows = (long)(1.25 * (double)s->block * (double)lines / (double)got) + 64;
  const size_t per = ((size_t)s->ncol + 1) * sizeof(double) * (size_t)rows;
  char* pool = dy_malloc_huge(per * (size_t)s->nslot);
  if (!pool) return;
  s->pool = pool;
  for (int k = 0; k < s->nslot; k++) {
    splitSlot* b = &s->slot[k];
    b->vals = (double*)(pool + per * (size_t)k);
    b->rel = (long*)(b->vals + (size_t)s->ncol * (size_t)rows);
    b->cap = rows;
  }
}

/* parse the range [begin, end) into slot b from the mapping; none of it
 * when the file is shorter than the range's end now (the reader's CSV
 * then meets the end where it is: a page past it would raise SIGBUS) */
static void split_parse_map(splitState* s, splitSlot* b, long long begin, long long end) {
  const char* p = s->map + begin;
  const char* const e = s->map + end;
  long lines = 0;
  struct stat st;
  if (fstat(s->fd, &st) || st.st_size < end) return;
  while (p < e) {
    const char* nl = memchr(p, '\n', (size_t)(e - p));
    if (!nl || nl - p >= DY_CSV_MAXROW || split_room(s, b)) break;   /* longer: the reader's error */
    double* v = b->vals + b->nrows * s->ncol;
    if (!dy_csv_numbers_line(p, (size_t)(nl + 1 - p), s->delim, s->ncol, v) || !split_cells(s, v)) break;
    b->rel[b->nrows++] = ++lines;
    p = nl + 1;
  }
  b->lines = lines;
  b->stop_pos = p - s->map;
  b->stopped = p < e;
  /* the range's pages unmapped (they stay in the page cache; a page shared
   * with the next range is mapped again if read): the resident size is not
   * the file's (validate of 10^5 samples: peak 97 -> 43 MB, 41 before the
   * mapping), at a small cost in system time (20 interleaved runs: 13.0
   * -> 12.5 ms; the wide log 14 -> 21 ms, 28 before the mapping) */
  const long long a = begin & ~4095LL, z = end & ~4095LL;
  if (z > a) madvise((void*)(s->map + a), (size_t)(z - a), MADV_DONTNEED);
}

/* parse range k into slot b with the thread's CSV c (NULL: none) */
static void split_parse(splitState* s, dyCsv* c, splitSlot* b, int k) {
  const long long begin = split_bound(s, k), end = split_bound(s, k + 1);
  b->nrows = 0; b->lines = 0; b->stopped = 1; b->stop_pos = begin;
  if (s->map) { split_parse_map(s, b, begin, end); return; }
  if (!c || dy_csv_seek(c, begin, 0, s->delim)) return;
  for (;;) {
    const long long at = dy_csv_pos(c);
    const long before = dy_csv_lines(c);
    int rc = 2;
    if (!split_room(s, b)) {
      double* v = b->vals + b->nrows * s->ncol;
      rc = dy_csv_next_numbers(c, end, s->ncol, v);
      if (rc == 0) break;
      if (rc == 1 && !split_cells(s, v)) rc = 2;
    }
    if (rc == 1) {
      b->rel[b->nrows++] = dy_csv_lines(c);
      continue;
    }
    b->stop_pos = at; b->lines = before;
    return;
  }
  b->stopped = 0;
  b->lines = dy_csv_lines(c);
}

static void* split_main(void* arg) {
  splitArg* a = arg;
  splitState* s = a->s;
  char err[DY_ERRSZ];
  dyCsv* c = s->map ? NULL : dy_csv_open(s->path, err, sizeof err);
  for (int k = a->p; k < s->nblocks; k += s->nth) {
    splitSlot* b = &s->slot[k % s->nslot];
    pthread_mutex_lock(&s->mu);
    while (b->k != -1 && !s->quit) pthread_cond_wait(&s->freed[a->p], &s->mu);
    const int quit = s->quit;
    if (!quit) { b->k = k; b->ready = 0; }
    pthread_mutex_unlock(&s->mu);
    if (quit) break;
    split_parse(s, c, b, k);
    pthread_mutex_lock(&s->mu);
    b->ready = 1;
    pthread_cond_signal(&s->parsed);
    pthread_mutex_unlock(&s->mu);
  }
  dy_csv_close(c);
  free(a);
  return NULL;
}

/* the current range's (s->k) slot once parsed, kept in s->got (a parsed
 * slot stays so until split_release): the lock is taken once a range, not
 * once a row (2e5 rows: ~13 ms of the reading thread's time in
 * pthread_mutex_lock) */
static splitSlot* split_wait(splitState* s) {
  if (s->got) return s->got;
  splitSlot* b = &s->slot[s->k % s->nslot];
  pthread_mutex_lock(&s->mu);
  while (!(b->k == s->k && b->ready)) pthread_cond_wait(&s->parsed, &s->mu);
  pthread_mutex_unlock(&s->mu);
  return s->got = b;
}

/* done with range k (current): free its slot, on to k + 1 */
static void split_release(splitState* s) {
  splitSlot* b = &s->slot[s->k % s->nslot];
  pthread_mutex_lock(&s->mu);
  b->k = -1; b->ready = 0;
  pthread_cond_signal(&s->freed[s->k % s->nth]);
  pthread_mutex_unlock(&s->mu);
  s->got = NULL;
  s->k++; s->i = 0;
  s->done = split_bound(s, s->k);
}

static void split_stop(dyiLogRaw* r) {
  splitState* s = r->split;
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->quit = 1;
  for (int t = 0; t < SPLIT_PARSERS; t++) pthread_cond_broadcast(&s->freed[t]);
  pthread_mutex_unlock(&s->mu);
  for (int t = 0; t < s->started; t++) pthread_join(s->th[t], NULL);
  for (int k = 0; k < SPLIT_SLOTS; k++)
    if (s->slot[k].own) { free(s->slot[k].vals); free(s->slot[k].rel); }
  free(s->pool);
  free(s->bound);
  if (s->map) munmap((void*)s->map, (size_t)s->size);
  pthread_mutex_destroy(&s->mu);
  for (int t = 0; t < SPLIT_PARSERS; t++) pthread_cond_destroy(&s->freed[t]);
  pthread_cond_destroy(&s->parsed);
  close(s->fd);
  free(s);
  r->split = NULL;
}

int dyi_lograw_split(dyiLogRaw* r, int parsers, long long block) {
  if (r->split || r->done || r->sm || !r->csv || !dy_csv_plain_file(r->csv) || block < 1) return -1;
  const char delim = dy_csv_delim(r->csv);
  long long pos, size;
  dy_csv_progress(r->csv, &pos, &size);
  pos = dy_csv_pos(r->csv);
  if ((delim != ',' && delim != ';') || size - pos < 2 * block) return -1;
  const int nblocks = (int)((size - pos + block - 1) / block);
  splitState* s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->bound = malloc(sizeof *s->bound * ((size_t)nblocks + 1));
  s->fd = s->bound ? open(r->path, O_RDONLY) : -1;
  if (s->fd < 0 || pthread_mutex_init(&s->mu, NULL)) {
    if (s->fd >= 0) close(s->fd);
    free(s->bound); free(s);
    return -1;
  }
  for (int k = 0; k <= nblocks; k++) atomic_init(&s->bound[k], -1);
  for (int t = 0; t < SPLIT_PARSERS; t++) pthread_cond_init(&s->freed[t], NULL);
  pthread_cond_init(&s->parsed, NULL);
  snprintf(s->path, sizeof s->path, "%s", r->path);
  s->base = s->done = pos; s->size = size; s->block = block;
  s->nblocks = nblocks;
  s->ncol = r->ncol; s->colt = r->colt; s->absurd = dyi_quality_absurd(r->q); s->delim = delim;
  s->linebase = dy_csv_lines(r->csv);
  for (int k = 0; k < SPLIT_SLOTS; k++) s->slot[k].k = -1;
  s->nth = parsers < 1 ? 1 : parsers > SPLIT_PARSERS ? SPLIT_PARSERS : parsers;
  s->nslot = SPLIT_AHEAD * s->nth;
  split_pool(s, pos);
  void* map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, s->fd, 0);
  s->map = map == MAP_FAILED ? NULL : map;
  r->split = s;
  for (int t = 0; t < s->nth; t++) {
    splitArg* a = malloc(sizeof *a);
    if (a) { a->s = s; a->p = t; }
    if (!a || pthread_create(&s->th[t], NULL, split_main, a)) {   /* its ranges would never come */
      free(a);
      split_stop(r);
      return -1;
    }
    s->started = t + 1;
  }
  return 0;
}

static long split_line(const dyiLogRaw* r) { return r->split->line; }

static void split_position(const dyiLogRaw* r, long long* done, long long* total) {
  *done = r->split->done; *total = r->split->size;
}

/* the reader's CSV from the line range k's parser left (its start), up to
 * the next range's start */
static int split_to_seq(dyiLogRaw* r, const splitSlot* b, char* err, int errsz) {
  splitState* s = r->split;
  if (dy_csv_seek(r->csv, b->stop_pos, s->linebase + b->lines, s->delim)) {
    snprintf(err, (size_t)errsz, "%s: cannot seek to byte %lld", r->path, b->stop_pos);
    return -1;
  }
  split_release(s);
  dy_csv_stop_at(r->csv, s->k < s->nblocks ? split_bound(s, s->k) : 0);
  s->seq = 1;
  return 0;
}

/* The reader's CSV stopped between records at or past range k's start:
 * ranges it passed are dropped; at a range's start that range's rows are
 * used, else on to the next start. */
static void split_from_seq(dyiLogRaw* r) {
  splitState* s = r->split;
  const long long pos = dy_csv_pos(r->csv);
  while (s->k < s->nblocks && split_bound(s, s->k) < pos) { split_wait(s); split_release(s); }
  if (s->k < s->nblocks && split_bound(s, s->k) == pos) {
    s->seq = 0;
    s->linebase = dy_csv_lines(r->csv);
    dy_csv_stop_at(r->csv, 0);
  } else {
    dy_csv_stop_at(r->csv, s->k < s->nblocks ? split_bound(s, s->k) : 0);
  }
}

/* The next row in file order: 1 with *pre = 1 (its cells in r->vals, its
 * line split_line) from a range's parser, or *pre = 0 with the fields
 * from the reader's CSV; 0 at the end, -1 on error (err set). */
static int split_next(dyiLogRaw* r, char*** f, int* nf, int* pre, char* err, int errsz) {
  splitState* s = r->split;
  *pre = 0;
  for (;;) {
    if (!s->seq) {
      if (s->k >= s->nblocks) return 0;
      splitSlot* b = split_wait(s);
      if (s->i < b->nrows) {
        memcpy(r->vals, b->vals + s->i * s->ncol, sizeof(double) * (size_t)s->ncol);
        s->line = s->linebase + b->rel[s->i++];
        *pre = 1;
        return 1;
      }
      if (b->stopped) { if (split_to_seq(r, b, err, errsz)) return -1; continue; }
      s->linebase += b->lines;
      split_release(s);
      continue;
    }
    const int rc = dy_csv_next(r->csv, f, nf, err, errsz);
    if (rc != 2) return rc;
    split_from_seq(r);
  }
}

/* ------------------------------------------------------- preprocessing */

#define RATEWIN 1000
#define RESAMPLE_MAXUP 100.0 /* --resample at most this many times the log's rate */
#define GUARD_TOL 1e-3   /* parallel filtering: edge samples left out down to this */

struct dyiLogReader_ {
  char path[512];
  int n;
  dyiLogOpt opt;
  dyiLogRaw* raw;
  int logged;
  /* rows held for the rate estimate, then replayed: npre records as the
   * read-ahead packs them (ahead_pack: 3 + 4n doubles, 248 bytes for 7
   * joints where a dyiLogRow takes 1 kB: 60 pages fewer to fault in) */
  double* pre; int npre, ipre, src_end;
  /* the rows after them read by the cutoff's pre-pass, replayed next
   * (cache_put): ncache records of their values (row_pack); their row
   * and line numbers count up by one from row to row but where cx says
   * otherwise (ncx triples index, row, line) */
  double* cv; long ncache, icache, capcache;
  long* cx; long ncx, capcx, icx;
  long cache_row, cache_line;       /* the last row put, and the replay's */
  long cache_hint;                  /* rows expected (cache_fits): the first allocation */
  long cache_bytes;                 /* allocated for the kept rows (their share of cache_held) */
  int cache_rc;                     /* after them: 1 the raw reader goes on, 0 the end, -1 cache_err */
  char cache_err[DY_ERRSZ];
  long long cache_done;             /* the raw reader's position when the pre-pass stopped [bytes] */
  double t0;                        /* subtracted from t before filtering */
  /* resampling: raw rows w[0..3] around the grid point, in [w1, w2] */
  dyiLogRow rs[4]; int rs_have[4], rs_init; long rs_m;
  /* filter */
  double fs, fc; int margin;
  double fc_auto;                   /* the default cutoff measured on the log (0: not yet;
                                       kept across rewinds) */
  dyiButter bw; dyiZpf* zpf; int zfin;
  int nch, npass, chq, chqd, chqdd, chtau;   /* channel offsets (-1: absent) */
  double* buf;                      /* one record: nch + npass */
  /* three-sample window for the differences, then emission */
  double* w[3]; int nw, wend; long emitted, kept;
  long rows_read;
};

/* ------------------------------------- the pre-pass's rows, kept for the read */

/* The default cutoff reads the whole log before the read proper
 * (auto_cutoff). A log whose rows fit LOG_CACHE_MAXBYTES is read once:
 * the pre-pass takes its rows from the reader's own raw rows and keeps
 * them, compactly, and the read replays them (src_row) instead of parsing
 * the file again; the same rows, values, findings and messages. The cap
 * is for every reader's kept rows together; each reader's go as soon as
 * they are replayed. */
#ifndef LOG_CACHE_MAXBYTES   /* (tests/test_logcache.c makes it small) */
#define LOG_CACHE_MAXBYTES (64L << 20)
#endif

/* bytes of the rows every reader keeps: the cap holds for them all (logs
 * opened together, as identify opens its logs, share it) */
static atomic_long cache_held;

/* doubles kept per row: t, q, qd, qdd, tau (row_pack: not the row and
 * line numbers, which count up by one but where a comment, a blank or a
 * dropped row was: those in cx; 29 doubles a row for 7 joints instead of
 * 31, 10^5 rows in 12 huge pages instead of 13), and their bytes */
static size_t cache_rec(const dyiLogReader* r) { return row_values(r->n); }
static long cache_rowbytes(const dyiLogReader* r) { return (long)(sizeof(double) * cache_rec(r)); }

/* held row i as the read-ahead packs it (row, line, then row_pack's t,
 * q, qd, qdd, tau), and its time */
static const double* pre_rec(const dyiLogReader* r, int i) { return r->pre + ahead_rec(r->n) * (size_t)i; }
static double pre_t(const dyiLogReader* r, int i) { return pre_rec(r, i)[2]; }

/* room for one more row in the cache (grown by doubling up to what the
 * cap leaves it); 0, or -1 when it would outgrow that or memory */
static int cache_room(dyiLogReader* r) {
  const size_t rec = cache_rec(r);
  if (r->ncx == r->capcx) {   /* room for the next row's numbers, should they not count up */
    const long c = r->capcx ? 2 * r->capcx : 64;
    long* x = realloc(r->cx, sizeof(long) * 3 * (size_t)c);
    if (!x) return -1;
    r->cx = x; r->capcx = c;
  }
  if (r->ncache < r->capcache) return 0;
  long cap = r->capcache ? 2 * r->capcache : r->cache_hint > 4096 ? r->cache_hint : 4096;
  const long maxrows = (LOG_CACHE_MAXBYTES - (atomic_load(&cache_held) - r->cache_bytes)) / cache_rowbytes(r);
  if (cap > maxrows) cap = maxrows;
  if (cap <= r->ncache) return -1;
  /* in huge pages, 2 MiB aligned (a plain realloc's unaligned start took
   * up to 2 MiB of 4 KiB faults); the rows filled so far copied over */
  double* v = dy_malloc_huge(sizeof(double) * rec * (size_t)cap);
  if (!v) return -1;
  if (r->ncache) memcpy(v, r->cv, sizeof(double) * rec * (size_t)r->ncache);
  free(r->cv);
  r->cv = v;
  /* faulted in by the rows as they come, not at once: on a virtual machine
   * a page's first write can cost 1.5-3 ms a MB, and one call for all of
   * them held the process's memory map that long, while the threads that
   * parse the log waited to map memory of their own (2e5 rows, 20 runs
   * each: 0.434 -> 0.422 s mean wall, 90th percentile 0.462 -> 0.446) */
  r->capcache = cap;
  atomic_fetch_add(&cache_held, cap * cache_rowbytes(r) - r->cache_bytes);
  r->cache_bytes = cap * cache_rowbytes(r);
  return 0;
}

/* a row as the read-ahead packs it (ahead_pack) into the cache, which
 * has room (cache_room): its values, and its row and line numbers where
 * they do not follow the last row's */
_Static_assert(sizeof(long) == sizeof(double), "the read-ahead packs row and line as a double's bits");
static void cache_put(dyiLogReader* r, const double* rec) {
  const size_t nv = cache_rec(r);
  long row, line;
  memcpy(&row, rec, sizeof row); memcpy(&line, rec + 1, sizeof line);
  if (r->ncache == 0 || row != r->cache_row + 1 || line != r->cache_line + 1) {
    long* x = r->cx + 3 * r->ncx++;
    x[0] = r->ncache; x[1] = row; x[2] = line;
  }
  r->cache_row = row; r->cache_line = line;
  memcpy(r->cv + nv * (size_t)r->ncache++, rec + 2, sizeof(double) * nv);
}

/* kept row i (the next to replay) into row */
static void cache_get(dyiLogReader* r, dyiLogRow* row, long i) {
  if (r->icx < r->ncx && r->cx[3 * r->icx] == i) {
    r->cache_row = r->cx[3 * r->icx + 1]; r->cache_line = r->cx[3 * r->icx + 2]; r->icx++;
  } else {
    r->cache_row++; r->cache_line++;
  }
  row->row = r->cache_row; row->line = r->cache_line;
  row_unpack(row, r->cv + cache_rec(r) * (size_t)i, r->n);
}

/* the kept rows' memory back (their share of the cap too); what follows
 * them (cache_rc) stays */
static void cache_release(dyiLogReader* r) {
  free(r->cv); free(r->cx);
  r->cv = NULL; r->cx = NULL;
  r->ncache = r->icache = r->capcache = 0;
  r->ncx = r->capcx = r->icx = 0;
  atomic_fetch_sub(&cache_held, r->cache_bytes);
  r->cache_bytes = 0;
}

/* next raw row (the held ones first, then the pre-pass's): 1, 0, -1 */
static int src_row(dyiLogReader* r, dyiLogRow* row, char* err, int errsz) {
  if (r->ipre < r->npre) { ahead_unpack(row, pre_rec(r, r->ipre++), r->n); return 1; }
  if (r->icache < r->ncache) {
    cache_get(r, row, r->icache++);
    r->rows_read++;
    if (r->icache == r->ncache) cache_release(r);   /* replayed: its memory back at once */
    return 1;
  }
  if (r->cache_rc != 1) {   /* the pre-pass read to the end or to an error: what the reader said */
    if (r->cache_rc < 0) snprintf(err, (size_t)errsz, "%s", r->cache_err);
    return r->cache_rc;
  }
  int rc = dyi_lograw_next(r->raw, row, err, errsz);
  if (rc == 1) r->rows_read++;
  return rc;
}

/* next source record x[nch + npass] (time t0-relative), after optional
 * resampling (cubic Lagrange through the two raw rows on each side of the
 * grid point, fewer at the ends: error ~ |q(4)| h^4 / 24 instead of
 * |q(2)| h^2 / 8 for linear interpolation): 1, 0, -1 */
static int src_record(dyiLogReader* r, double* x, char* err, int errsz) {
  int n = r->n;
  const dyiLogRow* P[4]; double L[4]; int np = 0;
  double tg;
  dyiLogRow a;
  if (r->opt.resample_hz > 0) {
    if (!r->rs_init) {
      r->rs_init = 1; r->rs_have[0] = 0;
      for (int i = 1; i < 4; i++) {
        int rc = src_row(r, &r->rs[i], err, errsz);
        if (rc < 0) return -1;
        r->rs_have[i] = rc == 1;
        if (rc == 0) { for (int k = i + 1; k < 4; k++) r->rs_have[k] = 0; break; }
      }
    }
    tg = r->t0 + (double)r->rs_m / r->opt.resample_hz;
    while (r->rs_have[2] && tg > r->rs[2].t) {          /* slide by one raw row */
      r->rs[0] = r->rs[1]; r->rs[1] = r->rs[2]; r->rs[2] = r->rs[3];
      r->rs_have[0] = r->rs_have[1]; r->rs_have[1] = r->rs_have[2]; r->rs_have[2] = r->rs_have[3];
      r->rs_have[3] = 0;
      if (r->rs_have[2]) {
        int rc = src_row(r, &r->rs[3], err, errsz);
        if (rc < 0) return -1;
        r->rs_have[3] = rc == 1;
      }
    }
    if (!r->rs_have[2] || !r->rs_have[1]) return 0;
    r->rs_m++;
    for (int i = 0; i < 4; i++) if (r->rs_have[i]) P[np++] = &r->rs[i];
    for (int i = 0; i < np; i++) {
      L[i] = 1;
      for (int m = 0; m < np; m++)
        if (m != i) L[i] *= (tg - P[m]->t) / (P[i]->t - P[m]->t);
    }
  } else {
    int rc = src_row(r, &a, err, errsz);
    if (rc <= 0) return rc;
    tg = a.t; P[0] = &a; L[0] = 1; np = 1;
  }
  /* channels: t, q, [qd], [qdd], [tau]; pass: row, tau_raw */
  x[0] = tg - r->t0;
  for (int j = 0; j < n; j++) {
    double q = 0, qd = 0, qdd = 0, tau = 0;
    for (int i = 0; i < np; i++) {
      q += L[i] * P[i]->q[j]; qd += L[i] * P[i]->qd[j];
      qdd += L[i] * P[i]->qdd[j]; tau += L[i] * P[i]->tau[j];
    }
    x[r->chq + j] = q;
    if (r->chqd >= 0) x[r->chqd + j] = qd;
    if (r->chqdd >= 0) x[r->chqdd + j] = qdd;
    if (r->chtau >= 0) x[r->chtau + j] = tau;
    x[r->nch + 1 + j] = tau;
  }
  /* the raw row nearest in time */
  int near = 0;
  for (int i = 1; i < np; i++) if (fabs(P[i]->t - tg) < fabs(P[near]->t - tg)) near = i;
  x[r->nch] = (double)P[near]->row;
  return 1;
}

/* next filtered record into buf: 1, 0, -1 */
static int filtered(dyiLogReader* r, double* x, char* err, int errsz) {
  if (!r->zpf) return src_record(r, x, err, errsz);
  for (;;) {
    if (dyi_zpf_pop(r->zpf, x, x + r->nch)) return 1;
    if (r->zfin) return 0;
    int rc = src_record(r, r->buf, err, errsz);
    if (rc < 0) return -1;
    if (rc == 0) { dyi_zpf_finish(r->zpf); r->zfin = 1; continue; }
    dyi_zpf_push(r->zpf, r->buf, r->buf + r->nch);
  }
}

/* a frequency for messages: "10 Hz", "1 GHz", "2.5 mHz" */
static const char* hz_text(double f, char* buf, size_t sz) {
  static const char* P[] = {"p", "n", "u", "m", "", "k", "M", "G", "T"};
  int e = 4;
  double a = fabs(f);
  if (isfinite(a) && a >= 0.9995e-12 && a < 999.5e12) {
    while (a >= 999.5) { a /= 1000; f /= 1000; e++; }
    while (a < 0.9995) { a *= 1000; f *= 1000; e--; }
  }
  snprintf(buf, sz, "%.3g %sHz", f, P[e]);
  return buf;
}

/* 1 if a zero-phase filter of this order and cutoff ratio fc / fs fits
 * its memory cap for nch channels and npass pass-through values */
static int filter_fits(int order, double ratio, int nch, int npass) {
  dyiButter b;
  return dyi_butter_design(&b, order, ratio, 1.0) == 0 && dyi_zpf_block(&b, nch, npass, NULL) > 0;
}

/* the cutoff is too small a fraction of the sample rate for the filter's
 * memory cap: one line with the cause, the smallest ratio that fits and
 * the fixes */
static void filter_too_long(const dyiLogReader* r, int order, double med, char* err, int errsz) {
  double lo = log(1e-15), hi = log(0.45);
  if (filter_fits(order, exp(hi), r->nch, r->npass))
    for (int i = 0; i < 60; i++) {
      double mid = 0.5 * (lo + hi);
      if (filter_fits(order, exp(mid), r->nch, r->npass)) hi = mid; else lo = mid;
    }
  char fc[32], fs[32];
  snprintf(err, (size_t)errsz, "%s: cutoff %s is %.2g of the sample rate %s (median time step %.3g s): "
           "its zero-phase filter would hold more than %ld MiB (it needs a cutoff of at least "
           "%.2g of the rate here); check the time column or --time-scale, or give a higher --cutoff "
           "or a lower --resample rate", r->path, hz_text(r->fc, fc, sizeof fc), r->fc / r->fs,
           hz_text(r->fs, fs, sizeof fs), med, DYI_ZPF_MAXBYTES >> 20, exp(hi));
}

static void teardown(dyiLogReader* r) {
  dyi_lograw_close(r->raw); r->raw = NULL;
  dyi_zpf_free(r->zpf); r->zpf = NULL;
  free(r->pre); r->pre = NULL;
  cache_release(r);
  r->cache_rc = 1;
  free(r->buf); r->buf = NULL;
  for (int i = 0; i < 3; i++) { free(r->w[i]); r->w[i] = NULL; }
}

/* Open the raw rows and hold the first RATEWIN (replayed by src_row); a
 * log needs at least 2 usable rows. */
static int hold_rows(dyiLogReader* r, char* err, int errsz) {
  r->raw = dyi_lograw_open(r->path, r->n, &r->opt, err, errsz);
  if (!r->raw) return -1;
  r->logged = dyi_lograw_logged(r->raw);
  const size_t rec = ahead_rec(r->n);
  r->pre = malloc(RATEWIN * rec * sizeof(double));
  if (!r->pre) { snprintf(err, (size_t)errsz, "%s: out of memory", r->path); return -1; }
  r->npre = r->ipre = 0; r->rows_read = 0;
  r->cache_rc = 1;
  double one[AHEAD_ONE];
  while (r->npre < RATEWIN) {
    const double* p;
    int rc = lograw_next_packed(r->raw, one, &p, err, errsz);
    if (rc < 0) return -1;
    if (rc == 0) break;
    memcpy(r->pre + rec * (size_t)r->npre++, p, rec * sizeof(double));
    r->rows_read++;
  }
  if (r->npre < 2) {
    snprintf(err, (size_t)errsz, "%s: %d usable row%s: a log needs at least 2", r->path, r->npre,
             r->npre == 1 ? "" : "s");
    return -1;
  }
  r->t0 = pre_t(r, 0);
  return 0;
}

/* Sample rate fs = 1 / (median step of the held rows) [Hz], or the
 * --resample rate, which may make up at most RESAMPLE_MAXUP samples per
 * sample read. *med: the median step [s]. */
static int sample_rate(dyiLogReader* r, double* med, char* err, int errsz) {
  const dyiLogOpt* opt = &r->opt;
  double* dt = malloc((size_t)r->npre * sizeof(double));
  if (!dt) { snprintf(err, (size_t)errsz, "%s: out of memory", r->path); return -1; }
  for (int i = 1; i < r->npre; i++) dt[i-1] = pre_t(r, i) - pre_t(r, i - 1);
  qsort(dt, (size_t)r->npre - 1, sizeof(double), dy_cmp_double);
  int m = r->npre - 1;
  *med = m % 2 ? dt[m/2] : 0.5 * (dt[m/2 - 1] + dt[m/2]);
  free(dt);
  r->fs = opt->resample_hz > 0 ? opt->resample_hz : 1.0 / *med;
  if (opt->resample_hz > RESAMPLE_MAXUP / *med) {
    char a[32], b[32];
    snprintf(err, (size_t)errsz, "%s: --resample %s is %.3g times the log's sample rate %s (median time "
             "step %.3g s), more than %g: check --resample, the time column or --time-scale", r->path,
             hz_text(opt->resample_hz, a, sizeof a), opt->resample_hz * *med, hz_text(1 / *med, b, sizeof b),
             *med, RESAMPLE_MAXUP);
    return -1;
  }
  return 0;
}

/* the column the band meter takes of a row, the highest derivative logged
 * (qdd, qd or q), in the row as the read-ahead packs it (ahead_pack: row,
 * line, t, q, qd, qdd, tau) */
static size_t band_at(int n, int deriv) { return 3 + (size_t)(2 - deriv) * (size_t)n; }

/* The pre-pass on a reader of its own (the file parsed once more; no
 * watch) into b. 0, or -1 with err when the file cannot be opened again. */
static int band_reread(dyiLogReader* r, dyiBand* b, int deriv, char* err, int errsz) {
  dyiLogOpt o = r->opt;
  o.watch = NULL;
  dyiLogRaw* raw = dyi_lograw_open(r->path, r->n, &o, err, errsz);
  if (!raw) return -1;
  ahead_start(raw, SPLIT_PREPASS);
  const size_t col = band_at(r->n, deriv);
  const double* rec;
  double one[AHEAD_ONE];
  char bad[512];                              /* a bad row's message: the read gives it */
  while (lograw_next_packed(raw, one, &rec, bad, sizeof bad) == 1) dyi_band_push(b, rec + col);
  dyi_lograw_close(raw);
  return 0;
}

/* 1 when the log's rows, estimated from the bytes the held rows took,
 * should fit the cache (with a margin of a quarter, the first allocation:
 * no copies as it grows) */
static int cache_fits(dyiLogReader* r) {
  long long done = 0, total = 0;
  dyi_lograw_progress(r->raw, &done, &total);
  if (done <= 0 || total <= 0 || r->npre < 2) return 0;
  const double rows = 1.25 * (double)r->npre * (double)total / (double)done;
  r->cache_hint = (long)rows;
  return rows * (double)cache_rowbytes(r) <= (double)(LOG_CACHE_MAXBYTES - atomic_load(&cache_held));
}

/* The pre-pass on the reader's own raw rows: the held ones, then the rest
 * into b and the cache, to the end or the reader's error (kept for the
 * read: cache_rc, cache_err). 1 when the cache outgrew its cap: it then
 * holds the rows before that point, the read goes on from the raw reader
 * after them, and b has not seen every row. */
static int band_cached(dyiLogReader* r, dyiBand* b, int deriv) {
  /* the rows packed as the read-ahead hands them over, straight into the
   * cache (no copy through a dyiLogRow and back), the meter's column read
   * there, as in the held rows */
  const size_t col = band_at(r->n, deriv);
  for (int i = 0; i < r->npre; i++) dyi_band_push(b, pre_rec(r, i) + col);
  ahead_start(r->raw, SPLIT_PREPASS);
  long long total;
  int full = 0;
  double one[AHEAD_ONE];
  for (;;) {
    if (cache_room(r)) { full = 1; break; }   /* the read resumes at the raw reader's next row */
    const double* rec;
    const int rc = lograw_next_packed(r->raw, one, &rec, r->cache_err, sizeof r->cache_err);
    if (rc != 1) { r->cache_rc = rc; break; }
    cache_put(r, rec);
    dyi_band_push(b, rec + col);
  }
  dyi_lograw_progress(r->raw, &r->cache_done, &total);
  return full;
}

/* The default cutoff measured on the log: one pass over its raw rows (the
 * rows the read will use, through the same gate) into the bandwidth meter
 * (filter.h dyiBand) on the highest derivative the log holds (qdd, else
 * qd, else q), candidates from f0 / 4 up to fmax at the raw rate 1 / med;
 * the highest candidate where each joint's measured white noise,
 * differentiated, is within BAND_TOL of its motion's acceleration energy
 * (dyi_band_cutoff), never below f0. BAND_TOL 1e-4: the noise in each
 * joint's acceleration at most 1 % rms of its motion, so that a predicted
 * torque's error from it stays a fraction of a 1-3 % torque noise (1e-2,
 * 10 % rms, cost a coupled 5 kHz wrist log 17 % of held-out error on one
 * joint: tests/test_motorlog.c). Kept in r->fc_auto for rewinds. A row the
 * read will stop at ends the pre-pass (the cutoff from the rows before it;
 * the read reports the row where it did before). The pass keeps the rows
 * for the read when they fit (band_cached), else it reads the file on a
 * reader of its own (band_reread). 0, or -1 with err when the file cannot
 * be opened again. */
#define BAND_TOL 1e-4
static int auto_cutoff(dyiLogReader* r, double f0, double fmax, double med, char* err, int errsz) {
  if (r->fc_auto > 0) return 0;
  int deriv = r->logged & 2 ? 0 : r->logged & 1 ? 1 : 2;
  const int order = r->opt.order > 0 ? r->opt.order : 4;
  dyiBand* b = dyi_band_make(r->n, deriv, 1.0 / med, f0 / 4, fmax, order);
  if (!b) { r->fc_auto = f0; return 0; }   /* no candidate designs (a rate far off): f0, judged later */
  const int fits = cache_fits(r);
  if (!fits || band_cached(r, b, deriv)) {
    if (fits) {   /* the rows did not fit after all: the band anew, on a reader of its own */
      dyi_band_free(b);
      b = dyi_band_make(r->n, deriv, 1.0 / med, f0 / 4, fmax, order);
      if (!b) { r->fc_auto = f0; return 0; }
    }
    if (band_reread(r, b, deriv, err, errsz)) { dyi_band_free(b); return -1; }
  }
  double fc = dyi_band_cutoff(b, BAND_TOL);   /* a bad row: the rows before it (the read reports it) */
  dyi_band_free(b);
  r->fc_auto = fc > f0 ? fc : f0;
  return 0;
}

/* Cutoff fc: --cutoff (below Nyquist fs / 2), or by default measured on
 * the log (auto_cutoff), at least f0 = min(fs / 20, 10 Hz) and at most
 * fs / 5, and at most 0.8 fs / (2 D) with decimation D; none (fc = 0) for a
 * negative --cutoff. */
static int choose_cutoff(dyiLogReader* r, double med, char* err, int errsz) {
  const dyiLogOpt* opt = &r->opt;
  int D = opt->decimate > 1 ? opt->decimate : 1;
  r->fc = 0;
  if (opt->cutoff_hz > 0) {
    if (opt->cutoff_hz >= 0.5 * r->fs) {
      snprintf(err, (size_t)errsz, "%s: --cutoff %g Hz is not below the Nyquist frequency %g Hz "
               "of the log", r->path, opt->cutoff_hz, 0.5 * r->fs);
      return -1;
    }
    r->fc = opt->cutoff_hz;
  } else if (opt->cutoff_hz == 0) {
    double f0 = r->fs / 20 < 10 ? r->fs / 20 : 10;
    if (auto_cutoff(r, f0, r->fs / 5, med, err, errsz)) return -1;
    r->fc = fmin(r->fc_auto, r->fs / 5);
    if (D > 1 && r->fc > 0.8 * r->fs / (2.0 * D)) r->fc = 0.8 * r->fs / (2.0 * D);
  }
  return 0;
}

/* Record layout: channels t, q, [qd], [qdd], [tau] (the torque only when
 * it is filtered here: no_parallel with filter_tau), then the pass-through
 * values row, tau_raw; one record buffer and the three-sample window. */
static int channels(dyiLogReader* r, char* err, int errsz) {
  int n = r->n;
  r->chq = 1; int k = 1 + n;
  r->chqd = r->logged & 1 ? k : -1; k += r->logged & 1 ? n : 0;
  r->chqdd = r->logged & 2 ? k : -1; k += r->logged & 2 ? n : 0;
  int ftau = r->opt.filter_tau && r->opt.no_parallel;   /* parallel: tau filtered with the rows */
  r->chtau = ftau ? k : -1; k += ftau ? n : 0;
  r->nch = k; r->npass = 1 + n;
  size_t rec = (size_t)(r->nch + r->npass) * sizeof(double);
  r->buf = malloc(rec);
  for (int i = 0; i < 3; i++) r->w[i] = malloc(rec);
  if (!r->buf || !r->w[0] || !r->w[1] || !r->w[2]) {
    snprintf(err, (size_t)errsz, "%s: out of memory", r->path);
    return -1;
  }
  return 0;
}

/* The zero-phase Butterworth low-pass of order --filter-order (4) at fc,
 * when there is a cutoff and its block buffers fit DYI_ZPF_MAXBYTES. */
static int make_filter(dyiLogReader* r, double med, char* err, int errsz) {
  r->margin = 0; r->zfin = 0;
  if (!(r->fc > 0)) return 0;
  int order = r->opt.order > 0 ? r->opt.order : 4;
  if (!filter_fits(order, r->fc / r->fs, r->nch, r->npass)) {
    filter_too_long(r, order, med, err, errsz);
    return -1;
  }
  if (dyi_butter_design(&r->bw, order, r->fc, r->fs)) {
    snprintf(err, (size_t)errsz, "%s: cannot design a Butterworth filter of order %d, cutoff %g Hz "
             "at %g Hz", r->path, order, r->fc, r->fs);
    return -1;
  }
  r->margin = dyi_butter_margin(&r->bw);
  r->zpf = dyi_zpf_make(&r->bw, r->nch, r->npass, 0);
  if (!r->zpf) { snprintf(err, (size_t)errsz, "%s: out of memory for the filter", r->path); return -1; }
  return 0;
}

/* the reader's stages in order (also a rewind: after teardown) */
static int setup(dyiLogReader* r, char* err, int errsz) {
  double med;
  if (hold_rows(r, err, errsz) || sample_rate(r, &med, err, errsz) || choose_cutoff(r, med, err, errsz) ||
      channels(r, err, errsz) || make_filter(r, med, err, errsz))
    return -1;
  r->rs_init = 0; r->rs_m = 0;
  r->nw = 0; r->wend = 0; r->emitted = 0; r->kept = 0;
  return 0;
}

dyiLogReader* dyi_log_open(const char* path, int n, const dyiLogOpt* opt, char* err, int errsz) {
  dyiLogReader* r = calloc(1, sizeof *r);
  if (!r) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return NULL; }
  snprintf(r->path, sizeof r->path, "%s", path);
  r->n = n; r->opt = *opt;
  if (opt->resample_hz < 0 || opt->decimate < 0 || opt->order < 0 || opt->order > 2*DYI_MAXSEC) {
    snprintf(err, (size_t)errsz, "%s: bad preprocessing options (resample %g, decimate %d, order %d)",
             path, opt->resample_hz, opt->decimate, opt->order);
    free(r);
    return NULL;
  }
  if (setup(r, err, errsz)) { dyi_log_close(r); return NULL; }
  return r;
}

void dyi_log_close(dyiLogReader* r) {
  if (!r) return;
  teardown(r);
  free(r);
}

int dyi_log_rewind(dyiLogReader* r, char* err, int errsz) {
  teardown(r);
  return setup(r, err, errsz);
}

/* derivative at ts of the parabola through (t[i], y[i]), i = 0..2:
 * d1 = sum (y_i - y_1) L_i'(ts), d2 = 2 sum y_i / prod_{m != i} (t_i - t_m) */
static void parabola(const double* t, const double* y, double ts, double* d1, double* d2) {
  double t01 = t[0] - t[1], t02 = t[0] - t[2], t12 = t[1] - t[2];
  double L0 = ((ts - t[1]) + (ts - t[2])) / (t01 * t02);
  double L2 = ((ts - t[0]) + (ts - t[1])) / (t02 * t12);
  *d1 = (y[0] - y[1]) * L0 + (y[2] - y[1]) * L2;
  *d2 = 2 * ((y[0] - y[1]) / (t01 * t02) + (y[2] - y[1]) / (t02 * t12));
}

/* decimation done by the reader (only without parallel filtering) */
static int reader_decim(const dyiLogOpt* o) {
  return o->no_parallel && o->decimate > 1 ? o->decimate : 1;
}

int dyi_log_next(dyiLogReader* r, dyiSample* s, char* err, int errsz) {
  int n = r->n, D = reader_decim(&r->opt);
  for (;;) {
    /* w[0..nw) holds records b, b+1, b+2 (b = r->kept); record e is
     * differenced on the parabola through them: e = 0 at w[0], interior
     * records in the middle w[1], the last one at w[2] */
    while (!r->wend && r->nw < 3) {
      int rc = filtered(r, r->w[r->nw], err, errsz);
      if (rc < 0) return -1;
      if (rc == 0) r->wend = 1; else r->nw++;
    }
    long e = r->emitted;
    if (r->nw == 3 && e - r->kept == 2 && !r->wend) {   /* slide by one */
      double* w0 = r->w[0];
      int rc = filtered(r, w0, err, errsz);
      if (rc < 0) return -1;
      if (rc == 0) r->wend = 1;
      else { r->w[0] = r->w[1]; r->w[1] = r->w[2]; r->w[2] = w0; r->kept++; }
    }
    int pos = (int)(e - r->kept), np = r->nw;
    if (pos >= np) return 0;
    const double* x = r->w[pos];
    double tt[3], y[3];
    for (int i = 0; i < np; i++) tt[i] = r->w[i][0];
    s->row = (long)x[r->nch];
    s->t = x[0] + r->t0;
    int cqd = r->chqd;
    for (int j = 0; j < n; j++) {
      s->q[j] = x[r->chq + j];
      s->tau_raw[j] = x[r->nch + 1 + j];
      s->tau[j] = r->chtau >= 0 ? x[r->chtau + j] : s->tau_raw[j];
      /* qd: logged or from q; qdd: logged, from qd, or from q */
      double dq1 = 0, dq2 = 0, dv1 = 0, dv2 = 0;
      if (cqd >= 0 && r->chqdd >= 0) {}   /* both logged: no difference is used */
      else if (np == 3) {
        for (int i = 0; i < 3; i++) y[i] = r->w[i][r->chq + j];
        parabola(tt, y, x[0], &dq1, &dq2);
        if (cqd >= 0) {
          for (int i = 0; i < 3; i++) y[i] = r->w[i][cqd + j];
          parabola(tt, y, x[0], &dv1, &dv2);
        }
      } else if (np == 2) {
        dq1 = (r->w[1][r->chq + j] - r->w[0][r->chq + j]) / (tt[1] - tt[0]);
        if (cqd >= 0) dv1 = (r->w[1][cqd + j] - r->w[0][cqd + j]) / (tt[1] - tt[0]);
      }
      s->qd[j] = cqd >= 0 ? x[cqd + j] : dq1;
      if (r->chqdd >= 0) s->qdd[j] = x[r->chqdd + j];
      else s->qdd[j] = cqd >= 0 ? dv1 : dq2;
      s->slow[j] = r->opt.qd_min > 0 && fabs(s->qd[j]) < r->opt.qd_min;
    }
    r->emitted++;
    if ((r->emitted - 1) % D) continue;     /* decimation */
    return 1;
  }
}

int dyi_log_readahead(dyiLogReader* r) { return r->raw ? dyi_lograw_readahead(r->raw) : -1; }

void dyi_log_progress(const dyiLogReader* r, long long* done, long long* total) {
  dyi_lograw_progress(r->raw, done, total);
  if (r->icache < r->ncache)   /* replaying the pre-pass's rows: their share of the bytes it read */
    *done = (long long)((double)r->cache_done * (double)r->icache / (double)r->ncache);
}

void dyi_log_info(const dyiLogReader* r, dyiLogInfo* info) {
  memset(info, 0, sizeof *info);
  info->fs = r->fs; info->fc = r->fc; info->margin = r->margin;
  info->fc_measured = r->opt.cutoff_hz == 0 && r->fc > 0;
  info->order = r->fc > 0 ? r->bw.order : 0;
  info->logged = r->logged;
  info->rows_read = r->rows_read;
  snprintf(info->units, sizeof info->units, "%s", r->raw ? r->raw->units : "");
  long rows, dropped;
  dyi_quality_stats(dyi_lograw_quality(r->raw), &rows, &dropped, NULL, NULL, NULL);
  info->rows_dropped = dropped;
  int D = reader_decim(&r->opt);
  info->samples = (r->emitted + D - 1) / D;
  info->held = r->ncache > 0 && r->cache_rc != 1;
  info->parallel = !r->opt.no_parallel;
  if (info->parallel) {
    /* D from the option, else so that the decimated band keeps 1.25 fc */
    info->decim = r->opt.decimate > 0 ? r->opt.decimate
                  : r->fc > 0 ? (int)fmax(1, floor(r->fs / (2.5 * r->fc))) : 1;
    info->fstop = r->fc > 0 ? 0.5 * r->fs / info->decim : 0;
    /* the edge transient of the signals' filter, down to 1e-3 */
    info->guard = r->fc > 0 ? dyi_butter_settle(&r->bw, GUARD_TOL) : 0;
  } else info->decim = D;
}

const dyiQuality* dyi_log_quality(const dyiLogReader* r) {
  return dyi_lograw_quality(r->raw);
}

/* the raw rows through the gate, every bad row dropped and counted; the
 * findings handed over */
dyiQuality* dyi_log_scan(const char* path, int n, const dyiLogOpt* opt, char* err, int errsz) {
  dyiLogOpt o = *opt;
  o.on_bad = 1;                     /* collect everything */
  dyiLogRaw* r = dyi_lograw_open(path, n, &o, err, errsz);
  if (!r) return NULL;
  dyiLogRow row;
  int rc;
  while ((rc = dyi_lograw_next(r, &row, err, errsz)) == 1) {}
  if (rc < 0) { dyi_lograw_close(r); return NULL; }
  dyiQuality* q = dyi_lograw_quality(r);
  dyi_quality_finish(q);
  dyi_quality_on_bad(q, opt->on_bad);
  dyi_lograw_detach(r);
  dyi_lograw_close(r);
  return q;
}
