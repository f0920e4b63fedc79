/* SPDX-License-Identifier: MIT */
/* dynid tests: bounded resources on extreme but valid inputs.
 *
 * dynid identify runs in a child process limited to BOUND_AS_MB of address
 * space (setrlimit RLIMIT_AS: the program, its libraries and allocator
 * reservations take about 230 MB of it, so about 200 MB remain for what it
 * allocates), with one OpenBLAS thread and one malloc arena (their
 * reservations would otherwise grow with the machine's cores). Each input
 * must be answered by a result (status 0) or by one line "dynid: FILE..."
 * (status 1) that is not "out of memory", and the peak resident size must
 * stay under BOUND_RSS_MB: the time steps of 1e-9 s and 1e6 s, a cutoff far
 * below and above the sample rate, 10^5 columns, 10^6 rows of one value,
 * an upsampling rate out of proportion, and the fuzz finding whose filter
 * asked for 3.5 GB. */
#include "testhelp.h"
#include "ident/filter.h"
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define BOUND_AS_MB 640
#define BOUND_RSS_MB 200
/* a sanitizer build (make asan) reserves terabytes of shadow address space
 * and keeps freed memory in quarantine: there the limits are not applied
 * (the answers are still checked); the plain build checks them */
#if defined(__SANITIZE_ADDRESS__)
#define BOUNDS_APPLY 0
#else
#define BOUNDS_APPLY 1
#endif
#define DIR "build/tests/bounds"

static const char* MODEL = DIR "/model3.csv";

/* dynid with args (NULL-terminated) under the limits; its status (-1: killed),
 * standard error in DIR/stderr, peak resident size in MB */
static int run_bounded(double* rss_mb, char* const argv[]) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit rl = {(rlim_t)BOUND_AS_MB << 20, (rlim_t)BOUND_AS_MB << 20};
    if (BOUNDS_APPLY) setrlimit(RLIMIT_AS, &rl);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("MALLOC_ARENA_MAX", "1", 1);
    int fd = open(DIR "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fo = open("/dev/null", O_WRONLY);
    dup2(fd, 2); dup2(fo, 1);
    alarm(120);
    execv("./dynid", argv);
    _exit(127);
  }
  int st;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  wait4(pid, &st, 0, &ru);
  *rss_mb = ru.ru_maxrss / 1024.0;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* identify FILE [options...]: a result or one clear line, within the bounds;
 * want: a piece of the message expected (NULL: a result, status 0) */
static void check_identify(const char* what, const char* want, const char* log, ...) {
  char* argv[24];
  int k = 0;
  argv[k++] = "dynid"; argv[k++] = "identify"; argv[k++] = (char*)MODEL; argv[k++] = (char*)log;
  va_list ap;
  va_start(ap, log);
  const char* a;
  while ((a = va_arg(ap, const char*)) && k < 20) argv[k++] = (char*)a;
  va_end(ap);
  argv[k++] = "--quiet"; argv[k++] = "-o"; argv[k++] = DIR "/p.csv"; argv[k] = NULL;
  double rss;
  int rc = run_bounded(&rss, argv);
  const char* e = th_slurp(DIR "/stderr");
  const char* nl = strchr(e, '\n');
  int one_line = !strncmp(e, "dynid: ", 7) && nl && nl[1] == 0;
  printf("  %-34s status %d, peak %.0f MB: %.160s%s", what, rc, rss, rc ? e : "result\n",
         rc && strlen(e) > 160 ? "...\n" : "");
  if (want) CHECK(rc == 1 && one_line && strstr(e, want), "%s: status 1 and one line with '%s': status %d, '%s'",
                  what, want, rc, e);
  else CHECK(rc == 0 || (rc == 1 && one_line), "%s: a result or one line: status %d, '%s'", what, rc, e);
  CHECK(!strstr(e, "out of memory"), "%s: no out-of-memory answer: '%s'", what, e);
  CHECK(!BOUNDS_APPLY || rss < BOUND_RSS_MB, "%s: peak resident %.0f MB under %d MB", what, rss, BOUND_RSS_MB);
}

/* a 3-joint log of rows samples with time step dt; extra columns of zeros */
static void write_log(const char* path, long rows, double dt, int extra) {
  FILE* f = fopen(path, "w");
  fprintf(f, "t,q1,q2,q3,tau1,tau2,tau3");
  for (int c = 0; c < extra; c++) fprintf(f, ",x%d", c);
  fputc('\n', f);
  for (long i = 0; i < rows; i++) {
    double s = 6.0 * i / rows;   /* a few periods, whatever dt */
    fprintf(f, "%.17g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", i * dt, sin(s), sin(1.7 * s + 1), 0.5 * sin(2.9 * s + 2),
            3 * cos(s), 2 * cos(1.7 * s), cos(2.9 * s));
    for (int c = 0; c < extra; c++) fputs(",0", f);
    fputc('\n', f);
  }
  fclose(f);
}

/* the filters' own caps, whatever they are asked */
static void check_filter_caps(void) {
  dyiButter b;
  CHECK(dyi_butter_design(&b, 4, 1e-300, 1) < 0, "no Butterworth filter at a cutoff of 1e-300 of the rate");
  CHECK(dyi_butter_design(&b, 16, 1e-6, 1) == 0, "order 16 at 1e-6 of the rate designs");
  double bytes;
  CHECK(dyi_zpf_block(&b, 129, 33, &bytes) == 0 && bytes > DYI_ZPF_MAXBYTES,
        "its zero-phase filter does not fit (%.3g bytes)", bytes);
  CHECK(dyi_zpf_make(&b, 129, 33, 0) == NULL, "and is not made");
  dyi_butter_design(&b, 4, 2e-3, 1);
  long B = dyi_zpf_block(&b, 129, 33, &bytes);
  int M = dyi_butter_margin(&b);
  CHECK(B >= M / 4 && B < 4 * M && bytes <= DYI_ZPF_MAXBYTES,
        "a long margin takes a shorter block within the cap: M %d, B %ld, %.3g bytes", M, B, bytes);
  dyiZpf* z = dyi_zpf_make(&b, 129, 33, 0);
  CHECK(z && dyi_zpf_capacity(z) == B + M + 1, "and is made");
  dyi_zpf_free(z);
  dyiFir f;
  dyi_fir_design(&f, 1000, 0, 1);
  dyiDecim* d = dyi_decim_make(&f, 3000, 9, 1 << 24);
  CHECK(d && dyi_decim_guard(d) < (1 << 24) && dyi_decim_size(d) * 8.0 <= 2.1 * DYI_DECIM_MAXRING,
        "a guard of 2^24 samples of 3009 values is shortened to %d (%ld doubles)",
        d ? dyi_decim_guard(d) : -1, d ? dyi_decim_size(d) : -1L);
  dyi_decim_free(d);
  dyi_fir_free(&f);
}

int main(void) {
  check_filter_caps();
  mkdir("build", 0755); mkdir("build/tests", 0755); mkdir(DIR, 0755);
  FILE* f = fopen(MODEL, "w");
  fprintf(f, "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,0,0,0,0.3,2,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
             "2,R,1.5707963267948966,0.2,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
             "3,R,0,0.3,0,0,1,0.1,0.02,0,0.01,0,0,0.01,0,0.01\n");
  fclose(f);
  printf("identify within %d MB of address space, %d MB resident:\n", BOUND_AS_MB, BOUND_RSS_MB);

  /* the fuzz finding: a time column whose steps put the cutoff at 3e-6 of the rate */
  check_identify("filter asking for 3.5 GB", "of the sample rate",
                 "tests/fuzz/regress/log/log_filter_3.5GB.csv", "--no-header", "--on-bad", "drop", NULL);

  write_log(DIR "/ok.csv", 3000, 1e-3, 0);
  check_identify("1 kHz log (reference)", NULL, DIR "/ok.csv", NULL);
  check_identify("cutoff 1e-9 Hz at 1 kHz", "check the time column or --time-scale", DIR "/ok.csv",
                 "--cutoff", "1e-9", NULL);
  check_identify("cutoff 1e-300 Hz at 1 kHz", "of the sample rate", DIR "/ok.csv", "--cutoff", "1e-300", NULL);
  check_identify("cutoff 1 GHz at 1 kHz", "Nyquist", DIR "/ok.csv", "--cutoff", "1e9", NULL);
  check_identify("resample at 1 GHz", "--resample", DIR "/ok.csv", "--resample", "1e9", NULL);
  check_identify("resample at 1e-300 Hz", NULL, DIR "/ok.csv", "--resample", "1e-300", NULL);
  check_identify("time scale 1e-300", NULL, DIR "/ok.csv", "--time-scale", "1e-300", NULL);

  write_log(DIR "/dt1ns.csv", 3000, 1e-9, 0);
  check_identify("time step 1e-9 s", "cutoff 10 Hz is 1e-08 of the sample rate 1 GHz", DIR "/dt1ns.csv", NULL);
  write_log(DIR "/dt1e6.csv", 3000, 1e6, 0);
  check_identify("time step 1e6 s", NULL, DIR "/dt1e6.csv", NULL);

  write_log(DIR "/cols.csv", 200, 1e-3, 100000 - 7);
  check_identify("10^5 columns", NULL, DIR "/cols.csv", "--cutoff", "none", NULL);
  write_log(DIR "/cols2.csv", 3, 1e-3, 140000);
  check_identify("140007 columns", "more than 131072 columns", DIR "/cols2.csv", NULL);

  f = fopen(DIR "/same.csv", "w");
  fputs("t,q1,q2,q3,tau1,tau2,tau3\n", f);
  for (long i = 0; i < 1000000; i++) fputs("1,1,1,1,1,1,1\n", f);
  fclose(f);
  check_identify("10^6 rows of one value", "time", DIR "/same.csv", NULL);
  check_identify("10^6 rows of one value, dropped", "usable row", DIR "/same.csv", "--on-bad", "drop", NULL);
  unlink(DIR "/same.csv"); unlink(DIR "/cols.csv"); unlink(DIR "/cols2.csv");
  return test_report();
}
