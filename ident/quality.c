/* SPDX-License-Identifier: MIT */
/* dynid ident: the data-quality gate (see quality.h). Streaming: per-column
 * running statistics, a five-row window for the velocity lag, the first
 * 1000 time steps for the median; nothing grows with the log. */
#include "core/io.h"
#include "ident/quality.h"
#include "core/numparse.h"
#include "core/util.h"
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DTWIN 1000      /* steps for the median */
#define SATRUN 20       /* samples flat at an extreme = saturation */
#define LAGWIN 1000     /* samples that set the outlier threshold of the lag fit */
#define QBLK 64         /* rows whose column statistics are taken together */

typedef struct {        /* running statistics of a used column */
  double first, mn, mx;
  int changes, nonzero;
  double run_v, best_v; long run_n, run_line, best_n, best_line;
} colStat;

struct dyiQuality_ {
  char path[512];
  int n, ncol;
  double absurd;
  int stop;                         /* on_bad stop */
  double taumax[DY_MAXJ];
  char (*name)[48];                 /* display names (ncol) */
  int *role, *joint;                /* (ncol) */
  colStat* cs;                      /* (ncol) */
  int nused;                        /* columns with a role */
  int* ucol;                        /* their indices (nused) */
  size_t* uoff;                     /* where each one's value is in a dyiLogRow [bytes] (nused) */
  /* rows waiting for their column statistics (colstat_block): a block of
   * up to QBLK rows, column by column, their lines, the first one's k */
  int nblk; long kblk;
  double* cbuf;                     /* (nused x QBLK) */
  long lbuf[QBLK];
  int nfind, lost, finished;
  dyiFinding find[DYI_QMAXF];
  long rows, dropped, good;
  /* time */
  int have_t; double t_last; long line_last;
  double dtw[DTWIN]; long dtl[DTWIN]; int ndt; double dt_med, dt_min, dt_max;
  /* velocity lag: the last five good rows */
  int hasqd, nw, wh;   /* rows in the lag window, the slot of its oldest */
  double wt[5], wq[5][DY_MAXJ], wqd[5][DY_MAXJ]; long wl[5];
  int wstale[5];
  double seg[DY_MAXJ], sgg[DY_MAXJ], see[DY_MAXJ], sqd[DY_MAXJ]; long nlag, nfit[DY_MAXJ];
  double* eg;                       /* first LAGWIN (e, qd, g) per joint (n x LAGWIN x 3) */
  int neg; double ethr[DY_MAXJ];    /* buffered; outlier threshold on |e| */
  int haveprev; double prevq[DY_MAXJ], prevqd[DY_MAXJ], prevtau[DY_MAXJ];
  int colq[DY_MAXJ], colqd[DY_MAXJ], coltau[DY_MAXJ];
  long tmax_n[DY_MAXJ], tmax_first[DY_MAXJ], tmax_last[DY_MAXJ]; double tmax_v[DY_MAXJ];
};

static const char* KIND[DYI_QF_N] = {"nan", "inf", "absurd", "junk", "truncated",
  "repeated-time", "backwards-time", "gap", "constant", "all-zero",
  "velocity-lag", "velocity-inconsistent", "saturation", "beyond-taumax", "stale-row"};

const char* dyi_quality_kind(int kind) {
  return kind >= 0 && kind < DYI_QF_N ? KIND[kind] : "?";
}

/* The way out of a bad cell in a used column, for its one-line error: a
 * decimal comma or a Fortran exponent is a file to convert; a gap, NaN or
 * corrupt value is a row to skip. */
static const char* cell_hint(int kind, const char* s) {
  if (kind == DYI_QF_JUNK && dy_decimal_comma(s))
    return ": a decimal comma? dynid reads numbers with a point (convert the file, e.g. with a "
           "spreadsheet's export in the C/English locale)";
  if (kind == DYI_QF_JUNK && *s) {
    char* end;
    (void)strtod(s, &end);   /* a Fortran double: digits, then D or d, then the exponent */
    if (end != s && (*end == 'D' || *end == 'd') && (isdigit((unsigned char)end[1]) || end[1] == '-' || end[1] == '+'))
      return ": a Fortran exponent 'D'? dynid reads 'E' (e.g. sed 's/D/E/g')";
    return ": text where a number belongs (a unit, a second header row?): --rows A..B leaves rows out, "
           "--on-bad drop skips bad rows";
  }
  return ": --on-bad drop skips such rows (counted), --rows A..B leaves a part of the log out";
}

const char* dyi_role_name(int role) {
  static const char* const RN[6] = {"", "t", "q", "qd", "qdd", "tau"};
  return role > DYI_ROLE_NONE && role <= DYI_ROLE_TAU ? RN[role] : "";
}

/* the finding of (kind, col), created on first use; NULL when full */
static dyiFinding* finding(dyiQuality* q, int kind, int col, long line, double value) {
  for (int i = 0; i < q->nfind; i++)
    if (q->find[i].kind == kind && q->find[i].col == col) {
      dyiFinding* f = q->find + i;
      f->count++;
      f->last_line = line;
      return f;
    }
  if (q->nfind == DYI_QMAXF) { q->lost++; return NULL; }
  dyiFinding* f = q->find + q->nfind++;
  memset(f, 0, sizeof *f);
  f->kind = kind; f->col = col; f->count = 1; f->first_line = f->last_line = line;
  f->value = value;
  if (col > 0) {
    snprintf(f->what, sizeof f->what, "%s", q->name[col-1]);
    f->used = q->role[col-1] != DYI_ROLE_NONE;
  } else snprintf(f->what, sizeof f->what, "row");
  return f;
}

dyiQuality* dyi_quality_make(const char* path, int ncol, char** names, const int* role,
                            const int* joint, int n, double absurd, int on_bad,
                            const double* taumax) {
  dyiQuality* q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->name = calloc((size_t)ncol + 1, sizeof *q->name);
  q->role = calloc((size_t)ncol + 1, sizeof(int));
  q->joint = calloc((size_t)ncol + 1, sizeof(int));
  q->cs = calloc((size_t)ncol + 1, sizeof(colStat));
  q->ucol = calloc((size_t)ncol + 1, sizeof(int));
  q->uoff = calloc((size_t)ncol + 1, sizeof(size_t));
  q->cbuf = malloc(sizeof(double) * ((size_t)ncol + 1) * QBLK);
  if (!q->name || !q->role || !q->joint || !q->cs || !q->ucol || !q->uoff || !q->cbuf) {
    dyi_quality_free(q);
    return NULL;
  }
  snprintf(q->path, sizeof q->path, "%s", path);
  q->n = n; q->ncol = ncol;
  q->absurd = absurd > 0 ? absurd : 1e6;
  q->stop = !on_bad;
  for (int j = 0; j < n; j++) { q->taumax[j] = taumax[j]; q->colq[j] = q->colqd[j] = q->coltau[j] = -1; }
  q->eg = malloc((size_t)n * LAGWIN * 3 * sizeof(double));
  if (!q->eg) { dyi_quality_free(q); return NULL; }
  for (int c = 0; c < ncol; c++) {
    q->role[c] = role[c]; q->joint[c] = joint[c];
    if (role[c] == DYI_ROLE_NONE) snprintf(q->name[c], 48, "%.46s", names[c]);
    else if (role[c] == DYI_ROLE_T) snprintf(q->name[c], 48, "%.40s (t)", names[c]);
    else snprintf(q->name[c], 48, "%.30s (%s%d)", names[c], dyi_role_name(role[c]), joint[c] + 1);
    for (char* s = q->name[c]; *s; s++) if ((unsigned char)*s < 32) *s = '?';   /* messages stay one line */
    if (role[c] == DYI_ROLE_Q) q->colq[joint[c]] = c;
    if (role[c] == DYI_ROLE_QD) { q->colqd[joint[c]] = c; q->hasqd = 1; }
    if (role[c] == DYI_ROLE_TAU) q->coltau[joint[c]] = c;
    const size_t j = (size_t)joint[c] * sizeof(double);
    size_t off;
    switch (role[c]) {
      case DYI_ROLE_T: off = offsetof(dyiLogRow, t); break;
      case DYI_ROLE_Q: off = offsetof(dyiLogRow, q) + j; break;
      case DYI_ROLE_QD: off = offsetof(dyiLogRow, qd) + j; break;
      case DYI_ROLE_QDD: off = offsetof(dyiLogRow, qdd) + j; break;
      case DYI_ROLE_TAU: off = offsetof(dyiLogRow, tau) + j; break;
      default: continue;
    }
    q->ucol[q->nused] = c;
    q->uoff[q->nused++] = off;
  }
  return q;
}

void dyi_quality_free(dyiQuality* q) {
  if (!q) return;
  free(q->name); free(q->role); free(q->joint); free(q->cs); free(q->eg); free(q->ucol); free(q->uoff); free(q->cbuf);
  free(q);
}

double dyi_quality_absurd(const dyiQuality* q) { return q->absurd; }
void dyi_quality_clean_row(dyiQuality* q) { q->rows++; }

int dyi_quality_cells(dyiQuality* q, long line, char** fields, int nf, double* vals,
                      char* err, int errsz) {
  int bad = 0;
  q->rows++;
  if (nf < q->ncol) {
    /* truncated: bad only if a used column is missing */
    int need = 0;
    for (int c = nf; c < q->ncol; c++) if (q->role[c] != DYI_ROLE_NONE) need = c + 1;
    dyiFinding* f = finding(q, DYI_QF_TRUNC, 0, line, nf);
    if (f && f->count == 1)
      snprintf(f->verdict, sizeof f->verdict, "row with %d of %d cells (cut short: an "
               "interrupted write?)%s", nf, q->ncol, need ? "" : "; the used columns are complete");
    if (f && need) f->bad = f->used = 1;
    if (need) {
      dy_errpos(err, errsz, q->path, line, nf + 1, "truncated row: %d of %d cells, column '%s' missing", nf, q->ncol, q->name[need-1]);
      bad = 1;
    }
  }
  for (int c = 0; c < q->ncol; c++) {
    vals[c] = NAN;
    if (c >= nf) continue;
    const char* s = fields[c];
    while (*s == ' ' || *s == '\t') s++;
    char* end;
    double x = dy_strtod(s, &end);
    const char* e = end;
    while (*e == ' ' || *e == '\t' || *e == '\r') e++;
    int kind = -1;
    if (end == s || *e) kind = DYI_QF_JUNK;
    else if (isnan(x)) kind = DYI_QF_NAN;
    else if (isinf(x)) kind = DYI_QF_INF;
    else if (fabs(x) > q->absurd && q->role[c] != DYI_ROLE_T) kind = DYI_QF_ABSURD;   /* epoch times are fine */
    vals[c] = x;
    if (kind < 0) continue;
    int used = q->role[c] != DYI_ROLE_NONE;
    dyiFinding* f = finding(q, kind, c + 1, line, kind == DYI_QF_JUNK ? NAN : x);
    if (f && f->count == 1) {
      const char* what = kind == DYI_QF_JUNK ? (*s ? "text that is not a number" : "an empty cell")
                       : kind == DYI_QF_NAN ? "NaN" : kind == DYI_QF_INF ? "an infinite value"
                       : "an absurd value (corrupt cell)";
      if (kind == DYI_QF_ABSURD)
        snprintf(f->verdict, sizeof f->verdict, "%s: %.6g (|x| > %g)%s", what, x, q->absurd,
                 used ? "" : "; column not used: harmless");
      else
        snprintf(f->verdict, sizeof f->verdict, "%s%s", what, used ? "" : "; column not used: harmless");
    }
    if (!used) continue;
    if (f) f->bad = 1;
    if (!bad) {
      char shown[40];
      dy_field_shown(fields[c], shown, sizeof shown);
      dy_errpos(err, errsz, q->path, line, c + 1, "%s in column '%s': '%s'%s",
               kind == DYI_QF_JUNK ? (*s ? "not a number" : "an empty cell") : kind == DYI_QF_NAN ? "NaN"
               : kind == DYI_QF_INF ? "infinite value" : "absurd value", q->name[c], shown, cell_hint(kind, s));
    }
    bad = 1;
  }
  return bad;
}

int dyi_quality_time(dyiQuality* q, long line, double t, int col, char* err, int errsz) {
  if (!q->have_t) return 0;
  double dt = t - q->t_last;
  if (dt > 0) return 0;
  int kind = dt == 0 ? DYI_QF_TREPEAT : DYI_QF_TBACK;
  dyiFinding* f = finding(q, kind, col, line, dt);
  if (f) {
    f->bad = 1;
    if (f->count == 1)
      snprintf(f->verdict, sizeof f->verdict, "time %s the previous row's (line %ld, step %.6g s): "
               "%s", dt == 0 ? "equal to" : "before", q->line_last, dt,
               dt == 0 ? "duplicated sample or coarse time stamps" : "non-monotonic time (log restarted or rows out of order)");
  }
  dy_errpos(err, errsz, q->path, line, col, "time %.17g %s the previous row's (%.17g, line %ld): %s", t,
            dt == 0 ? "repeats" : "goes back from", q->t_last, q->line_last,
            dt == 0 ? "a duplicated sample or coarse time stamps (--on-bad drop skips such rows; a time in ms "
                      "written in s with few digits?)"
                    : "rows out of order, or logs appended to one file (--rows A..B for each part, or --on-bad drop)");
  return 1;
}

void dyi_quality_dropped(dyiQuality* q) { q->dropped++; }

static void gap(dyiQuality* q, double dt, long line) {
  if (dt <= 3 * q->dt_med) return;
  dyiFinding* f = finding(q, DYI_QF_GAP, 0, line, dt);
  if (f) {
    if (dt > f->value) f->value = dt;
    snprintf(f->verdict, sizeof f->verdict, "time steps longer than 3x the median %.6g s "
             "(longest %.6g s): missing samples; derivatives use the real steps, the "
             "filter assumes even spacing there", q->dt_med, f->value);
  }
}

static void median_dt(dyiQuality* q) {
  double w[DTWIN];
  memcpy(w, q->dtw, (size_t)q->ndt * sizeof(double));
  qsort(w, (size_t)q->ndt, sizeof(double), dy_cmp_double);
  q->dt_med = q->ndt % 2 ? w[q->ndt/2] : 0.5 * (w[q->ndt/2 - 1] + w[q->ndt/2]);
}

/* one sample of the lag fit; residuals beyond the threshold (8 robust
 * standard deviations of the first LAGWIN) are left out: a log's end where
 * the velocity is held while the position stops must not decide the lag */
static void lagfit(dyiQuality* q, int j, double e, double qd, double g) {
  if (fabs(e) > q->ethr[j]) return;
  q->seg[j] += e*g; q->sgg[j] += g*g; q->see[j] += e*e; q->sqd[j] += qd*qd;
  q->nfit[j]++;
}

static void lagthreshold(dyiQuality* q) {
  double w[LAGWIN];
  for (int j = 0; j < q->n; j++) {
    if (q->colqd[j] < 0) continue;
    const double* p = q->eg + (size_t)j * LAGWIN * 3;
    for (int i = 0; i < q->neg; i++) w[i] = fabs(p[3*i]);
    qsort(w, (size_t)q->neg, sizeof(double), dy_cmp_double);
    double med = w[q->neg / 2];
    q->ethr[j] = med > 0 ? 8 * 1.4826 * med : INFINITY;
    for (int i = 0; i < q->neg; i++) lagfit(q, j, p[3*i], p[3*i+1], p[3*i+2]);
  }
}

static void colstat(colStat* s, double x, long k, long line) {
  if (k == 0) {
    s->first = s->mn = s->mx = x;
    s->run_v = s->best_v = x; s->run_n = s->best_n = 1; s->run_line = s->best_line = line;
  } else {
    if (x != s->first) s->changes = 1;
    if (x < s->mn) s->mn = x;
    if (x > s->mx) s->mx = x;
    if (x == s->run_v) s->run_n++;
    else { s->run_v = x; s->run_n = 1; s->run_line = line; }
    if (s->run_n > s->best_n) { s->best_n = s->run_n; s->best_v = s->run_v; s->best_line = s->run_line; }
  }
  if (x != 0) s->nonzero = 1;
}

/* Row k's time step: min, max and the first DTWIN for the median; the
 * gaps of those are judged once the median is known, later ones at once */
static void row_time(dyiQuality* q, const dyiLogRow* r, long k) {
  if (q->have_t) {
    double dt = r->t - q->t_last;
    if (k == 1 || dt < q->dt_min) q->dt_min = dt;
    if (k == 1 || dt > q->dt_max) q->dt_max = dt;
    if (q->ndt < DTWIN) {
      q->dtw[q->ndt] = dt; q->dtl[q->ndt] = r->line; q->ndt++;
      if (q->ndt == DTWIN) {
        median_dt(q);
        for (int i = 0; i < DTWIN; i++) gap(q, q->dtw[i], q->dtl[i]);
      }
    } else gap(q, dt, r->line);
  }
  q->have_t = 1; q->t_last = r->t; q->line_last = r->line;
}

/* colstat over the values x of one column in rows k0.. (lines line; L of
 * them), in their order. Where no value repeats the one before it (the
 * usual noisy column) no run grows past one, so the runs need only the
 * last value; the extremes, changes and non-zeros are then taken in
 * loops without branches */
DY_VECTORIZE
static void colstat_block(colStat* s, const double* x, const long* line, long k0, int L) {
  int eq = k0 == 0 || x[0] == s->run_v;
  for (int t = 1; t < L; t++) eq |= x[t] == x[t - 1];
  if (eq) {
    for (int t = 0; t < L; t++) colstat(s, x[t], k0 + t, line[t]);
    return;
  }
  double mn = s->mn, mx = s->mx;
  int ch = 0, nz = 0;
  for (int t = 0; t < L; t++) {
    mn = x[t] < mn ? x[t] : mn;
    mx = x[t] > mx ? x[t] : mx;
    ch |= x[t] != s->first;
    nz |= x[t] != 0;
  }
  s->mn = mn; s->mx = mx;
  if (ch) s->changes = 1;
  if (nz) s->nonzero = 1;
  s->run_v = x[L - 1]; s->run_n = 1; s->run_line = line[L - 1];
}

/* the column statistics of the rows waiting */
static void columns_flush(dyiQuality* q) {
  for (int i = 0; q->nblk && i < q->nused; i++)
    colstat_block(q->cs + q->ucol[i], q->cbuf + (size_t)i * QBLK, q->lbuf, q->kblk, q->nblk);
  q->nblk = 0;
}

/* row k's used columns into the block (each value found at its column's
 * offset in the row: no branch on the role), their statistics taken when
 * it is full and when the log ends (the findings come from them then) */
static void row_columns(dyiQuality* q, const dyiLogRow* r, long k) {
  if (!q->nblk) q->kblk = k;
  for (int i = 0; i < q->nused; i++)
    memcpy(q->cbuf + (size_t)i * QBLK + q->nblk, (const char*)r + q->uoff[i], sizeof(double));
  q->lbuf[q->nblk] = r->line;
  if (++q->nblk == QBLK) columns_flush(q);
}

/* |tau_j| beyond the model's limit taumax_j (> 0): count, first, last */
static void row_taumax(dyiQuality* q, const dyiLogRow* r) {
  for (int j = 0; j < q->n; j++)
    if (q->taumax[j] > 0 && fabs(r->tau[j]) > q->taumax[j]) {
      if (!q->tmax_n[j]++) { q->tmax_first[j] = r->line; q->tmax_v[j] = r->tau[j]; }
      q->tmax_last[j] = r->line;
    }
}

/* Stale: every q, qd and tau repeats the previous row's while time moves
 * (a DYI_QF_STALE finding). The row becomes the previous one. */
static int row_stale(dyiQuality* q, const dyiLogRow* r) {
  int n = q->n, stale = 0;
  if (q->haveprev) {
    stale = 1;
    for (int j = 0; j < n && stale; j++)
      stale = r->q[j] == q->prevq[j] && r->qd[j] == q->prevqd[j] && r->tau[j] == q->prevtau[j];
    if (stale) {
      dyiFinding* f = finding(q, DYI_QF_STALE, 0, r->line, 0);
      if (f && f->count == 1)
        snprintf(f->verdict, sizeof f->verdict, "rows repeating the previous row's values with a "
                 "new time stamp: the logger sampled the same robot state twice (its clock is not "
                 "the robot's); time steps and derivatives around them are unreliable");
    }
  }
  memcpy(q->prevq, r->q, (size_t)n * sizeof(double));
  memcpy(q->prevqd, r->qd, (size_t)n * sizeof(double));
  memcpy(q->prevtau, r->tau, (size_t)n * sizeof(double));
  q->haveprev = 1;
  return stale;
}

/* Velocity against differentiated position: the lag lambda in samples
 * fits e_k = qd_k - dq/dt_k ~ -lambda (qd_{k+1} - qd_{k-1}) / 2 by least
 * squares (qd_k = v(t_k - lambda h)), on a window of the last five good
 * rows centred on k (the chord slope dq/dt over k-1..k+1: less sensitive
 * to time-stamp jitter than the parabola); windows with stale rows are
 * skipped; the first LAGWIN samples are held to set the outlier threshold. */
static void row_lag(dyiQuality* q, const dyiLogRow* r, int stale) {
  int n = q->n, slot;
  /* the window as a ring: the i-th oldest row in slot (wh + i) % 5 */
  if (q->nw == 5) { slot = q->wh; q->wh = (q->wh + 1) % 5; }
  else slot = (q->wh + q->nw++) % 5;
  q->wt[slot] = r->t; q->wl[slot] = r->line; q->wstale[slot] = stale;
  memcpy(q->wq[slot], r->q, (size_t)n * sizeof(double));
  memcpy(q->wqd[slot], r->qd, (size_t)n * sizeof(double));
  const int w1 = (q->wh + 1) % 5, w2 = (q->wh + 2) % 5, w3 = (q->wh + 3) % 5, w4 = (q->wh + 4) % 5;
  if (q->nw < 5 || q->wstale[w1] || q->wstale[w2] || q->wstale[w3] || q->wstale[w4]) return;
  for (int j = 0; j < n; j++) {
    if (q->colqd[j] < 0) continue;
    double dq = (q->wq[w3][j] - q->wq[w1][j]) / (q->wt[w3] - q->wt[w1]);
    double e = q->wqd[w2][j] - dq, g = 0.5 * (q->wqd[w3][j] - q->wqd[w1][j]);
    if (q->neg < LAGWIN) {
      double* p = q->eg + ((size_t)j * LAGWIN + (size_t)q->neg) * 3;
      p[0] = e; p[1] = q->wqd[w2][j]; p[2] = g;
    } else lagfit(q, j, e, q->wqd[w2][j], g);
  }
  q->nlag++;
  if (q->neg < LAGWIN && ++q->neg == LAGWIN) lagthreshold(q);
}

int dyi_quality_row(dyiQuality* q, const dyiLogRow* r) {
  long k = q->good++;
  row_time(q, r, k);
  row_columns(q, r, k);
  row_taumax(q, r);
  int stale = row_stale(q, r);
  if (q->hasqd) row_lag(q, r, stale);
  return stale;
}

/* A used column over the whole log: all zero, constant, or (torque) flat
 * at its maximum or minimum for SATRUN samples or more */
static void finish_column(dyiQuality* q, int c) {
  colStat* s = q->cs + c;
  int role = q->role[c];
  if (role == DYI_ROLE_NONE || q->good < 2) return;
  if (!s->nonzero) {
    dyiFinding* f = finding(q, DYI_QF_ZERO, c + 1, 0, 0);
    if (f) {
      f->count = q->good; f->first_line = 0;
      snprintf(f->verdict, sizeof f->verdict, "all %ld values are zero: %s", q->good,
               role == DYI_ROLE_TAU ? "no torque signal (sensor off, or the wrong column)"
               : "the quantity was not recorded (wrong column?)");
    }
  } else if (!s->changes) {
    dyiFinding* f = finding(q, DYI_QF_CONST, c + 1, 0, s->first);
    if (f) {
      f->count = q->good; f->first_line = 0;
      snprintf(f->verdict, sizeof f->verdict, "constant %.6g over all %ld rows: %s", s->first,
               q->good, role == DYI_ROLE_Q ? "joint never moved: its parameters are not identifiable"
               : "no information in this column");
    }
  } else if (role == DYI_ROLE_TAU && s->best_n >= SATRUN
             && (s->best_v == s->mx || s->best_v == s->mn)) {
    dyiFinding* f = finding(q, DYI_QF_TSAT, c + 1, s->best_line, s->best_v);
    if (f) {
      f->count = s->best_n; f->last_line = 0;
      snprintf(f->verdict, sizeof f->verdict, "flat at its %s %.6g for %ld samples from line %ld: "
               "saturated (clipped) torque; drop these rows or excite less",
               s->best_v == s->mx ? "maximum" : "minimum", s->best_v, s->best_n, s->best_line);
    }
  }
}

/* Joint j's lag fit (at least 10 samples): lambda = -sum e g / sum g^2
 * with standard error sd; a lag when |lambda| > 0.2 and > 5 sd (named by
 * the nearest half sample), else inconsistent when the residual rms
 * exceeds 25 % of rms qd_j */
static void finish_lag(dyiQuality* q, int j) {
  if (q->colqd[j] < 0 || q->nfit[j] < 10 || !(q->sgg[j] > 0)) return;
  double m = (double)q->nfit[j];
  double lam = -q->seg[j] / q->sgg[j];
  double res = fmax(q->see[j] - q->seg[j]*q->seg[j]/q->sgg[j], 0) / (m - 1);
  double sd = sqrt(res / q->sgg[j]);
  double rmsres = sqrt(res), rmsqd = sqrt(q->sqd[j] / m);
  int c = q->colqd[j];
  if (fabs(lam) > 0.2 && fabs(lam) > 5 * sd) {
    double half = round(2 * fabs(lam)) / 2;
    char how[32];
    if (half == 0) snprintf(how, sizeof how, "a fraction of a sample");
    else if (half == 0.5) snprintf(how, sizeof how, "half a sample");
    else if (half == 1) snprintf(how, sizeof how, "one sample");
    else snprintf(how, sizeof how, "%g samples", half);
    dyiFinding* f = finding(q, DYI_QF_VLAG, c + 1, 0, lam);
    if (f) {
      f->count = q->nfit[j];
      snprintf(f->verdict, sizeof f->verdict, "qd%d %s q%d by %s (fitted lag %.2f +- %.2f "
               "samples)%s", j + 1, lam > 0 ? "lags" : "leads", j + 1, how, lam, sd,
               half <= 0.5 ? ": a one-sided difference, one sample behind the forward difference; "
               "differentiate q instead" : ": shift the column or differentiate q instead");
    }
  } else if (rmsqd > 0 && rmsres > 0.25 * rmsqd) {
    dyiFinding* f = finding(q, DYI_QF_VBAD, c + 1, 0, rmsres / rmsqd);
    if (f) {
      f->count = q->nfit[j];
      snprintf(f->verdict, sizeof f->verdict, "qd%d disagrees with dq%d/dt (rms mismatch %.3g, "
               "%.0f %% of rms qd%d, at the best lag %.2f): wrong column, units or noise",
               j + 1, j + 1, rmsres, 100 * rmsres / rmsqd, j + 1, lam);
    }
  }
}

/* joint j's torque beyond the model's limit, one finding for its rows */
static void finish_taumax(dyiQuality* q, int j) {
  if (!q->tmax_n[j]) return;
  int c = q->coltau[j];
  dyiFinding* f = finding(q, DYI_QF_TMAX, c + 1, q->tmax_first[j], q->tmax_v[j]);
  if (f) {
    f->count = q->tmax_n[j]; f->last_line = q->tmax_last[j];
    snprintf(f->verdict, sizeof f->verdict, "|tau%d| above the model's limit %g in %ld rows "
             "(first %.6g): wrong gain or units, or a limit too low", j + 1, q->taumax[j],
             q->tmax_n[j], q->tmax_v[j]);
  }
}

void dyi_quality_finish(dyiQuality* q) {
  if (q->finished) return;
  q->finished = 1;
  columns_flush(q);
  if (q->neg > 0 && q->neg < LAGWIN) lagthreshold(q);
  if (q->ndt > 0 && q->ndt < DTWIN) {
    median_dt(q);
    for (int i = 0; i < q->ndt; i++) gap(q, q->dtw[i], q->dtl[i]);
  }
  for (int c = 0; c < q->ncol; c++) finish_column(q, c);
  for (int j = 0; j < q->n; j++) {
    finish_taumax(q, j);
    finish_lag(q, j);
  }
}

int dyi_quality_count(const dyiQuality* q) { return q->nfind; }
const dyiFinding* dyi_quality_get(const dyiQuality* q, int i) {
  return i >= 0 && i < q->nfind ? q->find + i : NULL;
}
int dyi_quality_has(const dyiQuality* q, int kind) {
  int k = 0;
  for (int i = 0; i < q->nfind; i++) k += q->find[i].kind == kind;
  return k;
}

void dyi_quality_stats(const dyiQuality* q, long* rows, long* dropped,
                       double* dt_min, double* dt_median, double* dt_max) {
  if (rows) *rows = q->rows;
  if (dropped) *dropped = q->dropped;
  if (dt_min) *dt_min = q->dt_min;
  if (dt_median) *dt_median = q->dt_med;
  if (dt_max) *dt_max = q->dt_max;
}

void dyi_quality_print(FILE* out, const dyiQuality* q) {
  for (int i = 0; i < q->nfind; i++) {
    const dyiFinding* f = q->find + i;
    fprintf(out, "%s:", q->path);
    if (f->first_line > 0) {
      fprintf(out, "%ld", f->first_line);
      if (f->last_line > f->first_line) fprintf(out, "..%ld", f->last_line);
      fputc(':', out);
    }
    if (f->col > 0) fprintf(out, "%d:", f->col);
    fprintf(out, " %s: %s%s%s (%ld %s)%s\n", dyi_quality_kind(f->kind), f->col > 0 ? f->what : "",
            f->col > 0 ? ": " : "", f->verdict, f->count, f->count == 1 ? "row" : "rows",
            f->bad ? (q->stop ? " [stops the read]" : " [rows dropped]") : "");
  }
  if (q->lost) fprintf(out, "%s: %d more findings not kept\n", q->path, q->lost);
  fprintf(out, "%s: %ld rows, %ld dropped, %d finding%s; time step min %.4g, median %.4g, max %.4g s\n",
          q->path, q->rows, q->dropped, q->nfind, q->nfind == 1 ? "" : "s", q->dt_min, q->dt_med, q->dt_max);
}

void dyi_quality_on_bad(dyiQuality* q, int on_bad) { q->stop = !on_bad; }
