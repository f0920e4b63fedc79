/* SPDX-License-Identifier: MIT */
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
#include "core/model.h"

#define DY_ERRSZ 512

/* The one formatter of input errors: "PATH:ROW:COL: message" into buf
 * (sz bytes), "PATH:ROW: message" when col <= 0, "PATH: message" when
 * row <= 0 too; the message from fmt as printf. ROW is the 1-based line of
 * the file, COL the 1-based column. */
#include <stddef.h>
void dy_errpos(char* buf, size_t sz, const char* path, long row, int col, const char* fmt, ...)
  __attribute__((format(printf, 6, 7)));

/* ---------------------------------------------------------------- CSV */

typedef struct dyCsv_ dyCsv;

/* Caps of one row (all its lines, for a quoted field spanning several):
 * longer rows or rows with more fields are errors at their line, so the
 * reader's memory stays a few times DY_CSV_MAXROW whatever the file. */
#define DY_CSV_MAXROW (8L << 20)     /* bytes */
#define DY_CSV_MAXCOLS (1 << 17)     /* fields (131072) */

/* Open a CSV file (gzip transparently). Lines whose first non-blank
 * character is '#' and blank lines are skipped. NULL on failure (err set). */
dyCsv* dy_csv_open(const char* path, char* err, int errsz);
void dy_csv_close(dyCsv* c);

/* Read the next row. Returns 1 with *nf fields in *fields (NUL-terminated,
 * owned by the reader, valid until the next call), 0 at end of file, -1 on a
 * parse error (err set). */
int dy_csv_next(dyCsv* c, char*** fields, int* nf, char* err, int errsz);

/* The delimiter, sniffed from the first row that is not a comment (the
 * header): the most frequent of ',' ';' and tab (',' on ties); with none of
 * them, runs of blanks when they separate two or more fields (returned as
 * ' '); else ','. dy_csv_delim: the one the reader uses (',' before the
 * first row). */
char dy_csv_sniff(const char* line);
char dy_csv_delim(const dyCsv* c);

/* For tests: 0 sends every line through libcsv (the default 1 splits plain lines itself, see csvread.c). */
void dy_csv_set_fast(dyCsv* c, int on);
/* For tests: the rows the fast path has returned so far. */
long dy_csv_fast_rows(const dyCsv* c);

/* Line of the file on which the last row started (1-based). */
long dy_csv_line(const dyCsv* c);

/* Byte ranges of a plain (not compressed) file, for parsing one file on
 * several threads (ident/log.c): every reader has a byte position (of the
 * next line) and a count of the physical lines read.
 * dy_csv_seek: go to byte off, a line start, as if lineno lines had been
 * read, libcsv between records, with delimiter delim; 0, or -1 when the
 * file cannot seek there. dy_csv_stop_at(c, off): from then on
 * dy_csv_next returns 2 (no row) instead of reading on once the position
 * is >= off between two records (0: never). dy_csv_plain_file: 1 for a
 * file read as it is (not gzip). dy_csv_next_plain(c, end, ...): the next
 * line before byte end as fields if it is a plain data row (what the fast
 * path of csvread.c splits: no quote, blank, tab or stray CR, delimiter
 * ',' or ';', ending in a newline; not a comment): 1; 0 at end or EOF; 2
 * for any other line (its start is dy_csv_pos before the call) or a read
 * error: the caller leaves that line to dy_csv_next. */
int dy_csv_seek(dyCsv* c, long long off, long lineno, char delim);
void dy_csv_stop_at(dyCsv* c, long long off);
long long dy_csv_pos(const dyCsv* c);
long dy_csv_lines(const dyCsv* c);
int dy_csv_plain_file(const dyCsv* c);
int dy_csv_next_plain(dyCsv* c, long long end, char*** fields, int* nf);
/* dy_csv_next_plain's line as ncol numbers: 1 when dy_csv_next_plain
 * would return 1 with at least ncol fields, each of the first ncol read
 * whole by dy_strtod (core/numparse.h), their values in v; 0 at end or
 * EOF; 2 for any other line (read) or a read error. The common line, ncol
 * numbers and the line end, is read in one pass without splitting it. */
int dy_csv_next_numbers(dyCsv* c, long long end, int ncol, double* v);
/* The same one pass on a line in memory: text[0..len) ending in "\n"
 * (nothing read past it), the file's delimiter delim (',' or ';'). 1 with
 * the first ncol values in v where dy_csv_next_numbers would return 1 for
 * this line in one pass; 0 where it would need the split (the caller then
 * leaves the line to a dyCsv). */
int dy_csv_numbers_line(const char* text, size_t len, char delim, int ncol, double* v);

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
  int has_snap;          /* 1: snap (URDF) is given; 0: the default DY_SNAP_DEFAULT */
  int urdf_trans;        /* --transmission urdf: the URDF's <transmission> elements
                            make the model's transmission (core/transmission.h) */
  double snap;           /* --snap RAD: joint-origin angles within RAD of a multiple of
                            pi/2 become that multiple; 0: off */
} dyLoadOpt;

#define DY_SNAP_DEFAULT 1e-4   /* [rad]: rounded rpy such as 3.1416, 1.5708 */

/* Load a model: *.urdf through dy_load_urdf, anything else as a table.
 * *out is a new model (free with dy_free_model). 0 or -1 (err set). */
int dy_load_model(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz);

/* Model table CSV (README.md, Model tables and files):
 * joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz[,ia,fv,fc,fo]
 * (optional: qmin,qmax,qdmax,qddmax,taumax, name, and all six or none of
 * ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz: the link's bounding ellipsoid
 * in frame j [m] (model.h, link_ell), semi-axes > 0, |values| <= DY_MAXLEN;
 * six empty cells: none; with classic_dh only on links whose alpha_j is a
 * multiple of pi/2, where it is carried exactly into modified frame j).
 * Inertia about the centre
 * of mass in frame-j axes; converted to the standard parameters about O_j.
 * Or the standard form m,mx,my,mz,xx,xy,xz,yy,yz,zz instead of cx..izz: the
 * parameters about O_j as given (any values; a link whose pseudo-inertia
 * is not positive semi-definite gets a note in m->notes).
 * Directive lines before the header (older readers see comments):
 *   #! gravity, gx, gy, gz                        in frame 0 [m/s^2]
 *   #! base, r11,r12,r13,r21,r22,r23,r31,r32,r33, px,py,pz   frame 0 in the
 *                                                 source base frame (base_T)
 *   #! tip, (same twelve numbers)                 frame n -> tip (tip_T)
 * absent: (0,0,-9.81), identity, identity. opt->has_gravity overrides the
 * file's gravity, with a note in m->notes when they differ.
 * With classic_dh the geometry and inertias are converted to modified DH. */
int dy_load_table(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz);

/* Bounding ellipsoids of the links from a bounds file (core/README.md):
 * a CSV file whose header names the columns joint,ell_cx,ell_cy,ell_cz,ell_rx,
 * ell_ry,ell_rz (any order and case, other columns ignored, so a model
 * table written by dynid is one), then one row per listed joint 1..n of m in
 * any order, each at most once: centre (ell_cx, ell_cy, ell_cz) and
 * semi-axes (ell_rx, ell_ry, ell_rz) along frame j's axes [m] (model.h,
 * link_ell), semi-axes > 0, |values| <= DY_MAXLEN; a row with all six cells
 * empty, and a joint not listed, gets 0 0 0 0 0 0 (none). ell has 6 m->n
 * entries, written only on success. 0, or -1 with err set (an unknown or
 * repeated joint, a missing column, a cell that is not a number, a
 * semi-axis <= 0, some of the six cells empty). */
int dy_read_ellipsoids(const char* path, const dyModel* m, double* ell, char* err, int errsz);

/* A callback for the CSV reader: every line whose first non-blank
 * characters are "#!" is handed to fn (text without the line end, 1-based
 * line) instead of being skipped as a comment; a non-zero return makes
 * dy_csv_next return -1 with err as fn set it. Readers that set none see
 * comments, as before. */
typedef int (*dyCsvDirectiveFn)(void* ud, const char* text, long line, char* err, int errsz);
void dy_csv_on_directive(dyCsv* c, dyCsvDirectiveFn fn, void* ud);
/* The same for comment lines (first non-blank character '#'; "#!" lines
 * too when no directive callback takes them): each is handed to fn before
 * it is skipped, e.g. to read a file's '#' header in the same pass as its
 * rows. */
void dy_csv_on_comment(dyCsv* c, dyCsvDirectiveFn fn, void* ud);

/* Physical consistency of one link's standard parameters par10 (model.h
 * order, about O_j): 1 if the pseudo-inertia [tr(J)/2 1 - J, h; h^T, m]
 * (J inertia about O_j, h = m c) is positive semi-definite, its smallest
 * eigenvalue >= -1e-9 times its largest magnitude; else 0. */
int dy_link_consistent(const double par10[10]);

/* 1 if the centre-of-mass columns (m, cx..cz, ixx..izz) of a model table
 * hold par10 as dy_load_table accepts them: m > 0 and the inertia about the
 * centre of mass positive semi-definite to 1e-9 of its trace, or m = 0 with
 * a zero first moment and J_O positive semi-definite; else 0. */
int dy_link_comform(const double par10[10]);

/* URDF (libxml2): the serial chain between opt->base and opt->tip, fixed
 * joints merged, frames converted to modified DH (see urdf.c). Moving
 * joints off the chain that hang from it (or from the base) are locked at 0
 * or at opt->lock_q and their subtrees merged like fixed links, one line per
 * locked joint in m->notes; <dynamics damping friction armature offset> of
 * the chain joints become FV FC IA FO (m->has_friction = 1); the
 * <collision> (else <visual>) box, cylinder and sphere primitives of each
 * body give its bounding ellipsoid m->link_ell, with one line in m->notes
 * (urdf.c). */
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
  char* buf;        /* f's buffer (NULL: stdio's own), freed when f is closed */
} dyOut;

/* 0 or -1 (err set). A file (not standard output, not markup: .html,
 * .urdf, .xml, .svg) starts with the lines of the prelude, if one is set,
 * each as a '#' line. */
int dy_out_open(dyOut* o, const char* path, char* err, int errsz);
/* The text (lines separated by '\n', NULL: none) every file opened after
 * this starts with; kept by pointer. The dynid program sets its
 * provenance: version, command line, model fingerprint, inputs. */
void dy_out_prelude(const char* text);
/* Flush, close and rename into place. 0 or -1 (err set; temp removed). */
int dy_out_commit(dyOut* o, char* err, int errsz);
/* Called after every file (not standard output) dy_out_commit puts into
 * place, with its path and size [bytes] (NULL: none, the default: the
 * library prints nothing). The dynid program names each file it wrote. */
void dy_out_on_commit(void (*fn)(const char* path, long long bytes));
/* Close and remove the temporary file (a failed command). */
void dy_out_abort(dyOut* o);
/* Remove every still-open temporary output (called from a signal handler
 * on SIGINT/SIGTERM: unlink only). */
void dy_out_abort_all(void);

/* ------------------------------------------------------- model writers */

/* Write model m with the full parameters par (14n: link parameters about
 * O_j as in model.h, then IA FV FC FO per joint; par may be m->par) as a
 * model table to f: the lines of comment (separated by '\n', may be NULL)
 * as '#' lines, then a line saying so if the parameters are not physically
 * consistent, m->notes as '#' lines, informative '#' lines, the #!
 * directives gravity, base and tip, the header and one row per joint, every
 * number in %.17g. Centre-of-mass columns when every link is
 * dy_link_comform (and the conversion keeps the parameters to 1e-13 of the
 * link's largest), else the standard form m,mx,my,mz,xx..zz. Friction
 * columns when m->has_friction or a joint parameter in par is non-zero;
 * limit columns when a limit is finite; the bounding-ellipsoid columns
 * ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz (after the limits, before name)
 * when a link has one (m->link_ell), six empty cells for a link without.
 * 0, or -1 with err set (also for an ellipsoid dy_ell_bad refuses). */
int dy_write_table(FILE* f, const dyModel* m, const double* par, const char* comment,
                   char* err, int errsz);

/* The same as a URDF generated from the modified-DH model: root link
 * "world", fixed joint to link "base" (the source base frame), turned so
 * that the URDF gravity (0,0,-9.81) in world is m->gravity in frame 0;
 * links link1..linkn (DH frames, <inertial> at the centre of mass, rpy 0,
 * inertia about it in frame-j axes), joints with origin = the DH transform
 * at q = 0 (joint 1: base_T times it), axis 0 0 1, <limit>, <dynamics
 * damping=FV friction=FC armature=IA offset=FO> when there is friction, and a
 * fixed joint to link "tip" (tip_T); a link's bounding ellipsoid as a
 * <collision> box centred at its centre, half-extents semi-axes / sqrt(3),
 * which dy_load_urdf reads back to the ellipsoid (semi-axes below its
 * 1 mm floor come back as 1 mm). Joint names from m->jnt_name (unique;
 * "jointJ" otherwise). comment and m->notes go into an XML comment at the top.
 * A transmission (m->has_trans) as ros_control <transmission> elements
 * (actuators motorK): a row with only its diagonal entry a
 * SimpleTransmission, two rows that turn their two joints only a
 * FourBarLinkageTransmission (a triangular 2 x 2 block) or a
 * DifferentialTransmission (r_kk r_ll = -r_lk r_kl), which dy_load_urdf
 * with urdf_trans reads back to R within 1e-15 relative; unit rows need
 * none; other rows (a motor turning three joints) are a loss, as are the
 * coupled motors' IAM FVM FCM.
 * -1 (err set, nothing written) if a link is not a rigid body a URDF can
 * hold (mass < 0, mass 0 with a first moment, or an inertia about the
 * centre of mass that is not positive semi-definite); 1 if written with
 * losses: err then holds them, on one line, also in the XML comment (a
 * gravity whose magnitude is not 9.81 m/s^2: the direction only; zero:
 * 9.81 along -z of the base; transmission rows without a ros_control
 * form, which read back as unit rows; non-zero IAM FVM FCM;
 * gravity not along -z of the base frame: poses read back without --base
 * base are in "world"; acceleration limits); else 0. */
int dy_write_urdf(FILE* f, const dyModel* m, const double* par, const char* comment,
                  char* err, int errsz);

/* By the file name's ending: .urdf (any case) dy_write_urdf, anything else
 * dy_write_table, written atomically through dyOut (a temporary file renamed
 * into place; nothing left behind on failure). path "-" or NULL: standard
 * output, as a table. Returns what the writer returned (0, 1 with the
 * losses in err, or -1 with err set). */
int dy_write_model(const char* path, const dyModel* m, const double* par, const char* comment,
                   char* err, int errsz);

/* Write a double with 17 significant digits (%.17g), which reads back to
 * the same double; -0 is written as 0. */
void dy_fprint_double(FILE* f, double x);
/* x with the fewest significant digits (15, 16 or 17, "%g" style) that
 * read back as the same double: 0.8 rather than 0.80000000000000004.
 * Returns snprintf's count. */
int dy_fmt_shortest(char* buf, size_t sz, double x);

#endif
