/* SPDX-License-Identifier: MIT */
/* dynid tests: an industrial arm's motor-side log, end to end through the
 * command line, against an independent least squares.
 *
 * The arm: the PUMA 560 table with joint friction (FV, FC on every joint,
 * its rotor inertias IA on joints 1-4), a 3x3 coupled wrist as industrial
 * arms have (motors 4, 5, 6 sit behind joint 4: motor 5 turns joints 4 and
 * 5, motor 6 turns joints 4, 5 and 6), the coupled motors' rotor inertias
 * and frictions (IAM5 FVM5 FCM5, IAM6 FVM6 FCM6), and encoders whose zero is
 * not the model's on joints 2 and 3. The log: 9 s at 5 kHz (45,000 rows) of
 * fast point-to-point moves (quintic moves of 0.15-0.5 s per joint, each
 * joint on its own schedule), motor angles quantised by 20-bit encoders
 * (2^20 counts per motor turn) and motor torques with white noise of 3 %
 * of each motor's RMS torque; its columns are named as a controller names
 * them and mapped with --map. (With 17-bit encoders, 8 times coarser, the
 * zero-phase Butterworth and differences cannot reach 1.15x on joint 3 at
 * any one cutoff: 1.18x at its best, measured; the default gives 1.22x.)
 *
 * dynid identify on rows 1..27000 (--transmission, --q-offset, --friction,
 * every other option at its default), dynid validate on rows 27001..45000:
 * its held-out relative error, overall and per joint, against the one of a
 * least squares written here: the rigid-body and joint-friction columns
 * from dyi_regressor on the model without transmission, the coupled
 * motors' columns R_k^T R_k qdd, R_k^T R_k qd, R_k^T sign(R_k qd) written
 * here from their definition, on the exact joint-side states (no filter,
 * every sample), fitted to the logged torques mapped to the joint side
 * (R^T tau_m, the torque validate compares with). Within 1.1x overall,
 * 1.15x on joints 1-4 and 1.25x on each coupled joint (the acceptance
 * figures); the true model's error on the same held-out torques (the noise
 * floor) is printed with them. The reference least squares sees exact
 * states, which no pipeline from quantised motor angles can: the ratios
 * measure what filtering, differentiation, decimation and the edges cost. */
#include "testhelp.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "core/transmission.h"
#include "ident/regressor.h"
#include "ident/traj.h"
#include <cblas.h>
#include <lapacke.h>
#include <unistd.h>

#define N6 6
#define NROW 45000
#define NFIT 27000
#define FS 5000.0
#define NJP (DY_NPL * N6)            /* the joint-side full vector: 84 */
#define NC (NJP + 3 * 2)             /* and the two coupled motors' three */
static char tmp[64];

/* gears on joints 1-4; the wrist's motors 5 and 6 also turn the joints
 * before them (their shafts pass through joint 4, and 6's through 5) */
static const double RW[N6 * N6] = {
  62.6, 0, 0, 0, 0, 0,
  0, 107.8, 0, 0, 0, 0,
  0, 0, -53.7, 0, 0, 0,
  0, 0, 0, 76.0, 0, 0,
  0, 0, 0, 60.0, 71.9, 0,
  0, 0, 0, 50.0, -38.35, 76.7};
static const int MOT[2] = {4, 5};   /* the coupled motors, 0-based */
/* IAM, FVM, FCM of motors 5 and 6 [kg m^2, N m s/rad, N m], motor side */
static const double MOTP[2][3] = {{3.5e-5, 5e-5, 0.005}, {3.0e-5, 4e-5, 0.004}};
/* joint friction FV [N m s/rad], FC [N m], joint side */
static const double FV[N6] = {4.0, 6.0, 2.5, 0.3, 0.25, 0.2};
static const double FC[N6] = {6.0, 8.0, 4.0, 0.5, 0.4, 0.3};
/* joint position = encoder position mapped + offset, on joints 2 and 3 */
static const double QOFF[N6] = {0, -1.5707963267948966, 0.35, 0, 0, 0};
#define QOFF_OPT "--q-offset 0,-1.5707963267948966,0.35,0,0,0"
#define MAP_OPT "--map t=time --map q1..q6=c2..c7 --map tau1..tau6=c8..c13"

/* the exact joint-side states and the logged torques (joint side) */
static double (*Q)[N6], (*QD)[N6], (*QDD)[N6], (*TAU)[N6];

/* one joint's moves: quintic point-to-point moves (zero velocity and
 * acceleration at each end) of random length 0.15-0.5 s to random targets
 * within +-lim of mid, at most step from the last; q, qd, qdd of NROW
 * samples at FS */
static void moves(int j, double mid, double lim, double step) {
  double t = 0, from = mid, T = 0, to = mid;
  long k = 0;
  while (k < NROW) {
    T = th_uniform(0.15, 0.5);
    to = fmin(mid + lim, fmax(mid - lim, from + th_uniform(-step, step)));
    for (; k < NROW && k / FS < t + T; k++) {
      double s = (k / FS - t) / T, D = to - from;
      Q[k][j] = from + D * s * s * s * (10 - 15 * s + 6 * s * s);
      QD[k][j] = D / T * 30 * s * s * (1 - s) * (1 - s);
      QDD[k][j] = D / (T * T) * 60 * s * (1 - s) * (1 - 2 * s);
    }
    t += T;
    from = to;
  }
}

/* the coupled motors' torque added to tau, from the definition:
 * tau += R_k^T (IAM R_k qdd + FVM R_k qd + FCM sign(R_k qd)) */
static void add_motors(const double* qd, const double* qdd, double* tau) {
  for (int c = 0; c < 2; c++) {
    const double* r = RW + MOT[c] * N6;
    double a = 0, v = 0;
    for (int j = 0; j < N6; j++) { a += r[j] * qdd[j]; v += r[j] * qd[j]; }
    double tm = MOTP[c][0] * a + MOTP[c][1] * v + MOTP[c][2] * ((v > 0) - (v < 0));
    for (int j = 0; j < N6; j++) tau[j] += r[j] * tm;
  }
}

/* tau_m with R^T tau_m = tau: R is lower triangular, so R^T is upper:
 * back substitution, the test's own solve */
static void motor_torque(const double* tau, double* tm) {
  for (int i = N6 - 1; i >= 0; i--) {
    double s = tau[i];
    for (int k = i + 1; k < N6; k++) s -= RW[k * N6 + i] * tm[k];
    tm[i] = s / RW[i * N6 + i];
  }
}

/* the true model: the table's inertias with the friction above; IA on the
 * wrist's coupled joints is the motors' (IAM) */
static dyModel* true_model(void) {
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_table("datasets/models/puma560.csv", NULL, &m, err, sizeof err)) { CHECK(0, "%s", err); return NULL; }
  for (int j = 0; j < N6; j++) {
    double* p = m->par + DY_NPAR_LINK * N6 + DY_NPAR_JNT * j;
    p[DY_FV] = FV[j];
    p[DY_FC] = FC[j];
    p[DY_FO] = 0;
    if (j >= 4) p[DY_IA] = 0;
  }
  return m;
}

/* the log: t, motor angles q_m = R (q - QOFF) rounded to 2^17 counts per
 * turn, motor torques from R^T tau_m = tau plus 3 % of each motor's RMS
 * torque as white noise; TAU = R^T of the logged motor torques. 0 or -1 */
static int write_log(const dyModel* m, const char* path) {
  static double TM[NROW][N6];
  dyData* d = dy_make_data(m);
  double rms[N6] = {0}, qcount = 2 * M_PI / 1048576;
  for (long k = 0; k < NROW; k++) {
    double tau[N6];
    dy_rnea(m, d, m->par, Q[k], QD[k], QDD[k], tau);
    add_motors(QD[k], QDD[k], tau);
    motor_torque(tau, TM[k]);
    for (int i = 0; i < N6; i++) rms[i] += TM[k][i] * TM[k][i] / NROW;
  }
  dy_free_data(d);
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "time,enc1,enc2,enc3,enc4,enc5,enc6,trq1,trq2,trq3,trq4,trq5,trq6\n");
  unsigned long long s = 29;
  for (long k = 0; k < NROW; k++) {
    double qo[N6], qm[N6];
    for (int j = 0; j < N6; j++) qo[j] = Q[k][j] - QOFF[j];
    dy_trans_mul(qm, RW, qo, N6);
    fprintf(f, "%.17g", k / FS);
    for (int i = 0; i < N6; i++) fprintf(f, ",%.17g", qcount * nearbyint(qm[i] / qcount));
    for (int i = 0; i < N6; i++) {
      TM[k][i] += 0.03 * sqrt(rms[i]) * dyi_rng_gauss(&s);
      fprintf(f, ",%.17g", TM[k][i]);
    }
    fputc('\n', f);
    dy_trans_mulT(TAU[k], RW, TM[k], N6);
  }
  return fclose(f) ? -1 : 0;
}

/* one sample's regressor row block: dyi_regressor's 14n joint-side columns
 * (model without transmission) and the coupled motors' three each, written
 * here: R_k^T R_k qdd, R_k^T R_k qd, R_k^T sign(R_k qd). Y column-major n x NC */
static void ref_regressor(const dyModel* m0, dyData* d, long k, double* Y) {
  dyi_regressor(m0, d, Q[k], QD[k], QDD[k], 1, Y, N6);
  for (int c = 0; c < 2; c++) {
    const double* r = RW + MOT[c] * N6;
    double a = 0, v = 0;
    for (int j = 0; j < N6; j++) { a += r[j] * QDD[k][j]; v += r[j] * QD[k][j]; }
    for (int i = 0; i < N6; i++) {
      Y[i + N6 * (NJP + 3 * c)] = r[i] * a;
      Y[i + N6 * (NJP + 3 * c + 1)] = r[i] * v;
      Y[i + N6 * (NJP + 3 * c + 2)] = r[i] * ((v > 0) - (v < 0));
    }
  }
}

/* least squares on rows 0..NFIT-1: the normal equations of the columns
 * scaled to unit norm (accumulated by blocks of BLK samples through BLAS),
 * solved through their eigenvectors with the directions below 1e-12 of
 * the largest left out (the columns no data excite: a minimum-norm
 * solution, whose predictions are the fit's). The regressor's condition
 * number here is ~1e4 (1e8 squared), so 1e-12 keeps every excited
 * direction and drops only the structural zeros (~1e-16). beta: NC */
#define BLK 256
static int ref_fit(const dyModel* m0, double* beta) {
  static double A[NC * NC], Y[N6 * BLK * NC], T[N6 * BLK], Yk[N6 * NC];
  double b[NC] = {0}, sc[NC] = {0}, w[NC];
  dyData* d = dy_make_data(m0);
  memset(A, 0, sizeof A);
  for (long k0 = 0; k0 < NFIT; k0 += BLK) {
    int nb = (int)(NFIT - k0 < BLK ? NFIT - k0 : BLK), ld = N6 * nb;
    for (int s = 0; s < nb; s++) {   /* the block column-major: row s*N6 + i */
      ref_regressor(m0, d, k0 + s, Yk);
      for (int c = 0; c < NC; c++) memcpy(Y + (size_t)c * ld + s * N6, Yk + N6 * c, N6 * sizeof(double));
      memcpy(T + s * N6, TAU[k0 + s], N6 * sizeof(double));
    }
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, NC, ld, 1, Y, ld, 1, A, NC);
    cblas_dgemv(CblasColMajor, CblasTrans, ld, NC, 1, Y, ld, T, 1, 1, b, 1);
  }
  dy_free_data(d);
  /* A column-major lower = row-major upper: A[c*NC + e] holds (e, c) for e >= c */
  for (int c = 0; c < NC; c++) sc[c] = A[c * NC + c] > 0 ? 1 / sqrt(A[c * NC + c]) : 0;
  for (int c = 0; c < NC; c++)
    for (int e = c; e < NC; e++) A[e * NC + c] = A[c * NC + e] = A[c * NC + e] * sc[c] * sc[e];
  if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', NC, A, NC, w)) return -1;
  double x[NC] = {0};
  for (int e = 0; e < NC; e++) {   /* eigenvector e is column e of A */
    if (w[e] <= 1e-12 * w[NC - 1]) continue;
    double p = 0;
    for (int c = 0; c < NC; c++) p += A[c * NC + e] * sc[c] * b[c];
    for (int c = 0; c < NC; c++) x[c] += A[c * NC + e] * p / w[e];
  }
  for (int c = 0; c < NC; c++) beta[c] = x[c] * sc[c];
  return 0;
}

/* held-out relative errors [%] (validate's: 100 sqrt(sum e^2 / sum tau^2),
 * per joint, then all joints) of the reference fit beta on rows NFIT.. and,
 * into floor, of the true model */
static void ref_heldout(const dyModel* m, const dyModel* m0, const double* beta, double* rel, double* floor) {
  static double Y[N6 * NC];
  double se[N6] = {0}, sf[N6] = {0}, sm[N6] = {0};
  dyData* d = dy_make_data(m0);
  for (long k = NFIT; k < NROW; k++) {
    double tau[N6];
    ref_regressor(m0, d, k, Y);
    dy_rnea(m, d, m->par, Q[k], QD[k], QDD[k], tau);
    add_motors(QD[k], QDD[k], tau);
    for (int i = 0; i < N6; i++) {
      double p = 0;
      for (int c = 0; c < NC; c++) p += Y[i + N6 * c] * beta[c];
      se[i] += (p - TAU[k][i]) * (p - TAU[k][i]);
      sf[i] += (tau[i] - TAU[k][i]) * (tau[i] - TAU[k][i]);
      sm[i] += TAU[k][i] * TAU[k][i];
    }
  }
  dy_free_data(d);
  double a = 0, b = 0, c = 0;
  for (int i = 0; i < N6; i++) {
    rel[i] = 100 * sqrt(se[i] / sm[i]);
    floor[i] = 100 * sqrt(sf[i] / sm[i]);
    a += se[i]; b += sf[i]; c += sm[i];
  }
  rel[N6] = 100 * sqrt(a / c);
  floor[N6] = 100 * sqrt(b / c);
}

/* validate's rel_err_pct per joint and "all" from dir/stdout into rel (n+1); 0 or -1 */
static int read_metrics(double* rel) {
  char path[128];
  snprintf(path, sizeof path, "%s/stdout", tmp);
  const char* s = th_slurp(path);
  for (int j = 0; j <= N6; j++) {
    char key[16];
    snprintf(key, sizeof key, j < N6 ? "\n%d," : "\nall,", j + 1);
    const char* l = strstr(s, key);
    if (!l) return -1;
    l = strchr(l + 1, ',');   /* joint, rms, rel_err_pct */
    l = l ? strchr(l + 1, ',') : NULL;
    if (!l) return -1;
    rel[j] = strtod(l + 1, NULL);
  }
  return 0;
}

/* dynid identify on the first NFIT rows, dynid validate on the rest, with
 * the log options a user gives such a log; validate's errors into rel */
static int run_cli(double* rel) {
  char cmd[1024], path[128];
  snprintf(path, sizeof path, "%s/R.csv", tmp);
  FILE* f = fopen(path, "w");
  for (int i = 0; f && i < N6 * N6; i++) fprintf(f, "%.17g%c", RW[i], i % N6 == N6 - 1 ? '\n' : ',');
  if (!f || fclose(f)) return -1;
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/puma560.csv %s/motor.csv " MAP_OPT
           " --transmission %s/R.csv " QOFF_OPT " --friction --rows 1..%d -o %s/p.csv", tmp, tmp, NFIT, tmp);
  snprintf(path, sizeof path, "%s/stderr", tmp);
  int rc = th_run(tmp, cmd);
  CHECK(rc == 0, "%s: %s", cmd, th_slurp(path));
  if (rc) return -1;
  /* no false alarm on the right model: fast moves make the torque mostly inertial (the gravity check
   * takes the nominal inertial torque out), and a rotor inertia of 2e-4 kg m^2 makes the unscaled
   * condition number large (the excitation is judged after column scaling) */
  CHECK(!strstr(th_slurp(path), "warning"), "identify of the right model: no warning:\n%s", th_slurp(path));
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/puma560.csv %s/p.csv %s/motor.csv " MAP_OPT
           " --transmission %s/R.csv " QOFF_OPT " --rows %d..%d", tmp, tmp, tmp, NFIT + 1, NROW);
  rc = th_run(tmp, cmd);
  CHECK(rc == 0, "%s: %s", cmd, th_slurp(path));
  CHECK(!strstr(th_slurp(path), "warning"), "validate of the right model: no warning:\n%s", th_slurp(path));
  return rc ? -1 : read_metrics(rel);
}

/* the arm's moves: joints 1-3 within +-0.8 rad of their middles, moves
 * of up to 0.6 rad; the wrist's within +-1.5 rad, moves of up to 1.2 rad */
static void make_moves(void) {
  Q = calloc(NROW, sizeof *Q); QD = calloc(NROW, sizeof *QD);
  QDD = calloc(NROW, sizeof *QDD); TAU = calloc(NROW, sizeof *TAU);
  static const double mid[N6] = {0, -0.6, 0.4, 0, 0.8, 0};
  for (int j = 0; j < N6; j++) moves(j, mid[j], j < 3 ? 0.8 : 1.5, j < 3 ? 0.6 : 1.2);
}

static void test_industrial_arm(void) {
  dyModel* m = true_model();
  if (!m) return;
  make_moves();
  char path[128];
  snprintf(path, sizeof path, "%s/motor.csv", tmp);
  CHECK(write_log(m, path) == 0, "log written");
  double beta[NC], ref[N6 + 1], floor[N6 + 1], cli[N6 + 1];
  CHECK(ref_fit(m, beta) == 0, "reference least squares");
  ref_heldout(m, m, beta, ref, floor);
  if (run_cli(cli) == 0) {
    printf("held-out rel. error [%%] joint: dynid / reference LS / true model\n");
    for (int j = 0; j <= N6; j++) {
      double lim = j == N6 ? 1.1 : j < 4 ? 1.15 : 1.25;
      char name[8];
      snprintf(name, sizeof name, j < N6 ? "%d" : "all", j + 1);
      printf("  %s: %.4f / %.4f / %.4f  ratio %.4f (limit %.2f)\n", name, cli[j], ref[j], floor[j], cli[j] / ref[j], lim);
      CHECK(cli[j] <= lim * ref[j], "joint %d: dynid %.4f %% against the reference's %.4f %%: ratio %.4f > %.2f",
            j + 1, cli[j], ref[j], cli[j] / ref[j], lim);
    }
  }
  free(Q); free(QD); free(QDD); free(TAU);
  dy_free_model(m);
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_motorlog_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  test_industrial_arm();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
  return test_report();
}
