/* dynid tests: Butterworth design and the block zero-phase filter.
 *  - the SOS design against the analytic Butterworth magnitude of the
 *    bilinear transform, |H|^2 = 1 / (1 + (tan(w/2) / tan(wc/2))^(2N));
 *  - the margin rule: a unit start error has decayed below 1e-15 after M;
 *  - the block filter against a whole-signal filtfilt written here in
 *    direct form I (a different recursion, same coefficients and the same
 *    edge convention), for many lengths and block sizes: agreement to
 *    1e-12 of the signal scale (the brief asks 1e-9; the margin makes the
 *    block truncation ~1e-16, the rest is rounding of different orders of
 *    summation);
 *  - a ramp passes unchanged (odd extension + zero phase keep it exactly). */
#include "testhelp.h"
#include "filter.h"
#include <string.h>

/* |H(e^{iw})|^2 of the cascade, by complex arithmetic on (re, im) pairs */
static double mag2(const dyiButter* f, double w) {
  double g = 1;
  for (int s = 0; s < f->nsec; s++) {
    double c1 = cos(w), s1 = -sin(w), c2 = cos(2*w), s2 = -sin(2*w);   /* z^-1, z^-2 */
    double nr = f->b[s][0] + f->b[s][1]*c1 + f->b[s][2]*c2, ni = f->b[s][1]*s1 + f->b[s][2]*s2;
    double dr = 1 + f->a[s][1]*c1 + f->a[s][2]*c2, di = f->a[s][1]*s1 + f->a[s][2]*s2;
    g *= (nr*nr + ni*ni) / (dr*dr + di*di);
  }
  return g;
}

/* reference filtfilt, direct form I per section, in memory */
static void sos_df1(const dyiButter* f, double* y, const double* x, long N, double x0) {
  static double tmp[200000];
  memcpy(tmp, x, (size_t)N * sizeof(double));
  for (int s = 0; s < f->nsec; s++) {
    const double* b = f->b[s]; const double* a = f->a[s];
    double x1 = x0, x2 = x0, y1 = x0, y2 = x0;   /* steady state at x0 (DC gain 1) */
    for (long k = 0; k < N; k++) {
      double v = b[0]*tmp[k] + b[1]*x1 + b[2]*x2 - a[1]*y1 - a[2]*y2;
      x2 = x1; x1 = tmp[k]; y2 = y1; y1 = v;
      tmp[k] = v;
    }
  }
  memcpy(y, tmp, (size_t)N * sizeof(double));
}

static void ref_filtfilt(const dyiButter* f, double* out, const double* x, long N, int M) {
  static double e[200000], y[200000];
  long P = N - 1 < M ? N - 1 : M, L = N + 2*P;
  for (long i = 0; i < P; i++) e[i] = 2*x[0] - x[P - i];
  for (long k = 0; k < N; k++) e[P + k] = x[k];
  for (long i = 0; i < P; i++) e[P + N + i] = 2*x[N-1] - x[N - 2 - i];
  sos_df1(f, y, e, L, e[0]);
  for (long k = 0; k < L/2; k++) { double t = y[k]; y[k] = y[L-1-k]; y[L-1-k] = t; }
  sos_df1(f, e, y, L, y[0]);
  for (long k = 0; k < N; k++) out[k] = e[L - 1 - (P + k)];
}

static double sig(long k, int c) {
  return sin(0.0031*k + c) + 0.5*cos(0.017*k*k*1e-3 + 0.3*c) + 0.2*th_uniform(-1, 1) + 3*c;
}

int main(void) {
  /* design against the analytic magnitude */
  double worst = 0;
  for (int order = 1; order <= 10; order++)
    for (int i = 0; i < 4; i++) {
      double ratio[4] = {0.002, 0.05, 0.2, 0.45}, fs = 1000, fc = ratio[i] * fs;
      dyiButter f;
      CHECK(dyi_butter_design(&f, order, fc, fs) == 0, "design N=%d fc=%g", order, fc);
      double wc = 2*M_PI*fc/fs;
      for (int m = 0; m <= 50; m++) {
        double w = M_PI * m / 50.5;
        double ref = 1 / (1 + pow(tan(w/2) / tan(wc/2), 2*order));
        double d = fabs(mag2(&f, w) - ref);
        if (d > worst) worst = d;
      }
      CHECK(f.rho < 1, "stable N=%d", order);
    }
  CHECK(worst < 1e-10, "Butterworth magnitude: worst |H|^2 error %.3g", worst);
  dyiButter bad;
  CHECK(dyi_butter_design(&bad, 4, 500, 1000) == -1, "cutoff at Nyquist refused");
  CHECK(dyi_butter_design(&bad, 0, 10, 1000) == -1, "order 0 refused");

  /* margin: the homogeneous response from a unit steady state decays */
  for (int i = 0; i < 3; i++) {
    double ratio[3] = {0.01, 0.05, 0.2};
    dyiButter f;
    dyi_butter_design(&f, 4, ratio[i] * 1000, 1000);
    int M = dyi_butter_margin(&f);
    double z[2*DYI_MAXSEC], y = 0;
    dyi_butter_steady(&f, z, 1.0);
    for (int k = 0; k < M; k++) y = dyi_butter_step(&f, z, 0.0);
    CHECK(fabs(y) < 1e-15, "fc/fs %g margin %d: start error left %.3g", ratio[i], M, fabs(y));
  }

  /* block zero-phase filter against the whole-signal reference */
  static double x[3][200000], ref[200000], got[3][200000];
  double worst_block = 0;
  long lens[] = {1, 2, 3, 50, 330, 331, 1000, 5000, 60000};
  int blocks[] = {0, 1, 17, 1000};
  double ratio[] = {0.05, 0.01};
  for (int r = 0; r < 2; r++) {
    dyiButter f;
    dyi_butter_design(&f, 4, ratio[r] * 1000, 1000);
    int M = dyi_butter_margin(&f);
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
      for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++) {
        long N = lens[li];
        for (int c = 0; c < 3; c++) for (long k = 0; k < N; k++) x[c][k] = sig(k, c);
        dyiZpf* z = dyi_zpf_new(&f, 3, 1, blocks[bi]);
        long out = 0, badpass = 0, badpush = 0;
        double y[3], pass;
        for (long in = 0; in <= N; in++) {
          while (dyi_zpf_pop(z, y, &pass)) {
            for (int c = 0; c < 3; c++) got[c][out] = y[c];
            if (pass != (double)out) badpass++;
            out++;
          }
          if (in == N) {
            if (dyi_zpf_finish(z)) { badpush++; break; }
            while (dyi_zpf_pop(z, y, &pass)) {
              for (int c = 0; c < 3; c++) got[c][out] = y[c];
              if (pass != (double)out) badpass++;
              out++;
            }
          } else {
            double v[3] = {x[0][in], x[1][in], x[2][in]}, p = (double)in;
            if (dyi_zpf_push(z, v, &p)) badpush++;
          }
        }
        CHECK(badpush == 0, "push/finish refused %ld times", badpush);
        CHECK(out == N && badpass == 0, "N=%ld block %d: %ld samples out, %ld pass-through mismatches",
              N, blocks[bi], out, badpass);
        double err = 0;
        for (int c = 0; c < 3; c++) {
          ref_filtfilt(&f, ref, x[c], N, M);
          for (long k = 0; k < N && k < out; k++) err = fmax(err, fabs(got[c][k] - ref[k]) / 4.0);
        }
        if (err > worst_block) worst_block = err;
        CHECK(err < 1e-12, "fc/fs %g N=%ld block %d: block vs whole filtfilt %.3g", ratio[r], N,
              blocks[bi], err);
        dyi_zpf_free(z);
      }
    /* a ramp passes unchanged */
    long N = 5000;
    dyiZpf* z = dyi_zpf_new(&f, 1, 0, 0);
    double y, e = 0; long k = 0, out = 0;
    for (; k < N; k++) {
      double v = 0.25 + 1e-3 * k;
      dyi_zpf_push(z, &v, NULL);
      while (dyi_zpf_pop(z, &y, NULL)) { e = fmax(e, fabs(y - (0.25 + 1e-3 * out))); out++; }
    }
    dyi_zpf_finish(z);
    while (dyi_zpf_pop(z, &y, NULL)) { e = fmax(e, fabs(y - (0.25 + 1e-3 * out))); out++; }
    CHECK(out == N && e < 1e-11, "ramp kept: %ld samples, error %.3g", out, e);
    dyi_zpf_free(z);
  }
  printf("worst Butterworth |H|^2 error %.3g, worst block-vs-whole filtfilt %.3g\n", worst, worst_block);
  return test_report();
}
