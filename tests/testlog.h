/* SPDX-License-Identifier: MIT */
/* dynid tests: simulated logs of a model along a Fourier trajectory, with
 * white torque noise (the logs test_parallel and test_cutoff read). */
#ifndef DYNID_TESTLOG_H
#define DYNID_TESTLOG_H

#include "core/dynamics.h"
#include "core/util.h"
#include "ident/traj.h"
#include <math.h>
#include <stdio.h>

/* the torque noise sd per joint: frac of each joint's RMS torque along f
 * over [0, dur] s (2000 states) [N m|N] */
static inline void th_noise_sd(const dyModel* m, const dyiFourier* f, double dur, double frac, double* sd) {
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], s2[DY_MAXJ] = {0};
  for (int k = 0; k < 2000; k++) {
    dyi_fourier_eval(f, dur * k / 2000, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    for (int j = 0; j < m->n; j++) s2[j] += tau[j] * tau[j] / 2000;
  }
  for (int j = 0; j < m->n; j++) sd[j] = frac * sqrt(s2[j]);
  dy_free_data(d);
}

/* a log t, q[, qd, qdd], tau (qonly: without qd, qdd) of f over dur [s] at
 * rate [Hz], the model's torque plus sd_j x a Gaussian draw (seed) */
static inline void th_write_log(const char* path, const dyModel* m, const dyiFourier* f, double dur, double rate,
                                const double* sd, unsigned long long seed, int qonly) {
  int n = m->n;
  dyData* d = dy_make_data(m);
  FILE* o = fopen(path, "w");
  unsigned long long s = seed * 7 + 1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  fprintf(o, "t");
  for (int j = 1; j <= n; j++) fprintf(o, ",q%d", j);
  for (int j = 1; j <= n && !qonly; j++) fprintf(o, ",qd%d", j);
  for (int j = 1; j <= n && !qonly; j++) fprintf(o, ",qdd%d", j);
  for (int j = 1; j <= n; j++) fprintf(o, ",tau%d", j);
  fputc('\n', o);
  for (long k = 0, N = lround(dur * rate); k < N; k++) {
    dyi_fourier_eval(f, k / rate, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    fprintf(o, "%.17g", k / rate);
    for (int j = 0; j < n; j++) fprintf(o, ",%.17g", q[j]);
    for (int j = 0; j < n && !qonly; j++) fprintf(o, ",%.17g", qd[j]);
    for (int j = 0; j < n && !qonly; j++) fprintf(o, ",%.17g", qdd[j]);
    for (int j = 0; j < n; j++) fprintf(o, ",%.17g", tau[j] + sd[j] * dyi_rng_gauss(&s));
    fputc('\n', o);
  }
  fclose(o);
  dy_free_data(d);
}

#endif
