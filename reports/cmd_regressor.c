/* dynid program: the regressor subcommand (not built yet). */
#include "cli.h"
int cmd_regressor(dyCli* c) {
  (void)c;
  return cli_fail("regressor: not implemented yet");
}
