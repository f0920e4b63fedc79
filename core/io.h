/* dynid core readers and writers: a pull-style CSV row reader on libcsv
 * (plain or gzip-compressed files), strict number parsing with positions,
 * the model loaders (DH table CSV, URDF) and atomic output files.
 *
 * Errors: every function that can fail on input returns non-zero and writes
 * one line "FILE:ROW:COL: what is wrong" (or "FILE: ..." where no position
 * applies) into the caller's buffer err[errsz]. ROW is the 1-based line of
 * the file (the header is line 1), COL the 1-based column.              */
#ifndef DYNID_IO_H
#define DYNID_IO_H

#include <stdio.h>
#include "model.h"

#define DY_ERRSZ 512

/* ---------------------------------------------------------------- CSV */

typedef struct dyCsv_ dyCsv;

/* Open a CSV file (gzip transparently). Lines whose first non-blank
 * character is '#' and blank lines are skipped. NULL on failure (err set). */
dyCsv* dy_csv_open(const char* path, char* err, int errsz);
void dy_csv_close(dyCsv* c);

/* Read the next row. Returns 1 with *nf fields in *fields (NUL-terminated,
 * owned by the reader, valid until the next call), 0 at end of file, -1 on a
 * parse error (err set). */
int dy_csv_next(dyCsv* c, char*** fields, int* nf, char* err, int errsz);

/* Line of the file on which the last row started (1-based). */
long dy_csv_line(const dyCsv* c);

/* The file name given to dy_csv_open. */
const char* dy_csv_path(const dyCsv* c);

/* Bytes consumed so far and file size (for progress); size 0 if unknown. */
void dy_csv_progress(const dyCsv* c, long long* done, long long* size);

/* Column of a header name among fields (case-insensitive, surrounding blanks
 * ignored), 0-based, or -1. */
int dy_csv_find(char** fields, int nf, const char* name);

/* Parse a whole field as a double (leading/trailing blanks allowed).
 * allow_nonfinite = 0 rejects nan/inf. Returns 0, or -1 with err set to
 * "FILE:ROW:COL: ..." using the reader's current row. */
int dy_csv_double(const dyCsv* c, const char* field, int col, int allow_nonfinite,
                  double* out, char* err, int errsz);

/* --------------------------------------------------------- loaders */

typedef struct {
  int classic_dh;        /* --dh: the table is in classic DH, convert */
  const char* base;      /* --base LINK for URDF, NULL: the root */
  const char* tip;       /* --tip LINK for URDF, NULL: the end of the chain */
  int has_gravity;       /* 1: override gravity with gravity[] */
  double gravity[3];     /* --gravity gx,gy,gz in frame 0 [m/s^2] */
  int nlock;             /* --lock JOINT=VALUE (URDF only): number given */
  const char* const* lock_joint;  /* joint names (nlock), owned by the caller */
  const double* lock_q;  /* their positions [rad|m] (nlock) */
} dyLoadOpt;

/* Load a model: *.urdf through dy_load_urdf, anything else as a table.
 * *out is a new model (free with dy_freeModel). 0 or -1 (err set). */
int dy_load_model(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz);

/* Model table CSV (CONVENTIONS.md section 3):
 * joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz[,ia,fv,fc,fo]
 * (optional: qmin,qmax,qdmax,qddmax,taumax, name). Inertia about the centre
 * of mass in frame-j axes; converted to the standard parameters about O_j.
 * With classic_dh the geometry and inertias are converted to modified DH. */
int dy_load_table(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz);

/* URDF (libxml2): the serial chain between opt->base and opt->tip, fixed
 * joints merged, frames converted to modified DH (see urdf.c). Moving
 * joints off the chain that hang from it (or from the base) are locked at 0
 * or at opt->lock_q and their subtrees merged like fixed links, one line per
 * locked joint in m->notes; <dynamics damping friction armature offset> of
 * the chain joints become FV FC IA FO (m->has_friction = 1). */
int dy_load_urdf(const char* path, const dyLoadOpt* opt, dyModel** out,
                 char* err, int errsz);

/* ------------------------------------------------------- output */

/* An output that appears only when complete: written to a temporary file
 * beside the target and renamed on dy_out_commit. path NULL or "-" means
 * standard output (written directly). */
typedef struct {
  FILE* f;
  char path[1024];
  char tmp[1100];
  int is_stdout;
} dyOut;

/* 0 or -1 (err set). */
int dy_out_open(dyOut* o, const char* path, char* err, int errsz);
/* Flush, close and rename into place. 0 or -1 (err set; temp removed). */
int dy_out_commit(dyOut* o, char* err, int errsz);
/* Close and remove the temporary file (a failed command). */
void dy_out_abort(dyOut* o);
/* Remove every still-open temporary output (called from a signal handler
 * on SIGINT/SIGTERM: unlink only). */
void dy_out_abort_all(void);

/* Write a double with 17 significant digits (%.17g), which reads back to
 * the same double; -0 is written as 0. */
void dy_fprint_double(FILE* f, double x);

#endif
