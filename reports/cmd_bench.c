/* dynid program: the bench subcommand (not built yet). */
#include "cli.h"
int cmd_bench(dyCli* c) {
  (void)c;
  return cli_fail("bench: not implemented yet");
}
