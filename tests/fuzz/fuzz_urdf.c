/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the URDF reader. */
#include "fuzz_common.h"
#include "core/io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = fuzz_file(data, size, ".urdf");
  char err[DY_ERRSZ];
  dyLoadOpt opt = {0};
  dyModel* m = NULL;
  if (dy_load_urdf(path, &opt, &m, err, sizeof err) == 0) dy_free_model(m);
  else if (!strstr(err, path) || strchr(err, '\n')) abort();   /* one line naming the file */
  return 0;
}
