/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the PARAMS reader (expressions parsed against a fixed
 * 3-joint model, the drive gains' GAIN rows alone) and the payload file's
 * reader, on the same bytes. */
#include "fuzz_common.h"
#include "ident/params.h"
#include "ident/payload.h"
#include "core/io.h"

static dyModel* model(void) {
  static dyModel* m;
  if (!m) {
    m = dy_make_model(3);
    m->jnt_type[1] = DY_PRISMATIC;
    m->dh_alpha[1] = 1.5707963267948966; m->dh_a[2] = 0.4;
    dy_set_const(m);
  }
  return m;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = fuzz_file(data, size, ".csv");
  char err[DY_ERRSZ];
  dyiParams* p = dyi_params_read(path, model(), err, sizeof err);
  if (p) {
    double par[42];
    dyi_params_realise(model(), p, par);
    dyi_params_free(p);
  } else if (!strstr(err, path) || strchr(err, '\n')) {
    abort();   /* one line naming the file */
  }
  double g[3], gs[3], ph[10], ps[10];
  int det[10];
  if (dyi_params_read_gains(path, 3, g, gs, err, sizeof err) < 0 && (!strstr(err, path) || strchr(err, '\n'))) abort();
  if (dyi_payload_read(path, ph, ps, det, err, sizeof err) && (!strstr(err, path) || strchr(err, '\n'))) abort();
  return 0;
}
