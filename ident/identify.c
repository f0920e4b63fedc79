/* SPDX-License-Identifier: MIT */
/* dynid ident: identification from logs, the whole pipeline (see
 * identify.h): per sample the base regressor Y_b = Y P and the torque,
 * the row stage (one zero-phase FIR low-pass and decimation for all of
 * them), and the streaming estimator of estimate.h, on the calling thread
 * or, for OLS and WLS, on worker threads.
 *
 * Data flow (one thread): dyi_log_next -> dyi_rows_push (rows_channels:
 * torques and the masked entries of Y_b) -> FIR and decimation ->
 * dyi_rows_pop -> blocks of dyi_est_run (log_fill). Several threads: the
 * calling thread reads batches of MT_BATCH samples; the workers compute
 * the regressor of a share of the samples, then filter and fold the
 * channels of their joints (mt_main); their triangles are merged. */
#include "ident/identify.h"
#include "core/dynamics.h"
#include "ident/regressor.h"
#include "core/util.h"
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ the row stage */

/* up to DY_BATCH_LANES samples of n joints, what the row stage needs of
 * them, packed as core's lanes (joint j of lane b at [j*DY_BATCH_LANES + b])
 * in chunk_bytes(n) of memory of its own (chunk_bind): a batch of chunks
 * is a few cache lines a sample */
typedef struct {
  int nb;                          /* lanes in use */
  double *q, *qd, *qdd, *tau, *t;  /* lanes [rad, rad/s, rad/s^2, N m | N, s] */
  long* row;                       /* file rows (DY_BATCH_LANES) */
  unsigned char* slow;             /* lane b's slow-joint flags at [b*n .. b*n+n) */
} rowsChunk;

/* the memory of a chunk of n joints [bytes], a multiple of 64 */
static size_t chunk_bytes(int n) {
  enum { B = DY_BATCH_LANES };
  const size_t b = sizeof(double) * (4 * (size_t)n + 1) * B + sizeof(long) * B + (size_t)B * (size_t)n;
  return (b + 63) / 64 * 64;
}

/* chunk c (empty) of n joints in mem (chunk_bytes(n)) */
static void chunk_bind(rowsChunk* c, int n, unsigned char* mem) {
  enum { B = DY_BATCH_LANES };
  double* d = (double*)(void*)mem;
  c->nb = 0;
  c->q = d; c->qd = d + n*B; c->qdd = d + 2*n*B; c->tau = d + 3*n*B; c->t = d + 4*n*B;
  c->row = (long*)(void*)(d + (4*n + 1)*B);
  c->slow = (unsigned char*)(c->row + B);
}

/* count chunks c (empty) of n joints in memory of their own (chunk_bind):
 * that memory, or NULL. Not zeroed: only a chunk's nb lanes are read (the
 * batch kernels load a short chunk's other lanes as zero states,
 * dy_batch_load). (Zeroing the 2 MB of identify's batches up front, on
 * pages faulted in by it, took 3-5 ms between the two passes, while the
 * other core waited.) */
static unsigned char* chunks_make(rowsChunk* c, int count, int n) {
  const size_t cb = chunk_bytes(n);
  unsigned char* mem = aligned_alloc(64, (size_t)count * cb);
  if (!mem) return NULL;
  for (int i = 0; i < count; i++) chunk_bind(c + i, n, mem + (size_t)i * cb);
  return mem;
}

/* sample s (n joints) into the chunk's next lane */
static void chunk_add(rowsChunk* c, int n, const dyiSample* s) {
  const int b = c->nb++;
  dy_lane_put(c->q, n, b, s->q); dy_lane_put(c->qd, n, b, s->qd); dy_lane_put(c->qdd, n, b, s->qdd);
  dy_lane_put(c->tau, n, b, s->tau);
  c->t[b] = s->t;
  c->row[b] = s->row;
  memcpy(c->slow + (size_t)b * (size_t)n, s->slow, (size_t)n);
}

struct dyiRows_ {
  const dyModel* m;
  int n, nb, ncol, friction;
  int *pstart, *pk;   /* non-zeros of column c of P: pk[pstart[c] .. pstart[c+1]-1] */
  double* pv;         /* their values */
  int nch;            /* channels: n torques, then the masked (joint, column) pairs */
  int *chj, *chc;     /* joint and column of channel n + i */
  int* sel;           /* P a selection (each column one non-zero, 1): channel n + i is the
                         regressor lanes at Y + sel[i] (rows_map); else NULL */
  double *y, *pass;   /* one output record, pass-through values (2 + n) */
  dyiFir fir;
  dyiDecim* dec;
  int guard;
  double var_factor;
  unsigned jsel;      /* joints whose equations this stage gives (bit j) */
  dyiRegBatch* rb;    /* the regressor of DY_BATCH_LANES samples per call */
  int nfix;           /* held parameters with a non-zero value (base.h dyi_base_fix) */
  int* fixk;          /* their full-parameter indices (nfix) */
  double* fixv;       /* their values (nfix): Y e_k v_k leaves the torque */
  rowsChunk pend;     /* samples waiting for a full chunk */
  unsigned char* pmem;  /* its memory */
};

_Static_assert(DYI_DECIM_WAIT >= DY_BATCH_LANES, "a chunk of samples enters the filter between pops");

void dyi_rows_free(dyiRows* w) {
  if (!w) return;
  free(w->pstart); free(w->pk); free(w->pv);
  free(w->chj); free(w->chc); free(w->sel); free(w->y); free(w->pass);
  free(w->fixk); free(w->fixv); free(w->pmem);
  dyi_regressor_batch_free(w->rb);
  dyi_fir_free(&w->fir);
  dyi_decim_free(w->dec);
  free(w);
}

/* the held parameters of b with a non-zero value into w (dropped ones,
 * value 0, need nothing); -1 out of memory */
static int rows_fixed(dyiRows* w, const dyiBase* b) {
  w->nfix = 0;
  for (int k = 0; b->fix && k < b->npar; k++) w->nfix += !isnan(b->fix[k]) && b->fix[k] != 0;
  if (!w->nfix) return 0;
  w->fixk = malloc(sizeof(int) * (size_t)w->nfix);
  w->fixv = malloc(sizeof(double) * (size_t)w->nfix);
  if (!w->fixk || !w->fixv) return -1;
  int i = 0;
  for (int k = 0; k < b->npar; k++)
    if (!isnan(b->fix[k]) && b->fix[k] != 0) { w->fixk[i] = k; w->fixv[i++] = b->fix[k]; }
  return 0;
}

/* w->sel when P selects columns (as the Khalil and QR sets' P does: each
 * base column one regressor column, coefficient 1): each channel's lanes'
 * offset in the regressor lanes (rows_map); -1 out of memory */
static int rows_select(dyiRows* w) {
  for (int c = 0; c < w->nb; c++)
    if (w->pstart[c + 1] - w->pstart[c] != 1 || w->pv[w->pstart[c]] != 1) return 0;
  w->sel = malloc(sizeof(int) * (size_t)(w->nch - w->n + 1));
  if (!w->sel) return -1;
  for (int i = 0; i < w->nch - w->n; i++)
    w->sel[i] = (w->pk[w->pstart[w->chc[i]]] * w->n + w->chj[i]) * DY_BATCH_LANES;
  return 0;
}

/* the row stage of the joints in bit set jsel: every torque, the
 * (joint, column) channels of those joints only */
static dyiRows* rows_make(const dyModel* m, const dyiBase* b, unsigned jsel, char* err, int errsz) {
  int n = m->n, nb = b->nb, ncol = dyi_ncols(m, b->friction);
  if (b->npar != ncol) {
    snprintf(err, (size_t)errsz, "base set over %d parameters, the regressor has %d", b->npar, ncol);
    return NULL;
  }
  dyiRows* w = calloc(1, sizeof *w);
  unsigned char* mask = malloc((size_t)n * (size_t)nb);
  if (!w || !mask) goto oom;
  w->m = m; w->n = n; w->nb = nb; w->ncol = ncol; w->friction = b->friction; w->jsel = jsel;
  w->pstart = malloc(sizeof(int) * (size_t)(nb + 1));
  w->pk = malloc(sizeof(int) * (size_t)ncol * (size_t)nb);
  w->pv = malloc(sizeof(double) * (size_t)ncol * (size_t)nb);
  w->chj = malloc(sizeof(int) * (size_t)n * (size_t)nb);
  w->chc = malloc(sizeof(int) * (size_t)n * (size_t)nb);
  if (!w->pstart || !w->pk || !w->pv || !w->chj || !w->chc) goto oom;
  dyi_base_sparse(b, DYI_P_ZERO, w->pstart, w->pk, w->pv);
  dyi_base_mask(m, b, mask);
  w->nch = n;
  for (int j = 0; j < n; j++)
    for (int c = 0; c < nb; c++)
      if (mask[(size_t)j * (size_t)nb + (size_t)c] && (jsel >> j & 1u)) {
        w->chj[w->nch - n] = j; w->chc[w->nch - n] = c; w->nch++;
      }
  free(mask);
  mask = NULL;
  if (rows_select(w)) goto oom;
  w->y = malloc(sizeof(double) * (size_t)w->nch);
  w->pass = malloc(sizeof(double) * (size_t)(2 + n));
  w->rb = dyi_regressor_batch_make(m, b->friction);
  if (w->rb && jsel != ~0u) dyi_regressor_rows(w->rb, jsel);   /* its joints' rows alone */
  w->pmem = chunks_make(&w->pend, 1, n);
  if (!w->y || !w->pass || !w->rb || !w->pmem || rows_fixed(w, b)) goto oom;
  w->var_factor = 1;
  return w;
oom:
  snprintf(err, (size_t)errsz, "identify: out of memory");
  free(mask);
  dyi_rows_free(w);
  return NULL;
}

dyiRows* dyi_rows_make(const dyModel* m, const dyiBase* b, char* err, int errsz) {
  return rows_make(m, b, ~0u, err, errsz);
}

int dyi_rows_config(dyiRows* w, const dyiLogInfo* li, char* err, int errsz) {
  dyiFir f;
  int D = li->parallel ? li->decim : 1;
  if (dyi_fir_design(&f, li->fs, li->parallel ? li->fstop : 0, D)) {
    snprintf(err, (size_t)errsz, "cannot design the rows' low-pass (rate %g Hz, decimation %d, "
             "stopband %g Hz)", li->fs, D, li->fstop);
    return -1;
  }
  int guard = li->parallel ? li->guard : 0;
  if (w->dec && f.K == w->fir.K && f.D == w->fir.D && f.fstop == w->fir.fstop && guard == w->guard) {
    dyi_fir_free(&f);   /* the same filter: keep it */
    return 0;
  }
  dyiDecim* dec = dyi_decim_make(&f, w->nch, 2 + w->n, guard);
  if (!dec) { dyi_fir_free(&f); snprintf(err, (size_t)errsz, "identify: out of memory"); return -1; }
  dyi_fir_free(&w->fir);
  dyi_decim_free(w->dec);
  w->fir = f; w->dec = dec; w->guard = guard;
  w->var_factor = dyi_fir_var_factor(&f);
  return 0;
}

const dyiFir* dyi_rows_fir(const dyiRows* w) { return &w->fir; }

double dyi_rows_var_factor(const dyiRows* w) { return w->var_factor; }

/* the Y_b entries of the chunk's channels (regressor lanes Y, as
 * dyi_regressor_lanes) into x[b] + i for channel i of sample b, each summed
 * as in one sample's Y P; eight channels at a time, their lanes transposed
 * in registers (rows_t8) and stored as eight consecutive values of each
 * sample's record (a store per channel and sample, from a vector spilled
 * to memory, was half of the time); built per vector width (util.h
 * DY_CLONES) */
typedef double rowsVec __attribute__((vector_size(DY_BATCH_LANES * sizeof(double))));
_Static_assert(DY_BATCH_LANES == 8, "rows_t8 transposes 8 x 8");

/* r[k] (lanes b of channel k) -> r[b] (channels k of lane b): pairs, then
 * quadruples, then halves exchanged (__builtin_shufflevector: GCC >= 12,
 * clang) */
static inline void rows_t8(rowsVec* r) {
  rowsVec t[8], u[8];
#pragma GCC unroll 4
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
#pragma GCC unroll 2
  for (int k = 0; k < 8; k += 4)
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
      u[k + h] = __builtin_shufflevector(t[k + h], t[k + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[k + h + 2] = __builtin_shufflevector(t[k + h], t[k + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
#pragma GCC unroll 4
  for (int b = 0; b < 4; b++) {
    r[b] = __builtin_shufflevector(u[b], u[b + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[b + 4] = __builtin_shufflevector(u[b], u[b + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

DY_CLONES
static void rows_map(const dyiRows* w, const double* restrict Y, int nb, double* const* x) {
  enum { B = DY_BATCH_LANES };
  const int n = w->n, nch = w->nch;
  for (int i0 = n; i0 < nch; i0 += B) {
    const int cnt = nch - i0 < B ? nch - i0 : B;
    rowsVec a[B];
    if (w->sel && cnt == B) {   /* one term, 1 y: 0 + 1 y is y + 0 (-0 made +0 as there) */
      const int* sel = w->sel + (i0 - n);
#pragma GCC unroll 8
      for (int k = 0; k < B; k++) {
        memcpy(&a[k], Y + sel[k], sizeof a[k]);
        a[k] += (rowsVec){0};
      }
    } else for (int k = 0; k < B; k++) {
      a[k] = (rowsVec){0};
      if (k >= cnt) continue;
      const int j = w->chj[i0 + k - n], c = w->chc[i0 + k - n];
      for (int e = w->pstart[c]; e < w->pstart[c + 1]; e++) {
        rowsVec y;
        memcpy(&y, Y + ((size_t)w->pk[e] * (size_t)n + (size_t)j) * B, sizeof y);
        a[k] += w->pv[e] * y;
      }
    }
    rows_t8(a);
    if (nb == B && cnt == B) {   /* a full chunk: the stores unrolled, a[] stays in registers */
#pragma GCC unroll 8
      for (int k = 0; k < B; k++) memcpy(x[k] + i0, &a[k], sizeof a[k]);
      continue;
    }
    for (int b = 0; b < nb; b++) {
      if (cnt == B) memcpy(x[b] + i0, &a[b], sizeof a[b]);
      else for (int k = 0; k < cnt; k++) x[b][i0 + k] = a[b][k];
    }
  }
}

/* the held parameters' torque off the torques x[b][0..n) of the chunk's
 * samples: tau_j -= sum_i Y(j, k_i) v_i (regressor lanes Y as rows_map's;
 * the stage's joints only, whose rows Y holds) */
static void rows_unfix(const dyiRows* w, const double* Y, int nb, double* const* x) {
  enum { B = DY_BATCH_LANES };
  const int n = w->n;
  for (int i = 0; i < w->nfix; i++)
    for (int j = 0; j < n; j++) {
      if (!(w->jsel >> j & 1u)) continue;
      const double v = w->fixv[i], *y = Y + ((size_t)w->fixk[i] * (size_t)n + (size_t)j) * B;
      for (int b = 0; b < nb; b++) x[b][j] -= v * y[b];
    }
}

/* the channels of the chunk's samples into x[b] (sample b): its torques,
 * then its Y_b entries (Y_b = Y P from the batch regressor) */
static void rows_channels(dyiRows* w, const rowsChunk* ch, double* const* x) {
  enum { B = DY_BATCH_LANES };
  const int nb = ch->nb;
  const double* Y = dyi_regressor_lanes(w->m, w->rb, nb, ch->q, ch->qd, ch->qdd, B);
  for (int b = 0; b < nb; b++) dy_lane_get(ch->tau, w->n, b, x[b]);
  rows_unfix(w, Y, nb, x);
  rows_map(w, Y, nb, x);
}

/* the pass-through values of a sample (file row `row`, time t [s], slow
 * joints slow: n flags) into p (2 + n) */
static void rows_pass(int n, long row, double t, const unsigned char* slow, double* p) {
  p[0] = (double)row; p[1] = t;
  for (int j = 0; j < n; j++) p[2 + j] = slow[j];
}

/* channels x (nch) of one sample into the filter (a copy) */
static int rows_feed(dyiRows* w, long row, double t, const unsigned char* slow, const double* x) {
  rows_pass(w->n, row, t, slow, w->pass);
  return dyi_decim_push(w->dec, x, w->pass);
}

/* the samples of chunk c into the filter: their channels written straight
 * into the filter's records; 0, or -1 when the filter has no room for them
 * (its rows not popped) */
static int rows_put(dyiRows* w, const rowsChunk* c) {
  double* rec[DY_BATCH_LANES];
  if (!c->nb || dyi_decim_reserve(w->dec, c->nb, rec)) return -1;
  rows_channels(w, c, rec);
  for (int b = 0; b < c->nb; b++)
    rows_pass(w->n, c->row[b], c->t[b], c->slow + (size_t)b * (size_t)w->n, rec[b] + w->nch);
  dyi_decim_commit(w->dec, c->nb);
  return 0;
}

/* the waiting samples into the filter */
static void rows_flush(dyiRows* w) {
  if (w->pend.nb && !rows_put(w, &w->pend)) w->pend.nb = 0;
}

int dyi_rows_push(dyiRows* w, const dyiSample* s) {
  chunk_add(&w->pend, w->n, s);
  if (w->pend.nb == DY_BATCH_LANES) rows_flush(w);
  return 0;
}

void dyi_rows_break(dyiRows* w, int file_end) {
  rows_flush(w);
  dyi_decim_end(w->dec, file_end);
}

int dyi_rows_pop(dyiRows* w, double* A, int lda, int slot, double* y, double* rw, long* row) {
  double rv;
  if (!dyi_decim_pop(w->dec, w->y, w->pass, &rv)) return 0;
  int n = w->n;
  size_t r0 = (size_t)slot * (size_t)n;
  for (int c = 0; c < w->nb; c++) memset(A + (size_t)lda * (size_t)c + r0, 0, sizeof(double) * (size_t)n);
  for (int i = n; i < w->nch; i++) A[(size_t)lda * (size_t)w->chc[i - n] + r0 + (size_t)w->chj[i - n]] = w->y[i];
  /* truncated windows at the ends are noisier: weighted back to an interior row */
  double wt = rv > 0 ? 1 / sqrt(rv) : 1;
  for (int j = 0; j < n; j++) {
    y[r0 + (size_t)j] = w->y[j];
    /* joint too slow (--qd-min), or another stage's: left out */
    rw[r0 + (size_t)j] = w->pass[2 + j] != 0 || !(w->jsel >> j & 1u) ? 0 : wt;
  }
  if (row) *row = (long)w->pass[0];
  return 1;
}

/* ------------------------------------------------- rows from logs */

struct dyiLogRows_ {
  dyiRows* w;
  dyiLogReader* const* r;
  int nr, cur, ended;
  int select_next;    /* a log ended: switch once its last rows are out */
  long idx;           /* samples read in this pass, over all logs */
  long skip0, skip1;  /* the held-out window [skip0, skip1) */
  long long read, last;
  int pass;
  void (*progress)(long long, int, int);
};

/* switch to log k: its rate and cutoff decide the rows' filter */
static int log_select(dyiLogRows* s, int k, char* err, int errsz) {
  s->cur = k;
  if (k >= s->nr) { s->ended = 1; return 0; }
  dyiLogInfo li;
  dyi_log_info(s->r[k], &li);
  return dyi_rows_config(s->w, &li, err, errsz);
}

static int log_fill(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err,
                    int errsz) {
  dyiLogRows* s = ctx;
  int ns = 0;
  dyiSample smp;
  while (ns < maxs) {
    if (dyi_rows_pop(s->w, A, lda, ns, y, rw, NULL)) { ns++; continue; }
    /* the ended log's rows are all out: the next log may change the filter */
    if (s->select_next) {
      s->select_next = 0;
      if (log_select(s, s->cur + 1, err, errsz)) return -1;
      continue;
    }
    if (s->ended) break;
    int r = dyi_log_next(s->r[s->cur], &smp, err, errsz);
    if (r < 0) return -1;
    if (r == 0) {   /* end of this log: no filter runs across files */
      dyi_rows_break(s->w, 1);
      s->select_next = 1;
      continue;
    }
    s->read++;
    const long i = s->idx++;
    if (i >= s->skip0 && i < s->skip1) {   /* held out: no filter runs across the window */
      if (i == s->skip0) dyi_rows_break(s->w, 0);
      continue;
    }
    dyi_rows_push(s->w, &smp);
  }
  if (s->progress && s->read - s->last >= 4096) { s->progress(s->read, s->pass, 0); s->last = s->read; }
  return ns;
}

static int log_rewind(void* ctx, char* err, int errsz) {
  dyiLogRows* s = ctx;
  if (s->progress) s->progress(s->read, s->pass, 1);
  s->read = s->last = 0;
  s->idx = 0;
  s->pass++;
  for (int k = 0; k < s->nr; k++)
    if (dyi_log_rewind(s->r[k], err, errsz)) return -1;
  s->ended = 0;
  s->select_next = 0;
  return log_select(s, 0, err, errsz);
}

dyiLogRows* dyi_logrows_make(const dyModel* m, const dyiBase* b, dyiLogReader* const* r, int nr,
                             char* err, int errsz) {
  if (nr < 1) { snprintf(err, (size_t)errsz, "identify: no log"); return NULL; }
  dyiLogRows* s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, (size_t)errsz, "identify: out of memory"); return NULL; }
  s->r = r; s->nr = nr; s->pass = 1;
  s->w = dyi_rows_make(m, b, err, errsz);
  if (!s->w || log_select(s, 0, err, errsz)) { dyi_logrows_free(s); return NULL; }
  return s;
}

void dyi_logrows_window(dyiLogRows* s, long skip0, long skip1) { s->skip0 = skip0; s->skip1 = skip1; }

void dyi_logrows_progress(dyiLogRows* s, void (*progress)(long long samples, int pass, int final)) {
  s->progress = progress;
}

dyiRowSource dyi_logrows_source(dyiLogRows* s) { return (dyiRowSource){s, log_fill, log_rewind}; }

double dyi_logrows_var_factor(const dyiLogRows* s) {
  double v = dyi_rows_var_factor(s->w);
  for (int k = 1; k < s->nr; k++) {
    dyiLogInfo li;
    dyiFir f;
    dyi_log_info(s->r[k], &li);
    if (dyi_fir_design(&f, li.fs, li.parallel ? li.fstop : 0, li.parallel ? li.decim : 1) == 0) {
      v = fmax(v, dyi_fir_var_factor(&f));
      dyi_fir_free(&f);
    }
  }
  return v;
}

void dyi_logrows_end(dyiLogRows* s) {
  if (s && s->progress) s->progress(s->read, s->pass, 1);
}

void dyi_logrows_free(dyiLogRows* s) {
  if (!s) return;
  dyi_rows_free(s->w);
  free(s);
}

/* ------------------------------------------------- rows on several threads */

/* A barrier whose waiters first poll (yielding the core to any other
 * runnable thread) for up to SPIN_S before they sleep: a thread woken from
 * sleep on another core of a virtual machine can take a millisecond to
 * run, and the batches come every few milliseconds. 0.2 ms: with the CSV
 * parsed on threads of its own, longer polls took the parsers' core
 * (5 ms: 0.31-0.42 s of system time in sched_yield on a 2e5-sample log,
 * 0.66-0.72 s wall; 0.2 ms: 0.13-0.18 s, 0.61-0.64 s, the same estimate).
 * The poll yields every 8th time and pauses in between: a yield is a
 * system call, and one at every poll was 9 % of identify's system time
 * (1e5 samples: 50 -> 38 ms of system time a run, the wall time the same;
 * the 2e5-sample log 64-67 -> 54-56 ms). */
#define SPIN_S 2e-4   /* [s]: about one batch of samples */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n, count;
  _Atomic unsigned gen;
} mtBarrier;

static int mtb_init(mtBarrier* b, int n) {
  b->n = n; b->count = 0;
  atomic_init(&b->gen, 0u);
  if (pthread_mutex_init(&b->mu, NULL)) return -1;
  if (pthread_cond_init(&b->cv, NULL)) { pthread_mutex_destroy(&b->mu); return -1; }
  return 0;
}

static void mtb_destroy(mtBarrier* b) {
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->cv);
}

/* the processor's hint that this is a wait loop (x86 pause, Arm yield) */
static inline void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

static void mtb_wait(mtBarrier* b) {
  pthread_mutex_lock(&b->mu);
  unsigned g = atomic_load(&b->gen);
  if (++b->count == b->n) {   /* the last one releases the others */
    b->count = 0;
    atomic_store(&b->gen, g + 1);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return;
  }
  pthread_mutex_unlock(&b->mu);
  double t0 = dy_now_s();
  for (int i = 0; atomic_load(&b->gen) == g; i++) {
    if ((i & 63) == 63 && dy_now_s() - t0 > SPIN_S) {
      pthread_mutex_lock(&b->mu);
      while (atomic_load(&b->gen) == g) pthread_cond_wait(&b->cv, &b->mu);
      pthread_mutex_unlock(&b->mu);
      return;
    }
    if ((i & 7) == 7) sched_yield();
    else for (int k = 0; k < 16; k++) spin_pause();
  }
}

/* the calling thread's reading of a batch (the signals' zero-phase filter
 * and differences), as a share of the joints' row stage in mt_assign's
 * units: its joints are chosen so that both threads end a batch together
 * (2e5 samples of the Panda at 1 kHz with friction, 20 interleaved runs:
 * 0.35 -> 0.2 took the wall mean 0.283 -> 0.276 s, 90th percentile 0.311
 * -> 0.285 s, once the signals' filter ran on vectors; 0.35 had been the
 * balance when it ran a channel at a time) */
#define READ_SHARE 0.2
#define MT_BATCH 4096   /* samples per batch handed to the workers (few hand-overs) */
#define MT_CHUNKS (MT_BATCH / DY_BATCH_LANES)   /* a batch's chunks of lanes */
_Static_assert(MT_BATCH % DY_BATCH_LANES == 0, "a batch is whole chunks");
#define MT_STAGE 8      /* rows of the filter transposed into the blocks at a time */

typedef struct mtShared_ mtShared;
typedef struct {
  mtShared* sh;
  int id;
  pthread_t th;
  dyiRows* full;      /* stage 1: regressor workspace of the full channel layout (T > 1) */
  dyiRows* rows;      /* stage 2: its joints' channels, filtered in time order */
  int* gidx;          /* channel i of rows -> channel of the full layout */
  double* x;          /* one gathered record */
  dyiEstim* e;         /* its joints' triangles */
  int nblk;           /* samples waiting in e's block buffers (or in Bj) */
  /* direct: its rows popped straight into one block per joint, the layout
   * the estimator folds (dyi_est_add_joints), instead of the n*block rows
   * of every column (mostly structural zeros) gathered again per joint */
  int direct;
  double* Bj[DY_MAXJ];  /* its joints' blocks (block x (np_j + 1)); NULL: not its joint */
  double* rwj[DY_MAXJ]; /* their row weights (block) */
  int* chk;           /* channel n + i of rows -> its column in its joint's block */
  int npj[DY_MAXJ];   /* the columns of joint j's block before the torque */
  double *st, *stp;   /* MT_STAGE rows of the filter: channels (nch each), pass-through (2 + n) */
  double* bmem;       /* the blocks', weights' and stage's one allocation */
  int failed;
  char err[512];
} mtWorker;

struct mtShared_ {
  int T, nch;
  mtWorker* w;
  mtBarrier start, mid, done;
  rowsChunk* buf[2];  /* the batches, packed into lanes as they are read (MT_CHUNKS each, in bchunk) */
  rowsChunk* bchunk;  /* 2 x MT_CHUNKS chunks */
  unsigned char* bmem;  /* their memory */
  dyiSample* one;     /* the sample being read */
  double* X[2];       /* channels of the batch, MT_BATCH x nch (T > 1) */
  mtWorker* self;     /* one worker: the calling thread's share of the joints (w[1]), else NULL */
  /* the batch published at the start barrier */
  int cur, ns, cfg, end, quit;
  pthread_mutex_t gate;   /* held while the threads start; abort: one failed */
  int abort;
  dyiLogInfo li;       /* cfg: the log's rows' filter, set before its samples */
};

static int mt_fold(mtWorker* w) {
  if (!w->nblk || w->failed) return 0;
  if (w->direct) {
    if (dyi_est_add_joints(w->e, w->Bj, w->e->opt.block, w->nblk, (const double* const*)w->rwj, w->err,
                           sizeof w->err))
      w->failed = 1;
  } else {
    double *A, *y, *rw;
    int lda = dyi_est_block_buffers(w->e, &A, &y, &rw);
    if (dyi_est_add(w->e, A, lda, y, w->nblk, rw, w->err, sizeof w->err)) w->failed = 1;
  }
  w->nblk = 0;
  return w->failed ? -1 : 0;
}

/* Up to MT_STAGE rows of the filter (dyi_rows_pop's values and row
 * weights) into the joints' blocks at rows nblk.. (its joints only; the
 * others have no block): popped into the stage, then written a channel at
 * a time, consecutive rows of one column (a transpose through a small
 * buffer instead of a store per column and row). The rows placed: 0 when
 * none is ready. */
static int mt_pop_direct(mtWorker* w) {
  dyiRows* r = w->rows;
  const int n = r->n, nch = r->nch, np2 = 2 + n, bs = w->e->opt.block;
  const int room = bs - w->nblk < MT_STAGE ? bs - w->nblk : MT_STAGE;
  double rv[MT_STAGE];
  int k = 0;
  while (k < room && dyi_decim_pop(r->dec, w->st + (size_t)k * (size_t)nch, w->stp + (size_t)k * (size_t)np2, &rv[k]))
    k++;
  if (!k) return 0;
  const size_t ld = (size_t)bs, s0 = (size_t)w->nblk;
  for (int i = n; i < nch; i++) {
    double* dst = w->Bj[r->chj[i - n]] + (size_t)w->chk[i - n] * ld + s0;
    for (int b = 0; b < k; b++) dst[b] = w->st[(size_t)b * (size_t)nch + (size_t)i];
  }
  for (int j = 0; j < n; j++) {
    if (!w->Bj[j]) continue;
    double* tau = w->Bj[j] + (size_t)w->npj[j] * ld + s0;
    for (int b = 0; b < k; b++) {
      tau[b] = w->st[(size_t)b * (size_t)nch + (size_t)j];
      /* joint too slow (--qd-min): left out; truncated windows at the
       * ends are noisier: weighted back to an interior row */
      w->rwj[j][s0 + (size_t)b] = w->stp[(size_t)b * (size_t)np2 + 2 + (size_t)j] != 0 ? 0
                                  : rv[b] > 0 ? 1 / sqrt(rv[b]) : 1;
    }
  }
  w->nblk += k;
  return k;
}

static void mt_drain(mtWorker* w) {
  if (w->direct) {
    while (mt_pop_direct(w))
      if (w->nblk == w->e->opt.block) mt_fold(w);
    return;
  }
  double *A, *y, *rw;
  int lda = dyi_est_block_buffers(w->e, &A, &y, &rw);
  while (dyi_rows_pop(w->rows, A, lda, w->nblk, y, rw, NULL))
    if (++w->nblk == w->e->opt.block) mt_fold(w);
}

/* Worker w's joints of the batch (b, ns samples; its end ends the log)
 * through the one-thread row stage: each sample's channels straight into
 * its filter, the rows popped into its blocks and folded */
static void mt_rows(mtWorker* w, const mtShared* sh, int b, int ns) {
  if (sh->cfg && !w->failed && dyi_rows_config(w->rows, &sh->li, w->err, sizeof w->err)) w->failed = 1;
  for (int c = 0; c * DY_BATCH_LANES < ns && !w->failed; c++) {
    mt_drain(w);
    rows_put(w->rows, sh->buf[b] + c);
  }
  if (sh->end && !w->failed) dyi_rows_break(w->rows, 1);
  if (!w->failed) mt_drain(w);
}

static void* mt_main(void* arg) {
  mtWorker* w = arg;
  mtShared* sh = w->sh;
  pthread_mutex_lock(&sh->gate);
  int abort = sh->abort;
  pthread_mutex_unlock(&sh->gate);
  if (abort) return NULL;
  for (;;) {
    mtb_wait(&sh->start);
    if (sh->quit) break;
    int b = sh->cur, ns = sh->ns, nch = sh->nch;
    if (sh->T == 1) {   /* one worker: its joints through the one-thread row stage */
      mt_rows(w, sh, b, ns);
      mtb_wait(&sh->done);
      continue;
    }
    if (sh->cfg && !w->failed && dyi_rows_config(w->rows, &sh->li, w->err, sizeof w->err)) w->failed = 1;
    /* stage 1: the regressor of an even share of the batch's chunks */
    const int nc = (ns + DY_BATCH_LANES - 1) / DY_BATCH_LANES;
    for (int c = nc * w->id / sh->T; c < nc * (w->id + 1) / sh->T; c++) {
      double* rec[DY_BATCH_LANES];
      for (int k = 0; k < sh->buf[b][c].nb; k++)
        rec[k] = sh->X[b] + (size_t)(c * DY_BATCH_LANES + k) * (size_t)nch;
      rows_channels(w->full, sh->buf[b] + c, rec);
    }
    mtb_wait(&sh->mid);
    /* stage 2: its joints' channels through its filter, in time order */
    if (!w->failed) {
      int nc = w->rows->nch;
      for (int i = 0; i < ns; i++) {
        const double* xs = sh->X[b] + (size_t)i * (size_t)nch;
        if (nc < nch) {   /* its channels gathered (one worker has them all) */
          for (int c = 0; c < nc; c++) w->x[c] = xs[w->gidx[c]];
          xs = w->x;
        }
        mt_drain(w);
        const rowsChunk* ci = sh->buf[b] + i / DY_BATCH_LANES;
        const int k = i % DY_BATCH_LANES;
        rows_feed(w->rows, ci->row[k], ci->t[k], ci->slow + (size_t)k * (size_t)w->rows->n, xs);
      }
      if (sh->end) dyi_rows_break(w->rows, 1);
      mt_drain(w);
    }
    mtb_wait(&sh->done);
  }
  mt_fold(w);
  return NULL;
}

/* read the next batch of log r into the chunks buf (n joints; sets ns,
 * end: the log ended), each sample read into s, then packed into its lane:
 * the threads read the lanes (2 kB a chunk of 8 samples of 7 joints)
 * instead of the samples (1.3 kB each, read again by every thread) */
static int mt_read(dyiLogReader* r, int n, rowsChunk* buf, dyiSample* s, int* ns, int* end, long long* read,
                   char* err, int errsz) {
  *ns = 0; *end = 0;
  dyi_log_readahead(r);   /* the CSV parsed on a thread of its own */
  while (*ns < MT_BATCH) {
    int q = dyi_log_next(r, s, err, errsz);
    if (q < 0) return -1;
    if (q == 0) { *end = 1; break; }
    rowsChunk* c = buf + *ns / DY_BATCH_LANES;
    if (*ns % DY_BATCH_LANES == 0) c->nb = 0;
    chunk_add(c, n, s);
    (*ns)++; (*read)++;
  }
  return 0;
}

/* Joints to workers, largest first to the least loaded: filtering costs
 * ~12 multiply-adds per channel and sample, folding 2 (p_j+1)^2 per row
 * (decimated by D): jsel[t] gets the joints of worker t (bit j). Worker 0
 * starts with share0 of all the joints' cost: what it does besides (the
 * calling thread's reading). */
static void mt_assign(const dyiRows* full, int n, int D, int T, double share0, unsigned* jsel) {
  double cost[DY_MAXJ], load[DY_MAXJ + 1] = {0};
  int npj[DY_MAXJ] = {0};
  for (int i = 0; i < full->nch - n; i++) npj[full->chj[i]]++;
  for (int j = 0; j < n; j++) {
    cost[j] = 12.0 * npj[j] + 2.0 * (npj[j] + 1) * (npj[j] + 1) / D;
    load[0] += share0 * cost[j];
  }
  for (int done = 0; done < n; done++) {
    int jb = -1, wb = 0;
    for (int j = 0; j < n; j++)
      if (cost[j] >= 0 && (jb < 0 || cost[j] > cost[jb])) jb = j;
    for (int t = 1; t < T; t++) if (load[t] < load[wb]) wb = t;
    jsel[wb] |= 1u << jb;
    load[wb] += cost[jb];
    cost[jb] = -1;
  }
}

/* The direct layout of worker x (mtWorker.direct): a block per joint of
 * its own, its channels' columns there. Left off (0 returned, rows then go
 * through dyi_est_add) with parts kept or when the row stage's channels
 * are not the estimator's columns in order; -1 out of memory. */
static int mt_direct(mtWorker* x, int n) {
  const dyiRows* r = x->rows;
  const size_t bs = (size_t)x->e->opt.block;
  if (x->e->opt.folds > 1) return 0;
  x->chk = malloc(sizeof(int) * (size_t)(r->nch - n + 1));
  if (!x->chk) return -1;
  size_t doubles = 0;
  int cnt[DY_MAXJ] = {0};
  for (int i = n; i < r->nch; i++) {
    const int j = r->chj[i - n];
    int np;
    const int* cols = dyi_est_cols(x->e, j, &np);
    if (cnt[j] >= np || cols[cnt[j]] != r->chc[i - n]) return 0;
    x->chk[i - n] = cnt[j]++;
  }
  for (int j = 0; j < n; j++) {
    int np;
    dyi_est_cols(x->e, j, &np);
    if (!(r->jsel >> j & 1u)) continue;
    if (cnt[j] != np) return 0;
    doubles += bs * (size_t)(np + 2);
  }
  doubles += MT_STAGE * (size_t)(r->nch + 2 + n);
  x->bmem = malloc(sizeof(double) * (doubles ? doubles : 1));
  if (!x->bmem) return -1;
  double* p = x->bmem;
  for (int j = 0; j < n; j++) {
    if (!(r->jsel >> j & 1u)) continue;
    int np;
    dyi_est_cols(x->e, j, &np);
    x->Bj[j] = p; p += bs * (size_t)(np + 1);
    x->rwj[j] = p; p += bs;
    x->npj[j] = np;
  }
  x->st = p; p += MT_STAGE * (size_t)r->nch;
  x->stp = p;
  x->direct = 1;
  return 0;
}

/* Worker t: a regressor workspace of the full channel layout, a row stage
 * of its joints' channels, gidx (its channel i -> the full layout's) and
 * an estimator for its triangles. 0, or -1 with err. */
static int mt_worker_make(mtWorker* x, mtShared* sh, int t, const dyModel* m, const dyiBase* b,
                          const dyiRows* full, unsigned jsel, const dyiEstOpt* o, char* err, int errsz) {
  int n = m->n;
  x->sh = sh; x->id = t;
  x->rows = rows_make(m, b, jsel, err, errsz);
  x->e = dyi_est_make(n, b->nb, o, err, errsz);
  if (!x->rows || !x->e) return -1;
  if (mt_direct(x, n)) { snprintf(err, (size_t)errsz, "identify: out of memory"); return -1; }
  if (sh->T == 1) return 0;   /* one worker: its row stage alone (mt_main) */
  x->full = dyi_rows_make(m, b, err, errsz);
  if (!x->full) return -1;
  x->gidx = malloc(sizeof(int) * (size_t)x->rows->nch);
  x->x = malloc(sizeof(double) * (size_t)x->rows->nch);
  if (!x->gidx || !x->x) { snprintf(err, (size_t)errsz, "identify: out of memory"); return -1; }
  for (int c = 0; c < n; c++) x->gidx[c] = c;
  for (int c = n, g = n; c < x->rows->nch; c++) {
    while (full->chj[g - n] != x->rows->chj[c - n] || full->chc[g - n] != x->rows->chc[c - n]) g++;
    x->gidx[c] = g++;
  }
  return 0;
}

/* The calling thread's loop: publish a batch (with the next log's filter
 * when a log begins), read the next one while the workers process it,
 * stop at the end of the last log or at the first error. 0 or -1. */
static int mt_drive(mtShared* sh, dyiLogReader* const* r, int nr, void (*progress)(long long, int, int),
                    long long* read, char* err, int errsz) {

  int k = 0, bcur = 0, ns, end, cfg = 1, rerr = 0;
  long long last = 0;
  dyiLogInfo li;
  dyi_log_info(r[0], &li);
  if (mt_read(r[0], sh->w[0].rows->n, sh->buf[0], sh->one, &ns, &end, read, err, errsz)) rerr = 1;
  while (!rerr) {
    sh->cur = bcur; sh->ns = ns; sh->end = end; sh->cfg = cfg; sh->li = li;
    mtb_wait(&sh->start);
    cfg = 0;
    int more = 1;
    if (end) {
      if (++k < nr) { dyi_log_info(r[k], &li); cfg = 1; }
      else more = 0;
    }
    if (more && mt_read(r[k], sh->w[0].rows->n, sh->buf[bcur ^ 1], sh->one, &ns, &end, read, err, errsz))
      rerr = 1;
    if (sh->self) mt_rows(sh->self, sh, bcur, sh->ns);   /* its share of the published batch */
    mtb_wait(&sh->done);
    if (progress && *read - last >= 4096) { progress(*read, 1, 0); last = *read; }
    for (int t = 0; t < sh->T + (sh->self != NULL); t++)
      if (sh->w[t].failed && !rerr) { snprintf(err, (size_t)errsz, "%s", sh->w[t].err); rerr = 1; }
    if (!more) break;
    bcur ^= 1;
  }
  return rerr ? -1 : 0;
}

/* Start the T workers (the gate holds them until all are started; if one
 * cannot start, the others return at once), drive the batches, stop and
 * join them. 0, or -1 with err (a worker's error when it failed). */
static int mt_threads(mtShared* sh, dyiLogReader* const* r, int nr, void (*progress)(long long, int, int),
                      long long* read, char* err, int errsz) {
  int T = sh->T, started = 0, ok = 0;
  mtWorker* w = sh->w;
  if (mtb_init(&sh->start, T + 1) || mtb_init(&sh->mid, T) || mtb_init(&sh->done, T + 1)) {
    snprintf(err, (size_t)errsz, "identify: cannot make the threads' barriers");
    return -1;
  }
  pthread_mutex_init(&sh->gate, NULL);
  pthread_mutex_lock(&sh->gate);
  for (; started < T; started++)
    if (pthread_create(&w[started].th, NULL, mt_main, w + started)) {
      snprintf(err, (size_t)errsz, "identify: cannot start thread %d of %d", started + 1, T);
      sh->abort = 1;
      break;
    }
  pthread_mutex_unlock(&sh->gate);
  if (started == T) ok = !mt_drive(sh, r, nr, progress, read, err, errsz);
  if (ok && sh->self && mt_fold(sh->self)) { snprintf(err, (size_t)errsz, "%s", sh->self->err); ok = 0; }
  sh->quit = 1;
  if (started == T) mtb_wait(&sh->start);
  for (int t = 0; t < started; t++) pthread_join(w[t].th, NULL);
  mtb_destroy(&sh->start); mtb_destroy(&sh->mid); mtb_destroy(&sh->done);
  pthread_mutex_destroy(&sh->gate);
  for (int t = 0; t < T + (sh->self != NULL) && ok; t++)
    if (w[t].failed) { snprintf(err, (size_t)errsz, "%s", w[t].err); ok = 0; }
  return ok ? 0 : -1;
}

/* the workers' triangles merged by QR into one estimator (the samples are
 * every worker's: each saw all of them) */
static dyiEstim* mt_merge(const mtWorker* w, int T, int n, int nb, const dyiEstOpt* o, char* err, int errsz) {
  dyiEstim* out = dyi_est_make(n, nb, o, err, errsz);
  for (int t = 0; out && t < T; t++)
    if (dyi_est_merge(out, w[t].e, err, errsz)) { dyi_est_free(out); out = NULL; }
  if (out) { out->samples = w[0].e->samples; out->iterations = 1; }
  return out;
}

/* one unweighted pass over the logs on T worker threads (identify.h);
 * returns the merged estimator (samples, rows, triangles), NULL with err */
static dyiEstim* mt_fold_logs(const dyModel* m, const dyiBase* b, dyiLogReader* const* r, int nr,
                             const dyiEstOpt* o, int T, void (*progress)(long long, int, int),
                             char* err, int errsz) {
  int n = m->n;
  if (T > n) T = n;
  mtShared sh;
  memset(&sh, 0, sizeof sh);
  sh.T = T;
  dyiEstim* out = NULL;
  mtWorker* w = calloc((size_t)T + 1, sizeof *w);
  dyiRows* full = dyi_rows_make(m, b, err, errsz);
  long long read = 0;
  if (!w || !full) goto done;
  sh.w = w;
  sh.nch = full->nch;
  sh.one = malloc(sizeof(dyiSample));
  sh.bchunk = malloc(sizeof(rowsChunk) * 2 * MT_CHUNKS);
  sh.bmem = sh.bchunk ? chunks_make(sh.bchunk, 2 * MT_CHUNKS, n) : NULL;
  for (int i = 0; i < 2; i++) {   /* the batches' channels: only when the workers split them */
    sh.buf[i] = sh.bchunk ? sh.bchunk + i * MT_CHUNKS : NULL;
    sh.X[i] = T > 1 ? malloc(sizeof(double) * MT_BATCH * (size_t)sh.nch) : NULL;
    if (sh.X[i]) dy_huge_pages(sh.X[i], sizeof(double) * MT_BATCH * (size_t)sh.nch);
  }
  if (!sh.one || !sh.bmem || (T > 1 && (!sh.X[0] || !sh.X[1]))) {
    snprintf(err, (size_t)errsz, "identify: out of memory");
    goto done;
  }
  dyiLogInfo li;
  dyi_log_info(r[0], &li);
  unsigned jsel[DY_MAXJ + 1] = {0};
  /* One worker and logs held in memory (the cutoff's pre-pass kept their
   * rows, so reading them parses nothing): the calling thread, which reads
   * the batches (a fraction of the row stage's work: READ_SHARE), takes a
   * share of the joints too (slot 0 of the assignment; it is w[1]), and
   * both run the one-thread row stage on their joints (each computes the
   * regressor of every sample: cheaper than handing its entries over), so
   * that neither core waits while the other works. Each joint's rows and
   * triangle are those of one thread alone: the same estimate bit for bit.
   * While the CSV is parsed on threads of their own the cores are busy:
   * the calling thread only reads (sharing cost 0.41 -> 0.45 s there). */
  const int D = li.parallel && li.decim > 1 ? li.decim : 1;
  int W = T, held = 1;
  for (int k = 0; k < nr; k++) {
    dyiLogInfo lk;
    dyi_log_info(r[k], &lk);
    held &= lk.held;
  }
  if (T == 1 && n > 1 && held) {
    unsigned sel[2] = {0, 0};
    mt_assign(full, n, D, 2, READ_SHARE, sel);
    if (sel[0] && sel[1]) { jsel[1] = sel[0]; jsel[0] = sel[1]; W = 2; }
  }
  if (W == T) mt_assign(full, n, D, T, 0, jsel);
  for (int t = 0; t < W; t++)
    if (mt_worker_make(w + t, &sh, t, m, b, full, jsel[t], o, err, errsz)) goto done;
  if (W > T) sh.self = w + T;
  if (!mt_threads(&sh, r, nr, progress, &read, err, errsz)) out = mt_merge(w, W, n, b->nb, o, err, errsz);
done:
  if (progress) progress(read, 1, 1);
  for (int t = 0; w && t <= T; t++) {
    dyi_rows_free(w[t].full); dyi_rows_free(w[t].rows);
    free(w[t].gidx); free(w[t].x); dyi_est_free(w[t].e);
    free(w[t].chk); free(w[t].bmem);
  }
  free(w);
  dyi_rows_free(full);
  free(sh.one); free(sh.bmem); free(sh.bchunk); free(sh.X[0]); free(sh.X[1]);
  return out;
}

dyiEstim* dyi_identify_logs(const dyModel* m, const dyiBase* b, dyiLogReader* const* r, int nr,
                           const dyiEstOpt* opt, void (*progress)(long long samples, int pass, int final),
                           char* err, int errsz) {
  int n = m->n, nb = b->nb;
  dyiEstOpt o;
  if (opt) o = *opt; else dyi_est_defaults(&o);
  dyiEstim* e = NULL;
  unsigned char* mask = malloc((size_t)n * (size_t)nb);
  const char** names = malloc(sizeof(char*) * (size_t)nb);
  dyiLogRows* s = NULL;
  if (!mask || !names) { snprintf(err, (size_t)errsz, "identify: out of memory"); goto fail; }
  if (!(s = dyi_logrows_make(m, b, r, nr, err, errsz))) goto fail;
  dyi_logrows_progress(s, progress);
  dyi_base_mask(m, b, mask);
  for (int c = 0; c < nb; c++) names[c] = b->name[c];
  o.mask = mask;
  o.names = names;
  /* the white-equivalent variance factor of the filtered rows; logs of
   * other rates or cutoffs: the largest (conservative std) */
  o.var_factor = dyi_logrows_var_factor(s);
  if (o.threads > 1 && o.method != DYI_IRLS) {
    e = mt_fold_logs(m, b, r, nr, &o, o.threads - 1, progress, err, errsz);   /* the caller reads */
    if (!e) goto fail;
    dyi_est_own(e, mask, names);
    mask = NULL; names = NULL;
    if (!o.fold_only && dyi_est_finish(e, err, errsz)) goto fail;
    dyi_logrows_free(s);
    return e;
  }
  e = dyi_est_make(n, nb, &o, err, errsz);
  if (!e) goto fail;
  dyi_est_own(e, mask, names);
  mask = NULL; names = NULL;
  dyiRowSource src = dyi_logrows_source(s);
  if (dyi_est_run(e, &src, err, errsz)) goto fail;
  dyi_logrows_end(s);
  dyi_logrows_free(s);
  return e;
fail:
  dyi_logrows_end(s);
  dyi_est_free(e);
  free(mask); free(names);
  dyi_logrows_free(s);
  return NULL;
}

dyiEstim* dyi_identify(const dyModel* m, const dyiBase* b, dyiLogReader* r, const dyiEstOpt* opt,
                      void (*progress)(long long samples, int pass, int final),
                      char* err, int errsz) {
  return dyi_identify_logs(m, b, &r, 1, opt, progress, err, errsz);
}

/* ------------------------------------------ the parameters' scales from logs */

int dyi_identify_scales(const dyModel* m, const dyiBase* b, const char* const* paths, int nlog,
                        const dyiLogOpt* lopt, double* scale, char* err, int errsz) {
  enum { S = 64 };   /* samples per fill */
  const int n = m->n, p = b->nb, lda = S * n;
  double yy = 0;
  double* ak = calloc((size_t)p, sizeof(double));
  double* A = calloc((size_t)lda * (size_t)p, sizeof(double));
  double* y = malloc(sizeof(double) * (size_t)lda);
  double* rw = malloc(sizeof(double) * (size_t)lda);
  dyiLogReader** r = calloc((size_t)(nlog > 0 ? nlog : 1), sizeof *r);
  dyiLogRows* src = NULL;
  int rc = -1, got;
  if (!ak || !A || !y || !rw || !r) { snprintf(err, (size_t)errsz, "out of memory"); goto done; }
  for (int l = 0; l < nlog; l++)
    if (!(r[l] = dyi_log_open(paths[l], n, lopt, err, errsz))) goto done;
  if (!(src = dyi_logrows_make(m, b, r, nlog, err, errsz))) goto done;
  /* the squares of every row: of the torque into yy, of column k into ak[k] */
  for (;;) {
    for (int i = 0; i < lda; i++) rw[i] = 1;
    if ((got = log_fill(src, A, lda, y, rw, S, err, errsz)) <= 0) break;
    for (int i = 0; i < got * n; i++) {
      const double r2 = rw[i] * rw[i];
      yy += r2 * y[i] * y[i];
      for (int k = 0; k < p; k++) ak[k] += r2 * A[i + (size_t)lda * k] * A[i + (size_t)lda * k];
    }
  }
  if (got < 0) goto done;
  for (int k = 0; k < p; k++) scale[k] = ak[k] > 0 ? sqrt(yy / ak[k]) : INFINITY;
  rc = 0;
done:
  dyi_logrows_free(src);
  for (int l = 0; r && l < nlog; l++) dyi_log_close(r[l]);
  free(r); free(ak); free(A); free(y); free(rw);
  return rc;
}
