/* SPDX-License-Identifier: MIT */
/* dynid program: the regressor subcommand.
 *
 *   dynid regressor MODEL STATES [--friction] [-o FILE]
 *
 * Output layout (CSV): one row per state sample and joint,
 *     sample,joint,XX1,XY1,...,M1,XX2,...,Mn[,IA1,FV1,FC1,FO1,...,FOn]
 * sample is the 1-based data row of STATES, joint the 1-based joint i, and
 * the remaining columns are row i of Y(q,qd,qdd) (d tau_i / d pi_k) for the
 * full parameters in model.h order and names; 10n columns, 14n with
 * --friction. So tau_i of sample s = sum_k Y[s,i,k] * pi_k. */
#include "reports/cli.h"
#include "ident/regressor.h"
#include <stdlib.h>

int cmd_regressor(cliArgs* c) {
  int r = cli_check(c, "friction,transmission", 2, 2, "dynid regressor MODEL STATES [--friction] [-o FILE]");
  if (r) return r;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, fr = cli_flag(c, "friction"), nc = dyi_ncols(m, fr), status = 1, opened = 0;
  double* Y = malloc(sizeof(double) * (size_t)n * (size_t)nc);
  dyData* d = dy_make_data(m);
  cliStates* s = NULL;
  char err[DY_ERRSZ];
  dyOut o = {0};
  if (!Y || !d) { cli_fail("out of memory"); goto done; }
  static const char* const pre[3] = {"q", "qd", "qdd"};
  s = cli_states_open(c->pos[1], n, pre, 3, err, sizeof err);
  if (!s) { cli_fail("%s", err); goto done; }
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  fprintf(o.f, "sample,joint");
  for (int k = 0; k < nc; k++) {
    char name[32];
    dy_parname(m, k, name, sizeof name);
    fprintf(o.f, ",%s", name);
  }
  fputc('\n', o.f);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  double* cols[3] = {q, qd, qdd};
  long rows = 0;
  while ((r = cli_states_next(s, cols, err, sizeof err)) > 0) {
    rows++;
    dyi_regressor(m, d, q, qd, qdd, fr, Y, n);
    for (int i = 0; i < n; i++) {
      fprintf(o.f, "%ld,%d", rows, i + 1);
      for (int k = 0; k < nc; k++) {
        fputc(',', o.f);
        dy_fprint_double(o.f, Y[i + (size_t)n*k]);
      }
      fputc('\n', o.f);
    }
    if ((rows & 1023) == 0) cli_progress(c->cmd, rows, "rows", 0);
  }
  if (r < 0) { cli_fail("%s", err); goto done; }
  opened = 0;
  if (dy_out_commit(&o, err, sizeof err)) { cli_fail("%s", err); goto done; }
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  cli_states_close(s);
  dy_free_data(d);
  free(Y);
  dy_free_model(m);
  return status;
}
