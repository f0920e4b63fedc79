/* SPDX-License-Identifier: MIT */
/* dynid tests: the rows of the default cutoff's pre-pass kept for the read
 * (ident/log.c: band_cached, replayed by src_row) against a read without
 * them. The second computation is the same log read with the cutoff given
 * (--cutoff set to the value the default measured): no pre-pass, every row
 * parsed from the file as the reader always did. Both must yield the same
 * samples bit for bit, the same rows read and dropped, the same findings,
 * the same error message at a bad row (on_bad stop), and the watch must
 * see every row once. The cache's cap is made small here (256 kB) so that
 * a log also overflows it (the rows before the cap replayed, the rest read
 * on from the file, the band measured by a reader of its own): its first
 * 1000 rows, from which the reader estimates the log's size, are long, the
 * rest short. The cap is shared by the logs open together, and rows
 * replayed give their memory back. The log is read through this file's
 * own copy of log.c. */
#define LOG_CACHE_MAXBYTES (256L << 10)
#include "ident/log.c"
#include "testhelp.h"

static char dir[] = "/tmp/dynid_logcache_XXXXXX";

/* a 2-joint log at 500 Hz with t, q, qd, qdd, tau in %.17g and an unused
 * column of 100 digits (after data row `longrows`: %.5g and 3 digits); a
 * bad cell at data row `bad` (0: none), a NaN torque at row `nan` (0: none);
 * with `gaps`, a comment line before every 37th data row and a blank line
 * after every 53rd (the kept rows' line numbers then skip) */
static void write_log_gaps(const char* path, long rows, long longrows, long bad, long nan, int gaps) {
  FILE* f = fopen(path, "w");
  if (!f) return;
  fputs("# a test log\nt,q1,q2,qd1,qd2,qdd1,qdd2,tau1,tau2,note\n", f);
  for (long i = 1; i <= rows; i++) {
    if (gaps && i % 37 == 0) fputs("# a note in the middle\n", f);
    const double t = 0.002 * (double)i, w[2] = {3.1, 7.7};
    const int g = i <= longrows ? 17 : 5;
    fprintf(f, "%.17g", t);
    for (int d = 0; d < 3; d++)
      for (int j = 0; j < 2; j++) {
        const double s = sin(w[j] * t), c = cos(w[j] * t), p = pow(w[j], d);
        fprintf(f, ",%.*g", g, (d == 1 ? c : d == 2 ? -s : s) * p + th_uniform(-1e-4, 1e-4));
      }
    if (i == bad) fputs(",1.5x,2", f);
    else fprintf(f, ",%.*g,%s", g, th_uniform(-5, 5), i == nan ? "nan" : "0.25");
    fprintf(f, ",0.%s\n", i <= longrows ? "1234567890123456789012345678901234567890123456789012345678901234567890"
                                          "123456789012345678901234567" : "5");
    if (gaps && i % 53 == 0) fputs("\n", f);
  }
  fclose(f);
}
static void write_log(const char* path, long rows, long longrows, long bad, long nan) {
  write_log_gaps(path, rows, longrows, bad, nan, 0);
}

static long watched, restarts;
static void on_row(void* ctx, const dyiLogRow* row) {
  (void)ctx;
  if (row) watched++; else restarts++;
}

/* the gate's findings as printed (malloc'd) */
static char* findings(const dyiLogReader* r) {
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (f) { dyi_quality_print(f, dyi_log_quality(r)); fclose(f); }
  return text;
}

/* every sample of the reader, its end (0, -1) and message into out */
typedef struct { long ns, lastrow; unsigned long long rows; int rc; char err[DY_ERRSZ]; double sum[8]; } readOut;
static void read_all(dyiLogReader* r, readOut* o) {
  memset(o, 0, sizeof *o);
  dyiSample s;
  while ((o->rc = dyi_log_next(r, &s, o->err, sizeof o->err)) == 1) {
    o->ns++;
    for (int j = 0; j < 2; j++) {   /* order-dependent sums: any difference shows */
      o->sum[j] = 0.5 * o->sum[j] + s.q[j]; o->sum[2 + j] = 0.5 * o->sum[2 + j] + s.qd[j];
      o->sum[4 + j] = 0.5 * o->sum[4 + j] + s.qdd[j]; o->sum[6 + j] = 0.5 * o->sum[6 + j] + s.tau[j];
    }
    o->lastrow = s.row;
    o->rows = 1000003ULL * o->rows + (unsigned long long)s.row;   /* every sample's data row, in order */
  }
}

/* the log read by default (the pre-pass, its rows kept) and with the cutoff
 * it measured given (no pre-pass): the same in every respect */
static void compare(const char* path, int on_bad, const char* what) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  o.on_bad = on_bad;
  dyiLogWatch w = {on_row, NULL, 0, 0, 0, NULL, 0};
  o.watch = &w;
  watched = restarts = 0;
  char err[DY_ERRSZ];
  dyiLogReader* a = dyi_log_open(path, 2, &o, err, sizeof err);
  CHECK(a != NULL, "%s: open: %s", what, err);
  if (!a) return;
  const long kept = a->ncache;
  readOut ra, rb;
  read_all(a, &ra);
  dyiLogInfo ia, ib;
  dyi_log_info(a, &ia);
  CHECK(watched == ia.rows_read && restarts <= 1, "%s: the watch saw %ld rows (%ld restarts), %ld read", what,
        watched, restarts, ia.rows_read);
  o.watch = NULL;
  o.cutoff_hz = ia.fc;
  dyiLogReader* b = dyi_log_open(path, 2, &o, err, sizeof err);
  CHECK(b != NULL, "%s: open with --cutoff: %s", what, err);
  if (!b) { dyi_log_close(a); dyi_log_watch_free(&w); return; }
  CHECK(b->ncache == 0, "%s: no pre-pass with a cutoff given", what);
  read_all(b, &rb);
  dyi_log_info(b, &ib);
  CHECK(ra.ns == rb.ns && ra.rc == rb.rc && (ra.rc >= 0 || !strcmp(ra.err, rb.err)),
        "%s: %ld samples (rc %d, '%s') vs %ld (%d, '%s')",
        what, ra.ns, ra.rc, ra.err, rb.ns, rb.rc, rb.err);
  CHECK(!memcmp(ra.sum, rb.sum, sizeof ra.sum) && ra.lastrow == rb.lastrow, "%s: the samples differ", what);
  CHECK(ra.rows == rb.rows, "%s: the samples' data rows differ", what);
  CHECK(ia.rows_read == ib.rows_read && ia.rows_dropped == ib.rows_dropped, "%s: rows %ld/%ld dropped %ld/%ld",
        what, ia.rows_read, ib.rows_read, ia.rows_dropped, ib.rows_dropped);
  char *fa = findings(a), *fb = findings(b);
  CHECK(fa && fb && !strcmp(fa, fb), "%s: findings\n%s\nvs\n%s", what, fa ? fa : "", fb ? fb : "");
  printf("  %s: %ld samples, %ld rows kept by the pre-pass, cutoff %g Hz\n", what, ra.ns, kept, ia.fc);
  free(fa); free(fb);
  dyi_log_close(a); dyi_log_close(b);
  dyi_log_watch_free(&w);
}

int main(void) {
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  char p[5][256];
  const char* names[5] = {"small.csv", "over.csv", "bad.csv", "nan.csv", "gaps.csv"};
  for (int i = 0; i < 5; i++) snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
  write_log(p[0], 1200, 1200, 0, 0);      /* kept whole: 200 rows after the 1000 held */
  write_log(p[1], 5000, 1000, 0, 0);      /* over the cap (3640 rows of 9 doubles): 4000 after the held ones */
  write_log(p[2], 1300, 1300, 1250, 0);   /* a bad cell in the kept rows */
  write_log(p[3], 1300, 1300, 0, 1100);   /* a NaN torque, dropped with on_bad drop */
  compare(p[0], 0, "kept whole");
  compare(p[1], 0, "over the cap");
  compare(p[2], 0, "bad cell, stop");
  compare(p[2], 1, "bad cell, drop");
  compare(p[3], 1, "NaN, drop");
  write_log_gaps(p[4], 1300, 1300, 1200, 1250, 1);   /* comments and blanks among the kept rows, rows dropped */
  compare(p[4], 1, "comments, blanks, drop");
  /* the kept rows are the ones the cache was made for */
  dyiLogOpt o;
  dyi_log_defaults(&o);
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(p[0], 2, &o, err, sizeof err);
  CHECK(r && r->ncache == 200 && r->cache_rc == 0, "small log: %ld rows kept, end %d", r ? r->ncache : -1,
        r ? r->cache_rc : -2);
  dyi_log_close(r);
  r = dyi_log_open(p[1], 2, &o, err, sizeof err);
  CHECK(r && r->ncache > 0 && r->ncache < 4000 && r->cache_rc == 1, "long log: %ld rows kept, then the file",
        r ? r->ncache : -1);
  dyi_log_close(r);
  /* the cap is shared: a second log open beside the first finds it taken
   * and reads its file again; rows replayed give their memory back */
  dyiLogReader* a = dyi_log_open(p[0], 2, &o, err, sizeof err);
  dyiLogReader* b = dyi_log_open(p[0], 2, &o, err, sizeof err);
  CHECK(a && b && a->ncache == 200 && b->ncache == 0 && atomic_load(&cache_held) == a->cache_bytes,
        "two logs open: %ld and %ld rows kept, %ld bytes held", a ? a->ncache : -1, b ? b->ncache : -1,
        atomic_load(&cache_held));
  readOut ro;
  if (a) read_all(a, &ro);
  CHECK(a && !a->cv && atomic_load(&cache_held) == 0, "replayed: the kept rows' memory given back");
  dyi_log_close(a); dyi_log_close(b);
  for (int i = 0; i < 5; i++) remove(p[i]);
  rmdir(dir);
  return test_report();
}
