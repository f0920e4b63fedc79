/* SPDX-License-Identifier: MIT */
/* dynid program: the simulate subcommand.
 *
 *   dynid simulate MODEL TRAJ [--noise S|S1,...,Sn] [--seed N] [--friction] -o LOG
 *   dynid simulate MODEL fourier [--duration S] [--rate HZ] [--harmonics L]
 *                  [--period S] [--noise ...] [--seed N] [--friction] -o LOG
 *
 * Torques of the nominal model by Newton-Euler along a trajectory file
 * (columns t, q1..qn, qd1..qdn, qdd1..qddn, matched by name) or along a
 * built-in random Fourier excitation (ident/traj.h: defaults 10 s at
 * 1000 Hz, 5 harmonics, period min(duration, 10 s), i.e. a 0.1 Hz
 * fundamental, within the model's limits), plus
 * seeded Gaussian noise of standard deviation S [N m|N] (one value for all
 * joints or one per joint). --friction adds the model's joint terms
 * IA qdd + FV qd + FC sign(qd) + FO (the model must have them); without it
 * the torque is the rigid-body one. Output: a log t,q..,qd..,qdd..,tau..
 * (README.md, Model tables and files), written atomically. The same seed gives the
 * same file: the trajectory uses the seed, the noise a stream derived from
 * it. With a transmission (the model's, or --transmission) the columns are
 * written motor side (q_m = R q, tau_m = R^-T tau), as the log options read
 * them back; --friction then adds the coupled motors' terms too. */
#include "reports/cli.h"
#include "core/dynamics.h"
#include "core/transmission.h"
#include "ident/traj.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* USAGE =
    "dynid simulate MODEL TRAJ|fourier [--noise S|S1,...,Sn] [--seed N] [--friction]\n"
    "       [--duration S] [--rate HZ] [--harmonics L] [--period S] -o LOG";

/* The command's resolved options. */
typedef struct {
  int fourier;                /* TRAJ = fourier: a built-in random trajectory */
  int friction;               /* add the model's joint terms */
  double noise[DY_MAXJ];      /* torque noise std per joint [N m|N] */
  long seed, nh;              /* seed; harmonics of the Fourier trajectory */
  double duration, rate, period;  /* [s], [Hz], [s] of the Fourier trajectory */
} simOpt;

/* Where the samples come from: the Fourier series, or a trajectory file
 * with the column of t and of each q, qd, qdd. */
typedef struct {
  const char* path;
  dyiFourier fr;
  dyCsv* csv;
  int col[3][DY_MAXJ], tcol;
} simSrc;

/* Options: --noise is one std for every joint or one per joint, each >= 0;
 * --seed (default 1); --duration, --rate, --harmonics and --period only
 * with TRAJ = fourier (defaults 10 s, 1000 Hz, 5, min(duration, 10 s)),
 * duration and rate positive and at most 1e9 samples; --friction only on a
 * model with joint parameters. 0, or the exit status after printing. */
static int sim_options(const cliArgs* c, const dyModel* m, simOpt* o) {
  int n = m->n;
  memset(o, 0, sizeof *o);
  o->fourier = !strcmp(c->pos[1], "fourier");
  const char* ns = cli_opt(c, "noise");
  if (ns) {
    if (cli_doubles(ns, o->noise, 1) == 0) for (int j = 1; j < n; j++) o->noise[j] = o->noise[0];
    else if (cli_doubles(ns, o->noise, n))
      return cli_usage("--noise: expected S or %d values S1,...,S%d, got '%s'", n, n, ns);
    for (int j = 0; j < n; j++)
      if (!(o->noise[j] >= 0)) return cli_usage("--noise: standard deviations must be >= 0");
  }
  if (cli_int(c, "seed", 1, &o->seed) || cli_int(c, "harmonics", 5, &o->nh) ||
      cli_double(c, "duration", 10, &o->duration) || cli_double(c, "rate", 1000, &o->rate)) return 2;
  if (cli_double(c, "period", o->duration < 10 ? o->duration : 10, &o->period)) return 2;
  if (!o->fourier && (cli_opt(c, "duration") || cli_opt(c, "rate") || cli_opt(c, "harmonics") ||
                      cli_opt(c, "period")))
    return cli_usage("simulate: --duration, --rate, --harmonics and --period apply to TRAJ = fourier");
  if (o->fourier && (!(o->duration > 0) || !(o->rate > 0) || o->duration * o->rate > 1e9))
    return cli_usage("simulate: --duration and --rate must be positive (and give at most 1e9 samples)");
  o->friction = cli_flag(c, "friction");
  if (o->friction && !m->has_friction)
    return cli_fail("%s: --friction: the model has no joint parameters (columns ia,fv,fc,fo)", m->source);
  return 0;
}

/* The trajectory: the random Fourier series of the seed within the
 * model's limits (ident/traj.h; one it cannot make is bad usage), or the
 * file's header, which must name t and q1..qn, qd1..qdn, qdd1..qddn. 0, or
 * the exit status after printing. */
static int sim_source(const simOpt* o, const dyModel* m, simSrc* s) {
  char err[DY_ERRSZ];
  int n = m->n;
  if (o->fourier) {
    if (dyi_fourier_random(&s->fr, m, (int)o->nh, o->period, (unsigned long long)o->seed, err, sizeof err))
      return cli_usage("simulate: %s", err);
    return 0;
  }
  s->csv = dy_csv_open(s->path, err, sizeof err);
  if (!s->csv) return cli_fail("%s", err);
  char** f; int nf;
  int r = dy_csv_next(s->csv, &f, &nf, err, sizeof err);
  if (r <= 0) {
    if (r == 0) return cli_fail("%s: empty file, expected a header t,q1..q%d,qd1..,qdd1..", s->path, n);
    return cli_fail("%s", err);
  }
  static const char* const pre[3] = {"q", "qd", "qdd"};
  s->tcol = dy_csv_find(f, nf, "t");
  if (s->tcol < 0) return cli_fail("%s:%ld: missing column 't' in the header", s->path, dy_csv_line(s->csv));
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < n; j++) {
      char name[16];
      snprintf(name, sizeof name, "%s%d", pre[k], j + 1);
      s->col[k][j] = dy_csv_find(f, nf, name);
      if (s->col[k][j] < 0)
        return cli_fail("%s:%ld: missing column '%s' in the header (a trajectory needs t, q, qd, qdd)",
                        s->path, dy_csv_line(s->csv), name);
    }
  return 0;
}

/* Sample k of the trajectory: the Fourier series at t = k / rate, or the
 * file's next row. 1 with t, q, qd, qdd filled, 0 at the end of the file,
 * -1 after printing the error (a cell that is not a number, a short row). */
static int sim_next(const simOpt* o, simSrc* s, int n, long long k, double* t, double* q, double* qd,
                    double* qdd) {
  char err[DY_ERRSZ];
  if (o->fourier) {
    *t = (double)k / o->rate;
    dyi_fourier_eval(&s->fr, *t, q, qd, qdd);
    return 1;
  }
  char** f; int nf;
  int r = dy_csv_next(s->csv, &f, &nf, err, sizeof err);
  if (r < 0) { cli_fail("%s", err); return -1; }
  if (r == 0) return 0;
  double* dst[3] = {q, qd, qdd};
  if (s->tcol >= nf) goto short_row;
  if (dy_csv_double(s->csv, f[s->tcol], s->tcol, 0, t, err, sizeof err)) { cli_fail("%s", err); return -1; }
  for (int kk = 0; kk < 3; kk++)
    for (int j = 0; j < n; j++) {
      if (s->col[kk][j] >= nf) goto short_row;
      if (dy_csv_double(s->csv, f[s->col[kk][j]], s->col[kk][j], 0, &dst[kk][j], err, sizeof err)) {
        cli_fail("%s", err);
        return -1;
      }
    }
  return 1;
short_row:
  cli_fail("%s:%ld: the row has too few columns", s->path, dy_csv_line(s->csv));
  return -1;
}

/* joint side to the motors', in place: x = R x for q, qd, qdd, tau =
 * R^-T tau (the inverse of the log reader's map, core/transmission.h) */
static void to_motor(const dyModel* m, const double* Rinv, double* q, double* qd, double* qdd, double* tau) {
  const int n = m->n;
  double x[DY_MAXJ];
  size_t bytes = sizeof(double) * (size_t)n;
  dy_trans_mul(x, m->trans, q, n); memcpy(q, x, bytes);
  dy_trans_mul(x, m->trans, qd, n); memcpy(qd, x, bytes);
  dy_trans_mul(x, m->trans, qdd, n); memcpy(qdd, x, bytes);
  dy_trans_mulT(x, Rinv, tau, n); memcpy(tau, x, bytes);
}

/* The log, written atomically: its header line, then per sample the
 * torque tau = RNEA(q, qd, qdd; par) plus Gaussian noise of std noise_j
 * from a stream derived from the seed (seed ^ "noise"), so that the
 * trajectory and the noise never share random numbers. 0, or 1 after
 * printing (the file is then not written). */
static int sim_write(const cliArgs* c, const dyModel* m, dyBatch* w, const double* par, const simOpt* o,
                     simSrc* s) {
  char err[DY_ERRSZ];
  int n = m->n;
  dyOut out;
  if (dy_out_open(&out, cli_opt(c, "o"), err, sizeof err)) return cli_fail("%s", err);
  fprintf(out.f, "# dynid simulate: model %s, trajectory %s, friction %s, noise", m->source,
          c->pos[1], o->friction ? "on" : "off");
  for (int j = 0; j < n; j++) fprintf(out.f, "%c%g", j ? ',' : ' ', o->noise[j]);
  fprintf(out.f, ", seed %ld\n", o->seed);
  dyi_traj_header(out.f, n, 1);
  unsigned long long rs = (unsigned long long)o->seed ^ 0x6e6f697365ull;  /* noise stream */
  /* DY_BATCH_LANES samples per dy_rnea_batch call (the same torques as
   * dy_rnea), then noise and output in sample order */
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], T[DY_MAXJ * DY_BATCH_LANES], t = 0;
  double Rinv[DY_MAXJ * DY_MAXJ], cond;
  if (m->has_trans) {
    dy_trans_invert(m->trans, n, Rinv, &cond);   /* checked when the model got it */
    fprintf(out.f, "# the columns are the motors' (the model's transmission R): q_m = R q, qd_m = R qd, "
            "qdd_m = R qdd, tau_m = R^-T tau\n");
  }
  dyLanes L;
  long long N = o->fourier ? llround(o->duration * o->rate) : -1, k = 0;
  for (int more = 1; more;) {
    L.nb = 0;
    while (L.nb < DY_BATCH_LANES && (N < 0 || k + L.nb < N)) {
      int r = sim_next(o, s, n, k + L.nb, &t, q, qd, qdd);
      if (r < 0) { dy_out_abort(&out); return 1; }
      if (r == 0) { more = 0; break; }
      dy_lanes_push(&L, n, q, qd, qdd, NULL, t, 0);
    }
    if (L.nb < DY_BATCH_LANES && more) more = 0;   /* N samples written */
    dy_lanes_pad(&L, n);                           /* a short chunk: zero states after its samples */
    if (L.nb) dy_rnea_batch(m, w, par, DY_BATCH_LANES, L.q, L.qd, L.qdd, T);
    for (int b = 0; b < L.nb; b++, k++) {
      dy_lane_get(L.q, n, b, q); dy_lane_get(L.qd, n, b, qd); dy_lane_get(L.qdd, n, b, qdd);
      dy_lane_get(T, n, b, tau);
      for (int j = 0; j < n; j++)
        if (o->noise[j] > 0) tau[j] += o->noise[j] * dyi_rng_gauss(&rs);
      if (m->has_trans) to_motor(m, Rinv, q, qd, qdd, tau);
      dyi_traj_row(out.f, n, L.t[b], q, qd, qdd, tau);
      if ((k & 1023) == 0) cli_progress_of("simulate", k, "samples", k, N, 0);
    }
  }
  cli_progress("simulate", k, "samples", 1);
  if (dy_out_commit(&out, err, sizeof err)) return cli_fail("%s", err);
  return 0;
}

/* model -> options -> parameters (the joint terms zeroed without
 * --friction: the rigid-body torque) -> trajectory -> log */
int cmd_simulate(cliArgs* c) {
  int rc = cli_check(c, "noise,seed,friction,duration,rate,harmonics,period,transmission", 2, 2, USAGE);
  if (rc) return rc;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, np = dy_npar(m);
  dyBatch* w = NULL;
  double* par = NULL;
  simOpt o;
  simSrc s;
  memset(&s, 0, sizeof s);
  s.path = c->pos[1];
  if ((rc = sim_options(c, m, &o))) goto done;
  rc = 1;
  par = malloc(sizeof(double) * (size_t)np);
  w = dy_make_batch(m);
  if (!par || !w) { cli_fail("out of memory"); goto done; }
  memcpy(par, m->par, sizeof(double) * (size_t)np);
  if (!o.friction) memset(par + DY_NPAR_LINK * n, 0, sizeof(double) * (size_t)(np - DY_NPAR_LINK * n));
  if ((rc = sim_source(&o, m, &s))) goto done;
  rc = sim_write(c, m, w, par, &o, &s);
done:
  dy_csv_close(s.csv);
  free(par);
  dy_free_batch(w);
  dy_free_model(m);
  return rc;
}
