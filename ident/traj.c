/* SPDX-License-Identifier: MIT */
/* dynid ident: Fourier-series excitation trajectories and TRAJ/LOG rows
 * (see traj.h). */
#include "ident/traj.h"
#include "core/io.h"
#include "core/util.h"
#include <math.h>
#include <string.h>

void dyi_fourier_eval(const dyiFourier* f, double t, double* q, double* qd, double* qdd) {
  int n = f->n;
  for (int j = 0; j < n; j++) {
    double x = f->q0[j], v = 0, acc = 0;
    for (int l = 1; l <= f->nh; l++) {
      double w = l * f->wf, s = sin(w * t), c = cos(w * t);
      double a = f->a[l - 1][j], b = f->b[l - 1][j];
      x += (a * s - b * c) / w;
      v += a * c + b * s;
      acc += (-a * s + b * c) * w;
    }
    if (q) q[j] = x;
    if (qd) qd[j] = v;
    if (qdd) qdd[j] = acc;
  }
}

void dyi_fourier_bounds(const dyiFourier* f, int j, double* dq, double* dqd, double* dqdd) {
  double x = 0, v = 0, a = 0;
  for (int l = 1; l <= f->nh; l++) {
    double s = fabs(f->a[l - 1][j]) + fabs(f->b[l - 1][j]), w = l * f->wf;
    x += s / w; v += s; a += s * w;
  }
  *dq = x; *dqd = v; *dqdd = a;
}

double dyi_fourier_deriv(const dyiFourier* f, int j, int d, double t) {
  /* q - q0 = sum_l A_l sin(th_l) + B_l cos(th_l), th_l = l wf t; the d-th
   * derivative advances the phase by d pi / 2 and scales by (l wf)^d */
  double acc = 0;
  for (int l = 1; l <= f->nh; l++) {
    double w = l * f->wf, A = f->a[l - 1][j] / w, B = -f->b[l - 1][j] / w;
    double s = sin(w * t), c = cos(w * t), sd, cd;
    switch (d & 3) {
      case 0: sd = s; cd = c; break;
      case 1: sd = c; cd = -s; break;
      case 2: sd = -s; cd = -c; break;
      default: sd = -c; cd = s; break;
    }
    double wd = 1;
    for (int k = 0; k < d; k++) wd *= w;
    acc += wd * (A * sd + B * cd);
  }
  return acc;
}

/* Newton on g' = 0 from t0 inside [lo, hi] (g = derivative d), bisection on
 * the sign of g' when a step leaves the interval; returns the refined t */
static double peak_refine(const dyiFourier* f, int j, int d, double t0, double lo, double hi) {
  double glo = dyi_fourier_deriv(f, j, d + 1, lo), ghi = dyi_fourier_deriv(f, j, d + 1, hi);
  int bracket = (glo > 0) != (ghi > 0);
  double t = t0;
  for (int it = 0; it < 60; it++) {
    double g1 = dyi_fourier_deriv(f, j, d + 1, t), g2 = dyi_fourier_deriv(f, j, d + 2, t);
    double tn = g2 != 0 ? t - g1 / g2 : NAN;
    if (!(tn > lo && tn < hi)) {
      if (!bracket) break;
      if ((g1 > 0) == (glo > 0)) lo = t; else hi = t;
      tn = 0.5 * (lo + hi);
    } else if (bracket) {
      if ((g1 > 0) == (glo > 0)) lo = t; else hi = t;
    }
    if (fabs(tn - t) <= 1e-15 * (1 + fabs(t))) { t = tn; break; }
    t = tn;
  }
  return t;
}

double dyi_fourier_peak(const dyiFourier* f, int j, int d, double* tpeak) {
  int M = 32 * f->nh;
  double T = 2 * M_PI / f->wf, h = T / M;
  double g[32 * DYI_FOURIER_MAXH], best = 0, tb = 0, top = 0;
  for (int s = 0; s < M; s++) {
    g[s] = fabs(dyi_fourier_deriv(f, j, d, h * s));
    if (g[s] > top) top = g[s];
  }
  for (int s = 0; s < M; s++) {
    double gp = g[(s + M - 1) % M], gn = g[(s + 1) % M];   /* periodic */
    if (g[s] >= gp && g[s] >= gn && g[s] >= 0.95 * top && g[s] > 0) {
      double t = peak_refine(f, j, d, h * s, h * (s - 1), h * (s + 1));
      double v = fabs(dyi_fourier_deriv(f, j, d, t));
      if (!(v >= g[s])) { v = g[s]; t = h * s; }
      if (v > best) { best = v; tb = t; }
    }
  }
  if (tpeak) *tpeak = tb;
  return best;
}

unsigned long long dyi_rng_next(unsigned long long* s) { return dy_rng_splitmix(s); }

double dyi_rng_uniform(unsigned long long* s) {
  return (double)(dyi_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

double dyi_rng_gauss(unsigned long long* s) {
  double u = dyi_rng_uniform(s), v = dyi_rng_uniform(s);
  return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

int dyi_fourier_random(dyiFourier* f, const dyModel* m, int nh, double period,
                       unsigned long long seed, char* err, int errsz) {
  if (nh < 1 || nh > DYI_FOURIER_MAXH || !(period > 0) || !isfinite(period)) {
    snprintf(err, (size_t)errsz, "Fourier trajectory: need 1..%d harmonics and a positive period "
             "(got %d, %g s)", DYI_FOURIER_MAXH, nh, period);
    return -1;
  }
  memset(f, 0, sizeof *f);
  f->n = m->n; f->nh = nh; f->wf = 2 * M_PI / period;
  unsigned long long s = seed;
  for (int j = 0; j < m->n; j++) {
    int pr = m->jnt_type[j] == DY_PRISMATIC;
    double lo = m->jnt_qmin[j], hi = m->jnt_qmax[j];
    double half = pr ? 0.2 : 1.0;
    f->q0[j] = 0;
    if (isfinite(lo) && isfinite(hi) && hi > lo) { f->q0[j] = 0.5 * (lo + hi); half = 0.5 * (hi - lo); }
    else if (isfinite(lo)) f->q0[j] = lo + half / 0.9;
    else if (isfinite(hi)) f->q0[j] = hi - half / 0.9;
    double vmax = isfinite(m->jnt_qdmax[j]) && m->jnt_qdmax[j] > 0 ? m->jnt_qdmax[j] : (pr ? 0.3 : 1.5);
    double amax = isfinite(m->jnt_qddmax[j]) && m->jnt_qddmax[j] > 0 ? m->jnt_qddmax[j] : (pr ? 2 : 8);
    for (int l = 0; l < nh; l++) {
      f->a[l][j] = 2 * dyi_rng_uniform(&s) - 1;
      f->b[l][j] = 2 * dyi_rng_uniform(&s) - 1;
    }
    double dq, dqd, dqdd;
    dyi_fourier_bounds(f, j, &dq, &dqd, &dqdd);
    double k = 0.9 * half / dq;
    if (0.9 * vmax / dqd < k) k = 0.9 * vmax / dqd;
    if (0.9 * amax / dqdd < k) k = 0.9 * amax / dqdd;
    for (int l = 0; l < nh; l++) { f->a[l][j] *= k; f->b[l][j] *= k; }
  }
  return 0;
}

void dyi_traj_header(FILE* f, int n, int with_tau) {
  static const char* const pre[4] = {"q", "qd", "qdd", "tau"};
  fputs("t", f);
  for (int k = 0; k < 3 + (with_tau != 0); k++)
    for (int j = 0; j < n; j++) fprintf(f, ",%s%d", pre[k], j + 1);
  fputc('\n', f);
}

void dyi_traj_row(FILE* f, int n, double t, const double* q, const double* qd,
                  const double* qdd, const double* tau) {
  const double* v[4] = {q, qd, qdd, tau};
  dy_fprint_double(f, t);
  for (int k = 0; k < 4; k++) {
    if (!v[k]) continue;
    for (int j = 0; j < n; j++) { fputc(',', f); dy_fprint_double(f, v[k][j]); }
  }
  fputc('\n', f);
}

int dyi_traj_write(FILE* f, const dyiFourier* fr, double duration, double rate) {
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  long N = lround(duration * rate);
  dyi_traj_header(f, fr->n, 0);
  for (long k = 0; k < N; k++) {
    double t = (double)k / rate;
    dyi_fourier_eval(fr, t, q, qd, qdd);
    dyi_traj_row(f, fr->n, t, q, qd, qdd, NULL);
  }
  return ferror(f) ? -1 : 0;
}
