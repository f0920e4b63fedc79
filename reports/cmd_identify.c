/* dynid program: the identify subcommand (not built yet). */
#include "cli.h"
int cmd_identify(dyCli* c) {
  (void)c;
  return cli_fail("identify: not implemented yet");
}
