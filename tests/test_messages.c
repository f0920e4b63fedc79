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
#include <math.h>
#include <stdlib.h>
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
  {"a current by its header", "./dynid identify " P " " DIR "/amp.csv -o " DIR "/x.csv", 1,
   {"column 'tau1 [A]' (tau1) is in A by its header: a motor current: --gain", NULL}},
  {"a unit of another quantity", "./dynid identify " P " " DIR "/deg.csv --map q1=tau1_mNm -o " DIR "/x.csv", 1,
   {"column 'tau1_mNm' (q1) is in mNm by its header: not a unit of this quantity", NULL}},
  {"UTF-16", "./dynid identify " P " " DIR "/utf16.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"utf16.csv:1: UTF-16 text", "iconv -f UTF-16 -t UTF-8"}},
  {"time out of order", "./dynid identify " P " " DIR "/back.csv --map t=t_s -o " DIR "/x.csv", 1,
   {"back.csv:52:1: time", "rows out of order, or logs appended"}},
};

/* h.csv in other units, said in its header: t in ms, q in degrees, qd in
 * deg/s, tau in mN m (printed with 17 digits) */
#define UNITS_AWK "awk -F, -v OFS=, 'NR==1{$1=\"t [ms]\"; for(i=2;i<=8;i++)$i=$i\" [Deg]\"; " \
  "for(i=9;i<=15;i++)$i=$i\" (DEG/S)\"; for(i=16;i<=22;i++)$i=$i\"_mNm\"; print; next} " \
  "{$1=sprintf(\"%.17g\",$1*1000); for(i=2;i<=15;i++)$i=sprintf(\"%.17g\",$i*45/atan2(1,1)); " \
  "for(i=16;i<=22;i++)$i=sprintf(\"%.17g\",$i*1000); print}' " DIR "/h.csv > " DIR "/deg.csv"

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
                "sed '1s/tau\\([1-7]\\)/tau\\1 [A]/g' " DIR "/h.csv > " DIR "/amp.csv && " UNITS_AWK " && "
                "iconv -f UTF-8 -t UTF-16 " DIR "/h.csv > " DIR "/utf16.csv && "
                "(echo 'sep=;'; sed 's/,/;/g' " DIR "/h.csv) > " DIR "/sep.csv && "
                "./dynid identify " P " " PL " --map t=t_s --rows 1..3000 --quiet -o " DIR "/p.csv");
}

/* the log in other units with the units in its header, in any letter
 * case ("Deg", "DEG/S"): converted to SI (and said), the same estimate as the SI log to 1e-9 relative (the
 * conversions round in the 16th digit; the least squares' condition number
 * is below 1e3) */
static void units_case(void) {
  int rc = th_run(DIR, "./dynid identify " P " " DIR "/deg.csv --cutoff none -o " DIR "/u.csv");
  CHECK(rc == 0 && strstr(th_slurp(DIR "/stderr"), "units from the header (t in ms, q in Deg, qd in DEG/S, tau in mNm"),
        "units from the header said: %s", th_slurp(DIR "/stderr"));
  double worst = 0;
  FILE* a = fopen(DIR "/a.csv", "r");
  FILE* b = fopen(DIR "/u.csv", "r");
  char la[1024], lb[1024];
  int rows = 0;
  while (a && b && fgets(la, sizeof la, a) && fgets(lb, sizeof lb, b)) {
    while (la[0] == '#' && fgets(la, sizeof la, a)) {}
    while (lb[0] == '#' && fgets(lb, sizeof lb, b)) {}
    const char* ca = strchr(la, ','); const char* cb = strchr(lb, ',');
    if (!ca || !cb || !strncmp(la, "name,", 5)) continue;
    double va = atof(ca + 1), vb = atof(cb + 1), sa = atof(strchr(ca + 1, ',') + 1);
    worst = fmax(worst, fabs(va - vb) / fmax(fabs(va), sa));
    rows++;
  }
  if (a) fclose(a);
  if (b) fclose(b);
  CHECK(rows == 43 && worst < 1e-9, "units converted: %d rows, largest difference %.3g of max(|value|, std)", rows, worst);
}

/* --quiet on every command: exit 0 and nothing on standard error (the
 * Gen3 URDF's snapped angles, summaries, the "wrote" lines all held back) */
static void quiet_case(void) {
  static const char* const cmds[] = {
    "./dynid model datasets/urdf/gen3.urdf -o " DIR "/q1.csv",
    "./dynid base datasets/urdf/gen3.urdf --friction -o " DIR "/q2.csv",
    "./dynid excite " P " --screen 0 --starts 1 --maxeval 5 --polish 0 --hops 0 --duration 2 -o " DIR "/q3.csv",
    "./dynid simulate " P " " DIR "/q3.csv -o " DIR "/q4.csv",
    "./dynid identify " P " " DIR "/h.csv --map t=t_s --cutoff none -o " DIR "/q5.csv",
    "./dynid validate " P " " DIR "/q5.csv " DIR "/h.csv --map t=t_s -o " DIR "/q6.csv",
    "./dynid report " P " " DIR "/q5.csv " DIR "/h.csv --map t=t_s -o " DIR "/q7.html",
    "./dynid id " P " " DIR "/q3.csv -o " DIR "/q8.csv"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "%s --quiet", cmds[i]);
    int rc = th_run(DIR, cmd);
    const char* e = th_slurp(DIR "/stderr");
    CHECK(rc == 0 && !*e, "%s: exit %d, stderr '%s'", cmd, rc, e);
  }
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
  units_case();
  /* a spreadsheet's "sep=;" first line: the delimiter, the same estimate as the comma file */
  int rs = th_run(DIR, "./dynid identify " P " " DIR "/sep.csv --map t=t_s --cutoff none --quiet -o " DIR "/s.csv");
  CHECK(rs == 0 && system("grep -v '^#' " DIR "/s.csv > " DIR "/s2 && cmp -s " DIR "/a2 " DIR "/s2") == 0,
        "sep=; line: exit %d, the same estimate", rs);
  quiet_case();
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
