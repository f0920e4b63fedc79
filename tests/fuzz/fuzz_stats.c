/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the statistics files of identify --save-stats, read as
 * identify --stats reads them: the head alone, then, for a head that names
 * a base set and friction kinds, the merge of its triangles into an
 * estimator of that set for a fixed 3-joint model (the seeds were written
 * for this model, so their columns match). */
#include "fuzz_common.h"
#include "ident/stats.h"
#include "ident/base.h"
#include "core/io.h"

/* base sets are made once per (set, friction, kinds) and kept: making one
 * costs a QR of a sampled regressor, far more than reading a file */
static const dyiBase* base_set(const dyModel* m, dyiBaseSet set, int friction, unsigned keep) {
  static struct { dyiBaseSet set; int friction; unsigned keep; dyiBase* b; } cache[16];
  static int ncache;
  for (int i = 0; i < ncache; i++)
    if (cache[i].set == set && cache[i].friction == friction && cache[i].keep == keep) return cache[i].b;
  char err[DY_ERRSZ];
  dyiBase* b = dyi_base_make(m, set, friction, err, sizeof err);
  if (b && dyi_base_keep_joint(m, b, keep, err, sizeof err)) { dyi_base_free(b); b = NULL; }
  if (ncache < 16) {
    cache[ncache].set = set;
    cache[ncache].friction = friction; cache[ncache].keep = keep; cache[ncache].b = b;
    ncache++;
  } else if (b) {
    dyi_base_free(b);   /* not reached with three sets and sixteen kinds of friction */
    return NULL;
  }
  return b;
}

static int bad_error(const char* err, const char* path) {
  return !strstr(err, path) || strchr(err, '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dyModel* m = fuzz_model3();
  const char* path = fuzz_file(data, size, ".stats");
  char err[DY_ERRSZ];
  dyiStatsHead ref;
  if (dyi_stats_head(path, &ref, err, sizeof err)) {
    if (bad_error(err, path)) abort();   /* one line naming the file */
    return 0;
  }
  if (ref.n != m->n) return 0;
  int friction = strcmp(ref.friction, "off") != 0;
  unsigned keep = 15u;
  char kinds[32], bad[40];
  snprintf(kinds, sizeof kinds, "%s", ref.friction);
  for (char* p = kinds; *p; p++) if (*p == ' ') *p = ',';
  if (friction && dyi_friction_kinds(kinds, &keep, bad, sizeof bad)) return 0;
  const dyiBase* b = base_set(m, ref.set, friction, keep);
  if (!b || b->nb > 64) return 0;
  unsigned char mask[3 * 64];
  dyi_base_mask(m, b, mask);
  dyiEstOpt eo;
  dyi_est_defaults(&eo);
  eo.mask = mask;
  dyiEstim* e = dyi_est_make(m->n, b->nb, &eo, err, sizeof err);
  if (e) {
    dyiStatsHead acc = ref;
    if (dyi_stats_merge_file(path, &ref, b, e, &acc, err, sizeof err) && bad_error(err, path)) abort();
    dyi_est_free(e);
  }
  return 0;
}
