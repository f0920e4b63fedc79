/* SPDX-License-Identifier: MIT */
/* dynid core: pull-style CSV rows on top of libcsv's push parser.
 * The file is read a line at a time through zlib (plain files pass through
 * unchanged); comment and blank lines are dropped before libcsv sees them,
 * and "#!" directive lines and comment lines go to the reader's callbacks
 * first if it has them.
 * Memory is bounded by the longest row, never by the file, and rows are
 * capped (io.h DY_CSV_MAXROW, DY_CSV_MAXCOLS).
 *
 * libcsv is THE CSV parser here (the project's rules: libcsv is the CSV
 * package). The one exception is an optimisation for the common plain
 * numeric line, split_plain: a whole line ending in '\n' (or "\r\n") that
 * starts a record while libcsv holds nothing, with the delimiter ',' or ';',
 * and none of the bytes libcsv treats specially ('"', blank, tab, a '\r'
 * other than the final one) is split at the delimiter in place, which is
 * exactly what libcsv (CSV_APPEND_NULL) returns for such a line: "a,b,"
 * gives a, b and an empty field, "," two empty fields, the '\r' of "\r\n"
 * is in no field. Every other line (quotes, blanks, the last line without a
 * newline, rows spanning lines, blank-separated and tab-separated files,
 * more than DY_CSV_MAXCOLS fields) goes through libcsv as before.
 * dy_csv_set_fast(c, 0) sends every line through libcsv; tests/test_csvfast.c
 * reads random files both ways and requires identical results. */
#include "core/io.h"
#include "core/util.h"
#include "core/numparse.h"
#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <sys/stat.h>

/* io.h: "PATH:ROW:COL: message" */
void dy_errpos(char* buf, size_t sz, const char* path, long row, int col, const char* fmt, ...) {
  int k = row > 0 && col > 0 ? snprintf(buf, sz, "%s:%ld:%d: ", path, row, col)
        : row > 0 ? snprintf(buf, sz, "%s:%ld: ", path, row) : snprintf(buf, sz, "%s: ", path);
  if (k < 0 || (size_t)k >= sz) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + k, sz - (size_t)k, fmt, ap);
  va_end(ap);
}

#include <zlib.h>

struct dyCsv_ {
  gzFile gz;
  struct csv_parser p;
  char path[512];
  char* line; size_t linecap;           /* current physical line */
  size_t linelen;                       /* its length (strlen: read_line's) */
  char* buf; size_t buflen, bufcap;     /* field text of the pending row */
  size_t* off; int nf, offcap;          /* field offsets into buf */
  int too_many;                         /* the row passed DY_CSV_MAXCOLS fields */
  long rowbytes;                        /* text of the pending row so far */
  char** fields; int fieldcap;          /* pointers handed to the caller */
  int row_ready;
  dyCsvDirectiveFn on_dir; void* dir_ud; /* "#!" lines, NULL: comments */
  dyCsvDirectiveFn on_com; void* com_ud; /* comment lines, NULL: skipped unseen */
  long lineno, rowline;                 /* physical line, line of row start */
  long long size;
  char delim;                           /* from the first row: ',' ';' '\t' or ' ' (runs of blanks) */
  int slow;                             /* 1: no fast path (dy_csv_set_fast) */
  long nfast;                           /* rows the fast path returned */
  long long pos, linepos;               /* bytes read so far; where the current line began */
  long long stop;                       /* dy_csv_stop_at (0: none) */
};

static void on_field(void* s, size_t len, void* ud) {
  dyCsv* c = ud;
  if (c->nf >= DY_CSV_MAXCOLS) { c->too_many = 1; return; }
  if (c->nf == c->offcap) {
    int cap = c->offcap ? 2*c->offcap : 32;
    size_t* o = realloc(c->off, (size_t)cap * sizeof(size_t));
    if (!o) return;
    c->off = o; c->offcap = cap;
  }
  if (c->buflen + len + 1 > c->bufcap) {
    size_t cap = (c->buflen + len + 1) * 2;
    char* b = realloc(c->buf, cap);
    if (!b) return;
    c->buf = b; c->bufcap = cap;
  }
  c->off[c->nf++] = c->buflen;
  if (len) memcpy(c->buf + c->buflen, s, len);
  c->buflen += len;
  c->buf[c->buflen++] = 0;
}

static void on_row(int ch, void* ud) {
  (void)ch;
  ((dyCsv*)ud)->row_ready = 1;
}

dyCsv* dy_csv_open(const char* path, char* err, int errsz) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, (size_t)errsz, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(err, (size_t)errsz, "%s: is a directory, expected a CSV file", path);
    return NULL;
  }
  dyCsv* c = calloc(1, sizeof(dyCsv));
  if (!c) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return NULL; }
  c->gz = gzopen(path, "rb");
  if (!c->gz) {
    snprintf(err, (size_t)errsz, "%s: cannot open: %s", path, strerror(errno));
    free(c);
    return NULL;
  }
  gzbuffer(c->gz, 1 << 16);
  csv_init(&c->p, CSV_APPEND_NULL);
  snprintf(c->path, sizeof c->path, "%s", path);
  c->size = (long long)st.st_size;
  return c;
}

void dy_csv_close(dyCsv* c) {
  if (!c) return;
  gzclose(c->gz);
  csv_free(&c->p);
  free(c->line); free(c->buf); free(c->off); free(c->fields);
  free(c);
}

/* read one physical line into c->line (with its newline). 1, 0 at EOF, -1 */
static int read_line(dyCsv* c) {
  if (!c->line) {
    c->linecap = 4096;
    c->line = malloc(c->linecap);
    if (!c->line) return -1;
  }
  size_t len = 0;
  c->line[0] = 0;
  for (;;) {
    if (!gzgets(c->gz, c->line + len, (int)(c->linecap - len))) {
      int zerr;
      gzerror(c->gz, &zerr);
      if (zerr != Z_OK && zerr != Z_STREAM_END) return -4;
      break;
    }
    len += strlen(c->line + len);
    if (len && c->line[len-1] == '\n') break;
    if (len + 1 < c->linecap) {
      /* short read without newline: EOF, or an embedded NUL byte */
      if (gzeof(c->gz)) {
        int zerr;
        gzerror(c->gz, &zerr);
        if (zerr != Z_OK && zerr != Z_STREAM_END) return -4;
        break;
      }
      return -2;
    }
    if (c->linecap > (size_t)DY_CSV_MAXROW) return -3;
    char* l = realloc(c->line, c->linecap * 2);
    if (!l) return -1;
    c->line = l; c->linecap *= 2;
  }
  c->linelen = len;
  if (len == 0) return 0;
  c->lineno++;
  c->linepos = c->pos;
  c->pos += (long long)len;
  return 1;
}

char dy_csv_sniff(const char* line) {
  int n[3] = {0, 0, 0}, quoted = 0, words = 0, inword = 0;
  for (const char* s = line; *s && *s != '\n' && *s != '\r'; s++) {
    if (*s == '"') quoted = !quoted;
    if (quoted) continue;
    n[0] += *s == ','; n[1] += *s == ';'; n[2] += *s == '\t';
    int blank = *s == ' ' || *s == '\t';
    words += !blank && !inword;
    inword = !blank;
  }
  if (n[0] >= n[1] && n[0] >= n[2] && n[0] > 0) return ',';
  if (n[1] > 0 || n[2] > 0) return n[1] >= n[2] ? ';' : '\t';
  return words >= 2 ? ' ' : ',';
}

/* A spreadsheet's first line "sep=X" (X one of , ; tab; quotes and blanks
 * around allowed): X, else 0. */
static char sep_line(const char* s) {
  if (*s == '"') s++;
  if (strncasecmp(s, "sep=", 4)) return 0;
  char x = s[4];
  const char* e = s + 5;
  while (*e == '"' || *e == ' ' || *e == '\r' || *e == '\n') e++;
  return *e == 0 && (x == ',' || x == ';' || x == '\t') ? x : 0;
}

char dy_csv_delim(const dyCsv* c) { return c->delim ? c->delim : ','; }

/* a line of blank-separated fields as comma-separated ones, in place */
static void blanks_to_commas(char* text) {
  char* w = text;
  const char* s = text;
  while (*s == ' ' || *s == '\t') s++;
  while (*s) {
    if (*s == ' ' || *s == '\t') {
      while (*s == ' ' || *s == '\t') s++;
      if (*s && *s != '\n' && *s != '\r') *w++ = ',';
      continue;
    }
    *w++ = *s++;
  }
  *w = 0;
}

/* The bytes of a line for split_plain: 1 the delimiter, 2 a byte that
 * sends the line to libcsv (quote, blank, tab, CR, LF, and NUL, which
 * read_line never leaves inside a line), 0 plain text. */
#define PLAIN_STOPS ['"'] = 2, [' '] = 2, ['\t'] = 2, ['\r'] = 2, ['\n'] = 2, [0] = 2
static const unsigned char plain_comma[256] = {PLAIN_STOPS, [','] = 1};
static const unsigned char plain_semi[256] = {PLAIN_STOPS, [';'] = 1};

/* room for one more pointer in c->fields (capacity doubles; reused by
 * every later row); 0, or -1 without memory */
static int grow_fields(dyCsv* c) {
  int cap = c->fieldcap ? 2 * c->fieldcap : 32;
  char** f = realloc(c->fields, (size_t)cap * sizeof(char*));
  if (!f) return -1;
  c->fields = f; c->fieldcap = cap;
  return 0;
}

/* The fast path (see the top): text[len] a line that starts a record, with
 * libcsv holding nothing and the delimiter ',' or ';'. If it ends in "\n"
 * or "\r\n" and holds no byte of class 2 before that, its fields are split
 * in place (NULs at the delimiters and the line end) into c->fields and
 * their number is returned. Otherwise (also more than DY_CSV_MAXCOLS fields,
 * or no memory for the pointers) 0, with the line as it was, for libcsv. */
static int split_plain(dyCsv* c, char* text, size_t len) {
  if (len < 2 || text[len - 1] != '\n') return 0;
  char* e = text + len - 1;              /* the line end: '\n', or the '\r' before it */
  if (e[-1] == '\r') e--;
  if (e == text) return 0;               /* no field (a blank line: never here) */
  const unsigned char* cls = c->delim == ';' ? plain_semi : plain_comma;
  char* s = text;
  char* start = text;
  int n = 0;
  for (;;) {
    unsigned char k;
    while (!(k = cls[(unsigned char)*s])) s++;   /* stops at the line end at the latest */
    if (k == 2) break;
    /* a delimiter: the field before it, and one more after it to come */
    if (n >= DY_CSV_MAXCOLS - 1 || (n == c->fieldcap && grow_fields(c))) goto undo;
    c->fields[n++] = start;
    *s++ = 0;
    start = s;
  }
  if (s != e || (n == c->fieldcap && grow_fields(c))) goto undo;
  c->fields[n++] = start;
  *e = 0;
  return n;
undo:   /* the line had no NUL before s: every one there was a delimiter */
  for (char* p = text; p < s; p++)
    if (!*p) *p = c->delim;
  return 0;
}

/* the message of read_line's failure r (-1 .. -4) */
static void line_error(dyCsv* c, int r, char* err, int errsz) {
  char zmsg[160];
  if (r == -4) {
    int zerr;
    const char* zm = gzerror(c->gz, &zerr);
    size_t pl = strlen(c->path);
    if (!strncmp(zm, c->path, pl) && zm[pl] == ':') zm += pl + 1 + (zm[pl + 1] == ' ');
    snprintf(zmsg, sizeof zmsg, "corrupt gzip data: %s", zm);
  }
  const unsigned char* b = (const unsigned char*)c->line;
  const int utf16 = r == -2 && c->lineno == 0 && b && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff));
  const char* why = utf16 ? "UTF-16 text (its byte-order mark): dynid reads UTF-8 or ASCII; convert it, e.g. "
                            "iconv -f UTF-16 -t UTF-8 FILE > FILE8"
                  : r == -2 ? "a NUL byte in the text (binary file?)"
                  : r == -3 ? "line longer than 8 MiB (is it a CSV file?)" : r == -4 ? zmsg : "out of memory";
  dy_errpos(err, errsz, c->path, c->lineno + 1, 0, "%s", why);
}

/* 1 when libcsv is between records and no row is pending */
static int between_records(const dyCsv* c) {
  return c->nf == 0 && c->buflen == 0 && !c->row_ready && c->p.pstate == 0 && !c->p.quoted && c->p.entry_pos == 0;
}

int dy_csv_next(dyCsv* c, char*** fields, int* nf, char* err, int errsz) {
  c->nf = 0; c->buflen = 0; c->row_ready = 0; c->too_many = 0; c->rowbytes = 0;
  for (;;) {
    if (c->stop > 0 && c->pos >= c->stop && between_records(c)) return 2;
    int r = read_line(c);
    if (r < 0) {
      line_error(c, r, err, errsz);
      return -1;
    }
    if (r == 0) {
      csv_fini(&c->p, on_field, on_row, c);
      if (!c->row_ready) {
        if (c->nf) c->row_ready = 1; else return 0;
      }
      break;
    }
    char* text = c->line;
    if (c->lineno == 1 && !memcmp(text, "\xef\xbb\xbf", 3)) text += 3;  /* UTF-8 byte-order mark */
    size_t len = strlen(text);
    /* at the start of a record (not on the continuation line of a quoted
     * field: libcsv between records, its state 0 being ROW_NOT_BEGUN) */
    const int fresh = between_records(c);
    if (fresh) {
      const char* s = text;
      while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
      if (*s == '#' && s[1] == '!' && c->on_dir) {   /* directive line */
        char* e = text + len;
        while (e > text && (e[-1] == '\n' || e[-1] == '\r')) *--e = 0;
        if (c->on_dir(c->dir_ud, text, c->lineno, err, errsz)) return -1;
        continue;
      }
      if (*s == '#' && c->on_com) {   /* comment line, shown to the reader's callback */
        char* e = text + len;
        while (e > text && (e[-1] == '\n' || e[-1] == '\r')) *--e = 0;
        if (c->on_com(c->com_ud, text, c->lineno, err, errsz)) return -1;
        continue;
      }
      if (*s == 0 || *s == '#') continue;   /* blank or comment line */
      c->rowline = c->lineno;
      if (!c->delim) {   /* the first row decides the delimiter, or a spreadsheet's "sep=;" line says it */
        char sep = sep_line(s);
        c->delim = sep ? sep : dy_csv_sniff(text);
        if (c->delim == ';' || c->delim == '\t') csv_set_delim(&c->p, (unsigned char)c->delim);
        if (sep) continue;
      }
    }
    if (c->delim == ' ') { blanks_to_commas(text); len = strlen(text); }
    c->rowbytes += (long)len;
    if (c->rowbytes > DY_CSV_MAXROW) {
      dy_errpos(err, errsz, c->path, c->lineno, 0, "row longer than %ld MiB (from line %ld: an unclosed quote?)", DY_CSV_MAXROW >> 20, c->rowline);
      return -1;
    }
    if (!c->slow && (c->delim == ',' || c->delim == ';') && fresh) {
      /* libcsv between records (pstate 0 is its ROW_NOT_BEGUN): the fast path */
      int n = split_plain(c, text, len);
      if (n > 0) {
        c->nfast++;
        *fields = c->fields;
        *nf = n;
        return 1;
      }
    }
    if (csv_parse(&c->p, text, len, on_field, on_row, c) != len) {
      dy_errpos(err, errsz, c->path, c->lineno, 0, "malformed CSV: %s",
               csv_strerror(csv_error(&c->p)));
      return -1;
    }
    if (c->row_ready) break;
  }
  if (c->too_many) {
    dy_errpos(err, errsz, c->path, c->rowline, 0, "more than %d columns", DY_CSV_MAXCOLS);
    return -1;
  }
  if (c->fieldcap < c->nf) {
    char** f = realloc(c->fields, (size_t)c->nf * sizeof(char*));
    if (!f) { snprintf(err, (size_t)errsz, "%s: out of memory", c->path); return -1; }
    c->fields = f; c->fieldcap = c->nf;
  }
  for (int i = 0; i < c->nf; i++) c->fields[i] = c->buf + c->off[i];
  *fields = c->fields;
  *nf = c->nf;
  return 1;
}

void dy_csv_on_directive(dyCsv* c, dyCsvDirectiveFn fn, void* ud) {
  c->on_dir = fn;
  c->dir_ud = ud;
}

void dy_csv_on_comment(dyCsv* c, dyCsvDirectiveFn fn, void* ud) {
  c->on_com = fn;
  c->com_ud = ud;
}

/* ------------------------------------------- byte ranges (io.h) */

int dy_csv_seek(dyCsv* c, long long off, long lineno, char delim) {
  gzdirect(c->gz);   /* looks at the file first: a plain one then seeks by lseek, not by reading */
  if (gzseek(c->gz, (z_off_t)off, SEEK_SET) != (z_off_t)off) return -1;
  csv_free(&c->p);
  csv_init(&c->p, CSV_APPEND_NULL);
  c->delim = delim;
  if (delim == ';' || delim == '\t') csv_set_delim(&c->p, (unsigned char)delim);
  c->nf = 0; c->buflen = 0; c->row_ready = 0; c->too_many = 0; c->rowbytes = 0;
  c->pos = c->linepos = off;
  c->lineno = c->rowline = lineno;
  return 0;
}

void dy_csv_stop_at(dyCsv* c, long long off) { c->stop = off; }
long long dy_csv_pos(const dyCsv* c) { return c->pos; }
long dy_csv_lines(const dyCsv* c) { return c->lineno; }
int dy_csv_plain_file(const dyCsv* c) { return gzdirect(c->gz); }

int dy_csv_next_plain(dyCsv* c, long long end, char*** fields, int* nf) {
  if (c->pos >= end) return 0;
  int r = read_line(c);
  if (r == 0) return 0;
  if (r < 0 || (c->delim != ',' && c->delim != ';')) return 2;
  size_t len = c->linelen;
  int n = split_plain(c, c->line, len);
  if (n <= 0 || (n == 1 && !*c->fields[0])) return 2;
  if (c->line[0] == '#') return 2;   /* a comment line: the reader's to see */
  *fields = c->fields;
  *nf = n;
  return 1;
}

/* The one-pass reading of dy_csv_next_numbers: text[len] (a line from
 * read_line, no NUL before len) as ncol numbers into v, accepted (1) only
 * where split_plain would split it and each of its first ncol fields is a
 * whole number to dy_strtod: it ends in "\n" or "\r\n"; each of the ncol
 * fields starts with a digit, sign or point (so strtod skips no blanks)
 * and dy_strtod ends exactly at the delimiter (the last one: or at the
 * line end); the number's bytes (digits, point, sign, exponent, hex, inf,
 * nan) hold no delimiter and no byte of class 2, and so are the field
 * split_plain would cut; the rest of the line holds no byte of class 2
 * and at most DY_CSV_MAXCOLS fields in all. The values are dy_strtod's of
 * the same bytes. 0: not decided here (the caller splits the line). */
static int numbers_plain(const char* text, size_t len, char delim, int ncol, double* v) {
  if (len < 2 || text[len - 1] != '\n' || ncol < 1) return 0;
  const char* e = text + len - 1;        /* the line end: '\n', or the '\r' before it */
  if (e[-1] == '\r') e--;
  const char* p = text;
  char* q = NULL;
  for (int i = 0; i < ncol; i++) {
    const char ch = *p;
    if (!((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.')) return 0;
    v[i] = dy_strtod(p, &q);
    if (q == p) return 0;
    if (*q == delim && q < e) p = q + 1;
    else if (!(i == ncol - 1 && q == e)) return 0;
  }
  if (q == e) return 1;
  /* more fields after the ncol-th: plain text and delimiters up to the end */
  const unsigned char* cls = delim == ';' ? plain_semi : plain_comma;
  int n = ncol + 1;
  for (const char* r = q + 1; r < e; r++) {
    const unsigned char k = cls[(unsigned char)*r];
    if (k == 2) return 0;
    n += k;
  }
  return n <= DY_CSV_MAXCOLS;
}

int dy_csv_numbers_line(const char* text, size_t len, char delim, int ncol, double* v) {
  return (delim == ',' || delim == ';') && numbers_plain(text, len, delim, ncol, v);
}

int dy_csv_next_numbers(dyCsv* c, long long end, int ncol, double* v) {
  if (c->pos >= end) return 0;
  int r = read_line(c);
  if (r == 0) return 0;
  if (r < 0 || (c->delim != ',' && c->delim != ';')) return 2;
  size_t len = c->linelen;
  if (numbers_plain(c->line, len, c->delim, ncol, v)) return 1;
  /* not decided there: dy_csv_next_plain's split and dy_strtod per field */
  int n = split_plain(c, c->line, len);
  if (n <= 0 || (n == 1 && !*c->fields[0]) || c->line[0] == '#' || n < ncol) return 2;
  for (int i = 0; i < ncol; i++) {
    char* q;
    v[i] = dy_strtod(c->fields[i], &q);
    if (q == c->fields[i] || *q) return 2;
  }
  return 1;
}

void dy_csv_set_fast(dyCsv* c, int on) { c->slow = !on; }
long dy_csv_fast_rows(const dyCsv* c) { return c->nfast; }

long dy_csv_line(const dyCsv* c) { return c->rowline; }
const char* dy_csv_path(const dyCsv* c) { return c->path; }

void dy_csv_progress(const dyCsv* c, long long* done, long long* size) {
  *done = (long long)gzoffset(c->gz);
  *size = c->size;
}

static int name_eq(const char* field, const char* name) {
  while (*field == ' ' || *field == '\t') field++;
  size_t n = strlen(name);
  if (strncasecmp(field, name, n)) return 0;
  field += n;
  while (*field == ' ' || *field == '\t' || *field == '\r') field++;
  return *field == 0;
}

int dy_csv_find(char** fields, int nf, const char* name) {
  for (int i = 0; i < nf; i++)
    if (name_eq(fields[i], name)) return i;
  return -1;
}

int dy_csv_double(const dyCsv* c, const char* field, int col, int allow_nonfinite,
                  double* out, char* err, int errsz) {
  const char* s = field;
  while (*s == ' ' || *s == '\t') s++;
  char* end;
  errno = 0;
  double x = dy_strtod(s, &end);
  const char* e = end;
  while (*e == ' ' || *e == '\t' || *e == '\r') e++;
  if (end == s || *e) {
    char shown[40];
    dy_errpos(err, errsz, c->path, c->rowline, col + 1, "not a number: '%s'%s", dy_field_shown(field, shown, sizeof shown),
              !*field ? " (empty cell)" : dy_decimal_comma(field) ? ": a decimal comma? dynid reads numbers with a "
              "point (convert the file, e.g. with a spreadsheet's export in the C/English locale)" : "");
    return -1;
  }
  if (!allow_nonfinite && !isfinite(x)) {
    dy_errpos(err, errsz, c->path, c->rowline, col + 1, "%s value",
             isnan(x) ? "NaN" : errno == ERANGE ? "overflowing" : "infinite");
    return -1;
  }
  if (errno == ERANGE && !allow_nonfinite && x != 0 && fabs(x) > 1) {
    dy_errpos(err, errsz, c->path, c->rowline, col + 1, "overflowing value");
    return -1;
  }
  *out = x;
  return 0;
}
