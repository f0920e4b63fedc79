/* SPDX-License-Identifier: MIT */
/* dynid: the command-line program. Parses "dynid CMD [args] [options]" and
 * dispatches to reports/cmd_<name>.c. See README.md. */
#include "reports/cli.h"

void openblas_set_num_threads(int num_threads);   /* OpenBLAS: no header declares it */
/* OpenBLAS's pool of worker threads, ended (a build without it: NULL) */
int blas_thread_shutdown_(void) __attribute__((weak));
#include "reports/version.h"
#include "core/util.h"
#include <malloc.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { const char* name; int (*fn)(cliArgs*); } command_t;

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
  {"payload", cmd_payload},
  {"bench", cmd_bench},
};
#define NCMD ((int)(sizeof commands / sizeof commands[0]))

/* options that take no value */
static const char* const flags[] = {"friction", "consistent", "dh", "no-header", "ops", "help", "quiet",
                                    "verbose", "physical", "drop-stale", "rest", "explain", "no-parallel", "force", "strict",
                                    "estimate-gains", NULL};

/* the files the command put into place, named on standard error when it
 * has succeeded ("dynid: wrote reports/kuka.html (1.2 MB)") */
#define MAXWROTE 32
static char wrote_path[MAXWROTE][256];
static long long wrote_bytes[MAXWROTE];
static int nwrote;

static void on_wrote(const char* path, long long bytes) {
  if (nwrote < MAXWROTE) {
    snprintf(wrote_path[nwrote], sizeof wrote_path[0], "%s", path);
    wrote_bytes[nwrote++] = bytes;
  }
}

static void print_wrote(void) {
  for (int i = 0; i < nwrote; i++) {
    const double b = (double)wrote_bytes[i];
    if (b >= 1e6) fprintf(stderr, "dynid: wrote %s (%.1f MB)\n", wrote_path[i], b / 1e6);
    else if (b >= 1e3) fprintf(stderr, "dynid: wrote %s (%.1f kB)\n", wrote_path[i], b / 1e3);
    else fprintf(stderr, "dynid: wrote %s (%lld bytes)\n", wrote_path[i], wrote_bytes[i]);
  }
}

static void on_signal(int sig) {
  dy_out_abort_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Top level: no command, help, --version and --man, which need no command
 * line parsing. Decides whether the program ends here: 1 with *rc set (the
 * overview to standard error and status 2 without a command, the help of
 * one command, an unknown command in `dynid help CMD` as bad usage), or 0
 * when argv[1] names a command to run. */
static int top_level(int argc, char** argv, int* rc) {
  *rc = 0;
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    cli_help_overview(argc < 2 ? stderr : stdout);
    *rc = argc < 2 ? 2 : 0;
    return 1;
  }
  if (!strcmp(argv[1], "help")) {   /* dynid help [CMD] */
    if (argc > 2 && cli_help(stdout, argv[2], cli_doc_options(argv[2])) == 0) return 1;
    if (argc > 2) { *rc = cli_usage("help: unknown command '%s'", argv[2]); return 1; }
    cli_help_overview(stdout);
    return 1;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("dynid %s\n", DYNID_VERSION);
    return 1;
  }
  if (!strcmp(argv[1], "--man")) {   /* the manual page, kept as reports/dynid.1 */
    cli_man(stdout);
    return 1;
  }
  return 0;
}

/* The program's memory: one heap, in huge pages, kept. Freed blocks stay
 * with the process for the next allocation instead of going back to the
 * system: on a virtual machine the first write to a page costs several
 * microseconds (a 64 MiB block: 0.1-0.25 s, written again: 4 ms), and the
 * base-parameter proof, the log's buffers and the estimators allocate and
 * free blocks of megabytes one after another. Every thread allocates from
 * the one heap (the parsers' and workers' allocations are few, made before
 * their loops), and the heap's first HEAP_RESERVE bytes from here on are
 * in 2 MiB pages where the system gives them: one fault and one clearing
 * of 2 MiB where 4 KiB pages took up to 512 faults (validate of 1e5
 * samples: ~1,360 -> ~320 page faults, system time ~26 -> ~20 ms a run).
 * How: the break is moved to a page below a 2 MiB boundary (the allocator
 * goes on from a break another moved), the heap grown past the reserve at
 * once, and the reserve marked for huge pages before anything is written
 * in it (a 2 MiB range with one small page in it stays in small pages);
 * the allocator writes its own records in the page below and at the grown
 * end, outside. The library does none of this: a program that links it
 * keeps its own allocator's settings. */
#define HEAP_RESERVE ((uintptr_t)64 << 20)
static void heap_setup(void) {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_ARENA_MAX, 1);
  const long ps = sysconf(_SC_PAGESIZE);
  const uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096, huge = DY_HUGE_PAGE;
  const uintptr_t brk0 = (uintptr_t)sbrk(0);
  if (brk0 == (uintptr_t)-1) return;
  const uintptr_t start = (brk0 + page + huge - 1) & ~(huge - 1);
  if (sbrk((intptr_t)(start - page - brk0)) == (void*)-1) return;
  void* volatile grow = malloc(HEAP_RESERVE + huge);   /* volatile: not optimised away */
  free(grow);
  const uintptr_t end = ((uintptr_t)sbrk(0) & ~(huge - 1)) - huge;   /* the grown end's 2 MiB left out */
  if (grow && end > start) dy_huge_pages((void*)start, end - start);
  mallopt(M_TOP_PAD, (int)HEAP_RESERVE);   /* beyond the reserve, the heap grows in steps of as much */
}

/* The command named name, or NULL after the usage error, which suggests
 * the closest command name when one is close. */
static const command_t* find_command(const char* name) {
  for (int i = 0; i < NCMD; i++)
    if (!strcmp(name, commands[i].name)) return commands + i;
  const char* near = cli_suggest(name, cli_command_names());
  if (near) cli_usage("unknown command '%s' (did you mean '%s'?)", name, near);
  else cli_usage("unknown command '%s'", name);
  return NULL;
}

/* An option that takes a value was the last word: a mistyped option of
 * the command (then "did you mean", when one of its options is close and
 * the word is not itself one of them) or a value forgotten. Returns 2. */
static int missing_value(const char* cmd, const char* a, const char* key) {
  const char* known = cli_doc_options(cmd);
  char k2[70];
  snprintf(k2, sizeof k2, ",%s,", key);
  char all[1100];
  snprintf(all, sizeof all, ",%s,", known);
  const char* near = strstr(all, k2) ? NULL : cli_suggest(key, known);
  if (near) return cli_usage("%s: unknown option '%s' (did you mean '--%s'?)", cmd, a, near);
  return cli_usage("%s: option '%s' needs a value", cmd, a);
}

/* The words after the command: an option is a word starting with '-' that
 * is not a number (-5, -.5 are positional); its key is the word without
 * "--" or "-", its value follows '=' or is the next word unless the key is
 * one of the flags; --help and -h set c->help. Everything else is
 * positional. 0, or 2 after printing the usage error. */
static int parse_words(cliArgs* c) {
  static char keys[CLI_MAXOPT][64];   /* the keys of KEY=VALUE words */
  for (int i = 2; i < c->argc; i++) {
    const char* a = c->argv[i];
    if (!(a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.')) {
      if (c->npos == 16) return cli_usage("too many arguments");
      c->pos[c->npos++] = a;
      continue;
    }
    if (c->nopt == CLI_MAXOPT) return cli_usage("too many options");
    const char* key = a[1] == '-' ? a + 2 : a + 1;
    const char* eq = strchr(key, '=');
    if (eq) {
      snprintf(keys[c->nopt], 64, "%.*s", (int)(eq - key), key);
      c->key[c->nopt] = keys[c->nopt];
      c->val[c->nopt++] = eq + 1;
      continue;
    }
    int isflag = 0;
    for (int k = 0; flags[k]; k++) if (!strcmp(key, flags[k])) isflag = 1;
    if (!strcmp(key, "help") || !strcmp(key, "h")) {   /* printed by cli_check with every option */
      c->help = 1;
      continue;
    }
    c->key[c->nopt] = key;
    if (isflag) c->val[c->nopt++] = NULL;
    else if (i + 1 >= c->argc) return missing_value(c->cmd, a, key);
    else c->val[c->nopt++] = c->argv[++i];
  }
  return 0;
}

/* The load options every command shares (--dh, --base, --tip, --snap RAD
 * with 0 <= RAD < 0.5, --gravity gx,gy,gz) into c->load. 0, or 2 after
 * printing the error. */
static int load_options(cliArgs* c) {
  c->load.classic_dh = cli_flag(c, "dh");
  c->load.base = cli_opt(c, "base");
  c->load.tip = cli_opt(c, "tip");
  if (cli_opt(c, "snap")) {
    char* end;
    c->load.snap = strtod(cli_opt(c, "snap"), &end);
    if (*end || !(c->load.snap >= 0 && c->load.snap < 0.5)) {
      fprintf(stderr, "dynid: --snap: expected an angle in rad, 0 <= RAD < 0.5 (0: off), got '%s'\n",
              cli_opt(c, "snap"));
      return 2;
    }
    c->load.has_snap = 1;
  }
  const char* g = cli_opt(c, "gravity");
  if (g) {
    if (cli_doubles(g, c->load.gravity, 3))
      return cli_usage("--gravity: expected gx,gy,gz, got '%s'", g);
    c->load.has_gravity = 1;
  }
  return 0;
}

/* parse -> load options -> run the command; its warnings are shown only
 * when it succeeded, and --help always exits 0 */
int main(int argc, char** argv) {
  int rc;
  if (top_level(argc, argv, &rc)) return rc;
  const command_t* cmd = find_command(argv[1]);
  if (!cmd) return 2;
  cliArgs c;
  memset(&c, 0, sizeof c);
  c.cmd = cmd->name;
  c.argc = argc;
  c.argv = argv;
  if ((rc = parse_words(&c)) || (rc = load_options(&c))) return rc;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  /* SIGPIPE keeps its default: `dynid base X | head` ends quietly */
  cli_provenance(&c, NULL);   /* completed with the model by cli_model */
  /* one BLAS thread unless the user asks for more: dynid's matrices are
   * small (n <= 7 joints, ~70 columns), where OpenBLAS's threads cost more
   * than they bring and spin in system time (measured: validate on 1e5
   * samples 3.3 s with them, 1.5 s without); its own parallelism is over
   * samples, logs and starts */
  if (!getenv("OPENBLAS_NUM_THREADS")) {
    openblas_set_num_threads(1);
    /* and its idle workers, started when the library loaded, ended: they
     * poll (sched_yield) for a while before they sleep, on the cores the
     * log's parsers need (validate of 1e5 samples: 0.32 s user, 0.10-0.15 s
     * system -> 0.23-0.27 s, 0.05-0.08 s) */
    if (blas_thread_shutdown_) blas_thread_shutdown_();
  }
  heap_setup();
  dy_out_on_commit(on_wrote);
  rc = cmd->fn(&c);
  if (rc == 0 && !c.help) cli_question_block();   /* before the last pending lines: see cli.h */
  cli_flush_warnings(rc == 0);
  if (rc == 0 && !c.help && !cli_flag(&c, "quiet")) print_wrote();
  return c.help ? 0 : rc;
}
