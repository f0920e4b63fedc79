/* dynid: the command-line program. Parses "dynid CMD [args] [options]" and
 * dispatches to reports/cmd_<name>.c. See README.md and CONVENTIONS.md. */
#include "cli.h"
#include "version.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { const char* name; int (*fn)(dyCli*); } command_t;

static const command_t commands[] = {
  {"model", cmd_model},
  {"id", cmd_id},
  {"inertia", cmd_inertia},
  {"fd", cmd_fd},
  {"regressor", cmd_regressor},
  {"base", cmd_base},
  {"excite", cmd_excite},
  {"simulate", cmd_simulate},
  {"identify", cmd_identify},
  {"validate", cmd_validate},
  {"report", cmd_report},
  {"bench", cmd_bench},
};
#define NCMD ((int)(sizeof commands / sizeof commands[0]))

/* options that take no value */
static const char* const flags[] = {"friction", "consistent", "dh", "no-header", "ops", "help", "quiet",
                                    "verbose", "physical", "drop-stale", "rest", "explain", "no-parallel", "force", NULL};

static void on_signal(int sig) {
  dy_out_abort_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    cli_help_overview(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "help")) {   /* dynid help [CMD] */
    if (argc > 2 && cli_help(stdout, argv[2], cli_doc_options(argv[2])) == 0) return 0;
    if (argc > 2) return cli_usage("help: unknown command '%s'", argv[2]);
    cli_help_overview(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("dynid %s\n", DYNID_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "--man")) {   /* the manual page, kept as reports/dynid.1 */
    cli_man(stdout);
    return 0;
  }
  const command_t* cmd = NULL;
  for (int i = 0; i < NCMD; i++)
    if (!strcmp(argv[1], commands[i].name)) cmd = commands + i;
  if (!cmd) {
    const char* near = cli_suggest(argv[1], cli_command_names());
    if (near) return cli_usage("unknown command '%s' (did you mean '%s'?)", argv[1], near);
    return cli_usage("unknown command '%s'", argv[1]);
  }

  dyCli c;
  memset(&c, 0, sizeof c);
  c.cmd = cmd->name;
  c.argc = argc;
  c.argv = argv;
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.') {
      if (c.nopt == CLI_MAXOPT) return cli_usage("too many options");
      const char* key = a[1] == '-' ? a + 2 : a + 1;
      const char* eq = strchr(key, '=');
      static char keys[CLI_MAXOPT][64];
      if (eq) {
        snprintf(keys[c.nopt], 64, "%.*s", (int)(eq - key), key);
        c.key[c.nopt] = keys[c.nopt];
        c.val[c.nopt++] = eq + 1;
        continue;
      }
      int isflag = 0;
      for (int k = 0; flags[k]; k++) if (!strcmp(key, flags[k])) isflag = 1;
      if (!strcmp(key, "help") || !strcmp(key, "h")) {   /* printed by cli_check with every option */
        c.help = 1;
        continue;
      }
      c.key[c.nopt] = key;
      if (isflag) c.val[c.nopt++] = NULL;
      else {
        if (i + 1 >= argc) {
          const char* known = cli_doc_options(cmd->name);
          char k2[70];
          snprintf(k2, sizeof k2, ",%s,", key);
          char all[1100];
          snprintf(all, sizeof all, ",%s,", known);
          const char* near = strstr(all, k2) ? NULL : cli_suggest(key, known);
          if (near)
            return cli_usage("%s: unknown option '%s' (did you mean '--%s'?)", cmd->name, a, near);
          return cli_usage("%s: option '%s' needs a value", cmd->name, a);
        }
        c.val[c.nopt++] = argv[++i];
      }
    } else {
      if (c.npos == 16) return cli_usage("too many arguments");
      c.pos[c.npos++] = a;
    }
  }
  c.load.classic_dh = cli_flag(&c, "dh");
  c.load.base = cli_opt(&c, "base");
  c.load.tip = cli_opt(&c, "tip");
  if (cli_opt(&c, "snap")) {
    char* end;
    c.load.snap = strtod(cli_opt(&c, "snap"), &end);
    if (*end || !(c.load.snap >= 0 && c.load.snap < 0.5)) {
      fprintf(stderr, "dynid: --snap: expected an angle in rad, 0 <= RAD < 0.5 (0: off), got '%s'\n",
              cli_opt(&c, "snap"));
      return 2;
    }
    c.load.has_snap = 1;
  }
  const char* g = cli_opt(&c, "gravity");
  if (g) {
    if (cli_doubles(g, c.load.gravity, 3))
      return cli_usage("--gravity: expected gx,gy,gz, got '%s'", g);
    c.load.has_gravity = 1;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  /* SIGPIPE keeps its default: `dynid base X | head` ends quietly */
  cli_provenance(&c, NULL);   /* completed with the model by cli_model */
  int rc = cmd->fn(&c);
  cli_flush_warnings(rc == 0);
  return c.help ? 0 : rc;
}
