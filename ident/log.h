/* SPDX-License-Identifier: MIT */
/* dynid ident: recorded or simulated logs (README.md, Model tables and files), read
 * streaming, checked, filtered and differentiated.
 *
 * A log has t, q1..qn, optional qd1..qdn, optional qdd1..qddn, tau1..taun
 * (names case-insensitive, --map for others, by position without a header).
 * The reader yields preprocessed samples in time order in bounded memory
 * (independent of the log's length).
 *
 * Sample-major logs (one value per line, as the Panda's original files:
 * line 7k+j is joint j of sample k) are read through a manifest, a CSV
 * whose header is quantity,file,stride:
 *     quantity,file,stride
 *     t,exciting_traj_time.txt.gz,1
 *     q,exciting_traj_positions.txt.gz,7
 *     tau,exciting_traj_torques.txt.gz,7
 * (files relative to the manifest). Its columns are named q1..q7 (NAME1..
 * NAMEstride, NAME alone for stride 1) and --map works on those names; row
 * numbers in messages are sample numbers. A manifest is recognised by its
 * header, so every command that reads a log accepts one.
 *
 * Pipeline (log.c), one row at a time:
 *   CSV row -> cells parsed and checked (quality.h: NaN, Inf, absurd,
 *   truncated, time order; a bad row stops the read or is dropped)
 *   -> gains, then motor side to joint side (has_trans: q = R^-1 q_m, qd,
 *      qdd likewise, tau = R^T tau_m) and q += q_offset: every later stage,
 *      the gate's row checks included, sees joint-side data
 *   -> optional resampling onto a uniform grid (linear interpolation)
 *   -> zero-phase Butterworth low-pass (filter.h) of t, q, the logged qd and
 *      qdd (with no_parallel also the torque; by default the torque is
 *      filtered later, with the regressor columns: parallel filtering)
 *   -> missing derivatives by central differences on the non-uniform grid
 *      of the filtered time (three points t-, t, t+, exact for parabolas)
 *   -> optional decimation (only with no_parallel; else in the row stage),
 *      low-speed flags.
 * Filtering t with the signals matters on jittery logs: the filter averages
 * neighbouring samples, so the filtered q belongs to the filtered time, and
 * differencing against it is consistent (against the raw stamps it is not).
 *
 * Default cutoff: measured on the log itself, in a pre-pass over its raw
 * rows (the rows the read uses; bounded memory, nothing per sample
 * allocated; once per reader, kept across rewinds). The highest
 * derivative the log holds (qdd, else qd, else q) passes through a ladder
 * of zero-phase low-passes f_k = f0 / 4 * sqrt(2)^k up to fs / 5
 * (filter.h dyiBand), each differenced to an acceleration, and each
 * joint's white noise is measured on its fourth differences. The default
 * is the highest candidate where every moving joint's noise, through that
 * low-pass and differenced, is within 1e-4 of its motion's acceleration
 * energy (1 % rms; a log under 512 samples: the knee of the energies,
 * raised while within 1 %): fc = clamp(that, f0, fs / 5), with
 * f0 = min(fs / 20, 10 Hz), the cutoff used before (fs the median sample
 * rate of the first 1000 rows); with decimation by D at most
 * 0.8 fs / (2 D). Excitation trajectories for identification live below
 * 1-2 Hz, and real sensors' noise, twice differentiated, rises above that
 * quickly: such logs keep f0 (Panda 1 kHz, Kinova Gen3 1 kHz: 10 Hz
 * kept). Where the noise stays low (the
 * KUKA's logged accelerations, simulated logs, fast moves on a kHz
 * encoder) the cutoff rises with the motion's band, so fast motions are
 * not over-smoothed and the rows are decimated less (KUKA 200 Hz: 40 Hz;
 * its held-out error 2.36 % -> 2.32 %). Measured on the Panda log before
 * (whole log, OLS, friction): relative error 1.15 % at 10 Hz against
 * 2.6 % at 20 Hz and 7.2 % at fs/20 = 51 Hz, where twice-differentiated
 * noise dominates. */
#ifndef DYNID_LOG_H
#define DYNID_LOG_H

#include "core/model.h"
#include "ident/quality.h"

#define DY_LOG_MAXMAP 64

typedef struct {
  int no_header;                    /* columns named c1, c2, ... by position */
  int nmap;                         /* --map NAME=COLUMN entries */
  char map_name[DY_LOG_MAXMAP][32]; /* quantity: t, q3, tau7, ... */
  char map_col[DY_LOG_MAXMAP][64];  /* column header (or cK) */
  int has_gain;                     /* --gain given */
  double gain[DY_MAXJ];             /* tau_j = gain_j * column (n) */
  long row_first, row_last;         /* --rows A..B, 1-based data rows; 0: all */
  double cutoff_hz;                 /* low-pass cutoff [Hz]; 0: default, measured
                                       on the log (above); < 0: no filtering */
  int on_bad;                       /* 0: stop at bad rows, 1: drop them */
  int filter_tau;                   /* 1: torque filtered like q (decimation) */
  /* additions (0 keeps the default behaviour) */
  double time_scale;                /* t = time_scale * column (0: 1); e.g.
                                       0.001 for a column in ms or a 1 kHz
                                       sample index */
  int order;                        /* Butterworth order (0: 4) */
  int decimate;                     /* keep every D-th filtered sample (0, 1: all) */
  double resample_hz;               /* > 0: resample onto t0 + k / resample_hz */
  double qd_min;                    /* > 0: flag |qd_j| < qd_min in dyiSample.slow */
  double absurd;                    /* |cell| above this is absurd (0: 1e6) */
  double taumax[DY_MAXJ];           /* torque limits for the gate (0: none) */
  int drop_stale;                   /* 1: drop rows repeating the previous row's
                                       q, qd, tau (a logger sampling twice) */
  int derive;                       /* ignore logged derivatives: 1 qdd, 2 qd
                                       and qdd (computed from q / qd instead) */
  int no_parallel;                  /* 1: the torque filtered with q (filter_tau)
                                       and decimate applied here, as before
                                       parallel filtering; 0 (default): see below */
  int has_trans;                    /* 1: the q, qd, qdd, tau columns are a motor's
                                       (--transmission): mapped to the joints */
  double trans[DY_MAXJ * DY_MAXJ];  /* R, motor velocity = R qd (n x n row-major,
                                       core/transmission.h): q = R^-1 q_m, same for
                                       qd, qdd; tau = R^T tau_m (tau_m after gain) */
  int has_qoff;                     /* 1: q_offset given (--q-offset) */
  double q_offset[DY_MAXJ];         /* joint position = mapped position + offset
                                       [rad|m] (n) */
  struct dyiLogWatch_* watch;       /* the first pass watched (below); NULL: not */
} dyiLogOpt;

/* A watch on the first complete pass of a reader over its rows: what a
 * program checks of a log (units, rates, the model, the gate's findings)
 * in the same pass that reads it, instead of a pass of its own. Set
 * opt.watch before dyi_log_open (or dyi_lograw_open); the caller owns the
 * watch. row(ctx, row) sees every row that passed the gate, in order, on
 * the thread that parses them (dyi_log_readahead); row(ctx, NULL) says
 * that a pass starts again before the first was complete (forget the rows
 * so far). At the end of the first complete pass, complete = 1 and
 * quality holds the gate's findings, valid after the reader is closed
 * (dyi_log_watch_free releases them). nq: the header's columns named qK
 * (K >= 1), qmax the largest K (with a header; else 0). */
typedef struct dyiLogWatch_ {
  void (*row)(void* ctx, const dyiLogRow* row);
  void* ctx;
  int nq, qmax;
  int complete;
  dyiQuality* quality;
  int own;                          /* 1: quality is the watch's to free */
} dyiLogWatch;
void dyi_log_watch_free(dyiLogWatch* w);
/* Of a header's column names: how many are named qK (K >= 1, blanks around
 * allowed: the position columns by default) and the largest K. */
void dyi_log_qcols(char* const* names, int nf, int* nq, int* qmax);

/* Parallel filtering (the default, no_parallel = 0): the reader yields every
 * sample, with tau = tau_raw (the torque is not filtered with the signals);
 * identification (dyi_identify, cross-validation) low-passes the torque and
 * every regressor column with one zero-phase FIR and decimates them
 * (filter.h dyiFir), with the decimation D (decimate, or by default
 * floor(fs / (2.5 fc)) with the signals' cutoff fc) and the stopband edge
 * fs / (2 D) given by dyi_log_info. With cutoff none and no decimate
 * nothing is filtered. */

typedef struct {
  long row;                         /* data row in the file (1-based) */
  double t;                         /* time [s] */
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];  /* preprocessed state */
  double tau[DY_MAXJ];              /* torque [N m|N] (gains applied) */
  double tau_raw[DY_MAXJ];          /* torque as logged times gains, unfiltered */
  unsigned char slow[DY_MAXJ];      /* 1: |qd_j| < opt.qd_min (Coulomb friction
                                       ill-defined: skip joint j's equation) */
} dyiSample;

/* Default options: header, no map, unit gains, all rows, default cutoff,
 * parallel filtering of torque and regressor (no_parallel = 0; with
 * no_parallel the torque is filtered with q: filter_tau = 1), stop at bad
 * rows. */
void dyi_log_defaults(dyiLogOpt* opt);

typedef struct dyiLogReader_ dyiLogReader;

/* Open a log for an n-joint model. NULL with err set. */
dyiLogReader* dyi_log_open(const char* path, int n, const dyiLogOpt* opt,
                          char* err, int errsz);
/* Next preprocessed sample: 1, 0 at the end, -1 on error (err set). */
int dyi_log_next(dyiLogReader* r, dyiSample* s, char* err, int errsz);
/* Start again from the first sample (a second pass, e.g. for WLS). 0 / -1. */
int dyi_log_rewind(dyiLogReader* r, char* err, int errsz);
void dyi_log_close(dyiLogReader* r);

/* Bytes of the file consumed so far and its size (0 if unknown), for a
 * progress line printed by the program layer. */
void dyi_log_progress(const dyiLogReader* r, long long* done, long long* total);
/* Read ahead: from now on the CSV rows are parsed and checked on a thread
 * of its own (dyi_lograw_readahead), the rest of the preprocessing stays
 * on the caller's. Until the log's last sample (or an error) has been
 * taken, call only dyi_log_next and dyi_log_progress on r. 0, or -1 (no
 * thread: the log is read as before). */
int dyi_log_readahead(dyiLogReader* r);

/* What the reader decided: sample rate estimate fs [Hz] (median of the first
 * 1000 steps), cutoff fc [Hz] (0: no filtering), filter margin [samples],
 * logged derivatives (bit 0: qd, bit 1: qdd). */
typedef struct {
  double fs, fc;
  int fc_measured;                  /* 1: fc is the default measured on the log
                                       (0: --cutoff, or none) */
  int margin, order, logged;
  long rows_read;                   /* data rows accepted so far */
  char units[96];                   /* the header's units that were applied
                                       ("q in deg, t in ms"), or "" */
  long rows_dropped;                /* bad rows skipped (on_bad drop) */
  long samples;                     /* samples returned so far */
  int parallel;                     /* 1: rows are to be filtered in parallel */
  int decim;                        /* parallel: the rows' decimation D (>= 1) */
  double fstop;                     /* parallel: the rows' FIR stopband edge [Hz]
                                       (0: no filter, plain decimation) */
  int guard;                        /* parallel: samples to leave out at each end
                                       (the signals' filter's edge transient) */
  int held;                         /* 1: every row is held in memory since the
                                       cutoff's pre-pass (reading parses nothing) */
} dyiLogInfo;
void dyi_log_info(const dyiLogReader* r, dyiLogInfo* info);

/* The data-quality findings collected on the rows read so far (complete
 * after the last sample), owned by the reader. See quality.h. */
const dyiQuality* dyi_log_quality(const dyiLogReader* r);

/* Scan a whole log for an n-joint model: one streaming pass of the raw
 * rows through the gate, on_bad treated as drop so that every finding is
 * collected (worded as opt->on_bad will make the read behave). NULL with
 * err set when the file cannot be read at all. The caller frees the
 * findings (dyi_quality_free). */
dyiQuality* dyi_log_scan(const char* path, int n, const dyiLogOpt* opt, char* err, int errsz);

/* Units in a header cell: "q1 [deg]", "t (ms)", "tau3_Nm" (the last form
 * only with a unit dynid knows). 1 with the annotated name in base and the
 * unit in unit (blanks trimmed), 0 when the cell carries none. */
int dyi_unit_split(const char* cell, char* base, size_t bsz, char* unit, size_t usz);
/* The factor k that takes a column of quantity role (DYI_ROLE_T..TAU,
 * quality.h) in unit to SI: t in s, q in rad|m, qd in rad/s|m/s, qdd in
 * rad/s^2|m/s^2, tau in N m|N (deg -> pi/180, ms -> 1e-3, mN m -> 1e-3, ...).
 * 0: known; 2: a current (A, mA) on a torque column (k to A: a gain is
 * still needed); -1: a unit of another quantity (a column mapped to the
 * wrong quantity); 1: a unit dynid does not know (k = 1). */
int dyi_unit_scale(int role, const char* unit, double* k);

/* ----------------------------------------------- raw rows (the gate's view) */

/* The rows as written (dyiLogRow, quality.h: gains and time scale applied,
 * after the cell and time checks), each judged by the gate; used by the
 * reader and by dyi_log_scan. */
typedef struct dyiLogRaw_ dyiLogRaw;
dyiLogRaw* dyi_lograw_open(const char* path, int n, const dyiLogOpt* opt,
                          char* err, int errsz);
/* 1 with a good row, 0 at the end, -1 on error (a bad row with on_bad stop:
 * "FILE:ROW:COL: what"). Bad rows with on_bad drop are skipped and counted. */
int dyi_lograw_next(dyiLogRaw* r, dyiLogRow* row, char* err, int errsz);
/* Parse and check the rows on a thread of their own from now on, two
 * buffers of 4096 rows ahead of dyi_lograw_next (which returns the same
 * rows, end and errors in the same order). Until the end or an error has
 * been returned, call only dyi_lograw_next, _progress and _close (which
 * stops the thread). 0, or -1 (no thread started: rows read as before). */
int dyi_lograw_readahead(dyiLogRaw* r);
/* Parse the rest of a plain (not compressed) CSV log by byte ranges of
 * about `block` bytes on `parsers` threads (at most 3), the rows handed
 * out in file order: the same rows, values, line numbers, end and errors
 * as without (ident/log.c says how). dyi_lograw_readahead calls it with 2
 * parsers and 1 MiB (the cutoff's pre-pass with 3). 0, or -1 where it
 * does not apply (a gzip file, a manifest, blank- or tab-separated cells,
 * under two ranges left) or no thread could start: the rows are then read
 * as before. */
int dyi_lograw_split(dyiLogRaw* r, int parsers, long long block);
/* logged derivatives: bit 0 qd, bit 1 qdd (so 3: both) */
int dyi_lograw_logged(const dyiLogRaw* r);
dyiQuality* dyi_lograw_quality(dyiLogRaw* r);
/* The caller takes ownership of the quality record (close won't free it). */
void dyi_lograw_detach(dyiLogRaw* r);
void dyi_lograw_progress(const dyiLogRaw* r, long long* done, long long* total);
void dyi_lograw_close(dyiLogRaw* r);

#endif
