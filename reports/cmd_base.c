/* dynid program: the base subcommand (not built yet). */
#include "cli.h"
int cmd_base(dyCli* c) {
  (void)c;
  return cli_fail("base: not implemented yet");
}
