/* dynid ident: recorded or simulated logs (CONVENTIONS.md section 3), read
 * streaming, checked, filtered and differentiated.
 *
 * A log has t, q1..qn, optional qd1..qdn, optional qdd1..qddn, tau1..taun
 * (names case-insensitive, --map for others, by position without a header).
 * The reader yields preprocessed samples in time order in bounded memory
 * (independent of the log's length). */
#ifndef DYNID_LOG_H
#define DYNID_LOG_H

#include "model.h"

#define DY_LOG_MAXMAP 64

typedef struct {
  int no_header;                    /* columns named c1, c2, ... by position */
  int nmap;                         /* --map NAME=COLUMN entries */
  char map_name[DY_LOG_MAXMAP][32]; /* quantity: t, q3, tau7, ... */
  char map_col[DY_LOG_MAXMAP][64];  /* column header (or cK) */
  int has_gain;                     /* --gain given */
  double gain[DY_MAXJ];             /* tau_j = gain_j * column (n) */
  long row_first, row_last;         /* --rows A..B, 1-based data rows; 0: all */
  double cutoff_hz;                 /* low-pass cutoff [Hz]; 0: default from
                                       the sample rate; < 0: no filtering */
  int on_bad;                       /* 0: stop at bad rows, 1: drop them */
  int filter_tau;                   /* 1: torque filtered like q (decimation) */
} dyLogOpt;

typedef struct {
  long row;                         /* data row in the file (1-based) */
  double t;                         /* time [s] */
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];  /* preprocessed state */
  double tau[DY_MAXJ];              /* torque [N m|N] (gains applied) */
  double tau_raw[DY_MAXJ];          /* torque as logged times gains, unfiltered */
} dySample;

/* Default options: header, no map, unit gains, all rows, default cutoff. */
void dyi_log_defaults(dyLogOpt* opt);

typedef struct dyLogReader_ dyLogReader;

/* Open a log for an n-joint model. NULL with err set. */
dyLogReader* dyi_log_open(const char* path, int n, const dyLogOpt* opt,
                          char* err, int errsz);
/* Next preprocessed sample: 1, 0 at the end, -1 on error (err set). */
int dyi_log_next(dyLogReader* r, dySample* s, char* err, int errsz);
/* Start again from the first sample (a second pass, e.g. for WLS). 0 / -1. */
int dyi_log_rewind(dyLogReader* r, char* err, int errsz);
void dyi_log_close(dyLogReader* r);

#endif
