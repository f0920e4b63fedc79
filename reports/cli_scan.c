/* SPDX-License-Identifier: MIT */
/* dynid program: the usual mistakes with a log, caught where the command
 * holds both the model and the samples, each as one warning on standard
 * error with the evidence and what fixes it:
 *
 *   - the log's position columns q1..qK do not match the model's n joints
 *     (the wrong model, or a column missing);
 *   - a sample rate below 5 Hz or above 100 kHz (time in ms or in samples:
 *     --time-scale);
 *   - positions beyond the model's joint limits by more than 10 % of the
 *     range, or a joint moving more than 2 pi per second of data (degrees);
 *   - a torque RMS more than 10x away from the RMS of the model's gravity
 *     torque along the log (units, or currents without --gain).
 *
 * And, for the terminal, the data-quality findings of the gate (quality.h)
 * with their first lines. Gathered in the command's own pass over the log
 * (a dyiLogWatch on its reader, ident/log.h: the rows that passed the gate,
 * gains and time scale applied), printed when the command has succeeded. */
#include "reports/cli.h"
#include "core/util.h"
#include "core/numparse.h"
#include "core/dynamics.h"
#include "ident/estimate.h"
#include "ident/quality.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <strings.h>

#define MAXG 4000   /* gravity torques evaluated at most (spread over the log) */

/* warnings and findings wait here until the command has succeeded (a
 * failing command prints exactly one line) */
static char* pend;
static size_t pendlen;
static FILE* pf;

static FILE* pending(void) {
  if (!pf) pf = open_memstream(&pend, &pendlen);
  return pf ? pf : stderr;
}

/* the short form of each warning that questions the result (those
 * --strict makes errors), for the closing block; shown: printed already */
#define MAXQ 24
static char qline[MAXQ][200];
static int nq, qshown;

/* one short line for the closing block (cli_question_block) */
__attribute__((format(printf, 1, 2))) static void question(const char* fmt, ...) {
  if (nq >= MAXQ) { nq++; return; }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(qline[nq++], sizeof qline[0], fmt, ap);
  va_end(ap);
}

void cli_question_block(void) {
  if (!nq || !qshown || (pf && pendlen)) return;   /* none, or about to be the last lines anyway */
  fprintf(stderr, "dynid: warning: %s above question%s this result:\n", nq == 1 ? "this warning" : "these warnings",
          nq == 1 ? "s" : "");
  for (int i = 0; i < nq && i < MAXQ; i++) fprintf(stderr, "  %s\n", qline[i]);
  if (nq > MAXQ) fprintf(stderr, "  ... and %d more\n", nq - MAXQ);
}

void cli_flush_warnings(int show) {
  if (!pf) return;
  fclose(pf);
  pf = NULL;
  if (show && pendlen) { fwrite(pend, 1, pendlen, stderr); qshown = 1; }
  free(pend);
  pend = NULL;
  pendlen = 0;
}

static const char* delim_name(char d) {
  return d == ';' ? "semicolon" : d == '\t' ? "tab" : d == ' ' ? "blank" : "comma";
}

/* A header cell's role by its words (lower case, a bracketed unit and a
 * command column left out): 0 none, else the DYI_ROLE_*; *num the last run
 * of digits (-1: none), pat the name with that run as '#'. */
static int guess_role(const char* name, long* num, char* pat, size_t patsz) {
  char lo[64];
  size_t L = 0;
  while (*name == ' ') name++;
  for (const char* s = name; *s && *s != '[' && *s != '(' && L + 1 < sizeof lo; s++) lo[L++] = (char)tolower((unsigned char)*s);
  while (L > 0 && (lo[L-1] == ' ' || lo[L-1] == '_')) L--;
  lo[L] = 0;
  static const char* const CMD[] = {"cmd", "cmptd", "command", "des", "ref", "target", "goal", "set"};
  for (size_t k = 0; k < sizeof CMD / sizeof *CMD; k++) if (strstr(lo, CMD[k])) return 0;
  size_t e = L;
  while (e > 0 && !isdigit((unsigned char)lo[e-1])) e--;
  size_t b = e;
  while (b > 0 && isdigit((unsigned char)lo[b-1])) b--;
  *num = e > b && e - b < 6 ? strtol(lo + b, NULL, 10) : -1;
  snprintf(pat, patsz, "%.*s%s%s", (int)(e > b ? b : L), name, e > b ? "#" : "", e > b ? name + e : "");
  char w[64];   /* the letters alone */
  size_t W = 0;
  for (size_t k = 0; k < L; k++) if (isalpha((unsigned char)lo[k]) && W + 1 < sizeof w) w[W++] = lo[k];
  w[W] = 0;
  if (*num < 0)
    return !strcmp(w, "t") || !strcmp(w, "ts") || !strncmp(w, "time", 4) || !strcmp(w, "stamp") ||
           !strcmp(w, "timestamp") || !strncmp(w, "sec", 3) ? DYI_ROLE_T : 0;
  if (strstr(w, "acc") || !strcmp(w, "qdd") || !strcmp(w, "ddq")) return DYI_ROLE_QDD;
  if (strstr(w, "vel") || strstr(w, "speed") || !strcmp(w, "qd") || !strcmp(w, "dq")) return DYI_ROLE_QD;
  if (strstr(w, "torq") || strstr(w, "effort") || strstr(w, "tau") || strstr(w, "trq") || strstr(w, "cur"))
    return DYI_ROLE_TAU;
  if (strstr(w, "pos") || strstr(w, "angle") || !strcmp(w, "q") || !strcmp(w, "jointq")) return DYI_ROLE_Q;
  return 0;
}

/* The --map options that the header's names suggest, for each quantity
 * whose conventional names are missing: a run of n columns of one name
 * pattern numbered from 0 or 1 (the first such run, then "or" the others:
 * Torque, TorqueSm, TorqueCur). */
static void suggest_map(char** f, int nf, int n, char* out, size_t outsz) {
  size_t L = 0;
  out[0] = 0;
  for (int ro = DYI_ROLE_T; ro <= DYI_ROLE_TAU; ro++) {
    char conv[8];
    snprintf(conv, sizeof conv, ro == DYI_ROLE_T ? "t" : "%s1", dyi_role_name(ro));
    if (dy_csv_find(f, nf, conv) >= 0) continue;
    int runs = 0;
    for (int c = 0; c < nf && runs < 3 && L + 160 < outsz; c++) {
      long k; char pat[80];
      if (guess_role(f[c], &k, pat, sizeof pat) != ro) continue;
      if (ro == DYI_ROLE_T) {
        L += (size_t)snprintf(out + L, outsz - L, "%s--map t=%s", L ? " " : "", f[c]);
        break;
      }
      if (k != 0 && k != 1) continue;   /* a run starts at its first column */
      int last = c, run = 1;
      for (int d = 0; d < nf && run < n; d++) {
        long k2; char pat2[80];
        if (guess_role(f[d], &k2, pat2, sizeof pat2) == ro && k2 == k + run && !strcmp(pat, pat2)) {
          last = d; run++; d = -1;
        }
      }
      if (run != n) continue;
      if (!runs) L += (size_t)snprintf(out + L, outsz - L, "%s--map %s1..%s%d=%s..%s", L ? " " : "", dyi_role_name(ro), dyi_role_name(ro), n,
                                       f[c], f[last]);
      else L += (size_t)snprintf(out + L, outsz - L, " (or =%s..%s)", f[c], f[last]);
      runs++;
    }
  }
}

/* What the first row f (nf cells) of a log suggests when its columns are
 * not found: numbers only (no header: --no-header), or names that look
 * like the quantities (the --map options to give). "" when neither; else
 * ends "; ". */
static void header_hint(char** f, int nf, int n, char* out, size_t outsz) {
  out[0] = 0;
  if (nf <= 1) return;
  int num = 0;
  for (int c = 0; c < nf; c++) {
    const char* s = f[c];
    while (*s == ' ') s++;
    char* e;
    (void)dy_strtod(s, &e);
    while (*e == ' ' || *e == '\r') e++;
    num += e != s && !*e;
  }
  if (num == nf)
    snprintf(out, outsz, "its first row is numbers, not names: a file without a header? --no-header reads it by "
             "position (t, q1..q%d, [qd, [qdd,]] tau1..tau%d) or names the columns c1, c2, ... for --map; ", n, n);
  else {
    char sug[500];
    suggest_map(f, nf, n, sug, sizeof sug);
    if (*sug) snprintf(out, outsz, "its names suggest: %s; ", sug);
  }
}

/* The header of a log: its columns (a short list), the joint numbers of
 * the position columns named qK and what it suggests for an n-joint model
 * (header_hint); 0, or -1 if it cannot be read. */
static int header_info(const char* path, int n, char* cols, size_t colsz, int* nq, int* qmax, char* delim,
                       char* hint, size_t hintsz) {
  char err[DY_ERRSZ];
  dyCsv* csv = dy_csv_open(path, err, sizeof err);
  if (!csv) return -1;
  char** f; int nf;
  if (dy_csv_next(csv, &f, &nf, err, sizeof err) != 1) { dy_csv_close(csv); return -1; }
  *delim = dy_csv_delim(csv);
  dyi_log_qcols(f, nf, nq, qmax);
  size_t L = 0;
  cols[0] = 0;
  for (int i = 0; i < nf; i++) {
    const char* s = f[i];
    while (*s == ' ') s++;
    if (L + strlen(s) + 16 < colsz) L += (size_t)snprintf(cols + L, colsz - L, "%s%s", i ? ", " : "", s);
    else if (L + 8 < colsz && !strstr(cols, "...")) L += (size_t)snprintf(cols + L, colsz - L, ", ...");
  }
  if (nf > 0) snprintf(cols + L, colsz - L, " (%d column%s)", nf, nf == 1 ? "" : "s");
  header_hint(f, nf, n, hint, hintsz);
  dy_csv_close(csv);
  return 0;
}

int cli_fail_log(const char* path, const dyiLogOpt* opt, int n, const char* err) {
  int header = strstr(err, "no such column") || strstr(err, "no column for") || strstr(err, "missing column");
  char cols[400], hint[600];
  int nq, qmax;
  char delim;
  if (!header || opt->no_header || header_info(path, n, cols, sizeof cols, &nq, &qmax, &delim, hint, sizeof hint))
    return cli_fail("%s", err);
  char joints[160] = "";
  if (nq && nq != n)
    snprintf(joints, sizeof joints, "the model has %d joint%s, the log has %d position column%s (q1..q%d); ", n,
             n == 1 ? "" : "s", nq, nq == 1 ? "" : "s", qmax);
  return cli_fail("%s; %s%sthe file has %s, %s-separated: %s", err, joints, hint,
                  strchr(cols, ',') ? "columns" : "one column", delim_name(delim), cols);
}

/* What the pass over a log's rows gathers for the warnings: position
 * ranges with their lines, the first 1000 positive time steps, and on
 * every 8th row (MAXG at most) the measured torque beside the model's
 * gravity torque g(q) and its other torque h = tau_nom(q, qd, qdd) - g(q)
 * (only with link masses and gravity). h needs qd and qdd: a quadratic
 * fitted to the positions over +-W rows about the row (W for about 10 ms,
 * 4 to RING_W rows), so the rows are judged W rows late. Without h a fast
 * move's torque is mostly inertial and does not follow g on a right model
 * (a 5 kHz motor-side log: slope 2.75 on a joint). */
#define RING_W 64
#define RING_K (2 * RING_W + 1)
typedef struct {
  long rows;
  double qlo[DY_MAXJ], qhi[DY_MAXJ];    /* range of each position */
  long qlo_line[DY_MAXJ], qhi_line[DY_MAXJ];   /* the file's lines where they are reached */
  double dts[1000];           /* the first positive time steps [s] */
  int ndt;
  double t0, tprev;           /* first and last time [s] */
  int ng;                     /* thinned rows */
  /* per joint over the thinned rows, sums of the gravity torque g, the
     nominal model's other torque h (inertial, Coriolis, friction), the
     measured torque t and their products */
  double sg[DY_MAXJ], sh[DY_MAXJ], st[DY_MAXJ], sgg[DY_MAXJ], shh[DY_MAXJ], stt[DY_MAXJ];
  double sgh[DY_MAXJ], sgt[DY_MAXJ], sht[DY_MAXJ];
  int W;                      /* the fit's half window [rows] (0: not chosen yet) */
  double rt[RING_K], rq[RING_K][DY_MAXJ], rtau[RING_K][DY_MAXJ];   /* the last rows, by rows % RING_K */
} scanAcc;

struct cliWatch_ {
  dyiLogWatch w;              /* the reader's side */
  scanAcc a;
  const dyModel* m;
  dyData* d;                  /* for g(q) */
  int gravity;                /* link masses and gravity: the torque check runs */
};

static void acc_reset(cliWatch* cw) {
  scanAcc* a = &cw->a;
  memset(a, 0, sizeof *a);
  for (int j = 0; j < cw->m->n; j++) { a->qlo[j] = INFINITY; a->qhi[j] = -INFINITY; }
}

/* qd, qdd of the row W rows back (ring slot c) from a quadratic in time
 * fitted by least squares to the positions of the 2W + 1 rows about it;
 * -1 when the times are degenerate */
static int fit_rates(const scanAcc* a, int n, int c, double* qd, double* qdd) {
  const int W = a->W;
  const double tc = a->rt[c], h = a->rt[(c + W) % RING_K] - a->rt[(c + RING_K - W) % RING_K];
  if (!(h > 0)) return -1;
  double S[5] = {0}, b[DY_MAXJ][3];
  memset(b, 0, sizeof b);
  for (int i = -W; i <= W; i++) {
    const int k = (c + RING_K + i) % RING_K;
    const double x = (a->rt[k] - tc) / h, x2 = x * x;   /* scaled time: |x| <= about 1/2 */
    S[0] += 1; S[1] += x; S[2] += x2; S[3] += x2 * x; S[4] += x2 * x2;
    for (int j = 0; j < n; j++) { b[j][0] += a->rq[k][j]; b[j][1] += a->rq[k][j] * x; b[j][2] += a->rq[k][j] * x2; }
  }
  /* the normal equations [S0 S1 S2; S1 S2 S3; S2 S3 S4] c = b, by Cramer's rule */
  const double d = S[0] * (S[2] * S[4] - S[3] * S[3]) - S[1] * (S[1] * S[4] - S[3] * S[2]) + S[2] * (S[1] * S[3] - S[2] * S[2]);
  if (!(fabs(d) > 1e-12)) return -1;
  for (int j = 0; j < n; j++) {
    const double* y = b[j];
    const double c1 = (S[0] * (y[1] * S[4] - S[3] * y[2]) - y[0] * (S[1] * S[4] - S[3] * S[2]) + S[2] * (S[1] * y[2] - y[1] * S[2])) / d;
    const double c2 = (S[0] * (S[2] * y[2] - y[1] * S[3]) - S[1] * (S[1] * y[2] - y[1] * S[2]) + y[0] * (S[1] * S[3] - S[2] * S[2])) / d;
    qd[j] = c1 / h; qdd[j] = 2 * c2 / (h * h);
  }
  return 0;
}

/* the gravity check's sums: the row into the ring; every 8th row, W rows
 * back, its g(q), h = tau_nom(q, qd, qdd) - g(q) and its measured torque */
static void gravity_row(cliWatch* cw, const dyiLogRow* row) {
  scanAcc* a = &cw->a;
  const int n = cw->m->n;
  const int slot = (int)(a->rows % RING_K);
  a->rt[slot] = row->t;
  memcpy(a->rq[slot], row->q, sizeof(double) * (size_t)n);
  memcpy(a->rtau[slot], row->tau, sizeof(double) * (size_t)n);
  if (!a->W && a->ndt >= 16) {   /* about 10 ms each side, from the median of the first steps */
    double dt[16];
    memcpy(dt, a->dts, sizeof dt);
    qsort(dt, 16, sizeof dt[0], dy_cmp_double);
    const double w = 0.01 / dt[8];
    a->W = w < 4 ? 4 : w > RING_W ? RING_W : (int)lround(w);
  }
  const long ctr = a->rows - a->W;   /* the row judged now */
  if (!a->W || ctr < a->W || ctr % 8 || a->ng >= MAXG) return;
  const int c = (int)(ctr % RING_K);
  double g[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tn[DY_MAXJ];
  if (fit_rates(a, n, c, qd, qdd)) return;
  dy_rnea_g(cw->m, cw->d, cw->m->par, a->rq[c], NULL, NULL, cw->m->gravity, 0, g);
  dy_rnea(cw->m, cw->d, cw->m->par, a->rq[c], qd, qdd, tn);
  for (int j = 0; j < n; j++) {
    const double t = a->rtau[c][j], h = tn[j] - g[j];
    a->sg[j] += g[j]; a->sh[j] += h; a->st[j] += t;
    a->sgg[j] += g[j] * g[j]; a->shh[j] += h * h; a->stt[j] += t * t;
    a->sgh[j] += g[j] * h; a->sgt[j] += g[j] * t; a->sht[j] += h * t;
  }
  a->ng++;
}

/* one row of the pass (NULL: the pass starts again) */
static void acc_row(void* ctx, const dyiLogRow* row) {
  cliWatch* cw = ctx;
  scanAcc* a = &cw->a;
  const int n = cw->m->n;
  if (!row) { acc_reset(cw); return; }
  if (a->rows == 0) a->t0 = row->t;
  else if (a->ndt < 1000 && row->t > a->tprev) a->dts[a->ndt++] = row->t - a->tprev;
  a->tprev = row->t;
  for (int j = 0; j < n; j++) {
    if (row->q[j] < a->qlo[j]) { a->qlo[j] = row->q[j]; a->qlo_line[j] = row->line; }
    if (row->q[j] > a->qhi[j]) { a->qhi[j] = row->q[j]; a->qhi_line[j] = row->line; }
  }
  if (cw->gravity) gravity_row(cw, row);
  a->rows++;
}

cliWatch* cli_watch_start(const cliArgs* c, const dyModel* m, dyiLogOpt* opt) {
  if (cli_flag(c, "quiet") && !cli_flag(c, "strict")) return NULL;   /* --strict checks even when quiet */
  cliWatch* cw = calloc(1, sizeof *cw);
  if (!cw) return NULL;   /* the checks are advice: without memory, none */
  cw->m = m;
  cw->d = dy_make_data(m);
  double mass = 0;
  for (int j = 0; j < m->n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  double gnorm = sqrt(m->gravity[0]*m->gravity[0] + m->gravity[1]*m->gravity[1] + m->gravity[2]*m->gravity[2]);
  cw->gravity = cw->d && mass > 0 && gnorm > 0;
  acc_reset(cw);
  cw->w.row = acc_row;
  cw->w.ctx = cw;
  opt->watch = &cw->w;
  return cw;
}

/* Sample rate: 1 / the median of the first 1000 steps, outside 5 Hz..100 kHz
 * a warning (time in ms, in samples, or another unit). 1 if warned. */
static int warn_rate(const cliArgs* c, const char* path, scanAcc* a) {
  qsort(a->dts, (size_t)a->ndt, sizeof a->dts[0], dy_cmp_double);
  double fs = a->ndt ? 1 / a->dts[a->ndt / 2] : 0;
  const char* ts = cli_opt(c, "time-scale");
  if (!(a->ndt && (fs < 5 || fs > 1e5))) return 0;
  fprintf(pending(), "dynid: warning: %s: sample rate %.4g Hz (median time step %.4g s%s): is the time column "
          "in %s? --time-scale K makes t = K x column%s (or name its unit in the header: t [ms])\n", path, fs, a->dts[a->ndt / 2], ts ? ", after --time-scale" : "",
          fs < 5 ? "milliseconds or in samples" : "another unit", fs < 5 ? " (0.001 for ms or a 1 kHz index)" : "");
  question("%s: sample rate %.4g Hz: time in other units? (--time-scale)", path, fs);
  return 1;
}

/* Positions, the first joint found only: beyond the model's limits by
 * more than 10 % of the range (degrees when beyond 2 pi on a revolute
 * joint, else the wrong arm; mm on a prismatic one), or a revolute joint
 * spanning more than 2 pi per second of data (at least 2 pi). 1 if
 * warned. */
static int warn_positions(const dyModel* m, const char* path, const scanAcc* a) {
  double T = a->tprev - a->t0;
  for (int j = 0; j < m->n; j++) {
    double lo = m->jnt_qmin ? m->jnt_qmin[j] : -INFINITY, hi = m->jnt_qmax ? m->jnt_qmax[j] : INFINITY;
    int rev = m->jnt_type[j] == DY_REVOLUTE;
    const char* u = rev ? "rad" : "m";
    if (isfinite(lo) && isfinite(hi) && hi > lo) {
      double tol = 0.1 * (hi - lo);
      int below = a->qlo[j] < lo - tol, above = a->qhi[j] > hi + tol;
      if (below || above) {
        fprintf(pending(), "dynid: warning: %s:%ld: q%d = %.4g %s is outside the model's limits [%.4g, %.4g] %s "
                "by more than 10 %%: %s\n", path, above ? a->qhi_line[j] : a->qlo_line[j], j + 1,
                above ? a->qhi[j] : a->qlo[j], u, lo, hi, u,
                fmax(fabs(a->qlo[j]), fabs(a->qhi[j])) <= 2 * M_PI && rev
                    ? "is the model that of the arm that made the log?"
                    : rev ? "positions in degrees? dynid reads radians (multiply the columns by pi/180, or name their unit in the header: q1 [deg])"
                          : "positions in mm? dynid reads metres");
        question("%s: q%d outside the model's joint limits: %s", path, j + 1,
                 fmax(fabs(a->qlo[j]), fabs(a->qhi[j])) <= 2 * M_PI && rev ? "the model of another arm?"
                 : rev ? "positions in degrees?" : "positions in mm?");
        return 1;
      }
    }
    if (rev && a->qhi[j] - a->qlo[j] > 2 * M_PI * fmax(T, 1)) {
      fprintf(pending(), "dynid: warning: %s: q%d spans %.4g rad in %.3g s of data (more than a turn per second): "
              "positions in degrees? dynid reads radians (multiply the columns by pi/180, or name their unit in the header: q1 [deg])\n", path, j + 1,
              a->qhi[j] - a->qlo[j], T);
      question("%s: q%d turns more than once a second: positions in degrees?", path, j + 1);
      return 1;
    }
  }
  return 0;
}

/* Torque: its RMS over the thinned rows against the RMS of the model's
 * gravity torque along the same positions; more than 10x away either way
 * (with over 10 rows and a gravity RMS above 1e-3) is a warning (mN m,
 * motor currents). 1 if warned. */
static int warn_torque(const dyModel* m, const char* path, const scanAcc* a) {
  int n = m->n;
  double tt2 = 0, gg2 = 0;   /* squared torque and nominal torque (g + h) over the thinned rows, all joints */
  for (int j = 0; j < n; j++) { tt2 += a->stt[j]; gg2 += a->sgg[j] + 2 * a->sgh[j] + a->shh[j]; }
  if (!(a->ng > 10 && gg2 > 0)) return 0;
  double rt = sqrt(tt2 / (double)(a->ng * n)), rg = sqrt(gg2 / (double)(a->ng * n));
  if (!(rg > 1e-3 && (rt > 10 * rg || rt < 0.1 * rg))) return 0;
  fprintf(pending(), "dynid: warning: %s: torque RMS %.4g is %.3gx the model's torque RMS %.4g N m "
          "along the log: torque in other units (mN m?) or motor currents? --gain K1,...,Kn scales the "
          "torque columns (or name their unit in the header: tau1 [mNm])\n", path, rt, rt / rg, rg);
  question("%s: torque %.3gx the model's torque: other units or currents? (--gain)", path, rt / rg);
  return 1;
}

/* Joint j's measured torque t against a g + b h (least squares through
 * the origin): the slope a, the correlation of t with g once h is taken
 * out of both (partial, about the means) and rho, the variance of g over
 * that of t so taken out; with h too small or too close to g to tell
 * apart, t against g alone */
static void gravity_fit(const scanAcc* a, int j, double* slope, double* corr, double* rho) {
  const double N = a->ng, mg = a->sg[j] / N, mh = a->sh[j] / N, mt = a->st[j] / N;
  const double cgg = a->sgg[j] / N - mg * mg, chh = a->shh[j] / N - mh * mh, ctt = a->stt[j] / N - mt * mt;
  const double cgh = a->sgh[j] / N - mg * mh, cgt = a->sgt[j] / N - mg * mt, cht = a->sht[j] / N - mh * mt;
  const double det = a->sgg[j] * a->shh[j] - a->sgh[j] * a->sgh[j];
  const int with_h = chh > 1e-12 * (cgg + ctt) && det > 1e-6 * a->sgg[j] * a->shh[j];
  *slope = with_h ? (a->sgt[j] * a->shh[j] - a->sht[j] * a->sgh[j]) / det : a->sgt[j] / a->sgg[j];
  const double rgt = with_h ? cgt - cht * cgh / chh : cgt, rgg = with_h ? cgg - cgh * cgh / chh : cgg;
  const double rtt = with_h ? ctt - cht * cht / chh : ctt;
  *corr = rgg > 0 && rtt > 0 ? rgt / sqrt(rgg * rtt) : 0;
  *rho = rgg > 0 && rtt > 0 ? rgg / rtt : 0;
}

/* The model against the log: on every joint whose nominal gravity torque
 * matters (RMS over the thinned rows at least 10 % of the largest joint's
 * and 0.5 N m|N), the measured torque must follow it (gravity_fit): the
 * slope a within [0.6, 1.67], and the correlation at least 0.7 or, where
 * g moves little beside the torque's other parts, at least 0.6 a sqrt(rho)
 * (a right model's is about a sqrt(rho)). Measured on the shipped logs
 * with their own models: slopes 0.86 to 1.16, correlations 0.969 and
 * above; crossed with the other arms' models: a slope of 0.58, 2.2, 2.7 or
 * -1.9 on some joint; a 5 kHz motor-side log of fast moves on its model:
 * slopes 0.85 to 1.1, correlations 0.08 to 0.52 at rho 0.03 to 0.3. The
 * joints that fail, with their numbers, in one warning. 1 if warned. */
static int warn_gravity(const dyModel* m, const char* path, const scanAcc* a) {
  if (a->ng <= 10) return 0;
  const int n = m->n;
  double grms[DY_MAXJ], top = 0;
  for (int j = 0; j < n; j++) { grms[j] = sqrt(a->sgg[j] / a->ng); top = fmax(top, grms[j]); }
  char list[600] = "";
  size_t L = 0;
  int bad = 0, scaled = 0, close_ = 0;   /* scaled: joints that follow g, off by a factor; close_: closely */
  double smin = INFINITY, smax = 0;
  for (int j = 0; j < n; j++) {
    if (!(grms[j] >= 0.1 * top && grms[j] >= 0.5)) continue;
    double slope, corr, rho;
    gravity_fit(a, j, &slope, &corr, &rho);
    if (slope >= 0.6 && slope <= 1 / 0.6 && (corr >= 0.7 || corr >= 0.6 * slope * sqrt(fmin(rho, 1)))) continue;
    bad++;
    if (corr >= 0.5 && slope > 0) { scaled++; smin = fmin(smin, slope); smax = fmax(smax, slope); }
    close_ += corr >= 0.9;
    if (L + 80 < sizeof list)
      L += (size_t)snprintf(list + L, sizeof list - L, "%sjoint %d (slope %.3g, correlation %.2f)", L ? ", " : "", j + 1,
                            slope, corr);
  }
  if (!bad) return 0;
  char scale[320] = "";
  /* two joints or more, each a factor off the same way (within 2x of each other), one of them closely: the
   * torque's units or missing gains rather than another arm (whose joints are off each its own way) */
  const int units = bad >= 2 && scaled == bad && close_ && smax <= 2 * smin && (smax < 0.6 || smin > 1 / 0.6);
  if (units)
    snprintf(scale, sizeof scale, "; it follows it, %.3g to %.3g times: the torque in other units or motor "
             "currents? (--gain of the order of %.2g N m per logged unit; the slope holds the dynamics too, so "
             "identify --estimate-gains for the gains themselves)", smin, smax, 1 / sqrt(smin * smax));
  fprintf(pending(), "dynid: warning: %s: the measured torque does not follow the gravity torque of %s at %s "
          "(expected: slope about 1, correlation near 1)%s: is it the model of the arm that made the log? (else "
          "the torque's sign, units or --gain)\n", path, m->source, list, scale);
  question("%s: the torque does not follow %s's gravity torque at %d joint%s: %s", path, m->source,
           bad, bad == 1 ? "" : "s", units ? "other units or currents? (--gain)" : "another arm's model?");
  return 1;
}

/* The gate's findings (quality.h), one line each with the lines where it
 * starts and ends; a finding of one kind on several columns is one line
 * naming the other columns. */
static int print_findings(dyiQuality* q, const char* path) {
  int lines = 0;
  dyi_quality_finish(q);
  int nf = dyi_quality_count(q);
  for (int i = 0; i < nf; i++) {
    const dyiFinding* f = dyi_quality_get(q, i);
    if (i && dyi_quality_get(q, i - 1)->kind == f->kind && f->col > 0) continue;   /* listed below */
    char also[200] = "";
    for (int k = i + 1; k < nf && dyi_quality_get(q, k)->kind == f->kind && f->col > 0; k++) {
      const dyiFinding* g = dyi_quality_get(q, k);
      size_t al = strlen(also);
      snprintf(also + al, sizeof also - al, "%s%.*s", al ? ", " : "; the same for ", (int)strcspn(g->what, " "), g->what);
    }
    char where[48] = "";
    if (f->first_line > 0 && f->last_line > f->first_line)
      snprintf(where, sizeof where, ":%ld..%ld", f->first_line, f->last_line);
    else if (f->first_line > 0) snprintf(where, sizeof where, ":%ld", f->first_line);
    int named = f->col > 0 && strncmp(f->verdict, f->what, strcspn(f->what, " "));
    fprintf(pending(), "dynid: warning: %s%s: data: %s%s%s (%ld row%s)%s\n", path, where, named ? f->what : "",
            named ? ": " : "", f->verdict, f->count, f->count == 1 ? "" : "s", also);
    int vl = (int)strcspn(f->verdict, ":(");
    while (vl > 0 && f->verdict[vl - 1] == ' ') vl--;
    question("%s: data: %s%s%.*s%s", path, named ? f->what : "", named ? ": " : "", vl, f->verdict,
             also[0] ? " (and other columns)" : "");
    lines++;
  }
  return lines;
}

int cli_strict_fail(const char* cmd, int nwarn) {
  cli_flush_warnings(1);
  return cli_fail("%s: --strict: %d warning%s about the log above: nothing written", cmd, nwarn, nwarn == 1 ? "" : "s");
}

/* header (more position columns than joints) -> the pass's rate,
 * positions, torque -> findings */
int cli_watch_end(const cliArgs* c, cliWatch* cw, const char* path, int findings) {
  if (!cw) return 0;
  const dyModel* m = cw->m;
  const int n = m->n;
  int nwarn = 0;
  if (cw->w.nq > n) {
    fprintf(pending(), "dynid: warning: %s: the model has %d joint%s, the log has %d position columns (q1..q%d): "
            "is %s the model of this arm? (--map picks other columns)\n", path, n, n == 1 ? "" : "s", cw->w.nq,
            cw->w.qmax, m->source);
    question("%s: %d position columns for a %d-joint model: another arm's log?", path, cw->w.nq, n);
    nwarn++;
  }
  if (cw->w.complete && cw->a.rows >= 2) {
    nwarn += warn_rate(c, path, &cw->a);
    nwarn += warn_positions(m, path, &cw->a);
    const int warned_torque = warn_torque(m, path, &cw->a);
    nwarn += warned_torque;
    if (!warned_torque) nwarn += warn_gravity(m, path, &cw->a);
    if (findings && cw->w.quality) nwarn += print_findings(cw->w.quality, path);
  }
  return nwarn;
}

void cli_watch_no_gravity(cliWatch* cw) {
  if (cw) cw->gravity = 0;
}

void cli_watch_free(cliWatch* cw) {
  if (!cw) return;
  dyi_log_watch_free(&cw->w);
  dy_free_data(cw->d);
  free(cw);
}

/* Identified base parameters far from the nominal model's K pi_nom: more
 * than 5x the nominal value (or 5 % of the parameter's scale where the
 * nominal is about zero) away, and more than 10 std away. A wrong model,
 * wrong units or gains give many of them; one warning line lists them.
 * Only when the model has nominal masses. Returns the number flagged. */
int cli_nominal_outliers(const dyModel* m, const dyiBase* b, const dyiEstim* e, const double* beta) {
  double mass = 0;
  for (int j = 0; j < m->n; j++) mass += fabs(m->par[DY_NPAR_LINK*j + DY_M]);
  if (!(mass > 0)) return 0;
  const int p = e->p, np = b->npar, nl = DY_NPAR_LINK * m->n;
  const double yy = dyi_est_yy(e);   /* of the weighted rows, as the columns' below */
  int nbad = 0;
  char list[900] = "";
  size_t L = 0;
  for (int k = 0; k < p; k++) {
    double nom = 0;
    int joint_only = 1;
    for (int c = 0; c < np; c++) {
      nom += b->B[(size_t)k*np + c] * m->par[c];
      if (c < nl && b->B[(size_t)k*np + c] != 0) joint_only = 0;
    }
    if (joint_only && !m->has_friction) continue;   /* no nominal friction to compare with */
    double ak = dyi_est_colsq(e, k);
    double scale = ak > 0 ? sqrt(yy / ak) : INFINITY, d = fabs(beta[k] - nom);
    if (!(d > 5 * fmax(fabs(nom), 0.05 * scale) && d > 10 * e->std[k])) continue;
    nbad++;
    char one[128];
    snprintf(one, sizeof one, "%s%s = %.4g (nominal %.4g)", L ? ", " : "", b->name[k], beta[k], nom);
    if (L + strlen(one) + 8 < sizeof list) L += (size_t)snprintf(list + L, sizeof list - L, "%s", one);
    else if (!strstr(list, "...")) L += (size_t)snprintf(list + L, sizeof list - L, ", ...");
  }
  if (nbad)
    fprintf(stderr, "dynid: warning: %d of %d base parameters are far from the nominal model's (more "
            "than 5x, and significant): %s: check the model, the torque units and --gain\n", nbad, p, list);
  return nbad;
}
