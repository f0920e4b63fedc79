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
 * (README.md, Model tables and Files), written atomically. The same seed gives the
 * same file: the trajectory uses the seed, the noise a stream derived from
 * it. */
#include "cli.h"
#include "dynamics.h"
#include "traj.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* USAGE =
    "dynid simulate MODEL TRAJ|fourier [--noise S|S1,...,Sn] [--seed N] [--friction]\n"
    "       [--duration S] [--rate HZ] [--harmonics L] [--period S] -o LOG";

int cmd_simulate(dyCli* c) {
  int rc = cli_check(c, "noise,seed,friction,duration,rate,harmonics,period", 2, 2, USAGE);
  if (rc) return rc;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, np = dy_npar(m), fourier = !strcmp(c->pos[1], "fourier");
  char err[DY_ERRSZ];
  dyData* d = NULL;
  dyCsv* csv = NULL;
  double* par = NULL;
  dyOut out;
  int out_open = 0;
  rc = 1;

  /* options */
  double noise[DY_MAXJ] = {0};
  const char* ns = cli_opt(c, "noise");
  if (ns) {
    if (cli_doubles(ns, noise, 1) == 0) for (int j = 1; j < n; j++) noise[j] = noise[0];
    else if (cli_doubles(ns, noise, n)) { rc = cli_usage("--noise: expected S or %d values S1,...,S%d, got '%s'", n, n, ns); goto done; }
    for (int j = 0; j < n; j++)
      if (!(noise[j] >= 0)) { rc = cli_usage("--noise: standard deviations must be >= 0"); goto done; }
  }
  long seed, nh;
  double duration, rate, period;
  if (cli_int(c, "seed", 1, &seed) || cli_int(c, "harmonics", 5, &nh) ||
      cli_double(c, "duration", 10, &duration) || cli_double(c, "rate", 1000, &rate)) { rc = 2; goto done; }
  if (cli_double(c, "period", duration < 10 ? duration : 10, &period)) { rc = 2; goto done; }
  if (!fourier && (cli_opt(c, "duration") || cli_opt(c, "rate") || cli_opt(c, "harmonics") ||
                   cli_opt(c, "period"))) {
    rc = cli_usage("simulate: --duration, --rate, --harmonics and --period apply to TRAJ = fourier");
    goto done;
  }
  if (fourier && (!(duration > 0) || !(rate > 0) || duration * rate > 1e9)) {
    rc = cli_usage("simulate: --duration and --rate must be positive (and give at most 1e9 samples)");
    goto done;
  }
  int friction = cli_flag(c, "friction");
  if (friction && !m->has_friction) {
    rc = cli_fail("%s: --friction: the model has no joint parameters (columns ia,fv,fc,fo)", m->source);
    goto done;
  }
  par = malloc(sizeof(double) * (size_t)np);
  d = dy_makeData(m);
  if (!par || !d) { cli_fail("out of memory"); goto done; }
  memcpy(par, m->par, sizeof(double) * (size_t)np);
  if (!friction) memset(par + DY_NPAR_LINK * n, 0, sizeof(double) * (size_t)(DY_NPAR_JNT * n));

  /* trajectory source */
  dyFourier fr;
  int col[3][DY_MAXJ], tcol = -1;
  if (fourier) {
    if (dyi_fourier_random(&fr, m, (int)nh, period, (unsigned long long)seed, err, sizeof err)) {
      rc = cli_usage("simulate: %s", err);
      goto done;
    }
  } else {
    csv = dy_csv_open(c->pos[1], err, sizeof err);
    if (!csv) { cli_fail("%s", err); goto done; }
    char** f; int nf;
    int r = dy_csv_next(csv, &f, &nf, err, sizeof err);
    if (r <= 0) {
      if (r == 0) cli_fail("%s: empty file, expected a header t,q1..q%d,qd1..,qdd1..", c->pos[1], n);
      else cli_fail("%s", err);
      goto done;
    }
    static const char* const pre[3] = {"q", "qd", "qdd"};
    tcol = dy_csv_find(f, nf, "t");
    if (tcol < 0) { cli_fail("%s:%ld: missing column 't' in the header", c->pos[1], dy_csv_line(csv)); goto done; }
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < n; j++) {
        char name[16];
        snprintf(name, sizeof name, "%s%d", pre[k], j + 1);
        col[k][j] = dy_csv_find(f, nf, name);
        if (col[k][j] < 0) {
          cli_fail("%s:%ld: missing column '%s' in the header (a trajectory needs t, q, qd, qdd)",
                   c->pos[1], dy_csv_line(csv), name);
          goto done;
        }
      }
  }

  if (dy_out_open(&out, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  out_open = 1;
  fprintf(out.f, "# dynid simulate: model %s, trajectory %s, friction %s, noise", m->source,
          c->pos[1], friction ? "on" : "off");
  for (int j = 0; j < n; j++) fprintf(out.f, "%c%g", j ? ',' : ' ', noise[j]);
  fprintf(out.f, ", seed %ld\n", seed);
  dyi_traj_header(out.f, n, 1);
  unsigned long long rs = (unsigned long long)seed ^ 0x6e6f697365ull;  /* noise stream */
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], t = 0;
  long long N = fourier ? llround(duration * rate) : -1, k;
  for (k = 0; N < 0 || k < N; k++) {
    if (fourier) {
      t = (double)k / rate;
      dyi_fourier_eval(&fr, t, q, qd, qdd);
    } else {
      char** f; int nf;
      int r = dy_csv_next(csv, &f, &nf, err, sizeof err);
      if (r < 0) { cli_fail("%s", err); goto done; }
      if (r == 0) break;
      double* dst[3] = {q, qd, qdd};
      if (tcol >= nf) goto short_row;
      if (dy_csv_double(csv, f[tcol], tcol, 0, &t, err, sizeof err)) { cli_fail("%s", err); goto done; }
      for (int kk = 0; kk < 3; kk++)
        for (int j = 0; j < n; j++) {
          if (col[kk][j] >= nf) goto short_row;
          if (dy_csv_double(csv, f[col[kk][j]], col[kk][j], 0, &dst[kk][j], err, sizeof err)) {
            cli_fail("%s", err);
            goto done;
          }
        }
    }
    dy_rnea(m, d, par, q, qd, qdd, tau);
    for (int j = 0; j < n; j++) if (noise[j] > 0) tau[j] += noise[j] * dyi_rng_gauss(&rs);
    dyi_traj_row(out.f, n, t, q, qd, qdd, tau);
    if ((k & 1023) == 0) cli_progress("simulate", k, "samples", 0);
    continue;
  short_row:
    cli_fail("%s:%ld: the row has too few columns", c->pos[1], dy_csv_line(csv));
    goto done;
  }
  cli_progress("simulate", k, "samples", 1);
  if (dy_out_commit(&out, err, sizeof err)) { out_open = 0; cli_fail("%s", err); goto done; }
  out_open = 0;
  rc = 0;
done:
  if (out_open) dy_out_abort(&out);
  dy_csv_close(csv);
  free(par);
  dy_freeData(d);
  dy_freeModel(m);
  return rc;
}
