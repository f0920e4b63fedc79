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
 * rule and the scales are ident's (estimate.h dyi_ident_class and
 * dyi_est_scales from the estimator's triangles, for identify;
 * identify.h dyi_identify_scales from the same row stage run over logs,
 * for the report): here the lines are printed. */
#include "reports/cli.h"
#include "ident/estimate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    dyiIdClass c = dyi_ident_class(value[k], std[k], scale[k]);
    if (c == DYI_ID_TINY) ntiny++;
    else if (c == DYI_ID_BOUND) { nbound++; list_add(held, sizeof held, names, k, NAN); }
    else if (c == DYI_ID_POOR) {
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

void cli_poorly_identified(const dyiEstim* e, const double* beta, const double* std) {
  double* scale = malloc(sizeof(double) * (size_t)(e->p > 0 ? e->p : 1));
  if (!scale) return;
  dyi_est_scales(e, scale);
  cli_ident_lines(stderr, e->p, e->opt.names, beta, std ? std : e->std, scale);
  free(scale);
}
