/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the log reader with its preprocessing, on a 3-joint
 * model (the first byte chooses a few options). */
#include "fuzz_common.h"
#include "ident/log.h"
#include "core/io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* path = fuzz_file(data + 1, size - 1, ".csv");
  char err[DY_ERRSZ];
  dyiLogOpt opt;
  dyi_log_defaults(&opt);
  opt.no_header = data[0] & 1;
  opt.on_bad = (data[0] >> 1) & 1;
  if (data[0] & 4) opt.cutoff_hz = -1;
  dyiLogReader* r = dyi_log_open(path, 3, &opt, err, sizeof err);
  if (!r) {
    if (!strstr(err, path) || strchr(err, '\n')) abort();   /* one line naming the file */
    return 0;
  }
  dyiSample s;
  long k = 0;
  int rc;
  while ((rc = dyi_log_next(r, &s, err, sizeof err)) > 0 && k < 100000) k++;
  if (rc < 0 && (!strstr(err, path) || strchr(err, '\n'))) abort();
  dyi_log_close(r);
  return 0;
}
