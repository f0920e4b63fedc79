/* dynid program: the excite subcommand (not built yet). */
#include "cli.h"
int cmd_excite(dyCli* c) {
  (void)c;
  return cli_fail("excite: not implemented yet");
}
