/* SPDX-License-Identifier: MIT */
/* dynid program: how well each base parameter is identified, one rule for
 * the terminal list of `dynid identify` and for the report's list.
 *
 * Poorly identified: relative std above 10 % and std above 1e-3 of the
 * parameter's scale s_k = ||tau|| / ||Y_k|| (the value at which its
 * regressor column alone would carry the whole torque; tau and Y_k the
 * unweighted rows of the estimate, after the parallel filter), so that
 * structurally tiny values are not flagged (counted apart). A parameter
 * without a standard deviation (an empty std field of a PARAMS file: held
 * by a bound of the consistent estimate) is listed as held by a bound. The
 * scales come from the estimator's triangles (identify) or from the same
 * row stage run over logs (report): on the same log and log options the
 * two agree to round-off. */
#include "reports/cli.h"
#include "ident/estimate.h"
#include "ident/identify.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_ident_class(double value, double std, double scale) {
  if (isnan(std)) return CLI_ID_BOUND;
  double rel = value != 0 ? 100 * std / fabs(value) : INFINITY;
  if (!(rel > 10)) return CLI_ID_FINE;
  return std > 1e-3 * scale ? CLI_ID_POOR : CLI_ID_TINY;
}

/* "NAME (X %)" or "NAME" of parameter k appended to list (", " between),
 * "..." once when full */
static void list_add(char* list, size_t sz, const char* const* names, int k, double rel) {
  size_t L = strlen(list);
  char one[96], nm[40];
  if (names && names[k]) snprintf(nm, sizeof nm, "%s", names[k]);
  else snprintf(nm, sizeof nm, "b%d", k + 1);
  if (!isnan(rel)) snprintf(one, sizeof one, "%s%s (%.3g %%)", L ? ", " : "", nm, rel);
  else snprintf(one, sizeof one, "%s%s", L ? ", " : "", nm);
  if (L + strlen(one) + 8 < sz) snprintf(list + L, sz - L, "%s", one);
  else if (!strstr(list, "...")) snprintf(list + L, sz - L, ", ...");
}

void cli_ident_lines(FILE* f, int p, const char* const* names, const double* value, const double* std,
                     const double* scale) {
  int nbad = 0, ntiny = 0, nbound = 0;
  char list[1200] = "", held[1200] = "";
  for (int k = 0; k < p; k++) {
    int c = cli_ident_class(value[k], std[k], scale[k]);
    if (c == CLI_ID_TINY) ntiny++;
    else if (c == CLI_ID_BOUND) { nbound++; list_add(held, sizeof held, names, k, NAN); }
    else if (c == CLI_ID_POOR) {
      nbad++;
      list_add(list, sizeof list, names, k, value[k] != 0 ? 100 * std[k] / fabs(value[k]) : INFINITY);
    }
  }
  if (nbad)
    fprintf(f, "poorly identified: %d of %d base parameters (relative std > 10 %% and std > 1e-3 of the "
            "parameter's scale): %s; excite them more (dynid excite) or add a log\n", nbad, p, list);
  else fprintf(f, "identified: every base parameter%s within 10 %% relative std, or with a std below 1e-3 of "
               "its scale\n", nbound ? " with a standard deviation" : "");
  if (ntiny)
    fprintf(f, "not flagged: %d parameter%s with relative std > 10 %% whose std is below 1e-3 of %s scale "
            "(structurally tiny values)\n", ntiny, ntiny == 1 ? "" : "s", ntiny == 1 ? "its" : "their");
  if (nbound)
    fprintf(f, "held by a bound: %d base parameter%s without a standard deviation (at a bound of the "
            "consistent estimate): %s\n", nbound, nbound == 1 ? "" : "s", held);
}

void cli_ident_scales(const dyiEstim* e, double* scale) {
  const int p = e->p;
  double yy = 0;
  double* ak = calloc((size_t)(p > 0 ? p : 1), sizeof(double));
  if (!ak) { for (int k = 0; k < p; k++) scale[k] = INFINITY; return; }
  for (int j = 0; j < e->n; j++) {
    const double* T = dyi_est_triangle(e, j);
    const int q = e->np[j], Q1 = q + 1;
    if (!T || !e->rows_j[j]) continue;
    for (int c = 0; c <= q; c++) {
      double s2 = 0;
      for (int i = 0; i <= c; i++) s2 += T[i + (size_t)Q1 * c] * T[i + (size_t)Q1 * c];
      if (c < q) ak[e->cols[j][c]] += s2;
      else yy += s2;
    }
  }
  for (int k = 0; k < p; k++) scale[k] = ak[k] > 0 ? sqrt(yy / ak[k]) : INFINITY;
  free(ak);
}

void cli_poorly_identified(const dyiEstim* e, const double* beta, const double* std) {
  double* scale = malloc(sizeof(double) * (size_t)(e->p > 0 ? e->p : 1));
  if (!scale) return;
  cli_ident_scales(e, scale);
  cli_ident_lines(stderr, e->p, e->opt.names, beta, std ? std : e->std, scale);
  free(scale);
}

/* the squares of the rows waiting in w (every one, as before a push): of
 * the torque into *yy, of column k into ak[k]; A room for n x p */
static void rows_squares(dyiRows* w, int n, int p, double* A, double* yy, double* ak) {
  double y[DY_MAXJ], rw[DY_MAXJ];
  while (dyi_rows_pop(w, A, n, 0, y, rw, NULL))
    for (int i = 0; i < n; i++) {
      const double r2 = rw[i] * rw[i];
      *yy += r2 * y[i] * y[i];
      for (int k = 0; k < p; k++) ak[k] += r2 * A[i + (size_t)n * k] * A[i + (size_t)n * k];
    }
}

int cli_ident_scales_logs(const dyModel* m, const dyiBase* b, const char* const* paths, int nlog,
                          const dyiLogOpt* lopt, double* scale, char* err, int errsz) {
  const int n = m->n, p = b->nb;
  double yy = 0;
  double* ak = calloc((size_t)p, sizeof(double));
  double* A = malloc(sizeof(double) * (size_t)n * (size_t)p);
  if (!ak || !A) { free(ak); free(A); snprintf(err, (size_t)errsz, "out of memory"); return -1; }
  dyiRows* w = dyi_rows_make(m, b, err, errsz);
  int r = w ? 0 : -1;
  for (int l = 0; r == 0 && l < nlog; l++) {
    dyiLogReader* lr = dyi_log_open(paths[l], n, lopt, err, errsz);
    if (!lr) { r = -1; break; }
    dyiLogInfo li;
    dyi_log_info(lr, &li);
    dyiSample s;
    if (dyi_rows_config(w, &li, err, errsz)) r = -1;
    while (r == 0 && (r = dyi_log_next(lr, &s, err, errsz)) == 1) {
      rows_squares(w, n, p, A, &yy, ak);
      dyi_rows_push(w, &s);
      r = 0;
    }
    if (r == 0) {   /* the end of the file: the rows still in the filter */
      dyi_rows_break(w, 1);
      rows_squares(w, n, p, A, &yy, ak);
    }
    dyi_log_close(lr);
  }
  if (r == 0)
    for (int k = 0; k < p; k++) scale[k] = ak[k] > 0 ? sqrt(yy / ak[k]) : INFINITY;
  dyi_rows_free(w);
  free(ak); free(A);
  return r;
}
