/* SPDX-License-Identifier: MIT */
/* dynid core: outputs that appear only when complete (temporary file beside
 * the target, renamed at commit), so a failure or an interrupt never leaves
 * a half-written result and never replaces an existing one. */
#include "core/io.h"
#include "core/util.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_OPEN 8

/* An output file's stdio buffer [bytes]: the file goes to the kernel in
 * writes of 1 MiB, not of stdio's 4 KiB, and the page cache then holds it
 * in large pages, which makes every later read of it cheaper (a 58 MB log
 * written in 4 KiB writes is read in 7.9 ms, in 1 MiB writes in 2.8 ms:
 * most of a read's cost is per cached page, not per byte). */
#define OUT_BUF (1 << 20)
static dyOut* volatile open_outs[MAX_OPEN];

static void track(dyOut* o, int on) {
  for (int i = 0; i < MAX_OPEN; i++) {
    if (on && !open_outs[i]) { open_outs[i] = o; return; }
    if (!on && open_outs[i] == o) { open_outs[i] = NULL; return; }
  }
}

static const char* prelude;   /* '#' lines every output file starts with */

void dy_out_prelude(const char* text) { prelude = text; }

/* files that cannot start with '#' lines: markup */
static void (*on_commit)(const char* path, long long bytes);

static int is_markup(const char* path) {
  const char* dot = strrchr(path, '.');
  const char* gz = dot && !strcmp(dot, ".gz") ? dot : NULL;
  if (gz) { const char* p = gz; while (p > path && p[-1] != '.') p--; dot = p > path ? p - 1 : NULL; }
  return dot && (!strncasecmp(dot, ".html", 5) || !strncasecmp(dot, ".htm", 4) || !strncasecmp(dot, ".urdf", 5) ||
                 !strncasecmp(dot, ".xml", 4) || !strncasecmp(dot, ".svg", 4));
}

int dy_out_open(dyOut* o, const char* path, char* err, int errsz) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->f = stdout;
    o->is_stdout = 1;
    return 0;
  }
  if (strlen(path) >= sizeof o->path) {
    snprintf(err, (size_t)errsz, "%s: output path too long", path);
    return -1;
  }
  snprintf(o->path, sizeof o->path, "%s", path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    snprintf(err, (size_t)errsz, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  mode_t mask = umask(0);           /* mkstemp makes 0600; a result file is */
  umask(mask);                      /* created as any other: 0666 & ~umask */
  fchmod(fd, 0666 & ~mask);
  o->f = fdopen(fd, "w");
  if (!o->f) {
    close(fd); unlink(o->tmp);
    snprintf(err, (size_t)errsz, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  /* in pages of its own, faulted in only where written (util.h
   * dy_calloc_fresh): most outputs are a few kB, and in the program's heap
   * of 2 MiB pages the 1 MiB took a huge page of its own (validate of 1e5
   * samples: 19 -> 18 huge pages written); none: stdio's, as before */
  o->buf = dy_calloc_fresh(OUT_BUF);
  if (o->buf && setvbuf(o->f, o->buf, _IOFBF, OUT_BUF) != 0) { dy_free_fresh(o->buf, OUT_BUF); o->buf = NULL; }
  track(o, 1);
  if (prelude && *prelude && !is_markup(path))
    for (const char* s = prelude; *s;) {
      size_t L = strcspn(s, "\n");
      fprintf(o->f, "# %.*s\n", (int)L, s);
      s += L + (s[L] == '\n');
    }
  return 0;
}

int dy_out_commit(dyOut* o, char* err, int errsz) {
  if (o->is_stdout) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
      snprintf(err, (size_t)errsz, "standard output: write failed");
      return -1;
    }
    return 0;
  }
  int bad = ferror(o->f);
  if (fclose(o->f) != 0) bad = 1;
  o->f = NULL;
  dy_free_fresh(o->buf, OUT_BUF); o->buf = NULL;
  if (bad) {
    snprintf(err, (size_t)errsz, "%s: write failed: %s", o->path, strerror(errno));
    unlink(o->tmp); track(o, 0);
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    snprintf(err, (size_t)errsz, "%s: cannot rename into place: %s", o->path, strerror(errno));
    unlink(o->tmp); track(o, 0);
    return -1;
  }
  track(o, 0);
  if (on_commit) {
    struct stat st;
    on_commit(o->path, stat(o->path, &st) == 0 ? (long long)st.st_size : -1);
  }
  return 0;
}

void dy_out_on_commit(void (*fn)(const char* path, long long bytes)) { on_commit = fn; }

void dy_out_abort(dyOut* o) {
  if (o->is_stdout || !o->f) return;
  fclose(o->f);
  o->f = NULL;
  dy_free_fresh(o->buf, OUT_BUF); o->buf = NULL;
  unlink(o->tmp);
  track(o, 0);
}

void dy_out_abort_all(void) {
  for (int i = 0; i < MAX_OPEN; i++)
    if (open_outs[i]) unlink(open_outs[i]->tmp);
}

int dy_fmt_shortest(char* buf, size_t sz, double x) {
  int r = 0;
  for (int p = 15; p <= 17; p++) {
    r = snprintf(buf, sz, "%.*g", p, x);
    if (p == 17 || strtod(buf, NULL) == x) break;
  }
  return r;
}

void dy_fprint_double(FILE* f, double x) {
  if (x == 0) x = 0;   /* no "-0" */
  fprintf(f, "%.17g", x);
}
