/* dynid program: the validate subcommand (not built yet). */
#include "cli.h"
int cmd_validate(dyCli* c) {
  (void)c;
  return cli_fail("validate: not implemented yet");
}
