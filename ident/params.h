/* SPDX-License-Identifier: MIT */
/* dynid ident: the PARAMS file (README.md, Model tables and files), written by
 * `dynid identify` and read by --params:
 *     # comment lines: model, set, method, samples, condition number
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
} dyiParams;

/* Read a PARAMS file for model m. NULL with err ("FILE:ROW:COL: ...") on
 * failure. "#! pi,NAME,VALUE" lines before the header, in any order, give
 * pi: NAME a parameter of m (dy_parindex), VALUE a finite number; once one
 * is given all 14n are required, each once; B pi must reproduce every value
 * to 1e-9 of max(max_i |value_i|, sum_k |B_ik pi_k|). Free with
 * dyi_params_free. */
dyiParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz);
void dyi_params_free(dyiParams* p);

/* The standard parameters (14n) of the identified base parameters: the
 * file's own pi when it carries one (copied exactly), else the realisation
 * pi = P beta (joint parameters zero when the set has none). Every consumer
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
