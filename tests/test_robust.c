/* SPDX-License-Identifier: MIT */
/* dynid tests: robustness of the program as a whole.
 * An interrupt (SIGINT) in the middle of a long run leaves neither the
 * output nor a temporary file, and an existing output stays as it was.
 * (tests/test_fuzz_regress.c replays tests/fuzz/regress/ through every
 * reader, tests/test_bounds.c holds identify to its memory bound.) */
#include "testhelp.h"
#include "core/io.h"
#include "core/dynamics.h"
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int exists(const char* p) { struct stat st; return stat(p, &st) == 0; }

static int count_tmp(const char* dir, const char* prefix) {
  DIR* d = opendir(dir);
  int k = 0;
  struct dirent* e;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".tmp.")) k++;
  if (d) closedir(d);
  return k;
}

static void check_sigint(void) {
  const char* model = "build/tests/robust_model.csv";
  const char* states = "build/tests/robust_states.csv";
  const char* out = "build/tests/robust_out.csv";
  FILE* f = fopen(model, "w");
  fprintf(f, "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,0,0,0,0.3,2,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
             "2,R,1.5707963267948966,0.2,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01\n");
  fclose(f);
  f = fopen(states, "w");
  fprintf(f, "q1,q2,qd1,qd2,qdd1,qdd2\n");
  for (long i = 0; i < 1500000; i++) fprintf(f, "%ld,0.2,0.3,0.4,0.5,0.6\n", i % 7);
  fclose(f);
  /* an existing output must survive the interrupted run untouched */
  f = fopen(out, "w");
  fprintf(f, "previous result\n");
  fclose(f);
  pid_t pid = fork();
  if (pid == 0) {
    execl("./dynid", "dynid", "inertia", model, states, "-o", out, (char*)NULL);
    _exit(127);
  }
  usleep(300000);
  kill(pid, SIGINT);
  int st;
  waitpid(pid, &st, 0);
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "dynid inertia ends by SIGINT (status %d)", st);
  f = fopen(out, "r");
  char line[64] = "";
  if (f) { if (!fgets(line, sizeof line, f)) line[0] = 0; fclose(f); }
  CHECK(!strcmp(line, "previous result\n"), "existing output untouched after SIGINT: '%s'", line);
  CHECK(count_tmp("build/tests", "robust_out.csv") == 0, "no temporary file left after SIGINT");
  unlink(out);
  /* without a previous output, nothing appears */
  pid = fork();
  if (pid == 0) {
    execl("./dynid", "dynid", "inertia", model, states, "-o", out, (char*)NULL);
    _exit(127);
  }
  usleep(300000);
  kill(pid, SIGINT);
  waitpid(pid, &st, 0);
  CHECK(!exists(out), "no output after SIGINT");
  CHECK(count_tmp("build/tests", "robust_out.csv") == 0, "no temporary file after SIGINT (2)");
  unlink(states);
}

int main(void) {
  check_sigint();
  return test_report();
}
