/* dynid program: --params P, identified base parameters realised as a full
 * parameter vector (placeholder until the base-parameter work lands). */
#include "cli.h"
#include <string.h>
int cli_params(const dyCli* c, const dyModel* m, double* par) {
  const char* p = cli_opt(c, "params");
  if (p) return cli_fail("%s: --params is not built yet", p);
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  return 0;
}
