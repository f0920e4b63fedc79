/* SPDX-License-Identifier: MIT */
/* dynid tests: the fuzz regression corpus, replayed without libFuzzer.
 *
 * Every file in tests/fuzz/regress/<target>/ (findings of make fuzz, copied
 * there by the fuzz target of the Makefile, and hand-made nasty inputs) is
 * run through the very function the fuzz target fuzz_<target>.c hands to
 * libFuzzer, each in a child process with a limit on its address space and
 * on its time: a crash, an abort (a target's own check: an error that does
 * not name its file on one line, a round trip that changes the torques), an
 * allocation past the limit or a hang fails that file. Under ASan (make
 * asan) the address-space limit is left out (the shadow memory needs it). */
#include "testhelp.h"
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_DIR "build/tests"
#define LLVMFuzzerTestOneInput fuzz_one_table
#include "fuzz/fuzz_table.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_urdf
#include "fuzz/fuzz_urdf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_log
#include "fuzz/fuzz_log.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_params
#include "fuzz/fuzz_params.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_roundtrip
#include "fuzz/fuzz_roundtrip.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_logs
#include "fuzz/fuzz_logs.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_stats
#include "fuzz/fuzz_stats.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_trans
#include "fuzz/fuzz_trans.c"
#undef LLVMFuzzerTestOneInput

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define REPLAY_AS_MB 1024     /* address space of one replay */
#define REPLAY_MALLOC_MB 512  /* one allocation, as make fuzz's -malloc_limit_mb */

#ifndef UNDER_ASAN
/* make fuzz's malloc limit: a larger request aborts (it would merely fail
 * under the address-space limit, and the reader might report it cleanly) */
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
static void too_large(size_t n) {
  fprintf(stderr, "replay: malloc(%zu) above the %d MB limit\n", n, REPLAY_MALLOC_MB);
  abort();
}
void* malloc(size_t n) {
  if (n > ((size_t)REPLAY_MALLOC_MB << 20)) too_large(n);
  return __libc_malloc(n);
}
void* calloc(size_t k, size_t n) {
  if (n && k > ((size_t)REPLAY_MALLOC_MB << 20) / n) too_large(k * n);
  return __libc_calloc(k, n);
}
void* realloc(void* p, size_t n) {
  if (n > ((size_t)REPLAY_MALLOC_MB << 20)) too_large(n);
  return __libc_realloc(p, n);
}
#endif
#define REPLAY_SECONDS 60     /* make fuzz: 10 s per input, under ASan */
#define REPLAY_MAXIN (1 << 20)

typedef int (*fuzz_fn)(const uint8_t*, size_t);

static const struct { const char* name; fuzz_fn fn; } TARGETS[] = {
  {"table", fuzz_one_table}, {"urdf", fuzz_one_urdf}, {"log", fuzz_one_log},
  {"params", fuzz_one_params}, {"roundtrip", fuzz_one_roundtrip}, {"stats", fuzz_one_stats},
  {"logs", fuzz_one_logs}, {"trans", fuzz_one_trans},
};

/* one input through one target in a child: 0 when it returned normally */
static int replay(fuzz_fn fn, const char* path, char* why, size_t whysz) {
  FILE* f = fopen(path, "rb");
  if (!f) { snprintf(why, whysz, "cannot open"); return -1; }
  static uint8_t buf[REPLAY_MAXIN];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
#ifndef UNDER_ASAN
    struct rlimit rl = {(rlim_t)REPLAY_AS_MB << 20, (rlim_t)REPLAY_AS_MB << 20};
    setrlimit(RLIMIT_AS, &rl);
#endif
    alarm(REPLAY_SECONDS);
    fn(buf, n);
    _exit(0);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) { snprintf(why, whysz, "fork failed"); return -1; }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFSIGNALED(st))
    snprintf(why, whysz, "%s", WTERMSIG(st) == SIGALRM ? "took longer than the time limit"
             : WTERMSIG(st) == SIGABRT ? "aborted (a target's check, or an allocation past the limit)"
             : strsignal(WTERMSIG(st)));
  else snprintf(why, whysz, "exit status %d", WEXITSTATUS(st));
  return -1;
}

int main(void) {
  mkdir("build", 0755);
  mkdir("build/tests", 0755);
  int total = 0;
  for (size_t t = 0; t < sizeof TARGETS / sizeof TARGETS[0]; t++) {
    char dir[256];
    snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", TARGETS[t].name);
    DIR* d = opendir(dir);
    int k = 0;
    struct dirent* e;
    while (d && (e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char path[512], why[200] = "";
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      int r = replay(TARGETS[t].fn, path, why, sizeof why);
      CHECK(r == 0, "%s: %s", path, why);
      k++;
    }
    if (d) closedir(d);
    CHECK(k > 0, "%s: regression inputs replayed: %d", dir, k);
    total += k;
  }
  printf("%d regression inputs replayed through %d fuzz targets\n", total,
         (int)(sizeof TARGETS / sizeof TARGETS[0]));
  return test_report();
}
