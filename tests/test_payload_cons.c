/* SPDX-License-Identifier: MIT */
/* dynid tests: the plausible payload (ident/payload.h dyi_payload_consistent,
 * `dynid payload --consistent`). The Panda carrying a load, simulated by
 * Newton-Euler with the load merged into link 7 by core's
 * dy_linkpar_from_com, torques with white noise, the arm's own parameters
 * exact:
 *  1. a plausible load on a rich excitation: the plausible estimate agrees
 *     with least squares within 3 of least squares' std (the constraints
 *     are inactive, the optimum the same), and is certified;
 *  2. a light load on an excitation that hardly moves the wrist, much
 *     noise: least squares gives a load that cannot exist (checked first:
 *     an inertia about the centre of mass that is not positive definite or
 *     breaks a triangle inequality, or a centre of mass outside the
 *     sphere); the plausible one has mass > 0, a positive definite inertia
 *     satisfying the triangle inequalities and its centre of mass in the
 *     sphere, all checked here by an eigenvalue decomposition;
 *  3. --mass with --consistent keeps the mass;
 *  4. the program: payload --consistent --radius writes the plausible load,
 *     a radius <= 0 is refused in one line with nothing written. */
#include "testmodels.h"
#include "ident/payload.h"
#include "ident/traj.h"
#include <lapacke.h>
#include <unistd.h>

#define PANDA "datasets/models/panda.csv"
#define DIR "build/tests/payload_cons"

typedef struct { double m, c[3], Ic[6]; } load;

/* the loaded arm's torques with noise of sd [N m] on a Fourier excitation
 * (wrist: joints 5-7 scaled by wrist) into the estimator */
static void simulate(const dyModel* m, const load* L, double wrist, double sd, unsigned long long seed,
                     dyiPayload* est) {
  dyiFourier f;
  char err[DY_ERRSZ];
  CHECK(dyi_fourier_random(&f, m, 5, 10, seed, err, sizeof err) == 0, "fourier: %s", err);
  for (int l = 0; l < f.nh; l++)
    for (int j = 4; j < 7; j++) { f.a[l][j] *= wrist; f.b[l][j] *= wrist; }
  const int n = m->n, np = dy_npar(m);
  double* par = malloc(sizeof(double) * (size_t)np);
  memcpy(par, m->par, sizeof(double) * (size_t)np);
  double phi[10];
  dy_linkpar_from_com(phi, L->m, L->c, L->Ic);
  for (int k = 0; k < 10; k++) par[10 * (n - 1) + k] += phi[k];
  dyData* d = dy_make_data(m);
  for (int k = 0; k < 3000; k++) {
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
    dyi_fourier_eval(&f, k / 100.0, q, qd, qdd);
    dy_rnea(m, d, par, q, qd, qdd, tau);
    for (int j = 0; j < n; j++) {
      double u1 = th_uniform(1e-12, 1), u2 = th_uniform(0, 1);
      tau[j] += sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    }
    dyi_payload_add(est, q, qd, qdd, tau);
  }
  dy_free_data(d);
  free(par);
}

/* can the load of fit exist inside the sphere of radius R: mass > 0,
 * inertia about the centre of mass positive definite with the triangle
 * inequalities, |c| <= R (independent of the solver: dsyev) */
static int plausible(const dyiPayloadFit* f, double R) {
  const double* v = f->phys;
  double A[9] = {v[4], v[5], v[6], v[5], v[7], v[8], v[6], v[8], v[9]}, w[3];
  if (!(v[0] > 0) || LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', 3, A, 3, w)) return 0;
  const int tri = w[0] + w[1] >= w[2] && w[0] + w[2] >= w[1] && w[1] + w[2] >= w[0];
  return w[0] > 0 && tri && hypot(hypot(v[1], v[2]), v[3]) <= R * (1 + 1e-9);
}

/* 1. a plausible load, rich excitation: the same as least squares */
static void test_agree(const dyModel* m) {
  const load L = {2.8, {0.05, 0, 0.08}, {0.006, 0.0002, -0.0004, 0.007, 0.0003, 0.004}};
  char err[DY_ERRSZ];
  dyiPayload* est = dyi_payload_make(m, m->par, err, sizeof err);
  if (!est) { CHECK(0, "make: %s", err); return; }
  simulate(m, &L, 1, 0.05, 31, est);
  dyiPayloadFit ls, cf;
  CHECK(dyi_payload_solve(est, NAN, &ls, err, sizeof err) == 0, "solve: %s", err);
  CHECK(dyi_payload_consistent(est, NAN, 0.3, &cf, err, sizeof err) == 0, "consistent: %s", err);
  CHECK(plausible(&ls, 0.3), "least squares of a plausible load is plausible (precondition)");
  double worst = 0;
  for (int k = 0; k < 10; k++) worst = fmax(worst, fabs(cf.phys[k] - ls.phys[k]) / ls.phys_std[k]);
  printf("plausible load: consistent within %.3g std of least squares, certified %d\n", worst, cf.certified);
  CHECK(worst < 3 && cf.certified && plausible(&cf, 0.3), "agree: %.3g std, certified %d", worst, cf.certified);
  CHECK(fabs(cf.phys[0] / L.m - 1) < 0.01, "mass %.6g", cf.phys[0]);
  /* 3. --mass kept */
  CHECK(dyi_payload_consistent(est, 2.5, 0.3, &cf, err, sizeof err) == 0 && cf.phys[0] == 2.5 &&
        cf.phys_det[0] == 2 && plausible(&cf, 0.3), "fixed mass: %s %.17g", err, cf.phys[0]);
  dyi_payload_free(est);
}

/* 2. an unexcited wrist and much noise: least squares implausible, the
 * consistent estimate plausible */
static void test_implausible(const dyModel* m) {
  const load L = {0.4, {0.01, 0.01, 0.03}, {2e-4, 0, 0, 2e-4, 0, 1e-4}};
  char err[DY_ERRSZ];
  dyiPayload* est = dyi_payload_make(m, m->par, err, sizeof err);
  if (!est) { CHECK(0, "make: %s", err); return; }
  simulate(m, &L, 0.02, 1.0, 32, est);
  dyiPayloadFit ls, cf;
  CHECK(dyi_payload_solve(est, NAN, &ls, err, sizeof err) == 0, "solve: %s", err);
  CHECK(dyi_payload_consistent(est, NAN, 0.3, &cf, err, sizeof err) == 0, "consistent: %s", err);
  printf("unexcited: least squares m %.4g, Ic diag %.3g %.3g %.3g; consistent m %.4g, c (%.3g %.3g %.3g) m, Ic diag "
         "%.3g %.3g %.3g, certified %d\n", ls.phys[0], ls.phys[4], ls.phys[7], ls.phys[9], cf.phys[0], cf.phys[1],
         cf.phys[2], cf.phys[3], cf.phys[4], cf.phys[7], cf.phys[9], cf.certified);
  CHECK(!plausible(&ls, 0.3), "least squares is plausible: the test needs it not to be");
  CHECK(plausible(&cf, 0.3) && cf.margin >= -1e-12, "consistent not plausible (margin %.3g)", cf.margin);
  dyi_payload_free(est);
}

/* m, cx, cy, cz of a payload CSV into v; rows read */
static int read_load(const char* path, double* v) {
  FILE* f = fopen(path, "r");
  char line[512];
  int got = 0;
  static const char* const nm[4] = {"m,", "cx,", "cy,", "cz,"};
  while (f && fgets(line, sizeof line, f))
    for (int k = 0; k < 4; k++)
      if (!strncmp(line, nm[k], strlen(nm[k]))) { v[k] = atof(line + strlen(nm[k])); got++; }
  if (f) fclose(f);
  return got;
}

/* 4. the program: the arm identified by dynid, the loaded log written here */
static void test_program(const dyModel* m) {
  const load L = {2.8, {0.05, 0, 0.08}, {0.006, 0.0002, -0.0004, 0.007, 0.0003, 0.004}};
  CHECK(th_run(DIR, "(./dynid simulate " PANDA " fourier --friction --duration 10 --rate 200 --seed 5 -o " DIR
               "/un.csv && ./dynid identify " PANDA " " DIR "/un.csv --friction --quiet -o " DIR "/arm.csv)") == 0,
        "the arm: %s", th_slurp(DIR "/stderr"));
  dyiFourier f;
  char err[DY_ERRSZ];
  dyi_fourier_random(&f, m, 5, 10, 33, err, sizeof err);
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m)), phi[10];
  memcpy(par, m->par, sizeof(double) * (size_t)dy_npar(m));
  dy_linkpar_from_com(phi, L.m, L.c, L.Ic);
  for (int k = 0; k < 10; k++) par[60 + k] += phi[k];
  dyData* d = dy_make_data(m);
  FILE* o = fopen(DIR "/lo.csv", "w");
  if (o) dyi_traj_header(o, 7, 1);
  for (int k = 0; o && k < 2000; k++) {
    double q[7], qd[7], qdd[7], tau[7];
    dyi_fourier_eval(&f, k / 200.0, q, qd, qdd);
    dy_rnea(m, d, par, q, qd, qdd, tau);
    dyi_traj_row(o, 7, k / 200.0, q, qd, qdd, tau);
  }
  if (o) fclose(o);
  dy_free_data(d);
  free(par);
  CHECK(th_run(DIR, "./dynid payload " PANDA " " DIR "/arm.csv " DIR "/lo.csv --consistent --radius 0.25 -o " DIR
               "/load.csv") == 0, "payload --consistent: %s", th_slurp(DIR "/stderr"));
  double v[4] = {0};
  CHECK(read_load(DIR "/load.csv", v) == 4 && fabs(v[0] / L.m - 1) < 0.02 &&
        hypot(hypot(v[1] - L.c[0], v[2] - L.c[1]), v[3] - L.c[2]) < 0.005, "load %.4g (%.4g %.4g %.4g)", v[0], v[1],
        v[2], v[3]);
  CHECK(strstr(th_slurp(DIR "/load.csv"), "within 0.25 m"), "the radius in the file");
  const char* bad[2] = {"--consistent --radius -1", "--radius 0.2"};
  for (int k = 0; k < 2; k++) {
    char cmd[512];
    remove(DIR "/bad.csv");
    snprintf(cmd, sizeof cmd, "./dynid payload " PANDA " " DIR "/arm.csv " DIR "/lo.csv %s -o " DIR "/bad.csv", bad[k]);
    CHECK(th_run(DIR, cmd) == 2 && !strncmp(th_slurp(DIR "/stderr"), "dynid: payload: --radius", 24) &&
          access(DIR "/bad.csv", F_OK) != 0, "%s: %s", bad[k], th_slurp(DIR "/stderr"));
  }
}

int main(void) {
  CHECK(system("mkdir -p " DIR) == 0, "mkdir " DIR);
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  CHECK(dy_load_model(PANDA, &(dyLoadOpt){0}, &m, err, sizeof err) == 0, "load: %s", err);
  if (m) { test_agree(m); test_implausible(m); test_program(m); }
  dy_free_model(m);
  return test_report();
}
