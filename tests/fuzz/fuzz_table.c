/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the model-table reader (modified and classic DH). */
#include "fuzz_common.h"
#include "core/io.h"
#include "core/dynamics.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = fuzz_file(data, size, ".csv");
  char err[DY_ERRSZ];
  for (int classic = 0; classic < 2; classic++) {
    dyLoadOpt opt = {0};
    opt.classic_dh = classic;
    dyModel* m = NULL;
    if (dy_load_table(path, &opt, &m, err, sizeof err) == 0) {
      /* a model that loads must run the dynamics without trouble */
      dyData* d = dy_make_data(m);
      double q[DY_MAXJ] = {0}, tau[DY_MAXJ];
      dy_rnea(m, d, m->par, q, q, q, tau);
      dy_free_data(d);
      dy_free_model(m);
    } else if (!strstr(err, path) || strchr(err, '\n')) {
      abort();   /* every error names its file, on one line */
    }
  }
  return 0;
}
