/* SPDX-License-Identifier: MIT */
/* dynid program: PARAMS files as the commands read them (cli_params_read:
 * the header, the model check, the rows; ident/params.h parses both), and
 * --params P, identified base parameters as a full parameter vector: B is
 * rebuilt from the expressions, P = B^+, and proved against this model by
 * the QR rank test (the expressions must form a base set of this model:
 * rank and reproduction Y = Y_b B). When it carries the standard parameters
 * its estimate was solved as ("#! pi" lines), they are used exactly (the
 * inertia matrix and forward dynamics are theirs); otherwise the base
 * parameters are realised as pi = Ps beta (the sparsest realisation), so
 * that Y(q,qd,qdd) pi = Y_b(q,qd,qdd) beta: `dynid id MODEL STATES
 * --params P` gives the torques of the identified base parameters either
 * way. */
#include "reports/cli.h"
#include "ident/params.h"
#include "verify/validate.h"
#include <stdio.h>
#include <string.h>

dyiParams* cli_params_read(const cliArgs* c, const dyModel* m, const char* path) {
  char err[DY_ERRSZ];
  dyiParams* p = dyi_params_read_header(path, err, sizeof err);
  if (!p) { cli_fail("%s", err); return NULL; }
  if (cli_params_match(c, m, p)) { dyi_params_free(p); return NULL; }
  if (dyi_params_read_rows(p, m, err, sizeof err)) { cli_fail("%s", err); dyi_params_free(p); return NULL; }
  return p;
}

void cli_cond_text(char* buf, size_t sz, double cond, int weighted, double cond_scaled) {
  snprintf(buf, sz, "%.6g (regressor%s, SI units; %.6g after column scaling)", cond, weighted ? " as weighted" : "",
           cond_scaled);
}

int cli_params(const cliArgs* c, const dyModel* m, double* par) {
  const char* path = cli_opt(c, "params");
  if (!path) {
    memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
    return 0;
  }
  dyiParams* p = cli_params_read(c, m, path);
  if (!p) return 1;
  char err[DY_ERRSZ];
  if (dyi_base_verify(m, p->base, err, sizeof err)) {
    dyi_params_free(p);
    return cli_fail("%s: the expressions are not a base set of model %s: %s", path, m->source, err);
  }
  /* the file's own standard parameters; else the sparsest realisation (as
   * many structural zeros as the set allows, so the base-parameter
   * Newton-Euler can skip them), same torques as P beta */
  if (p->pi || dyv_realise_sparse(m, p->base, p->value, par, NULL, err, sizeof err))
    dyi_params_realise(m, p, par);
  dyi_params_free(p);
  return 0;
}
