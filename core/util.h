/* SPDX-License-Identifier: MIT */
/* dynid general utilities: a monotonic clock, the qsort comparator of
 * doubles and the pseudo-random generators every layer draws from.
 *
 * The generators are the ones dynid's results were made with; each random
 * stream (test states, rank tests of base sets, excitation starts, bench
 * states) depends on the exact sequence, so none may change:
 *   xorshift64*  state s:  s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
 *                output s * 2685821657736338717
 *   splitmix64   state s += 0x9e3779b97f4a7c15, output the state mixed
 *   LCG64        s = 6364136223846793005 s + 1442695040888963407 (Knuth's
 *                MMIX constants), output s itself
 * A double in [0, 1) takes the top 53 bits of an output: (x >> 11) / 2^53. */
#ifndef DYNID_UTIL_H
#define DYNID_UTIL_H

#include <stddef.h>

/* Function multiversioning for the batch kernels: on x86-64 a function
 * marked DY_CLONES is compiled for AVX-512F, AVX2 and baseline SSE2, and
 * the loader picks the best one the CPU and OS support. -std=c11 keeps
 * floating-point contraction off, so every variant performs the same
 * operations. -DDY_BATCH_NO_CLONES builds one variant for the flags given. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(DY_BATCH_NO_CLONES)
#if __has_attribute(target_clones)
#define DY_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef DY_CLONES
#define DY_CLONES
#endif

/* GCC's per-function optimisation switches (other compilers: nothing):
 * DY_VECTORIZE vectorises the function's loops at -O2 too; DY_LOOP_COPIES
 * keeps its copies of a few values as loops instead of memcpy calls. */
#if defined(__GNUC__) && !defined(__clang__)
#define DY_VECTORIZE __attribute__((optimize("tree-vectorize")))
#define DY_LOOP_COPIES __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define DY_VECTORIZE
#define DY_LOOP_COPIES
#endif

/* s[b] = sin x[b], c[b] = cos x[b], b = 0..7: mathu.h's dyu_sincos8
 * built per vector width (DY_CLONES), for the single calls of the
 * base-parameter Newton-Euler (up to 8 joints per call), whose batch
 * kernel inlines dyu_sincos8 into its own variants: the same bits either
 * way. */
void dy_sincos8(double s[8], double c[8], const double x[8]);   /* (core/rnea.c) */

/* Monotonic wall clock [s] (CLOCK_MONOTONIC), for timings. */
double dy_now_s(void);

/* Ask for transparent huge pages on the whole 4 KiB pages inside
 * [p, p + bytes): a large buffer then faults in once per 2 MiB instead of
 * once per 4 KiB as it is first written (page faults are dear on virtual
 * machines). A hint: nothing happens where the system does not offer it.
 * For buffers of a few MiB and more. */
void dy_huge_pages(void* p, size_t bytes);
/* a transparent huge page on x86-64 and most Arm systems [bytes] */
#define DY_HUGE_PAGE ((size_t)2 << 20)
/* Fault in the whole 4 KiB pages inside [p, p + bytes), for writing, in one
 * call (madvise MADV_POPULATE_WRITE) instead of one page fault each as
 * they are first written: for a large buffer that will be written whole
 * soon. A hint: nothing where the system does not offer it. */
void dy_prefault(void* p, size_t bytes);
/* bytes of memory (malloc's, free() returns it) for a buffer that will be
 * written nearly whole: from 1 MiB up aligned to 2 MiB, its size rounded
 * up to whole 2 MiB, and in transparent huge pages where the system has
 * them, so that it faults in once per 2 MiB instead of once per 4 KiB. A
 * page fault costs ~10 us on a virtual machine, zeroing 2 MiB ~1 ms: for
 * buffers that the writes fill, not for room that may stay unused. */
void* dy_malloc_huge(size_t bytes);
/* bytes of zeroed memory whose pages are faulted in only where they are
 * written: from 256 KiB up fresh pages from the system (mmap), which are
 * zero, where calloc clears reused heap memory and so touches it all (once
 * the allocator has raised its mmap threshold, as it does after a large
 * block is freed). Returned by dy_free_fresh with the same bytes, which
 * keeps the last block for the next request of its size (a loop that
 * makes and frees the same estimator): only its pages in memory are
 * cleared then. Thread-safe. */
void* dy_calloc_fresh(size_t bytes);
void dy_free_fresh(void* p, size_t bytes);

/* A shared library loaded when a command first needs it (dlopen), not at
 * every start: the first of libs (NULL-terminated sonames) that loads,
 * and its functions names[0..n-1] into fn (in that order). Only the
 * commands that read a URDF or draw a plot pay the dynamic loader's ~5 ms
 * for libxml2 and PLplot and the libraries behind them. 0, or -1 with err
 * naming the library or the function and what to install. */
typedef void (*dyFn)(void);
int dy_dlsyms(const char* const* libs, const char* pkg, const char* const* names, int n, dyFn* fn,
              char* err, int errsz);

/* qsort comparator of doubles, ascending (NaN compares equal to all). */
int dy_cmp_double(const void* a, const void* b);

/* 1 when s reads as a number written with a decimal comma ("-0,9584",
 * "12,5e-3"): the hint a "not a number" message gives */
int dy_decimal_comma(const char* s);

/* a copy of s appended to the growing list *v (*n strings, room for *cap;
 * doubled when full, from 8); 0, or -1 out of memory (the list unchanged) */
int dy_strv_push(char*** v, int* n, int* cap, const char* s);

/* A cell's text as an error message shows it: its first 32 bytes, every
 * byte that is not printable (a newline of a quoted cell, a control byte)
 * as '?', into buf (40 bytes or more); returns buf. */
const char* dy_field_shown(const char* field, char* buf, size_t sz);

/* xorshift64*: advance the state s (nonzero) and return the output. */
static inline unsigned long long dy_rng_xorshift(unsigned long long* s) {
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* splitmix64: advance the state s (any value) and return the output. */
static inline unsigned long long dy_rng_splitmix(unsigned long long* s) {
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* LCG64: advance the state s and return it. */
static inline unsigned long long dy_rng_lcg(unsigned long long* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s;
}

/* A generator output x as a double in [0, 1): its top 53 bits / 2^53. */
static inline double dy_rng_u01(unsigned long long x) {
  return (double)(x >> 11) / 9007199254740992.0;
}

/* Uniform in [a, b) from the xorshift64* stream s: a + (b - a) u. */
static inline double dy_uniform(unsigned long long* s, double a, double b) {
  return a + (b - a) * dy_rng_u01(dy_rng_xorshift(s));
}

#endif
