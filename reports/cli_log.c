/* dynid program: log options (placeholder until the log reader lands). */
#include "cli.h"
#include "log.h"
int cli_logopt(const dyCli* c, int n, dyLogOpt* out) {
  (void)c; (void)n;
  dyi_log_defaults(out);
  return 0;
}
