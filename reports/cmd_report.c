/* dynid program: the report subcommand (not built yet). */
#include "cli.h"
int cmd_report(dyCli* c) {
  (void)c;
  return cli_fail("report: not implemented yet");
}
