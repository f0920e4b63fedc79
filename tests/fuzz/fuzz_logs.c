/* SPDX-License-Identifier: MIT */
/* libFuzzer target: several logs in one identification, as
 * `dynid identify MODEL LOG1 LOG2 ... -o PARAMS` reads them. The first byte
 * chooses the options (bit 0: no header, bit 1: --on-bad stop, bit 2: no
 * filter, bit 3: two worker threads, bit 4: WLS instead of OLS); the rest
 * is cut at NUL bytes into up to three log files for a fixed 3-joint model.
 * Every reader must open or fail with one line naming its file; the
 * stacked identification must return an estimate or fail with one line. */
#include "fuzz_common.h"
#include "ident/log.h"
#include "ident/base.h"
#include "ident/identify.h"
#include "core/io.h"

#define LOGS_MAX 3

/* the model and its base set, made once (a base set costs a QR) */
static const dyModel* logs_model(const dyiBase** b) {
  static dyiBase* base;
  const dyModel* m = fuzz_model3();
  if (!base) {
    char err[DY_ERRSZ];
    base = dyi_base_make(m, DYI_SET_QR, 0, err, sizeof err);
    if (!base) abort();
  }
  *b = base;
  return m;
}

static int one_line_naming(const char* err, const char* path) {
  return err[0] && !strchr(err, '\n') && (!path || strstr(err, path));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const dyiBase* b;
  const dyModel* m = logs_model(&b);
  dyiLogOpt opt;
  dyi_log_defaults(&opt);
  opt.no_header = data[0] & 1;
  opt.on_bad = (data[0] >> 1) & 1;
  if (data[0] & 4) opt.cutoff_hz = -1;
  /* cut the rest into files at NUL bytes */
  static char paths[LOGS_MAX][256];
  dyiLogReader* r[LOGS_MAX] = {0};
  int nr = 0, ok = 1;
  size_t at = 1;
  char err[DY_ERRSZ];
  while (at <= size && nr < LOGS_MAX && ok) {
    const uint8_t* end = memchr(data + at, 0, size - at);
    size_t len = end ? (size_t)(end - (data + at)) : size - at;
    char suffix[16];
    snprintf(suffix, sizeof suffix, ".%d.csv", nr + 1);
    snprintf(paths[nr], sizeof paths[nr], "%s", fuzz_file(data + at, len, suffix));
    r[nr] = dyi_log_open(paths[nr], m->n, &opt, err, sizeof err);
    if (!r[nr]) {
      if (!one_line_naming(err, paths[nr])) abort();
      ok = 0;
    } else nr++;
    if (!end) break;
    at += len + 1;
  }
  if (ok && nr > 0) {
    unsigned char mask[3 * 64];
    if (b->nb > 64) abort();
    dyi_base_mask(m, b, mask);
    dyiEstOpt eo;
    dyi_est_defaults(&eo);
    eo.mask = mask;
    eo.threads = (data[0] & 8) ? 2 : 1;
    if (data[0] & 16) eo.method = DYI_WLS;
    dyiEstim* e = dyi_identify_logs(m, b, r, nr, &eo, NULL, err, sizeof err);
    if (e) dyi_est_free(e);
    else if (!one_line_naming(err, NULL)) abort();
  }
  for (int i = 0; i < nr; i++) dyi_log_close(r[i]);
  return 0;
}
