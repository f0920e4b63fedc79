/* SPDX-License-Identifier: MIT */
/* dynid tests: every variant of the batch base-parameter Newton-Euler
 * (verify/ne_base_batch.c: 8 lanes per vector for x86-64-v4, 4 for AVX2,
 * 2 otherwise) that this processor runs, not only the one the library
 * picks; test_batch2 covers that one over many more chains.
 *  - bit for bit against dyv_nebase_rnea state by state: the kernels
 *    perform its operations in the same order (cos, sin of the joint
 *    angles by the same dyu_sincos8), so any difference is a fault, on
 *    random chains (revolute and prismatic joints, special and general
 *    twists, friction, gravity off z_0, n = 1 .. DY_MAXJ), on the khalil
 *    set's sparse realisation of random base parameters (the structural
 *    zeros validate uses) of the shipped Panda, on every shipped model's
 *    nominal parameters, and on a chain whose wrist motors are coupled; K = 64 and 13 (a short last chunk: the padded
 *    copy), qd and qdd given or NULL, tau in place of qdd;
 *  - independently of the one-state code: against dy_rnea_batch on the
 *    same parameter vector, to 1e-12 of the largest torque of the K
 *    states (the two recursions group the sums differently: a few hundred
 *    roundings of 1e-16 of the terms each at most; the terms are of the
 *    batch's torque scale, while one state's torque can nearly cancel, a
 *    one-joint prismatic arm holding itself against gravity). */
/* the kernel file itself, for its variants (its public function renamed);
 * first, so that under Clang its no-contraction pragma covers the
 * dyu_sincos8 it inlines, as in the library's own build */
#define dyv_nebase_rnea_batch nebase_batch_here
#include "verify/ne_base_batch.c"
#undef dyv_nebase_rnea_batch
#include "testmodels.h"
#include "verify/validate.h"
#include "ident/base.h"
#include "core/transmission.h"

static long n_states, n_identical;

/* K random states (batch layout) through variant kern, qd / qdd NULL as
 * asked, tau in place of qdd if inplace; every entry against
 * dyv_nebase_rnea (exact) and dy_rnea_batch (1e-12 relative) */
static void check_K(nbbKernel kern, int lanes, const dyvNeBase* plan, const double* par, int K,
                    int nul, int inplace, const char* what) {
  const dyModel* m = plan->m;
  const int n = m->n;
  dyBatch* w = dy_make_batch(m);
  dyData* d = dy_make_data(m);
  double* buf = malloc(sizeof(double) * (size_t)(5*n*K));
  double *q = buf, *qd = q + n*K, *qdd = qd + n*K, *tau = qdd + n*K, *tr = tau + n*K;
  for (int i = 0; i < n*K; i++) {
    q[i] = th_uniform(-M_PI, M_PI); qd[i] = th_uniform(-2, 2); qdd[i] = th_uniform(-5, 5);
  }
  qd[n*K - 1] = 0;   /* sign(0) of the Coulomb terms */
  const double *pqd = nul & 1 ? NULL : qd, *pqdd = nul & 2 ? NULL : qdd;
  dy_rnea_batch(m, w, par, K, q, pqd, pqdd, tr);
  double* keep = inplace ? malloc(sizeof(double) * (size_t)(n*K)) : NULL;
  if (keep) memcpy(keep, qdd, sizeof(double) * (size_t)(n*K));
  double* out = inplace ? qdd : tau;
  nbb_batch(kern, plan, w, par, K, q, pqd, pqdd, out);
  const double* qdd_in = keep ? keep : qdd;
  int bad = 0;
  double worst = 0;
  double ts = 1e-300;
  for (int i = 0; i < n*K; i++) ts = fmax(ts, fabs(tr[i]));
  for (int k = 0; k < K; k++) {
    double qs[DY_MAXJ], qds[DY_MAXJ], qdds[DY_MAXJ], ref[DY_MAXJ];
    for (int j = 0; j < n; j++) { qs[j] = q[j*K + k]; qds[j] = qd[j*K + k]; qdds[j] = qdd_in[j*K + k]; }
    dyv_nebase_rnea(plan, d, par, qs, pqd ? qds : NULL, pqdd ? qdds : NULL, ref);
    for (int j = 0; j < n; j++) {
      const double t = out[j*K + k];
      bad += !(t == ref[j]);
      worst = fmax(worst, isnan(t) ? INFINITY : fabs(t - tr[j*K + k]) / ts);
    }
  }
  n_states += K;
  n_identical += bad == 0 ? K : 0;
  CHECK(bad == 0, "%s, %d lanes, K = %d, nul %d%s: %d torques differ from dyv_nebase_rnea", what, lanes,
        K, nul, inplace ? ", in place" : "", bad);
  CHECK(worst <= 1e-12, "%s, %d lanes, K = %d: vs dy_rnea_batch rel. error %.3g", what, lanes, K, worst);
  free(keep); free(buf); dy_free_data(d); dy_free_batch(w);
}

/* one plan and parameter vector through every variant, K and NULL pattern */
static void check_plan(const dyvNeBase* plan, const double* par, const char* what) {
  nbbKernel kern[3];
  int lanes[3];
  const int nv = nbb_variants(kern, lanes);
  for (int v = 0; v < nv; v++)
    for (int nul = 0; nul < 4; nul++) {
      check_K(kern[v], lanes[v], plan, par, 64, nul, 0, what);
      check_K(kern[v], lanes[v], plan, par, 13, nul, 0, what);
    }
  for (int v = 0; v < nv; v++) check_K(kern[v], lanes[v], plan, par, 64, 0, 1, what);
}

/* the khalil set's sparse realisation of random base parameters of m */
static void check_khalil(const dyModel* m, const char* what) {
  char err[512];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "%s: khalil set: %s", what, err);
  if (!b) return;
  const int np = DY_NPL * m->n;
  double* beta = malloc(sizeof(double) * (size_t)b->nb);
  double* par = calloc((size_t)np, sizeof(double));
  unsigned char* zero = malloc((size_t)np);
  for (int i = 0; i < b->nb; i++) beta[i] = th_uniform(-1, 1);
  const int rc = dyv_realise_sparse(m, b, beta, par, zero, err, sizeof err);
  CHECK(rc == 0, "%s: sparse realisation: %s", what, err);
  if (rc == 0) {
    dyvNeBase plan;
    dyv_nebase_make(&plan, m, zero);
    CHECK(plan.nzero > 0, "%s: the realisation has structural zeros", what);
    check_plan(&plan, par, what);
  }
  free(beta); free(par); free(zero);
  dyi_base_free(b);
}

/* a random 6-joint chain whose last three motors are coupled (a wrist
 * differential), with nonzero motor parameters */
static void check_coupled(void) {
  dyModel* m = th_random_model(6, 0.2, 0.5, 1);
  double R[36] = {0};
  for (int k = 0; k < 6; k++) R[k*6 + k] = 1 + k;
  R[3*6 + 4] = 0.5; R[4*6 + 5] = -0.7; R[5*6 + 3] = 0.3;
  char err[256];
  CHECK(dy_set_transmission(m, R, err, sizeof err) == 0 && m->nmot == 3, "coupled wrist: %s", err);
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  memcpy(par, m->par, sizeof(double) * DY_NPL * 6);
  for (int i = DY_NPL * 6; i < dy_npar(m); i++) par[i] = th_uniform(0.1, 1);
  dyvNeBase plan;
  dyv_nebase_make(&plan, m, NULL);
  check_plan(&plan, par, "coupled wrist");
  free(par);
  dy_free_model(m);
}

/* a shipped model on its nominal parameters (no structural zeros) */
static void shipped(const dyModel* m, const char* path) {
  dyvNeBase plan;
  dyv_nebase_make(&plan, m, NULL);
  check_plan(&plan, m->par, path);
}

int main(void) {
  nbbKernel kern[3];
  int lanes[3];
  const int nv = nbb_variants(kern, lanes);
  printf("kernel variants run here:");
  for (int v = 0; v < nv; v++) printf(" %d lanes%s", lanes[v], v ? "" : " (the one picked)");
  printf("\n");
  const int ns[7] = {1, 2, 3, 6, 7, 12, DY_MAXJ};
  for (int in = 0; in < 7; in++)
    for (int rep = 0; rep < 3; rep++) {   /* rep 1: mostly prismatic; rep 2: special twists */
      dyModel* m = th_random_model(ns[in], rep == 1 ? 0.8 : 0.3, rep == 2 ? 1.0 : 0.5, rep != 1);
      char what[64];
      snprintf(what, sizeof what, "random n = %d #%d", ns[in], rep);
      dyvNeBase plan;
      dyv_nebase_make(&plan, m, NULL);
      check_plan(&plan, m->par, what);
      if (ns[in] <= 7) check_khalil(m, what);
      dy_free_model(m);
    }
  dyModel* panda = NULL;
  char err[256];
  dyLoadOpt opt;
  memset(&opt, 0, sizeof opt);
  CHECK(dy_load_model("datasets/models/panda.csv", &opt, &panda, err, sizeof err) == 0, "panda: %s", err);
  if (panda) check_khalil(panda, "panda");
  dy_free_model(panda);
  check_coupled();
  th_each_shipped(shipped);
  printf("%ld of %ld states bit-identical to dyv_nebase_rnea\n", n_identical, n_states);
  return test_report();
}
