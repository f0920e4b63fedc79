/* SPDX-License-Identifier: MIT */
/* dynid program: the bench subcommand.
 *
 *   dynid bench [MODEL] [--params P] [--time S] [-o FILE]
 *
 * Nanoseconds per call of the core algorithms (dy_rnea, dy_bias, dy_crba,
 * dy_fd_chol, dy_fd_aba) on MODEL, or on a built-in 6R arm without one.
 * Each algorithm runs over 64 random states in turn, in batches sized so
 * that one measurement lasts S seconds (default 0.1) after a warm-up; the
 * median of 5 measurements is printed. The comparison with Orocos KDL is in
 * `make bench` (tests/bench_main.c), not here: the program does not link KDL. */
#include "reports/cli.h"
#include "ident/base.h"
#include "verify/opcount.h"
#include "core/util.h"
#include "verify/lin_inertia.h"
#include "core/dynamics.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_NSTATE 64
#define BENCH_NMEAS 5

/* A 6R arm: PUMA 560 geometry in modified DH (Craig, Introduction to
 * Robotics, 3rd ed.: a2 = 0.4318, d3 = 0.15005, a3 = 0.0203, d4 = 0.4318 m)
 * with inertial values of the magnitudes measured by Armstrong, Khatib and
 * Burdick (1986). Timing only: the cost does not depend on the values. */
static dyModel* builtin_6r(void) {
  dyModel* m = dy_make_model(6);
  if (!m) return NULL;
  const double h = M_PI / 2;
  const double alpha[6] = {0, -h, 0, -h, h, -h};
  const double a[6] = {0, 0, 0.4318, 0.0203, 0, 0};
  const double d[6] = {0, 0, 0.15005, 0.4318, 0, 0};
  /* mass, centre of mass (frame j), inertia about it: ixx ixy ixz iyy iyz izz */
  const double link[6][10] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0.35},
    {17.4, 0.068, 0.006, -0.016, 0.13, 0, 0, 0.524, 0, 0.539},
    {4.8, 0, -0.070, 0.014, 0.066, 0, 0, 0.086, 0, 0.0125},
    {0.82, 0, 0, -0.019, 1.8e-3, 0, 0, 1.3e-3, 0, 1.8e-3},
    {0.34, 0, 0, 0, 0.3e-3, 0, 0, 0.4e-3, 0, 0.3e-3},
    {0.09, 0, 0, 0.032, 0.15e-3, 0, 0, 0.15e-3, 0, 0.04e-3}};
  for (int j = 0; j < 6; j++) {
    m->jnt_type[j] = DY_REVOLUTE;
    m->dh_alpha[j] = alpha[j]; m->dh_a[j] = a[j]; m->dh_theta[j] = 0; m->dh_d[j] = d[j];
    dy_linkpar_from_com(m->par + DY_NPAR_LINK*j, link[j][0], link[j] + 1, link[j] + 4);
  }
  dy_set_const(m);
  snprintf(m->source, sizeof m->source, "built-in 6R (PUMA 560 geometry)");
  return m;
}

typedef struct {
  const dyModel* m;
  dyData* d;
  const double* par;
  int algo;
  double q[BENCH_NSTATE][DY_MAXJ], qd[BENCH_NSTATE][DY_MAXJ], qdd[BENCH_NSTATE][DY_MAXJ];
  double tau[BENCH_NSTATE][DY_MAXJ];
  double out[DY_MAXJ*DY_MAXJ];
} benchCtx;

enum { B_RNEA, B_BIAS, B_CRBA, B_FDCHOL, B_FDABA, B_N };
static const char* const algo_name[B_N] = {"dy_rnea", "dy_bias", "dy_crba", "dy_fd_chol", "dy_fd_aba"};
static const char* const algo_what[B_N] = {
  "inverse dynamics (Newton-Euler)", "bias vector C qd + g (Newton-Euler)",
  "inertia matrix (composite rigid body)", "forward dynamics (CRBA + Cholesky)",
  "forward dynamics (articulated body)"};

static void run(benchCtx* b, long reps) {
  for (long i = 0; i < reps; i++) {
    int s = (int)(i % BENCH_NSTATE);
    switch (b->algo) {
    case B_RNEA: dy_rnea(b->m, b->d, b->par, b->q[s], b->qd[s], b->qdd[s], b->out); break;
    case B_BIAS: dy_bias(b->m, b->d, b->par, b->q[s], b->qd[s], b->out); break;
    case B_CRBA: dy_crba(b->m, b->d, b->par, b->q[s], b->out); break;
    case B_FDCHOL: dy_fd_chol(b->m, b->d, b->par, b->q[s], b->qd[s], b->tau[s], b->out); break;
    default: dy_fd_aba(b->m, b->d, b->par, b->q[s], b->qd[s], b->tau[s], b->out); break;
    }
  }
}


/* median ns per call of b->algo; batches of >= 10 ms find the size (and warm up) */
static double time_algo(benchCtx* b, double seconds) {
  long reps = 1;
  double t;
  for (;;) {
    double t0 = dy_now_s();
    run(b, reps);
    t = dy_now_s() - t0;
    if (t >= 0.01 || reps > (1L << 40)) break;
    reps *= 2;
  }
  reps = (long)((double)reps * seconds / t) + 1;
  double meas[BENCH_NMEAS];
  for (int k = 0; k < BENCH_NMEAS; k++) {
    double t0 = dy_now_s();
    run(b, reps);
    meas[k] = (dy_now_s() - t0) / (double)reps * 1e9;
  }
  qsort(meas, BENCH_NMEAS, sizeof meas[0], dy_cmp_double);
  return meas[BENCH_NMEAS / 2];
}

/* --ops: executed multiplications and additions of the verified algorithms
 * on MODEL (default the built-in 6R), on the khalil set's realisation,
 * beside the papers' formulas (verify/opcount.h). Decides nothing else:
 * the exit status 0, or 1 after printing the error. */
static int bench_ops(cliArgs* c) {
  dyModel* mo = c->npos ? cli_model(c) : builtin_6r();
  if (!mo) return 1;
  char e2[DY_ERRSZ];
  dyiBase* kb = dyi_base_make(mo, DYI_SET_KHALIL, mo->has_friction, e2, sizeof e2);
  dyOut oo;
  int st = 1;
  if (!kb) cli_fail("%s", e2);
  else if (dy_out_open(&oo, cli_opt(c, "o"), e2, sizeof e2)) cli_fail("%s", e2);
  else {
    dyv_opcount_report(oo.f, mo, kb->P, kb->npar, kb->nb);
    dyv_lin_opcount_report(oo.f, mo);
    st = dy_out_commit(&oo, e2, sizeof e2) ? cli_fail("%s", e2) : 0;
  }
  dyi_base_free(kb);
  dy_free_model(mo);
  return st;
}

/* The states every algorithm is timed on: BENCH_NSTATE random ones from a
 * fixed seed (xorshift64*, reproducible), q uniform in [-pi, pi] rad, qd in
 * [-2, 2] rad/s, qdd in [-5, 5] rad/s^2, and their torques by inverse
 * dynamics so that forward dynamics sees accelerations of a realistic
 * size. */
static void random_states(benchCtx* b, int n) {
  unsigned long long s = 0x243F6A8885A308D3ull;
  for (int k = 0; k < BENCH_NSTATE; k++)
    for (int j = 0; j < n; j++) {
      double u[3];
      for (int t = 0; t < 3; t++) {
        u[t] = dy_uniform(&s, -1, 1);
      }
      b->q[k][j] = M_PI * u[0]; b->qd[k][j] = 2 * u[1]; b->qdd[k][j] = 5 * u[2];
    }
  for (int k = 0; k < BENCH_NSTATE; k++) dy_rnea(b->m, b->d, b->par, b->q[k], b->qd[k], b->qdd[k], b->tau[k]);
}

/* options -> model and parameters (--params on MODEL, or the model's own)
 * -> states -> the median ns per call of each algorithm -> the CSV. A
 * model whose inertia matrix is not positive definite is refused (forward
 * dynamics needs it). */
int cmd_bench(cliArgs* c) {
  int r = cli_check(c, "params,time,ops", 0, 1,
                    "dynid bench [MODEL] [--params P] [--time S] [--ops] [-o FILE]");
  if (r) return r;
  if (cli_flag(c, "ops")) return bench_ops(c);
  double seconds;
  if (cli_double(c, "time", 0.1, &seconds)) return 2;
  if (!(seconds >= 1e-3 && seconds <= 60)) return cli_usage("bench: --time must be in [0.001, 60] s");
  if (c->npos == 0 && cli_opt(c, "params")) return cli_usage("bench: --params needs a MODEL");

  dyModel* m = c->npos ? cli_model(c) : builtin_6r();
  if (!m) return 1;
  if (!c->npos && c->load.has_gravity) memcpy(m->gravity, c->load.gravity, sizeof m->gravity);
  int n = m->n, status = 1;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  benchCtx* b = calloc(1, sizeof *b);
  dyData* d = dy_make_data(m);
  char err[DY_ERRSZ];
  dyOut o = {0};
  if (!par || !b || !d) { cli_fail("bench: out of memory"); goto done; }
  if (c->npos) { if (cli_params(c, m, par)) goto done; }
  else memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  b->m = m; b->d = d; b->par = par;
  random_states(b, n);
  if (dy_fd_chol(m, d, par, b->q[0], b->qd[0], b->tau[0], b->out)) {
    cli_fail("%s: bench: the inertia matrix is not positive definite", m->source);
    goto done;
  }

  double ns[B_N];
  for (int a = 0; a < B_N; a++) { b->algo = a; ns[a] = time_algo(b, seconds); }

  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  fprintf(o.f, "# dynid bench: %s, %d joints; median of %d runs of %.3g s over %d random states\n",
          m->source, n, BENCH_NMEAS, seconds, BENCH_NSTATE);
  fprintf(o.f, "algorithm,ns_per_call,what\n");
  for (int a = 0; a < B_N; a++) fprintf(o.f, "%s,%.0f,%s\n", algo_name[a], ns[a], algo_what[a]);
  if (dy_out_commit(&o, err, sizeof err)) { cli_fail("%s", err); goto done; }
  status = 0;
done:
  dy_free_data(d);
  free(b);
  free(par);
  dy_free_model(m);
  return status;
}
