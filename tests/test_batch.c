/* dynid tests: dy_rnea_batch (K states per call, structure of arrays) against
 * dy_rnea state by state, on random chains (revolute and prismatic joints,
 * special and general twists, with and without friction, nominal and
 * random parameter vectors) and on every shipped model, K = 1, 3, 8, 64
 * (a partial chunk, one full chunk, many chunks). Tolerance 1e-14 relative
 * to the largest torque of the state; the kernel performs dy_rnea's
 * operations in the same order, so nearly every entry is bit-identical
 * (the count is printed). */
#include "testmodels.h"
#include <stdint.h>

static const int Ks[4] = {1, 3, 8, 64};
static long n_entries, n_identical;

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

static void check_model(const dyModel* m, const char* what) {
  dyBatch* w = dy_make_batch(m);
  dyData* d = dy_make_data(m);
  CHECK(w && d, "%s: workspace", what);
  if (!w || !d) { dy_free_batch(w); dy_free_data(d); return; }
  for (int ik = 0; ik < 4; ik++) {
    double e = batch_err(m, w, d, m->par, Ks[ik], 0, 0);
    CHECK(e <= 1e-14, "%s, K = %d: dy_rnea_batch vs dy_rnea rel. error %.3g", what, Ks[ik], e);
  }
  dy_free_data(d);
  dy_free_batch(w);
}

static void shipped(const dyModel* m, const char* path) { check_model(m, path); }

int main(void) {
  printf("dy_rnea_batch kernel: %s\n", dy_batch_isa());
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

  /* a parameter vector other than the model's own, and NULL qd / qdd */
  {
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

  th_each_shipped(shipped);

  printf("%ld of %ld torques bit-identical to dy_rnea\n", n_identical, n_entries);
  return test_report();
}
