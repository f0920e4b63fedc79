/* SPDX-License-Identifier: MIT */
/* dynid program: --params P, identified base parameters as a full
 * parameter vector. The PARAMS file is read with dyi_params_read (B rebuilt
 * from the expressions, P = B^+) and proved against this model by the QR
 * rank test (the expressions must form a base set of this model: rank and
 * reproduction Y = Y_b B). When it carries the standard parameters its
 * estimate was solved as ("#! pi" lines), they are used exactly (the
 * inertia matrix and forward dynamics are theirs); otherwise the base
 * parameters are realised as pi = Ps beta (the sparsest realisation), so
 * that Y(q,qd,qdd) pi = Y_b(q,qd,qdd) beta: `dynid id MODEL STATES
 * --params P` gives the torques of the identified base parameters either
 * way. */
#include "reports/cli.h"
#include "ident/params.h"
#include "verify/validate.h"
#include <string.h>

int cli_params(const cliArgs* c, const dyModel* m, double* par) {
  const char* path = cli_opt(c, "params");
  if (!path) {
    memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
    return 0;
  }
  if (cli_params_match(c, m, path)) return 1;
  char err[DY_ERRSZ];
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  if (!p) return cli_fail("%s", err);
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
