/* SPDX-License-Identifier: MIT */
/* dynid tests: the core dynamics against Orocos KDL, an independent
 * implementation (spatial-vector RNE in segment tip frames, its own
 * composite-inertia algorithm, its own FD by LDL^T), through tests/kdl_shim.
 *
 *  - dy_rnea      vs ChainIdSolver_RNE          1e-10 relative to max |tau|
 *  - dy_crba      vs ChainDynParam::JntToMass   1e-10 relative to max |H|
 *  - dy_fd_chol,
 *    dy_fd_aba    vs ChainFdSolver_RNE          1e-8 relative to max |qdd|
 *
 * on random chains (revolute and prismatic joints, random and special
 * geometry with alpha snapped to 0, +-pi/2, pi and zero a, d; random
 * physically valid inertias; random gravity; with and without joint terms)
 * of n = 1..10 joints, and on every model shipped in datasets/models and
 * datasets/urdf (found at run time; tables whose comment says --dh are
 * loaded as classic DH; their number must equal the .csv and .urdf files
 * the two folders list). Each model is built in KDL in two
 * different segment layouts (kdl_shim.h), which must both agree.
 *
 * Why these tolerances:
 *  Inverse dynamics and the inertia matrix are O(n) recursions whose outputs
 *  are sums of O(n^2) products of O(1) quantities (lengths <= ~1 m, masses
 *  <= 5 kg, speeds <= 2 rad/s). Two correct double-precision implementations
 *  that order these sums differently disagree by about n^2 eps times the
 *  largest intermediate term, which can exceed the largest output by cancel-
 *  lation (gravity torques that nearly cancel) by maybe 1e2: ~1e-14..1e-12.
 *  1e-10 leaves two orders of margin, yet any modelling error (a wrong frame,
 *  sign, lever arm or a missing term) shows at 1e-3 or more, and a 1e-6
 *  relative change of one parameter is detected (check_sensitivity below).
 *  Forward dynamics solves H qdd = tau - b: its relative error is bounded by
 *  about cond(H) times the relative error of H and b (a few eps). States
 *  with cond(H) > 1e6 (near-singular chains, e.g. parallel prismatic axes
 *  without armature) are counted and skipped for FD (at most 5 % of the
 *  states may be, checked); below that the bound
 *  is ~1e6 * 1e-15 = 1e-9, so 1e-8 holds with margin (the largest cond(H)
 *  met and the worst errors are printed; when written: cond 6e4, errors
 *  1.3e-13 RNE, 2.6e-15 H, 4e-13 FD). Errors are NaN-safe: a NaN anywhere
 *  fails. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "kdl_shim.h"
#include <dirent.h>
#include <glob.h>
#include <lapacke.h>
#include <string.h>

#define TOL_ID 1e-10
#define TOL_H 1e-10
#define TOL_FD 1e-8
#define COND_MAX 1e6

/* worst error seen per quantity, as a fraction of its tolerance's scale */
static double worst_id, worst_h, worst_fdc, worst_fda, worst_cond;
static int n_states, n_fd_skipped;

/* max_i |a_i - b_i| / max_i |b_i|; +inf if anything is NaN or the scale is 0
 * while the difference is not */
static double relerr(const double* a, const double* b, int len) {
  double e = 0, s = 0;
  for (int i = 0; i < len; i++) {
    double d = fabs(a[i] - b[i]);
    if (!(d == d) || !(a[i] == a[i])) return INFINITY;
    if (d > e) e = d;
    if (fabs(b[i]) > s) s = fabs(b[i]);
  }
  if (s == 0) return e == 0 ? 0 : INFINITY;
  return e / s;
}

/* 2-norm condition number of the symmetric positive definite H (n x n) by
 * its eigenvalues (LAPACK dsyev); +inf if not positive definite */
static double cond_spd(const double* H, int n) {
  double A[DY_MAXJ*DY_MAXJ], w[DY_MAXJ], work[DY_MAXJ*DY_MAXJ + 64];
  memcpy(A, H, sizeof(double) * (size_t)(n*n));
  int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', n, A, n, w, work, DY_MAXJ*DY_MAXJ + 64);
  if (info || !(w[0] > 0)) return INFINITY;
  return w[n-1] / w[0];
}

/* compare everything on nstate random states of model m with parameters par
 * against KDL in both layouts */
static void check_model(const dyModel* m, const double* par, int nstate, const char* what) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  for (int layout = KDL_AXIS; layout <= KDL_ZAXIS; layout++) {
    kdl_chain* k = kdl_make(m, par, layout);
    CHECK(k != NULL, "%s: KDL chain (layout %d) built", what, layout);
    if (!k) continue;
    CHECK(kdl_nseg(k) == n + (layout == KDL_ZAXIS), "%s: KDL segments %d", what, kdl_nseg(k));
    for (int s = 0; s < nstate; s++) {
      double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ];
      double H1[DY_MAXJ*DY_MAXJ], H2[DY_MAXJ*DY_MAXJ], a1[DY_MAXJ], a2[DY_MAXJ], a3[DY_MAXJ];
      th_random_state(n, q, qd, qdd);
      n_states++;

      dy_rnea(m, d, par, q, qd, qdd, t1);
      int r = kdl_id(k, q, qd, qdd, t2);
      double e = relerr(t1, t2, n);
      CHECK(r == 0 && e <= TOL_ID, "%s layout %d state %d: rnea vs KDL RNE: rel %.3g (KDL status %d)",
            what, layout, s, e, r);
      if (e > worst_id) worst_id = e;

      dy_crba(m, d, par, q, H1);
      r = kdl_mass(k, q, H2);
      e = relerr(H1, H2, n*n);
      CHECK(r == 0 && e <= TOL_H, "%s layout %d state %d: crba vs KDL JntToMass: rel %.3g (KDL status %d)",
            what, layout, s, e, r);
      if (e > worst_h) worst_h = e;

      /* forward dynamics at the torques KDL gives for qdd (so qdd is O(1)) */
      double c = cond_spd(H2, n);
      if (!(c <= COND_MAX)) { n_fd_skipped++; continue; }
      if (c > worst_cond) worst_cond = c;
      r = kdl_fd(k, q, qd, t2, a3);
      CHECK(r == 0, "%s layout %d state %d: KDL FD status %d", what, layout, s, r);
      int info = dy_fd_chol(m, d, par, q, qd, t2, a1);
      e = relerr(a1, a3, n);
      CHECK(info == 0 && e <= TOL_FD, "%s layout %d state %d: fd_chol vs KDL FD: rel %.3g (info %d, cond %.3g)",
            what, layout, s, e, info, c);
      if (e > worst_fdc) worst_fdc = e;
      info = dy_fd_aba(m, d, par, q, qd, t2, a2);
      e = relerr(a2, a3, n);
      CHECK(info == 0 && e <= TOL_FD, "%s layout %d state %d: fd_aba vs KDL FD: rel %.3g (info %d, cond %.3g)",
            what, layout, s, e, info, c);
      if (e > worst_fda) worst_fda = e;
    }
    kdl_free(k);
  }
  dy_free_data(d);
}

/* The comparison can fail: KDL built with every link parameter scaled by
 * 1 + 1e-6 (the joint terms unchanged) must disagree beyond the tolerances.
 * That changes the link part of every torque and all of H by exactly 1e-6
 * relative, and qdd by about 1e-6 H^-1 tau, so each check must see it on
 * any robot. (A temporary 1e-6 change of a single parameter, MX1, made 576
 * checks fail while this test was written.) */
static void check_sensitivity(const dyModel* m, const char* what) {
  const int n = m->n;
  double par[14*DY_MAXJ];
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  for (int i = 0; i < DY_NPAR_LINK*n; i++) par[i] *= 1 + 1e-6;
  kdl_chain* kc = kdl_make(m, par, KDL_AXIS);
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ], H1[DY_MAXJ*DY_MAXJ],
         H2[DY_MAXJ*DY_MAXJ], a1[DY_MAXJ], a2[DY_MAXJ];
  th_random_state(n, q, qd, qdd);
  dy_rnea(m, d, m->par, q, qd, qdd, t1);
  kdl_id(kc, q, qd, qdd, t2);
  double e = relerr(t1, t2, n);
  CHECK(e > TOL_ID, "%s: a 1e-6 change of the link parameters not seen by the RNE check (rel %.3g)", what, e);
  dy_crba(m, d, m->par, q, H1);
  kdl_mass(kc, q, H2);
  e = relerr(H1, H2, n*n);
  CHECK(e > TOL_H, "%s: a 1e-6 change of the link parameters not seen by the H check (rel %.3g)", what, e);
  dy_rnea(m, d, m->par, q, qd, qdd, t1);
  dy_fd_aba(m, d, m->par, q, qd, t1, a1);
  kdl_fd(kc, q, qd, t1, a2);
  e = relerr(a1, a2, n);
  CHECK(e > TOL_FD, "%s: a 1e-6 change of the link parameters not seen by the FD check (rel %.3g)", what, e);
  dy_free_data(d);
  kdl_free(kc);
}

/* 1 if the leading comment of a model table says to load it with --dh
 * (classic DH, e.g. the Stanford arm of [Saha99]); the tables say so in
 * words such as "load with --dh" */
static int wants_classic_dh(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char line[512];
  int classic = 0;
  while (fgets(line, sizeof line, f) && line[0] == '#')
    if (strstr(line, "--dh")) classic = 1;
  fclose(f);
  return classic;
}

/* every shipped model: the tables in datasets/models and the URDFs in
 * datasets/urdf (and datasets/models), default --base/--tip */
static int check_shipped(void) {
  int count = 0;
  const char* pats[3] = {"datasets/models/*.csv", "datasets/models/*.urdf", "datasets/urdf/*.urdf"};
  for (int p = 0; p < 3; p++) {
    glob_t g;
    if (glob(pats[p], 0, NULL, &g)) continue;   /* no folder or no match */
    for (size_t i = 0; i < g.gl_pathc; i++) {
      dyModel* m = NULL;
      char err[DY_ERRSZ] = "";
      dyLoadOpt opt;
      memset(&opt, 0, sizeof opt);
      opt.classic_dh = p == 0 && wants_classic_dh(g.gl_pathv[i]);
      int r = dy_load_model(g.gl_pathv[i], &opt, &m, err, sizeof err);
      CHECK(r == 0 && m, "%s loads: %s", g.gl_pathv[i], err);
      if (r || !m) continue;
      check_model(m, m->par, 20, g.gl_pathv[i]);
      check_sensitivity(m, g.gl_pathv[i]);
      printf("  %-32s %2d joints%s\n", g.gl_pathv[i], m->n, opt.classic_dh ? " (classic DH, --dh)" : "");
      dy_free_model(m);
      count++;
    }
    globfree(&g);
  }
  return count;
}

/* Model files shipped in a folder, counted by reading the folder itself
 * (not through the glob patterns of check_shipped): names ending in ".csv"
 * or ".urdf"; -1 if the folder cannot be read. Every one of them is a
 * model that check_shipped must load and compare. */
static int count_models(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int k = 0;
  for (struct dirent* e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if ((len > 4 && !strcmp(e->d_name + len - 4, ".csv")) || (len > 5 && !strcmp(e->d_name + len - 5, ".urdf")))
      k++;
  }
  closedir(d);
  return k;
}

int main(void) {
  /* joint layouts: pprism, psnap (special geometry), friction */
  const double kinds[6][3] = {{0, 0, 0}, {1, 0, 1}, {0.4, 0, 0}, {0.4, 0.6, 1}, {0.3, 0.8, 0}, {0.5, 0.3, 1}};
  int nrandom = 0;
  for (int n = 1; n <= 10; n++)
    for (int kind = 0; kind < 6; kind++) {
      dyModel* m = th_random_model(n, kinds[kind][0], kinds[kind][1], (int)kinds[kind][2]);
      char what[64];
      snprintf(what, sizeof what, "random n=%d kind %d", n, kind);
      check_model(m, m->par, 4, what);
      check_sensitivity(m, what);
      dy_free_model(m);
      nrandom++;
    }
  int nship = check_shipped();
  /* every shipped model was compared: as many as the two folders hold
   * (each folder has at least one, so a wrong working directory fails) */
  int ntab = count_models("datasets/models"), nurdf = count_models("datasets/urdf");
  CHECK(ntab > 0 && nurdf > 0 && nship == ntab + nurdf, "shipped models compared: %d of %d "
        "(datasets/models %d, datasets/urdf %d)", nship, ntab + nurdf, ntab, nurdf);
  /* the FD comparison is skipped only at near-singular H (cond > COND_MAX,
   * where the error bound cond(H) eps no longer sits below TOL_FD): a guard
   * for rare random chains, not a way out. More than 5 % of the states
   * skipped would leave forward dynamics mostly unchecked (when written:
   * 0 of 760). */
  CHECK(n_states > 0 && n_fd_skipped <= 0.05 * n_states, "states skipped for FD: %d of %d (limit 5 %%)",
        n_fd_skipped, n_states);
  printf("KDL comparison: %d random chains, %d shipped models, %d states x 2 layouts\n",
         nrandom, nship, n_states / 2);
  printf("  worst relative error: rnea %.2g (tol %.0g), crba %.2g (tol %.0g), "
         "fd_chol %.2g, fd_aba %.2g (tol %.0g)\n",
         worst_id, TOL_ID, worst_h, TOL_H, worst_fdc, worst_fda, TOL_FD);
  printf("  largest cond(H) in the FD checks %.3g; states skipped for FD (cond > %.0g): %d\n",
         worst_cond, COND_MAX, n_fd_skipped);
  return test_report();
}
