/* dynid ident: zero-phase low-pass filtering in bounded memory.
 *
 * A Butterworth low-pass of order N is designed by the bilinear transform
 * with pre-warping, as second-order sections (SOS) in transposed direct
 * form II. Zero phase comes from running it forward then backward
 * ("filtfilt"): magnitude |H|^2 = 1 / (1 + (tan(pi f/fs) / tan(pi fc/fs))^(2N)),
 * phase 0, so q, qd, qdd and the torque filtered in parallel keep their time
 * alignment.
 *
 * Bounded memory (dyiZpf): the forward pass is causal and streams. The
 * backward pass needs the future; it is run over blocks of B samples plus a
 * margin of M later samples, started from the steady state of the last
 * sample of the margin. The error of that start is a homogeneous response
 * of the filter, which decays like rho^m, rho the largest pole modulus; with
 *     M = ceil( ln(eps (1 - rho)) / ln(rho) ),   eps = 2^-53,
 * it has fallen below round-off (the factor 1 - rho bounds the mode gain
 * 1 / (1 - rho) of the start error) before the block's first output. Both
 * ends are extended by odd reflection over P = min(M, N - 1) samples (value
 * and slope continuous at the edge, ramps kept exactly) and the filter
 * starts from the steady state of the first extended sample, the same
 * convention as scipy.signal.filtfilt with padtype "odd" and a longer pad.
 * The result equals a whole-signal filtfilt with that convention to
 * round-off; memory is (B + 2M) x channels doubles, whatever the length.  */
#ifndef DYNID_FILTER_H
#define DYNID_FILTER_H

#define DYI_MAXSEC 8              /* up to order 16 */

typedef struct {
  int order;                      /* Butterworth order N */
  int nsec;                       /* second-order sections (N+1)/2 */
  double b[DYI_MAXSEC][3];        /* numerators b0 b1 b2 (nsec) */
  double a[DYI_MAXSEC][3];        /* denominators 1 a1 a2 (nsec) */
  double rho;                     /* largest pole modulus (< 1) */
  double fc, fs;                  /* cutoff and sample rate [Hz] */
} dyiButter;

/* Design a low-pass of order 1..2*DYI_MAXSEC with cutoff fc (-3 dB of the
 * single pass, -6 dB of filtfilt) for sample rate fs, 0 < fc < fs/2.
 * 0, or -1 on bad arguments. */
int dyi_butter_design(dyiButter* f, int order, double fc, double fs);

/* Samples for the start error of a pass to decay below round-off (see top). */
int dyi_butter_margin(const dyiButter* f);

/* State z (2*nsec) for the steady response to a constant input x0. */
void dyi_butter_steady(const dyiButter* f, double* z, double x0);

/* One filter step: returns y, updates z (2*nsec). */
double dyi_butter_step(const dyiButter* f, double* z, double x);

/* Zero-phase filter of nch channels in lock step, with npass pass-through
 * values per sample (row numbers, raw torque, ...) delayed alike. */
typedef struct dyiZpf_ dyiZpf;

/* block: samples emitted per backward pass (0: 4 * margin, at least 1024).
 * NULL when out of memory. */
dyiZpf* dyi_zpf_new(const dyiButter* f, int nch, int npass, int block);
void dyi_zpf_free(dyiZpf* z);

/* Append one sample x[nch] (and pass[npass]). Returns 0, or -1 when
 * filtered samples are still waiting: dyi_zpf_pop them first. */
int dyi_zpf_push(dyiZpf* z, const double* x, const double* pass);

/* End of input: filter what remains (the right edge). 0, or -1 when
 * filtered samples are still waiting (pop them first). */
int dyi_zpf_finish(dyiZpf* z);

/* Next filtered sample into y[nch] and pass[npass]: 1, or 0 when none is
 * ready (push more, or after finish: the end). */
int dyi_zpf_pop(dyiZpf* z, double* y, double* pass);

/* Samples held (for the memory bound): capacity of the buffers. */
long dyi_zpf_capacity(const dyiZpf* z);

#endif
