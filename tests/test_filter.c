/* SPDX-License-Identifier: MIT */
/* dynid tests: Butterworth design and the block zero-phase filter.
 *  - the SOS design against the analytic Butterworth magnitude of the
 *    bilinear transform, |H|^2 = 1 / (1 + (tan(w/2) / tan(wc/2))^(2N));
 *  - the margin rule: a unit start error has decayed below 1e-15 after M;
 *  - the block filter against a whole-signal filtfilt written here in
 *    direct form I (a different recursion, same coefficients and the same
 *    edge convention), for many lengths and block sizes: agreement to
 *    1e-12 of the signal scale (the target is 1e-9; the margin makes the
 *    block truncation ~1e-16, the rest is rounding of different orders of
 *    summation);
 *  - 11, 19, 27 and 43 channels at once (the filter runs them as lanes
 *    of vectors, the last vector part padding) for orders 1, 2, 3, 4, 6:
 *    each against the whole-signal filtfilt, and bit for bit its own
 *    one-channel filter;
 *  - a ramp passes unchanged (odd extension + zero phase keep it exactly);
 *  - the decimating FIR of parallel filtering: symmetric taps of sum 1,
 *    passband flat to 2e-3 and stopband below 1e-3 (60 dB) by its DTFT,
 *    the variance factor 1 / (D sum h^2); the streaming decimator against a
 *    direct evaluation (windows truncated at the ends of each segment and
 *    renormalised, guard samples left out at file ends, none at a held-out
 *    break), the centre sample's pass-through values, and its size
 *    independent of the length. */
#include "testhelp.h"
#include "ident/filter.h"
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

/* direct output of segment x[0..N) (filtered part [a, b)) centred at c */
static double fir_direct(const dyiFir* f, const double* x, long a, long b, long c, double* rv) {
  double s = 0, w = 0, w2 = 0;
  for (long k = -f->K; k <= f->K; k++)
    if (c + k >= a && c + k < b) { double t = f->h[k + f->K]; s += t * x[c + k]; w += t; w2 += t * t; }
  *rv = w2 / (w * w) / f->gain2;
  return s / w;
}

/* streaming against direct: three segments (a file of 5000 samples with
 * a held-out break at 2000..2500, then a file of 777), guard E, burst
 * pushes between pops; bit for bit (the decimator sums each window from 0
 * in time order, a multiply then an add per tap, as fir_direct does);
 * returns the decimator */
static dyiDecim* decim_vs_direct(const dyiFir* f, int E, int burst) {
  static double x[2][8000];
  long seg[3][2] = {{0, 2000}, {2500, 5000}, {5000, 5777}};
  const long D = f->D;
  for (long i = 0; i < 5777; i++) { x[0][i] = sig(i, 0); x[1][i] = sig(i, 2); }
  dyiDecim* d = dyi_decim_make(f, 2, 1, E);
  double err = 0, rverr = 0;
  long nout = 0, badpass = 0, want = 0;
  for (int sgi = 0; sgi < 3; sgi++) {
    long a = seg[sgi][0], b = seg[sgi][1];
    /* filtered part: the guard left out at file ends only */
    long fa = a + (sgi != 1 ? E : 0), fb = b - (sgi != 0 ? E : 0);
    double y[2], ps, rv;
    for (long i = a; i <= b; i++) {
      /* pop only before every burst-th push (the row stage pushes 8) */
      while ((i - a) % burst == 0 && dyi_decim_pop(d, y, &ps, &rv)) {
        long c = (long)ps;
        double r0, r1;
        err = fmax(err, fabs(y[0] - fir_direct(f, x[0], fa, fb, c, &r0)));
        err = fmax(err, fabs(y[1] - fir_direct(f, x[1], fa, fb, c, &r1)));
        rverr = fmax(rverr, fabs(rv - r0));
        if (c < fa || c >= fb || (c - fa) % D) badpass++;
        nout++;
      }
      if (i == b) { dyi_decim_end(d, sgi != 0); break; }
      double v[2] = {x[0][i], x[1][i]}, p = (double)i;
      if (dyi_decim_push(d, v, &p)) badpass++;
    }
    double y2[2];
    while (dyi_decim_pop(d, y2, &ps, &rv)) {
      long c = (long)ps;
      double r0;
      err = fmax(err, fabs(y2[0] - fir_direct(f, x[0], fa, fb, c, &r0)));
      if (c < fa || c >= fb || (c - fa) % D) badpass++;
      nout++;
    }
    want += (fb - fa + D - 1) / D;
  }
  CHECK(nout == want && badpass == 0 && err == 0 && rverr == 0, "decimator vs direct (D %ld, %d taps, guard "
        "%d, %d pushes between pops): %ld outputs (want %ld), %ld misplaced or refused, error %.3g, relative "
        "variance error %.3g", D, 2 * f->K + 1, E, burst, nout, want, badpass, err, rverr);
  return d;
}

static void test_fir(void) {
  dyiFir f;
  CHECK(dyi_fir_design(&f, 1000, 50, 10) == 0, "FIR design");
  double sum = 0, asym = 0, pass = 0, stop = 0;
  for (int k = 0; k <= 2 * f.K; k++) { sum += f.h[k]; asym = fmax(asym, fabs(f.h[k] - f.h[2 * f.K - k])); }
  for (int i = 0; i <= 400; i++) {
    double fr = 500.0 * i / 400, H = 0;
    for (int k = -f.K; k <= f.K; k++) H += f.h[k + f.K] * cos(2 * M_PI * fr * k / 1000);
    if (fr <= f.fpass) pass = fmax(pass, fabs(H - 1));
    if (fr >= f.fstop) stop = fmax(stop, fabs(H));
  }
  CHECK(fabs(sum - 1) < 1e-12 && asym == 0 && pass < 2e-3 && stop < 1e-3, "FIR: %d taps, sum %.15g, "
        "passband error %.2g, stopband %.2g", 2 * f.K + 1, sum, pass, stop);
  double vf = dyi_fir_var_factor(&f);
  CHECK(vf > 1.2 && vf < 1.6, "variance factor %.3f (passband 0.4 of the decimated band)", vf);
  printf("FIR fs 1000 Hz, D 10, stop 50 Hz: %d taps, passband error %.2g, stopband %.2g, variance factor %.3f\n",
         2 * f.K + 1, pass, stop, vf);
  dyiDecim* d = decim_vs_direct(&f, 37, 1);
  dyi_decim_free(d);
  d = decim_vs_direct(&f, 37, 8);
  long size = dyi_decim_size(d);
  CHECK(size < 20 * (2 * f.K + 1), "decimator holds %ld doubles (%d taps)", size, 2 * f.K + 1);
  dyi_decim_free(d);
  dyi_fir_free(&f);
  /* other decimations and guards, 8 pushes between pops: plain (D 1, no
   * filter: every push completes an output), D 2 and 3 */
  const int Ds[3] = {1, 2, 3}, Es[3] = {0, 0, 5};
  for (int k = 0; k < 3; k++) {
    CHECK(dyi_fir_design(&f, 1000, Ds[k] > 1 ? 400.0 / Ds[k] : 0, Ds[k]) == 0, "FIR design D %d", Ds[k]);
    dyi_decim_free(decim_vs_direct(&f, Es[k], 8));
    dyi_fir_free(&f);
  }
}

/* the design against the analytic magnitude, orders 1-10 at four cutoffs;
 * returns the worst |H|^2 error */
static double check_design(void) {
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
  return worst;
}

/* margin: the homogeneous response from a unit steady state decays */
static void check_margin(void) {
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
}

/* the block filter's input and output channels, and the reference output */
static double blk_x[3][200000], blk_ref[200000], blk_got[3][200000];

/* the outputs z has ready into blk_got from *out on, counting pass-through
 * values that are not the output's index */
static void pop_all(dyiZpf* z, long* out, long* badpass) {
  double y[3], pass;
  while (dyi_zpf_pop(z, y, &pass)) {
    for (int c = 0; c < 3; c++) blk_got[c][*out] = y[c];
    if (pass != (double)*out) (*badpass)++;
    (*out)++;
  }
}

/* N samples of three channels through the block filter (block size block)
 * against the whole-signal filtfilt (margin M); returns the difference */
static double check_block(const dyiButter* f, int M, long N, int block) {
  for (int c = 0; c < 3; c++) for (long k = 0; k < N; k++) blk_x[c][k] = sig(k, c);
  dyiZpf* z = dyi_zpf_make(f, 3, 1, block);
  long out = 0, badpass = 0, badpush = 0;
  for (long in = 0; in <= N; in++) {
    pop_all(z, &out, &badpass);
    if (in == N) {
      if (dyi_zpf_finish(z)) { badpush++; break; }
      pop_all(z, &out, &badpass);
    } else {
      double v[3] = {blk_x[0][in], blk_x[1][in], blk_x[2][in]}, p = (double)in;
      if (dyi_zpf_push(z, v, &p)) badpush++;
    }
  }
  CHECK(badpush == 0, "push/finish refused %ld times", badpush);
  CHECK(out == N && badpass == 0, "N=%ld block %d: %ld samples out, %ld pass-through mismatches",
        N, block, out, badpass);
  double err = 0;
  for (int c = 0; c < 3; c++) {
    ref_filtfilt(f, blk_ref, blk_x[c], N, M);
    for (long k = 0; k < N && k < out; k++) err = fmax(err, fabs(blk_got[c][k] - blk_ref[k]) / 4.0);
  }
  dyi_zpf_free(z);
  return err;
}

/* nch channels at once (11, 19, 27, 43: whole vectors of the filter's
 * lanes and part of one more) through the block filter of order `order`
 * (sections of one and two poles, nsec 1..3): each channel against the
 * whole-signal filtfilt (1e-12 of its scale), and bit for bit what a
 * filter of that channel alone gives (the lanes do not mix: neither a
 * neighbour nor the padding lanes past the last channel reach it) */
#define WN 43
#define WL 3000
static double wide_x[WN][WL], wide_y[WN][WL], wide_one[WL], wide_ref[WL];
static void check_wide(int order, int block, int nch) {
  dyiButter f;
  dyi_butter_design(&f, order, 40, 1000);
  const int M = dyi_butter_margin(&f);
  for (int c = 0; c < nch; c++) for (long k = 0; k < WL; k++) wide_x[c][k] = sig(k, c);
  dyiZpf* z = dyi_zpf_make(&f, nch, 0, block);
  long out = 0;
  double v[WN], y[WN];
  for (long k = 0; k < WL; k++) {
    for (int c = 0; c < nch; c++) v[c] = wide_x[c][k];
    dyi_zpf_push(z, v, NULL);
    while (dyi_zpf_pop(z, y, NULL)) { for (int c = 0; c < nch; c++) wide_y[c][out] = y[c]; out++; }
  }
  dyi_zpf_finish(z);
  while (dyi_zpf_pop(z, y, NULL)) { for (int c = 0; c < nch; c++) wide_y[c][out] = y[c]; out++; }
  CHECK(out == WL, "order %d, %d channels: %ld samples out of %d", order, nch, out, WL);
  double err = 0;
  long differ = 0;
  for (int c = 0; c < nch && out == WL; c++) {
    ref_filtfilt(&f, wide_ref, wide_x[c], WL, M);
    long o = 0;
    dyiZpf* w = dyi_zpf_make(&f, 1, 0, block);
    for (long k = 0; k < WL; k++) {
      dyi_zpf_push(w, &wide_x[c][k], NULL);
      while (dyi_zpf_pop(w, &wide_one[o], NULL)) o++;
    }
    dyi_zpf_finish(w);
    while (dyi_zpf_pop(w, &wide_one[o], NULL)) o++;
    dyi_zpf_free(w);
    for (long k = 0; k < WL; k++) {
      err = fmax(err, fabs(wide_y[c][k] - wide_ref[k]) / (1 + 3.0 * c));
      differ += memcmp(&wide_y[c][k], &wide_one[k], sizeof(double)) != 0;
    }
  }
  CHECK(err < 1e-12, "order %d block %d, %d channels: block vs whole filtfilt %.3g", order, block, nch, err);
  CHECK(differ == 0, "order %d block %d, %d channels: %ld values differ from the channel filtered alone", order,
        block, nch, differ);
  dyi_zpf_free(z);
}

/* a ramp passes unchanged */
static void check_ramp(const dyiButter* f) {
  long N = 5000;
  dyiZpf* z = dyi_zpf_make(f, 1, 0, 0);
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

/* block zero-phase filter against the whole-signal reference over lengths
 * and block sizes, and the ramp, at two cutoffs; returns the worst difference */
static double check_blocks(void) {
  static const long lens[] = {1, 2, 3, 50, 330, 331, 1000, 5000, 60000};
  static const int blocks[] = {0, 1, 17, 1000};
  static const double ratio[] = {0.05, 0.01};
  double worst_block = 0;
  for (int r = 0; r < 2; r++) {
    dyiButter f;
    dyi_butter_design(&f, 4, ratio[r] * 1000, 1000);
    int M = dyi_butter_margin(&f);
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
      for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++) {
        double err = check_block(&f, M, lens[li], blocks[bi]);
        if (err > worst_block) worst_block = err;
        CHECK(err < 1e-12, "fc/fs %g N=%ld block %d: block vs whole filtfilt %.3g", ratio[r], lens[li],
              blocks[bi], err);
      }
    check_ramp(&f);
  }
  return worst_block;
}

int main(void) {
  double worst = check_design();
  check_margin();
  double worst_block = check_blocks();
  static const int orders[] = {1, 2, 3, 4, 6};
  for (int i = 0; i < 5; i++)
    for (int w = 11; w <= WN; w += w < 27 ? 8 : 16) { check_wide(orders[i], 0, w); check_wide(orders[i], 37, w); }
  printf("worst Butterworth |H|^2 error %.3g, worst block-vs-whole filtfilt %.3g\n", worst, worst_block);
  test_fir();
  return test_report();
}
