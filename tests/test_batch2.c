/* SPDX-License-Identifier: MIT */
/* dynid tests: the batch inertia matrix (dy_crba_batch) and the batch
 * base-parameter Newton-Euler (dyv_nebase_rnea_batch), K states per call
 * in structure-of-arrays form.
 *  - against the one-state functions state by state (dy_crba,
 *    dyv_nebase_rnea) to 1e-14 relative to the state's largest entry, on
 *    random chains (revolute and prismatic joints, special and general
 *    twists, n = 1 .. DY_MAXJ, with and without friction, gravity along
 *    z_0 or not) and on every shipped model, K = 1, 3, 8, 64 (a partial
 *    chunk, one chunk, many), qd and qdd given or NULL; the kernels perform
 *    the one-state functions' operations in the same order, so the count
 *    of bit-identical entries is printed;
 *  - ne_base on the nominal parameters (no structural zeros) and on the
 *    sparse realisations pi = Ps beta of random base parameters of the qr
 *    and khalil sets (the structural zeros and compiled kinds validate
 *    uses, dyv_realise_sparse) of the chains up to 7 joints and of every
 *    shipped model (the base sets of the longer chains take seconds);
 *  - independently of the one-state code: H qdd against
 *    dy_rnea_batch(q, 0, qdd) - dy_rnea_batch(q, 0, 0), and the ne_base
 *    torque against dy_rnea_batch on the full realised parameter vector,
 *    both to 1e-12 relative. */
#include "testmodels.h"
#include "verify/ne_base.h"
#include "verify/validate.h"
#include "ident/base.h"

static const int Ks[4] = {1, 3, 8, 64};
static long h_entries, h_identical, t_entries, t_identical;

/* random states, n*K each in the batch layout; the last state at rest in
 * joint n-1 (sign(0) of the Coulomb term) */
static void fill_states(int n, int K, double* q, double* qd, double* qdd) {
  for (int i = 0; i < n*K; i++) {
    q[i] = th_uniform(-M_PI, M_PI); qd[i] = th_uniform(-2, 2); qdd[i] = th_uniform(-5, 5);
  }
  if (K > 1) qd[n*K - 1] = 0;
}

/* dy_crba_batch of K random states against dy_crba (largest difference
 * relative to the state's largest |H_rc|); *indep: largest
 * |H qdd - (tau(q, 0, qdd) - tau(q, 0, 0))| relative to the largest of
 * those torques, tau by dy_rnea_batch */
static double crba_err(const dyModel* m, dyBatch* w, dyData* d, const double* par, int K,
                       double* indep) {
  const int n = m->n;
  double* buf = malloc(sizeof(double) * (size_t)(5*n*K + n*n*K));
  double *q = buf, *qd = q + n*K, *qdd = qd + n*K, *t1 = qdd + n*K, *t0 = t1 + n*K, *H = t0 + n*K;
  fill_states(n, K, q, qd, qdd);
  for (int i = 0; i < n*n*K; i++) H[i] = NAN;
  dy_crba_batch(m, w, par, K, q, H);
  dy_rnea_batch(m, w, par, K, q, NULL, qdd, t1);
  dy_rnea_batch(m, w, par, K, q, NULL, NULL, t0);
  double worst = 0;
  *indep = 0;
  for (int k = 0; k < K; k++) {
    double qs[DY_MAXJ], ref[DY_MAXJ * DY_MAXJ], scale = 1e-300, ts = 1e-300;
    for (int j = 0; j < n; j++) qs[j] = q[j*K + k];
    dy_crba(m, d, par, qs, ref);
    for (int e = 0; e < n*n; e++) scale = fmax(scale, fabs(ref[e]));
    for (int e = 0; e < n*n; e++) {
      const double h = H[(size_t)e*K + k], err = fabs(h - ref[e]) / scale;
      worst = isnan(err) || err > worst ? (isnan(err) ? INFINITY : err) : worst;
      h_entries++;
      h_identical += h == ref[e];
    }
    double hq[DY_MAXJ];
    for (int r = 0; r < n; r++) {
      hq[r] = 0;
      for (int c = 0; c < n; c++) hq[r] += H[(size_t)(r*n + c)*K + k] * qdd[c*K + k];
      ts = fmax(ts, fmax(fabs(hq[r]), fmax(fabs(t1[r*K + k]), fabs(t0[r*K + k]))));
    }
    for (int r = 0; r < n; r++) {
      const double e = fabs(hq[r] - (t1[r*K + k] - t0[r*K + k])) / ts;
      *indep = isnan(e) || e > *indep ? (isnan(e) ? INFINITY : e) : *indep;
    }
  }
  free(buf);
  return worst;
}

/* dyv_nebase_rnea_batch of K random states against dyv_nebase_rnea
 * (largest difference relative to the state's largest |tau|); *indep:
 * against dy_rnea_batch on the same full parameter vector */
static double nebase_err(const dyvNeBase* plan, dyBatch* w, dyData* d, const double* par, int K,
                         int null_qd, int null_qdd, double* indep) {
  const dyModel* m = plan->m;
  const int n = m->n;
  double* buf = malloc(sizeof(double) * (size_t)(5*n*K));
  double *q = buf, *qd = q + n*K, *qdd = qd + n*K, *tau = qdd + n*K, *tr = tau + n*K;
  fill_states(n, K, q, qd, qdd);
  for (int i = 0; i < n*K; i++) tau[i] = NAN;
  const double *pqd = null_qd ? NULL : qd, *pqdd = null_qdd ? NULL : qdd;
  dyv_nebase_rnea_batch(plan, w, par, K, q, pqd, pqdd, tau);
  dy_rnea_batch(m, w, par, K, q, pqd, pqdd, tr);
  double worst = 0;
  *indep = 0;
  for (int k = 0; k < K; k++) {
    double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ], ref[DY_MAXJ], scale = 1e-300, ts = 1e-300;
    for (int j = 0; j < n; j++) { qs[j] = q[j*K + k]; qds[j] = qd[j*K + k]; qdds[j] = qdd[j*K + k]; }
    dyv_nebase_rnea(plan, d, par, qs, null_qd ? NULL : qds, null_qdd ? NULL : qdds, ref);
    for (int j = 0; j < n; j++) { scale = fmax(scale, fabs(ref[j])); ts = fmax(ts, fabs(tr[j*K + k])); }
    for (int j = 0; j < n; j++) {
      const double t = tau[j*K + k], e = fabs(t - ref[j]) / scale;
      worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
      t_entries++;
      t_identical += t == ref[j];
      const double ei = fabs(t - tr[j*K + k]) / ts;
      *indep = isnan(ei) || ei > *indep ? (isnan(ei) ? INFINITY : ei) : *indep;
    }
  }
  free(buf);
  return worst;
}

/* one plan and parameter vector through every K and NULL pattern */
static void check_plan(const dyvNeBase* plan, dyBatch* w, dyData* d, const double* par,
                       const char* what) {
  for (int ik = 0; ik < 4; ik++)
    for (int nul = 0; nul < 4; nul++) {
      if (nul && ik != 2 && ik != 3) continue;
      double ind, e = nebase_err(plan, w, d, par, Ks[ik], nul & 1, nul >> 1, &ind);
      CHECK(e <= 1e-14, "%s, K = %d, qd %s, qdd %s: ne_base batch vs dyv_nebase_rnea rel. error %.3g",
            what, Ks[ik], nul & 1 ? "NULL" : "given", nul >> 1 ? "NULL" : "given", e);
      CHECK(ind <= 1e-12, "%s, K = %d: ne_base batch vs dy_rnea_batch on P beta rel. error %.3g",
            what, Ks[ik], ind);
    }
}

/* the sparse realisations of random base parameters of the qr and khalil
 * sets (with and without the joint parameters) and their plans */
static void check_sets(const dyModel* m, dyBatch* w, dyData* d, const char* what) {
  static const char* sets[2] = {"qr", "khalil"};
  const int n = m->n, np = DY_NPL * n;
  for (int fr = 0; fr <= 1; fr++)
    for (int si = 0; si < 2; si++) {
      char err[512], label[160];
      dyiBase* b = dyi_base_make(m, dyi_base_set_parse(sets[si], NULL, 0), fr, err, sizeof err);
      CHECK(b != NULL, "%s: base set %s: %s", what, sets[si], err);
      if (!b) continue;
      double* beta = malloc(sizeof(double) * (size_t)(b->nb > 0 ? b->nb : 1));
      double* par = calloc((size_t)np, sizeof(double));
      unsigned char* zero = malloc((size_t)np);
      for (int i = 0; i < b->nb; i++) beta[i] = th_uniform(-1, 1);
      const int rc = dyv_realise_sparse(m, b, beta, par, zero, err, sizeof err);
      CHECK(rc == 0, "%s: sparse realisation of %s: %s", what, sets[si], err);
      if (rc == 0) {
        dyvNeBase plan;
        dyv_nebase_make(&plan, m, zero);
        snprintf(label, sizeof label, "%s, set %s%s (%d zeros)", what, sets[si], fr ? " + friction" : "",
                 plan.nzero);
        check_plan(&plan, w, d, par, label);
      }
      free(beta); free(par); free(zero);
      dyi_base_free(b);
    }
}

static void check_model(const dyModel* m, const char* what, int sets) {
  dyBatch* w = dy_make_batch(m);
  dyData* d = dy_make_data(m);
  CHECK(w && d, "%s: workspace", what);
  if (!w || !d) { dy_free_batch(w); dy_free_data(d); return; }
  for (int ik = 0; ik < 4; ik++) {
    double ind, e = crba_err(m, w, d, m->par, Ks[ik], &ind);
    CHECK(e <= 1e-14, "%s, K = %d: dy_crba_batch vs dy_crba rel. error %.3g", what, Ks[ik], e);
    CHECK(ind <= 1e-12, "%s, K = %d: H qdd vs tau(q,0,qdd) - tau(q,0,0) rel. error %.3g", what,
          Ks[ik], ind);
  }
  dyvNeBase plan;
  dyv_nebase_make(&plan, m, NULL);
  char label[160];
  snprintf(label, sizeof label, "%s, nominal", what);
  check_plan(&plan, w, d, m->par, label);
  if (sets) check_sets(m, w, d, what);
  dy_free_data(d);
  dy_free_batch(w);
}

static void shipped(const dyModel* m, const char* path) { check_model(m, path, 1); }

int main(void) {
  /* random chains: sizes 1..DY_MAXJ, prismatic joints, snapped twists, friction */
  const int ns[7] = {1, 2, 3, 6, 7, 12, DY_MAXJ};
  for (int in = 0; in < 7; in++)
    for (int fr = 0; fr <= 1; fr++)
      for (int rep = 0; rep < 4; rep++) {
        /* rep 2: all prismatic-prone; rep 3: twists all special */
        dyModel* m = th_random_model(ns[in], rep == 2 ? 1.0 : 0.3, rep == 3 ? 1.0 : 0.5, fr);
        char what[64];
        snprintf(what, sizeof what, "random n = %d, friction %d, #%d", ns[in], fr, rep);
        check_model(m, what, ns[in] <= 7);
        dy_free_model(m);
      }

  /* parameter vectors other than the model's own (not physical) */
  {
    dyModel* m = th_random_model(7, 0.3, 0.3, 1);
    dyBatch* w = dy_make_batch(m);
    dyData* d = dy_make_data(m);
    double par[DY_NPL * 7], ind;
    for (int i = 0; i < DY_NPL * 7; i++) par[i] = th_uniform(-1, 1);
    for (int ik = 0; ik < 4; ik++) {
      double e = crba_err(m, w, d, par, Ks[ik], &ind);
      CHECK(e <= 1e-14 && ind <= 1e-12, "random par, K = %d: crba rel. errors %.3g, %.3g", Ks[ik], e, ind);
    }
    dyvNeBase plan;
    dyv_nebase_make(&plan, m, NULL);
    check_plan(&plan, w, d, par, "random par");
    /* K = 0 writes nothing */
    double H[49], tau[7], q[7] = {0};
    for (int i = 0; i < 49; i++) H[i] = 42;
    for (int i = 0; i < 7; i++) tau[i] = 42;
    dy_crba_batch(m, w, m->par, 0, q, H);
    dyv_nebase_rnea_batch(&plan, w, m->par, 0, q, q, q, tau);
    CHECK(H[0] == 42 && H[48] == 42 && tau[0] == 42 && tau[6] == 42, "K = 0 leaves H and tau alone");
    dy_free_data(d);
    dy_free_batch(w);
    dy_free_model(m);
  }

  th_each_shipped(shipped);

  printf("dy_crba_batch: %ld of %ld inertia-matrix entries bit-identical to dy_crba\n", h_identical,
         h_entries);
  printf("dyv_nebase_rnea_batch: %ld of %ld torques bit-identical to dyv_nebase_rnea\n", t_identical,
         t_entries);
  CHECK(h_entries > 0 && t_entries > 0, "entries compared");
  return test_report();
}
