/* dynid ident: Butterworth design and the block zero-phase filter
 * (see filter.h for the margin rule and the edge convention). */
#include "filter.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  return 0;
}

int dyi_butter_margin(const dyiButter* f) {
  double rho = f->rho;
  if (rho <= 0) return 1;
  if (rho >= 1) return 1 << 24;
  double m = ceil(log(0x1p-53 * (1.0 - rho)) / log(rho));
  return m > (1 << 24) ? (1 << 24) : (int)m + 1;
}

void dyi_butter_steady(const dyiButter* f, double* z, double x0) {
  /* each section has DC gain 1: y = x0, z1 = (1 - b0) x0, z2 = (b2 - a2) x0 */
  for (int i = 0; i < f->nsec; i++) {
    z[2*i]   = (1.0 - f->b[i][0]) * x0;
    z[2*i+1] = (f->b[i][2] - f->a[i][2]) * x0;
  }
}

double dyi_butter_step(const dyiButter* f, double* z, double x) {
  /* transposed direct form II, section by section */
  for (int i = 0; i < f->nsec; i++) {
    const double* b = f->b[i]; const double* a = f->a[i];
    double y = b[0]*x + z[2*i];
    z[2*i]   = b[1]*x - a[1]*y + z[2*i+1];
    z[2*i+1] = b[2]*x - a[2]*y;
    x = y;
  }
  return x;
}

/* ------------------------------------------------------------ block filter */

struct dyiZpf_ {
  dyiButter f;
  int nch, npass, ns;   /* channels, pass-through values, 2*nsec */
  int M, B;             /* margin, block */
  long cap;             /* B + M + 1 samples */
  double *X, *Y, *PS;   /* input, forward output, pass-through (cap x ...) */
  double *R;            /* right-edge forward output (M x nch) */
  double *O, *OP;       /* emitted samples (cap x nch, cap x npass) */
  double *zf, *zb;      /* forward / backward states (nch x ns) */
  long len;             /* samples in X (index 0 = oldest not emitted) */
  long total;           /* samples pushed */
  long outn, outi;      /* emitted, popped */
  int started, finished;
};

dyiZpf* dyi_zpf_new(const dyiButter* f, int nch, int npass, int block) {
  dyiZpf* z = calloc(1, sizeof *z);
  if (!z) return NULL;
  z->f = *f; z->nch = nch; z->npass = npass; z->ns = 2*f->nsec;
  z->M = dyi_butter_margin(f);
  z->B = block > 0 ? block : (4*z->M > 1024 ? 4*z->M : 1024);
  z->cap = (long)z->B + z->M + 1;
  size_t c = (size_t)z->cap, k = (size_t)nch, p = (size_t)(npass > 0 ? npass : 1);
  z->X = malloc(c*k*sizeof(double)); z->Y = malloc(c*k*sizeof(double));
  z->PS = malloc(c*p*sizeof(double)); z->R = malloc((size_t)z->M*k*sizeof(double));
  z->O = malloc(c*k*sizeof(double)); z->OP = malloc(c*p*sizeof(double));
  z->zf = malloc(k*(size_t)z->ns*sizeof(double)); z->zb = malloc(k*(size_t)z->ns*sizeof(double));
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

/* forward start: left odd extension over P samples, then X[0..len) -> Y */
static void start(dyiZpf* z, int P) {
  int nch = z->nch;
  for (int c = 0; c < nch; c++) {
    double* s = z->zf + (size_t)c*z->ns;
    double x0 = z->X[c];
    dyi_butter_steady(&z->f, s, 2*x0 - z->X[(size_t)P*nch + c]);
    for (int i = 0; i < P; i++) dyi_butter_step(&z->f, s, 2*x0 - z->X[(size_t)(P - i)*nch + c]);
    for (long k = 0; k < z->len; k++)
      z->Y[k*nch + c] = dyi_butter_step(&z->f, s, z->X[k*nch + c]);
  }
  z->started = 1;
}

/* backward pass from the newest sample (after nr right-edge samples in R)
 * down to index 0; emit indices [0, E) into O, drop them from the buffer */
static void backward(dyiZpf* z, long E, int nr) {
  int nch = z->nch;
  for (int c = 0; c < nch; c++) {
    double* s = z->zb + (size_t)c*z->ns;
    double first = nr ? z->R[(size_t)(nr - 1)*nch + c] : z->Y[(z->len - 1)*nch + c];
    dyi_butter_steady(&z->f, s, first);
    for (int i = nr - 1; i >= 0; i--) dyi_butter_step(&z->f, s, z->R[(size_t)i*nch + c]);
    for (long k = z->len - 1; k >= 0; k--) {
      double y = dyi_butter_step(&z->f, s, z->Y[k*nch + c]);
      if (k < E) z->O[k*nch + c] = y;
    }
  }
  if (z->npass) memcpy(z->OP, z->PS, (size_t)E*z->npass*sizeof(double));
  z->outn = E; z->outi = 0;
  long rest = z->len - E;
  memmove(z->X, z->X + E*nch, (size_t)rest*nch*sizeof(double));
  memmove(z->Y, z->Y + E*nch, (size_t)rest*nch*sizeof(double));
  if (z->npass) memmove(z->PS, z->PS + E*z->npass, (size_t)rest*z->npass*sizeof(double));
  z->len = rest;
}

int dyi_zpf_push(dyiZpf* z, const double* x, const double* pass) {
  if (z->outi < z->outn || z->finished) return -1;
  int nch = z->nch;
  memcpy(z->X + z->len*nch, x, (size_t)nch*sizeof(double));
  if (z->npass) memcpy(z->PS + z->len*z->npass, pass, (size_t)z->npass*sizeof(double));
  z->len++; z->total++;
  if (!z->started) {
    if (z->len == z->M + 1) start(z, z->M);
  } else {
    long k = z->len - 1;
    for (int c = 0; c < nch; c++)
      z->Y[k*nch + c] = dyi_butter_step(&z->f, z->zf + (size_t)c*z->ns, x[c]);
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
  int nch = z->nch;
  for (int c = 0; c < nch; c++) {
    double* s = z->zf + (size_t)c*z->ns;
    double xe = z->X[(z->len - 1)*nch + c];
    for (long i = 0; i < P; i++)
      z->R[i*nch + c] = dyi_butter_step(&z->f, s, 2*xe - z->X[(z->len - 2 - i)*nch + c]);
  }
  backward(z, z->len, (int)P);
  return 0;
}

int dyi_zpf_pop(dyiZpf* z, double* y, double* pass) {
  if (z->outi >= z->outn) return 0;
  memcpy(y, z->O + z->outi*z->nch, (size_t)z->nch*sizeof(double));
  if (z->npass) memcpy(pass, z->OP + z->outi*z->npass, (size_t)z->npass*sizeof(double));
  z->outi++;
  return 1;
}
