/* SPDX-License-Identifier: MIT */
/* dynid ident: the data-quality gate run on a log before estimation.
 *
 * Every finding names its rows (file lines, as an editor shows them), its
 * column and a one-line verdict. Findings on the cells and the time column
 * make a row bad; with on_bad stop (the default) the read ends with
 * "FILE:ROW:COL: what", with on_bad drop the row is skipped and counted.
 * The other findings describe the log as a whole and are for the user and
 * the report (the estimator may refuse on some of them):
 *
 *   DYI_QF_NAN, _INF, _ABSURD (|x| > opt.absurd, 1e6; not the time column,
 *   which may hold epoch seconds), _JUNK (not a number)
 *        in any column; in a column the identification does not use they
 *        are reported but harmless (used = 0) and never drop a row
 *   DYI_QF_TRUNC   a row with fewer cells than the header (bad if it lacks
 *                  a used column)
 *   DYI_QF_TREPEAT, _TBACK  time equal to / before the previous good row's
 *   DYI_QF_GAP     a step longer than 3x the median step (median of the
 *                  first 1000 steps)
 *   DYI_QF_CONST, _ZERO     a used column that never changes / is all zero
 *   DYI_QF_VLAG    logged qd_j delayed against d q_j/dt: the lag lambda
 *                  [samples] is fitted by least squares on
 *                  qd_k - dq/dt_k ~ -lambda (qd_{k+1} - qd_{k-1}) / 2
 *                  (qd_k = v(t_k - lambda h)); reported when |lambda| > 0.2
 *                  and > 5 standard errors, named by the nearest half
 *                  sample ("one sample", "half a sample": a one-sided
 *                  difference)
 *   DYI_QF_VBAD    logged qd_j inconsistent with d q_j/dt even at the fitted
 *                  lag (residual rms > 25 % of rms qd_j)
 *   DYI_QF_TSAT    torque flat at its maximum or minimum for >= 20 samples
 *   DYI_QF_TMAX    |tau_j| beyond the model's effort limit opt.taumax[j]
 *   DYI_QF_STALE   a row repeating every q, qd, tau of the previous one with
 *                  a new time stamp (a logger sampling the robot's state
 *                  twice; such windows are left out of the lag fit)  */
#ifndef DYNID_QUALITY_H
#define DYNID_QUALITY_H

#include <stdio.h>
#include "core/model.h"

enum {
  DYI_QF_NAN = 0, DYI_QF_INF, DYI_QF_ABSURD, DYI_QF_JUNK, DYI_QF_TRUNC,
  DYI_QF_TREPEAT, DYI_QF_TBACK, DYI_QF_GAP, DYI_QF_CONST, DYI_QF_ZERO,
  DYI_QF_VLAG, DYI_QF_VBAD, DYI_QF_TSAT, DYI_QF_TMAX, DYI_QF_STALE, DYI_QF_N
};

#define DYI_QMAXF 256               /* findings kept; more are counted */

typedef struct {
  int kind;                         /* DYI_QF_* */
  int col;                          /* 1-based column of the file, 0: the row */
  char what[48];                    /* column name, e.g. "Position3 (q3)" */
  int used;                         /* 1: the column feeds the identification */
  int bad;                          /* 1: its rows were dropped / stopped the read */
  long count;                       /* rows (or samples) concerned */
  long first_line, last_line;       /* file lines of the first and last */
  double value;                     /* first bad value, lag, level, step ... */
  char verdict[200];                /* one line, ends without a newline */
} dyiFinding;

typedef struct dyiQuality_ dyiQuality;

/* The gate judges the rows it is given; reading them is the log reader's
 * (log.h: dyi_lograw_* feed it, dyi_log_scan runs it over a whole log).
 * Free with dyi_quality_free. */
void dyi_quality_free(dyiQuality* q);

/* Findings: count, i-th (0-based), number of findings of one kind. */
int dyi_quality_count(const dyiQuality* q);
const dyiFinding* dyi_quality_get(const dyiQuality* q, int i);
int dyi_quality_has(const dyiQuality* q, int kind);
/* Rows read / dropped, and the time steps seen (min, median, max) [s]. */
void dyi_quality_stats(const dyiQuality* q, long* rows, long* dropped,
                       double* dt_min, double* dt_median, double* dt_max);
/* Print one line per finding, "FILE: lines A..B (N): verdict", and a
 * closing summary line. */
void dyi_quality_print(FILE* f, const dyiQuality* q);
/* Short name of a kind ("nan", "lag", ...). */
const char* dyi_quality_kind(int kind);

/* ------------------------------------ fed by the raw reader (log.c) */

/* A log row as written (gains and time scale applied), after the cell and
 * time checks: what the raw reader yields and the gate judges. */
typedef struct {
  long row, line;                   /* data row (1-based), file line */
  double t;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
} dyiLogRow;

/* Column roles: 0 unused, 1 t, 2 q, 3 qd, 4 qdd, 5 tau; joint 0-based. */
enum { DYI_ROLE_NONE = 0, DYI_ROLE_T, DYI_ROLE_Q, DYI_ROLE_QD, DYI_ROLE_QDD, DYI_ROLE_TAU };
/* A role's quantity as the conventions name its columns: "t", "q", "qd",
 * "qdd", "tau" ("" for none or out of range). */
const char* dyi_role_name(int role);

/* A gate for ncol columns (names, role and joint of each) of an n-joint
 * log: |cell| above absurd (0: 1e6) is absurd; on_bad 0: bad rows stop
 * the read, 1: they are dropped (how the findings are worded); taumax[n]:
 * the torque limits (0: none). NULL when out of memory. */
dyiQuality* dyi_quality_make(const char* path, int ncol, char** names, const int* role,
                            const int* joint, int n, double absurd, int on_bad,
                            const double* taumax);
/* Change how bad rows are worded (on_bad as for dyi_quality_make): a scan
 * collects with on_bad 1 and reports as the read will behave. */
void dyi_quality_on_bad(dyiQuality* q, int on_bad);
/* Parse and check the cells of one row into vals[ncol] (NaN where absent).
 * 0 good, 1 bad (err set to "FILE:LINE:COL: what"). */
/* For rows parsed elsewhere (ident/log.c, a file split across threads):
 * the absurd-value threshold the gate applies, and the count of one row
 * whose cells all passed the checks dyi_quality_cells makes (parsed whole,
 * finite, not absurd): exactly what dyi_quality_cells records for it. */
double dyi_quality_absurd(const dyiQuality* q);
void dyi_quality_clean_row(dyiQuality* q);
int dyi_quality_cells(dyiQuality* q, long line, char** fields, int nf, double* vals,
                      char* err, int errsz);
/* Check the time of a row against the last good one. 0 good, 1 bad. */
int dyi_quality_time(dyiQuality* q, long line, double t, int col, char* err, int errsz);
/* A good row: statistics for the whole-log findings. Returns 1 when the
 * row is stale (repeats the previous row's values), else 0. */
int dyi_quality_row(dyiQuality* q, const dyiLogRow* r);
/* A bad row was dropped. */
void dyi_quality_dropped(dyiQuality* q);
/* End of the log: turn the statistics into findings (idempotent). */
void dyi_quality_finish(dyiQuality* q);

#endif
