/* dynid: the command-line program. Parses "dynid CMD [args] [options]" and
 * dispatches to reports/cmd_<name>.c. See README.md and CONVENTIONS.md. */
#include "cli.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { const char* name; int (*fn)(dyCli*); const char* help; } command_t;

static const command_t commands[] = {
  {"model", cmd_model, "model MODEL                      print the MDH table, joint types, gravity"},
  {"id", cmd_id, "id MODEL STATES [--params P] [--algo NAME]   tau1..taun per row"},
  {"inertia", cmd_inertia, "inertia MODEL STATES [--params P] [--algo NAME]   M1_1..Mn_n per row"},
  {"fd", cmd_fd, "fd MODEL LOG [--algo chol|aba]   qdd1..qddn per row from q, qd, tau"},
  {"regressor", cmd_regressor, "regressor MODEL STATES [--friction]   the regressor rows"},
  {"base", cmd_base, "base MODEL [--set qr|khalil|lin] [--friction]   name,expression per base parameter"},
  {"excite", cmd_excite, "excite MODEL [options] -o TRAJ   an exciting trajectory (t,q,qd,qdd)"},
  {"simulate", cmd_simulate, "simulate MODEL TRAJ [--noise S] [--seed N] -o LOG"},
  {"identify", cmd_identify, "identify MODEL LOG [--set ...] [--method ols|wls|irls] [--friction] -o PARAMS"},
  {"validate", cmd_validate, "validate MODEL PARAMS LOG [-o METRICS]"},
  {"report", cmd_report, "report MODEL PARAMS LOG... [--compare PARAMS2 [--labels A,B]] [--models FILES[,FILES]] -o REPORT.html"},
  {"bench", cmd_bench, "bench [MODEL]                    timings of the core algorithms"},
};
#define NCMD ((int)(sizeof commands / sizeof commands[0]))

/* options that take no value */
static const char* const flags[] = {"friction", "consistent", "dh", "no-header", "ops", "help", "quiet",
                                    "verbose", "physical", "drop-stale", "rest", "explain", "no-parallel", NULL};

static void usage(FILE* f) {
  fprintf(f, "usage: dynid COMMAND [arguments] [options]\n\ncommands:\n");
  for (int i = 0; i < NCMD; i++) fprintf(f, "  dynid %s\n", commands[i].help);
  fprintf(f, "\ncommon options: --gravity gx,gy,gz  --dh  --base LINK  --tip LINK  -o FILE\n"
             "exit status: 0 success, 1 bad input or numerical failure, 2 bad usage\n");
}

static void on_signal(int sig) {
  dy_out_abort_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const command_t* cmd = NULL;
  for (int i = 0; i < NCMD; i++)
    if (!strcmp(argv[1], commands[i].name)) cmd = commands + i;
  if (!cmd) return cli_usage("unknown command '%s'", argv[1]);

  dyCli c;
  memset(&c, 0, sizeof c);
  c.cmd = cmd->name;
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
      if (!strcmp(key, "help")) {
        printf("usage: dynid %s\n", cmd->help);
        return 0;
      }
      c.key[c.nopt] = key;
      if (isflag) c.val[c.nopt++] = NULL;
      else {
        if (i + 1 >= argc) return cli_usage("%s: option '%s' needs a value", cmd->name, a);
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
  return cmd->fn(&c);
}
