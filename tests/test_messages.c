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
  {"no header", "./dynid identify " P " " DIR "/nohdr.csv -o " DIR "/x.csv", 1,
   {"its first row is numbers, not names", "--no-header"}},
  {"other names (ROS style)", "./dynid identify " P " " DIR "/ros.csv -o " DIR "/x.csv", 1,
   {"its names suggest: --map t=time --map q1..q7=joint1_pos..joint7_pos --map qd1..qd7=joint1_vel..joint7_vel "
    "--map tau1..tau7=joint1_effort..joint7_effort;", NULL}},
  {"a range with the number inside", "./dynid identify " P " " DIR "/ros.csv --map t=time --map "
   "q1..q7=joint1_pos..joint7_vel", 2, {"differ in one number only", NULL}},
  {"Fortran exponent", "./dynid identify " P " " DIR "/fortran.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"'8.83614D-05': a Fortran exponent 'D'?", NULL}},
  {"empty cell", "./dynid identify " P " " DIR "/gap.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"gap.csv:101:17: an empty cell in column 'tau2", "--on-bad drop skips such rows"}},
  {"time out of order", "./dynid identify " P " " DIR "/back.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"back.csv:52:1: time", "rows out of order, or logs appended"}},
};

/* the logs of the cases, made from the Panda's first 300 rows with sed:
 * without the header, with ROS-style names, a Fortran exponent, an empty
 * torque cell on data row 100, two rows swapped (50 and 51) */
static int make_logs(void) {
  return system("mkdir -p " DIR " && zcat " PL " | head -40 > " DIR "/short.csv && zcat " PL " | head -300 | "
                "sed 's/,/;/g; s/\\./,/g' > " DIR "/comma.csv && zcat " PL " | head -300 > " DIR "/h.csv && "
                "sed 1d " DIR "/h.csv > " DIR "/nohdr.csv && "
                "sed '1s/.*/time,joint1_pos,joint2_pos,joint3_pos,joint4_pos,joint5_pos,joint6_pos,joint7_pos,"
                "joint1_vel,joint2_vel,joint3_vel,joint4_vel,joint5_vel,joint6_vel,joint7_vel,joint1_effort,"
                "joint2_effort,joint3_effort,joint4_effort,joint5_effort,joint6_effort,joint7_effort/' "
                DIR "/h.csv > " DIR "/ros.csv && sed 's/e-05/D-05/g' " DIR "/h.csv > " DIR "/fortran.csv && "
                "awk -F, -v OFS=, 'NR==101{$17=\"\"}1' " DIR "/h.csv > " DIR "/gap.csv && "
                "awk 'NR==51{s=$0; next} NR==52{print; print s; next} 1' " DIR "/h.csv > " DIR "/back.csv && "
                "./dynid identify " P " " PL " --map t=t_s --rows 1..3000 --quiet -o " DIR "/p.csv");
}

int main(void) {
  CHECK(make_logs() == 0, "the inputs");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = th_run(DIR, cases[i].cmd);
    const char* e = th_slurp(DIR "/stderr");
    int ok = rc == cases[i].rc;
    for (int k = 0; k < 2; k++) if (cases[i].says[k] && !strstr(e, cases[i].says[k])) ok = 0;
    CHECK(ok, "%s: exit %d (want %d), stderr:\n%s", cases[i].what, rc, cases[i].rc, e);
  }
  /* the suggested --map (a range with the number inside the names) reads the same numbers as the
   * conventional names: the same PARAMS rows, bit for bit */
  int r1 = th_run(DIR, "./dynid identify " P " " DIR "/h.csv --map t=t_s --cutoff none --quiet -o " DIR "/a.csv");
  int r2 = th_run(DIR, "./dynid identify " P " " DIR "/ros.csv --map t=time --map q1..q7=joint1_pos..joint7_pos "
                  "--map qd1..qd7=joint1_vel..joint7_vel --map tau1..tau7=joint1_effort..joint7_effort --cutoff none --quiet -o "
                  DIR "/b.csv");
  CHECK(r1 == 0 && r2 == 0 && system("grep -v '^#' " DIR "/a.csv > " DIR "/a2 && grep -v '^#' " DIR "/b.csv > "
        DIR "/b2 && cmp -s " DIR "/a2 " DIR "/b2") == 0,
        "ROS-style names through --map ranges: the same estimate (exit %d, %d)", r1, r2);
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
