/* SPDX-License-Identifier: MIT */
/* dynid general utilities (see util.h). */
#include "core/util.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <sys/mman.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

/* advice a system lacks: none given */
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE -1
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE -1
#endif

/* madvise over the whole pages inside [p, p + bytes), when the system has the advice */
static void advise_pages(void* p, size_t bytes, int advice) {
  const uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
  if (p && e > a && advice >= 0) madvise((void*)a, e - a, advice);
}

void dy_huge_pages(void* p, size_t bytes) { advise_pages(p, bytes, MADV_HUGEPAGE); }

void dy_prefault(void* p, size_t bytes) { advise_pages(p, bytes, MADV_POPULATE_WRITE); }

void* dy_malloc_huge(size_t bytes) {
  const size_t huge = DY_HUGE_PAGE;
  if (bytes < huge / 2) return malloc(bytes ? bytes : 1);
  const size_t n = (bytes + huge - 1) / huge * huge;
  void* p = aligned_alloc(huge, n);
  dy_huge_pages(p, n);
  return p;
}

#define FRESH_MIN ((size_t)256 << 10)

/* The last block given back, kept for the next request of its size (a
 * program that makes and frees the same estimator over and over): only
 * its pages in memory (mincore) are cleared then, the others are still
 * the system's zero pages, so reuse costs neither a page fault nor a
 * write where the block was never written. */
static pthread_mutex_t fresh_mu = PTHREAD_MUTEX_INITIALIZER;
static void* fresh_kept;
static size_t fresh_kept_bytes;

/* the resident pages of [p, p + bytes) zeroed (p page-aligned; mincore
 * gives a byte per page of the system's size) */
static void clear_resident(unsigned char* p, size_t bytes) {
  const long ps = sysconf(_SC_PAGESIZE);
  const size_t page = ps > 0 ? (size_t)ps : 4096, span = 256 * page;
  unsigned char vec[256];
  for (size_t off = 0; off < bytes; off += span) {
    const size_t len = bytes - off < span ? bytes - off : span;
    if (mincore(p + off, len, vec)) { memset(p + off, 0, len); continue; }
    for (size_t k = 0; k * page < len; k++)
      if (vec[k] & 1) memset(p + off + k * page, 0, len - k * page < page ? len - k * page : page);
  }
}

void* dy_calloc_fresh(size_t bytes) {
  if (bytes < FRESH_MIN) return calloc(1, bytes ? bytes : 1);
  void* p = NULL;
  pthread_mutex_lock(&fresh_mu);
  if (fresh_kept && fresh_kept_bytes == bytes) { p = fresh_kept; fresh_kept = NULL; }
  pthread_mutex_unlock(&fresh_mu);
  if (p) { clear_resident(p, bytes); return p; }
  p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void dy_free_fresh(void* p, size_t bytes) {
  if (!p) return;
  if (bytes < FRESH_MIN) { free(p); return; }
  pthread_mutex_lock(&fresh_mu);
  void* old = fresh_kept;
  const size_t ob = fresh_kept_bytes;
  fresh_kept = p; fresh_kept_bytes = bytes;
  pthread_mutex_unlock(&fresh_mu);
  if (old) munmap(old, ob);
}

int dy_dlsyms(const char* const* libs, const char* pkg, const char* const* names, int n, dyFn* fn,
              char* err, int errsz) {
  void* h = NULL;
  int li = 0;
  for (; libs[li] && !(h = dlopen(libs[li], RTLD_NOW | RTLD_LOCAL)); li++) {}
  if (!h) {
    snprintf(err, (size_t)errsz, "cannot load %s (%s): install the Debian package %s", libs[0], dlerror(), pkg);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    void* f = dlsym(h, names[i]);
    if (!f) {
      snprintf(err, (size_t)errsz, "%s has no function %s: install the Debian package %s", libs[li], names[i], pkg);
      return -1;
    }
    memcpy(&fn[i], &f, sizeof f);   /* a data pointer to a function pointer: POSIX allows it, ISO C has no cast */
  }
  return 0;
}

double dy_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int dy_cmp_double(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

int dy_strv_push(char*** v, int* n, int* cap, const char* s) {
  if (*n == *cap) {
    int c2 = *cap ? 2 * *cap : 8;
    char** t = realloc(*v, sizeof(char*) * (size_t)c2);
    if (!t) return -1;
    *v = t;
    *cap = c2;
  }
  if (!((*v)[*n] = strdup(s))) return -1;
  (*n)++;
  return 0;
}

int dy_decimal_comma(const char* s) {
  while (*s == ' ') s++;
  if (*s == '-' || *s == '+') s++;
  int before = 0, after = 0;
  while (*s >= '0' && *s <= '9') { s++; before++; }
  if (*s++ != ',') return 0;
  while (*s >= '0' && *s <= '9') { s++; after++; }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '-' || *s == '+') s++;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  while (*s == ' ' || *s == '\r') s++;
  return before > 0 && after > 0 && !*s;
}

const char* dy_field_shown(const char* field, char* buf, size_t sz) {
  snprintf(buf, sz, "%.32s", field);
  for (char* p = buf; *p; p++) if (!isprint((unsigned char)*p)) *p = '?';
  return buf;
}
