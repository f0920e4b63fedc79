/* SPDX-License-Identifier: MIT */
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
 * round-off; memory is (B + 2M) x channels doubles (the channels rounded up
 * to whole vectors of 8), whatever the length.  */
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

/* Samples for a start error to decay below tol (relative): the length of
 * the edge transient of a zero-phase pass, at that tolerance. */
int dyi_butter_settle(const dyiButter* f, double tol);

/* State z (2*nsec) for the steady response to a constant input x0. */
void dyi_butter_steady(const dyiButter* f, double* z, double x0);

/* One filter step: returns y, updates z (2*nsec). */
double dyi_butter_step(const dyiButter* f, double* z, double x);

/* Zero-phase filter of nch channels in lock step, with npass pass-through
 * values per sample (row numbers, raw torque, ...) delayed alike. */
typedef struct dyiZpf_ dyiZpf;

/* Memory cap of one filter with an automatic block: its buffers hold at
 * most this many bytes (a cutoff that is a tiny fraction of the sample
 * rate has a margin M of millions of samples: see dyi_zpf_bytes). */
#define DYI_ZPF_MAXBYTES (64L << 20)

/* The block an automatic filter (block 0) takes for nch channels and npass
 * pass-through values: 4 margins (at least 1024), or less to stay within
 * DYI_ZPF_MAXBYTES, down to a quarter margin (the backward pass then runs
 * over up to 5 times the samples it emits). 0 when even that does not fit:
 * the cutoff is too small a fraction of the sample rate. *bytes (may be
 * NULL) receives the buffers' size at that block, or at the smallest one
 * when it does not fit. */
long dyi_zpf_block(const dyiButter* f, int nch, int npass, double* bytes);

/* block: samples emitted per backward pass (0: dyi_zpf_block). NULL when
 * out of memory, or when an automatic block does not fit its cap. */
dyiZpf* dyi_zpf_make(const dyiButter* f, int nch, int npass, int block);
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

/* ------------------------------------------- decimating zero-phase FIR
 * Parallel filtering (Gautier 1997; Gautier & Khalil): the torque and every
 * column of the regressor pass through the same low-pass, then both are
 * decimated. Any linear filter applied alike to both keeps tau = Y beta
 * exactly (also the nonlinear columns: sign(qd), velocity products); the
 * filter only has to remove the noise above the decimated band.
 *
 * Design: a Kaiser-windowed sinc, symmetric (zero phase: output m is
 * centred on input sample m D), 2K + 1 taps, stopband from fstop (the
 * decimated Nyquist frequency fs / (2 D), so nothing aliases into the
 * band) at 60 dB, passband up to 0.4 fstop flat to 1e-3, DC gain 1:
 *     K = ceil((A - 8) / (2 * 2.285 * 2 pi (fstop - fpass) / fs)), A = 60.
 * Streaming: the last 2K + D samples are kept (with a delay line of guard
 * samples, below) and each output is computed once its window is
 * complete, y_m = sum_k h_k x_(mD+k), summed in time order: memory
 * (2K + guard + D + 9) x channels doubles, the work (2K + 1) / D
 * multiply-adds per channel and input sample, the window's samples read
 * from cache once per output instead of an accumulator per output read
 * and written once per sample (2e5 samples of 197 channels at D = 2, 27
 * taps: 66 -> 48 ms).
 * At the ends of a segment (a log, or a stretch between held-out blocks)
 * the window is truncated to the samples present and renormalised to DC
 * gain 1: still one linear filter for torque and columns, no data made up
 * beyond the ends, and no filter runs across a segment boundary.
 *
 * Noise: white noise of variance s2 at the input gives outputs of variance
 * s2 sum h^2 but, in the decimated stream, a spectrum s2 / D at the low
 * frequencies where the regressor lives. Standard deviations from the
 * residual variance are therefore scaled by 1 / (D sum h^2)
 * (dyi_fir_var_factor; ~1.6 with these edges: std x ~1.25). An output with a truncated
 * window has variance (sum_used h^2) / (sum_used h)^2: dyi_decim_pop gives
 * it relative to an interior output, for weighting. */
typedef struct {
  int K, D;                       /* half length (taps h[0..2K], centre h[K]), decimation */
  double fs, fpass, fstop;        /* [Hz] */
  double gain2;                   /* sum h^2 */
  double* h;                      /* (2K + 1) taps, sum 1 */
} dyiFir;

/* Design for sample rate fs, decimation D >= 1 and stopband edge fstop
 * (<= fs / (2 D); <= 0: no filter, K = 0: plain decimation). 0, or -1 (bad
 * arguments, or more than 2^20 taps, or out of memory). */
int dyi_fir_design(dyiFir* f, double fs, double fstop, int D);
void dyi_fir_free(dyiFir* f);
/* 1 / (D sum h^2): residual variance -> white-equivalent variance (1 for
 * K = 0, D = 1) */
double dyi_fir_var_factor(const dyiFir* f);

typedef struct dyiDecim_ dyiDecim;
/* nch filtered channels and npass values passed through from the centre
 * sample of each output. guard: samples left out at each end of a file
 * (where the signals' own zero-phase filter has its edge transient: q,
 * and above all the qd, qdd differenced from it, are distorted there); the
 * last guard samples are held in a delay line until the filter knows they
 * are not the file's last. The delay line holds at most DYI_DECIM_MAXRING
 * bytes: a longer guard is shortened to fit (dyi_decim_guard), so a few
 * edge samples with a transient above the guard's tolerance may enter.
 * The filter keeps a copy of the taps. NULL when out of memory. */
#define DYI_DECIM_MAXRING (32L << 20)
dyiDecim* dyi_decim_make(const dyiFir* f, int nch, int npass, int guard);
void dyi_decim_free(dyiDecim* d);
/* Append one sample: 0, or -1 when the completed outputs waiting leave no
 * room (pop them first; the sample is not taken). Samples enter the filter
 * proper in blocks of 8 after the guard's delay, so outputs complete a
 * few samples later than their last input; dyi_decim_end completes them.
 * A caller may push DYI_DECIM_WAIT samples between pops whatever the
 * decimation. */
#define DYI_DECIM_WAIT 8
int dyi_decim_push(dyiDecim* d, const double* x, const double* pass);
/* The same without a copy: room for k <= DYI_DECIM_WAIT samples, rec[b]
 * receiving sample b's nch channels then its npass values; after writing
 * them, dyi_decim_commit(d, k) appends them. 0, or -1 as push (nothing
 * reserved). */
int dyi_decim_reserve(dyiDecim* d, int k, double** rec);
void dyi_decim_commit(dyiDecim* d, int k);
/* End of a segment: the outputs whose centre lies in it are completed; the
 * next push starts a new segment. file_end: the segment ends a file (its
 * delayed guard samples are dropped and the next file's first guard
 * samples will be); else (a held-out block follows) they are filtered. */
void dyi_decim_end(dyiDecim* d, int file_end);
/* Next completed output into y[nch], pass[npass] and *relvar (its noise
 * variance over an interior output's, >= ~1; NULL: not wanted): 1, or 0. */
int dyi_decim_pop(dyiDecim* d, double* y, double* pass, double* relvar);
/* Doubles held (for the memory bound). */
long dyi_decim_size(const dyiDecim* d);
/* The guard in use (the one asked for, or shortened to the ring's cap). */
int dyi_decim_guard(const dyiDecim* d);

/* ------------------------------------------- the motion's own bandwidth
 * What a log's signals hold below each of a ladder of candidate cutoffs
 * f_k = f0 * sqrt(2)^k (k = 0..ncand-1, all below fmax): every channel
 * passes through the zero-phase magnitude of the reader's filter at f_k
 * (the Butterworth of that order run twice, causally: |H(f)|^2, the phase
 * does not change an energy), is differenced deriv times by sample index
 * (2 for positions, 1 for velocities, 0 for accelerations) and scaled by
 * fs^deriv: an acceleration a_k. Its mean square
 *     E_k[c] = mean over samples of a_k[c]^2                 [(unit/s^2)^2]
 * grows with f_k while the cutoff still cuts into the motion, is flat once
 * the motion is inside, and grows again where sensor noise, twice
 * differentiated (a white position noise gives |2 sin(pi f/fs)|^4 fs^4,
 * about f^4), takes over. The samples of the first edge transient (the
 * lowest candidate's, down to 1e-3) are left out of every mean, and each
 * candidate's sum is delayed by its filter's lag at zero frequency (a
 * delay line of the lowest candidate's lag less its own), so that all
 * candidates average the same input samples: a moving log's energies
 * do not drift by the lags. Beside it, each channel's white-noise variance
 * s2: the median over blocks of 64 samples of the mean square of the raw
 * fourth difference (70 s2 for white noise). The samples go through the
 * candidates' filters in blocks of 64 (each lane's states stay in
 * registers through a block; the sums are taken when a block is full and
 * by dyi_band_energy), so the energies are the one-sample-at-a-time
 * definition's bit for bit. Memory: ncand x nch filter states, two past
 * outputs, the block, the delay lines (at most 32 MiB; beyond, the sums
 * are left unaligned at the end), a histogram per channel; no allocation
 * per sample. */
#define DYI_BAND_MAXC 32
typedef struct dyiBand_ dyiBand;
/* nch channels, deriv 0..2, sample rate fs, candidates from f0 up to below
 * min(fmax, 0.45 fs), order: the reader's Butterworth order. NULL when
 * out of memory or no candidate fits. */
dyiBand* dyi_band_make(int nch, int deriv, double fs, double f0, double fmax, int order);
void dyi_band_free(dyiBand* b);
/* One sample x[nch] (in time order, uniform sampling assumed). */
void dyi_band_push(dyiBand* b, const double* x);
/* Candidates (the samples still in the block taken first), their cutoffs
 * fc[k] [Hz] and the energies summed over the channels after each channel
 * is divided by its energy at the lowest candidate (so every joint counts
 * alike, whatever its unit):
 *     e_k = sum_c E_k[c] / E_0[c]   (channels with E_0 = 0 left out)
 * Returns ncand, or 0 when no sample has been counted yet. fc, e: room
 * for DYI_BAND_MAXC (may be NULL). */
int dyi_band_energy(dyiBand* b, double* fc, double* e);
/* The cutoff the log calls for: the highest candidate k (up from the
 * lowest, while each passes) where, on every channel that moves (its mean
 * square at the lowest candidate above 1e-12 of the largest), the noise
 * P = s2 fs^(2 deriv) (1/pi) int_0^pi |H_k|^4 (2 - 2 cos w)^deriv dw is at
 * most tol times the motion's energy E_k[c] - P; noise-free signals go up
 * to the top candidate. With fewer than 8 blocks of the noise meter, the
 * knee where e_k grows least from one candidate to the next, then upward
 * while e_k stays within (1 + tol) of the knee's. 0 when nothing was
 * counted. */
double dyi_band_cutoff(dyiBand* b, double tol);

#endif
