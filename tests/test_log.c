/* SPDX-License-Identifier: MIT */
/* dynid tests: the log reader and its preprocessing.
 *  - derivatives from q on a known trajectory (sums of sines, analytic
 *    derivatives) on a regular and on a jittered time grid, within bounds
 *    derived from the difference formulas (see check_traj);
 *  - logged qd used (filtered), qdd from it;
 *  - the torque filtered in parallel, tau_raw untouched (times the gain);
 *  - --map (single and ranges), --no-header, --gain, --rows, --time-scale,
 *    --cutoff none, --decimate, --resample through cli_logopt, and the usage
 *    errors (status 2);
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
  double eq = 0, eqd = 0, eqdd = 0, etau = 0, eraw = 0;
  int rc;
  while ((rc = dyi_log_next(r, &s, err, sizeof err)) == 1) {
    if (k >= edge && (N < 0 ? s.t < 10 - 1e-3 * edge : k < N - edge))
      for (int j = 0; j < NJ; j++) {
        eq = fmax(eq, fabs(s.q[j] - traj(j, 0, s.t)) / dbound(j, 0));
        eqd = fmax(eqd, fabs(s.qd[j] - traj(j, 1, s.t)) / dbound(j, 1));
        eqdd = fmax(eqdd, fabs(s.qdd[j] - traj(j, 2, s.t)) / dbound(j, 2));
        etau = fmax(etau, fabs(s.tau[j] - torque(j, s.t)) / (2*dbound(j, 0) + 0.5*dbound(j, 2)));
      }
    (void)eraw;
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

/* Read-ahead (the rows parsed on a thread of their own) gives the rows,
 * the end and the errors of the plain reader, in the same order; a reader
 * closed while the thread waits for a free buffer stops it. */
static void test_readahead(void) {
  const char* path = "build/tests/log_ahead.csv";
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
  /* closed early: the thread is blocked on two full buffers */
  dyiLogOpt o;
  dyi_log_defaults(&o);
  char msg[DY_ERRSZ];
  dyiLogRaw* r = dyi_lograw_open(path, NJ, &o, msg, sizeof msg);
  int ok = r && dyi_lograw_readahead(r) == 0;
  dyiLogRow row;
  for (int k = 0; ok && k < 10; k++) ok = dyi_lograw_next(r, &row, msg, sizeof msg) == 1;
  dyi_lograw_close(r);
  CHECK(ok, "read-ahead stopped by close after 10 rows");
  /* the reader's samples with and without it (dyi_log_readahead) */
  dyiLogReader* ra = dyi_log_open("build/tests/log_regular.csv", NJ, &o, msg, sizeof msg);
  dyiLogReader* rb = dyi_log_open("build/tests/log_regular.csv", NJ, &o, msg, sizeof msg);
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

int main(void) {
  char err[DY_ERRSZ];
  for (int j = 0; j < NJ; j++)
    for (int l = 0; l < 3; l++) { AMP[j][l] = th_uniform(0.2, 0.6) / (l + 1); PHS[j][l] = th_uniform(0, 6.28); }

  /* --- derivatives from q, regular 1 kHz grid ---
   * filter: |H|^2 at 1.1 Hz with fc = 50 Hz differs from 1 by (1.1/50)^8 ~
   * 5e-14: negligible. Central differences: qd error h^2/6 |q'''|, qdd error
   * h^2/12 |q''''| (Taylor), relative to |q'|, |q''| amplitude bounds <
   * h^2/6 (2 pi 1.1)^2 = 8e-6 and h^2/12 (2 pi 1.1)^2 = 4e-6. Ends: the odd
   * extension keeps value and slope but flips q'' there; samples within two
   * filter margins (~660) of the ends are left out. */
  const char* p1 = "build/tests/log_regular.csv";
  long N1 = write_log(p1, 1e-3, 0, 0, 10);
  dyiLogOpt o;
  dyi_log_defaults(&o);
  {
    /* the documented default cutoff: min(fs / 20, 10 Hz) -> 10 Hz at 1 kHz */
    dyiLogReader* r0 = dyi_log_open(p1, NJ, &o, err, sizeof err);
    dyiLogInfo li;
    memset(&li, 0, sizeof li);
    if (r0) { dyiSample s0; dyi_log_next(r0, &s0, err, sizeof err); dyi_log_info(r0, &li); dyi_log_close(r0); }
    CHECK(fabs(li.fc - 10) < 1e-9 && fabs(li.fs - 1000) < 1e-6, "default cutoff at 1 kHz: %g Hz (fs %g)", li.fc, li.fs);
  }
  o.cutoff_hz = 50;   /* the error analysis below is made for fc = 50 Hz */
  double h = 1e-3, w = 2*M_PI*1.1;
  check_traj("regular grid", p1, &o, N1, 700, 1e-9, 2*h*h/6*w*w, 2*h*h/12*w*w, 1e-9);

  /* --- jittered grid: steps 1 ms x (1 +- 0.3), like the Panda's ---
   * (a) --resample 1000: cubic interpolation onto the uniform grid, error
   * |q(4)| h^4 / 24 (relative (2 pi 1.1)^4 1.7e-12 / 24 ~ 1e-11), then as
   * the regular grid: the same bounds hold. */
  const char* p2 = "build/tests/log_jitter.csv";
  long N2 = write_log(p2, 1e-3, 0.6, 0, 10);
  dyiLogOpt o2 = o; o2.resample_hz = 1000;
  check_traj("jittered grid, resampled", p2, &o2, -1, 700, 1e-9, 2*h*h/6*w*w, 2*h*h/12*w*w, 1e-9);
  /* (b) default: filtered by sample index with the time filtered alike,
   * differences on the filtered time. With t_i = i h + d_i and filter
   * weights w_i (zero phase, maximally flat: sum w_i (i-k) = sum w_i (i-k)^2
   * = 0), q_f(k) - q(t_f(k)) = 1/2 q'' sum w_i (t_i - t_f)^2, dominated by
   * the cross term h q'' sum w_i (i-k) d_i: a zero-mean error of standard
   * deviation |q''| h sd(d) S, S^2 = sum w_i^2 (i-k)^2 (from the impulse
   * response, below). Bound: 5 standard deviations. The error is low-passed
   * at fc, so by Bernstein's inequality its derivatives are at most
   * 2 pi fc (and (2 pi fc)^2) times larger; factor 2 for the Butterworth
   * skirt beyond fc. Absolute errors, divided by the amplitude bounds. */
  {
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
    check_traj("jittered grid, default", p2, &o, N2, 700, eq, eqd, eqdd,
               eq * dbound(0, 0) / (2*dbound(0, 0) + 0.5*dbound(0, 2)) + 0.5 * eqdd);
  }

  /* logged qd: filtered and used; qdd = d(qd)/dt (first-difference error
   * h^2/6 |qd'''| relative to |q''|, as for qd above) */
  const char* p3 = "build/tests/log_qd.csv";
  long N3 = write_log(p3, 1e-3, 0, 1, 10);
  check_traj("logged qd", p3, &o, N3, 700, 1e-9, 1e-9, 2*h*h/6*w*w, 1e-9);
  {
    const char* kv[] = {"derive=qd", "cutoff=50"};
    cliArgs c = mkcli(2, kv);
    dyiLogOpt o3;
    CHECK(cli_logopt(&c, NJ, &o3) == 0 && o3.derive == 2, "--derive qd parsed");
    check_traj("logged qd ignored (--derive qd)", p3, &o3, N3, 700, 1e-9, 2*h*h/6*w*w, 2*h*h/12*w*w, 1e-9);
  }

  /* --- the resampled grid itself: uniform steps, count, q near the ends
   * (cubic interpolation, ends included except the last 0.7 s) */
  dyiLogOpt orr = o; orr.resample_hz = 1000;
  {
    dyiLogReader* r = dyi_log_open(p2, NJ, &orr, err, sizeof err);
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

  /* --- torque: filtered in parallel, tau_raw as logged (cutoff none: the
   * samples are the file's exactly) --- */
  {
    const char* kv[] = {"gain=2,3,4", "cutoff=none"};
    cliArgs c = mkcli(2, kv);
    dyiLogOpt og;
    CHECK(cli_logopt(&c, NJ, &og) == 0, "cli_logopt gain");
    dyiLogReader* r = dyi_log_open(p1, NJ, &og, err, sizeof err);
    dyiSample s; long k = 0, bad = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
      double t = 1e-3 * k;
      for (int j = 0; j < NJ; j++) {
        double g = j + 2.0;
        if (fabs(s.tau_raw[j] - g*torque(j, t)) > 1e-12 * g * 3 || s.tau[j] != s.tau_raw[j]) bad++;
        if (fabs(s.q[j] - traj(j, 0, t)) > 1e-15) bad++;
      }
      k++;
    }
    CHECK(r && k == N1 && bad == 0, "--gain with --cutoff none: %ld samples, %ld mismatches", k, bad);
    dyi_log_close(r);
  }

  /* --- --map ranges, --no-header, --rows, --time-scale ---
   * a headerless file: index (1 kHz sample number), junk column, q, tau */
  const char* p4 = "build/tests/log_noheader.csv";
  {
    FILE* f = fopen(p4, "w");
    for (long k = 0; k < 2000; k++) {
      fprintf(f, "%ld,%d", k, 7);
      for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", traj(j, 0, 1e-3 * k));
      for (int j = 0; j < NJ; j++) fprintf(f, ",%.17g", torque(j, 1e-3 * k));
      fputc('\n', f);
    }
    fclose(f);
    const char* kv[] = {"no-header", "map=t=c1", "map=q1..q3=c3..c5", "map=tau1..tau3=c6..c8",
                        "rows=101..1100", "time-scale=0.001", "cutoff=none"};
    cliArgs c = mkcli(7, kv);
    dyiLogOpt om;
    CHECK(cli_logopt(&c, NJ, &om) == 0, "cli_logopt no-header");
    CHECK(om.nmap == 7 && !strcmp(om.map_name[3], "q3") && !strcmp(om.map_col[3], "c5"),
          "range expanded: %d maps, %s=%s", om.nmap, om.map_name[3], om.map_col[3]);
    dyiLogReader* r = dyi_log_open(p4, NJ, &om, err, sizeof err);
    CHECK(r != NULL, "open headerless: %s", err);
    dyiSample s; long k = 0, bad = 0, first = 0, last = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
      long idx = s.row - 1;            /* the data row's sample number */
      if (!k) first = s.row;
      last = s.row;
      if (fabs(s.t - 1e-3 * idx) > 1e-15) bad++;
      for (int j = 0; j < NJ; j++)
        if (s.q[j] != traj(j, 0, 1e-3 * idx) || s.tau[j] != torque(j, 1e-3 * idx)) bad++;
      k++;
    }
    CHECK(k == 1000 && first == 101 && last == 1100 && bad == 0,
          "--rows 101..1100: %ld samples, rows %ld..%ld, %ld mismatches", k, first, last, bad);
    dyi_log_close(r);
  }
  /* named columns with a range by names */
  const char* p5 = "build/tests/log_named.csv";
  {
    FILE* f = fopen(p5, "w");
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
    const char* kv[] = {"map=t=Time", "map=q1..q3=Position1..Position3", "map=qd1..qd3=Velocity1..3",
                        "map=tau1..tau3=Cur1..Cur3", "gain=10,10,10", "cutoff=none"};
    cliArgs c = mkcli(6, kv);
    dyiLogOpt om;
    CHECK(cli_logopt(&c, NJ, &om) == 0, "cli_logopt named ranges");
    dyiLogReader* r = dyi_log_open(p5, NJ, &om, err, sizeof err);
    CHECK(r != NULL, "open named: %s", err);
    dyiLogInfo in;
    if (r) dyi_log_info(r, &in);
    CHECK(r && in.logged == 1, "qd logged detected");
    dyiSample s; long k = 0, bad = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
      for (int j = 0; j < NJ; j++)
        if (s.qd[j] != traj(j, 1, s.t) || fabs(s.tau[j] - torque(j, s.t)) > 1e-13 * 10) bad++;
      k++;
    }
    CHECK(k == 1500 && bad == 0, "named map: %ld samples, %ld mismatches", k, bad);
    /* rewind: the same first sample again */
    dyiSample s2;
    CHECK(r && dyi_log_rewind(r, err, sizeof err) == 0 && dyi_log_next(r, &s2, err, sizeof err) == 1
          && s2.row == 1 && s2.q[0] == traj(0, 0, 0), "rewind");
    dyi_log_close(r);
  }
  /* usage errors -> 2; unknown column -> open fails with the name */
  {
    const char* bad[][1] = {{"map=q1..q3=c2..c3"}, {"map=q1"}, {"gain=1,2"}, {"rows=5..2"},
                            {"on-bad=maybe"}, {"cutoff=abc"}, {"map=q1..q3=c2"}, {"decimate=0"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
      cliArgs c = mkcli(1, bad[i]);
      dyiLogOpt ob;
      fprintf(stderr, "(expected) ");
      CHECK(cli_logopt(&c, NJ, &ob) == 2, "bad usage '%s' gives 2", bad[i][0]);
    }
    const char* kv[] = {"map=t=Zeit"};
    cliArgs c = mkcli(1, kv);
    dyiLogOpt ob;
    cli_logopt(&c, NJ, &ob);
    dyiLogReader* r = dyi_log_open(p5, NJ, &ob, err, sizeof err);
    CHECK(!r && strstr(err, "Zeit") && strstr(err, p5), "unknown column named: %s", err);
    dyi_log_close(r);
    dyiLogOpt od; dyi_log_defaults(&od);
    r = dyi_log_open(p5, NJ, &od, err, sizeof err);
    CHECK(!r && strstr(err, "no column for t"), "missing t reported: %s", err);
    dyi_log_close(r);
  }
  /* decimation by the reader (--no-parallel; else the identification rows
   * are decimated, and the reader yields every sample): every 4th sample,
   * cutoff lowered to 0.8 fs / 8 = 100 Hz? no: the default fs/20 = 50 Hz is
   * already below 0.8 fs / (2 D) = 100 Hz */
  {
    dyiLogOpt od = o; od.decimate = 4; od.no_parallel = 1;
    dyiLogReader* r = dyi_log_open(p1, NJ, &od, err, sizeof err);
    dyiSample s; long k = 0, bad = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
      if (s.row != 1 + 4*k) bad++;
      k++;
    }
    CHECK(k == (N1 + 3) / 4 && bad == 0, "decimate 4: %ld samples, %ld off-grid", k, bad);
    dyi_log_close(r);
  }
  {
    dyiLogOpt od = o; od.decimate = 4;
    dyiLogReader* r = dyi_log_open(p1, NJ, &od, err, sizeof err);
    dyiSample s; long k = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) k++;
    dyiLogInfo li;
    if (r) dyi_log_info(r, &li);
    CHECK(r && k == N1 && li.parallel && li.decim == 4 && li.fstop == 0.5 * li.fs / 4,
          "decimate 4 with parallel filtering: %ld samples read, rows decimated by %d", k, r ? li.decim : 0);
    dyi_log_close(r);
  }

  /* --- --qd-min flags slow joints; --rows with one open end --- */
  {
    const char* kv[] = {"qd-min=0.5", "rows=..300"};
    cliArgs c = mkcli(2, kv);
    dyiLogOpt oq;
    CHECK(cli_logopt(&c, NJ, &oq) == 0 && oq.row_first == 0 && oq.row_last == 300, "--rows ..300");
    dyiLogReader* r = dyi_log_open(p1, NJ, &oq, err, sizeof err);
    dyiSample s; long k = 0, bad = 0, nslow = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) {
      for (int j = 0; j < NJ; j++) {
        if (s.slow[j] != (fabs(s.qd[j]) < 0.5)) bad++;
        nslow += s.slow[j];
      }
      k++;
    }
    CHECK(k == 300 && bad == 0, "--qd-min: %ld samples, %ld wrong flags (%ld slow)", k, bad, nslow);
    dyi_log_close(r);
    const char* kv2[] = {"rows=1901.."};
    cliArgs c2 = mkcli(1, kv2);
    CHECK(cli_logopt(&c2, NJ, &oq) == 0 && oq.row_first == 1901 && oq.row_last == 0, "--rows 1901..");
    r = dyi_log_open(p4, NJ, &oq, err, sizeof err);   /* headerless 2000 rows: needs --no-header */
    CHECK(r == NULL, "headerless file without --no-header refused: %s", err);
    dyi_log_close(r);
    r = dyi_log_open(p1, NJ, &oq, err, sizeof err);
    k = 0;
    long first = 0;
    while (r && dyi_log_next(r, &s, err, sizeof err) == 1) { if (!k) first = s.row; k++; }
    CHECK(k == N1 - 1900 && first == 1901, "--rows 1901..: %ld samples from row %ld", k, first);
    dyi_log_close(r);
  }

  /* --- the Panda's original sample-major files through a manifest give
   * the same samples as the joined CSV (cutoff none: the cells themselves) */
  {
    dyiLogOpt oa, ob;
    dyi_log_defaults(&oa); oa.cutoff_hz = -1;
    ob = oa;
    strcpy(ob.map_name[0], "t"); strcpy(ob.map_col[0], "t_s"); ob.nmap = 1;
    dyiLogReader* ra = dyi_log_open("datasets/panda/sample_major/exciting_traj.manifest.csv", 7, &oa, err, sizeof err);
    CHECK(ra != NULL, "manifest open: %s", err);
    char err2[DY_ERRSZ];
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

  /* --- 10^6 samples, 7 joints, gzipped, in bounded memory --- */
  {
    const char* pb = "build/tests/log_big.csv.gz";
    long NB = 1000000;
    gzFile g = gzopen(pb, "wb1");
    gzprintf(g, "t,q1,q2,q3,q4,q5,q6,q7,tau1,tau2,tau3,tau4,tau5,tau6,tau7\n");
    char line[512];
    for (long k = 0; k < NB; k++) {
      double t = 1e-3 * k;
      int L = snprintf(line, sizeof line, "%.6f", t);
      for (int j = 0; j < 7; j++) L += snprintf(line + L, sizeof line - (size_t)L, ",%.6f", sin(0.7*t + j));
      for (int j = 0; j < 7; j++) L += snprintf(line + L, sizeof line - (size_t)L, ",%.4f", 3*cos(0.7*t + j));
      line[L++] = '\n';
      gzwrite(g, line, (unsigned)L);
    }
    gzclose(g);
    long rss0 = peak_rss_kb();
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
  test_readahead();
  return test_report();
}
