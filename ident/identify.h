/* SPDX-License-Identifier: MIT */
/* dynid ident: identification from logs, the whole pipeline (identify.c).
 *
 * Log (log.h: read, checked, filtered, differentiated) -> per sample the
 * base regressor Y_b = Y P and the torque -> the row stage (one zero-phase
 * FIR low-pass and decimation of the torque and every regressor column
 * together: parallel filtering, log.h) -> the streaming QR least squares
 * of estimate.h (OLS, WLS, IRLS). dyi_identify_logs is the entry point of
 * `dynid identify`; the row stage is also used by cross-validation
 * (verify/validate.h). */
#ifndef DYNID_IDENTIFY_H
#define DYNID_IDENTIFY_H

#include "ident/estimate.h"
#include "ident/filter.h"
#include "ident/log.h"

/* Identify base set b of model m from a log: every sample of the reader
 * (ident/log.h) gives Y_b = Y P (dyi_regressor, then the non-zeros of P:
 * a column selection for the qr and khalil sets), the row stage below
 * filters torque and columns in parallel and decimates them (the reader's
 * dyiLogInfo decides; the covariance is scaled by the filter's variance
 * factor), rows of joints the reader flags as slow are left out, and the
 * rows stream into an estimator made
 * with opt (its mask and names are set here from b: link k's parameters
 * reach joints 1..k, joint k's parameters joint k only). Parameters the
 * set holds (base.h dyi_base_fix: b->fix) leave the torque first,
 * tau - sum_k Y e_k v_k, before the filter. progress, if not
 * NULL, is called with the samples read so far in each pass (pass 1, 2, ...)
 * about every 4096 samples and with final = 1 at the end of a pass.
 * Returns the estimator with its results (free with dyi_est_free), or NULL
 * with err set ("LOG: what is wrong"). */
dyiEstim* dyi_identify(const dyModel* m, const dyiBase* b, dyiLogReader* r, const dyiEstOpt* opt,
                      void (*progress)(long long samples, int pass, int final),
                      char* err, int errsz);

/* Threads (opt->threads = T > 1, OLS and WLS; IRLS reads the data once per
 * pass and runs on the calling thread): the CSV rows are parsed on a thread
 * of their own (dyi_log_readahead), the calling thread preprocesses them
 * (the reader's filters run in time order) into batches of samples while
 * T - 1 workers process the previous batch: one worker runs the one-thread
 * row stage, several work in two stages: (1) the samples split
 * evenly, each worker computes the base regressor of its samples; (2) the
 * joints split by cost (channels to filter, columns to fold), each worker
 * filters and decimates its joints' channels in time order with a row
 * stage of its own and folds them into joint triangles of its own. The
 * triangles are then merged by QR (dyi_est_merge). Every row is filtered
 * exactly as on one thread; only the grouping of rows into QR blocks
 * differs, so the estimate agrees to round-off. */

/* The same from several logs stacked into one estimate (nr readers, read
 * one after the other): each is filtered and differentiated on its own by
 * its reader, and the rows' parallel filter restarts at every file (no
 * filter runs across a file boundary). The rows' variance factor is the
 * largest of the logs' (they differ only for logs of other rates). */
dyiEstim* dyi_identify_logs(const dyModel* m, const dyiBase* b, dyiLogReader* const* r, int nr,
                           const dyiEstOpt* opt, void (*progress)(long long samples, int pass, int final),
                           char* err, int errsz);

/* ---- the row stage of dyi_identify (also used by cross-validation):
 * per sample the base regressor Y_b = Y P and the torque (the sample's tau:
 * unfiltered under parallel filtering, log.h), packed as n torques and the
 * masked (joint, column) entries, then one zero-phase FIR low-pass and
 * decimation for all of them (filter.h dyiDecim; the reader's dyiLogInfo
 * decides it: parallel, decim, fstop, guard; else every sample passes as
 * it is).
 * Rows with a truncated window at the ends of a segment get the weight
 * 1 / sqrt(relative variance); joints flagged slow at the output's centre
 * sample get weight 0. Memory: the FIR's taps and ~2K + guard records. */
typedef struct dyiRows_ dyiRows;
dyiRows* dyi_rows_make(const dyModel* m, const dyiBase* b, char* err, int errsz);
void dyi_rows_free(dyiRows* w);
/* (Re)design the filter for a log (kept when unchanged). 0 or -1. */
int dyi_rows_config(dyiRows* w, const dyiLogInfo* li, char* err, int errsz);
/* The FIR in use and its variance factor (filter.h dyi_fir_var_factor). */
const dyiFir* dyi_rows_fir(const dyiRows* w);
double dyi_rows_var_factor(const dyiRows* w);
/* One sample in. Samples enter the filter DY_BATCH_LANES at a time (the
 * batch regressor); dyi_rows_break sends the rest. Pop every waiting row
 * before each push. Returns 0. */
int dyi_rows_push(dyiRows* w, const dyiSample* s);
/* End of a segment of consecutive samples: file_end 1 at the end of a
 * file (the guard samples at both sides are left out), 0 before a held-out
 * block (filter.h dyi_decim_end). */
void dyi_rows_break(dyiRows* w, int file_end);
/* Next filtered sample as n equations at sample slot `slot` of A (column-
 * major, leading dimension lda, nb columns, zeros outside the mask), y and
 * rw (n each, at slot*n); its centre's data row in *row (NULL: not
 * wanted). 1, or 0 when none is ready. */
int dyi_rows_pop(dyiRows* w, double* A, int lda, int slot, double* y, double* rw, long* row);

/* ---- rows from logs: the one streaming row source of identification and
 * cross-validation. The readers r[0..nr) (kept open by the caller) are
 * read one after the other, each sample through the row stage above (the
 * filter reconfigured per log, never running across a file boundary) into
 * the estimator's rows (estimate.h dyiRowSource). A held-out window
 * [skip0, skip1) of sample indices (counted over all logs from 0 in each
 * pass) is left out, and no filter runs across it either. progress as
 * dyi_identify's. */
typedef struct dyiLogRows_ dyiLogRows;
/* NULL with err set (no log, out of memory, a filter that cannot be made) */
dyiLogRows* dyi_logrows_make(const dyModel* m, const dyiBase* b, dyiLogReader* const* r, int nr,
                             char* err, int errsz);
void dyi_logrows_window(dyiLogRows* s, long skip0, long skip1);
void dyi_logrows_progress(dyiLogRows* s, void (*progress)(long long samples, int pass, int final));
/* The source for dyi_est_run (its rewind rewinds every reader). */
dyiRowSource dyi_logrows_source(dyiLogRows* s);
/* The rows' white-equivalent variance factor: the largest of the logs'
 * (filter.h dyi_fir_var_factor; they differ only for other rates). */
double dyi_logrows_var_factor(const dyiLogRows* s);
/* The final progress call of the current pass. */
void dyi_logrows_end(dyiLogRows* s);
void dyi_logrows_free(dyiLogRows* s);

/* Each base parameter's scale s_k = ||tau|| / ||Y_k|| (as estimate.h
 * dyi_est_scales: INFINITY for a zero column) from the rows the row stage
 * makes of the nlog logs at paths (log options lopt) for set b, without
 * an estimate: on the same logs and options it agrees with dyi_est_scales
 * of dyi_identify_logs's estimator to round-off. scale: b->nb. 0, or -1
 * with err set. */
int dyi_identify_scales(const dyModel* m, const dyiBase* b, const char* const* paths, int nlog,
                        const dyiLogOpt* lopt, double* scale, char* err, int errsz);

#endif
