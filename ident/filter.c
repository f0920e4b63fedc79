/* SPDX-License-Identifier: MIT */
/* dynid ident: Butterworth design and the block zero-phase filter
 * (see filter.h for the margin rule and the edge convention). */
#include "ident/filter.h"
#include "core/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Vectors of VEC_LANES doubles (GCC's vector extension, also clang's) for
 * the decimator and the bandwidth meter, loaded and stored through memcpy:
 * unaligned, and no vector passed or returned by value, whose ABI differs
 * between the clones of a function (util.h DY_CLONES). VEC_STORE_N stores
 * the first n lanes only (all of them for n >= VEC_LANES). */
#define VEC_LANES 8
typedef double fvec __attribute__((vector_size(VEC_LANES * sizeof(double))));
#define VEC_LOAD(v, p) memcpy(&(v), (p), sizeof(fvec))
#define VEC_STORE(p, v) memcpy((p), &(v), sizeof(fvec))
#define VEC_STORE_N(p, v, n) do { \
    if ((n) >= VEC_LANES) VEC_STORE(p, v); \
    else for (int l_ = 0; l_ < (n); l_++) (p)[l_] = (v)[l_]; \
  } while (0)

int dyi_butter_design(dyiButter* f, int order, double fc, double fs) {
  if (order < 1 || order > 2*DYI_MAXSEC || !(fs > 0) || !(fc > 0) || !(fc < 0.5*fs))
    return -1;
  memset(f, 0, sizeof *f);
  f->order = order; f->fc = fc; f->fs = fs;
  /* pre-warped analog cutoff: s/wc = c (z-1)/(z+1), c = 1/tan(pi fc/fs) */
  double c = 1.0 / tan(M_PI * fc / fs);
  int s = 0;
  for (int k = 0; k < order / 2; k++) {
    /* analog prototype pole pair p = exp(i pi (2k+1+N)/(2N)); r = -2 Re p > 0 */
    double r = -2.0 * cos(M_PI * (2.0*k + 1.0 + order) / (2.0*order));
    double a0 = c*c + r*c + 1.0;
    f->b[s][0] = 1.0/a0; f->b[s][1] = 2.0/a0; f->b[s][2] = 1.0/a0;
    f->a[s][0] = 1.0;
    f->a[s][1] = 2.0*(1.0 - c*c) / a0;
    f->a[s][2] = (c*c - r*c + 1.0) / a0;
    s++;
  }
  if (order % 2) {  /* real pole s = -wc: (z+1) / ((c+1) z + (1-c)) */
    f->b[s][0] = 1.0/(c + 1.0); f->b[s][1] = 1.0/(c + 1.0); f->b[s][2] = 0;
    f->a[s][0] = 1.0; f->a[s][1] = (1.0 - c)/(1.0 + c); f->a[s][2] = 0;
    s++;
  }
  f->nsec = s;
  /* largest pole modulus: roots of z^2 + a1 z + a2 */
  double rho = 0;
  for (int i = 0; i < s; i++) {
    double a1 = f->a[i][1], a2 = f->a[i][2], d = a1*a1 - 4*a2, m;
    if (d < 0) m = sqrt(a2);
    else m = fmax(fabs(-a1 + sqrt(d)), fabs(-a1 - sqrt(d))) / 2;
    if (m > rho) rho = m;
  }
  f->rho = rho;
  /* a cutoff so small a fraction of the rate that the coefficients lose
   * all precision (c^2 overflowing, poles on the unit circle) is no filter */
  for (int i = 0; i < s; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(f->a[i][k]) || !isfinite(f->b[i][k])) return -1;
  if (!(rho < 1)) return -1;
  return 0;
}

int dyi_butter_margin(const dyiButter* f) {
  double rho = f->rho;
  if (rho <= 0) return 1;
  if (!(rho < 1)) return 1 << 24;
  double m = ceil(log(0x1p-53 * (1.0 - rho)) / log(rho));
  return !(m < (1 << 24)) ? (1 << 24) : m < 0 ? 1 : (int)m + 1;
}

int dyi_butter_settle(const dyiButter* f, double tol) {
  if (f->rho <= 0) return 1;
  if (!(f->rho < 1)) return 1 << 24;
  double m = ceil(log(tol) / log(f->rho));
  return !(m < (1 << 24)) ? (1 << 24) : m < 1 ? 1 : (int)m;
}

void dyi_butter_steady(const dyiButter* f, double* z, double x0) {
  /* each section has DC gain 1: y = x0, z1 = (1 - b0) x0, z2 = (b2 - a2) x0 */
  for (int i = 0; i < f->nsec; i++) {
    z[2*i]   = (1.0 - f->b[i][0]) * x0;
    z[2*i+1] = (f->b[i][2] - f->a[i][2]) * x0;
  }
}

/* transposed direct form II, section by section (inlined into the block
 * filter's loops) */
static inline double butter_step(const dyiButter* f, double* z, double x) {
  for (int i = 0; i < f->nsec; i++) {
    const double* b = f->b[i]; const double* a = f->a[i];
    double y = b[0]*x + z[2*i];
    z[2*i]   = b[1]*x - a[1]*y + z[2*i+1];
    z[2*i+1] = b[2]*x - a[2]*y;
    x = y;
  }
  return x;
}

double dyi_butter_step(const dyiButter* f, double* z, double x) { return butter_step(f, z, x); }

/* ------------------------------------------------------------ block filter */

/* The channels are filtered VEC_LANES at a time, one vector lane each:
 * the rows of X, Y, O and R hold P doubles (nch rounded up to whole
 * vectors; the lanes past nch stay zero), and the states are stored by
 * state, then channel (zf[i P + c], i < 2 nsec), so that a vector holds
 * state i of VEC_LANES channels. Each lane takes butter_step's operations
 * in its order: the outputs are a channel-by-channel pass's bit for bit. */
struct dyiZpf_ {
  dyiButter f;
  int nch, npass, ns;   /* channels, pass-through values, 2*nsec */
  int P;                /* a row's doubles: nch rounded up to VEC_LANES */
  int M, B;             /* margin, block */
  long cap;             /* B + M + 1 samples */
  double *X, *Y, *PS;   /* input, forward output (cap x P), pass-through (cap x npass) */
  double *R;            /* right-edge forward output (M x P) */
  double *O, *OP;       /* emitted samples (cap x P, cap x npass) */
  double *zf, *zb;      /* forward / backward states (ns x P) */
  long len;             /* samples in X (index 0 = oldest not emitted) */
  long total;           /* samples pushed */
  long outn, outi;      /* emitted, popped */
  int started, finished;
};

/* bytes of the buffers for block B (see dyi_zpf_make; rows of nch
 * rounded up to whole vectors) */
static double zpf_bytes(long B, long M, int nch, int npass, int ns) {
  double c = (double)B + M + 1, k = (nch + VEC_LANES - 1) / VEC_LANES * VEC_LANES, p = npass > 0 ? npass : 1;
  return sizeof(double) * (c * (3*k + 2*p) + M * k + 2 * k * ns);
}

long dyi_zpf_block(const dyiButter* f, int nch, int npass, double* bytes) {
  long M = dyi_butter_margin(f);
  int ns = 2*f->nsec;
  long B = 4*M > 1024 ? 4*M : 1024;
  double b = zpf_bytes(B, M, nch, npass, ns);
  if (b > (double)DYI_ZPF_MAXBYTES) {   /* the largest block that fits */
    double per = zpf_bytes(1, M, nch, npass, ns) - zpf_bytes(0, M, nch, npass, ns);
    double fit = floor(((double)DYI_ZPF_MAXBYTES - zpf_bytes(0, M, nch, npass, ns)) / per);
    long least = M / 4 > 256 ? M / 4 : 256;
    if (!(fit >= (double)least)) {
      if (bytes) *bytes = zpf_bytes(least, M, nch, npass, ns);
      return 0;
    }
    B = (long)fit;
    b = zpf_bytes(B, M, nch, npass, ns);
  }
  if (bytes) *bytes = b;
  return B;
}

dyiZpf* dyi_zpf_make(const dyiButter* f, int nch, int npass, int block) {
  long B = block > 0 ? block : dyi_zpf_block(f, nch, npass, NULL);
  if (B <= 0) return NULL;
  dyiZpf* z = calloc(1, sizeof *z);
  if (!z) return NULL;
  z->f = *f; z->nch = nch; z->npass = npass; z->ns = 2*f->nsec;
  z->P = (nch + VEC_LANES - 1) / VEC_LANES * VEC_LANES;
  z->M = dyi_butter_margin(f);
  z->B = (int)B;
  z->cap = (long)z->B + z->M + 1;
  size_t c = (size_t)z->cap, k = (size_t)z->P, p = (size_t)(npass > 0 ? npass : 1);
  /* zeroed: the lanes past nch stay zero through the filter */
  z->X = calloc(c*k, sizeof(double)); z->Y = calloc(c*k, sizeof(double));
  z->PS = malloc(c*p*sizeof(double)); z->R = calloc((size_t)z->M*k + 1, sizeof(double));
  z->O = calloc(c*k, sizeof(double)); z->OP = malloc(c*p*sizeof(double));
  z->zf = calloc(k*(size_t)z->ns, sizeof(double)); z->zb = calloc(k*(size_t)z->ns, sizeof(double));
  if (!z->X || !z->Y || !z->PS || !z->R || !z->O || !z->OP || !z->zf || !z->zb) {
    dyi_zpf_free(z);
    return NULL;
  }
  return z;
}

void dyi_zpf_free(dyiZpf* z) {
  if (!z) return;
  free(z->X); free(z->Y); free(z->PS); free(z->R); free(z->O); free(z->OP);
  free(z->zf); free(z->zb);
  free(z);
}

long dyi_zpf_capacity(const dyiZpf* z) { return z->cap; }

/* channel c's states (ns, butter_step's order) out of / into the
 * vector layout zv (state i at zv[i P + c]) */
static void states_get(const dyiZpf* z, const double* zv, int c, double* s) {
  for (int i = 0; i < z->ns; i++) s[i] = zv[(size_t)i*z->P + c];
}
static void states_put(const dyiZpf* z, double* zv, int c, const double* s) {
  for (int i = 0; i < z->ns; i++) zv[(size_t)i*z->P + c] = s[i];
}

/* cascade_rows for two sections and G vectors of channels (G a constant
 * where it is inlined; zv, x and y at the first of them, rows of stride
 * P): each row's G vectors at once, their recursions
 * independent, so that the steps of one overlap the others' latency
 * instead of each vector's rows running one dependent chain after the
 * other */
static inline __attribute__((always_inline)) void cascade2_rows(const dyiButter* f, double* restrict zv, int P,
                                                                const double* x, long nr, int step,
                                                                double* restrict y, long keep, int G) {
  const fvec b0 = f->b[0][0] - (fvec){0}, b1 = f->b[0][1] - (fvec){0}, b2 = f->b[0][2] - (fvec){0};
  const fvec a1 = f->a[0][1] - (fvec){0}, a2 = f->a[0][2] - (fvec){0};
  const fvec d0 = f->b[1][0] - (fvec){0}, d1 = f->b[1][1] - (fvec){0}, d2 = f->b[1][2] - (fvec){0};
  const fvec e1 = f->a[1][1] - (fvec){0}, e2 = f->a[1][2] - (fvec){0};
  fvec p0[4], p1[4], q0[4], q1[4];
#pragma GCC unroll 4
  for (int g = 0; g < G; g++) {
    const int c0 = g * VEC_LANES;
    VEC_LOAD(p0[g], zv + c0); VEC_LOAD(p1[g], zv + (size_t)P + c0);
    VEC_LOAD(q0[g], zv + (size_t)2*P + c0); VEC_LOAD(q1[g], zv + (size_t)3*P + c0);
  }
  for (long r = 0; r < nr; r++) {
    const long k = step > 0 ? r : nr - 1 - r;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
      fvec v, u;
      VEC_LOAD(v, x + (size_t)k*P + g * VEC_LANES);
      u = b0 * v + p0[g]; p0[g] = b1 * v - a1 * u + p1[g]; p1[g] = b2 * v - a2 * u; v = u;
      u = d0 * v + q0[g]; q0[g] = d1 * v - e1 * u + q1[g]; q1[g] = d2 * v - e2 * u; v = u;
      if (k < keep) VEC_STORE(y + (size_t)k*P + g * VEC_LANES, v);
    }
  }
#pragma GCC unroll 4
  for (int g = 0; g < G; g++) {
    const int c0 = g * VEC_LANES;
    VEC_STORE(zv + c0, p0[g]); VEC_STORE(zv + (size_t)P + c0, p1[g]);
    VEC_STORE(zv + (size_t)2*P + c0, q0[g]); VEC_STORE(zv + (size_t)3*P + c0, q1[g]);
  }
}

/* nr input rows x (stride P, taken in the order step runs: from row 0 up
 * when step is +1, from row nr - 1 down when -1) through the cascade f,
 * every channel, states zv (ns x P, kept); output row k into y (stride
 * P) for the rows k < keep only (y may be NULL when keep is 0). Each
 * vector of VEC_LANES channels keeps its states in registers through the
 * rows (two sections, order 3 or 4, the usual low-pass: cascade2_rows,
 * up to four vectors side by side; other orders a loop over the
 * sections); built per vector width (util.h DY_CLONES). */
DY_CLONES
static void cascade_rows(const dyiButter* f, double* restrict zv, int P, const double* x, long nr, int step,
                         double* restrict y, long keep) {
  const int nsec = f->nsec;
  if (nsec == 2) {   /* four vectors at a time, then the one to three left */
    for (int c0 = 0; c0 < P; c0 += 4 * VEC_LANES) {
      double* yc = y ? y + c0 : NULL;
      switch ((P - c0) / VEC_LANES) {
        case 1: cascade2_rows(f, zv + c0, P, x + c0, nr, step, yc, keep, 1); break;
        case 2: cascade2_rows(f, zv + c0, P, x + c0, nr, step, yc, keep, 2); break;
        case 3: cascade2_rows(f, zv + c0, P, x + c0, nr, step, yc, keep, 3); break;
        default: cascade2_rows(f, zv + c0, P, x + c0, nr, step, yc, keep, 4); break;
      }
    }
    return;
  }
  for (int c0 = 0; c0 < P; c0 += VEC_LANES) {
    fvec b0[DYI_MAXSEC], b1[DYI_MAXSEC], b2[DYI_MAXSEC], a1[DYI_MAXSEC], a2[DYI_MAXSEC];
    fvec z0[DYI_MAXSEC], z1[DYI_MAXSEC];
    for (int i = 0; i < nsec; i++) {
      b0[i] = f->b[i][0] - (fvec){0}; b1[i] = f->b[i][1] - (fvec){0}; b2[i] = f->b[i][2] - (fvec){0};
      a1[i] = f->a[i][1] - (fvec){0}; a2[i] = f->a[i][2] - (fvec){0};
      VEC_LOAD(z0[i], zv + (size_t)(2*i)*P + c0);
      VEC_LOAD(z1[i], zv + (size_t)(2*i + 1)*P + c0);
    }
    for (long r = 0; r < nr; r++) {
      const long k = step > 0 ? r : nr - 1 - r;
      fvec v;
      VEC_LOAD(v, x + (size_t)k*P + c0);
      for (int i = 0; i < nsec; i++) {
        fvec u = b0[i] * v + z0[i];
        z0[i] = b1[i] * v - a1[i] * u + z1[i];
        z1[i] = b2[i] * v - a2[i] * u;
        v = u;
      }
      if (k < keep) VEC_STORE(y + (size_t)k*P + c0, v);
    }
    for (int i = 0; i < nsec; i++) {
      VEC_STORE(zv + (size_t)(2*i)*P + c0, z0[i]);
      VEC_STORE(zv + (size_t)(2*i + 1)*P + c0, z1[i]);
    }
  }
}

/* forward start: left odd extension over P samples, then X[0..len) -> Y */
static void start(dyiZpf* z, int P) {
  const int nch = z->nch;
  const size_t W = (size_t)z->P;
  double s[2*DYI_MAXSEC];
  for (int c = 0; c < nch; c++) {
    double x0 = z->X[c];
    dyi_butter_steady(&z->f, s, 2*x0 - z->X[(size_t)P*W + c]);
    for (int i = 0; i < P; i++) butter_step(&z->f, s, 2*x0 - z->X[(size_t)(P - i)*W + c]);
    states_put(z, z->zf, c, s);
  }
  cascade_rows(&z->f, z->zf, z->P, z->X, z->len, 1, z->Y, z->len);
  z->started = 1;
}

/* backward pass from the newest sample (after nr right-edge samples in R)
 * down to index 0; emit indices [0, E) into O, drop them from the buffer */
static void backward(dyiZpf* z, long E, int nr) {
  const int nch = z->nch;
  const size_t W = (size_t)z->P;
  double s[2*DYI_MAXSEC];
  for (int c = 0; c < nch; c++) {
    dyi_butter_steady(&z->f, s, nr ? z->R[(size_t)(nr - 1)*W + c] : z->Y[(size_t)(z->len - 1)*W + c]);
    states_put(z, z->zb, c, s);
  }
  cascade_rows(&z->f, z->zb, z->P, z->R, nr, -1, NULL, 0);
  cascade_rows(&z->f, z->zb, z->P, z->Y, z->len, -1, z->O, E);
  if (z->npass) memcpy(z->OP, z->PS, (size_t)E*z->npass*sizeof(double));
  z->outn = E; z->outi = 0;
  long rest = z->len - E;
  memmove(z->X, z->X + (size_t)E*W, (size_t)rest*W*sizeof(double));
  memmove(z->Y, z->Y + (size_t)E*W, (size_t)rest*W*sizeof(double));
  if (z->npass) memmove(z->PS, z->PS + E*z->npass, (size_t)rest*z->npass*sizeof(double));
  z->len = rest;
}

int dyi_zpf_push(dyiZpf* z, const double* x, const double* pass) {
  if (z->outi < z->outn || z->finished) return -1;
  const size_t W = (size_t)z->P;
  double* row = z->X + (size_t)z->len*W;
  memcpy(row, x, (size_t)z->nch*sizeof(double));
  if (z->npass) memcpy(z->PS + z->len*z->npass, pass, (size_t)z->npass*sizeof(double));
  z->len++; z->total++;
  if (!z->started) {
    if (z->len == z->M + 1) start(z, z->M);
  } else {
    cascade_rows(&z->f, z->zf, z->P, row, 1, 1, z->Y + (size_t)(z->len - 1)*W, 1);
  }
  if (z->started && z->len >= z->cap) backward(z, z->len - z->M - 1, 0);
  return 0;
}

int dyi_zpf_finish(dyiZpf* z) {
  if (z->outi < z->outn) return -1;
  if (z->finished) return 0;
  z->finished = 1;
  if (z->len == 0) return 0;
  if (!z->started) start(z, (int)(z->len - 1 < z->M ? z->len - 1 : z->M));
  /* right odd extension: P = min(M, N-1) <= len - 1 */
  long P = z->total - 1 < z->M ? z->total - 1 : z->M;
  const int nch = z->nch;
  const size_t W = (size_t)z->P;
  double s[2*DYI_MAXSEC];
  for (int c = 0; c < nch; c++) {
    states_get(z, z->zf, c, s);
    double xe = z->X[(size_t)(z->len - 1)*W + c];
    for (long i = 0; i < P; i++)
      z->R[(size_t)i*W + c] = butter_step(&z->f, s, 2*xe - z->X[(size_t)(z->len - 2 - i)*W + c]);
  }
  backward(z, z->len, (int)P);
  return 0;
}

int dyi_zpf_pop(dyiZpf* z, double* y, double* pass) {
  if (z->outi >= z->outn) return 0;
  memcpy(y, z->O + (size_t)z->outi*(size_t)z->P, (size_t)z->nch*sizeof(double));
  if (z->npass) memcpy(pass, z->OP + z->outi*z->npass, (size_t)z->npass*sizeof(double));
  z->outi++;
  return 1;
}

/* ---------------------------------------------- decimating zero-phase FIR */

#define FIR_ATTEN 60.0      /* stopband attenuation [dB] */
#define FIR_PASS 0.4        /* passband edge / stopband edge */
#define FIR_MAXK (1 << 20)

/* modified Bessel function I0 by its series (x <= ~20 here) */
static double bessel_i0(double x) {
  double s = 1, t = 1, q = 0.25 * x * x;
  for (int k = 1; k < 500 && t > 1e-17 * s; k++) { t *= q / ((double)k * k); s += t; }
  return s;
}

int dyi_fir_design(dyiFir* f, double fs, double fstop, int D) {
  memset(f, 0, sizeof *f);
  if (!(fs > 0) || D < 1) return -1;
  f->fs = fs; f->D = D;
  if (fstop > 0) {
    if (fstop > 0.5 * fs / D * (1 + 1e-12)) return -1;
    f->fstop = fstop; f->fpass = FIR_PASS * fstop;
    double dw = 2 * M_PI * (f->fstop - f->fpass) / fs;
    double N = (FIR_ATTEN - 8) / (2.285 * dw);
    if (!(N < 2.0 * FIR_MAXK)) return -1;
    f->K = (int)ceil(0.5 * N);
  }
  int K = f->K;
  f->h = malloc(sizeof(double) * (size_t)(2 * K + 1));
  if (!f->h) return -1;
  if (K == 0) { f->h[0] = 1; f->gain2 = 1; return 0; }
  double beta = 0.1102 * (FIR_ATTEN - 8.7), i0b = bessel_i0(beta);
  double wc = 2 * M_PI * 0.5 * (f->fpass + f->fstop) / fs, sum = 0;
  for (int k = -K; k <= K; k++) {
    double r = (double)k / K, w = bessel_i0(beta * sqrt(fmax(0, 1 - r * r))) / i0b;
    double s = k == 0 ? wc / M_PI : sin(wc * k) / (M_PI * k);
    f->h[k + K] = s * w;
    sum += s * w;
  }
  double g2 = 0;
  for (int k = 0; k <= 2 * K; k++) { f->h[k] /= sum; g2 += f->h[k] * f->h[k]; }
  f->gain2 = g2;
  return 0;
}

void dyi_fir_free(dyiFir* f) { free(f->h); f->h = NULL; }

double dyi_fir_var_factor(const dyiFir* f) { return 1.0 / (f->D * f->gain2); }

#define DECIM_BLOCK 8   /* samples the guard's delay line releases at a time */

struct dyiDecim_ {
  int nch, npass, K, D, S;  /* channels, pass-through values, half length, decimation, slots */
  double* h;                /* taps (2K + 1) */
  double gain2;
  double *acc, *pass;       /* S x nch completed outputs, S x npass their centre values */
  double *w1, *w2;          /* per slot: sum of the taps used, of their squares */
  long i;                   /* samples of the segment through the filter */
  long m0;                  /* first output of the segment (its centre is sample 0) */
  long lo, done;            /* outputs [lo, done) complete */
  int E;                    /* guard: samples left out at each file end */
  /* the ring: records (nch + npass values) of the segment's samples, the
   * last 2K + D through the filter (the windows not complete yet read them)
   * and, after them, up to R not yet through it (the guard's delay) */
  double* ring;
  int Rc;                   /* its capacity [records] */
  int R;                    /* samples the delay holds at most: E + DECIM_BLOCK */
  long wpos;                /* records placed so far: the next goes to slot wpos mod Rc */
  long seg0;                /* where the segment's sample 0 was placed (as wpos counts) */
  int rn, lead;             /* samples delayed (the last rn placed), leading samples to skip */
  double* scratch;          /* DYI_DECIM_WAIT records for samples left out */
  const double** xs;        /* an output's window: 2K + 1 record pointers */
};

dyiDecim* dyi_decim_make(const dyiFir* f, int nch, int npass, int guard) {
  dyiDecim* d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->nch = nch; d->npass = npass; d->K = f->K; d->D = f->D; d->gain2 = f->gain2;
  size_t L = (size_t)(2 * f->K + 1), rec = (size_t)(nch + npass);
  /* the delay line within its cap (and the slots it adds with it) */
  long Emax = DYI_DECIM_MAXRING / (long)(sizeof(double) * (rec > 0 ? rec : 1)) - DECIM_BLOCK;
  if (Emax < 0) Emax = 0;
  d->E = guard <= 0 ? 0 : guard < Emax ? guard : (int)Emax;
  d->lead = d->E;
  /* slots: the outputs that complete at a segment's end (its delayed
   * samples and a window) and the completed ones a caller may leave
   * waiting (DYI_DECIM_WAIT pushes feed at most one block: DECIM_BLOCK / D
   * + 1 outputs) */
  d->S = (2 * f->K + d->E) / f->D + 4 + 2 * DECIM_BLOCK + DYI_DECIM_WAIT;
  size_t S = (size_t)d->S;
  d->R = d->E + DECIM_BLOCK;
  d->Rc = d->R + 2 * f->K + f->D + 1;
  d->h = malloc(sizeof(double) * L);
  d->xs = malloc(sizeof(double*) * L);
  d->acc = malloc(sizeof(double) * S * (size_t)(nch > 0 ? nch : 1));
  d->pass = malloc(sizeof(double) * S * (size_t)(npass > 0 ? npass : 1));
  d->w1 = malloc(sizeof(double) * S);
  d->w2 = malloc(sizeof(double) * S);
  /* zeroed, and VEC_LANES values beyond the last record: the channels'
   * last vector may read past a record's channels (decim_dot) */
  d->ring = calloc((size_t)d->Rc * rec + VEC_LANES, sizeof(double));
  d->scratch = malloc(sizeof(double) * DYI_DECIM_WAIT * (rec > 0 ? rec : 1));
  if (!d->h || !d->xs || !d->acc || !d->pass || !d->w1 || !d->w2 || !d->ring || !d->scratch) {
    dyi_decim_free(d);
    return NULL;
  }
  memcpy(d->h, f->h, sizeof(double) * L);
  return d;
}

void dyi_decim_free(dyiDecim* d) {
  if (!d) return;
  free(d->h); free(d->xs); free(d->acc); free(d->pass); free(d->w1); free(d->w2); free(d->ring);
  free(d->scratch);
  free(d);
}

int dyi_decim_guard(const dyiDecim* d) { return d->E; }

long dyi_decim_size(const dyiDecim* d) {
  return (long)d->S * (d->nch + d->npass + 2) + 2 * (2 * d->K + 1) +
         (long)(d->Rc + DYI_DECIM_WAIT) * (d->nch + d->npass) + VEC_LANES;
}

/* a[c] = sum_j t[j] x_j[c] (c < n, j < nt, x_j = xs[j]) for nv vectors of
 * channels from c0 (nv a constant where it is inlined: the sums stay in
 * registers), each sum from 0 in the order of j, a multiply then an add
 * per term: the roundings of adding the window's samples one by one in
 * time order. The last vector reads up to 7 values past x_j[n - 1] (the
 * ring has them) and stores only its lanes below n. */
static inline __attribute__((always_inline)) void dot_vectors(double* restrict a, const double* const* xs,
                                                             const double* t, int nt, int n, int c0, int nv) {
  fvec v[4] = {{0}}, x;
  for (int j = 0; j < nt; j++) {
    const double* p = xs[j] + c0;
#pragma GCC unroll 4
    for (int u = 0; u < nv; u++) { VEC_LOAD(x, p + u * VEC_LANES); v[u] += t[j] * x; }
  }
#pragma GCC unroll 4
  for (int u = 0; u < nv; u++) VEC_STORE_N(a + c0 + u * VEC_LANES, v[u], n - c0 - u * VEC_LANES);
}

/* the window's sums for all n channels (dot_vectors): four vectors at a
 * time (independent sums while each waits on its add), then the two or
 * one left. Built for AVX-512, AVX2 and plain x86-64 (util.h DY_CLONES):
 * the same operations per element in each, no fused multiply-add
 * (-std=c11 keeps contraction off), so the results are bit for bit the
 * plain loop's. */
DY_CLONES
static void decim_dot(double* restrict a, const double* const* xs, const double* t, int nt, int n) {
  enum { V = VEC_LANES };
  int c = 0;
  for (; c + 3 * V < n; c += 4 * V) dot_vectors(a, xs, t, nt, n, c, 4);
  if (c + V < n) { dot_vectors(a, xs, t, nt, n, c, 2); c += 2 * V; }
  if (c < n) dot_vectors(a, xs, t, nt, n, c, 1);
}

/* Output m of the segment from its first kend samples (its window cut to
 * them and to the segment's start): its channels, centre values, sums of
 * taps and of their squares into its slot */
static void decim_out(dyiDecim* d, long m, long kend) {
  const long K = d->K, c = (m - d->m0) * d->D;
  const long a = c - K < 0 ? 0 : c - K, b = c + K < kend ? c + K : kend - 1;
  const int nt = (int)(b - a + 1);
  const size_t rec = (size_t)(d->nch + d->npass), s = (size_t)(m % d->S);
  const double* t = d->h + (a - c + K);
  long p = (d->seg0 + a) % d->Rc;
  double w1 = 0, w2 = 0;
  for (int j = 0; j < nt; j++) {
    d->xs[j] = d->ring + (size_t)p * rec;
    if (++p == d->Rc) p = 0;
    w1 += t[j]; w2 += t[j] * t[j];
  }
  decim_dot(d->acc + s * (size_t)d->nch, d->xs, t, nt, d->nch);
  d->w1[s] = w1; d->w2[s] = w2;
  if (d->npass)
    memcpy(d->pass + s * (size_t)d->npass, d->xs[c - a] + d->nch, sizeof(double) * (size_t)d->npass);
}

/* the oldest cnt delayed samples through the filter: the outputs whose
 * window they complete are computed */
static void ring_feed(dyiDecim* d, int cnt) {
  d->rn -= cnt;
  d->i += cnt;
  while ((d->done - d->m0) * d->D + d->K < d->i) { decim_out(d, d->done, d->i); d->done++; }
}

int dyi_decim_reserve(dyiDecim* d, int k, double** rec) {
  if (k < 0 || k > DYI_DECIM_WAIT) return -1;
  if (d->done - d->lo + DECIM_BLOCK / d->D + 2 > d->S) return -1;   /* a block might not find slots */
  const size_t r = (size_t)(d->nch + d->npass);
  /* the file's first E samples are left out: written to scratch */
  int skip = d->lead < k ? d->lead : k;
  for (int b = 0; b < skip; b++) rec[b] = d->scratch + (size_t)b * r;
  /* the rest delayed by E to E + DECIM_BLOCK - 1 samples: a full delay
   * sends its oldest through the filter */
  const int m = k - skip;
  if (d->rn + m > d->R) ring_feed(d, d->rn + m - d->R);
  for (int b = 0; b < m; b++) rec[skip + b] = d->ring + (size_t)((d->wpos + b) % d->Rc) * r;
  return 0;
}

void dyi_decim_commit(dyiDecim* d, int k) {
  int skip = d->lead < k ? d->lead : k;
  d->lead -= skip;
  d->rn += k - skip;
  d->wpos += k - skip;
}

int dyi_decim_push(dyiDecim* d, const double* x, const double* pass) {
  double* rec;
  if (dyi_decim_reserve(d, 1, &rec)) return -1;
  memcpy(rec, x, sizeof(double) * (size_t)d->nch);
  if (d->npass) memcpy(rec + d->nch, pass, sizeof(double) * (size_t)d->npass);
  dyi_decim_commit(d, 1);
  return 0;
}

void dyi_decim_end(dyiDecim* d, int file_end) {
  /* the delayed samples beyond the last E are data; the last E too unless
   * the segment ends a file */
  ring_feed(d, file_end ? (d->rn > d->E ? d->rn - d->E : 0) : d->rn);
  /* the outputs centred in the segment, their windows cut at its end */
  while (d->i > 0 && (d->done - d->m0) * d->D <= d->i - 1) { decim_out(d, d->done, d->i); d->done++; }
  d->rn = 0;
  d->lead = file_end ? d->E : 0;
  d->m0 = d->done;
  d->i = 0;
  d->seg0 = d->wpos;
}

int dyi_decim_pop(dyiDecim* d, double* y, double* pass, double* relvar) {
  if (d->lo >= d->done) return 0;
  size_t s = (size_t)(d->lo % d->S);
  const double* a = d->acc + s * (size_t)d->nch;
  double w = d->w1[s];
  if (w == 1) memcpy(y, a, sizeof(double) * (size_t)d->nch);   /* a / 1 is a, bit for bit: no division */
  else for (int c = 0; c < d->nch; c++) y[c] = a[c] / w;
  if (d->npass) memcpy(pass, d->pass + s * (size_t)d->npass, sizeof(double) * (size_t)d->npass);
  if (relvar) *relvar = d->w2[s] / (w * w) / d->gain2;
  d->lo++;
  return 1;
}

/* ------------------------------------------- the motion's own bandwidth */

struct dyiBand_ {
  int nch, deriv, ncand, ns;      /* channels, differences, candidates, 2*nsec */
  double fs;
  long count, skip;               /* samples pushed; left out at the start */
  long done;                      /* samples through the cascades (count less those pending) */
  int npend;                      /* samples pending: BAND_BATCH go through the cascades at once */
  double* V;                      /* their lanes' values: BAND_BATCH x P (lane k nch + c <- channel c) */
  dyiButter f[DYI_BAND_MAXC];
  long d[DYI_BAND_MAXC];          /* each candidate's delay [samples] */
  long L[DYI_BAND_MAXC];          /* its delay line: d[0] - d[k] squares held back */
  size_t roff[DYI_BAND_MAXC];     /* where its delay line starts in ring (x nch) */
  int E;                          /* lanes: ncand x nch, lane k nch + c for candidate k, channel c */
  int P;                          /* E rounded up to BAND_LANES: the stride of the rows below (the
                                     lanes from E on have zero coefficients and inputs) */
  double* cf;                     /* each lane's section coefficients: nsec x 5 x P
                                     (b0 b1 b2 a1 a2 of section i at (5 i + m) P) */
  double* z;                      /* states: 2 passes x ns x P (section i's two at rows 2i, 2i + 1) */
  double* y;                      /* two past outputs: 2 x P */
  double* e;                      /* sums of squares: E */
  double* ring;                   /* the delay lines: sum_k L[k] x nch */
  /* the channels' white-noise level, from their fourth differences */
  double* hx;                     /* last five raw values: 5 x nch, sample i in row i mod 5 */
  double* bsum;                   /* the current block's sum of squares: nch */
  int* hist;                      /* block mean squares, log-binned: nch x BAND_NBIN */
  double wn[DYI_BAND_MAXC];       /* unit white noise at each candidate: its mean square */
};

#define BAND_RING_MAXBYTES (32L << 20)   /* the delay lines at most */
#define BAND_LANES VEC_LANES             /* lanes a vector of the cascade holds */
#define BAND_BATCH 64                    /* samples through the cascades at once */

/* the noise meter: fourth differences of each raw channel (white noise of
 * variance s2 gives 70 s2, a smooth motion next to nothing), their mean
 * square per block of BAND_BLOCK samples, binned by log10 in steps of
 * 1/BAND_BPD decade from 1e-40: the median block, robust to the few
 * blocks that hold a jerk step or a bad sample */
#define BAND_BLOCK 64
#define BAND_BPD 20
#define BAND_NBIN 1400
#define BAND_LOG0 (-40.0)

/* (1/pi) int_0^pi |H(w)|^4 (2 - 2 cos w)^deriv dw: the mean square of unit
 * white noise through f twice and deriv differences (midpoint rule on
 * 4000 points: the integrand is smooth, the error far below the factor
 * 5.7 between candidates that the cutoff rule resolves) */
#define WHITE_M 4000

/* at the points w_i = pi (i + 1/2) / WHITE_M: tan(w_i / 2) into tw and
 * (2 - 2 cos w_i)^deriv into dk, the same for every candidate */
static void white_points(int deriv, double* tw, double* dk) {
  for (int i = 0; i < WHITE_M; i++) {
    double w = M_PI * (i + 0.5) / WHITE_M;
    tw[i] = tan(w / 2);
    dk[i] = pow(2 - 2 * cos(w), deriv);
  }
}

static double white_ms(const dyiButter* f, const double* tw, const double* dk) {
  double t = tan(M_PI * f->fc / f->fs), s = 0;
  for (int i = 0; i < WHITE_M; i++) {
    double h2 = 1 / (1 + pow(tw[i] / t, 2 * f->order));
    s += h2 * h2 * dk[i];
  }
  return s / WHITE_M;
}

/* The delay at zero frequency of f run twice [samples]: each section
 * B(z)/A(z) delays by sum(i b_i)/sum(b_i) - sum(i a_i)/sum(a_i). */
static double butter_delay2(const dyiButter* f) {
  double d = 0;
  for (int s = 0; s < f->nsec; s++) {
    const double *b = f->b[s], *a = f->a[s];
    d += (b[1] + 2*b[2]) / (b[0] + b[1] + b[2]) - (a[1] + 2*a[2]) / (a[0] + a[1] + a[2]);
  }
  return 2 * d;
}

dyiBand* dyi_band_make(int nch, int deriv, double fs, double f0, double fmax, int order) {
  if (nch < 1 || deriv < 0 || deriv > 2 || !(fs > 0) || !(f0 > 0) || order < 1 || order > 2*DYI_MAXSEC)
    return NULL;
  dyiBand* b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->nch = nch; b->deriv = deriv; b->fs = fs;
  double top = fmin(fmax, 0.45 * fs);
  for (int k = 0; k < DYI_BAND_MAXC; k++) {
    double fc = f0 * pow(2.0, 0.5 * k);      /* exact at even k */
    if (!(fc <= top * (1 + 1e-9)) || dyi_butter_design(&b->f[k], order, fc, fs)) break;
    b->ncand = k + 1;
  }
  b->ns = 2 * b->f[0].nsec;
  size_t nz = (size_t)b->ncand * nch, nring = 0;
  for (int k = 0; k < b->ncand; k++) b->d[k] = lround(butter_delay2(&b->f[k]));
  for (int k = 0; k < b->ncand; k++) {
    b->L[k] = b->d[0] > b->d[k] ? b->d[0] - b->d[k] : 0;
    b->roff[k] = nring;
    nring += (size_t)b->L[k] * (size_t)nch;
  }
  if (nring * sizeof(double) > BAND_RING_MAXBYTES) {   /* a rate far above the candidates: sums unaligned at the end */
    for (int k = 0; k < b->ncand; k++) b->L[k] = 0;
    nring = 0;
  }
  b->E = (int)nz;
  const size_t P = (nz + BAND_LANES - 1) / BAND_LANES * BAND_LANES;
  b->P = (int)P;
  b->cf = calloc(5 * (size_t)b->f[0].nsec * (P ? P : 1), sizeof(double));
  b->z = calloc(P * 2 * (size_t)b->ns + 1, sizeof(double));
  b->y = calloc(P * 2 + 1, sizeof(double));
  b->e = calloc(nz + BAND_LANES, sizeof(double));   /* room past the end: band_sums */
  b->V = calloc(P * BAND_BATCH + BAND_LANES, sizeof(double));
  b->ring = calloc(nring + BAND_LANES, sizeof(double));
  b->hx = calloc((size_t)nch * 5, sizeof(double));
  b->bsum = calloc((size_t)nch, sizeof(double));
  b->hist = calloc((size_t)nch * BAND_NBIN, sizeof(int));
  double* tw = malloc(2 * WHITE_M * sizeof(double));
  if (!tw || !b->ncand || !b->cf || !b->z || !b->y || !b->e || !b->V || !b->ring || !b->hx || !b->bsum ||
      !b->hist) {
    free(tw);
    dyi_band_free(b);
    return NULL;
  }
  for (int i = 0; i < b->f[0].nsec; i++)
    for (size_t l = 0; l < nz; l++) {
      const dyiButter* f = &b->f[l / (size_t)nch];
      const double c[5] = {f->b[i][0], f->b[i][1], f->b[i][2], f->a[i][1], f->a[i][2]};
      for (int m = 0; m < 5; m++) b->cf[(size_t)(5 * i + m) * P + l] = c[m];
    }
  white_points(deriv, tw, tw + WHITE_M);
  for (int k = 0; k < b->ncand; k++) b->wn[k] = white_ms(&b->f[k], tw, tw + WHITE_M);
  free(tw);
  /* the lowest candidate's edge transient, both passes, and the differences */
  b->skip = 2L * dyi_butter_settle(&b->f[0], 1e-3) + deriv;
  return b;
}

void dyi_band_free(dyiBand* b) {
  if (!b) return;
  free(b->cf); free(b->z); free(b->y); free(b->e); free(b->V); free(b->ring);
  free(b->hx); free(b->bsum); free(b->hist);
  free(b);
}

/* the noise meter's part of a push: x's fourth difference into the block */
static void band_noise(dyiBand* b, const double* x) {
  const size_t nch = (size_t)b->nch;
  const long k = b->count;   /* x is sample k, kept in row k mod 5 */
  double* h4 = b->hx + (size_t)(k % 5) * nch;
  memcpy(h4, x, sizeof(double) * nch);
  if (k < 4) return;
  const double *h0 = b->hx + (size_t)((k + 1) % 5) * nch, *h1 = b->hx + (size_t)((k + 2) % 5) * nch;
  const double *h2 = b->hx + (size_t)((k + 3) % 5) * nch, *h3 = b->hx + (size_t)((k + 4) % 5) * nch;
  for (size_t c = 0; c < nch; c++) {
    const double d4 = h0[c] - 4*h1[c] + 6*h2[c] - 4*h3[c] + h4[c];
    b->bsum[c] += d4 * d4;
  }
  if ((k - 3) % BAND_BLOCK) return;
  for (int c = 0; c < b->nch; c++) {
    double ms = b->bsum[c] / BAND_BLOCK;
    int bin = ms > 0 ? (int)floor((log10(ms) - BAND_LOG0) * BAND_BPD) : 0;
    b->hist[(size_t)c * BAND_NBIN + (bin < 0 ? 0 : bin >= BAND_NBIN ? BAND_NBIN - 1 : bin)]++;
    b->bsum[c] = 0;
  }
}

/* The pending samples through every lane's cascade, both passes: V (S
 * rows of P lanes) in place, states z (2 passes x ns rows of P). Each lane
 * takes butter_step's operations in its order, sample after sample, so
 * its outputs are butter_step's bit for bit; the lanes are independent.
 * A vector of BAND_LANES lanes keeps its coefficients and states in
 * registers through the S samples (with the usual 2 sections, order 4:
 * the loads of a per-sample pass over the lanes were the cost), built
 * per vector width (util.h DY_CLONES). */
DY_CLONES
static void band_cascade2(const double* restrict cf, double* restrict z, double* restrict V, size_t P, int S) {
  for (size_t l0 = 0; l0 < P; l0 += BAND_LANES) {
    const double* c = cf + l0;
    double* zz = z + l0;
    fvec b0, b1, b2, a1, a2, d0, d1, d2, e1, e2, p0, p1, q0, q1, r0, r1, t0, t1;
    VEC_LOAD(b0, c); VEC_LOAD(b1, c + P); VEC_LOAD(b2, c + 2 * P); VEC_LOAD(a1, c + 3 * P); VEC_LOAD(a2, c + 4 * P);
    VEC_LOAD(d0, c + 5 * P); VEC_LOAD(d1, c + 6 * P); VEC_LOAD(d2, c + 7 * P); VEC_LOAD(e1, c + 8 * P);
    VEC_LOAD(e2, c + 9 * P);
    VEC_LOAD(p0, zz); VEC_LOAD(p1, zz + P); VEC_LOAD(q0, zz + 2 * P); VEC_LOAD(q1, zz + 3 * P);
    VEC_LOAD(r0, zz + 4 * P); VEC_LOAD(r1, zz + 5 * P); VEC_LOAD(t0, zz + 6 * P); VEC_LOAD(t1, zz + 7 * P);
    for (int s = 0; s < S; s++) {
      double* v = V + (size_t)s * P + l0;
      fvec x, y;
      VEC_LOAD(x, v);
      /* pass 1, section 0 (b, a) then 1 (d, e); pass 2 the same */
      y = b0 * x + p0; p0 = b1 * x - a1 * y + p1; p1 = b2 * x - a2 * y; x = y;
      y = d0 * x + q0; q0 = d1 * x - e1 * y + q1; q1 = d2 * x - e2 * y; x = y;
      y = b0 * x + r0; r0 = b1 * x - a1 * y + r1; r1 = b2 * x - a2 * y; x = y;
      y = d0 * x + t0; t0 = d1 * x - e1 * y + t1; t1 = d2 * x - e2 * y; x = y;
      VEC_STORE(v, x);
    }
    VEC_STORE(zz, p0); VEC_STORE(zz + P, p1); VEC_STORE(zz + 2 * P, q0); VEC_STORE(zz + 3 * P, q1);
    VEC_STORE(zz + 4 * P, r0); VEC_STORE(zz + 5 * P, r1); VEC_STORE(zz + 6 * P, t0); VEC_STORE(zz + 7 * P, t1);
  }
}

/* the same for any number of sections, a sample at a time over the lanes */
DY_CLONES DY_VECTORIZE
static void band_cascade(const double* restrict cf, int nsec, double* restrict z, double* restrict V, size_t P,
                         int S) {
  for (int s = 0; s < S; s++) {
    double* restrict x = V + (size_t)s * P;
    for (int i = 0; i < 2 * nsec; i++) {   /* pass 1's sections, then pass 2's */
      const double* restrict b0 = cf + (size_t)(5 * (i % nsec)) * P;
      const double *restrict b1 = b0 + P, *restrict b2 = b1 + P, *restrict a1 = b2 + P, *restrict a2 = a1 + P;
      double* restrict z0 = z + (size_t)(2 * i) * P;
      double* restrict z1 = z0 + P;
      for (size_t l = 0; l < P; l++) {
        const double xl = x[l], y = b0[l]*xl + z0[l];
        z0[l] = b1[l]*xl - a1[l]*y + z1[l];
        z1[l] = b2[l]*xl - a2[l]*y;
        x[l] = y;
      }
    }
  }
}

/* every lane's difference of order deriv of its output v (past outputs
 * y0, y1, shifted), scaled by s and squared into v in place (a s a s, in
 * that order) */
DY_CLONES DY_VECTORIZE
static void band_diff(int deriv, double s, double* restrict v, double* restrict y0, double* restrict y1, int P) {
  for (int l = 0; l < P; l++) {
    const double x = v[l], a = deriv == 2 ? x - 2*y1[l] + y0[l] : deriv == 1 ? x - y1[l] : x;
    y0[l] = y1[l]; y1[l] = x;
    v[l] = a * s * a * s;
  }
}

/* candidate k's squares of the block (rows t0..S-1 of V at lanes k nch..,
 * stride P; row t is its sample n0 + t) into its sums e (nch), each sum in
 * time order: through its delay line of L samples (line, L x nch) when it
 * has one, the squares of L samples ago entering the sum. The channels
 * BAND_LANES at a time, their sums in one vector through the block (the
 * arrays have BAND_LANES doubles of room past their end for its loads);
 * built per vector width (util.h DY_CLONES). */
DY_CLONES
static void band_sums(const double* V, size_t P, int t0, int S, long n0, int nch, long L, double* line,
                      double* e) {
  for (int c0 = 0; c0 < nch; c0 += BAND_LANES) {
    const int m = nch - c0 < BAND_LANES ? nch - c0 : BAND_LANES;
    long pos = L > 0 ? (n0 + t0) % L : 0;
    fvec acc, x;
    VEC_LOAD(acc, e + c0);
    for (int t = t0; t < S; t++) {
      const double* a2 = V + (size_t)t * P + c0;
      if (L <= 0) { VEC_LOAD(x, a2); acc += x; continue; }
      double* l = line + (size_t)pos * (size_t)nch + c0;
      if (n0 + t >= L) { VEC_LOAD(x, l); acc += x; }
      for (int c = 0; c < m; c++) l[c] = a2[c];
      if (++pos == L) pos = 0;
    }
    VEC_STORE_N(e + c0, acc, m);
  }
}

/* the states of both passes of every lane at the steady state of the
 * first values x (nch) */
static void band_start(dyiBand* b, const double* x) {
  const size_t E = (size_t)b->E, P = (size_t)b->P, nch = (size_t)b->nch, ns = (size_t)b->ns;
  for (size_t l = 0; l < E; l++) {
    double s[2 * DYI_MAXSEC];
    dyi_butter_steady(&b->f[l / nch], s, x[l % nch]);
    for (size_t p = 0; p < 2; p++)
      for (size_t i = 0; i < ns; i++) b->z[(p * ns + i) * P + l] = s[i];
    b->y[l] = b->y[P + l] = x[l % nch];
  }
}

/* the pending samples through the cascades, then into every candidate's
 * sums in time order */
static void band_flush(dyiBand* b) {
  const int nch = b->nch, nsec = b->ns / 2, S = b->npend;
  const size_t P = (size_t)b->P;
  if (!S) return;
  if (nsec == 2) band_cascade2(b->cf, b->z, b->V, P, S);
  else band_cascade(b->cf, nsec, b->z, b->V, P, S);
  const double s = b->deriv == 2 ? b->fs * b->fs : b->deriv == 1 ? b->fs : 1;
  for (int t = 0; t < S; t++) band_diff(b->deriv, s, b->V + (size_t)t * P, b->y, b->y + P, b->P);
  for (int k = 0; k < b->ncand; k++) {
    /* candidate k's output shows the input of d[k] samples ago: it counts
     * from skip + d[k] on, and its last L[k] = d[0] - d[k] squares wait in
     * its delay line, so that every candidate's sum covers the same input
     * samples whenever the log ends */
    const long n0 = b->done - b->skip - b->d[k];
    const int t0 = n0 >= 0 ? 0 : -n0 < S ? (int)-n0 : S;
    band_sums(b->V + (size_t)k * (size_t)nch, P, t0, S, n0, nch, b->L[k], b->ring + b->roff[k],
              b->e + (size_t)k * (size_t)nch);
  }
  b->done += S;
  b->npend = 0;
}

void dyi_band_push(dyiBand* b, const double* x) {
  const int nch = b->nch;
  band_noise(b, x);
  if (b->count == 0) band_start(b, x);   /* from the steady state of the first value */
  double* v = b->V + (size_t)b->npend * (size_t)b->P;
  for (int k = 0; k < b->ncand; k++) memcpy(v + (size_t)k * (size_t)nch, x, sizeof(double) * (size_t)nch);
  b->count++;
  if (++b->npend == BAND_BATCH) band_flush(b);
}

int dyi_band_energy(dyiBand* b, double* fc, double* e) {
  band_flush(b);
  if (b->count <= b->skip + b->d[0]) return 0;
  int nch = b->nch;
  for (int k = 0; k < b->ncand; k++) {
    if (fc) fc[k] = b->f[k].fc;
    double sum = 0;
    for (int c = 0; c < nch; c++) {
      double e0 = b->e[c];
      if (e0 > 0) sum += b->e[(size_t)k * nch + c] / e0;
    }
    if (e) e[k] = sum;
  }
  return b->ncand;
}

/* channel c's white-noise variance from the median block of its fourth
 * differences (70 s2 for white noise); -1 when fewer than 8 blocks */
static int band_noise_var(const dyiBand* b, int c, double* s2) {
  const int* h = b->hist + (size_t)c * BAND_NBIN;
  long tot = 0, run = 0;
  for (int i = 0; i < BAND_NBIN; i++) tot += h[i];
  if (tot < 8) return -1;
  int i = 0;
  while (i < BAND_NBIN - 1 && 2 * (run + h[i]) < tot) run += h[i++];
  *s2 = i == 0 ? 0 : pow(10, BAND_LOG0 + (i + 0.5) / BAND_BPD) / 70;
  return 0;
}

/* the knee rule (a log too short for the noise meter): the least growth
 * from one candidate to the next, then up while within (1 + tol) of it */
static double band_knee(const double* fc, const double* e, int nc, double tol) {
  int km = 0;
  for (int k = 1; k < nc - 1; k++)
    if (e[k + 1] / e[k] < e[km + 1] / e[km]) km = k;
  int kc = km;
  while (kc + 1 < nc && e[kc + 1] <= (1 + tol) * e[km]) kc++;
  return fc[kc];
}

/* 1 if at candidate k every moving channel's noise P = s2 fs^(2 deriv)
 * wn[k] is within tol of its motion (its mean square less P); a channel
 * does not move when its mean square at the lowest candidate (motion
 * only, as a rule) is below 1e-12 of the largest or its motion there
 * below 100 times its noise there (a joint at rest, its sensor's noise
 * alone: it would pull every joint's cutoff down to f0); -1: too few
 * blocks for the noise */
static int band_quiet(const dyiBand* b, int k, double tol) {
  double n = (double)(b->count - b->skip - b->d[0]), g = pow(b->fs, 2 * b->deriv), top = 0;
  for (int c = 0; c < b->nch; c++) top = fmax(top, b->e[c]);
  for (int c = 0; c < b->nch; c++) {
    double s2;
    if (band_noise_var(b, c, &s2)) return -1;
    double P0 = s2 * g * b->wn[0];
    if (!(b->e[c] > 1e-12 * top) || !(b->e[c] / n - P0 > 100 * P0)) continue;
    double P = s2 * g * b->wn[k], M = b->e[(size_t)k * b->nch + c] / n - P;
    if (!(P <= tol * M)) return 0;
  }
  return 1;
}

double dyi_band_cutoff(dyiBand* b, double tol) {
  double fc[DYI_BAND_MAXC], e[DYI_BAND_MAXC];
  int nc = dyi_band_energy(b, fc, e);
  if (nc == 0) return 0;
  if (nc == 1 || !(e[nc - 1] > 0)) return fc[nc - 1];
  if (band_quiet(b, 0, tol) < 0) return band_knee(fc, e, nc, tol);   /* too few blocks */
  int kc = 0;
  while (kc + 1 < nc && band_quiet(b, kc + 1, tol) == 1) kc++;
  return fc[kc];
}
