/* SPDX-License-Identifier: MIT */
/* dynid tests: dy_rnea_batch (K states per call, structure of arrays) against
 * dy_rnea state by state, and dyi_regressor_batch against dyi_regressor
 * entry by entry and, independently, Y_k pi against dy_rnea_batch, on random chains (revolute and prismatic joints,
 * special and general twists, with and without friction, nominal and
 * random parameter vectors) and on every shipped model, K = 1, 3, 8, 64
 * (a partial chunk, one full chunk, many chunks). Tolerance 1e-14 relative
 * to the largest torque of the state; the kernel performs dy_rnea's
 * operations in the same order, so nearly every entry is bit-identical
 * (the count is printed). */
#include "testmodels.h"
#include "ident/regressor.h"
#include <stdint.h>

static const int Ks[4] = {1, 3, 8, 64};
static long n_entries, n_identical, r_entries, r_identical;

/* largest |batch - dy_rnea| / max|dy_rnea| over the states of one call */
static double batch_err(const dyModel* m, dyBatch* w, dyData* d, const double* par, int K,
                        int null_qd, int null_qdd) {
  const int n = m->n;
  double* buf = malloc(sizeof(double) * (size_t)(4 * n * K));
  double *q = buf, *qd = buf + n*K, *qdd = buf + 2*n*K, *tau = buf + 3*n*K;
  for (int i = 0; i < n*K; i++) {
    q[i] = th_uniform(-M_PI, M_PI); qd[i] = th_uniform(-2, 2); qdd[i] = th_uniform(-5, 5);
    tau[i] = NAN;
  }
  if (K > 1) qd[n*K - 1] = 0;   /* sign(0) of the Coulomb term */
  dy_rnea_batch(m, w, par, K, q, null_qd ? NULL : qd, null_qdd ? NULL : qdd, tau);
  double worst = 0;
  for (int k = 0; k < K; k++) {
    double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ], ref[DY_MAXJ], scale = 1e-300;
    for (int j = 0; j < n; j++) {
      qs[j] = q[j*K + k]; qds[j] = qd[j*K + k]; qdds[j] = qdd[j*K + k];
    }
    dy_rnea(m, d, par, qs, null_qd ? NULL : qds, null_qdd ? NULL : qdds, ref);
    for (int j = 0; j < n; j++) scale = fmax(scale, fabs(ref[j]));
    for (int j = 0; j < n; j++) {
      const double e = fabs(tau[j*K + k] - ref[j]) / scale;
      worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
      n_entries++;
      n_identical += tau[j*K + k] == ref[j];
    }
  }
  free(buf);
  return worst;
}

/* dyi_regressor_batch of K random states against dyi_regressor state by
 * state (largest difference relative to the state's largest entry; *ype:
 * largest |Y_k pi - tau_k| relative to max |tau_k|, tau from dy_rnea_batch,
 * pi the model's parameters) */
static double regressor_err(const dyModel* m, dyiRegBatch* rw, dyBatch* w, dyData* d, int friction,
                            int K, int null_qd, int null_qdd, double* ype) {
  const int n = m->n, nc = dyi_ncols(m, friction);
  double* buf = malloc(sizeof(double) * (size_t)(4 * n * K + n * nc * K + n * nc));
  double *q = buf, *qd = buf + n*K, *qdd = buf + 2*n*K, *tau = buf + 3*n*K, *Y = buf + 4*n*K;
  double* Ys = Y + (size_t)n * (size_t)nc * (size_t)K;
  for (int i = 0; i < n*K; i++) {
    q[i] = th_uniform(-M_PI, M_PI); qd[i] = th_uniform(-2, 2); qdd[i] = th_uniform(-5, 5);
  }
  if (K > 1) qd[n*K - 1] = 0;   /* sign(0) of the Coulomb column */
  for (long i = 0; i < (long)n * nc * K; i++) Y[i] = NAN;
  const double *pqd = null_qd ? NULL : qd, *pqdd = null_qdd ? NULL : qdd;
  dyi_regressor_batch(m, rw, K, q, pqd, pqdd, Y);
  dy_rnea_batch(m, w, m->par, K, q, pqd, pqdd, tau);
  double worst = 0;
  *ype = 0;
  for (int k = 0; k < K; k++) {
    double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ], scale = 1e-300, tscale = 1e-300;
    for (int j = 0; j < n; j++) { qs[j] = q[j*K + k]; qds[j] = qd[j*K + k]; qdds[j] = qdd[j*K + k]; }
    dyi_regressor(m, d, qs, null_qd ? NULL : qds, null_qdd ? NULL : qdds, friction, Ys, n);
    for (int e = 0; e < n * nc; e++) scale = fmax(scale, fabs(Ys[e]));
    for (int e = 0; e < n * nc; e++) {
      const double yb = Y[(size_t)e * (size_t)K + (size_t)k], err = fabs(yb - Ys[e]) / scale;
      worst = isnan(err) || err > worst ? (isnan(err) ? INFINITY : err) : worst;
      r_entries++;
      r_identical += yb == Ys[e];
    }
    /* Y_k pi against Newton-Euler (friction terms only with the columns) */
    for (int i = 0; i < n; i++) tscale = fmax(tscale, fabs(tau[i*K + k]));
    for (int i = 0; i < n; i++) {
      double yp = 0;
      for (int c = 0; c < nc; c++) yp += Y[((size_t)c * (size_t)n + (size_t)i) * (size_t)K + (size_t)k] * m->par[c];
      double ref = tau[i*K + k];
      if (!friction) {   /* dy_rnea_batch adds the joint terms: take them off */
        const double* pj = m->par + DY_NPAR_LINK*n + DY_NPAR_JNT*i;
        const double qdi = pqd ? qd[i*K + k] : 0, qddi = pqdd ? qdd[i*K + k] : 0;
        ref -= pj[DY_IA]*qddi + pj[DY_FV]*qdi + pj[DY_FC]*((qdi > 0) - (qdi < 0)) + pj[DY_FO];
      }
      const double e = fabs(yp - ref) / tscale;
      *ype = isnan(e) || e > *ype ? (isnan(e) ? INFINITY : e) : *ype;
    }
  }
  free(buf);
  return worst;
}

static void check_model(const dyModel* m, const char* what) {
  dyBatch* w = dy_make_batch(m);
  dyData* d = dy_make_data(m);
  CHECK(w && d, "%s: workspace", what);
  if (!w || !d) { dy_free_batch(w); dy_free_data(d); return; }
  for (int ik = 0; ik < 4; ik++) {
    double e = batch_err(m, w, d, m->par, Ks[ik], 0, 0);
    CHECK(e <= 1e-14, "%s, K = %d: dy_rnea_batch vs dy_rnea rel. error %.3g", what, Ks[ik], e);
  }
  for (int fr = 0; fr <= 1; fr++) {
    dyiRegBatch* rw = dyi_regressor_batch_make(m, fr);
    CHECK(rw != NULL, "%s: regressor batch workspace", what);
    if (!rw) continue;
    for (int ik = 0; ik < 4; ik++) {
      double ype, e = regressor_err(m, rw, w, d, fr, Ks[ik], 0, 0, &ype);
      CHECK(e <= 1e-14, "%s, friction %d, K = %d: dyi_regressor_batch vs dyi_regressor rel. error %.3g",
            what, fr, Ks[ik], e);
      CHECK(ype <= 1e-12, "%s, friction %d, K = %d: Y pi vs dy_rnea_batch rel. error %.3g", what, fr,
            Ks[ik], ype);
    }
    dyi_regressor_batch_free(rw);
  }
  dy_free_data(d);
  dy_free_batch(w);
}

static void shipped(const dyModel* m, const char* path) { check_model(m, path); }

/* a parameter vector other than the model's own, and NULL qd / qdd; the
 * regressor batch likewise; K = 0; a model edited between calls */
static void other_inputs(void) {
  dyModel* m = th_random_model(7, 0.3, 0.3, 1);
  dyBatch* w = dy_make_batch(m);
  dyData* d = dy_make_data(m);
  double par[14 * 7];
  for (int i = 0; i < 14 * 7; i++) par[i] = th_uniform(-1, 1);
  for (int ik = 0; ik < 4; ik++) {
    double e = batch_err(m, w, d, par, Ks[ik], 0, 0);
    CHECK(e <= 1e-14, "random par, K = %d: rel. error %.3g", Ks[ik], e);
    e = batch_err(m, w, d, m->par, Ks[ik], 1, 0);
    CHECK(e <= 1e-14, "qd NULL, K = %d: rel. error %.3g", Ks[ik], e);
    e = batch_err(m, w, d, m->par, Ks[ik], 0, 1);
    CHECK(e <= 1e-14, "qdd NULL, K = %d: rel. error %.3g", Ks[ik], e);
    e = batch_err(m, w, d, m->par, Ks[ik], 1, 1);
    CHECK(e <= 1e-14, "qd and qdd NULL (gravity only), K = %d: rel. error %.3g", Ks[ik], e);
  }
  dyiRegBatch* rw = dyi_regressor_batch_make(m, 1);
  for (int ik = 0; ik < 4; ik++)
    for (int nul = 1; nul <= 3; nul++) {
      double ype, e = regressor_err(m, rw, w, d, 1, Ks[ik], nul & 1, nul >> 1, &ype);
      CHECK(e <= 1e-14 && ype <= 1e-12, "regressor, qd %s qdd %s, K = %d: rel. errors %.3g, %.3g",
            nul & 1 ? "NULL" : "given", nul >> 1 ? "NULL" : "given", Ks[ik], e, ype);
    }
  dyi_regressor_batch_free(rw);
  /* K = 0 writes nothing */
  double tau[7] = {42, 42, 42, 42, 42, 42, 42}, q[7] = {0};
  dy_rnea_batch(m, w, m->par, 0, q, q, q, tau);
  CHECK(tau[0] == 42 && tau[6] == 42, "K = 0 leaves tau alone");
  /* an edited model between calls (alpha changed, dy_set_const) is followed */
  m->dh_alpha[3] += 0.25;
  dy_set_const(m);
  double e = batch_err(m, w, d, m->par, 8, 0, 0);
  CHECK(e <= 1e-14, "model edited between calls: rel. error %.3g", e);
  dy_free_data(d);
  dy_free_batch(w);
  dy_free_model(m);
}

/* dyi_regressor_rows: the chosen joints' rows of dyi_regressor_lanes bit
 * for bit those of a whole regressor of the same states, the others zero
 * (no coupled motors here), on a random 7-joint chain with friction and
 * several choices (a worker's joints, one distal joint, the base alone);
 * dyi_regressor_batch on the same workspace still gives every row */
static void rows_chosen(void) {
  enum { B = DY_BATCH_LANES };
  dyModel* m = th_random_model(7, 0.3, 0.5, 1);
  const int n = m->n, nc = dyi_ncols(m, 1);
  dyiRegBatch *all = dyi_regressor_batch_make(m, 1), *part = dyi_regressor_batch_make(m, 1);
  double q[7 * B], qd[7 * B], qdd[7 * B];
  const unsigned sel[4] = {0x4b, 0x34, 0x40, 0x01};
  for (int is = 0; is < 4; is++) {
    for (int i = 0; i < n * B; i++) {
      q[i] = th_uniform(-M_PI, M_PI); qd[i] = th_uniform(-2, 2); qdd[i] = th_uniform(-5, 5);
    }
    dyi_regressor_rows(part, sel[is]);
    const double* Ya = dyi_regressor_lanes(m, all, B, q, qd, qdd, B);
    const double* Yp = dyi_regressor_lanes(m, part, B, q, qd, qdd, B);
    long same = 0, zero = 0, want_same = 0, want_zero = 0;
    for (int c = 0; c < nc; c++)
      for (int i = 0; i < n; i++)
        for (int b = 0; b < B; b++) {
          const size_t e = ((size_t)c * (size_t)n + (size_t)i) * B + (size_t)b;
          if (sel[is] >> i & 1u) { want_same++; same += Yp[e] == Ya[e]; }
          else { want_zero++; zero += Yp[e] == 0; }
        }
    CHECK(same == want_same && zero == want_zero, "regressor rows %#x: %ld of %ld entries as the whole "
          "regressor's, %ld of %ld others zero", sel[is], same, want_same, zero, want_zero);
  }
  /* the batch form on the restricted workspace: every row (8 + 3 states: a partial chunk too) */
  const int K = B + 3;
  double qk[7 * (B + 3)], qdk[7 * (B + 3)], qddk[7 * (B + 3)];
  for (int i = 0; i < n * K; i++) { qk[i] = th_uniform(-3, 3); qdk[i] = th_uniform(-2, 2); qddk[i] = th_uniform(-5, 5); }
  double* Y1 = malloc(sizeof(double) * (size_t)(2 * n * nc * K));
  dyi_regressor_batch(m, all, K, qk, qdk, qddk, Y1);
  dyi_regressor_batch(m, part, K, qk, qdk, qddk, Y1 + (size_t)n * nc * K);
  long diff = 0;
  for (long e = 0; e < (long)n * nc * K; e++) diff += Y1[e] != Y1[(size_t)n * nc * K + (size_t)e];
  CHECK(diff == 0, "dyi_regressor_batch after dyi_regressor_rows: every row (%ld entries differ)", diff);
  free(Y1);
  dyi_regressor_batch_free(all); dyi_regressor_batch_free(part);
  dy_free_model(m);
}

/* distance of v from libm's r in units in the last place of r */
static double ulps(double r, double v) {
  const double u = nextafter(fabs(r), INFINITY) - fabs(r);
  return fabs(v - r) / (u > 0 ? u : 4.9e-324);
}

/* dy_sincos8 (the kernels' cos and sin of the joint angles) against libm's
 * sin and cos, an independent implementation: within 2 ulp (the reduction
 * and polynomials are FreeBSD's, within 1 ulp of the true value each,
 * libm within 1/2 ulp) and 2.3e-16 absolute, on random angles of joints
 * (|x| < 8), of turning joints (|x| < 1e3), near the multiples of pi/2
 * where the reduction cancels, at the edge of the reduced path (1e5) and
 * beyond, where libm takes over; 0 and -0 (sin +0 for both: the sign of a
 * zero angle's sine is not kept), the infinities and NaN (NaN for both) */
static void sincos_vs_libm(void) {
  static const double edge[8] = {0.0, -0.0, M_PI/2, -M_PI, 99999.999, 1e5, 1e300, INFINITY};
  double worst = 0, worst_abs = 0, x[8], s[8], c[8];
  int nans = 1, zeros = 1;
  for (int rep = 0; rep < 20000; rep++) {
    for (int b = 0; b < 8; b++) {
      const double span = rep % 3 == 0 ? 8 : rep % 3 == 1 ? 1e3 : 2e5;
      x[b] = rep == 0 ? edge[b] : rep % 7 == 0 ? (rep % 41) * (M_PI/2) + th_uniform(-1e-12, 1e-12)
                                                : th_uniform(-span, span);
    }
    if (rep == 1) x[3] = NAN, x[5] = -INFINITY;
    dy_sincos8(s, c, x);
    for (int b = 0; b < 8; b++) {
      const double rs = sin(x[b]), rc = cos(x[b]);
      if (isnan(rs)) { nans &= isnan(s[b]) && isnan(c[b]); continue; }
      worst = fmax(worst, fmax(ulps(rs, s[b]), ulps(rc, c[b])));
      worst_abs = fmax(worst_abs, fmax(fabs(rs - s[b]), fabs(rc - c[b])));
      if (x[b] == 0) zeros &= s[b] == 0 && c[b] == 1;   /* (sin(-0) is +0 here, -0 in libm) */
    }
  }
  CHECK(worst <= 2 && worst_abs <= 2.3e-16, "dy_sincos8 vs libm: %.3g ulp, %.3g absolute", worst, worst_abs);
  CHECK(nans, "dy_sincos8: NaN for a NaN or infinite angle, as libm");
  CHECK(zeros, "dy_sincos8: sin(+-0) = 0, cos 0 = 1");
}

int main(void) {
  printf("dy_rnea_batch kernel: %s\n", dy_batch_isa());
  sincos_vs_libm();
  CHECK(strlen(dy_batch_isa()) > 0, "dy_batch_isa names the variant");

  /* random chains: sizes 1..DY_MAXJ, prismatic joints, snapped twists, friction */
  const int ns[7] = {1, 2, 3, 6, 7, 12, DY_MAXJ};
  for (int in = 0; in < 7; in++)
    for (int fr = 0; fr <= 1; fr++)
      for (int rep = 0; rep < 3; rep++) {
        dyModel* m = th_random_model(ns[in], rep == 2 ? 1.0 : 0.3, 0.5, fr);
        char what[64];
        snprintf(what, sizeof what, "random n = %d, friction %d, #%d", ns[in], fr, rep);
        check_model(m, what);
        dy_free_model(m);
      }

  other_inputs();
  rows_chosen();

  th_each_shipped(shipped);

  printf("%ld of %ld torques bit-identical to dy_rnea\n", n_identical, n_entries);
  printf("%ld of %ld regressor entries bit-identical to dyi_regressor\n", r_identical, r_entries);
  CHECK(r_entries > 0 && dyi_regressor_batch_make(NULL, 0) == NULL, "regressor batch: no model, no workspace");
  return test_report();
}
