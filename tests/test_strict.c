/* SPDX-License-Identifier: MIT */
/* dynid tests: warnings that are heard.
 *   - --strict turns the warnings about a log (units, rate, the model, the
 *     data's quality) into errors: exit 1, the warnings and one closing
 *     line on standard error, nothing written; for identify, validate and
 *     report alike, and also under --quiet;
 *   - a clean simulated log passes --strict (no false alarm) and writes;
 *   - every warning line has the one prefix "dynid: warning: ";
 *   - the shipped Gen3 URDF's rounded angles are one counted line, not one
 *     per joint (and `dynid model` repeats that one line as a comment);
 *   - a log from another arm is said: the shipped Panda and KUKA logs
 *     crossed with the three shipped models, every wrong pair warned (the
 *     torque does not follow the model's gravity torque, or the positions
 *     leave its limits), no right pair, none read as a torque scale; a
 *     torque divided by 9 (currents) is said as units or gains, with the
 *     --gain to try. (The Gen3's logs are 2 s long, too
 *     short to identify, with undocumented torque columns: not used.) */
#include "testhelp.h"
#include <string.h>
#include <sys/stat.h>

#define DIR "build/tests/strict"
#define P "datasets/models/panda.csv"

static int exists(const char* path) { struct stat st; return stat(path, &st) == 0; }

/* every stderr line that warns starts with "dynid: warning: " */
static int prefixes_ok(const char* e) {
  for (const char* s = e; *s;) {
    const char* nl = strchr(s, '\n');
    size_t L = nl ? (size_t)(nl - s) : strlen(s);
    const char* w = strstr(s, "warning");
    const char* st = strstr(s, "--strict");
    if (w && w < s + L && !(st && st < s + L) && strncmp(s, "dynid: warning: ", 16)) return 0;
    s += L + (nl != NULL);
  }
  return 1;
}

static void make_logs(void) {
  CHECK(system("mkdir -p " DIR " && ./dynid simulate " P " fourier --duration 6 --rate 500 --seed 4 --noise 0.01 "
               "-o " DIR "/clean.csv 2>/dev/null") == 0, "simulate a clean log");
  /* positions in degrees: q columns (2..8) times 180/pi */
  CHECK(system("awk -F, 'BEGIN{OFS=\",\"} /^#/ {print; next} NR>1 && !/^t/ {for (i = 2; i <= 8; i++) "
               "$i = $i * 57.29577951308232} {print}' " DIR "/clean.csv > " DIR "/deg.csv") == 0, "degree log");
  CHECK(system("./dynid identify " P " " DIR "/clean.csv --quiet -o " DIR "/p.csv") == 0, "identify the clean log");
}

static void strict_cmd(const char* name, const char* cmd, const char* out, int has_quiet) {
  char full[1024];
  remove(out);
  snprintf(full, sizeof full, "%s --strict -o %s", cmd, out);
  int rc = th_run(DIR, full);
  const char* e = th_slurp(DIR "/stderr");
  CHECK(rc == 1 && !exists(out) && strstr(e, "positions in degrees?") && strstr(e, "--strict: ") &&
        strstr(e, "nothing written") && prefixes_ok(e), "%s --strict on a degree log: exit %d, stderr:\n%s", name, rc, e);
  if (has_quiet) {
    snprintf(full, sizeof full, "%s --strict --quiet -o %s", cmd, out);
    rc = th_run(DIR, full);
    CHECK(rc == 1 && !exists(out), "%s --strict --quiet still checks: exit %d", name, rc);
  }
  snprintf(full, sizeof full, "%s -o %s", cmd, out);
  rc = th_run(DIR, full);
  e = th_slurp(DIR "/stderr");
  CHECK(rc == 0 && exists(out) && strstr(e, "dynid: warning: ") && prefixes_ok(e),
        "%s without --strict: warned, exit %d, written", name, rc);
}

/* identify MODEL LOG: 1 when a warning questions the pairing */
static int mismatch_said(const char* model, const char* log) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s --map t=t_s -o " DIR "/cross.csv", model, log);
  int rc = th_run(DIR, cmd);
  const char* e = th_slurp(DIR "/stderr");
  CHECK(rc == 0, "%s on %s: exit %d", model, log, rc);
  CHECK(!strstr(e, "other units or motor currents?"), "%s on %s: another arm read as a torque scale:\n%s", model, log, e);
  return strstr(e, "does not follow the gravity torque of") || strstr(e, "is the model that of the arm that made the log?");
}

/* the clean log's torque divided by 9 (currents of a 9 N m/A drive logged
 * as torque): the torque follows gravity 1/9 as much on every joint that
 * matters: said as units or gains, with a --gain range that holds 9 */
static void torque_scale(void) {
  CHECK(system("awk -F, 'BEGIN{OFS=\",\"} /^#/ || /^t/ {print; next} {for (i = NF - 6; i <= NF; i++) $i = $i / 9} "
               "{print}' " DIR "/clean.csv > " DIR "/cur.csv") == 0, "current log");
  int rc = th_run(DIR, "./dynid identify " P " " DIR "/cur.csv -o " DIR "/cur.params");
  const char* e = th_slurp(DIR "/stderr");
  const char* g = strstr(e, "(--gain of the order of ");
  double k = 0;
  /* within 20 %: the slope of tau on g also holds the inertial torque (right pairs: 0.81 to 1.16) */
  CHECK(rc == 0 && strstr(e, "the torque in other units or motor currents?") && g &&
        sscanf(g, "(--gain of the order of %lf", &k) == 1 && k > 9 / 1.2 && k < 9 * 1.2,
        "torque / 9: said as a scale with --gain of the order of %g:\n%s", k, e);
}

static void crossings(void) {
  static const char* const models[3] = {P, "datasets/urdf/kuka_lwr4.urdf", "datasets/urdf/gen3.urdf"};
  static const struct { const char* log; int arm; } logs[3] = {
    {"datasets/panda/exciting_traj.csv.gz", 0}, {"datasets/kuka_lwr4/measurements_1.csv.gz", 1},
    {"datasets/kuka_lwr4/measurements_3.csv.gz", 1}};
  for (int l = 0; l < (TH_SANITIZED ? 1 : 3); l++)   /* the Panda's log alone under the sanitizers */
    for (int k = 0; k < 3; k++) {
      int said = mismatch_said(models[k], logs[l].log);
      CHECK(said == (k != logs[l].arm), "%s with %s: mismatch %s:\n%s", logs[l].log, models[k],
            said ? "said (a false alarm)" : "not said", th_slurp(DIR "/stderr"));
    }
}

int main(void) {
  make_logs();
  crossings();
  torque_scale();
  strict_cmd("identify", "./dynid identify " P " " DIR "/deg.csv", DIR "/x.csv", 1);
  strict_cmd("validate", "./dynid validate " P " " DIR "/p.csv " DIR "/deg.csv", DIR "/v.csv", 0);
  strict_cmd("report", "./dynid report " P " " DIR "/p.csv " DIR "/deg.csv", DIR "/r.html", 0);
  int rc = th_run(DIR, "./dynid identify " P " " DIR "/clean.csv --strict -o " DIR "/ok.csv");
  CHECK(rc == 0 && exists(DIR "/ok.csv") && !strstr(th_slurp(DIR "/stderr"), "warning"),
        "a clean log passes --strict: exit %d, %s", rc, th_slurp(DIR "/stderr"));
  /* every file written is named, with its size; not under --quiet, not on failure */
  CHECK(strstr(th_slurp(DIR "/stderr"), "dynid: wrote " DIR "/ok.csv (") != NULL, "the written file named:\n%s",
        th_slurp(DIR "/stderr"));
  rc = th_run(DIR, "./dynid identify " P " " DIR "/clean.csv --quiet -o " DIR "/ok.csv");
  CHECK(rc == 0 && !strstr(th_slurp(DIR "/stderr"), "wrote"), "--quiet: no 'wrote' line");
  rc = th_run(DIR, "./dynid identify " P " " DIR "/deg.csv --strict -o " DIR "/no.csv");
  CHECK(rc == 1 && !strstr(th_slurp(DIR "/stderr"), "wrote"), "a failed command names no file");
  rc = th_run(DIR, "./dynid model datasets/urdf/gen3.urdf -o " DIR "/g.csv");
  const char* e = th_slurp(DIR "/stderr");
  int lines = 0;
  for (const char* s = e; (s = strstr(s, "snapped")); s++) lines++;
  CHECK(rc == 0 && lines == 1 && strstr(e, "7 joint-origin angles snapped"), "gen3: one counted snap warning:\n%s", e);
  lines = 0;
  for (const char* s = th_slurp(DIR "/g.csv"); (s = strstr(s, "snapped")); s++) lines++;
  CHECK(lines == 1, "dynid model repeats the one snap note as a comment (%d)", lines);
  return test_report();
}
