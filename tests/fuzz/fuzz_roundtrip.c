/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the model writers against the readers. The first byte
 * picks the input's kind (even: a model table, odd: a URDF); any model the
 * reader accepts is written as a table and as a URDF (core/io.h
 * dy_write_model), read back with no options, and must give the same
 * torques at a few states (1e-9 of the torque scale: %.17g numbers read
 * back exactly, only the URDF's re-derived frames add round-off). A URDF
 * the writer refuses (links that are no rigid body) must say so in one
 * line; one written with losses (gravity it cannot hold) is not compared. */
#include "fuzz_common.h"
#include "core/io.h"
#include "core/dynamics.h"
#include <math.h>

static void torques(const dyModel* m, dyData* d, const double* x, double* tau) {
  const int n = m->n;
  dy_rnea(m, d, m->par, x, x + n, x + 2*n, tau);
}

static void compare(const dyModel* a, const char* path) {
  char err[DY_ERRSZ];
  dyModel* b = NULL;
  if (dy_load_model(path, NULL, &b, err, sizeof err)) abort();   /* dynid's own file must read */
  if (b->n != a->n) abort();
  const int n = a->n;
  dyData* da = dy_make_data(a);
  dyData* db = dy_make_data(b);
  double x[3*DY_MAXJ], ta[DY_MAXJ], tb[DY_MAXJ];
  for (int s = 0; s < 3; s++) {
    for (int k = 0; k < 3*n; k++) x[k] = sin(1.3 * (k + 1) * (s + 1));
    torques(a, da, x, ta);
    torques(b, db, x, tb);
    double scale = 1, diff = 0;
    for (int j = 0; j < n; j++) { scale = fmax(scale, fabs(ta[j])); diff = fmax(diff, fabs(ta[j] - tb[j])); }
    if (isfinite(scale) && scale < 1e8 && diff > 1e-9 * scale) abort();
  }
  dy_free_data(da); dy_free_data(db);
  dy_free_model(b);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int urdf = data[0] & 1;
  const char* path = fuzz_file(data + 1, size - 1, urdf ? ".urdf" : ".csv");
  char err[DY_ERRSZ], out[300];
  dyModel* m = NULL;
  if (dy_load_model(path, NULL, &m, err, sizeof err)) return 0;
  snprintf(out, sizeof out, FUZZ_DIR "/dynid-fuzz-rt-%d.csv", (int)getpid());
  if (dy_write_model(out, m, m->par, "fuzz", err, sizeof err) != 0) abort();   /* a table holds any model */
  compare(m, out);
  snprintf(out, sizeof out, FUZZ_DIR "/dynid-fuzz-rt-%d.urdf", (int)getpid());
  int r = dy_write_model(out, m, m->par, "fuzz", err, sizeof err);
  if (r < 0 && (strchr(err, '\n') || !strstr(err, "write a .csv"))) abort();
  if (r == 0) compare(m, out);
  dy_free_model(m);
  return 0;
}
