/* SPDX-License-Identifier: MIT */
/* dynid tests: the data-quality gate.
 * Each finding is triggered by a crafted log (a clean two-joint log with
 * one defect written in), with its row and column checked, and on_bad
 * stop / drop checked on the reader; a clean log gives no finding at all.
 * The real logs in datasets/ show their known defects: the Kinova file's
 * corrupt 5e235 and NaNs (in command columns), the KUKA velocities' lag,
 * the Panda's irregular steps (0.7 .. 8.8 ms), gaps and stale rows. */
#include "testhelp.h"
#include "core/io.h"
#include "ident/log.h"
#include "ident/quality.h"
#include <string.h>

#define NJ 2
#define NR 2000
static const char* P = "build/tests/quality.csv";

static double qf(int j, double t) { return 0.8*sin(2.1*t + j) + 0.3*sin(5.3*t + 2*j); }
static double vf(int j, double t) { return 0.8*2.1*cos(2.1*t + j) + 0.3*5.3*cos(5.3*t + 2*j); }
static double tf(int j, double t) { return 4*qf(j, t) + 1 + j; }

/* defects */
enum { D_NONE, D_NAN, D_INF, D_ABSURD, D_JUNK, D_TRUNC, D_TREPEAT, D_TBACK, D_GAP, D_CONST,
       D_ZERO, D_LAG, D_SAT, D_STALE, D_UNUSEDNAN };

/* t,q1,q2,qd1,qd2,tau1,tau2,extra ; data row k is file line k + 1 */
static void write_log(int defect) {
  FILE* f = fopen(P, "w");
  fprintf(f, "t,q1,q2,qd1,qd2,tau1,tau2,extra\n");
  double tprev = 0;
  for (int k = 1; k <= NR; k++) {
    double t = 1e-3 * (k - 1);
    if (defect == D_GAP && k >= 700) t += 0.010;
    if (defect == D_TREPEAT && k == 500) t = tprev;
    if (defect == D_TBACK && k == 600) t = tprev - 0.0005;
    double tv = t, q[NJ], qd[NJ], tau[NJ];
    if (defect == D_STALE && k == 800) tv = 1e-3 * (k - 2);      /* state of the previous row */
    for (int j = 0; j < NJ; j++) {
      q[j] = qf(j, tv); qd[j] = vf(j, tv); tau[j] = tf(j, tv);
      if (defect == D_LAG) qd[j] = vf(j, tv - 1e-3);             /* one sample late */
      if (defect == D_SAT && j == 0 && tau[j] > 4.0) tau[j] = 4.0;
    }
    if (defect == D_CONST) q[1] = 0.5;
    if (defect == D_ZERO) tau[1] = 0;
    char cell[NJ*3][64];
    for (int j = 0; j < NJ; j++) {
      snprintf(cell[j], 64, "%.17g", q[j]);
      snprintf(cell[NJ + j], 64, "%.17g", qd[j]);
      snprintf(cell[2*NJ + j], 64, "%.17g", tau[j]);
    }
    if (defect == D_NAN && k == 100) strcpy(cell[0], "nan");
    if (defect == D_INF && k == 200) strcpy(cell[2*NJ + 1], "-inf");
    if (defect == D_ABSURD && k == 300) strcpy(cell[NJ], "5e235");
    if (defect == D_JUNK && k == 350) strcpy(cell[1], "1.2.3");
    if (defect == D_TRUNC && k == 400) { fprintf(f, "%.17g,%s,%s\n", t, cell[0], cell[1]); tprev = t; continue; }
    fprintf(f, "%.17g", t);
    for (int c = 0; c < 3*NJ; c++) fprintf(f, ",%s", cell[c]);
    fprintf(f, ",%s\n", defect == D_UNUSEDNAN && k == 900 ? "NaN" : "0");
    tprev = t;
  }
  fclose(f);
}

static dyiQuality* scan(const dyiLogOpt* o) {
  char err[DY_ERRSZ];
  dyiQuality* q = dyi_log_scan(P, NJ, o, err, sizeof err);
  CHECK(q != NULL, "scan: %s", err);
  return q;
}

/* the one finding of a kind; NULL if absent */
static const dyiFinding* get(const dyiQuality* q, int kind) {
  for (int i = 0; i < dyi_quality_count(q); i++)
    if (dyi_quality_get(q, i)->kind == kind) return dyi_quality_get(q, i);
  return NULL;
}

/* read with the reader in stop or drop mode: samples, and the error */
static long readall(const dyiLogOpt* o, char* err, int* rc) {
  dyiLogReader* r = dyi_log_open(P, NJ, o, err, DY_ERRSZ);
  if (!r) { *rc = -1; return 0; }
  dyiSample s; long k = 0;
  while ((*rc = dyi_log_next(r, &s, err, DY_ERRSZ)) == 1) k++;
  dyi_log_close(r);
  return k;
}

/* a bad-row defect: found at (line, col), stop reports FILE:LINE:COL, drop skips one row */
static void bad_row(const char* what, int defect, int kind, long line, int col) {
  int ecol = col;
  if (kind == DYI_QF_TRUNC) col = 0;      /* a row finding; the error names the first missing cell */
  write_log(defect);
  dyiLogOpt o;
  dyi_log_defaults(&o);
  dyiQuality* q = scan(&o);
  if (!q) return;
  const dyiFinding* f = get(q, kind);
  CHECK(f && f->first_line == line && f->col == col && f->bad && f->count == 1,
        "%s: finding %s at line %ld col %d (got %s line %ld col %d)", what, dyi_quality_kind(kind), line,
        col, f ? dyi_quality_kind(f->kind) : "none", f ? f->first_line : 0, f ? f->col : 0);
  if (f) printf("%-16s -> %s\n", what, f->verdict);
  /* the printed line starts FILE:LINE:COL: (or FILE:LINE: for a row) */
  char pr[4096] = "", want0[600];
  FILE* mf = fmemopen(pr, sizeof pr - 1, "w");
  dyi_quality_print(mf, q);
  fclose(mf);
  if (col) snprintf(want0, sizeof want0, "%s:%ld:%d: %s", P, line, col, dyi_quality_kind(kind));
  else snprintf(want0, sizeof want0, "%s:%ld: %s", P, line, dyi_quality_kind(kind));
  CHECK(!strncmp(pr, want0, strlen(want0)), "%s printed '%.80s', expected '%s'", what, pr, want0);
  dyi_quality_free(q);
  char err[DY_ERRSZ], want[600];
  int rc;
  readall(&o, err, &rc);
  snprintf(want, sizeof want, "%s:%ld:%d:", P, line, ecol);
  CHECK(rc == -1 && strncmp(err, want, strlen(want)) == 0, "%s stop: '%s' should start '%s'", what,
        err, want);
  o.on_bad = 1;
  long k = readall(&o, err, &rc);
  CHECK(rc == 0 && k == NR - 1, "%s drop: %ld samples (rc %d: %s)", what, k, rc, rc ? err : "");
}

/* the finding of a kind in column col; NULL if absent */
static const dyiFinding* get_col(const dyiQuality* q, int kind, int col) {
  for (int i = 0; i < dyi_quality_count(q); i++)
    if (dyi_quality_get(q, i)->kind == kind && dyi_quality_get(q, i)->col == col) return dyi_quality_get(q, i);
  return NULL;
}

/* a whole-log finding: present with the given column */
static const dyiFinding* whole(const char* what, int defect, int kind, int col, dyiLogOpt* o,
                               dyiQuality** keep) {
  write_log(defect);
  dyiQuality* q = scan(o);
  *keep = q;
  if (!q) return NULL;
  const dyiFinding* f = get(q, kind);
  CHECK(f && f->col == col, "%s: finding %s col %d (got %s col %d)", what,
        dyi_quality_kind(kind), col, f ? dyi_quality_kind(f->kind) : "none", f ? f->col : 0);
  if (f) printf("%-16s -> %s\n", what, f->verdict);
  return f;
}

/* a clean log: no finding */
static void test_clean(void) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  write_log(D_NONE);
  dyiQuality* q = scan(&o);
  if (!q) return;
  CHECK(dyi_quality_count(q) == 0, "clean log: %d findings", dyi_quality_count(q));
  if (dyi_quality_count(q)) dyi_quality_print(stderr, q);
  dyi_quality_free(q);
}

/* row defects, each at its line and column (data row k is line k + 1;
 * columns t=1 q1=2 q2=3 qd1=4 qd2=5 tau1=6 tau2=7) */
static void test_bad_rows(void) {
  static const struct { const char* what; int defect, kind; long line; int col; } cases[] = {
    {"NaN", D_NAN, DYI_QF_NAN, 101, 2},
    {"Inf", D_INF, DYI_QF_INF, 201, 7},
    {"5e235", D_ABSURD, DYI_QF_ABSURD, 301, 4},
    {"not a number", D_JUNK, DYI_QF_JUNK, 351, 3},
    {"truncated row", D_TRUNC, DYI_QF_TRUNC, 401, 4},
    {"repeated time", D_TREPEAT, DYI_QF_TREPEAT, 501, 1},
    {"backwards time", D_TBACK, DYI_QF_TBACK, 601, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    bad_row(cases[i].what, cases[i].defect, cases[i].kind, cases[i].line, cases[i].col);
}

/* the gap: at line 701, once, 11 ms long */
static void gap_extra(const dyiQuality* q, const dyiFinding* f, const dyiLogOpt* o) {
  (void)q; (void)o;
  CHECK(f && f->first_line == 701 && f->count == 1 && fabs(f->value - 0.011) < 1e-9, "gap at line 700 of 11 ms");
}

/* the lag: on every joint, each at its own qd column, named one sample */
static void lag_extra(const dyiQuality* q, const dyiFinding* f, const dyiLogOpt* o) {
  (void)o;
  CHECK(dyi_quality_has(q, DYI_QF_VLAG) == NJ, "lag found on every joint");
  for (int j = 0; j < NJ; j++) {
    const dyiFinding* g = get_col(q, DYI_QF_VLAG, 2 + NJ + j);
    char want[32];
    snprintf(want, sizeof want, "qd%d lags q%d ", j + 1, j + 1);
    CHECK(g && !strncmp(g->verdict, want, strlen(want)), "lag of qd%d in its column %d: '%s'", j + 1, 2 + NJ + j,
          g ? g->verdict : "none");
  }
  CHECK(f && fabs(f->value - 1) < 0.05 && strstr(f->verdict, "one sample") && strstr(f->verdict, "lags"),
        "named a one-sample lag: %.3f '%s'", f ? f->value : 0, f ? f->verdict : "none");
}

/* saturation: the level 4, and the longest run of clipped rows as the
 * log's formula gives it (runs of hundreds of rows: the column statistics
 * are taken in blocks of 64, across which the run must go on) */
static void sat_extra(const dyiQuality* q, const dyiFinding* f, const dyiLogOpt* o) {
  (void)q; (void)o;
  long best = 0, best_line = 0, run = 0;
  for (int k = 1; k <= NR; k++) {
    run = tf(0, 1e-3 * (k - 1)) > 4.0 ? run + 1 : 0;
    if (run > best) { best = run; best_line = k + 1 - (run - 1); }
  }
  CHECK(best > 2 * 64, "the log's longest clipped run spans blocks: %ld rows", best);
  CHECK(f && f->value == 4.0 && f->count == best && f->first_line == best_line,
        "saturation level 4, run %ld rows from line %ld (the formula: %ld from %ld)", f ? f->count : 0,
        f ? f->first_line : 0, best, best_line);
}

/* the stale row: at line 801, once; kept by the reader, or dropped */
static void stale_extra(const dyiQuality* q, const dyiFinding* f, const dyiLogOpt* o) {
  (void)q;
  CHECK(f && f->first_line == 801 && f->count == 1, "stale row at line 801");
  char e3[DY_ERRSZ]; int rc;
  dyiLogOpt os = *o; os.drop_stale = 1;
  long k = readall(o, e3, &rc), k2 = readall(&os, e3, &rc);
  CHECK(k == NR && k2 == NR - 1, "stale row kept (%ld) or dropped (%ld)", k, k2);
}

/* NaN in a column not used: reported, harmless, never stops */
static void unused_extra(const dyiQuality* q, const dyiFinding* f, const dyiLogOpt* o) {
  (void)q;
  CHECK(f && !f->used && !f->bad && f->first_line == 901, "unused NaN harmless");
  char err[DY_ERRSZ]; int rc;
  long k = readall(o, err, &rc);
  CHECK(rc == 0 && k == NR, "unused NaN does not stop the read: %ld (%s)", k, rc ? err : "");
}

/* whole-log findings, each in its column (0: a row finding), with what
 * else each one must hold */
static void test_whole(void) {
  static const struct {
    const char* what; int defect, kind, col; double taumax1;   /* joint 1's torque limit, 0: none */
    void (*extra)(const dyiQuality*, const dyiFinding*, const dyiLogOpt*);
  } cases[] = {
    {"gap", D_GAP, DYI_QF_GAP, 0, 0, gap_extra},
    {"constant column", D_CONST, DYI_QF_CONST, 3, 0, NULL},
    {"all-zero column", D_ZERO, DYI_QF_ZERO, 7, 0, NULL},
    {"lagged velocity", D_LAG, DYI_QF_VLAG, 4, 0, lag_extra},
    {"saturated torque", D_SAT, DYI_QF_TSAT, 6, 0, sat_extra},
    {"stale row", D_STALE, DYI_QF_STALE, 0, 0, stale_extra},
    {"beyond taumax", D_NONE, DYI_QF_TMAX, 6, 3.0, NULL},
    {"unused NaN", D_UNUSEDNAN, DYI_QF_NAN, 8, 0, unused_extra},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dyiLogOpt o;
    dyi_log_defaults(&o);
    o.taumax[0] = cases[i].taumax1;
    dyiQuality* q;
    const dyiFinding* f = whole(cases[i].what, cases[i].defect, cases[i].kind, cases[i].col, &o, &q);
    if (q && cases[i].extra) cases[i].extra(q, f, &o);
    dyi_quality_free(q);
  }
}

/* cell parsing (a fast path for short decimals) reads every number
 * exactly as strtod does: random values printed with 1..17 digits */
static void test_parse(void) {
  FILE* fp = fopen(P, "w");
  static char txt[20000][40];
  fprintf(fp, "t,q1,q2,tau1,tau2\n");
  for (int k = 0; k < 20000; k++) {
    double v = th_uniform(-1, 1) * pow(10, (int)th_uniform(-30, 30));
    const char* fmt[] = {"%.*g", "%.*e", "%.*f"};
    int f = k % 3, d = 1 + k % 17;
    snprintf(txt[k], sizeof txt[k], fmt[f], f == 2 ? d % 8 : d, f == 2 ? fmod(v, 1e6) : v);
    if (k % 7 == 0) snprintf(txt[k], sizeof txt[k], "%d.%05d", k % 1000, k);
    if (k % 11 == 0) snprintf(txt[k], sizeof txt[k], "-0.000%de-3", k);
    /* digit counts around the fast path's limits (15, 19, 2^53), leading
     * zeros, a sign, no digit before or after the point, 10^+-22 */
    if (k % 13 == 0) snprintf(txt[k], sizeof txt[k], "%0*d.%0*d", 1 + k % 19, k % 97, 1 + k % 11, k % 89);
    if (k % 17 == 0) snprintf(txt[k], sizeof txt[k], "%s%llu%s", k % 2 ? "+" : "-",
                              9007199254740990ull + (unsigned long long)(k % 7) * 1000000ull * (k % 3), k % 5 ? "" : "e-22");
    if (k % 19 == 0) snprintf(txt[k], sizeof txt[k], k % 4 == 0 ? ".%de2" : k % 4 == 1 ? "%d.e-2" : k % 4 == 2 ? "%de22" : "%de23", k % 1000);
    fprintf(fp, "%d,%s,0,0,0\n", k, txt[k]);
  }
  fclose(fp);
  dyiLogOpt op; dyi_log_defaults(&op); op.absurd = 1e300;
  char e2[DY_ERRSZ];
  dyiLogRaw* raw = dyi_lograw_open(P, NJ, &op, e2, sizeof e2);
  dyiLogRow row; long k = 0, bad = 0;
  while (raw && dyi_lograw_next(raw, &row, e2, sizeof e2) == 1) {
    double ref = strtod(txt[row.row - 1], NULL);
    if (memcmp(&ref, &row.q[0], sizeof ref)) {
      if (bad++ < 5) fprintf(stderr, "parse '%s': %.17g vs strtod %.17g\n", txt[row.row - 1], row.q[0], ref);
    }
    k++;
  }
  CHECK(k == 20000 && bad == 0, "numbers parsed as strtod does: %ld rows, %ld differ", k, bad);
  dyi_lograw_close(raw);
}

/* the Kinova file: the corrupt -5.34656e235 and a NaN in command columns,
 * reported as unused; the same cells stop a read that uses them */
static void test_kinova(void) {
  const char* kin = "datasets/kinova_gen3/opti_traj_testing1.csv.gz";
  char err[DY_ERRSZ];
  dyiLogOpt ok;
  dyi_log_defaults(&ok);
  strcpy(ok.map_name[0], "t"); strcpy(ok.map_col[0], "Time"); ok.nmap = 1;
  for (int j = 0; j < 7; j++) {
    snprintf(ok.map_name[ok.nmap], 32, "q%d", j + 1); snprintf(ok.map_col[ok.nmap++], 64, "Position%d", j + 1);
    snprintf(ok.map_name[ok.nmap], 32, "qd%d", j + 1); snprintf(ok.map_col[ok.nmap++], 64, "Velocity%d", j + 1);
    snprintf(ok.map_name[ok.nmap], 32, "tau%d", j + 1); snprintf(ok.map_col[ok.nmap++], 64, "TorqueCur%d", j + 1);
  }
  ok.time_scale = 1e-3;
  dyiQuality* kq = dyi_log_scan(kin, 7, &ok, err, sizeof err);
  CHECK(kq != NULL, "kinova scan: %s", err);
  if (kq) {
    const dyiFinding* a = get_col(kq, DYI_QF_ABSURD, 55);
    const dyiFinding* nn = get_col(kq, DYI_QF_NAN, 52);
    CHECK(a && a->first_line == 4722 && a->value == -5.34656e235 && !a->used,
          "kinova: the corrupt -5.34656e235 in PositionCmptd5, line 4722");
    CHECK(nn && nn->first_line == 4723, "kinova: NaN in PositionCmptd2, line 4723");
    dyi_quality_print(stdout, kq);
    dyi_quality_free(kq);
  }
  for (int j = 0; j < 7; j++) snprintf(ok.map_col[1 + 3*j], 64, "PositionCmptd%d", j + 1);
  dyiLogReader* r = dyi_log_open(kin, 7, &ok, err, sizeof err);
  dyiSample s; int rc = 1;
  while (r && (rc = dyi_log_next(r, &s, err, sizeof err)) == 1) {}
  char want[300];
  snprintf(want, sizeof want, "%s:4722:55:", kin);
  CHECK(r && rc == -1 && !strncmp(err, want, strlen(want)), "kinova stop at the corrupt cell: %s", err);
  dyi_log_close(r);
}

/* the KUKA velocities lag on all 7 joints, in each of the 3 logs */
static void test_kuka(const dyiLogOpt* ou) {
  char err[DY_ERRSZ];
  for (int i = 1; i <= 3; i++) {
    char path[128];
    snprintf(path, sizeof path, "datasets/kuka_lwr4/measurements_%d.csv.gz", i);
    dyiQuality* kq = dyi_log_scan(path, 7, ou, err, sizeof err);
    CHECK(kq != NULL, "kuka scan: %s", err);
    if (!kq) continue;
    int nlag = 0;
    for (int k = 0; k < dyi_quality_count(kq); k++) {
      const dyiFinding* g = dyi_quality_get(kq, k);
      if (g->kind == DYI_QF_VLAG && g->value > 0.2 && g->value < 1.25) nlag++;
    }
    CHECK(nlag == 7, "kuka %d: velocity lag found on %d of 7 joints", i, nlag);
    if (i == 1) dyi_quality_print(stdout, kq);
    dyi_quality_free(kq);
  }
}

/* the Panda's irregular steps (0.7 .. 8.8 ms), its gap and stale rows */
static void test_panda(const dyiLogOpt* ou) {
  char err[DY_ERRSZ];
  const char* pan = "datasets/panda/exciting_traj.csv.gz";
  dyiQuality* pq = dyi_log_scan(pan, 7, ou, err, sizeof err);
  CHECK(pq != NULL, "panda scan: %s", err);
  if (!pq) return;
  long rows, dropped; double mn, med, mx;
  dyi_quality_stats(pq, &rows, &dropped, &mn, &med, &mx);
  CHECK(rows == 20544 && dropped == 0, "panda rows %ld dropped %ld", rows, dropped);
  CHECK(mn > 0.00065 && mn < 0.00075 && mx > 0.0087 && mx < 0.0089 && fabs(med - 0.001) < 5e-5,
        "panda steps %.4g .. %.4g (median %.4g)", mn, mx, med);
  const dyiFinding* g = get(pq, DYI_QF_GAP);
  CHECK(g && g->count >= 1 && fabs(g->value - mx) < 1e-12, "panda gap found");
  g = get(pq, DYI_QF_STALE);
  CHECK(g && g->count > 1000, "panda stale rows: %ld", g ? g->count : 0);
  dyi_quality_print(stdout, pq);
  dyi_quality_free(pq);
}

/* the column statistics, taken in blocks of 64 rows, against runs and
 * values placed at the blocks' edges, rows fed to the gate one by one (a
 * row's line is its index + 2): tau1 flat at its maximum 7 over rows
 * 100-128 (one row into the third block, the rest of which has no two
 * values alike) and 319-343 (from the last row of the fifth block, whose
 * other values are distinct); tau2 flat at its minimum -7
 * over the last 30 rows (in the last block, partial: taken when the log
 * ends); q1 constant but for a block of distinct values (rows 448-511),
 * qd1 zero but for one such block (320-383), q2 constant and qd2 zero
 * throughout */
static void test_column_blocks(void) {
  char* names[7] = {"t", "q1", "q2", "qd1", "qd2", "tau1", "tau2"};
  const int role[7] = {DYI_ROLE_T, DYI_ROLE_Q, DYI_ROLE_Q, DYI_ROLE_QD, DYI_ROLE_QD, DYI_ROLE_TAU, DYI_ROLE_TAU};
  const int joint[7] = {0, 0, 1, 0, 1, 0, 1};
  const double taumax[2] = {0, 0};
  dyiQuality* q = dyi_quality_make("blocks.csv", 7, names, role, joint, 2, 0, 0, taumax);
  if (!q) { CHECK(0, "gate made"); return; }
  const int rows = 1000;
  for (int k = 0; k < rows; k++) {
    dyiLogRow r;
    memset(&r, 0, sizeof r);
    r.row = k + 1; r.line = k + 2; r.t = 1e-3 * k;
    r.q[0] = k >= 448 && k < 512 ? 0.5 + 1e-3 * (k - 447) : 0.5;
    r.q[1] = 0.25;
    r.qd[0] = k >= 320 && k < 384 ? 1e-3 * (k - 319) : 0;
    for (int j = 0; j < 2; j++) r.tau[j] = 5 * sin(0.37 * k + j) + 1e-3 * k / rows;   /* distinct, in (-6, 6) */
    if ((k >= 100 && k <= 128) || (k >= 319 && k <= 343)) r.tau[0] = 7;
    if (k >= rows - 30) r.tau[1] = -7;
    dyi_quality_row(q, &r);
  }
  dyi_quality_finish(q);
  const dyiFinding *sat[2] = {NULL, NULL}, *cst[2] = {NULL, NULL}, *zero[2] = {NULL, NULL};
  for (int i = 0; i < dyi_quality_count(q); i++) {
    const dyiFinding* f = dyi_quality_get(q, i);
    for (int j = 0; j < 2; j++) {
      if (f->kind == DYI_QF_TSAT && f->col == 6 + j) sat[j] = f;
      if (f->kind == DYI_QF_CONST && f->col == 2 + j) cst[j] = f;
      if (f->kind == DYI_QF_ZERO && f->col == 4 + j) zero[j] = f;
    }
  }
  CHECK(sat[0] && sat[0]->value == 7 && sat[0]->count == 29 && sat[0]->first_line == 102,
        "flat runs across blocks' edges: the longest %ld rows at %g from line %ld (29 at 7 from 102)",
        sat[0] ? sat[0]->count : 0, sat[0] ? sat[0]->value : 0, sat[0] ? sat[0]->first_line : 0);
  CHECK(sat[1] && sat[1]->value == -7 && sat[1]->count == 30 && sat[1]->first_line == rows - 30 + 2,
        "flat run in the last, partial block: %ld rows at %g from line %ld (30 at -7 from %d)",
        sat[1] ? sat[1]->count : 0, sat[1] ? sat[1]->value : 0, sat[1] ? sat[1]->first_line : 0, rows - 28);
  CHECK(!cst[0] && !zero[0] && cst[1] && zero[1],
        "a block of distinct values: q1 not constant (%s), qd1 not all zero (%s); q2 constant (%s), qd2 zero (%s)",
        cst[0] ? "flagged" : "ok", zero[0] ? "flagged" : "ok", cst[1] ? "flagged" : "missed",
        zero[1] ? "flagged" : "missed");
  dyi_quality_free(q);
}

/* random runs: two torque columns of values from {-7, -3, 0, 3, 7} in runs
 * of random length (1 to 40 rows, within and across the 64-row blocks the
 * statistics are taken in), each run a value other than the one before;
 * the longest run (the first of that length), counted here row by row,
 * must be the saturation finding exactly when its value is the column's
 * maximum or minimum and it is at least 20 rows long (SATRUN in
 * quality.c), with its length, value and first line */
static void test_random_runs(void) {
  char* names[3] = {"t", "tau1", "tau2"};
  const int role[3] = {DYI_ROLE_T, DYI_ROLE_TAU, DYI_ROLE_TAU};
  const int joint[3] = {0, 0, 1};
  const double taumax[2] = {0, 0}, level[5] = {-7, -3, 0, 3, 7};
  static double tau[2][3000];
  long bad = 0, found = 0;
  for (int trial = 0; trial < 40; trial++) {
    const int rows = 500 + 60 * trial;
    dyiQuality* q = dyi_quality_make("runs.csv", 3, names, role, joint, 2, 0, 0, taumax);
    if (!q) { CHECK(0, "gate made"); return; }
    for (int j = 0; j < 2; j++)
      for (int k = 0, prev = -1; k < rows;) {
        int v;
        do v = (int)th_uniform(0, 5); while (v == prev || v > 4);
        const int len = 1 + (int)th_uniform(0, trial % 2 ? 40 : 12);
        for (int i = 0; i < len && k < rows; i++) tau[j][k++] = level[v];
        prev = v;
      }
    for (int k = 0; k < rows; k++) {
      dyiLogRow r;
      memset(&r, 0, sizeof r);
      r.row = k + 1; r.line = k + 2; r.t = 1e-3 * k;
      r.q[0] = r.q[1] = 0.1 * k;   /* moving, so that only the torques can be flat */
      r.tau[0] = tau[0][k]; r.tau[1] = tau[1][k];
      dyi_quality_row(q, &r);
    }
    dyi_quality_finish(q);
    for (int j = 0; j < 2; j++) {
      double mn = tau[j][0], mx = tau[j][0], bv = tau[j][0];
      long bn = 1, bl = 2, rn = 1, rl = 2;
      for (int k = 1; k < rows; k++) {
        mn = tau[j][k] < mn ? tau[j][k] : mn;
        mx = tau[j][k] > mx ? tau[j][k] : mx;
        if (tau[j][k] == tau[j][k - 1]) rn++; else { rn = 1; rl = k + 2; }
        if (rn > bn) { bn = rn; bv = tau[j][k]; bl = rl; }
      }
      const int want = bn >= 20 && (bv == mx || bv == mn);
      const dyiFinding* f = NULL;
      for (int i = 0; i < dyi_quality_count(q); i++)
        if (dyi_quality_get(q, i)->kind == DYI_QF_TSAT && dyi_quality_get(q, i)->col == 2 + j) f = dyi_quality_get(q, i);
      found += want;
      if (want ? !(f && f->count == bn && f->value == bv && f->first_line == bl) : f != NULL) {
        if (bad++ < 5)
          fprintf(stderr, "  trial %d tau%d: longest run %ld rows at %g from line %ld (flagged: %s); finding %ld at %g "
                  "from %ld\n", trial, j + 1, bn, bv, bl, want ? "yes" : "no", f ? f->count : 0,
                  f ? f->value : 0, f ? f->first_line : 0);
      }
    }
    dyi_quality_free(q);
  }
  CHECK(bad == 0 && found > 10, "random runs: %ld of 80 columns judged unlike the row-by-row count (%ld saturated)",
        bad, found);
}

int main(void) {
  test_clean();
  test_column_blocks();
  test_random_runs();
  test_bad_rows();
  test_whole();
  test_parse();
  /* ---- the real logs ---- */
  test_kinova();
  dyiLogOpt ou; dyi_log_defaults(&ou);
  strcpy(ou.map_name[0], "t"); strcpy(ou.map_col[0], "t_s"); ou.nmap = 1;
  test_kuka(&ou);
  test_panda(&ou);
  return test_report();
}
