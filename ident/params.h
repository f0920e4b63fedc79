/* dynid ident: the PARAMS file (README.md, Model tables and Files), written by
 * `dynid identify` and read by --params:
 *     # comment lines: model, set, method, samples, condition number
 *     name,value,std,rel_std_pct,expression
 * one row per base parameter. Reading rebuilds the base set from the
 * expressions (B from the parsed expressions, P = B^+), so a PARAMS file is
 * self-describing and does not depend on the set that wrote it. */
#ifndef DYNID_PARAMS_H
#define DYNID_PARAMS_H

#include "base.h"
#include "model.h"

typedef struct {
  dyiBase* base;      /* the set described by the expressions */
  double* value;     /* beta (nb) */
  double* std;       /* standard deviation, NaN if unknown (nb) */
  char comment[8192];/* the '#' lines at the top, joined */
} dyiParams;

/* Read a PARAMS file for model m. NULL with err ("FILE:ROW:COL: ...") on
 * failure. Free with dyi_params_free. */
dyiParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz);
void dyi_params_free(dyiParams* p);

/* A realisation of the identified base parameters: the full vector
 * (14n, joint parameters zero when the set has none) pi = P beta. */
void dyi_params_realise(const dyModel* m, const dyiParams* p, double* par);

/* Write a PARAMS file to f: the comment (each line of it prefixed "# "),
 * the header name,value,std,rel_std_pct,expression and one row per base
 * parameter of b: value[i] (nb), std[i] (nb, NULL or NaN entries: empty
 * field), rel_std_pct = 100 std / |value|, the expression of dyi_base_expr.
 * Numbers in %.17g. 0, or -1 on a write error. */
#include <stdio.h>
int dyi_params_write(FILE* f, const dyModel* m, const dyiBase* b, const double* value,
                     const double* std, const char* comment);

#endif
