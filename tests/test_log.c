/* SPDX-License-Identifier: MIT */
/* dynid tests: the log reader and its preprocessing.
 *  - derivatives from q on a known trajectory (sums of sines, analytic
 *    derivatives) on a regular and on a jittered time grid, within bounds
 *    derived from the difference formulas (see check_traj);
 *  - logged qd used (filtered), qdd from it;
 *  - the torque filtered in parallel, tau_raw untouched (times the gain);
 *  - --map (single and ranges), --no-header, --gain, --rows, --time-scale,
 *    --cutoff none, --decimate, --resample through cli_logopt, and the usage
 *    errors (status 2 and the line saying what is wrong);
 *  - rewind gives the same samples;
 *  - read-ahead (rows parsed on a thread of their own) gives the same rows,
 *    end and errors, and stops when closed early;
 *  - a 10^6-sample 7-joint log (written gzipped into build/tests/) read in
 *    bounded memory: the peak RSS (getrusage) stays below 60 MB. */
#include "testhelp.h"
#include "reports/cli.h"
#include "ident/log.h"
#include "ident/quality.h"
#include "ident/filter.h"
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#define NJ 3
static const double FRQ[3] = {0.2, 0.5, 1.1};     /* Hz */
static double AMP[NJ][3], PHS[NJ][3];

/* q_j and its derivatives d = 0..4 at t */
static double traj(int j, int d, double t) {
  double v = 0;
  for (int l = 0; l < 3; l++) {
    double w = 2*M_PI*FRQ[l], ph = w*t + PHS[j][l] + d*M_PI/2;
    v += AMP[j][l] * pow(w, d) * sin(ph);
  }
  return v;
}
static double dbound(int j, int d) {      /* max |d^d q_j / dt^d| */
  double v = 0;
  for (int l = 0; l < 3; l++) v += fabs(AMP[j][l]) * pow(2*M_PI*FRQ[l], d);
  return v;
}
static double torque(int j, double t) { return 2*traj(j, 0, t) + 0.5*traj(j, 2, t) + 0.1*(j + 1); }

/* write a log: t, q (, qd), tau; times t_k = k h (1 + jitter u_k) */
static long write_log(const char* path, double h, double jitter, int with_qd, double T) {
  FILE* f = fopen(path, "w");
  fprintf(f, "# synthetic log\nt");
  for (int j = 0; j < NJ; j++) fprintf(f, ",q%d", j + 1);
  if (with_qd) for (int j = 0; j < NJ; j++) fprintf(f, ",qd%d", j + 1);
  for (int j = 0; j < NJ; j++) fprintf(f, ",tau%d", j + 1);
  fputc('\n', f);
  long N = (long)(T / h) + 1;
  for (long k = 0; k < N; k++) {
    double t = k*h + (k ? jitter * h * th_uniform(-0.5, 0.5) : 0);
    fprintf(f, "%.17g", t);
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 0, t));
    if (with_qd) for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 1, t));
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", torque(j, t));
    fputc('\n', f);
  }
  fclose(f);
  return N;
}

/* read a log and compare with the analytic trajectory away from the ends
 * (skip samples within `edge` of either end); errors relative to the
 * derivative's amplitude bound */
static void check_traj(const char* what, const char* path, const dyiLogOpt* o, long N, long edge,
                       double tq, double tqd, double tqdd, double ttau) {
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(path, NJ, o, err, sizeof err);
  CHECK(r != NULL, "%s: open: %s", what, err);
  if (!r) return;
  dyiSample s;
  long k = 0;
  double eq = 0, eqd = 0, eqdd = 0, etau = 0;
  int rc;
  while ((rc = dyi_log_next(r, &s, err, sizeof err)) == 1) {
    if (k >= edge && (N < 0 ? s.t < 10 - 1e-3 * edge : k < N - edge))
      for (int j = 0; j < NJ; j++) {
        eq = fmax(eq, fabs(s.q[j] - traj(j, 0, s.t)) / dbound(j, 0));
        eqd = fmax(eqd, fabs(s.qd[j] - traj(j, 1, s.t)) / dbound(j, 1));
        eqdd = fmax(eqdd, fabs(s.qdd[j] - traj(j, 2, s.t)) / dbound(j, 2));
        etau = fmax(etau, fabs(s.tau[j] - torque(j, s.t)) / (2*dbound(j, 0) + 0.5*dbound(j, 2)));
      }
    k++;
  }
  CHECK(rc == 0, "%s: read: %s", what, err);
  CHECK(k == N || (N < 0 && k > 1000), "%s: %ld samples, expected %ld", what, k, N);
  if (N < 0) N = k;
  printf("%s: relative errors q %.2e qd %.2e qdd %.2e tau %.2e (bounds %.1e %.1e %.1e %.1e)\n",
         what, eq, eqd, eqdd, etau, tq, tqd, tqdd, ttau);
  CHECK(eq < tq, "%s: q error %.3g > %.3g", what, eq, tq);
  CHECK(eqd < tqd, "%s: qd error %.3g > %.3g", what, eqd, tqd);
  CHECK(eqdd < tqdd, "%s: qdd error %.3g > %.3g", what, eqdd, tqdd);
  CHECK(etau < ttau, "%s: tau error %.3g > %.3g", what, etau, ttau);
  dyi_log_close(r);
}

/* a cliArgs from "key=value" / "flag" strings */
static cliArgs mkcli(int nopt, const char* const* kv) {
  static char buf[64][128];
  cliArgs c;
  memset(&c, 0, sizeof c);
  c.cmd = "test";
  for (int i = 0; i < nopt; i++) {
    snprintf(buf[i], sizeof buf[i], "%s", kv[i]);
    char* e = strchr(buf[i], '=');
    if (e && strncmp(buf[i], "map", 3) == 0 && e == buf[i] + 3) { *e = 0; c.val[i] = e + 1; }
    else if (e && strncmp(buf[i], "map", 3) != 0) { *e = 0; c.val[i] = e + 1; }
    else c.val[i] = NULL;
    c.key[i] = buf[i];
  }
  c.nopt = nopt;
  return c;
}

static long peak_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* rows of path through the gate, with (ahead 1) or without read-ahead:
 * into rows (up to max), the return code of the last call and its message */
static long raw_rows(const char* path, int ahead, dyiLogRow* rows, long max, int* rc, char* msg) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  dyiLogRaw* r = dyi_lograw_open(path, NJ, &o, msg, DY_ERRSZ);
  if (!r) { *rc = -2; return 0; }
  if (ahead && dyi_lograw_readahead(r)) { *rc = -3; dyi_lograw_close(r); return 0; }
  long k = 0;
  dyiLogRow row;
  memset(&row, 0, sizeof row);
  while ((*rc = dyi_lograw_next(r, &row, msg, DY_ERRSZ)) == 1 && k < max) rows[k++] = row;
  long long done, total;
  dyi_lograw_progress(r, &done, &total);
  if (*rc == 0 && done != total) *rc = -4;
  dyi_lograw_close(r);
  return k;
}

/* the log files the cases read: 10 s at 1 kHz of q and tau, the same on
 * a jittered grid, the regular one with qd; a headerless file (index,
 * junk column, q, tau) and one with named columns (torque / 10) */
static const char* const P1 = "build/tests/log_regular.csv";
static const char* const P2 = "build/tests/log_jitter.csv";
static const char* const P3 = "build/tests/log_qd.csv";
static const char* const P4 = "build/tests/log_noheader.csv";
static const char* const P5 = "build/tests/log_named.csv";
static long N1, N2, N3;

static void write_logs(void) {
  N1 = write_log(P1, 1e-3, 0, 0, 10);
  N2 = write_log(P2, 1e-3, 0.6, 0, 10);
  N3 = write_log(P3, 1e-3, 0, 1, 10);
  FILE* f = fopen(P4, "w");
  for (long k = 0; k < 2000; k++) {
    fprintf(f, "%ld,%d", k, 7);
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 0, 1e-3 * k));
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", torque(j, 1e-3 * k));
    fputc('\n', f);
  }
  fclose(f);
  f = fopen(P5, "w");
  fprintf(f, "Time,Position1,Position2,Position3,Velocity1,Velocity2,Velocity3,Cur1,Cur2,Cur3,Extra\n");
  for (long k = 0; k < 1500; k++) {
    double t = 1e-3 * k;
    fprintf(f, "%.17g", t);
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 0, t));
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 1, t));
    for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", torque(j, t) / 10);
    fprintf(f, ",x\n");
  }
  fclose(f);
}

/* the options that differ from dyi_log_defaults, as one line */
static void opt_text(const dyiLogOpt* o, char* buf, size_t sz) {
  dyiLogOpt d;
  dyi_log_defaults(&d);
  size_t L = 0;
#define OT(...) (L += (size_t)snprintf(buf + L, L < sz ? sz - L : 0, __VA_ARGS__))
  buf[0] = 0;
  if (o->no_header) OT("no-header; ");
  for (int i = 0; i < o->nmap; i++) OT("%s%s=%s%s", i ? " " : "map ", o->map_name[i], o->map_col[i], i + 1 < o->nmap ? "" : "; ");
  if (o->has_gain) OT("gain %g,%g,%g; ", o->gain[0], o->gain[1], o->gain[2]);
  if (o->row_first || o->row_last) OT("rows %ld..%ld; ", o->row_first, o->row_last);
  if (o->cutoff_hz != d.cutoff_hz) OT("cutoff %g; ", o->cutoff_hz);
  if (o->on_bad != d.on_bad) OT("on-bad %d; ", o->on_bad);
  if (o->time_scale != d.time_scale) OT("time-scale %g; ", o->time_scale);
  if (o->decimate != d.decimate) OT("decimate %d; ", o->decimate);
  if (o->no_parallel != d.no_parallel) OT("no-parallel; ");
  if (o->resample_hz != d.resample_hz) OT("resample %g; ", o->resample_hz);
  if (o->qd_min != d.qd_min) OT("qd-min %g; ", o->qd_min);
  if (o->derive != d.derive) OT("derive %d; ", o->derive);
  if (o->order != d.order || o->drop_stale != d.drop_stale || o->filter_tau != d.filter_tau || o->absurd != d.absurd)
    OT("order %d drop-stale %d filter-tau %d absurd %g; ", o->order, o->drop_stale, o->filter_tau, o->absurd);
#undef OT
  if (L >= 2 && L < sz) buf[L - 2] = 0;   /* the last "; " */
}

/* options from "key=value" / "flag" strings (NULL-ended) through
 * cli_logopt: status 0 and parsed as want (opt_text); 1 if status 0 */
static int parse_opts(const char* what, const char* const* kv, const char* want, dyiLogOpt* o) {
  int n = 0;
  while (kv[n]) n++;
  cliArgs c = mkcli(n, kv);
  dyModel* m = dy_make_model(NJ);   /* no transmission */
  int rc = cli_logopt(&c, m, o);
  dy_free_model(m);
  char got[1024];
  opt_text(o, got, sizeof got);
  CHECK(rc == 0 && !strcmp(got, want), "%s: options parsed as '%s' (status %d), expected '%s'", what, got, rc, want);
  return rc == 0;
}

/* the documented default cutoff, measured on the log (log.h): this log's
 * positions are noise-free (%.17g) slow sines, so the ladder 2.5 Hz *
 * sqrt(2)^k reaches its top below fs / 5 = 200 Hz: 160 Hz at 1 kHz */
static void test_default_cutoff(void) {
  char err[DY_ERRSZ];
  dyiLogOpt o;
  dyi_log_defaults(&o);
  dyiLogReader* r0 = dyi_log_open(P1, NJ, &o, err, sizeof err);
  dyiLogInfo li;
  memset(&li, 0, sizeof li);
  if (r0) { dyiSample s0; dyi_log_next(r0, &s0, err, sizeof err); dyi_log_info(r0, &li); dyi_log_close(r0); }
  CHECK(fabs(li.fc - 160) < 1e-9 && fabs(li.fs - 1000) < 1e-6 && li.fc_measured,
        "default cutoff at 1 kHz: %g Hz (fs %g)", li.fc, li.fs);
}

/* Jittered grid, default (filtered by sample index with the time
 * filtered alike, differences on the filtered time): the bounds on the
 * relative errors of q, qd, qdd, tau. With t_i = i h + d_i and filter
 * weights w_i (zero phase, maximally flat: sum w_i (i-k) = sum w_i (i-k)^2
 * = 0), q_f(k) - q(t_f(k)) = 1/2 q'' sum w_i (t_i - t_f)^2, dominated by
 * the cross term h q'' sum w_i (i-k) d_i: a zero-mean error of standard
 * deviation |q''| h sd(d) S, S^2 = sum w_i^2 (i-k)^2 (from the impulse
 * response, below). Bound: 5 standard deviations. The error is low-passed
 * at fc, so by Bernstein's inequality its derivatives are at most
 * 2 pi fc (and (2 pi fc)^2) times larger; factor 2 for the Butterworth
 * skirt beyond fc. Absolute errors, divided by the amplitude bounds. */
static void jitter_bounds(double h, double w, double b4[4]) {
  dyiButter bw;
  dyi_butter_design(&bw, 4, 50, 1000);
  dyiZpf* z = dyi_zpf_make(&bw, 1, 0, 0);
  double S2 = 0, y; long K = 3000, k = 0;
  for (long i = 0; i <= 2*K; i++) {
    double v = i == K ? 1 : 0;
    dyi_zpf_push(z, &v, NULL);
    while (dyi_zpf_pop(z, &y, NULL)) { S2 += y*y*(double)(k-K)*(double)(k-K); k++; }
  }
  dyi_zpf_finish(z);
  while (dyi_zpf_pop(z, &y, NULL)) { S2 += y*y*(double)(k-K)*(double)(k-K); k++; }
  dyi_zpf_free(z);
  double sdd = 0.6e-3 / sqrt(12.0), wc = 2*M_PI*50;
  double eq = 0, eqd = 0, eqdd = 0;
  for (int j = 0; j < NJ; j++) {
    double b = 5 * dbound(j, 2) * h * sdd * sqrt(S2);
    eq = fmax(eq, b / dbound(j, 0));
    eqd = fmax(eqd, 2 * wc * b / dbound(j, 1) + 2*h*h/6*w*w);
    eqdd = fmax(eqdd, 2 * wc * wc * b / dbound(j, 2) + 2*h*h/12*w*w);
  }
  printf("jitter: S = %.3g samples\n", sqrt(S2));
  b4[0] = eq; b4[1] = eqd; b4[2] = eqdd;
  b4[3] = eq * dbound(0, 0) / (2*dbound(0, 0) + 0.5*dbound(0, 2)) + 0.5 * eqdd;
}

/* Derivatives against the analytic trajectory. Regular 1 kHz grid:
 * |H|^2 at 1.1 Hz with fc = 50 Hz differs from 1 by (1.1/50)^8 ~ 5e-14:
 * negligible. Central differences: qd error h^2/6 |q'''|, qdd error
 * h^2/12 |q''''| (Taylor), relative to |q'|, |q''| amplitude bounds <
 * h^2/6 (2 pi 1.1)^2 = 8e-6 and h^2/12 (2 pi 1.1)^2 = 4e-6. Ends: the odd
 * extension keeps value and slope but flips q'' there; samples within two
 * filter margins (~660) of the ends are left out. Jittered grid (steps
 * 1 ms x (1 +- 0.3), like the Panda's) resampled at 1 kHz: cubic
 * interpolation, error |q(4)| h^4 / 24 (relative (2 pi 1.1)^4 1.7e-12 / 24
 * ~ 1e-11), then the regular grid's bounds. Logged qd: filtered and used;
 * qdd = d(qd)/dt (first-difference error h^2/6 |qd'''| relative to |q''|);
 * --derive qd ignores it. */
static void test_derivatives(void) {
  const double h = 1e-3, w = 2*M_PI*1.1, d1 = 2*h*h/6*w*w, d2 = 2*h*h/12*w*w;
  double jb[4];
  jitter_bounds(h, w, jb);
  const struct {
    const char* what; const char* path; const char* kv[3]; const char* opts;
    long n; double tq, tqd, tqdd, ttau;      /* samples (-1: resampled, > 1000), error bounds */
  } cases[] = {
    {"regular grid", P1, {"cutoff=50"}, "cutoff 50", N1, 1e-9, d1, d2, 1e-9},
    {"jittered grid, resampled", P2, {"cutoff=50", "resample=1000"}, "cutoff 50; resample 1000", -1, 1e-9, d1, d2, 1e-9},
    {"jittered grid, default", P2, {"cutoff=50"}, "cutoff 50", N2, jb[0], jb[1], jb[2], jb[3]},
    {"logged qd", P3, {"cutoff=50"}, "cutoff 50", N3, 1e-9, 1e-9, d1, 1e-9},
    {"logged qd ignored (--derive qd)", P3, {"derive=qd", "cutoff=50"}, "cutoff 50; derive 2", N3, 1e-9, d1, d2, 1e-9},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dyiLogOpt o;
    if (parse_opts(cases[i].what, cases[i].kv, cases[i].opts, &o))
      check_traj(cases[i].what, cases[i].path, &o, cases[i].n, 700, cases[i].tq, cases[i].tqd, cases[i].tqdd,
                 cases[i].ttau);
  }
}

/* the resampled grid itself: uniform steps, count, q near the ends
 * (cubic interpolation, ends included except the last 0.7 s) */
static void test_resampled_grid(void) {
  const char* kv[] = {"cutoff=50", "resample=1000", NULL};
  dyiLogOpt o;
  if (!parse_opts("resampled grid", kv, "cutoff 50; resample 1000", &o)) return;
  char err[DY_ERRSZ];
  dyiLogReader* r = dyi_log_open(P2, NJ, &o, err, sizeof err);
  CHECK(r != NULL, "resample open: %s", err);
  dyiSample s; long k = 0; double eq = 0, dtmax = 0, tprev = 0;
  while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
    if (k > 700 && s.t < 9.3) eq = fmax(eq, fabs(s.q[0] - traj(0, 0, s.t)) / dbound(0, 0));
    if (k) dtmax = fmax(dtmax, fabs(s.t - tprev - 1e-3));
    tprev = s.t; k++;
  }
  printf("resampled: %ld samples, q error %.2e, step deviation %.2e s\n", k, eq, dtmax);
  CHECK(eq < 1e-9, "resampled q error %.3g", eq);
  CHECK(dtmax < 1e-12, "resampled grid uniform: %.3g", dtmax);
  CHECK(k >= 9990 && k <= 10001, "resampled count %ld", k);
  dyi_log_close(r);
}

/* ---- per-sample expectations of the read cases: mismatches in sample s,
 * the k-th read ---- */

/* P1 unfiltered: q as written, tau_raw = tau = gain (2, 3, 4) x torque */
static long gain_bad(const dyiSample* s, long k) {
  long bad = 0;
  double t = 1e-3 * k;
  for (int j = 0; j < NJ; j++) {
    double g = j + 2.0;
    if (fabs(s->tau_raw[j] - g*torque(j, t)) > 1e-12 * g * 3 || s->tau[j] != s->tau_raw[j]) bad++;
    if (fabs(s->q[j] - traj(j, 0, t)) > 1e-15) bad++;
  }
  return bad;
}

/* P4: t = the index column x 0.001, q and tau the cells themselves */
static long noheader_bad(const dyiSample* s, long k) {
  (void)k;
  long idx = s->row - 1, bad = fabs(s->t - 1e-3 * idx) > 1e-15;
  for (int j = 0; j < NJ; j++)
    if (s->q[j] != traj(j, 0, 1e-3 * idx) || s->tau[j] != torque(j, 1e-3 * idx)) bad++;
  return bad;
}

/* P5: the logged qd as written, the torque column x 10 */
static long named_bad(const dyiSample* s, long k) {
  (void)k;
  long bad = 0;
  for (int j = 0; j < NJ; j++)
    if (s->qd[j] != traj(j, 1, s->t) || fabs(s->tau[j] - torque(j, s->t)) > 1e-13 * 10) bad++;
  return bad;
}

/* --qd-min 0.5: slow flags exactly where |qd_j| < 0.5 */
static long nslow;
static long slow_bad(const dyiSample* s, long k) {
  (void)k;
  long bad = 0;
  for (int j = 0; j < NJ; j++) {
    if (s->slow[j] != (fabs(s->qd[j]) < 0.5)) bad++;
    nslow += s->slow[j];
  }
  return bad;
}

/* ---- checks on the reader after the read ---- */

/* named columns: qd detected as logged; rewind gives the first sample again */
static void named_after(const char* what, dyiLogReader* r) {
  dyiLogInfo in;
  dyi_log_info(r, &in);
  CHECK(in.logged == 1, "%s: qd logged detected (%d)", what, in.logged);
  char err[DY_ERRSZ];
  dyiSample s2;
  CHECK(dyi_log_rewind(r, err, sizeof err) == 0 && dyi_log_next(r, &s2, err, sizeof err) == 1
        && s2.row == 1 && s2.q[0] == traj(0, 0, 0), "%s: rewind", what);
}

/* decimation with parallel filtering: the identification rows decimated
 * by 4, the stopband edge at fs / (2 x 4) */
static void decim_after(const char* what, dyiLogReader* r) {
  dyiLogInfo li;
  dyi_log_info(r, &li);
  CHECK(li.parallel && li.decim == 4 && li.fstop == 0.5 * li.fs / 4,
        "%s: parallel %d, rows decimated by %d, fstop %g", what, li.parallel, li.decim, li.fstop);
}

/* --qd-min: some flags set, not all */
static void slow_after(const char* what, dyiLogReader* r) {
  (void)r;
  CHECK(nslow > 0 && nslow < 300 * NJ, "%s: %ld slow flags in 300 samples", what, nslow);
}

/* A log read through options: the options as parsed, the read to its end
 * with n samples on the rows first, first + step, ..., last, and each
 * sample as the file holds it (bad); then the reader's state (after). */
typedef struct {
  const char* what; const char* path;
  const char* kv[8];                          /* the options, NULL-ended */
  const char* opts;                           /* as parsed (opt_text) */
  long n, first, last; int step;              /* samples and their rows */
  long (*bad)(const dyiSample*, long);
  void (*after)(const char*, dyiLogReader*);
} readCase;

static void run_read(const readCase* c) {
  dyiLogOpt o;
  if (!parse_opts(c->what, c->kv, c->opts, &o)) return;
  char err[DY_ERRSZ] = "";
  dyiLogReader* r = dyi_log_open(c->path, NJ, &o, err, sizeof err);
  CHECK(r != NULL, "%s: open: %s", c->what, err);
  if (!r) return;
  dyiSample s;
  long k = 0, bad = 0, off = 0, last = 0;
  int rc;
  while ((rc = dyi_log_next(r, &s, err, sizeof err)) == 1) {
    off += s.row != c->first + c->step * k;
    if (c->bad) bad += c->bad(&s, k);
    last = s.row;
    k++;
  }
  CHECK(rc == 0 && k == c->n && last == c->last && off == 0 && bad == 0,
        "%s: end %d '%s', %ld samples (expected %ld), last row %ld (expected %ld), %ld not on rows %ld + %d k, "
        "%ld mismatches", c->what, rc, rc ? err : "", k, c->n, last, c->last, off, c->first, c->step, bad);
  if (c->after) c->after(c->what, r);
  dyi_log_close(r);
}

/* --gain with --cutoff none, --map (ranges by position and by name),
 * --no-header, --rows (closed and open at either end), --time-scale,
 * --decimate (by the reader with --no-parallel: every 4th sample; else
 * every sample read and the identification rows decimated), --qd-min */
static void test_reads(void) {
  const readCase cases[] = {
    {"--gain with --cutoff none", P1, {"gain=2,3,4", "cutoff=none"}, "gain 2,3,4; cutoff -1",
     N1, 1, N1, 1, gain_bad, NULL},
    {"headerless, --rows 101..1100", P4, {"no-header", "map=t=c1", "map=q1..q3=c3..c5", "map=tau1..tau3=c6..c8",
                                          "rows=101..1100", "time-scale=0.001", "cutoff=none"},
     "no-header; map t=c1 q1=c3 q2=c4 q3=c5 tau1=c6 tau2=c7 tau3=c8; rows 101..1100; cutoff -1; time-scale 0.001",
     1000, 101, 1100, 1, noheader_bad, NULL},
    {"named ranges", P5, {"map=t=Time", "map=q1..q3=Position1..Position3", "map=qd1..qd3=Velocity1..3",
                          "map=tau1..tau3=Cur1..Cur3", "gain=10,10,10", "cutoff=none"},
     "map t=Time q1=Position1 q2=Position2 q3=Position3 qd1=Velocity1 qd2=Velocity2 qd3=Velocity3 tau1=Cur1 "
     "tau2=Cur2 tau3=Cur3; gain 10,10,10; cutoff -1", 1500, 1, 1500, 1, named_bad, named_after},
    {"decimate 4, --no-parallel", P1, {"cutoff=50", "decimate=4", "no-parallel"},
     "cutoff 50; decimate 4; no-parallel", (N1 + 3) / 4, 1, 1 + 4 * ((N1 + 3) / 4 - 1), 4, NULL, NULL},
    {"decimate 4, parallel filtering", P1, {"cutoff=50", "decimate=4"}, "cutoff 50; decimate 4",
     N1, 1, N1, 1, NULL, decim_after},
    {"--qd-min 0.5, --rows ..300", P1, {"qd-min=0.5", "rows=..300"}, "rows 0..300; qd-min 0.5",
     300, 1, 300, 1, slow_bad, slow_after},
    {"--rows 1901..", P1, {"rows=1901.."}, "rows 1901..0", N1 - 1900, 1901, N1, 1, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_read(&cases[i]);
}

/* cli_logopt's status on one option, with what it prints into msg */
static int usage_status(const char* kv, char* msg, size_t sz) {
  FILE* saved = stderr;
  memset(msg, 0, sz);
  FILE* m = fmemopen(msg, sz - 1, "w");
  if (!m) return -1;
  stderr = m;
  cliArgs c = mkcli(1, &kv);
  dyiLogOpt o;
  dyModel* mm = dy_make_model(NJ);
  int rc = cli_logopt(&c, mm, &o);
  dy_free_model(mm);
  stderr = saved;
  fclose(m);
  return rc;
}

/* usage errors: status 2 and the line that says what is wrong */
static void test_usage(void) {
  static const struct { const char* kv; const char* msg; } cases[] = {
    {"map=q1..q3=c2..c3", "--map q1..q3=c2..c3: the two ranges must have the same length"},
    {"map=q1", "--map: expected NAME=COLUMN (e.g. t=Time, q1..q7=c2..c8), got 'q1'"},
    {"gain=1,2", "--gain: expected 3 comma-separated numbers, got '1,2'"},
    {"rows=5..2", "--rows: expected A..B with 1 <= A <= B, got '5..2'"},
    {"on-bad=maybe", "--on-bad: expected drop or stop, got 'maybe'"},
    {"cutoff=abc", "--cutoff: expected a frequency in Hz or 'none', got 'abc'"},
    {"map=q1..q3=c2", "--map q1..q3=c2: a range needs '..' on both sides"},
    {"decimate=0", "--decimate: expected an integer 1..1000, got '0'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char msg[512], want[512];
    int rc = usage_status(cases[i].kv, msg, sizeof msg);
    snprintf(want, sizeof want, "dynid: %s\n", cases[i].msg);
    CHECK(rc == 2 && !strncmp(msg, want, strlen(want)), "bad usage '%s': status %d (expected 2), said '%s'",
          cases[i].kv, rc, msg);
  }
}

/* logs the reader refuses to open, with a message naming the cause */
static void test_refused(void) {
  const struct { const char* what; const char* path; const char* kv[2]; const char* opts; const char* says[2]; } cases[] = {
    {"unknown column", P5, {"map=t=Zeit"}, "map t=Zeit", {"Zeit", P5}},
    {"no time column", P5, {NULL}, "", {"no column for t", P5}},
    {"headerless file without --no-header", P4, {"rows=1901.."}, "rows 1901..0", {"no column for t", P4}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dyiLogOpt o;
    if (!parse_opts(cases[i].what, cases[i].kv, cases[i].opts, &o)) continue;
    char err[DY_ERRSZ] = "";
    dyiLogReader* r = dyi_log_open(cases[i].path, NJ, &o, err, sizeof err);
    CHECK(!r && strstr(err, cases[i].says[0]) && strstr(err, cases[i].says[1]), "%s refused: '%s'",
          cases[i].what, err);
    dyi_log_close(r);
  }
}

/* Read-ahead (the rows parsed on a thread of their own) gives the rows,
 * the end and the errors of the plain reader, in the same order, with
 * and without a bad cell */
static void test_readahead_rows(const char* path) {
  enum { NR = 5000 };
  static dyiLogRow a[NR], b[NR];
  for (int bad = 0; bad <= 1; bad++) {
    FILE* f = fopen(path, "w");
    fprintf(f, "t,q1,q2,q3,tau1,tau2,tau3\n");
    for (int k = 0; k < NR; k++) {
      if (bad && k == 3001) { fprintf(f, "%g,0.1,abc,0.3,1,2,3\n", 1e-3 * k); continue; }
      fprintf(f, "%.6f,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g\n", 1e-3 * k, sin(1e-3 * k), cos(2e-3 * k),
              0.1 * k, th_uniform(-5, 5), th_uniform(-5, 5), th_uniform(-5, 5));
    }
    fclose(f);
    int rca, rcb;
    char ma[DY_ERRSZ] = "", mb[DY_ERRSZ] = "";
    long na = raw_rows(path, 0, a, NR, &rca, ma), nb = raw_rows(path, 1, b, NR, &rcb, mb);
    long same = 0;
    for (long k = 0; k < na && k < nb; k++)
      same += a[k].row == b[k].row && a[k].line == b[k].line && a[k].t == b[k].t &&
              !memcmp(a[k].q, b[k].q, NJ * sizeof(double)) && !memcmp(a[k].tau, b[k].tau, NJ * sizeof(double));
    CHECK(na == (bad ? 3001 : NR) && nb == na && same == na && rca == rcb && rca == (bad ? -1 : 0) &&
          !strcmp(ma, mb), "read-ahead%s: %ld and %ld rows, %ld the same, return %d and %d, '%s' and '%s'",
          bad ? " (a bad cell at row 3002)" : "", na, nb, same, rca, rcb, ma, mb);
  }
}

/* a reader closed while the read-ahead thread waits for a free buffer
 * (blocked on two full ones) stops it */
static void test_readahead_close(const char* path) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  char msg[DY_ERRSZ];
  dyiLogRaw* r = dyi_lograw_open(path, NJ, &o, msg, sizeof msg);
  int ok = r && dyi_lograw_readahead(r) == 0;
  dyiLogRow row;
  for (int k = 0; ok && k < 10; k++) ok = dyi_lograw_next(r, &row, msg, sizeof msg) == 1;
  dyi_lograw_close(r);
  CHECK(ok, "read-ahead stopped by close after 10 rows");
}

/* the reader's samples with and without read-ahead (dyi_log_readahead) */
static void test_readahead_samples(void) {
  dyiLogOpt o;
  dyi_log_defaults(&o);
  char msg[DY_ERRSZ];
  dyiLogReader* ra = dyi_log_open(P1, NJ, &o, msg, sizeof msg);
  dyiLogReader* rb = dyi_log_open(P1, NJ, &o, msg, sizeof msg);
  long ns = 0, diff = 0;
  int rc1 = 1, rc2 = 1;
  if (ra && rb && dyi_log_readahead(rb) == 0) {
    dyiSample s1, s2;
    while ((rc1 = dyi_log_next(ra, &s1, msg, sizeof msg)) == 1 && (rc2 = dyi_log_next(rb, &s2, msg, sizeof msg)) == 1) {
      ns++;
      diff += s1.row != s2.row || s1.t != s2.t || memcmp(s1.q, s2.q, NJ * sizeof(double)) ||
              memcmp(s1.qd, s2.qd, NJ * sizeof(double)) || memcmp(s1.qdd, s2.qdd, NJ * sizeof(double)) ||
              memcmp(s1.tau, s2.tau, NJ * sizeof(double));
    }
    if (rc1 == 0) rc2 = dyi_log_next(rb, &s2, msg, sizeof msg);
  }
  CHECK(ns > 1000 && diff == 0 && rc1 == 0 && rc2 == 0, "dyi_log_readahead: %ld samples, %ld differ, ends %d %d",
        ns, diff, rc1, rc2);
  dyi_log_close(ra);
  dyi_log_close(rb);
}

/* the Panda's original sample-major files through a manifest give the
 * same samples as the joined CSV (cutoff none: the cells themselves) */
static void test_manifest(void) {
  char err[DY_ERRSZ], err2[DY_ERRSZ];
  dyiLogOpt oa, ob;
  dyi_log_defaults(&oa); oa.cutoff_hz = -1;
  ob = oa;
  strcpy(ob.map_name[0], "t"); strcpy(ob.map_col[0], "t_s"); ob.nmap = 1;
  dyiLogReader* ra = dyi_log_open("datasets/panda/sample_major/exciting_traj.manifest.csv", 7, &oa, err, sizeof err);
  CHECK(ra != NULL, "manifest open: %s", err);
  dyiLogReader* rb = dyi_log_open("datasets/panda/exciting_traj.csv.gz", 7, &ob, err2, sizeof err2);
  CHECK(rb != NULL, "panda csv open: %s", err2);
  dyiSample sa, sb; long k = 0, bad = 0; int ca = 0, cb = 0;
  while (ra && rb && (ca = dyi_log_next(ra, &sa, err, sizeof err)) == 1
         && (cb = dyi_log_next(rb, &sb, err2, sizeof err2)) == 1) {
    if (sa.t != sb.t || sa.row != sb.row) bad++;
    for (int j = 0; j < 7; j++)
      if (sa.q[j] != sb.q[j] || sa.qd[j] != sb.qd[j] || sa.tau_raw[j] != sb.tau_raw[j]) bad++;
    k++;
  }
  CHECK(k == 20544 && bad == 0 && ca == 0 && cb == 1 && rb && dyi_log_next(rb, &sb, err2, sizeof err2) == 0,
        "sample-major manifest = joined CSV: %ld samples, %ld differ", k, bad);
  long long d, tot;
  if (ra) { dyi_log_progress(ra, &d, &tot); CHECK(d == tot && tot > 1000000, "manifest progress %lld/%lld", d, tot); }
  dyi_log_close(ra); dyi_log_close(rb);
}

/* a gzipped log of nb samples of 7 joints: q = sin(0.7 t + j), tau */
static void write_big(const char* pb, long nb) {
  gzFile g = gzopen(pb, "wb1");
  gzprintf(g, "t,q1,q2,q3,q4,q5,q6,q7,tau1,tau2,tau3,tau4,tau5,tau6,tau7\n");
  char line[512];
  for (long k = 0; k < nb; k++) {
    double t = 1e-3 * k;
    int L = snprintf(line, sizeof line, "%.6f", t);
    for (int j = 0; j < 7; j++) L += snprintf(line + L, sizeof line - (size_t)L, ",%.6f", sin(0.7*t + j));
    for (int j = 0; j < 7; j++) L += snprintf(line + L, sizeof line - (size_t)L, ",%.4f", 3*cos(0.7*t + j));
    line[L++] = '\n';
    gzwrite(g, line, (unsigned)L);
  }
  gzclose(g);
}

/* 10^6 samples, 7 joints, gzipped, read in bounded memory */
static void test_big(void) {
  const char* pb = "build/tests/log_big.csv.gz";
  const long NB = 1000000;
  write_big(pb, NB);
  long rss0 = peak_rss_kb();
  char err[DY_ERRSZ];
  dyiLogOpt ob; dyi_log_defaults(&ob);
  dyiLogReader* r = dyi_log_open(pb, 7, &ob, err, sizeof err);
  CHECK(r != NULL, "big open: %s", err);
  dyiSample s; long k = 0; double e = 0;
  long long done = 0, total = 0;
  while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
    if (k % 100000 == 50000) {
      e = fmax(e, fabs(s.qd[2] - 0.7*cos(0.7*s.t + 2)));
      dyi_log_progress(r, &done, &total);
    }
    k++;
  }
  long rss = peak_rss_kb();
  printf("10^6 x 7 log: %ld samples, peak RSS %.1f MB (before the read %.1f MB), qd error %.2e, "
         "progress %lld/%lld bytes\n", k, rss / 1024.0, rss0 / 1024.0, e, done, total);
  CHECK(k == NB, "big log: %ld samples", k);
  /* what the read adds, not the process's whole footprint (which a
   * sanitizer build inflates): bounded memory means a few MB here */
  CHECK(rss - rss0 < 30 * 1024, "the read added %.1f MB >= 30 MB to the peak RSS", (rss - rss0) / 1024.0);
  /* 6 printed digits: q rounding 5e-7 differenced over 2 ms -> 5e-4 raw,
   * the 50 Hz low-pass leaves ~sqrt(0.1) of it */
  CHECK(e < 1e-3, "big log qd error %.3g", e);
  CHECK(done > 0 && total > 0 && done <= total, "progress %lld of %lld", done, total);
  dyi_log_close(r);
  remove(pb);
}

/* header units: the name and unit a cell gives, and the factor to SI of
 * each unit for its quantity (written out here from the definitions: a
 * degree is pi/180 rad, a millisecond 1e-3 s, a mN m 1e-3 N m) */
static void test_header_units(void) {
  static const struct { const char* cell; const char* base; const char* unit; } sp[] = {
    {"q1 [deg]", "q1", "deg"}, {" t (ms) ", "t", "ms"}, {"tau3_Nm", "tau3", "Nm"}, {"t_s", "t", "s"},
    {"qd2 [rad/s]", "qd2", "rad/s"}, {"tau1 [N m]", "tau1", "N m"}, {"joint_1", NULL, NULL}, {"q1", NULL, NULL},
    {"[deg]", NULL, NULL}, {"q1 []", NULL, NULL}, {"my_col", NULL, NULL}, {"tau1_m", NULL, NULL},
    {"q1_DEG", "q1", "DEG"}, {"tau2_NM", "tau2", "NM"}, {"t_MS", NULL, NULL}};
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++) {
    char b[64], u[32];
    int got = dyi_unit_split(sp[i].cell, b, sizeof b, u, sizeof u);
    CHECK(got == (sp[i].base != NULL) && (!got || (!strcmp(b, sp[i].base) && !strcmp(u, sp[i].unit))),
          "unit split '%s': %d '%s' '%s'", sp[i].cell, got, got ? b : "", got ? u : "");
  }
  static const struct { int role; const char* unit; int rc; double k; } sc[] = {
    {DYI_ROLE_T, "ms", 0, 1e-3}, {DYI_ROLE_Q, "deg", 0, M_PI / 180}, {DYI_ROLE_QD, "deg/s", 0, M_PI / 180},
    {DYI_ROLE_QDD, "rad/s^2", 0, 1}, {DYI_ROLE_Q, "mm", 0, 1e-3}, {DYI_ROLE_TAU, "mNm", 0, 1e-3},
    {DYI_ROLE_TAU, "mA", 2, 1e-3}, {DYI_ROLE_Q, "Nm", -1, 1}, {DYI_ROLE_TAU, "rad", -1, 1},
    {DYI_ROLE_Q, "counts", 1, 1},
    /* any letter case, but a leading milli stays small: "MS" and "MNm" would be mega */
    {DYI_ROLE_Q, "Deg", 0, M_PI / 180}, {DYI_ROLE_Q, "DEG", 0, M_PI / 180}, {DYI_ROLE_TAU, "NM", 0, 1},
    {DYI_ROLE_TAU, "nm", 0, 1}, {DYI_ROLE_TAU, "mNM", 0, 1e-3}, {DYI_ROLE_T, "MS", 1, 1}, {DYI_ROLE_TAU, "MNm", 1, 1},
    {DYI_ROLE_T, "Sec", 0, 1}, {DYI_ROLE_TAU, "MA", 1, 1}, {DYI_ROLE_QD, "DEG/S", 0, M_PI / 180}};
  for (size_t i = 0; i < sizeof sc / sizeof *sc; i++) {
    double k;
    int rc = dyi_unit_scale(sc[i].role, sc[i].unit, &k);
    CHECK(rc == sc[i].rc && fabs(k - sc[i].k) <= 1e-15 * sc[i].k, "unit scale %s: %d %.17g", sc[i].unit, rc, k);
  }
}

int main(void) {
  test_header_units();
  for (int j = 0; j < NJ; j++)
    for (int l = 0; l < 3; l++) { AMP[j][l] = th_uniform(0.2, 0.6) / (l + 1); PHS[j][l] = th_uniform(0, 6.28); }
  write_logs();
  test_default_cutoff();
  test_derivatives();
  test_resampled_grid();
  test_reads();
  test_usage();
  test_refused();
  test_manifest();
  test_big();
  test_readahead_rows("build/tests/log_ahead.csv");
  test_readahead_close("build/tests/log_ahead.csv");
  test_readahead_samples();
  return test_report();
}
