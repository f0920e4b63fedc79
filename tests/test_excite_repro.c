/* SPDX-License-Identifier: MIT */
/* dynid tests: `dynid excite` gives the same trajectory on any machine.
 * With the default options there is no time budget, so the search depends
 * only on its options and seed (the screening of the starting points, the
 * local searches of the best of them, the hop rounds, the polish): one thread and two
 * threads must write the same file (the command line and the elapsed seconds aside), and the
 * terminal line names no time cap. With --maxtime the cap is stated. */
#include "testhelp.h"
#include <string.h>
#include <sys/stat.h>

#define DIR "build/tests/exrepro"

/* the file without its command line and with every "N s" elapsed time blanked */
static void normalise(const char* in, const char* out) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "grep -v '^# command:' %s | sed 's/[0-9.]* s$//; s/[0-9.]* s;/s;/' > %s", in, out);
  CHECK(system(cmd) == 0, "normalise %s", in);
}

int main(void) {
  mkdir(DIR, 0755);
  const char* base = "./dynid excite datasets/models/puma560.csv --screen 6 --starts 4 --maxeval 60 --hops 3 "
                     "--hop-rounds 2 --hop-eval 40 --polish 100 --seed 5";
  char cmd[1024];
  for (int t = 1; t <= 2; t++) {
    snprintf(cmd, sizeof cmd, "%s --threads %d -o " DIR "/t%d.csv", base, t, t);
    CHECK(th_run(DIR, cmd) == 0, "excite --threads %d: %s", t, th_slurp(DIR "/stderr"));
    if (t == 1) CHECK(strstr(th_slurp(DIR "/stderr"), "at most") == NULL &&
                      strstr(th_slurp(DIR "/stderr"), "6 points screened, 4 of 4 starts, 6 hops"),
                      "default: no time cap, every start run: %s", th_slurp(DIR "/stderr"));
  }
  normalise(DIR "/t1.csv", DIR "/n1.csv");
  normalise(DIR "/t2.csv", DIR "/n2.csv");
  const char* a = th_slurp(DIR "/n1.csv");
  const char* b = th_slurp(DIR "/n2.csv");
  CHECK(strlen(a) > 1000 && !strcmp(a, b), "one thread and two threads write the same trajectory");
  snprintf(cmd, sizeof cmd, "%s --maxtime 100 -o " DIR "/cap.csv", base);
  CHECK(th_run(DIR, cmd) == 0 && strstr(th_slurp(DIR "/stderr"), "at most 100 s"),
        "--maxtime states its cap: %s", th_slurp(DIR "/stderr"));
  normalise(DIR "/cap.csv", DIR "/ncap.csv");
  CHECK(!strcmp(th_slurp(DIR "/ncap.csv"), th_slurp(DIR "/n1.csv")), "a cap that is not reached changes nothing");
  snprintf(cmd, sizeof cmd, "%s --maxtime -1 -o " DIR "/bad.csv", base);
  CHECK(th_run(DIR, cmd) == 2, "--maxtime -1 is a usage error");
  return test_report();
}
