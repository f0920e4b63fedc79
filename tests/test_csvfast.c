/* SPDX-License-Identifier: MIT */
/* dynid tests: the CSV reader's fast path (core/csvread.c split_plain)
 * against libcsv.
 *
 * The reader splits plain lines (',' or ';', no quote, blank, tab or inner
 * CR) itself and leaves everything else to libcsv; dy_csv_set_fast(c, 0)
 * sends every line through libcsv. The fast path must never change a
 * result, so:
 *  - 3000 seeded random files (biased to the bytes that matter: digits, '.',
 *    '-', 'e', ',', ';', '"', blank, tab, CR, LF, '#', letters; a BOM, a
 *    missing final newline, long fields, many fields, gzip sometimes) are
 *    read by two readers, fast path on and off, call by call: the same
 *    return code, field count, field bytes, dy_csv_line, error message and
 *    directive callbacks;
 *  - hand-written files with their rows written out, so that both paths
 *    being wrong the same way fails too;
 *  - the number of rows the fast path returned is checked (a plain numeric
 *    file goes through it entirely, the libcsv reader never uses it), so a
 *    fast path that is never taken fails;
 *  - the lines as numbers in one pass (dy_csv_next_numbers) against
 *    dy_csv_next_plain with dy_strtod on each split field: 600 random
 *    files of numbers and the tokens that could fool a one-pass reading
 *    (blanks, '\v', signs and points alone, "1e", inf, nan(...), hex,
 *    empty fields, quotes, CR inside lines, the other delimiter), the
 *    random files above too: the same answer, values bit for bit, the
 *    same position and line count after every call; a plain numeric
 *    file is read whole as numbers. */
#include "testhelp.h"
#include "core/io.h"
#include "core/numparse.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char dir[64], path[128];

static int write_file(const char* text, size_t len, int gz) {
  if (gz) {
    gzFile g = gzopen(path, "wb");
    if (!g) return -1;
    int ok = len == 0 || gzwrite(g, text, (unsigned)len) == (int)len;
    return gzclose(g) == Z_OK && ok ? 0 : -1;
  }
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* ------------------------------------------------ directive callback */

typedef struct { char log[4096]; size_t n; } dirLog;

/* records "LINE:TEXT;" and refuses a directive holding "!!" */
static int on_dir(void* ud, const char* text, long line, char* err, int errsz) {
  dirLog* d = ud;
  if (d->n < sizeof d->log - 1)
    d->n += (size_t)snprintf(d->log + d->n, sizeof d->log - d->n, "%ld:%s;", line, text);
  if (d->n > sizeof d->log - 1) d->n = sizeof d->log - 1;
  if (strstr(text, "!!")) { snprintf(err, (size_t)errsz, "line %ld: directive refused", line); return 1; }
  return 0;
}

/* ------------------------------------------------ the random files */

static unsigned long long rs = 0x2545F4914F6CDD1Dull;
static unsigned rnd(unsigned n) { return (unsigned)(dy_rng_splitmix(&rs) % n); }
static int chance(double p) { return dy_rng_u01(dy_rng_splitmix(&rs)) < p; }

typedef struct { char* b; size_t n, cap; } buf;
static void put(buf* o, char ch) {
  if (o->n + 1 >= o->cap) {
    o->cap = o->cap ? 2 * o->cap : 1 << 16;
    o->b = realloc(o->b, o->cap);
    if (!o->b) { fprintf(stderr, "out of memory\n"); exit(2); }
  }
  o->b[o->n++] = ch;
}
static void puts_(buf* o, const char* s) { while (*s) put(o, *s++); }

static const char TRICKY[] = "\"\" \t\r\n#,;,;xE+";
static const char NUMERIC[] = "0123456789012345678901234567890123456789.-e";
static const char BIASED[] = "0123456789.-e,;\"\" \t\r\n\n#aZq,,;";

/* one character of a field: numeric, or with probability trick a byte
 * libcsv treats specially (or a delimiter, letter or '#'), rarely a high
 * or control byte */
static char field_char(double trick) {
  if (chance(trick)) return TRICKY[rnd(sizeof TRICKY - 1)];
  if (chance(0.002)) return (char)(0x80 + rnd(128));
  if (chance(0.002)) return (char)(1 + rnd(8));   /* \x01..\x08: plain bytes for libcsv */
  return NUMERIC[rnd(sizeof NUMERIC - 1)];
}

static void gen_row(buf* o, char delim, double trick) {
  int nf = chance(0.1) ? 33 + (int)rnd(80) : 1 + (int)rnd(25);
  if (chance(0.05)) puts_(o, chance(0.5) ? " " : "\t");   /* leading blank */
  for (int i = 0; i < nf; i++) {
    if (i) put(o, chance(0.02) ? (delim == ',' ? ';' : ',') : delim);
    if (chance(0.08)) continue;                             /* empty field */
    if (chance(trick)) {                                    /* quoted, may hold anything */
      put(o, '"');
      for (int k = (int)rnd(8); k > 0; k--) {
        char ch = BIASED[rnd(sizeof BIASED - 1)];
        if (ch == '"' && chance(0.7)) put(o, '"');          /* mostly escaped */
        put(o, ch);
      }
      if (chance(0.9)) put(o, '"');
      continue;
    }
    int len = chance(0.005) ? 2000 + (int)rnd(6000) : 1 + (int)rnd(12);
    if (chance(0.05)) { puts_(o, chance(0.5) ? "t_s" : "tau1"); len = (int)rnd(2); }
    for (int k = 0; k < len; k++) put(o, field_char(trick));
  }
  if (chance(0.05)) put(o, delim);                          /* trailing delimiter */
  int end = (int)rnd(100);
  puts_(o, end < 75 ? "\n" : end < 95 ? "\r\n" : end < 98 ? "\r\r\n" : " \n");
}

/* a whole file into o: rows of fields, comments, directives and blank
 * lines, or (one file in eight) bytes drawn from the biased alphabet */
static void gen_file(buf* o, int* gz) {
  o->n = 0;
  *gz = chance(0.1);
  if (chance(0.1)) puts_(o, "\xef\xbb\xbf");
  if (chance(0.125)) {
    for (int k = (int)rnd(400); k > 0; k--) {
      if (chance(0.003)) for (int j = 5000; j > 0; j--) put(o, NUMERIC[rnd(10)]);
      put(o, BIASED[rnd(sizeof BIASED - 1)]);
    }
  } else {
    static const double tricks[] = {0, 0, 0.0005, 0.002, 0.01, 0.05, 0.2};
    double trick = tricks[rnd(sizeof tricks / sizeof tricks[0])];
    static const char delims[] = ",,,,;;\t ";
    char delim = delims[rnd(sizeof delims - 1)];
    for (int l = 1 + (int)rnd(40); l > 0; l--) {
      int kind = (int)rnd(100);
      if (kind < 4) puts_(o, chance(0.5) ? "# a comment, with \"quotes\"\n" : "  #x;y\r\n");
      else if (kind < 7) puts_(o, chance(0.8) ? "#! gravity, 0, 0, -9.81\n" : "#! no!! \n");
      else if (kind < 10) puts_(o, kind == 7 ? "\n" : kind == 8 ? "\r\n" : " \t \n");
      else gen_row(o, delim, trick);
    }
  }
  if (o->n && chance(0.15)) {                               /* no final newline */
    o->n--;
    if (chance(0.5) && o->n && o->b[o->n - 1] == '\r') o->n--;
  }
}

/* ------------------------------------------------ reading both ways */

typedef struct {
  dyCsv* c;
  dirLog d;
  char err[DY_ERRSZ];
} reader;

static int open_reader(reader* r, int fast, int with_dir) {
  memset(r, 0, sizeof *r);
  r->c = dy_csv_open(path, r->err, sizeof r->err);
  if (!r->c) return -1;
  dy_csv_set_fast(r->c, fast);
  if (with_dir) dy_csv_on_directive(r->c, on_dir, &r->d);
  return 0;
}

static long fast_total, rows_total, calls_total;

/* read the file at path with the fast path on and off, call by call, to
 * the end or the first error; three checks: every call agreed (or the first
 * difference), the directives agreed, the libcsv reader never took the fast
 * path */
static void compare_file(const char* what, int with_dir) {
  reader a, b;
  memset(&b, 0, sizeof b);
  if (open_reader(&a, 1, with_dir) || open_reader(&b, 0, with_dir)) {
    CHECK(0, "%s: open: %s %s", what, a.err, b.err);
    dy_csv_close(a.c); dy_csv_close(b.c);
    return;
  }
  for (int call = 1;; call++) {
    char **fa, **fb; int na = -7, nb = -7;
    a.err[0] = b.err[0] = 0;
    int ra = dy_csv_next(a.c, &fa, &na, a.err, sizeof a.err);
    int rb = dy_csv_next(b.c, &fb, &nb, b.err, sizeof b.err);
    char diff[2 * DY_ERRSZ + 64] = "";
    if (ra != rb) snprintf(diff, sizeof diff, "return %d vs %d (%s | %s)", ra, rb, a.err, b.err);
    else if (ra == -1 && strcmp(a.err, b.err)) snprintf(diff, sizeof diff, "error '%s' vs '%s'", a.err, b.err);
    else if (ra == 1 && na != nb) snprintf(diff, sizeof diff, "%d fields vs %d", na, nb);
    else if (ra == 1 && dy_csv_line(a.c) != dy_csv_line(b.c))
      snprintf(diff, sizeof diff, "line %ld vs %ld", dy_csv_line(a.c), dy_csv_line(b.c));
    else if (ra == 1)
      for (int i = 0; i < na && !diff[0]; i++) {
        size_t la = strlen(fa[i]), lb = strlen(fb[i]);
        if (la != lb || memcmp(fa[i], fb[i], la))
          snprintf(diff, sizeof diff, "field %d: '%.60s' (%zu bytes) vs '%.60s' (%zu bytes)", i + 1, fa[i], la,
                   fb[i], lb);
      }
    if (!diff[0] && dy_csv_delim(a.c) != dy_csv_delim(b.c))
      snprintf(diff, sizeof diff, "delimiter '%c' vs '%c'", dy_csv_delim(a.c), dy_csv_delim(b.c));
    calls_total++;
    if (diff[0]) { CHECK(0, "%s, call %d: fast path vs libcsv: %s", what, call, diff); break; }
    if (ra != 1) { CHECK(1, "%s: %d calls agree", what, call); break; }
    rows_total++;
  }
  CHECK(a.d.n == b.d.n && !memcmp(a.d.log, b.d.log, a.d.n), "%s: directives '%.*s' vs '%.*s'", what,
        (int)a.d.n, a.d.log, (int)b.d.n, b.d.log);
  CHECK(dy_csv_fast_rows(b.c) == 0, "%s: the libcsv reader took the fast path %ld times", what,
        dy_csv_fast_rows(b.c));
  fast_total += dy_csv_fast_rows(a.c);
  dy_csv_close(a.c);
  dy_csv_close(b.c);
}

static void check_random(void) {
  buf o = {0};
  const int N = 3000;
  int written = 0;
  for (int i = 0; i < N; i++) {
    int gz;
    gen_file(&o, &gz);
    if (write_file(o.b ? o.b : "", o.n, gz)) continue;
    written++;
    char what[64];
    snprintf(what, sizeof what, "random file %d", i);
    compare_file(what, (int)(i % 3 != 0));
  }
  free(o.b);
  CHECK(written == N, "random files written: %d of %d", written, N);
  /* both paths carried a good share of the rows */
  CHECK(fast_total > rows_total / 4 && fast_total < rows_total * 9 / 10,
        "random files: %ld of %ld rows on the fast path", fast_total, rows_total);
  printf("random files: %d, calls %ld, rows %ld, of them on the fast path %ld\n", N, calls_total, rows_total,
         fast_total);
}

/* ------------------------------------------------ hand-written cases */

/* every row as "LINE:f1|f2|...", rows joined by '/', then the end: "." for
 * end of file or "!ERROR" (the error message after the file name) */
static void render(int fast, char* out, size_t outsz, long* nfast) {
  char err[DY_ERRSZ];
  size_t n = 0;
  out[0] = 0;
  dyCsv* c = dy_csv_open(path, err, sizeof err);
  if (!c) { snprintf(out, outsz, "open: %s", err); return; }
  dy_csv_set_fast(c, fast);
  char** f; int nf, r;
  while ((r = dy_csv_next(c, &f, &nf, err, sizeof err)) == 1) {
    n += (size_t)snprintf(out + n, outsz - n, "%s%ld:", n ? "/" : "", dy_csv_line(c));
    for (int i = 0; i < nf && n < outsz; i++) n += (size_t)snprintf(out + n, outsz - n, "%s%s", i ? "|" : "", f[i]);
    if (n >= outsz) { snprintf(out, outsz, "(too long)"); break; }
  }
  size_t pl = strlen(path);
  if (n < outsz)
    snprintf(out + n, outsz - n, "%s", r == 0 ? "." : !strncmp(err, path, pl) ? err + pl : err);
  *nfast = dy_csv_fast_rows(c);
  dy_csv_close(c);
}

static void check_cases(void) {
  static const struct { const char* text; const char* rows; long nfast; } K[] = {
    {"a,b,\n1,2,\n", "1:a|b|/2:1|2|.", 2},                         /* trailing delimiter: an empty field */
    {"a,b\r\n1,2\r\n", "1:a|b/2:1|2.", 2},                         /* CRLF: the CR is in no field */
    {"a,b,\r\n1,,\r\n", "1:a|b|/2:1||.", 2},
    {"t;q1\n0.5;-1e-3\n;\n", "1:t|q1/2:0.5|-1e-3/3:|.", 3},        /* ';', a line of only the delimiter */
    {",\n,,,\n", "1:|/2:|||.", 2},                                 /* only delimiters */
    {"a,,b\n,x,\n", "1:a||b/2:|x|.", 2},                           /* empty fields */
    {"a;b,c\n1;2,3\n", "1:a;b|c/2:1;2|3.", 2},                     /* ',' wins the tie; ';' is text */
    {"a;b;c,d\n1;2;3,4\n", "1:a|b|c,d/2:1|2|3,4.", 2},             /* ';' more often */
    {"\"x,y\",z\n1,\"2\"\"3\"\n", "1:x,y|z/2:1|2\"3.", 0},         /* quoted fields: libcsv */
    {"a,b\n1,\"2\n3\",4\n5,6\n", "1:a|b/2:1|2\n3|4/4:5|6.", 2},    /* a quoted field over two lines */
    {"a,b\n1,2", "1:a|b/2:1|2.", 1},                               /* no final newline: libcsv */
    {"a, b \n1 ,2\n", "1:a|b/2:1|2.", 0},                          /* blanks trimmed by libcsv */
    {"a,b\n1,2\r\r\n", "1:a|b/2:1|2.", 1},                         /* CR CR LF: libcsv */
    {"\xef\xbb\xbf" "t,q\n1,2\n", "1:t|q/2:1|2.", 2},              /* the byte-order mark */
    {"# c\n\n  \r\nt,q\n# d,e\n1e5,-0.25\n", "4:t|q/6:1e5|-0.25.", 2},   /* comments, blank lines */
    {"#! gravity, 0\nt,q\n", "2:t|q.", 1},                         /* no callback: #! is a comment */
    {"a\tb\n1\t2\n", "1:a|b/2:1|2.", 0},                           /* tab: libcsv */
    {"a b\n1  2\n", "1:a|b/2:1|2.", 0},                            /* blanks: libcsv */
    {"x\n#y\n\xff\x01,\xc3\xa9\n", "1:x/3:\xff\x01|\xc3\xa9.", 2}, /* any other byte is text */
    {"a,b\n\"1,2\n", "1:a|b/2:1,2\n.", 1},                         /* unclosed quote at the end */
    {"a,b\n\"x\n# y\n\n\",2\n", "1:a|b/2:x\n# y\n\n|2.", 1},       /* a quoted field's lines that look
                                                                      like a comment and a blank line */
  };
  int nk = (int)(sizeof K / sizeof K[0]);
  char got[2][4096];
  for (int k = 0; k < nk; k++) {
    long nfast[2];
    if (write_file(K[k].text, strlen(K[k].text), k % 4 == 3)) { CHECK(0, "case %d: write", k); continue; }
    render(1, got[1], sizeof got[1], &nfast[1]);
    render(0, got[0], sizeof got[0], &nfast[0]);
    CHECK(!strcmp(got[1], K[k].rows), "case %d, fast path: '%s', expected '%s'", k, got[1], K[k].rows);
    CHECK(!strcmp(got[0], K[k].rows), "case %d, libcsv only: '%s', expected '%s'", k, got[0], K[k].rows);
    CHECK(nfast[1] == K[k].nfast && nfast[0] == 0, "case %d: %ld rows on the fast path (%ld with it off), expected %ld",
          k, nfast[1], nfast[0], K[k].nfast);
  }
}

/* the caps: exactly DY_CSV_MAXCOLS fields is a row (fast path), one more is
 * libcsv's error; a line over DY_CSV_MAXROW is the row-length error */
static void check_caps(void) {
  size_t n = 2 * (size_t)DY_CSV_MAXCOLS + 16;
  char* t = malloc((size_t)DY_CSV_MAXROW + 64);
  if (!t) { CHECK(0, "caps: out of memory"); return; }
  char got[2][DY_ERRSZ + 64];
  long nfast[2];
  for (int extra = 0; extra < 2; extra++) {
    size_t k = 0;
    for (int i = 0; i < DY_CSV_MAXCOLS + extra; i++) { t[k++] = '7'; t[k++] = ','; }
    t[k - 1] = '\n';
    if (k >= n || write_file(t, k, 0)) { CHECK(0, "caps: write"); continue; }
    for (int fast = 0; fast < 2; fast++) {
      char err[DY_ERRSZ];
      char** f; int nf = 0;
      dyCsv* c = dy_csv_open(path, err, sizeof err);
      if (!c) { CHECK(0, "caps: %s", err); continue; }
      dy_csv_set_fast(c, fast);
      int r = dy_csv_next(c, &f, &nf, err, sizeof err);
      if (extra == 0) {
        int same = r == 1 && nf == DY_CSV_MAXCOLS;
        for (int i = 0; same && i < nf; i++) same = !strcmp(f[i], "7");
        CHECK(same, "caps: %d fields (fast %d): return %d, %d fields", DY_CSV_MAXCOLS, fast, r, nf);
        CHECK(dy_csv_next(c, &f, &nf, err, sizeof err) == 0, "caps: then the end");
      } else {
        snprintf(got[fast], sizeof got[fast], "%s", r == -1 ? err : "no error");
      }
      nfast[fast] = dy_csv_fast_rows(c);
      dy_csv_close(c);
    }
    if (extra == 0) CHECK(nfast[1] == 1 && nfast[0] == 0, "caps: %d fields on the fast path: %ld", DY_CSV_MAXCOLS,
                          nfast[1]);
    else {
      char want[256];
      snprintf(want, sizeof want, "%s:1: more than %d columns", path, DY_CSV_MAXCOLS);
      CHECK(!strcmp(got[1], want) && !strcmp(got[0], want), "caps: one column more: '%s' / '%s', expected '%s'",
            got[1], got[0], want);
      CHECK(nfast[1] == 0, "caps: one column more did not come from the fast path");
    }
  }
  /* a plain line over DY_CSV_MAXROW bytes, then a short row */
  size_t k = 0;
  memcpy(t, "a,b\n", 4); k = 4;
  while (k < (size_t)DY_CSV_MAXROW + 8) { t[k++] = '1'; t[k++] = ','; }
  t[k++] = '1'; t[k++] = '\n';
  if (write_file(t, k, 0)) CHECK(0, "caps: write");
  else {
    compare_file("a line over DY_CSV_MAXROW", 0);
    char want[256];
    snprintf(want, sizeof want, ":2: row longer than %ld MiB (from line 2: an unclosed quote?)", DY_CSV_MAXROW >> 20);
    render(1, got[1], sizeof got[1], &nfast[1]);
    CHECK(!strcmp(got[1], strcat(strcpy(got[0], "1:a|b"), want)) && nfast[1] == 1, "caps: long line: '%s'", got[1]);
  }
  free(t);
}

/* a plain numeric log goes through the fast path entirely, with the fields
 * libcsv gives */
static void check_numeric(void) {
  buf o = {0};
  puts_(&o, "t,q1,q2,tau1,tau2\n");
  char cell[64];
  for (int i = 0; i < 2000; i++) {
    snprintf(cell, sizeof cell, "%.6f,%.17g,%g,%.4e,%d\n", i * 1e-3, th_uniform(-3, 3), th_uniform(-1e-5, 1e-5),
             th_uniform(-50, 50), i);
    puts_(&o, cell);
  }
  for (int gz = 0; gz < 2; gz++) {
    if (write_file(o.b, o.n, gz)) { CHECK(0, "numeric: write"); continue; }
    long before = fast_total;
    compare_file(gz ? "numeric log (gzip)" : "numeric log", 1);
    CHECK(fast_total - before == 2001, "numeric log%s: %ld of 2001 rows on the fast path", gz ? " (gzip)" : "",
          fast_total - before);
  }
  free(o.b);
}

/* ------------------------------------------------ numbers in one pass */

static const char* const TOKENS[] = {" 1", "\v2", "1 ", "-", "+", ".", "-.", "+.5", "1e", "1e+", "2E-3", "inf", "-inf",
  "nan", "nan(12ab)", "nan(1,2)", "0x1p3", "0x", "1e400", "1e-400", "00012", "1.2.3", "\"3\"", "3\r4", "#5", "",
  "12345678901234567890123", "9007199254740993", "1,5", "7;8", "4\t", "\x01", "5x"};

/* a file of ncol-ish fields per line: numbers, often a tricky token */
static void gen_numbers(buf* o, char delim) {
  o->n = 0;
  char cell[64];
  for (int l = 1 + (int)rnd(30); l > 0; l--) {
    const int nf = 1 + (int)rnd(9);
    for (int i = 0; i < nf; i++) {
      if (i) put(o, chance(0.03) ? (delim == ',' ? ';' : ',') : delim);
      if (chance(0.15)) puts_(o, TOKENS[rnd(sizeof TOKENS / sizeof *TOKENS)]);
      else {
        snprintf(cell, sizeof cell, chance(0.5) ? "%.17g" : "%.6g", th_uniform(-5, 5) * pow(10, (int)rnd(9) - 4));
        puts_(o, cell);
      }
    }
    const int end = (int)rnd(100);
    puts_(o, end < 80 ? "\n" : end < 95 ? "\r\n" : end < 97 ? "\r\r\n" : "\n\n");
  }
  if (o->n && chance(0.1)) o->n--;                         /* no final newline */
}

/* the file at path (delimiter delim) read by both: dy_csv_next_numbers,
 * and dy_csv_next_plain with dy_strtod on each field; the same call by
 * call. The lines read as numbers counted into *ones */
static void compare_numbers(const char* what, int ncol, char delim, long* ones) {
  char err[DY_ERRSZ];
  dyCsv *a = dy_csv_open(path, err, sizeof err), *b = dy_csv_open(path, err, sizeof err);
  if (!a || !b || dy_csv_seek(a, 0, 0, delim) || dy_csv_seek(b, 0, 0, delim)) {   /* as the split parser starts */
    CHECK(0, "%s: open: %s", what, err);
    dy_csv_close(a); dy_csv_close(b);
    return;
  }
  int same = 1;
  for (int call = 0; call < 100000 && same; call++) {
    double va[16], vb[16];
    const int ra = dy_csv_next_numbers(a, 1LL << 62, ncol, va);
    char** f; int nf;
    int rb = dy_csv_next_plain(b, 1LL << 62, &f, &nf);
    if (rb == 1 && nf < ncol) rb = 2;
    for (int i = 0; rb == 1 && i < ncol; i++) {
      char* q;
      vb[i] = dy_strtod(f[i], &q);
      if (q == f[i] || *q) rb = 2;
    }
    same = ra == rb && (ra != 1 || !memcmp(va, vb, sizeof(double) * (size_t)ncol)) &&
           dy_csv_pos(a) == dy_csv_pos(b) && dy_csv_lines(a) == dy_csv_lines(b);
    CHECK(same, "%s: call %d: one pass %d, split %d", what, call, ra, rb);
    *ones += ra == 1;
    if (ra == 0) break;
  }
  dy_csv_close(a); dy_csv_close(b);
}

static void check_numbers(void) {
  buf o = {0};
  long ones = 0;
  for (int i = 0; i < 600; i++) {
    const char delim = chance(0.7) ? ',' : ';';
    int gz = 0;
    if (i % 5 == 4) gen_file(&o, &gz); else gen_numbers(&o, delim);
    if (write_file(o.b ? o.b : "", o.n, 0)) { CHECK(0, "numbers: write"); continue; }
    char what[64];
    snprintf(what, sizeof what, "numbers file %d", i);
    compare_numbers(what, 1 + (int)rnd(8), delim, &ones);
  }
  /* a plain numeric log: every line read as numbers */
  o.n = 0;
  char cell[128];
  for (int i = 0; i < 500; i++) {
    snprintf(cell, sizeof cell, "%.17g,%.17g,%.6g,%d\n", i * 1e-3, th_uniform(-3, 3), th_uniform(-1, 1), i);
    puts_(&o, cell);
  }
  if (!write_file(o.b, o.n, 0)) {
    long n1 = 0;
    compare_numbers("numeric log", 4, ',', &n1);
    CHECK(n1 == 500, "numeric log: %ld of 500 lines as numbers", n1);
  }
  free(o.b);
  printf("numbers in one pass: 600 files, %ld lines read as numbers\n", ones);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/dynid_test_csvfast_XXXXXX");
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  snprintf(path, sizeof path, "%s/f.csv", dir);
  check_cases();
  check_numeric();
  check_caps();
  fast_total = rows_total = calls_total = 0;
  check_random();
  check_numbers();
  unlink(path);
  rmdir(dir);
  return test_report();
}
