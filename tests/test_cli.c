/* SPDX-License-Identifier: MIT */
/* dynid tests: the program ./dynid as a user runs it (run from the repository
 * root, after `make dynid`).
 *
 * For every shipped model table (datasets/models/):
 *  - `dynid model` loads it and prints a table that reads back to the same
 *    model (geometry, types, parameters, limits; relative 1e-15: %.17g
 *    round-trips exactly, the COM form -> O_j form conversion adds a few ulps);
 *  - `dynid id` on random states written here equals dy_rnea of the library
 *    (relative 1e-12 of the row's largest torque: the program prints %.17g,
 *    which reads back bit-exactly, so only a wrong column, row or model shows);
 *  - `dynid inertia` equals dy_crba (1e-12, same reason), is symmetric, and
 *    positive definite (its eigenvalues, LAPACK dsyev, all > 0); it also
 *    equals the columns M e_k = tau(qdd = e_k) - tau(qdd = 0) of the
 *    library's Newton-Euler (1e-10: an independent computation; O(n) sums of
 *    O(1) terms, round-off ~1e-14);
 *  - `dynid fd` on a log made of q, qd and the torques `dynid id` printed
 *    returns the accelerations, for --algo chol and aba (1e-8 relative to
 *    max(1, |qdd|)). Justification: the forward error of a Cholesky or
 *    articulated-body solve is about cond(H) n eps |qdd|; the shipped arms have
 *    cond(H) <= ~1e5 at random q (measured below and printed), so the error
 *    is <= ~1e-10 and 1e-8 leaves a margin of 100, while any wrong term
 *    (a missing bias, a wrong column) is >= 1e-3.
 * Malformed inputs: every tests/bad/NAME.csv has NAME.expect beside it, the
 * exact standard-error output. model_*.csv is given to `dynid model`,
 * states_*.csv to `dynid id` and log_*.csv to `dynid fd` (with the planar 3R).
 * Each must exit 1 with that one line, and with -o must leave an existing
 * output file untouched and no temporary file behind. A directory given as a
 * file is made here. Bad usage must exit 2. */
#include "testhelp.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "core/mathu.h"
#include <dirent.h>
#include <zlib.h>
#include <lapacke.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXROWS 64
#define NSTATE 12      /* random states per model */

static char tmp[256];  /* scratch directory of this run */

static int run(const char* cmd) { return th_run(tmp, cmd); }

static const char* err_text(void) {
  char p[300];
  snprintf(p, sizeof p, "%s/stderr", tmp);
  return th_slurp(p);
}

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  if (f) { fputs(text, f); fclose(f); }
}

/* number of files in tmp whose name holds ".tmp." (dyOut temporaries) */
static int leftover_temps(void) {
  DIR* d = opendir(tmp);
  int n = 0;
  struct dirent* e;
  while (d && (e = readdir(d))) n += strstr(e->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  return n;
}

/* numeric CSV written by dynid: '#' lines skipped, one header, then rows of
 * exactly ncol numbers. Returns the number of rows, -1 on a format error. */
static int read_numbers(const char* path, int ncol, double* out, int maxrows) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  static char line[1 << 16];
  int rows = 0, header = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!header) { header = 1; continue; }
    if (rows == maxrows) { fclose(f); return -1; }
    char* s = line;
    for (int k = 0; k < ncol; k++) {
      char* e;
      out[rows*ncol + k] = strtod(s, &e);
      if (e == s || (k < ncol - 1 && *e != ',') || (k == ncol - 1 && *e != '\n')) { fclose(f); return -1; }
      s = e + 1;
    }
    rows++;
  }
  fclose(f);
  return rows;
}

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

/* ------------------------------------------------------ shipped models */

typedef struct { const char* path; const char* opt; } shipped_t;
static const shipped_t shipped[] = {
  {"datasets/models/planar3r.csv", ""},
  {"datasets/models/stanford.csv", "--dh"},
  {"datasets/models/renaud6r.csv", ""},
  {"datasets/models/puma560.csv", ""},
  {"datasets/models/panda.csv", ""},
};

/* `dynid model` prints a table that loads back to the same model */
static void check_roundtrip(const shipped_t* s, const dyModel* m) {
  char cmd[1024], out[300];
  snprintf(out, sizeof out, "%s/model.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid model %s %s -o %s", s->path, s->opt, out);
  int rc = run(cmd);
  CHECK(rc == 0, "%s: dynid model exit %d: %s", s->path, rc, err_text());
  dyModel* r = NULL;
  char err[DY_ERRSZ];
  if (dy_load_table(out, NULL, &r, err, sizeof err)) {
    CHECK(0, "%s: printed table does not load: %s", s->path, err);
    return;
  }
  int same = r->n == m->n && r->has_friction == m->has_friction;
  double worst = 0, scale = maxabs(m->par, dy_npar(m));
  for (int j = 0; same && j < m->n; j++) {
    same &= r->jnt_type[j] == m->jnt_type[j] && !strcmp(r->jnt_name[j], m->jnt_name[j]);
    worst = fmax(worst, fabs(r->dh_alpha[j] - m->dh_alpha[j]));
    worst = fmax(worst, fabs(r->dh_a[j] - m->dh_a[j]));
    worst = fmax(worst, fabs(r->dh_theta[j] - m->dh_theta[j]));
    worst = fmax(worst, fabs(r->dh_d[j] - m->dh_d[j]));
    const double* l1[5] = {r->jnt_qmin, r->jnt_qmax, r->jnt_qdmax, r->jnt_qddmax, r->jnt_taumax};
    const double* l2[5] = {m->jnt_qmin, m->jnt_qmax, m->jnt_qdmax, m->jnt_qddmax, m->jnt_taumax};
    for (int k = 0; k < 5; k++) same &= l1[k][j] == l2[k][j];
  }
  for (int k = 0; same && k < dy_npar(m); k++) worst = fmax(worst, fabs(r->par[k] - m->par[k]) / fmax(1, scale));
  for (int k = 0; k < 3; k++) same &= r->gravity[k] == m->gravity[k];
  CHECK(same && worst <= 1e-15, "%s: dynid model does not read back (same %d, worst %.3g)", s->path, same, worst);
  dy_free_model(r);
}

/* a model's random states (written with %.17g, exact) and the torques
 * `dynid id` printed for them */
typedef struct {
  double q[NSTATE][DY_MAXJ], qd[NSTATE][DY_MAXJ], qdd[NSTATE][DY_MAXJ];
  double tau[MAXROWS * DY_MAXJ];
} states_t;

/* NSTATE random states of m into S and the file states */
static void write_states(const shipped_t* s, const dyModel* m, const char* states, states_t* S) {
  const int n = m->n;
  FILE* f = fopen(states, "w");
  fprintf(f, "# random states for %s\n", s->path);
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < n; j++) fprintf(f, "%s%s%d", k || j ? "," : "", k == 0 ? "q" : k == 1 ? "qd" : "qdd", j + 1);
  fputc('\n', f);
  for (int i = 0; i < NSTATE; i++) {
    for (int j = 0; j < n; j++) {
      S->q[i][j] = m->jnt_type[j] == DY_PRISMATIC ? th_uniform(-0.3, 0.5) : th_uniform(-M_PI, M_PI);
      S->qd[i][j] = th_uniform(-2, 2);
      S->qdd[i][j] = th_uniform(-5, 5);
    }
    for (int j = 0; j < 3*n; j++)
      fprintf(f, "%s%.17g", j ? "," : "", j < n ? S->q[i][j] : j < 2*n ? S->qd[i][j-n] : S->qdd[i][j-2*n]);
    fputc('\n', f);
  }
  fclose(f);
}

/* `dynid id` equals dy_rnea (its torques kept in S->tau) */
static void check_id(const shipped_t* s, const dyModel* m, dyData* d, const char* states, states_t* S) {
  const int n = m->n;
  char cmd[1024], out[300];
  snprintf(out, sizeof out, "%s/tau.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid id %s %s %s -o %s", s->path, states, s->opt, out);
  int rc = run(cmd);
  CHECK(rc == 0, "%s: dynid id exit %d: %s", s->path, rc, err_text());
  int rows = read_numbers(out, n, S->tau, MAXROWS);
  CHECK(rows == NSTATE, "%s: dynid id printed %d rows, expected %d", s->path, rows, NSTATE);
  double worst = 0;
  for (int i = 0; i < rows && i < NSTATE; i++) {
    double tau[DY_MAXJ];
    dy_rnea(m, d, m->par, S->q[i], S->qd[i], S->qdd[i], tau);
    double sc = fmax(1, maxabs(tau, n));
    for (int j = 0; j < n; j++) worst = fmax(worst, fabs(S->tau[i*n + j] - tau[j]) / sc);
  }
  CHECK(worst <= 1e-12, "%s: dynid id vs dy_rnea: relative %.3g", s->path, worst);
}

/* one printed inertia matrix Hp at q: the largest differences from dy_crba
 * (wcrba) and from the Newton-Euler columns (wne) and its asymmetry (asym),
 * relative to max |H|, kept as maxima; its eigenvalues (ascending) into w;
 * returns dsyev's info */
static int inertia_state(const dyModel* m, dyData* d, const double* Hp, const double* q, double* wcrba,
                         double* wne, double* asym, double* w) {
  const int n = m->n;
  double Hc[DY_MAXJ*DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ], e[DY_MAXJ], zero[3] = {0, 0, 0};
  dy_crba(m, d, m->par, q, Hc);
  double sc = fmax(1e-300, maxabs(Hc, n*n));
  for (int k = 0; k < n*n; k++) *wcrba = fmax(*wcrba, fabs(Hp[k] - Hc[k]) / sc);
  dy_rnea_g(m, d, m->par, q, NULL, NULL, zero, 1, t0);
  for (int k = 0; k < n; k++) {
    memset(e, 0, sizeof e); e[k] = 1;
    dy_rnea_g(m, d, m->par, q, NULL, e, zero, 1, t1);
    for (int r = 0; r < n; r++) *wne = fmax(*wne, fabs(t1[r] - t0[r] - Hp[r*n + k]) / sc);
  }
  for (int r = 0; r < n; r++)
    for (int k = 0; k < n; k++) *asym = fmax(*asym, fabs(Hp[r*n + k] - Hp[k*n + r]) / sc);
  double A[DY_MAXJ*DY_MAXJ], work[64*DY_MAXJ];
  memcpy(A, Hp, sizeof(double) * (size_t)(n*n));
  return (int)LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'L', n, A, n, w, work, 64*DY_MAXJ);
}

/* `dynid inertia` equals dy_crba and the Newton-Euler columns, is symmetric
 * and positive definite */
static void check_inertia(const shipped_t* s, const dyModel* m, dyData* d, const char* states, const states_t* S) {
  const int n = m->n;
  static double H[MAXROWS * DY_MAXJ * DY_MAXJ];
  char cmd[1024], out[300];
  snprintf(out, sizeof out, "%s/H.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid inertia %s %s %s -o %s", s->path, states, s->opt, out);
  int rc = run(cmd);
  CHECK(rc == 0, "%s: dynid inertia exit %d: %s", s->path, rc, err_text());
  int rows = read_numbers(out, n*n, H, MAXROWS);
  CHECK(rows == NSTATE, "%s: dynid inertia printed %d rows, expected %d", s->path, rows, NSTATE);
  double wcrba = 0, wne = 0, asym = 0, mineig = INFINITY, cond = 0;
  for (int i = 0; i < rows && i < NSTATE; i++) {
    double w[DY_MAXJ];
    int info = inertia_state(m, d, H + (size_t)i*n*n, S->q[i], &wcrba, &wne, &asym, w);
    CHECK(info == 0, "%s: dsyev info %d", s->path, info);
    mineig = fmin(mineig, w[0] / w[n-1]);
    cond = fmax(cond, w[n-1] / w[0]);
  }
  CHECK(wcrba <= 1e-12, "%s: dynid inertia vs dy_crba: relative %.3g", s->path, wcrba);
  CHECK(wne <= 1e-10, "%s: dynid inertia vs Newton-Euler columns: relative %.3g", s->path, wne);
  CHECK(asym == 0, "%s: printed inertia matrix not symmetric: %.3g", s->path, asym);
  CHECK(mineig > 1e-12, "%s: inertia matrix not positive definite: smallest eigenvalue / largest %.3g",
        s->path, mineig);
  printf("%-30s n=%d  largest cond(H) at %d random q: %.3g\n", s->path, n, NSTATE, cond);
}

/* `dynid fd` (default, chol, aba) on a log made of q, qd and the torques id
 * printed returns the accelerations */
static void check_fd(const shipped_t* s, int n, const states_t* S) {
  static const char* const algos[3] = {"", "--algo chol", "--algo aba"};
  char log[300], cmd[1024], out[300];
  snprintf(log, sizeof log, "%s/log.csv", tmp);
  FILE* f = fopen(log, "w");
  fprintf(f, "t");
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < n; j++) fprintf(f, ",%s%d", k == 0 ? "q" : k == 1 ? "qd" : "tau", j + 1);
  fputc('\n', f);
  for (int i = 0; i < NSTATE; i++) {
    fprintf(f, "%.17g", 0.001 * i);
    for (int j = 0; j < n; j++) fprintf(f, ",%.17g", S->q[i][j]);
    for (int j = 0; j < n; j++) fprintf(f, ",%.17g", S->qd[i][j]);
    for (int j = 0; j < n; j++) fprintf(f, ",%.17g", S->tau[i*n + j]);
    fputc('\n', f);
  }
  fclose(f);
  for (int a = 0; a < 3; a++) {
    static double A[MAXROWS * DY_MAXJ];
    snprintf(out, sizeof out, "%s/qdd.csv", tmp);
    snprintf(cmd, sizeof cmd, "./dynid fd %s %s %s %s -o %s", s->path, log, s->opt, algos[a], out);
    int rc = run(cmd);
    CHECK(rc == 0, "%s: dynid fd %s exit %d: %s", s->path, algos[a], rc, err_text());
    int rows = read_numbers(out, n, A, MAXROWS);
    CHECK(rows == NSTATE, "%s: dynid fd %s printed %d rows", s->path, algos[a], rows);
    double wfd = 0;
    for (int i = 0; i < rows && i < NSTATE; i++) {
      double sc = fmax(1, maxabs(S->qdd[i], n));
      for (int j = 0; j < n; j++) wfd = fmax(wfd, fabs(A[i*n + j] - S->qdd[i][j]) / sc);
    }
    CHECK(wfd <= 1e-8, "%s: dynid fd %s: qdd relative error %.3g", s->path, algos[a], wfd);
    if (a) printf("%-30s fd %s: largest relative qdd error %.3g\n", s->path, algos[a], wfd);
  }
}

/* one shipped model: model, id, inertia and fd against the library */
static void check_shipped(const shipped_t* s) {
  dyLoadOpt opt;
  memset(&opt, 0, sizeof opt);
  opt.classic_dh = !strcmp(s->opt, "--dh");
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_model(s->path, &opt, &m, err, sizeof err)) { CHECK(0, "%s: does not load: %s", s->path, err); return; }
  check_roundtrip(s, m);
  dyData* d = dy_make_data(m);
  static states_t S;
  char states[300];
  snprintf(states, sizeof states, "%s/states.csv", tmp);
  write_states(s, m, states, &S);
  check_id(s, m, d, states, &S);
  check_inertia(s, m, d, states, &S);
  check_fd(s, m->n, &S);
  dy_free_data(d);
  dy_free_model(m);
}

/* ------------------------------------- the Stanford arm against the paper */

/* Saha 1999, Table 3, typed in again here from the paper (not read from the
 * shipped file): classic DH a, b, alpha [deg], mass, r, diagonal inertia
 * about C_i in classic frame i; joint 3 prismatic. r goes from C_i to the
 * next joint, so the mass centre in classic frame i is -r. */
static const double saha_a[6] = {0, 0, 0, 0, 0, 0}, saha_b[6] = {0.2, 0.1, 0, 0.6, 0, 0};
static const double saha_alpha[6] = {-90, -90, 0, 90, -90, 0}, saha_m[6] = {9, 6, 4, 1, 0.6, 0.5};
static const double saha_r[6][3] = {{0, -0.1, 0}, {0, 0, 0}, {0, 0, 0}, {0, -0.1, 0}, {0, 0, 0}, {0, 0, 0}};
static const double saha_I[6][3] = {{0.01, 0.02, 0.01}, {0.05, 0.06, 0.01}, {0.4, 0.4, 0.01},
                                    {0.001, 0.001, 0.0005}, {0.0005, 0.0005, 0.0002}, {0.003, 0.001, 0.002}};

/* classic-DH kinematics: frame i (R[i], o[i]) at the distal end of link i
 * (frame 0 = base; joint i moves about z of frame i-1), mass centres pc[i] */
static void saha_fk(const double q[6], double R[7][9], double o[7][3], double pc[6][3]) {
  dyu_eye3(R[0]);
  o[0][0] = o[0][1] = o[0][2] = 0;
  for (int i = 0; i < 6; i++) {
    double th = i == 2 ? 0 : q[i], b = saha_b[i] + (i == 2 ? q[i] : 0), al = saha_alpha[i] * M_PI / 180;
    double Rz[9], Rx[9], Rl[9], pl[3] = {saha_a[i]*cos(th), saha_a[i]*sin(th), b}, t[3];
    dyu_rotz(Rz, th);
    dyu_rotx(Rx, al);
    dyu_mulMat3(Rl, Rz, Rx);
    dyu_mulMat3(R[i+1], R[i], Rl);
    dyu_mulMatVec3(t, R[i], pl);
    for (int k = 0; k < 3; k++) o[i+1][k] = o[i][k] + t[k];
    double c[3] = {-saha_r[i][0], -saha_r[i][1], -saha_r[i][2]};
    dyu_mulMatVec3(t, R[i+1], c);
    for (int k = 0; k < 3; k++) pc[i][k] = o[i+1][k] + t[k];
  }
}

/* the largest error of the torques T (qd = qdd = 0) at q against the gravity
 * torques from the potential energy by central differences (h = 1e-6) */
static double stanford_gravity_err(const double q[6], const double* T) {
  double R[7][9], o[7][3], pc[6][3], wg = 0;
  for (int k = 0; k < 6; k++) {
    double qp[6], V[2];
    for (int s2 = 0; s2 < 2; s2++) {
      memcpy(qp, q, sizeof qp);
      qp[k] += s2 ? -1e-6 : 1e-6;
      saha_fk(qp, R, o, pc);
      V[s2] = 0;
      for (int l = 0; l < 6; l++) V[s2] += saha_m[l] * 9.81 * pc[l][2];
    }
    wg = fmax(wg, fabs((V[0] - V[1]) / 2e-6 - T[k]));
  }
  return wg;
}

/* the inertia matrix at q from the link Jacobians (row-major 6 x 6) */
static void stanford_mass(const double q[6], double M[36]) {
  double R[7][9], o[7][3], pc[6][3];
  saha_fk(q, R, o, pc);
  memset(M, 0, sizeof(double) * 36);
  for (int l = 0; l < 6; l++) {
    double Jv[6][3] = {{0}}, Jw[6][3] = {{0}};
    for (int k = 0; k <= l; k++) {
      double z[3] = {R[k][2], R[k][5], R[k][8]}, d[3];
      if (k == 2) { memcpy(Jv[k], z, sizeof z); continue; }   /* prismatic */
      for (int e = 0; e < 3; e++) d[e] = pc[l][e] - o[k][e];
      dyu_cross(Jv[k], z, d);
      memcpy(Jw[k], z, sizeof z);
    }
    double Il[9] = {saha_I[l][0], 0, 0, 0, saha_I[l][1], 0, 0, 0, saha_I[l][2]}, t1[9], Iw[9];
    dyu_mulMat3(t1, R[l+1], Il);
    dyu_mulMatMatT3(Iw, t1, R[l+1]);
    for (int a = 0; a < 6; a++)
      for (int b = 0; b < 6; b++) {
        double Iwb[3];
        dyu_mulMatVec3(Iwb, Iw, Jw[b]);
        M[a*6 + b] += saha_m[l] * dyu_dot3(Jv[a], Jv[b]) + dyu_dot3(Jw[a], Iwb);
      }
  }
}

/* `dynid id` and `dynid inertia` (with the options algo) on the 4 states Q
 * of the file st against the paper's potential energy and Jacobians */
static void check_stanford_algo(const char* st, double Q[4][6], const char* algo) {
  char out[300], cmd[1024];
  static double T[4*6], H[4*36];
  snprintf(out, sizeof out, "%s/stanford_tau.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid id datasets/models/stanford.csv %s --dh%s -o %s", st, algo, out);
  int rc = run(cmd);
  CHECK(rc == 0 && read_numbers(out, 6, T, 4) == 4, "stanford id: exit %d %s", rc, err_text());
  snprintf(out, sizeof out, "%s/stanford_H.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid inertia datasets/models/stanford.csv %s --dh%s -o %s", st, algo, out);
  rc = run(cmd);
  CHECK(rc == 0 && read_numbers(out, 36, H, 4) == 4, "stanford inertia: exit %d %s", rc, err_text());
  double wg = 0, wm = 0;
  for (int i = 0; i < 4; i++) {
    wg = fmax(wg, stanford_gravity_err(Q[i], T + i*6));
    double M[36];
    stanford_mass(Q[i], M);
    double sc = maxabs(M, 36);
    for (int k = 0; k < 36; k++) wm = fmax(wm, fabs(M[k] - H[i*36 + k]) / sc);
  }
  CHECK(wg <= 1e-6, "stanford%s: gravity torques vs the paper's classic-DH potential energy: %.3g N m", algo, wg);
  CHECK(wm <= 1e-10, "stanford%s: inertia matrix vs the paper's classic-DH Jacobians: relative %.3g", algo, wm);
  printf("stanford%s vs Saha Table 3 (classic DH, independent): gravity %.3g N m, inertia %.3g relative\n",
         algo, wg, wm);
}

/* Gravity torques from the potential energy V = sum m_i 9.81 z_ci by central
 * differences, and the inertia matrix from the link Jacobians,
 *   M = sum_i m_i Jv_i^T Jv_i + Jw_i^T R_i I_i R_i^T Jw_i,
 * against `dynid id` (qd = qdd = 0) and `dynid inertia` on the shipped file
 * loaded with --dh. Tolerances: the differences have truncation error
 * h^2 |d3V/dq3| ~ 1e-11 and round-off eps |V| / h ~ 1e-9 (h = 1e-6,
 * V ~ 10 J), so 1e-6 N m; reading r as the mass-centre position instead
 * changes tau by ~1 N m. The Jacobian form is exact up to round-off: 1e-10. */
static void check_stanford_paper(void) {
  char st[300];
  double Q[4][6];
  snprintf(st, sizeof st, "%s/stanford_states.csv", tmp);
  FILE* f = fopen(st, "w");
  fprintf(f, "q1,q2,q3,q4,q5,q6,qd1,qd2,qd3,qd4,qd5,qd6,qdd1,qdd2,qdd3,qdd4,qdd5,qdd6\n");
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 6; j++) Q[i][j] = j == 2 ? th_uniform(-0.2, 0.4) : th_uniform(-M_PI, M_PI);
    for (int j = 0; j < 6; j++) fprintf(f, "%.17g,", Q[i][j]);
    fprintf(f, "0,0,0,0,0,0,0,0,0,0,0,0\n");
  }
  fclose(f);
  /* the default algorithms, then Saha's own (DeNOC inverse dynamics, U D U^T) */
  static const char* algo[2] = {"", " --algo saha"};
  for (int al = 0; al < 2; al++) check_stanford_algo(st, Q, algo[al]);
}

/* ------------------------------------------ the Panda against its paper */

/* The supplementary material of Gaz et al. (RA-L 2019), Table III, column
 * pi(p-hat), lists base-parameter combinations ("dynamic coefficients")
 * that the authors computed from their feasible parameters p-hat, the ones
 * in panda.csv. The paper states them in terms of J (inertia about the
 * frame origin, tensor entries), m and c. Recomputing them from the
 * library's standard parameters of the loaded table (XX..ZZ about O_j,
 * MX MY MZ, M) shows that the table's convention (centre of mass in frame
 * j, inertia about it in frame-j axes, tensor entries) is the paper's.
 * The values are printed to 4 decimals: tolerance 6e-5. The four
 * coefficients that involve c6z (J6yz, J6yy + J5zz + ..., c5y m5 - c6z m6,
 * J5xx - J5yy + J6yy + ...) disagree with the paper and are left out; see
 * datasets/models/PROVENANCE.md. */
static void check_panda_paper(void) {
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_model("datasets/models/panda.csv", NULL, &m, err, sizeof err)) { CHECK(0, "panda: %s", err); return; }
#define P(j, k) (m->par[DY_NPAR_LINK*((j) - 1) + (k)])
  double m567 = P(5, DY_M) + P(6, DY_M) + P(7, DY_M), m4567 = P(4, DY_M) + m567;
  double a7 = 0.088*0.088, d5 = 0.384*0.384 + 0.0825*0.0825;
  struct { const char* name; double value, paper; } c[] = {
    {"J7zz", P(7, DY_ZZ), 0.0049},
    {"J7xx - J7yy", P(7, DY_XX) - P(7, DY_YY), 0.0024},
    {"J7xy", P(7, DY_XY), -0.0004},
    {"J7xz", P(7, DY_XZ), -0.0017},
    {"J7yz", P(7, DY_YZ), -0.0005},
    {"c7x m7", P(7, DY_MX), 0.0077},
    {"c7y m7", P(7, DY_MY), -0.0031},
    {"J6xy + 0.088 c7z m7", P(6, DY_XY) + 0.088*P(7, DY_MZ), 0.0055},
    {"J7yy + J6zz + 0.0077 m7", P(7, DY_YY) + P(6, DY_ZZ) + a7*P(7, DY_M), 0.0304},
    {"J6xx - J6yy + J7yy - 0.0077 m7", P(6, DY_XX) - P(6, DY_YY) + P(7, DY_YY) - a7*P(7, DY_M), -0.0009},
    {"0.088 m7 + c6x m6", 0.088*P(7, DY_M) + P(6, DY_MX), 0.1650},
    {"c6y m6 - c7z m7", P(6, DY_MY) - P(7, DY_MZ), -0.0688},
    {"c5x m5", P(5, DY_MX), -0.0147},
    {"J5xy", P(5, DY_XY), -0.0015},
    {"J5xz", P(5, DY_XZ), -0.0046},
    {"J5yz", P(5, DY_YZ), 0.0022},
    {"J5yy + J4zz + 0.1543 (m5+m6+m7) + 0.768 c5z m5",
     P(5, DY_YY) + P(4, DY_ZZ) + d5*m567 + 2*0.384*P(5, DY_MZ), 0.6325},
    {"c4x m4 - 0.0825 (m5+m6+m7)", P(4, DY_MX) - 0.0825*m567, -0.4901},
    {"0.384 (m5+m6+m7) + c4y m4 + c5z m5", 0.384*m567 + P(4, DY_MY) + P(5, DY_MZ), 1.7207},
    {"c3y m3 - c4z m4", P(3, DY_MY) - P(4, DY_MZ), 0.0282},
    {"0.0825 (m4+...+m7) + c3x m3", 0.0825*m4567 + P(3, DY_MX), 0.6842},
    {"c2y m2 - 0.316 (m3+...+m7) - c3z m3", P(2, DY_MY) - 0.316*(P(3, DY_M) + m4567) - P(3, DY_MZ), -3.1043},
    {"c2x m2", P(2, DY_MX), -0.0020},
  };
#undef P
  double worst = 0;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    CHECK(fabs(c[i].value - c[i].paper) <= 6e-5, "panda: %s = %.6f, the paper's pi(p-hat) %.4f",
          c[i].name, c[i].value, c[i].paper);
    worst = fmax(worst, fabs(c[i].value - c[i].paper));
  }
  printf("panda vs Gaz et al. Table III pi(p-hat): %d coefficients, largest difference %.2g\n",
         (int)(sizeof c / sizeof c[0]), worst);
  dy_free_model(m);
}

/* ------------------------------------------- inputs that must be accepted */

/* load path and compare with the reference model: same n, types, geometry
 * and parameters (bitwise: the same numbers went in) */
static int same_model(const char* path, const dyModel* ref, const char* what) {
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_model(path, NULL, &m, err, sizeof err)) { CHECK(0, "%s: does not load: %s", what, err); return 0; }
  int same = m->n == ref->n;
  for (int j = 0; same && j < m->n; j++)
    same &= m->jnt_type[j] == ref->jnt_type[j] && m->dh_alpha[j] == ref->dh_alpha[j] &&
            m->dh_a[j] == ref->dh_a[j] && m->dh_theta[j] == ref->dh_theta[j] && m->dh_d[j] == ref->dh_d[j];
  for (int k = 0; same && k < dy_npar(m); k++) same &= m->par[k] == ref->par[k];
  CHECK(same, "%s: not the same model as the plain table", what);
  dy_free_model(m);
  return same;
}

/* what a user's files look like in practice: Windows line ends, a UTF-8
 * byte-order mark (Excel's "CSV UTF-8"), gzip compression, and a joint
 * name holding a comma (quoted CSV field), which `dynid model` must print
 * back so that it reads back */
static void check_accepted(void) {
  const char* src = "datasets/models/renaud6r.csv";
  dyModel* ref = NULL;
  char err[DY_ERRSZ], p[300], cmd[1024];
  if (dy_load_model(src, NULL, &ref, err, sizeof err)) { CHECK(0, "%s: %s", src, err); return; }
  char text[1 << 14];
  snprintf(text, sizeof text, "%s", th_slurp(src));
  /* CRLF */
  snprintf(p, sizeof p, "%s/crlf.csv", tmp);
  FILE* f = fopen(p, "wb");
  for (const char* s = text; *s; s++) { if (*s == '\n') fputc('\r', f); fputc(*s, f); }
  fclose(f);
  same_model(p, ref, "CRLF line ends");
  /* UTF-8 byte-order mark */
  snprintf(p, sizeof p, "%s/bom.csv", tmp);
  f = fopen(p, "wb");
  fputs("\xef\xbb\xbf", f);
  fputs(text, f);
  fclose(f);
  same_model(p, ref, "UTF-8 byte-order mark before the first line");
  /* gzip */
  snprintf(p, sizeof p, "%s/model.csv.gz", tmp);
  gzFile gz = gzopen(p, "wb");
  gzputs(gz, text);
  gzclose(gz);
  same_model(p, ref, "gzip-compressed table");
  /* a quoted name with a comma survives dynid model */
  snprintf(p, sizeof p, "%s/named.csv", tmp);
  write_file(p, "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,name\n"
                "1,R,0,0,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01,\"shoulder, \"\"left\"\"\"\n");
  char out[300];
  snprintf(out, sizeof out, "%s/named_out.csv", tmp);
  snprintf(cmd, sizeof cmd, "./dynid model %s -o %s", p, out);
  int rc = run(cmd);
  dyModel* m = NULL;
  int ok = rc == 0 && !dy_load_table(out, NULL, &m, err, sizeof err) && m->n == 1 &&
           !strcmp(m->jnt_name[0], "shoulder, \"left\"");
  CHECK(ok, "a joint name with a comma and quotes does not survive dynid model: '%s'",
        m ? m->jnt_name[0] : err);
  dy_free_model(m);
  dy_free_model(ref);
}

/* ------------------------------------------------------ malformed input */

/* run cmd (which must fail with status 1) with -o onto an existing file:
 * the file must be untouched and no temporary left */
static void check_fails(const char* what, const char* cmd, const char* expect) {
  char full[2048], out[300];
  snprintf(out, sizeof out, "%s/existing.csv", tmp);
  write_file(out, "keep me\n");
  snprintf(full, sizeof full, "%s -o %s", cmd, out);
  int rc = run(full);
  const char* e = err_text();
  CHECK(rc == 1, "%s: exit status %d, expected 1 (stderr: %s)", what, rc, e);
  CHECK(count_lines(e) == 1 && !strncmp(e, "dynid: ", 7), "%s: stderr is not one 'dynid: ' line: '%s'", what, e);
  if (expect) CHECK(!strcmp(e, expect), "%s: stderr\n  got      %s  expected %s", what, e, expect);
  CHECK(!strcmp(th_slurp(out), "keep me\n"), "%s: the existing output file was replaced", what);
  CHECK(leftover_temps() == 0, "%s: a temporary output file was left behind", what);
  /* and without -o: the same one line, status 1 */
  rc = run(cmd);
  CHECK(rc == 1, "%s (no -o): exit status %d", what, rc);
  if (expect) CHECK(!strcmp(err_text(), expect), "%s (no -o): stderr '%s'", what, err_text());
}

static void check_bad_dir(void) {
  DIR* dir = opendir("tests/bad");
  CHECK(dir != NULL, "tests/bad not found (run from the repository root)");
  if (!dir) return;
  struct dirent* e;
  int nfiles = 0;
  char names[64][128];
  while ((e = readdir(dir)) && nfiles < 64) {
    size_t L = strlen(e->d_name);
    if (L > 4 && L < 120 && (!strcmp(e->d_name + L - 4, ".csv") || (L > 5 && !strcmp(e->d_name + L - 5, ".urdf"))))
      snprintf(names[nfiles++], 128, "%.120s", e->d_name);
  }
  closedir(dir);
  CHECK(nfiles >= 15, "tests/bad holds only %d cases", nfiles);
  for (int i = 0; i < nfiles; i++) {
    char path[300], xp[300], cmd[1024], expect[1024];
    snprintf(path, sizeof path, "tests/bad/%s", names[i]);
    snprintf(xp, sizeof xp, "tests/bad/%.*s.expect", (int)(strrchr(names[i], '.') - names[i]), names[i]);
    snprintf(expect, sizeof expect, "%s", th_slurp(xp));
    CHECK(expect[0], "%s: no %s beside it", path, xp);
    if (!strncmp(names[i], "states_", 7))
      snprintf(cmd, sizeof cmd, "./dynid id datasets/models/planar3r.csv %s", path);
    else if (!strncmp(names[i], "log_", 4))
      snprintf(cmd, sizeof cmd, "./dynid fd datasets/models/planar3r.csv %s", path);
    else if (!strncmp(names[i], "ident_", 6))   /* through the log reader and its quality gate */
      snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/planar3r.csv %s", path);
    else
      snprintf(cmd, sizeof cmd, "./dynid model %s", path);
    check_fails(path, cmd, expect[0] ? expect : NULL);
  }
}

static void check_malformed_here(void) {
  char p[300], cmd[1024], expect[600];
  /* a directory given as a file */
  snprintf(p, sizeof p, "%s/adir.csv", tmp);
  mkdir(p, 0755);
  snprintf(cmd, sizeof cmd, "./dynid model %s", p);
  snprintf(expect, sizeof expect, "dynid: %s: is a directory, expected a CSV file\n", p);
  check_fails("model is a directory", cmd, expect);
  snprintf(cmd, sizeof cmd, "./dynid id datasets/models/planar3r.csv %s", p);
  check_fails("states is a directory", cmd, expect);
  /* a missing file */
  snprintf(cmd, sizeof cmd, "./dynid model %s/nonexistent.csv", tmp);
  snprintf(expect, sizeof expect, "dynid: %s/nonexistent.csv: cannot open: No such file or directory\n", tmp);
  check_fails("missing model file", cmd, expect);
  /* fd where the inertia matrix is singular (a massless link): status 1 */
  snprintf(p, sizeof p, "%s/massless.csv", tmp);
  write_file(p, "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
                "1,R,0,0,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
                "2,R,0,0.3,0,0,0,0,0,0,0,0,0,0,0,0\n");
  char lg[300];
  snprintf(lg, sizeof lg, "%s/flog.csv", tmp);
  write_file(lg, "t,q1,q2,qd1,qd2,tau1,tau2\n0,0,0,0,0,1,1\n");
  snprintf(cmd, sizeof cmd, "./dynid fd %s %s", p, lg);
  check_fails("fd with a singular inertia matrix (chol)", cmd, NULL);
  snprintf(cmd, sizeof cmd, "./dynid fd %s %s --algo aba", p, lg);
  check_fails("fd with a singular inertia matrix (aba)", cmd, NULL);
  /* an output path that cannot be written */
  snprintf(cmd, sizeof cmd, "./dynid model datasets/models/planar3r.csv -o %s/no/such/dir/out.csv", tmp);
  int rc = run(cmd);
  CHECK(rc == 1 && count_lines(err_text()) == 1, "unwritable -o: exit %d, stderr '%s'", rc, err_text());
}

/* bad usage: status 2, diagnostics on stderr starting "dynid: ", an existing
 * output untouched */
static void check_usage(void) {
  static const char* const cmds[] = {
    "./dynid",
    "./dynid frobnicate datasets/models/planar3r.csv",
    "./dynid model datasets/models/planar3r.csv --frobnicate x",
    "./dynid model datasets/models/planar3r.csv --frobnicate",
    "./dynid model",
    "./dynid model datasets/models/planar3r.csv extra.csv",
    "./dynid id datasets/models/planar3r.csv",
    "./dynid inertia",
    "./dynid fd datasets/models/planar3r.csv",
    "./dynid fd datasets/models/planar3r.csv x.csv --algo nope",
    "./dynid id datasets/models/planar3r.csv x.csv --algo nope",
    "./dynid model datasets/models/planar3r.csv --gravity 1,2",
    "./dynid model datasets/models/planar3r.csv --gravity",
  };
  char out[300], full[1024];
  snprintf(out, sizeof out, "%s/existing.csv", tmp);
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    write_file(out, "keep me\n");
    /* -o goes first so that a trailing option still lacks its value */
    const char* sp = strlen(cmds[i]) > 8 ? strchr(cmds[i] + 8, ' ') : NULL;
    if (sp) snprintf(full, sizeof full, "%.*s -o %s%s", (int)(sp - cmds[i]), cmds[i], out, sp);
    else snprintf(full, sizeof full, "%s", cmds[i]);
    int rc = run(full);
    CHECK(rc == 2, "'%s': exit status %d, expected 2", full, rc);
    /* a bare `dynid` prints the usage; every other case names the problem */
    if (sp) CHECK(!strncmp(err_text(), "dynid: ", 7), "'%s': stderr '%s'", full, err_text());
    else CHECK(err_text()[0], "'%s': nothing on stderr", full);
    CHECK(!strcmp(th_slurp(out), "keep me\n"), "'%s': the existing output file was replaced", full);
  }
  CHECK(run("./dynid --help") == 0, "dynid --help: not status 0");
  CHECK(run("./dynid model --help") == 0, "dynid model --help: not status 0");
}

/* help: every command's --help documents every option it accepts (an
 * undocumented one shows as "(not documented)") and ends with an example
 * whose shipped files exist; the manual page in the repository is what
 * `dynid --man` prints (both come from one table); --version; close-match
 * suggestions for mistyped commands and options */
static void check_help(void) {
  static const char* const cmds[] = {"model", "id", "inertia", "fd", "regressor", "base", "excite",
                                     "simulate", "identify", "validate", "report", "bench"};
  char cmd[600], so[300];
  snprintf(so, sizeof so, "%s/stdout", tmp);
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    snprintf(cmd, sizeof cmd, "./dynid %s --help", cmds[i]);
    int rc = run(cmd);
    const char* h = th_slurp(so);
    char want[64];
    snprintf(want, sizeof want, "usage: dynid %s", cmds[i]);
    CHECK(rc == 0 && !strncmp(h, want, strlen(want)) && strstr(h, "\noptions:\n"), "%s: exit %d, '%.200s'", cmd, rc, h);
    CHECK(!strstr(h, "(not documented)"), "%s: an accepted option has no description:\n%s", cmd, h);
    const char* ex = strstr(h, "\nexample:\n  dynid ");
    CHECK(ex != NULL, "%s: no example", cmd);
    for (const char* s = ex ? strstr(ex, "datasets/") : NULL; s; s = strstr(s + 1, " datasets/")) {
      if (*s == ' ') s++;
      char path[256];
      snprintf(path, sizeof path, "%.*s", (int)strcspn(s, " \n"), s);
      CHECK(access(path, R_OK) == 0, "%s: the example's file %s is not shipped", cmd, path);
    }
    /* dynid help CMD prints the same */
    char* copy = strdup(h);
    snprintf(cmd, sizeof cmd, "./dynid help %s", cmds[i]);
    run(cmd);
    CHECK(copy && !strcmp(copy, th_slurp(so)), "dynid help %s differs from --help", cmds[i]);
    free(copy);
    /* every option the help lists is in the manual page */
    const char* man = th_slurp("reports/dynid.1");
    for (const char* s = strstr(th_slurp(so), "\n  --"); s; s = strstr(s + 1, "\n  --")) {
      char opt[64], roff[140];
      snprintf(opt, sizeof opt, "%.*s", (int)strcspn(s + 5, " [\n="), s + 5);
      snprintf(roff, sizeof roff, "\\-\\-%s", opt);
      for (char* p = roff + 4; *p; p++) if (*p == '-') { memmove(p + 1, p, strlen(p) + 1); *p++ = '\\'; }
      CHECK(strstr(man, roff) != NULL, "reports/dynid.1 lacks --%s of %s", opt, cmds[i]);
      man = th_slurp("reports/dynid.1");
    }
  }
  /* the page kept in the repository is the one dynid prints */
  CHECK(run("./dynid --man") == 0, "dynid --man");
  {
    char* page = strdup(th_slurp(so));
    CHECK(page && !strcmp(page, th_slurp("reports/dynid.1")),
          "reports/dynid.1 differs from `./dynid --man`: regenerate it with ./dynid --man > reports/dynid.1");
    free(page);
  }
  CHECK(run("./dynid --version") == 0 && !strncmp(th_slurp(so), "dynid ", 6), "dynid --version");
  CHECK(run("./dynid identfy x y") == 2 && strstr(err_text(), "did you mean 'identify'?"),
        "unknown command: no suggestion: %s", err_text());
  CHECK(run("./dynid identify datasets/models/planar3r.csv x.csv --cutof 3") == 2 &&
        strstr(err_text(), "did you mean '--cutoff'?") && strstr(err_text(), "dynid identify --help"),
        "unknown option: no suggestion: %s", err_text());
  CHECK(run("./dynid base datasets/models/planar3r.csv --frction") == 2 && strstr(err_text(), "'--friction'"),
        "--frction: %s", err_text());
}

/* the KUKA's recording 2 in d: as is (k.csv), with ';', in degrees, time in
 * ms, torque in mN m, without joint 7; identified into p.csv, whose
 * provenance lines come first */
static void make_kuka_logs(const char* d, const char* K) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "zcat datasets/kuka_lwr4/measurements_2.csv.gz | head -1500 > %s/k.csv && "
           "tr ',' ';' < %s/k.csv > %s/k_semi.csv && "
           "awk -F, -v OFS=, 'NR>1{for(i=2;i<=8;i++)$i=$i*57.29577951308232}1' %s/k.csv > %s/k_deg.csv && "
           "awk -F, -v OFS=, 'NR>1{$1=$1*1000}1' %s/k.csv > %s/k_ms.csv && "
           "awk -F, -v OFS=, 'NR>1{for(i=23;i<=29;i++)$i=$i*1000}1' %s/k.csv > %s/k_mnm.csv && "
           "cut -d, -f1-7,9-14,16-21,23-28 %s/k.csv > %s/k6.csv",
           d, d, d, d, d, d, d, d, d, d, d);
  CHECK(system(cmd) == 0, "making the logs");
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s/k.csv --map t=t_s --quiet -o %s/p.csv", K, d, d);
  CHECK(run(cmd) == 0, "identify: %s", err_text());
  char pp[320];
  snprintf(pp, sizeof pp, "%s/p.csv", d);
  const char* p = th_slurp(pp);
  CHECK(!strncmp(p, "# dynid ", 8) && strstr(p, "\n# command: dynid identify ") &&
        strstr(p, "fingerprint: 7 joints RRRRRRR geometry ") && strstr(p, "\n# input: "),
        "the PARAMS file does not start with its provenance: %.300s", p);
}

/* the semicolon-separated log gives the same parameters */
static void check_semicolon(const char* d, const char* K) {
  char cmd[1024], pp[320], p2[320];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s/k_semi.csv --map t=t_s --quiet -o %s/p2.csv", K, d, d);
  CHECK(run(cmd) == 0, "identify on ';': %s", err_text());
  snprintf(pp, sizeof pp, "%s/p.csv", d);
  char* a = strdup(strstr(th_slurp(pp), "\nname,") ? strstr(th_slurp(pp), "\nname,") : "");
  snprintf(p2, sizeof p2, "%s/p2.csv", d);
  const char* b = strstr(th_slurp(p2), "\nname,");
  CHECK(a && b && a[0] && !strcmp(a, b), "a ';' log does not give the parameters of the ',' one");
  free(a);
}

/* each mistake: the exit status and what stderr says (a failure in one line) */
static void check_mistake_table(const char* d, const char* K) {
  static const struct { const char* args; int rc; const char* says; } m[] = {
    {"identify %s %s/k.csv --map t=time -o %s/x.csv", 1, "the file has columns, comma-separated: t_s, q1, q2"},
    {"identify %s %s/k_semi.csv --map t=time -o %s/x.csv", 1, "semicolon-separated: t_s, q1"},
    {"identify %s %s/k6.csv --map t=t_s -o %s/x.csv", 1,
     "the model has 7 joints, the log has 6 position columns (q1..q6)"},
    {"validate datasets/models/planar3r.csv %s/p.csv %s/k.csv --map t=t_s -o %s/x.csv", 1,
     "identified on another model"},
    {"validate datasets/models/panda.csv %s/p.csv %s/k.csv --map t=t_s -o %s/x.csv", 1, "--force"},
    {"id datasets/models/panda.csv %s/k.csv --params %s/p.csv -o %s/x.csv", 1, "identified on another model"},
    {"validate %s %s/p.csv %s/k_deg.csv --map t=t_s -o %s/x.csv", 0, "positions in degrees?"},
    {"validate %s %s/p.csv %s/k_ms.csv --map t=t_s -o %s/x.csv", 0, "--time-scale"},
    {"validate %s %s/p.csv %s/k_mnm.csv --map t=t_s -o %s/x.csv", 0, "--gain"},
    {"identify datasets/models/planar3r.csv %s/k.csv --map t=t_s -o %s/x.csv", 0,
     "the model has 3 joints, the log has 7 position columns"},
  };
  char cmd[4096];
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    char a[1100];
    if (!strncmp(m[i].args, "validate %s %s/p", 16))
      snprintf(a, sizeof a, m[i].args, K, d, d, d);
    else if (!strncmp(m[i].args, "identify %s", 11))
      snprintf(a, sizeof a, m[i].args, K, d, d);
    else if (!strncmp(m[i].args, "identify datasets", 17) || !strncmp(m[i].args, "validate datasets", 17) ||
             !strncmp(m[i].args, "id datasets", 11))
      snprintf(a, sizeof a, m[i].args, d, d, d);
    snprintf(cmd, sizeof cmd, "./dynid %s", a);
    int rc = run(cmd);
    const char* e = err_text();
    CHECK(rc == m[i].rc && strstr(e, m[i].says) && (rc == 0 || count_lines(e) == 1),
          "'%s': exit %d (want %d), stderr '%s' (want '%s')", cmd, rc, m[i].rc, e, m[i].says);
  }
}

/* the usual mistakes answered: a delimiter read as it is, a missing column
 * with the columns the file has, a log of another arm, degrees, time in
 * ms, torque in mN m, parameters of another arm; each a warning (the
 * command succeeds) or a one-line error that names the fix */
static void check_mistakes(void) {
  char cmd[4096], d[300];
  const char* K = "datasets/urdf/kuka_lwr4.urdf";
  snprintf(d, sizeof d, "%s", tmp);
  make_kuka_logs(d, K);
  check_semicolon(d, K);
  check_mistake_table(d, K);
  /* --force uses them anyway, with a warning */
  snprintf(cmd, sizeof cmd,
           "./dynid validate datasets/models/panda.csv %s/p.csv %s/k.csv --map t=t_s --force -o %s/x.csv", d, d, d);
  CHECK(run(cmd) == 0 && strstr(err_text(), "used anyway (--force)"), "--force: %s", err_text());
  /* a PARAMS file without provenance (written before) is read as before */
  snprintf(cmd, sizeof cmd,
           "grep -v '^# \\(dynid [0-9]\\|command:\\|model: .*fingerprint\\|input:\\)' %s/p.csv > %s/old.csv && "
           "./dynid validate datasets/models/panda.csv %s/old.csv %s/k.csv --map t=t_s -o %s/x.csv", d, d, d, d, d);
  CHECK(run(cmd) == 0, "an old PARAMS file: %s", err_text());
}

/* a successful run with -o writes the file completely and leaves no temp */
static void check_output(void) {
  char cmd[1024], out[300];
  snprintf(out, sizeof out, "%s/existing.csv", tmp);
  write_file(out, "keep me\n");
  snprintf(cmd, sizeof cmd, "./dynid model datasets/models/panda.csv -o %s", out);
  int rc = run(cmd);
  char so[300];
  snprintf(so, sizeof so, "%s/stdout", tmp);
  CHECK(rc == 0 && strstr(th_slurp(out), "panda_joint7") && leftover_temps() == 0 && !th_slurp(so)[0],
        "dynid model -o: exit %d, file not written completely, stdout not empty, or temp left", rc);
}

/* identified parameters far from the nominal model: the Panda's log with
 * its torque scaled by 100 (a gain or unit mistake) is flagged, the log as
 * it is is not */
static void check_nominal_outliers(void) {
  char cmd[1024], path[300];
  snprintf(path, sizeof path, "%s/stderr", tmp);
  const char* base = "./dynid identify datasets/models/panda.csv datasets/panda/exciting_traj.csv.gz --map t=t_s "
                     "--rows 1..6000 --friction";
  snprintf(cmd, sizeof cmd, "%s -o %s/o1.csv", base, tmp);
  int r = run(cmd);
  CHECK(r == 0 && !strstr(th_slurp(path), "far from the nominal model"), "the Panda as logged: no outlier warning");
  snprintf(cmd, sizeof cmd, "%s --gain 100,100,100,100,100,100,100 -o %s/o2.csv", base, tmp);
  r = run(cmd);
  const char* e = th_slurp(path);
  CHECK(r == 0 && strstr(e, "base parameters are far from the nominal model's") && strstr(e, "MY2R = "),
        "torque x100: the parameters far from the nominal model are named: %s", e);
  /* validate -o: the summary on the terminal */
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/panda.csv %s/o1.csv datasets/panda/exciting_traj.csv.gz "
           "--map t=t_s --rows 14001..16000 -o %s/v.csv", tmp, tmp);
  r = run(cmd);
  e = th_slurp(path);
  CHECK(r == 0 && strstr(e, "rel. error per joint [%]:") && strstr(e, "   all ") &&
        strstr(e, "validate: physical consistency:"),
        "validate -o: the per-joint errors and the verdict on the terminal: %s", e);
}

int main(void) {
  if (access("./dynid", X_OK)) {
    fprintf(stderr, "FAIL: ./dynid not found; run from the repository root after `make dynid`\n");
    printf("0 passed, 1 failed\n");
    return 1;
  }
  snprintf(tmp, sizeof tmp, "/tmp/dynid_test_cli.XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) check_shipped(shipped + i);
  check_stanford_paper();
  check_panda_paper();
  check_nominal_outliers();
  check_accepted();
  check_bad_dir();
  check_malformed_here();
  check_usage();
  check_output();
  check_help();
  check_mistakes();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
  return test_report();
}
