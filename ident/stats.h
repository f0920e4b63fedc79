/* SPDX-License-Identifier: MIT */
/* dynid ident: mergeable statistics of an identification (`dynid identify
 * ... --save-stats FILE`, merged by `dynid identify MODEL --stats FILES`).
 *
 * The streaming QR reduces any number of equations of joint j to its
 * triangle T_j = [R_j z_j; 0 rho_j] (estimate.h). Triangles of disjoint
 * sets of equations merge exactly by the QR of the stacked triangles
 * (dyi_est_merge_tri), so the statistics of pieces of data, made on any
 * machines in any order, merge into those of all the data. OLS and WLS
 * need nothing else (WLS re-estimates its per-joint weights from the
 * triangles), and neither does the physically consistent estimate; IRLS
 * reweights every row and needs the data.
 *
 * File format (text, version 1; one record per line, fields separated by
 * commas, numbers in %.17g so that every double reads back exactly; '#'
 * lines are comments):
 *
 *     dynid-stats,1
 *     model,PATH                       the model file (information)
 *     fingerprint,HEX16                64-bit FNV-1a of what the regressor depends on
 *     joints,N
 *     set,khalil|lin|qr
 *     friction,off | ia fv fc fo       (the kinds identified)
 *     options,TEXT                     every option that changes the rows
 *     base,NB
 *     param,C,NAME                     NB lines: the base parameters, C = 1..NB
 *     P,K,C,VALUE                      non-zeros of P (Y_b = Y P), K = 1..npar
 *     var_factor,VALUE                 white-equivalent noise factor of the rows
 *     logs,COUNT,ROWS_READ,ROWS_DROPPED,FILES   logs and statistics files behind it
 *     log,ROWS_READ,ROWS_DROPPED,FS,FC,DECIM,PATH   one per log (information;
 *                                      PATH takes the rest of the line)
 *     samples,COUNT                    samples (decimated rows) folded in
 *     joint,J,ROWS,NP,YY,RSS           equations, columns, ||y_j||^2 and rho_j^2
 *     cols,J,C1,...,CNP                its base-parameter columns (1-based)
 *     T,J,R,VALUES                     row R (1..NP+1) of T_j from column R on
 *     end
 *
 * Every joint has its joint, cols and NP+1 T lines, in order. The reader
 * checks the structure, every number (finite, in range), that YY and RSS
 * agree with the triangle (1e-9), and that the file ends with `end`;
 * errors are "FILE:ROW:COL: what is wrong". Memory: one line (at most
 * 64 KB) and one triangle. */
#ifndef DYNID_STATS_H
#define DYNID_STATS_H

#include "ident/estimate.h"
#include <stdint.h>
#include <stdio.h>

#define DYI_STATS_VERSION 1

/* What a statistics file says besides its triangles. */
typedef struct {
  char model[256];
  uint64_t fingerprint;
  int n;
  dyiBaseSet set;           /* qr, khalil or lin */
  char friction[32];        /* "off" or the kinds, "ia fv fc fo" */
  char options[512];
  int nb;
  double var_factor;
  long logs, rows_read, rows_dropped, files;
  long samples;
} dyiStatsHead;

/* One log behind the statistics (provenance). */
typedef struct {
  const char* path;
  long rows_read, rows_dropped;
  double fs, fc;
  int decim;
} dyiStatsLog;

/* The model's fingerprint: FNV-1a (64 bit) of the %.17g text of n, the joint
 * types, the modified-DH geometry and gravity: what the regressor depends
 * on (the masses and friction values are not in it: they do not change
 * the statistics). */
uint64_t dyi_model_fingerprint(const dyModel* m);

/* The friction kinds of base set b as text: "off" or e.g. "fv fc fo". */
void dyi_stats_friction_text(const dyiBase* b, char* buf, int bufsz);

/* Write the statistics of estimator e (its unweighted triangles: after
 * dyi_identify* with any method, or merged) for model m and base set b.
 * head supplies options, var_factor, logs, rows_read, rows_dropped, files
 * (the rest is taken from m, b and e); logs[nlog] are listed as provenance.
 * 0, or -1 when writing failed. */
int dyi_stats_write(FILE* f, const dyModel* m, const dyiBase* b, const dyiEstim* e,
                    const dyiStatsHead* head, const dyiStatsLog* logs, int nlog);

/* Read the head of a statistics file (everything before its first joint
 * line) into h. 0, or -1 with err "FILE:ROW:COL: what is wrong". */
int dyi_stats_head(const char* path, dyiStatsHead* h, char* err, int errsz);

/* Read statistics file path and fold its triangles into e (made for base
 * set b of the model whose fingerprint is ref->fingerprint). The file must
 * agree with ref (fingerprint, joints, set, friction, options) and with b
 * (names, P to 1e-9, each joint's columns as e's); its counts are added to
 * acc (samples, logs, rows_read, rows_dropped, files; var_factor: the
 * largest). 0, or -1 with err set. */
int dyi_stats_merge_file(const char* path, const dyiStatsHead* ref, const dyiBase* b, dyiEstim* e,
                         dyiStatsHead* acc, char* err, int errsz);

#endif
