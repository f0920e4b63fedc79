/* SPDX-License-Identifier: MIT */
/* dynid tests: the Khalil grouping's closed-form rules (ident/base.c) on a
 * wide sweep of random geometries. The rules must account for every
 * dependency: the numerical fallback (a QR on the grouped regressor, which
 * the set reports in its note and dynid base as a warning) is an error here.
 * Each set is also proved by the project's rank test (dyi_base_make
 * returns NULL when it fails) and its size compared with the QR set's.
 * Geometries: twists snapped to 0, +-pi/2, pi (parallel and perpendicular
 * axes), a = 0 (intersecting; with alpha = 0 coaxial), d = 0, theta of a
 * prismatic joint snapped, prismatic joints anywhere and in a row, gravity
 * random, along the first axis, or zero; with and without friction. */
#include "testmodels.h"
#include "ident/base.h"
#include <string.h>

#ifndef KHALIL_SWEEP
#define KHALIL_SWEEP TH_SWEEP(800)
#endif

int main(void) {
  int fallbacks = 0;
  for (int t = 0; t < KHALIL_SWEEP; t++) {
    const int n = 1 + t % 7, fr = t % 7 == 3;
    dyModel* m = th_random_model(n, t % 3 == 0 ? 0.5 : 0.25, t % 4 ? 0.85 : 0.5, fr);
    for (int j = 0; j < n; j++)
      if (th_uniform(0, 1) < 0.5) m->dh_theta[j] = th_uniform(0, 1) < 0.5 ? 0 : M_PI/2;
    if (t % 5 == 1) { m->gravity[0] = 0; m->gravity[1] = 0; m->gravity[2] = -9.81; m->dh_alpha[0] = 0; dy_set_const(m); }
    if (t % 4 == 0) m->gravity[0] = m->gravity[1] = m->gravity[2] = 0;
    char err[256] = "", ty[DY_MAXJ + 1];
    for (int j = 0; j < n; j++) ty[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
    ty[n] = 0;
    dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, fr, err, sizeof err);
    dyiBase* q = dyi_base_make(m, DYI_SET_QR, fr, err, sizeof err);
    CHECK(b != NULL, "sweep %d %s: khalil set refused: %s", t, ty, err);
    if (b && q) CHECK(b->nb == q->nb, "sweep %d %s: khalil %d vs qr %d base parameters", t, ty, b->nb, q->nb);
    if (b && b->note[0]) {
      fallbacks++;
      CHECK(0, "sweep %d %s (alpha", t, ty);
      for (int j = 0; j < n; j++) fprintf(stderr, " %.4g", m->dh_alpha[j]);
      fprintf(stderr, "): %s\n", b->note);
    }
    dyi_base_free(b);
    dyi_base_free(q);
    dy_free_model(m);
  }
  printf("khalil sweep: %d geometries, %d needed the numerical fallback\n", KHALIL_SWEEP, fallbacks);
  return test_report();
}
