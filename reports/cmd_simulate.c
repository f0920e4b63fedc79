/* dynid program: the simulate subcommand (not built yet). */
#include "cli.h"
int cmd_simulate(dyCli* c) {
  (void)c;
  return cli_fail("simulate: not implemented yet");
}
