/* SPDX-License-Identifier: MIT */
/* dynid tests: the usual mistakes answered with the cause and the fix.
 * Each case runs the program on a mistake and checks the exit status and
 * that standard error names what is wrong and what to do:
 *   - too few arguments: the arguments the command takes, by name;
 *   - a usage error inside a command: that command's own help line;
 *   - a model table or a log where PARAMS belongs: which kind of file it
 *     looks like, and "swapped";
 *   - a decimal comma in a log: said, with the fix;
 *   - a log too short for the filter's edges: where the samples went;
 *   - on a terminal (script(1) gives one), a slow step shows a bar with the
 *     time left; not when standard error is a file. */
#include "testhelp.h"
#include <string.h>
#include <sys/stat.h>

#define DIR "build/tests/messages"
#define P "datasets/models/panda.csv"
#define PL "datasets/panda/exciting_traj.csv.gz"

static const struct { const char* what; const char* cmd; int rc; const char* says[2]; } cases[] = {
  {"no arguments", "./dynid identify", 2, {"identify: takes MODEL LOG [LOG ...]; got 0 arguments", "usage:"}},
  {"one argument short", "./dynid validate " P " x.csv", 2, {"validate: takes MODEL PARAMS LOG; got 2", NULL}},
  {"identify MODEL", "./dynid identify " P, 2, {"give a log", "(dynid identify --help lists every option)"}},
  {"bad friction kind", "./dynid identify " P " " PL " --friction=fv,fx", 2,
   {"got 'fx'", "(dynid identify --help lists every option)"}},
  {"model table as PARAMS", "./dynid validate " P " " P " " PL " --map t=t_s", 1,
   {"looks like a model table, not a PARAMS file", "swapped"}},
  {"log as PARAMS", "./dynid validate " P " " PL " " DIR "/p.csv --map t=t_s", 1,
   {"looks like a log, not a PARAMS file", "swapped"}},
  {"decimal comma", "./dynid identify " P " " DIR "/comma.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"'-0,9584': a decimal comma?", "reads numbers with a point"}},
  {"short log", "./dynid identify " P " " DIR "/short.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"the log gives 39 samples", "leaves out"}},
};

int main(void) {
  CHECK(system("mkdir -p " DIR " && zcat " PL " | head -40 > " DIR "/short.csv && zcat " PL " | head -300 | "
               "sed 's/,/;/g; s/\\./,/g' > " DIR "/comma.csv && ./dynid identify " P " " PL " --map t=t_s "
               "--rows 1..3000 --quiet -o " DIR "/p.csv") == 0, "the inputs");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = th_run(DIR, cases[i].cmd);
    const char* e = th_slurp(DIR "/stderr");
    int ok = rc == cases[i].rc;
    for (int k = 0; k < 2; k++) if (cases[i].says[k] && !strstr(e, cases[i].says[k])) ok = 0;
    CHECK(ok, "%s: exit %d (want %d), stderr:\n%s", cases[i].what, rc, cases[i].rc, e);
  }
  /* progress: a bar with the time left on a terminal, nothing in a file */
  const char* slow = "./dynid identify " P " " PL " --map t=t_s --rows 1..6000 --friction --consistent --boot 8 "
                     "-o " DIR "/c.csv";   /* the solves take seconds */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "script -qc '%s' /dev/null > " DIR "/tty.txt 2>&1", slow);
  int rc = system(cmd);
  const char* t = th_slurp(DIR "/tty.txt");
  CHECK(rc == 0 && strstr(t, "consistent [#") && strstr(t, " s left") && strstr(t, "dynid: wrote " DIR "/c.csv"),
        "progress bar on a terminal: %.400s", t);
  rc = th_run(DIR, slow);
  CHECK(rc == 0 && !strstr(th_slurp(DIR "/stderr"), "consistent [#"), "no progress into a file");
  return test_report();
}
