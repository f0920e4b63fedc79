/* SPDX-License-Identifier: MIT */
/* dynid tests: the regressor Y(q,qd,qdd) of tau = Y pi.
 *  - Y pi equals Newton-Euler (dy_rnea) with the model's parameters,
 *    friction included, on random chains of revolute and prismatic joints;
 *  - every column k equals Newton-Euler run with the unit parameter vector
 *    e_k (an independent way to get the same matrix: NE is linear in pi);
 *  - the leading dimension works (a block written into a taller matrix
 *    leaves the other rows alone), NULL qd/qdd mean zero, and joint k's
 *    parameters never act on joints after k.
 * Tolerance: 1e-12 relative to the largest torque/column entry: both sides
 * are O(n) sums of O(1) products (round-off ~1e-15 n), while a wrong term is
 * O(1e-2) or more. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "ident/regressor.h"
#include "core/io.h"
#include <string.h>
#include <unistd.h>

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static void check_model(dyModel* m, const char* what) {
  int n = m->n, np = dyi_ncols(m, 1), ld = n + 3;
  dyData* d = dy_make_data(m);
  double* Y = malloc(sizeof(double) * (size_t)ld * (size_t)np);
  double* e = calloc((size_t)np, sizeof(double));
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], t1[DY_MAXJ];
  for (int trial = 0; trial < 4; trial++) {
    th_random_state(n, q, qd, qdd);
    if (trial == 3) qd[0] = 0;  /* sign(0) = 0 in both */
    for (int i = 0; i < ld*np; i++) Y[i] = 12345.0;
    dyi_regressor(m, d, q, qd, qdd, 1, Y + 1, ld);
    /* rows outside the block untouched */
    int untouched = 1;
    for (int k = 0; k < np; k++) {
      if (Y[ld*k] != 12345.0) untouched = 0;
      for (int i = n + 1; i < ld; i++) if (Y[i + ld*k] != 12345.0) untouched = 0;
    }
    CHECK(untouched, "%s: rows outside the block untouched", what);
    /* Y pi = NE */
    dy_rnea(m, d, m->par, q, qd, qdd, tau);
    double worst = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = 0; k < np; k++) s += Y[1 + i + ld*k] * m->par[k];
      worst = fmax(worst, fabs(s - tau[i]));
    }
    CHECK(worst <= 1e-12 * fmax(1, maxabs(tau, n)), "%s: Y pi vs NE: %.3g", what, worst);
    /* each column = NE with e_k */
    double cworst = 0, scale = 1, above = 0;
    for (int k = 0; k < np; k++) {
      e[k] = 1;
      dy_rnea(m, d, e, q, qd, qdd, t1);
      e[k] = 0;
      for (int i = 0; i < n; i++) {
        cworst = fmax(cworst, fabs(Y[1 + i + ld*k] - t1[i]));
        scale = fmax(scale, fabs(t1[i]));
        if (k < DY_NPAR_LINK*n && i > k / DY_NPAR_LINK) above = fmax(above, fabs(Y[1 + i + ld*k]));
      }
    }
    CHECK(cworst <= 1e-12 * scale, "%s: columns vs NE(e_k): %.3g (scale %.3g)", what, cworst, scale);
    CHECK(above == 0, "%s: link k acts on joints after k: %.3g", what, above);
  }
  /* without friction the first 10n columns are the same; NULL qd, qdd */
  th_random_state(n, q, NULL, NULL);
  dyi_regressor(m, d, q, NULL, NULL, 0, Y, n);
  double zero[DY_MAXJ] = {0};
  dy_rnea_g(m, d, m->par, q, zero, zero, m->gravity, 0, tau);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < DY_NPAR_LINK*n; k++) s += Y[i + n*k] * m->par[k];
    worst = fmax(worst, fabs(s - tau[i]));
  }
  CHECK(worst <= 1e-12 * fmax(1, maxabs(tau, n)), "%s: gravity-only regressor vs NE: %.3g", what, worst);
  CHECK(dyi_ncols(m, 0) == 10*n && dyi_ncols(m, 1) == 14*n, "%s: column counts", what);
  free(e); free(Y); dy_free_data(d);
}

/* `dynid regressor` as a program: layout sample,joint,<14n names>, and the
 * values equal NE with unit parameter vectors */
static void cli_regressor(void) {
  const char* mp = "/tmp/dynid_test_regressor_model.csv";
  const char* sp = "/tmp/dynid_test_regressor_states.csv";
  FILE* f = fopen(mp, "w");
  fputs("joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
        "1,R,0,0,0,0.5,3,0.01,0.02,0.1,0.1,0.001,0.002,0.1,0.003,0.05\n"
        "2,P,1.5707963267948966,0.4,0,0,2,0.2,0.01,0.02,0.01,0.001,0.002,0.05,0.003,0.05\n"
        "3,R,-1.5707963267948966,0.3,0.2,0.1,1,0.01,0.02,-0.1,0.02,0.001,0.002,0.02,0.003,0.001\n", f);
  fclose(f);
  double S[3][3][3];
  f = fopen(sp, "w");
  fputs("q1,q2,q3,qd1,qd2,qd3,qdd1,qdd2,qdd3\n", f);
  for (int s = 0; s < 3; s++) {
    th_random_state(3, S[s][0], S[s][1], S[s][2]);
    if (s == 2) S[s][1][1] = 0;
    for (int k = 0; k < 9; k++) fprintf(f, "%s%.17g", k ? "," : "", S[s][k / 3][k % 3]);
    fputc('\n', f);
  }
  fclose(f);
  char err[512], cmd[512], line[8192];
  dyModel* m = NULL;
  CHECK(dy_load_model(mp, NULL, &m, err, sizeof err) == 0, "load: %s", err);
  if (!m) return;
  dyData* d = dy_make_data(m);
  snprintf(cmd, sizeof cmd, "./dynid regressor %s %s --friction", mp, sp);
  FILE* pr = popen(cmd, "r");
  int rows = 0, np = 42;
  double worst = 0, scale = 1, e[42] = {0}, t[3];
  if (pr && fgets(line, sizeof line, pr)) {
    const char* h0 = "sample,joint,XX1,XY1,XZ1,YY1,YZ1,ZZ1,MX1,MY1,MZ1,M1,XX2,";
    CHECK(!strncmp(line, h0, strlen(h0)), "header %.60s", line);
    CHECK(strstr(line, ",IA3,FV3,FC3,FO3") != NULL, "header ends with the joint parameters");
    while (fgets(line, sizeof line, pr)) {
      char* p = line;
      long smp = strtol(p, &p, 10); p++;
      long jnt = strtol(p, &p, 10);
      CHECK(smp == rows / 3 + 1 && jnt == rows % 3 + 1, "row %d: sample %ld joint %ld", rows, smp, jnt);
      for (int k = 0; k < np && smp >= 1 && smp <= 3; k++) {
        p++;
        double y = strtod(p, &p);
        e[k] = 1;
        dy_rnea(m, d, e, S[smp-1][0], S[smp-1][1], S[smp-1][2], t);
        e[k] = 0;
        worst = fmax(worst, fabs(y - t[jnt - 1]));
        scale = fmax(scale, fabs(t[jnt - 1]));
      }
      rows++;
    }
  }
  int rc = pr ? pclose(pr) : -1;
  CHECK(rc == 0 && rows == 9, "dynid regressor: rc %d, %d rows", rc, rows);
  CHECK(worst <= 1e-12 * scale, "dynid regressor vs NE(e_k): %.3g", worst);
  dy_free_data(d);
  dy_free_model(m);
  unlink(mp); unlink(sp);
}

int main(void) {
  cli_regressor();
  char what[64];
  for (int t = 0; t < 30; t++) {
    int n = 1 + t % 8;
    dyModel* m = th_random_model(n, t < 10 ? 0.0 : 0.35, t % 3 == 0 ? 0.5 : 0.0, 1);
    snprintf(what, sizeof what, "random chain %d (n=%d)", t, n);
    check_model(m, what);
    dy_free_model(m);
  }
  /* all prismatic, gravity off-axis */
  dyModel* m = th_random_model(4, 1.0, 0.3, 1);
  m->gravity[0] = 1; m->gravity[1] = -2; m->gravity[2] = -9;
  check_model(m, "prismatic chain");
  dy_free_model(m);
  return test_report();
}
