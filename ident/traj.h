/* SPDX-License-Identifier: MIT */
/* dynid ident: excitation trajectories as finite Fourier series (Swevers,
 * Gansemann, Tukel, De Schutter, Van Brussel 1997), and the TRAJ/LOG row
 * writer.
 *
 * Joint j, L harmonics of the fundamental angular frequency wf [rad/s]:
 *   q_j(t)   = q0_j + sum_l  a_lj/(l wf) sin(l wf t) - b_lj/(l wf) cos(l wf t)
 *   qd_j(t)  =        sum_l  a_lj cos(l wf t) + b_lj sin(l wf t)
 *   qdd_j(t) =        sum_l -a_lj l wf sin(l wf t) + b_lj l wf cos(l wf t)
 * (l = 1..L). The motion is periodic with period 2 pi / wf, so measurements
 * can be averaged over periods and the spectrum is known. a, b are in
 * [rad/s | m/s]; q0 in [rad | m].
 *
 * Bounds used to respect limits (triangle inequality, conservative):
 *   |q_j - q0_j| <= sum_l (|a_lj| + |b_lj|) / (l wf)
 *   |qd_j|       <= sum_l  |a_lj| + |b_lj|
 *   |qdd_j|      <= sum_l (|a_lj| + |b_lj|) l wf                            */
#ifndef DYNID_TRAJ_H
#define DYNID_TRAJ_H

#include <stdio.h>
#include "core/model.h"

#define DYI_FOURIER_MAXH 32   /* harmonics at most */

typedef struct {
  int n;                                   /* joints */
  int nh;                                  /* harmonics L (1..DYI_FOURIER_MAXH) */
  double wf;                               /* fundamental angular frequency [rad/s] */
  double q0[DY_MAXJ];                      /* offsets [rad|m] (n) */
  double a[DYI_FOURIER_MAXH][DY_MAXJ];     /* a[l-1][j] [rad/s|m/s] */
  double b[DYI_FOURIER_MAXH][DY_MAXJ];     /* b[l-1][j] [rad/s|m/s] */
} dyiFourier;

/* q, qd, qdd (n each, any may be NULL) at time t [s]. */
void dyi_fourier_eval(const dyiFourier* f, double t, double* q, double* qd, double* qdd);

/* The bounds above for joint j: dq >= |q - q0|, dqd >= |qd|, dqdd >= |qdd|. */
void dyi_fourier_bounds(const dyiFourier* f, int j, double* dq, double* dqd, double* dqdd);

/* d-th time derivative (d >= 0) of q_j(t) - q0_j. */
double dyi_fourier_deriv(const dyiFourier* f, int j, int d, double t);

/* The true maximum over one period of |d^d/dt^d (q_j - q0_j)| (d = 0: the
 * position excursion, 1: |qd_j|, 2: |qdd_j|) and, in *tpeak, where it is
 * reached: the series is sampled at 32 L points per period, and every
 * sampled local maximum within 5 % of the largest is refined by Newton's
 * method on the derivative (safeguarded by bisection inside its sampling
 * interval), so the result is the maximum to round-off (the conservative
 * bounds above may exceed it several times). No allocation. */
double dyi_fourier_peak(const dyiFourier* f, int j, int d, double* tpeak);

/* Random coefficients (uniform, seeded) for model m, nh harmonics, period
 * [s], scaled per joint so that the bounds stay within 90 % of the model's
 * limits: q0 at the middle of [qmin, qmax] and |q - q0| within the half
 * range; |qd| <= qdmax, |qdd| <= qddmax. Where the model has no limit:
 * 1 rad, 1.5 rad/s, 8 rad/s^2 for revolute joints, 0.2 m, 0.3 m/s, 2 m/s^2
 * for prismatic ones. 0, or -1 with err set (bad nh or period). */
int dyi_fourier_random(dyiFourier* f, const dyModel* m, int nh, double period,
                       unsigned long long seed, char* err, int errsz);

/* Header of a TRAJ file "t,q1..qn,qd1..qdn,qdd1..qddn" or, with_tau, of a
 * LOG file (README.md, Model tables and files) with ",tau1..taun" appended. */
void dyi_traj_header(FILE* f, int n, int with_tau);

/* One row in the same order, numbers in %.17g (exact round trip); tau may
 * be NULL when the header has no torque. */
void dyi_traj_row(FILE* f, int n, double t, const double* q, const double* qd,
                  const double* qdd, const double* tau);

/* Write a whole TRAJ file of the series: samples t_k = k / rate, k = 0 ..
 * round(duration * rate) - 1. 0, or -1 if the stream reports an error. */
int dyi_traj_write(FILE* f, const dyiFourier* fr, double duration, double rate);

/* A small seeded generator (splitmix64) for reproducible trajectories and
 * noise: state s is any 64-bit seed. */
unsigned long long dyi_rng_next(unsigned long long* s);
/* uniform in [0, 1) */
double dyi_rng_uniform(unsigned long long* s);
/* standard normal (Box-Muller, one value per call) */
double dyi_rng_gauss(unsigned long long* s);

#endif
