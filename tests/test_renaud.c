/* SPDX-License-Identifier: MIT */
/* dynid tests: Renaud's augmented-body Newton-Euler (verify/renaud.c)
 * against dy_rnea (core/rnea.c, which shares none of its code) and Orocos
 * KDL (tests/kdl_shim.h), and its executed operation counts:
 *  - random chains, revolute and prismatic joints anywhere, general and
 *    special geometry (alpha in {0, +-pi/2, pi}, a = d = 0), with friction;
 *    the nominal parameters, their exact zeros, and the realisations of the
 *    khalil and qr base sets (grouped parameters: masses moved, entries
 *    zero); every shipped model with its load options; 1e-10 relative;
 *  - the counting twin gives the same torques bit for bit;
 *  - [Renaud]'s 6R example: 181 M + 127 A with the parameters of its table
 *    (each a*, b*, c*, one first moment per link); with the base parameters
 *    of that geometry (his remark: y5 and z6 occur only as their
 *    difference; the grouping makes every such pair one parameter) the
 *    paper reaches 164 M + 115 A. Counts are held within 5 % of the values
 *    below. Tolerance: round-off of O(n) sums of O(1) products is ~1e-14. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "verify/renaud.h"
#include "verify/opcount.h"
#include "ident/base.h"
#include "core/io.h"
#include "kdl_shim.h"
#include <glob.h>
#include <string.h>

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

/* renaud on par against dy_rnea on par, 5 random states; and the twin */
static void agree(const dyModel* m, const double* par, const char* what) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  static dyvRenaud r;
  dyv_renaud_make(&r, m, par);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ];
  double worst = 0, scale = 0, twin = 0;
  for (int s = 0; s < 5; s++) {
    th_random_state(n, q, qd, qdd);
    dy_rnea(m, d, par, q, qd, qdd, t0);
    dyv_renaud_rnea(&r, q, qd, qdd, t1);
    dyvOps ops = {0, 0};
    dyv_renaud_rnea_ops(&ops, &r, q, qd, qdd, t2);
    scale = fmax(scale, maxabs(t0, n));
    for (int i = 0; i < n; i++) {
      worst = fmax(worst, fabs(t1[i] - t0[i]));
      twin = fmax(twin, fabs(t2[i] - t1[i]));
    }
  }
  CHECK(worst <= 1e-10 * fmax(scale, 1), "%s: renaud vs dy_rnea %.3g (max |tau| %.3g)", what, worst, scale);
  CHECK(twin == 0, "%s: counting twin differs by %.3g", what, twin);
  dy_free_data(d);
}

/* the realisation P beta of a base set with beta = B par */
static void realise(const dyiBase* b, const double* par, double* out) {
  double beta[14*DY_MAXJ];
  for (int i = 0; i < b->nb; i++) {
    double s = 0;
    for (int k = 0; k < b->npar; k++) s += b->B[(size_t)i*b->npar + k] * par[k];
    beta[i] = s;
  }
  memset(out, 0, sizeof(double) * 14 * DY_MAXJ);
  for (int k = 0; k < b->npar; k++) {
    double s = 0;
    for (int c = 0; c < b->nb; c++) s += b->P[(size_t)k*b->nb + c] * beta[c];
    out[k] = s;
  }
}

static void sets(const dyModel* m, const char* what) {
  char err[256], w[160];
  const char* names[2] = {"khalil", "qr"};
  for (int k = 0; k < 2; k++) {
    dyiBase* b = dyi_base_make(m, dyi_base_set_parse(names[k], NULL, 0), m->has_friction, err, sizeof err);
    if (!b) continue;
    double par[14*DY_MAXJ];
    realise(b, m->par, par);
    if (b->npar < 14*m->n) memcpy(par + b->npar, m->par + b->npar, sizeof(double) * (size_t)(14*m->n - b->npar));
    snprintf(w, sizeof w, "%s, %s realisation", what, names[k]);
    agree(m, par, w);
    dyi_base_free(b);
  }
}

static void shipped(const dyModel* m, const char* path) {
  agree(m, m->par, path);
  sets(m, path);
}

/* executed count of one call */
static void count(const dyModel* m, const double* par, long c[2]) {
  static dyvRenaud r;
  dyv_renaud_make(&r, m, par);
  dyv_renaud_count(&r, &c[0], &c[1]);
}

int main(void) {
  char what[128];
  /* random chains */
  for (int t = 0; t < TH_SWEEP(60); t++) {
    const int n = 1 + t % 8;
    dyModel* m = th_random_model(n, t % 4 == 1 ? 0 : 0.35, t % 3 == 0 ? 0 : 0.6, 1);
    if (t % 5 == 1) m->gravity[0] = 3, m->gravity[1] = -2;
    snprintf(what, sizeof what, "random #%d n=%d", t, n);
    agree(m, m->par, what);
    sets(m, what);
    /* KDL as a third, independent computation */
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
    static dyvRenaud r;
    dyv_renaud_make(&r, m, m->par);
    th_random_state(n, q, qd, qdd);
    dyv_renaud_rnea(&r, q, qd, qdd, t1);
    kdl_chain* kc = kdl_make(m, m->par, KDL_AXIS);
    CHECK(kc && kdl_id(kc, q, qd, qdd, t0) == 0, "%s: KDL", what);
    if (kc) {
      double w = 0, s = maxabs(t0, n);
      for (int i = 0; i < n; i++) w = fmax(w, fabs(t1[i] - t0[i]));
      CHECK(w <= 1e-9 * fmax(s, 1), "%s: renaud vs KDL %.3g", what, w);
      kdl_free(kc);
    }
    dy_free_model(m);
  }
  /* shipped models with their load options */
  th_each_shipped(shipped);
  /* [Renaud]'s 6R example and his simplification: the same torques (the
   * fold of z6 into y5 is exact), counts beside the paper's and held */
  static const long held[2][2] = {{181, 127}, {166, 115}}, paper[2][2] = {{181, 127}, {164, 115}};
  dyModel* r6[2] = {dyv_renaud_model(0), dyv_renaud_model(1)};
  for (int k = 0; k < 2; k++) {
    snprintf(what, sizeof what, "renaud 6R%s", k ? " simplified" : "");
    agree(r6[k], r6[k]->par, what);
    long c[2];
    count(r6[k], r6[k]->par, c);
    printf("%s: %ld M + %ld A (paper %ld M + %ld A)\n", what, c[0], c[1], paper[k][0], paper[k][1]);
    for (int j = 0; j < 2; j++) {
      CHECK(labs(c[j] - held[k][j]) <= 0.05 * held[k][j], "%s: %ld vs held %ld", what, c[j], held[k][j]);
      CHECK(c[j] <= 1.05 * paper[k][j], "%s: %ld vs the paper's %ld", what, c[j], paper[k][j]);
    }
  }
  {
    dyData* d = dy_make_data(r6[0]);
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
    th_random_state(6, q, qd, qdd);
    dy_rnea(r6[0], d, r6[0]->par, q, qd, qdd, t0);
    dy_rnea(r6[1], d, r6[1]->par, q, qd, qdd, t1);
    double w = 0;
    for (int i = 0; i < 6; i++) w = fmax(w, fabs(t1[i] - t0[i]));
    CHECK(w <= 1e-12 * fmax(maxabs(t0, 6), 1), "renaud 6R: y5 - z6 fold changes the torques by %.3g", w);
    dy_free_data(d);
  }
  dy_free_model(r6[0]); dy_free_model(r6[1]);
  return test_report();
}
