/* SPDX-License-Identifier: MIT */
/* dynid tests: one log parsed by byte ranges on two and three threads
 * (dyi_lograw_split, ident/log.c) against the same log read on one
 * thread: every row (data row, file line, t, q, qd, qdd, tau bit for bit),
 * the end, the error message and the data-quality findings must be the
 * same. Files of random %.17g numbers, cut into ranges of a few dozen to a
 * few hundred bytes so that the cuts fall everywhere: plain LF and CRLF
 * lines, comment and blank lines, quoted cells (some holding a newline,
 * across a cut), a header after comments, --rows ranges, a bad cell in a
 * later range (stop: the message at its FILE:ROW:COL; drop: the same rows
 * kept), a NaN in an unused column, a last line without a newline; rows
 * a NUL byte in a number or in an unused cell; a file cut shorter after
 * it was opened; rows
 * that outgrow the parsers' first room (sized on a sample of the lines:
 * long lines first, short ones after) and lines too long to size it.
 * Then the program: dynid identify --threads 1 and 2 write the same
 * PARAMS. */
#include "testhelp.h"
#include "ident/log.h"
#include "ident/quality.h"
#include "core/io.h"
#include "core/model.h"
#include <unistd.h>

static char dir[] = "/tmp/dynid_logsplit_XXXXXX";

/* what a case's file holds (besides the 7 numeric columns of 2 joints) */
typedef struct {
  const char* name;
  int crlf, comments, quoted, badrow, nanrow, nolastnl;
  long first, last;        /* --rows */
  int drop;                /* on_bad drop */
  long nul;                /* 1 + the row with a NUL byte (0: none) ... */
  int nulcol;              /* ... after its cell in this column (7: the unused one) */
} splitCase;

/* a random %.17g number, time increasing */
static void cell(FILE* f, int c, long i) {
  if (c == 0) fprintf(f, "%.17g", 0.001 * (double)i + th_uniform(0, 1e-5));
  else fprintf(f, "%.17g", th_uniform(-3, 3) * pow(10, floor(th_uniform(-3, 2))));
}

/* one data row of the case (and the odd comment/blank line before it) */
static void row(FILE* f, const splitCase* k, long i) {
  const char* nl = k->crlf ? "\r\n" : "\n";
  if (k->comments && i % 37 == 5) fprintf(f, "# a comment, 1,2,3%s", nl);
  if (k->comments && i % 53 == 7) fputs(nl, f);
  for (int c = 0; c < 7; c++) {
    if (c) fputc(',', f);
    if (i == k->badrow && c == 3) fputs("1.5x", f);
    else cell(f, c, i);
    if (i + 1 == k->nul && c == k->nulcol) fputc(0, f);
  }
  if (k->quoted && i % 11 == 3) fprintf(f, ",\"a note,%sacross a line\"", nl);
  else if (k->quoted && i % 11 == 8) fputs(",\"n\"", f);
  else fprintf(f, ",%s", i == k->nanrow ? "nan" : "7");
  if (i + 1 == k->nul && k->nulcol == 7) fputc(0, f);
  if (!(k->nolastnl && i == 399)) fputs(nl, f);
}

static void write_case(const char* path, const splitCase* k) {
  FILE* f = fopen(path, "w");
  if (!f) return;
  fputs("# recorded by a test\n# second comment\n", f);
  fprintf(f, "t,q1,q2,qd1,qd2,tau1,tau2,%s%s", k->quoted ? "note" : "extra", k->crlf ? "\r\n" : "\n");
  for (long i = 0; i < 400; i++) row(f, k, i);
  fclose(f);
}

/* the findings as dyi_quality_print writes them (malloc'd) */
static char* findings(dyiLogRaw* r) {
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (f) { dyi_quality_print(f, dyi_lograw_quality(r)); fclose(f); }
  return text;
}

/* 1 when the rows are the same, bit for bit */
static int same_row(const dyiLogRow* a, const dyiLogRow* b) {
  return a->row == b->row && a->line == b->line && !memcmp(&a->t, &b->t, sizeof a->t) &&
         !memcmp(a->q, b->q, sizeof(double) * 2) && !memcmp(a->qd, b->qd, sizeof(double) * 2) &&
         !memcmp(a->tau, b->tau, sizeof(double) * 2);
}

/* the case read on one thread and split in ranges of `block` bytes on
 * `parsers` threads */
/* ... with cut > 0: the file cut to cut bytes after the split reader
 * opened it (and took its size), before the split and before the
 * one-thread reader opens it */
static void compare(const char* path, const splitCase* k, long long block, int parsers, long long cut) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  o.row_first = k->first; o.row_last = k->last; o.on_bad = k->drop;
  char e1[DY_ERRSZ] = "", e2[DY_ERRSZ] = "";
  dyiLogRaw* b = dyi_lograw_open(path, 2, &o, e2, sizeof e2);
  if (cut > 0) CHECK(truncate(path, cut) == 0, "%s: cut to %lld bytes", k->name, cut);
  dyiLogRaw* a = dyi_lograw_open(path, 2, &o, e1, sizeof e1);
  CHECK(a && b, "%s: opened (%s)", k->name, e1);
  if (!a || !b) { dyi_lograw_close(a); dyi_lograw_close(b); return; }
  int split = dyi_lograw_split(b, parsers, block);
  CHECK(split == 0, "%s: split in ranges of %lld bytes on %d threads", k->name, block, parsers);
  long rows = 0, diff = 0;
  int ra, rb;
  dyiLogRow x, y;
  do {
    ra = dyi_lograw_next(a, &x, e1, sizeof e1);
    rb = dyi_lograw_next(b, &y, e2, sizeof e2);
    rows += ra == 1;
    diff += ra != rb || (ra == 1 && !same_row(&x, &y));
  } while (ra == 1 && rb == 1);
  CHECK(diff == 0 && rows > 0, "%s, ranges of %lld bytes on %d threads: %ld rows, %ld differ", k->name, block,
        parsers, rows, diff);
  CHECK(ra == rb && (ra == 0 || !strcmp(e1, e2)), "%s: the same end (%d %d) '%s' vs '%s'", k->name, ra, rb, e1, e2);
  char *fa = findings(a), *fb = findings(b);
  CHECK(fa && fb && !strcmp(fa, fb), "%s: the same findings:\n%s\nvs\n%s", k->name, fa, fb);
  free(fa); free(fb);
  dyi_lograw_close(a); dyi_lograw_close(b);
}

static const splitCase cases[] = {
  {"plain", 0, 0, 0, -1, -1, 0, 0, 0, 0, 0, 0},
  {"CRLF", 1, 0, 0, -1, -1, 0, 0, 0, 0, 0, 0},
  {"comments and blank lines", 0, 1, 0, -1, -1, 0, 0, 0, 0, 0, 0},
  {"quoted cells, some across lines", 0, 0, 1, -1, -1, 0, 0, 0, 0, 0, 0},
  {"CRLF, comments, quotes", 1, 1, 1, -1, -1, 0, 0, 0, 0, 0, 0},
  {"--rows 50..300", 0, 1, 0, -1, -1, 0, 50, 300, 0, 0, 0},
  {"a bad cell at row 250 (stop)", 0, 0, 0, 250, -1, 0, 0, 0, 0, 0, 0},
  {"a bad cell at row 250 (drop)", 0, 1, 0, 250, -1, 0, 0, 0, 1, 0, 0},
  {"NaN in an unused column", 0, 0, 0, -1, 310, 0, 0, 0, 0, 0, 0},
  {"no newline at the end", 1, 0, 0, -1, -1, 1, 0, 0, 0, 0, 0},
  {"a NUL byte after a number at row 200 (stop)", 0, 0, 0, -1, -1, 0, 0, 0, 0, 201, 2},
  {"a NUL byte in the unused cell at row 200 (stop)", 0, 0, 0, -1, -1, 0, 0, 0, 0, 201, 7},
  {"a NUL byte in the unused cell at row 200 (drop)", 0, 1, 0, -1, -1, 0, 0, 0, 1, 201, 7},
};

static void check_cases(void) {
  static const long long blocks[] = {37, 100, 257, 1000};
  char path[128];
  snprintf(path, sizeof path, "%s/log.csv", dir);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    write_case(path, &cases[c]);
    for (int b = 0; b < TH_SWEEP(4); b++)
      for (int t = 2; t <= 3; t++) compare(path, &cases[c], blocks[b], t, 0);
  }
}

/* The parsers' first room is sized on the lines of 64 KiB of the file:
 * long lines there and short ones after make a range hold more rows than
 * that room (the slots grow into allocations of their own); lines of
 * 20 kB leave fewer than 8 in the sample (no first room: each slot grows
 * from nothing). Both against the one-thread read. */
static void check_growth(void) {
  static const struct { long rows, longrows, pad; long long block; } g[] = {
    {3000, 300, 2000, 100000}, {60, 60, 20000, 50000}};
  const splitCase k = {"growth", 0, 0, 0, -1, -1, 0, 0, 0, 0, 0, 0};
  char path[128];
  snprintf(path, sizeof path, "%s/grow.csv", dir);
  for (int c = 0; c < 2; c++) {
    FILE* f = fopen(path, "w");
    CHECK(f != NULL, "write %s", path);
    if (!f) return;
    fputs("t,q1,q2,qd1,qd2,tau1,tau2,extra\n", f);
    for (long i = 0; i < g[c].rows; i++) {
      for (int col = 0; col < 7; col++) {
        if (col) fputc(',', f);
        cell(f, col, i);
      }
      fputs(",7", f);
      for (long p = 0; i < g[c].longrows && p < g[c].pad; p++) fputc('7', f);
      fputc('\n', f);
    }
    fclose(f);
    for (int t = 2; t <= 3; t++) compare(path, &k, g[c].block, t, 0);
  }
}

/* a log cut shorter after it was opened (its size taken) and before the
 * parsers start, inside a line and at a line end, past what the reader's
 * own buffer holds (64 KiB): the parsers read it mapped, where a page past
 * the file's end would raise SIGBUS; the rows, the end and the findings
 * must be those of a reader of the cut file */
static void check_cut(void) {
  const splitCase k = {"cut shorter", 0, 0, 0, -1, -1, 0, 0, 0, 0, 0, 0};
  char path[128];
  snprintf(path, sizeof path, "%s/cut.csv", dir);
  for (int at = 0; at < 2; at++)
    for (int t = 2; t <= 3; t++) {
      FILE* f = fopen(path, "w");
      CHECK(f != NULL, "write %s", path);
      if (!f) return;
      fputs("t,q1,q2,qd1,qd2,tau1,tau2,extra\n", f);
      for (long i = 0; i < 3000; i++) row(f, &k, i);
      fclose(f);
      char* text = th_read_file(path);
      CHECK(text != NULL, "read %s", path);
      if (!text) return;
      const char* mid = text + strlen(text) / 2 + 7;
      long long cut = (long long)(mid - text);
      if (at) cut = (long long)(strchr(mid, '\n') + 1 - text);
      free(text);
      compare(path, &k, 4096, t, cut);
    }
}

/* a log of wide rows written by the program, identified on 1 and 2 threads:
 * the same PARAMS file but for its command line */
static void check_program(void) {
  char cmd[1024], p1[160], p2[160];
  snprintf(cmd, sizeof cmd, "./dynid simulate datasets/models/panda.csv fourier --duration 6 --rate 1000 "
           "--noise 0.05 -o %s/wide.csv 2>/dev/null", dir);
  CHECK(system(cmd) == 0, "simulate a 6000-sample log");
  for (int t = 1; t <= 2; t++) {
    snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s/wide.csv --friction --quiet "
             "--threads %d -o %s/p%d.csv 2>/dev/null", dir, t, dir, t);
    CHECK(system(cmd) == 0, "identify --threads %d", t);
  }
  snprintf(p1, sizeof p1, "%s/p1.csv", dir);
  snprintf(p2, sizeof p2, "%s/p2.csv", dir);
  char *a = th_read_file(p1), *b = th_read_file(p2);
  const char *ra = a ? strstr(a, "\n# model") : NULL, *rb = b ? strstr(b, "\n# model") : NULL;
  CHECK(ra && rb && !strcmp(ra, rb), "identify --threads 1 and 2: the same PARAMS after the command line");
  free(a); free(b);
}

int main(void) {
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  check_cases();
  check_growth();
  check_cut();
  check_program();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return 1;
  return test_report();
}
