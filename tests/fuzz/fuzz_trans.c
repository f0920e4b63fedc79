/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the transmission reader (core/transmission.h), for
 * 1..8 joints; an R it accepts must invert within its condition number and
 * drive a model's regressor and Newton-Euler (its coupled motors). */
#include "fuzz_common.h"
#include "core/io.h"
#include "core/transmission.h"
#include "core/dynamics.h"
#include <math.h>

/* an accepted R: R R^-1 = 1 within 1e-15 cond n per entry, and a model of
 * n revolute joints takes it and runs Newton-Euler with its motors */
static void accepted(const double* R, int n) {
  double Ri[64], cond;
  if (dy_trans_invert(R, n, Ri, &cond)) abort();
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += R[i*n + k] * Ri[k*n + j];
      if (!(fabs(s - (i == j)) <= 1e-15 * cond * n + 1e-300)) abort();
    }
  dyModel* m = dy_make_model(n);
  char err[DY_ERRSZ];
  if (!m || dy_set_transmission(m, R, err, sizeof err)) abort();
  for (int c = 0; c < dy_npar(m); c++) m->par[c] = 1;
  dyData* d = dy_make_data(m);
  double q[8] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, tau[8];
  dy_rnea(m, d, m->par, q, q, q, tau);
  dy_free_data(d);
  dy_free_model(m);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = fuzz_file(data, size, ".csv");
  char err[DY_ERRSZ];
  for (int n = 1; n <= 8; n++) {
    double R[64];
    if (dy_trans_read(path, n, R, err, sizeof err) == 0) accepted(R, n);
    else if (!strstr(err, path) || strchr(err, '\n')) abort();   /* one line naming the file */
  }
  return 0;
}
