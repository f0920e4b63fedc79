/* SPDX-License-Identifier: MIT */
/* dynid general utilities (see util.h). */
#include "core/util.h"
#include <time.h>

double dy_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int dy_cmp_double(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}
