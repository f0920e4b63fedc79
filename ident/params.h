/* SPDX-License-Identifier: MIT */
/* dynid ident: the PARAMS file (README.md, Model tables and files), written by
 * `dynid identify` and read by --params:
 *     # comment lines: provenance, model, logs, set, method, samples,
 *     #   condition number, residuals (parsed into dyiParams, the header)
 *     #! pi,NAME,VALUE          (optional: 14n lines, one per standard parameter)
 *     name,value,std,rel_std_pct,expression
 * one row per base parameter. Reading rebuilds the base set from the
 * expressions (B from the parsed expressions, P = B^+), so a PARAMS file is
 * self-describing and does not depend on the set that wrote it. The "#! pi"
 * lines, when present, are the standard parameters pi the estimate was
 * solved as (e.g. the physically consistent ones), with B pi = beta: every
 * consumer then uses exactly them instead of a realisation of beta. */
#ifndef DYNID_PARAMS_H
#define DYNID_PARAMS_H

#include "ident/base.h"
#include "core/model.h"

typedef struct {
  dyiBase* base;      /* the set described by the expressions */
  double* value;     /* beta (nb) */
  double* std;       /* standard deviation, NaN if unknown (nb) */
  double* rel_std_pct; /* the file's relative std [%], NaN if not given (nb) */
  double* pi;        /* the standard parameters the file carries (14n), NULL if none */
  char comment[8192];/* the '#' lines at the top, joined (without the #! pi lines
                        and the comment line the writer puts before them) */
  char* path;        /* the file read (owned) */
  /* The header: what the '#' lines at the top say, parsed here once. dynid
   * identify writes them: the provenance every file of the program starts
   * with (reports/cli_prov.c), then its summary (reports/cmd_identify.c);
   * each field below names its line. A field whose line is not there (a
   * file written by hand, by the library, or by an older dynid) has the
   * value in brackets. Fields come from every header line, also those
   * beyond the 8 kB of comment. */
  char model[512];        /* the model file it was identified on, as named on identify's command
                             line: "model: NAME, fingerprint: X" (the provenance), else the
                             summary's "model: NAME" [""] */
  char fingerprint[128];  /* X of that line: the arm's joint count, joint types and a hash of its
                             modified-DH geometry, "7 joints RRRRRRR geometry 5d1c0f3a"
                             (reports/cli_prov.c) [""; a file written before fingerprints] */
  char rows[64];          /* the --rows A..B of identify's command line ("command: ... --rows
                             A..B ..."): the rows of each log it was identified on [""; all] */
  int nlog;               /* the logs it was identified on, as named on identify's command line */
  char** log;             /* ("log: PATH", one line each; nlog paths, owned) [0, NULL] */
  double cutoff;          /* the low-pass cutoff of the (first) log's signals [Hz], 0 when not
                             filtered ("low-pass: 10 Hz (default, measured on the log), ..."
                             or "low-pass: none") [NaN] */
  int cutoff_measured;    /* 1: that cutoff was the default, measured on the log [0] */
  long samples;           /* samples the estimate used, after filtering and decimation (n
                             equations each) ("samples: N") [-1] */
  double cond;            /* condition number of the regressor, SI units, dimensionless (of the
                             weighted regressor with --method wls or irls)
                             ("condition number: X (regressor, SI units; ...") [NaN] */
  int cond_weighted;      /* 1: cond is the weighted regressor's ("(regressor as weighted, ...") */
  double cond_scaled;     /* the same after column scaling ("...; Y after column scaling)") [NaN] */
  double rel_err;         /* training residual of the estimate written, over all joints [%]:
                             100 ||tau - Y_b beta|| / ||tau|| on the filtered training rows
                             ("relative error all joints [%]: E") [NaN] */
  int consistent;         /* 1: the estimate was solved as physically consistent (identify
                             --consistent; its certificate is on "consistent: " lines) [0] */
  double rss_rise;        /* consistent: the rise of its weighted training residual sum of
                             squares over the unconstrained least-squares optimum [%]
                             ("consistent: training residual +R % ...") [NaN] */
  int nbound;             /* consistent: the bounds it was solved within, as the header words
                             them: the "consistent: bounds ..." line and the "consistent: link
                             J: ..." lines (per link: ellipsoid, R_j, mass range, margin; and */
  char** bound;           /* the notes on how each was made), without "consistent: " (nbound
                             lines, owned) [0, NULL] */
  char held[2048];        /* the standard parameters held at a value instead of estimated
                             (identify --fix NAME=VALUE, --drop NAME), "NAME=VALUE, ..." as
                             base.h dyi_base_fix_text writes them (DYI_PARAMS_HELD line);
                             reading the rows applies them to base (dyi_base_fix's b->fix)
                             and dyi_params_realise puts them into pi [""] */
  double* gain;           /* drive gains K_j [N m|N per logged unit] of rows GAIN1..GAINn
                             (identify --estimate-gains; not base parameters), n, NULL if none */
  double* gain_std;       /* their std, NaN where empty (a gain held at its given value), n */
} dyiParams;

/* The header line of the held parameters, written by dyi_params_write
 * after the comment when b holds any: "# " DYI_PARAMS_HELD "FO1=0, M7=2.5" */
#define DYI_PARAMS_HELD "held (not estimated): "

/* Read a PARAMS file for model m. NULL with err ("FILE:ROW:COL: ...") on
 * failure. Rows named GAIN1..GAINn (any case) are drive gains, not base
 * parameters (their expression is empty and ignored): value finite and
 * not zero (negative: the current's sign is the torque's opposite), std
 * empty or a number, each once, all n once one is given; they go to gain
 * and gain_std. "#! pi,NAME,VALUE" lines before the header, in any order, give
 * pi: NAME a parameter of m (dy_parindex), VALUE a finite number; once one
 * is given all 14n are required, each once; B pi must reproduce every value
 * to 1e-9 of max(max_i |value_i|, sum_k |B_ik pi_k|). The '#' header is
 * read in the same pass (comment and the fields above). Free with
 * dyi_params_free. */
dyiParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz);
void dyi_params_free(dyiParams* p);

/* The same in two steps, for a caller that judges the header before the
 * rows are read against a model (e.g. whether the file was identified on
 * this model at all: another model's expressions need not even parse):
 * dyi_params_read_header reads the '#' header alone (path, comment and the
 * fields; base, value, std, rel_std_pct and pi NULL); it fails (NULL, err)
 * only when the file cannot be opened; the header ends at the first row
 * (or at a read error, which the rows then report). dyi_params_read_rows
 * reads the rest of that file for model m into p, as dyi_params_read does:
 * 0, or -1 with err (p keeps its header; free it with dyi_params_free). */
dyiParams* dyi_params_read_header(const char* path, char* err, int errsz);
int dyi_params_read_rows(dyiParams* p, const dyModel* m, char* err, int errsz);

/* The GAIN rows alone, without a model (for --gain PARAMS and the commands
 * that take the gains of their PARAMS): 1 with gain, std (n each; std NaN
 * where empty) filled, 0 when the file has no GAIN row, -1 with err (the
 * file cannot be read, a bad GAIN row, some of the n missing). */
int dyi_params_read_gains(const char* path, int n, double* gain, double* std, char* err, int errsz);

/* The rows GAINj,K_j,std_j,rel_std_pct,(empty expression), j = 1..n, to
 * append after dyi_params_write's rows: std NULL or NaN entries empty (a
 * gain held at a given value). 0, or -1 on a write error. */
int dyi_params_write_gains(FILE* f, int n, const double* gain, const double* std);

/* The standard parameters (14n) of the identified base parameters: the
 * file's own pi when it carries one (copied exactly), else the realisation
 * pi = P beta (joint parameters zero when the set has none); the held
 * parameters (p->held) at their values in either case. Every consumer
 * of a PARAMS file gets its standard parameters here. */
void dyi_params_realise(const dyModel* m, const dyiParams* p, double* par);

/* Write a PARAMS file to f: the comment (each line of it prefixed "# "),
 * with pi (14n, model.h order) one comment line DYI_PARAMS_PI_NOTE and one
 * line "#! pi,NAME,VALUE" per standard parameter (dy_parname), then the
 * header name,value,std,rel_std_pct,expression and one row per base
 * parameter of b: value[i] (nb), std[i] (nb, NULL or NaN entries: empty
 * field, e.g. a parameter held by a bound), rel_std_pct = 100 std /
 * max(|value|, scale[i]) (scale NULL: 100 std / |value|; a consistent
 * estimate gives each combination's physical scale, so that a value at a
 * bound of zero does not read 10^10 %), the expression of dyi_base_expr.
 * Numbers in %.17g. pi NULL: no #! lines.
 * value should be B pi (the reader checks it). 0, or -1 on a write error. */
#include <stdio.h>
#define DYI_PARAMS_PI_NOTE "the physically consistent standard parameters this estimate was solved as " \
  "(model order); validate, report and --params use them"
int dyi_params_write(FILE* f, const dyModel* m, const dyiBase* b, const double* value,
                     const double* std, const char* comment, const double* pi, const double* scale);

#endif
