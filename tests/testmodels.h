/* SPDX-License-Identifier: MIT */
/* dynid tests: random robots. Random modified-DH geometry, random joint
 * types, physically valid random inertias (positive principal moments that
 * satisfy the triangle inequalities, centre of mass inside a box). */
#ifndef DYNID_TESTMODELS_H
#define DYNID_TESTMODELS_H
#include "testhelp.h"
#include "core/model.h"
#include "core/dynamics.h"
#include "core/mathu.h"
#include <string.h>
#include <glob.h>
#include "core/io.h"

/* random rotation from a random unit quaternion */
static inline void th_random_rot(double R[9]) {
  double q[4], s = 0;
  for (int k = 0; k < 4; k++) { q[k] = th_uniform(-1, 1); s += q[k]*q[k]; }
  s = sqrt(s);
  for (int k = 0; k < 4; k++) q[k] /= s;
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1-2*(y*y+z*z); R[1] = 2*(x*y-w*z);   R[2] = 2*(x*z+w*y);
  R[3] = 2*(x*y+w*z);   R[4] = 1-2*(x*x+z*z); R[5] = 2*(y*z-w*x);
  R[6] = 2*(x*z-w*y);   R[7] = 2*(y*z+w*x);   R[8] = 1-2*(x*x+y*y);
}

/* random physically valid link: mass, com, inertia about com (6) */
static inline void th_random_link(double par10[10]) {
  double mass = th_uniform(0.5, 5);
  double c[3] = {th_uniform(-0.2, 0.2), th_uniform(-0.2, 0.2), th_uniform(-0.2, 0.2)};
  double a = th_uniform(0.01, 0.1), b = th_uniform(0.01, 0.1), e = th_uniform(0.01, 0.1);
  /* principal moments from a box-like body: always satisfy triangle ineq. */
  double D[9] = {b + e, 0, 0, 0, a + e, 0, 0, 0, a + b}, R[9], T[9], I[9], Ic[6];
  th_random_rot(R);
  dyu_mulMat3(T, R, D);
  dyu_mulMatMatT3(I, T, R);
  dyu_matToSym6(Ic, I);
  dy_linkpar_from_com(par10, mass, c, Ic);
}

/* random chain: prismatic joints with probability pprism; geometry random,
 * with alpha snapped to 0 or +-pi/2 with probability psnap (special cases) */
static inline dyModel* th_random_model(int n, double pprism, double psnap, int friction) {
  dyModel* m = dy_make_model(n);
  for (int j = 0; j < n; j++) {
    m->jnt_type[j] = th_uniform(0, 1) < pprism ? DY_PRISMATIC : DY_REVOLUTE;
    m->dh_alpha[j] = th_uniform(-M_PI, M_PI);
    if (th_uniform(0, 1) < psnap) {
      double choices[4] = {0, M_PI/2, -M_PI/2, M_PI};
      m->dh_alpha[j] = choices[(int)th_uniform(0, 4)];
    }
    m->dh_a[j] = th_uniform(0, 1) < psnap ? 0 : th_uniform(-0.5, 0.5);
    m->dh_theta[j] = th_uniform(-M_PI, M_PI);
    m->dh_d[j] = th_uniform(0, 1) < psnap ? 0 : th_uniform(-0.5, 0.5);
    th_random_link(m->par + DY_NPAR_LINK*j);
    if (friction) {
      double* pj = m->par + DY_NPAR_LINK*n + DY_NPAR_JNT*j;
      pj[DY_IA] = th_uniform(0, 0.5); pj[DY_FV] = th_uniform(0, 2);
      pj[DY_FC] = th_uniform(0, 2);   pj[DY_FO] = th_uniform(-1, 1);
    }
  }
  m->has_friction = friction;
  double g = th_uniform(0, 1);
  if (g < 0.3) { m->gravity[0] = th_uniform(-5, 5); m->gravity[1] = th_uniform(-5, 5); m->gravity[2] = th_uniform(-9, 9); }
  snprintf(m->source, sizeof m->source, "random-%d", n);
  dy_set_const(m);
  return m;
}

static inline void th_random_state(int n, double* q, double* qd, double* qdd) {
  for (int j = 0; j < n; j++) {
    if (q) q[j] = th_uniform(-M_PI, M_PI);
    if (qd) qd[j] = th_uniform(-2, 2);
    if (qdd) qdd[j] = th_uniform(-5, 5);
  }
}
/* An independent regressor: Newton-Euler is linear in the parameters (every
 * term, gravity included, is proportional to one of them), so column k of
 * Y(q,qd,qdd) is dy_rnea with the unit vector e_k. n rows, npar columns
 * (10n or 14n), column-major with leading dimension ld. Shares no code with
 * dyi_regressor. */
static inline void th_ne_regressor(const dyModel* m, dyData* d, int npar, const double* q,
                                   const double* qd, const double* qdd, double* Y, int ld) {
  double e[14 * DY_MAXJ] = {0}, t[DY_MAXJ];
  for (int k = 0; k < npar; k++) {
    e[k] = 1;
    dy_rnea(m, d, e, q, qd, qdd, t);
    e[k] = 0;
    for (int i = 0; i < m->n; i++) Y[i + (size_t)ld * (size_t)k] = t[i];
  }
}
/* Call fn on every shipped model (the model tables and URDFs of datasets/models
 * and datasets/urdf), loaded with the options its table names
 * (datasets/models/PROVENANCE.md: stanford.csv --dh, planar3r.csv gravity
 * along -y); a model that does not load is a failed check. */
static inline void th_each_shipped(void (*fn)(const dyModel* m, const char* path)) {
  const char* pats[3] = {"datasets/models/*.csv", "datasets/models/*.urdf", "datasets/urdf/*.urdf"};
  for (int p = 0; p < 3; p++) {
    glob_t gl;
    if (glob(pats[p], 0, NULL, &gl)) continue;
    for (size_t i = 0; i < gl.gl_pathc; i++) {
      dyModel* m = NULL;
      char err[256] = "";
      dyLoadOpt opt;
      memset(&opt, 0, sizeof opt);
      opt.classic_dh = strstr(gl.gl_pathv[i], "stanford") != NULL;
      if (strstr(gl.gl_pathv[i], "planar3r")) { opt.has_gravity = 1; opt.gravity[1] = -9.81; }
      const int rc = dy_load_model(gl.gl_pathv[i], &opt, &m, err, sizeof err);
      CHECK(rc == 0 && m, "%s loads: %s", gl.gl_pathv[i], err);
      if (!rc && m) fn(m, gl.gl_pathv[i]);
      dy_free_model(m);
    }
    globfree(&gl);
  }
}

#endif
