/* SPDX-License-Identifier: MIT */
/* dynid tests: validation metrics and the physical-consistency report.
 *  - a simulated log (torque from dy_rnea along a known trajectory plus
 *    known noise with one spike at a known row) through dyv_validator:
 *    rms, rel_err_pct, r2 per joint and "all", the largest error and its
 *    row are compared with values this test computes directly from the
 *    noise it added (two-pass formulas);
 *  - the smallest eigenvalue of H along the log against a cyclic Jacobi
 *    eigenvalue routine written here;
 *  - the short-horizon simulation: a log made by integrating the dynamics
 *    with 20 RK4 substeps per sample is reproduced to < 1e-6 rad by the
 *    validator's simulation (verify/sim.h) with the true parameters, and not with
 *    parameters that are 20 % off;
 *  - physical consistency: base sets from QR with column pivoting of the
 *    Newton-Euler regressor, B by least squares (Y = Y_b B). MLCs of a
 *    physically valid robot are certified consistent by the SDP (the
 *    realisation P beta, which zeroes the non-pivot parameters, is not
 *    valid itself, so the solver has work to do); a planar 2R whose
 *    identifiable ZZ2 is made negative (ZZ2 >= 0 for every physical body)
 *    is certified inconsistent with link 2 failing; single-link checks of dyv_link_phys against
 *    hand-made bodies. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "verify/validate.h"
#include "ident/base.h"
#include "ident/log.h"
#include <lapacke.h>

/* smallest eigenvalue by cyclic Jacobi rotations (independent of LAPACK) */
static double jacobi_mineig(const double* H0, int n) {
  double A[DY_MAXJ*DY_MAXJ];
  memcpy(A, H0, sizeof(double) * n * n);
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++) for (int q = p + 1; q < n; q++) off += A[p*n+q]*A[p*n+q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        if (fabs(A[p*n+q]) < 1e-300) continue;
        double th = 0.5 * atan2(2*A[p*n+q], A[q*n+q] - A[p*n+p]);
        double c = cos(th), s = sin(th);
        for (int k = 0; k < n; k++) {
          double akp = A[k*n+p], akq = A[k*n+q];
          A[k*n+p] = c*akp - s*akq; A[k*n+q] = s*akp + c*akq;
        }
        for (int k = 0; k < n; k++) {
          double apk = A[p*n+k], aqk = A[q*n+k];
          A[p*n+k] = c*apk - s*aqk; A[q*n+k] = s*apk + c*aqk;
        }
      }
  }
  double e = A[0];
  for (int i = 1; i < n; i++) e = fmin(e, A[i*n+i]);
  return e;
}

static void traj(int n, double t, double* q, double* qd, double* qdd) {
  for (int j = 0; j < n; j++) {
    double w = 0.7 + 0.3*j, a = 0.8 / (1 + j);
    q[j] = a*sin(w*t + j); qd[j] = a*w*cos(w*t + j); qdd[j] = -a*w*w*sin(w*t + j);
  }
}

/* rms, rel_err_pct and r2 per joint and "all" against the noise added to the
 * torques tm (N x n) of the log, by two-pass formulas */
static void check_stats(const dyvValidator* v, int n, int N, const double* noise, const double* tm) {
  double rms[DY_MAXJ+1], rel[DY_MAXJ+1], r2[DY_MAXJ+1];
  dyv_stats_result(&v->st, rms, rel, r2);
  double se_all = 0, sm_all = 0, st_all = 0;
  for (int j = 0; j < n; j++) {
    double se = 0, sm = 0, mean = 0, st = 0;
    for (int i = 0; i < N; i++) { se += noise[i*n+j]*noise[i*n+j]; sm += tm[i*n+j]*tm[i*n+j]; mean += tm[i*n+j]; }
    mean /= N;
    for (int i = 0; i < N; i++) st += (tm[i*n+j] - mean)*(tm[i*n+j] - mean);
    /* round-off: the prediction agrees with dy_rnea to ~1e-13 */
    CHECK_REL(rms[j], sqrt(se/N), 1e-9, "rms");
    CHECK_REL(rel[j], 100*sqrt(se/sm), 1e-9, "rel_err_pct");
    CHECK_REL(r2[j], 1 - se/st, 1e-9, "r2");
    se_all += se; sm_all += sm; st_all += st;
  }
  CHECK_REL(rms[n], sqrt(se_all/(N*n)), 1e-9, "rms all");
  CHECK_REL(rel[n], 100*sqrt(se_all/sm_all), 1e-9, "rel_err_pct all");
  CHECK_REL(r2[n], 1 - se_all/st_all, 1e-9, "r2 all");
}

/* the written CSV has n + 2 lines before the comments, one of them "all" */
static void check_metrics_csv(dyvValidator* v, int n) {
  FILE* f = tmpfile();
  dyv_validator_write(v, f, f);
  rewind(f);
  char line[512];
  int rows = 0, all = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] != '#') rows++;
    if (!strncmp(line, "all,", 4)) all = 1;
  }
  fclose(f);
  CHECK(rows == n + 2 && all, "metrics csv: %d rows", rows);
}

/* a simulated log with known noise and one spike through the validator: its
 * metrics, largest error and smallest eigenvalue of H against this file's */
static void check_metrics(void) {
  dyModel* m = th_random_model(5, 0.2, 0.3, 1);
  const int n = m->n, N = 400, spike_row = 137;
  double* tm = malloc(sizeof(double) * N * n);
  double* noise = malloc(sizeof(double) * N * n);
  dyvValidator* v = dyv_validator_make(m, m->par, NULL, NULL, 0);
  dyData* d = dy_make_data(m);
  double H[DY_MAXJ*DY_MAXJ], mineig = INFINITY;
  long mineig_row = -1;
  for (int i = 0; i < N; i++) {
    dyiSample s;
    memset(&s, 0, sizeof s);
    s.row = i + 1; s.t = 0.01*i;
    traj(n, s.t, s.q, s.qd, s.qdd);
    dy_rnea(m, d, m->par, s.q, s.qd, s.qdd, s.tau);
    for (int j = 0; j < n; j++) {
      noise[i*n+j] = th_uniform(-0.5, 0.5) * (1 + j);
      if (i == spike_row - 1 && j == 2) noise[i*n+j] = 25;
      s.tau_raw[j] = s.tau[j] + noise[i*n+j];
      tm[i*n+j] = s.tau_raw[j];
    }
    dyv_validator_add(v, &s);
    dy_crba(m, d, m->par, s.q, H);
    double e = jacobi_mineig(H, n);
    if (e < mineig) { mineig = e; mineig_row = s.row; }
  }
  dyv_validator_flush(v);   /* the samples still buffered for the batch kernels */
  check_stats(v, n, N, noise, tm);
  CHECK(v->st.maxrow == spike_row && v->st.maxjoint == 2, "largest error at row %ld joint %d",
        v->st.maxrow, v->st.maxjoint + 1);
  CHECK_REL(v->st.maxerr, 25, 1e-9, "largest error");
  CHECK_REL(v->mineig, mineig, 1e-9, "smallest eigenvalue of H along the log");
  CHECK(v->mineig_row == mineig_row, "row of the smallest eigenvalue %ld vs %ld", v->mineig_row, mineig_row);
  CHECK(v->not_pd == 0, "H positive definite along the log");
  check_metrics_csv(v, n);
  dyv_validator_free(v);
  dy_free_data(d);
  free(tm); free(noise);
  dy_free_model(m);
}

/* fine RK4 (20 substeps) with torque held per sample */
static void fine_step(const dyModel* m, dyData* d, const double* par, double* q, double* qd,
                      const double* tau, double dt) {
  const int n = m->n, sub = 20;
  double h = dt / sub;
  for (int s = 0; s < sub; s++) {
    double k1[DY_MAXJ], k2[DY_MAXJ], k3[DY_MAXJ], k4[DY_MAXJ], qt[DY_MAXJ], vt[DY_MAXJ];
    double v1[DY_MAXJ], v2[DY_MAXJ], v3[DY_MAXJ], v4[DY_MAXJ];
    memcpy(v1, qd, sizeof(double)*n);
    dy_fd_chol(m, d, par, q, v1, tau, k1);
    for (int j = 0; j < n; j++) { qt[j] = q[j] + 0.5*h*v1[j]; v2[j] = qd[j] + 0.5*h*k1[j]; }
    memcpy(vt, v2, sizeof(double)*n);
    dy_fd_chol(m, d, par, qt, vt, tau, k2);
    for (int j = 0; j < n; j++) { qt[j] = q[j] + 0.5*h*v2[j]; v3[j] = qd[j] + 0.5*h*k2[j]; }
    memcpy(vt, v3, sizeof(double)*n);
    dy_fd_chol(m, d, par, qt, vt, tau, k3);
    for (int j = 0; j < n; j++) { qt[j] = q[j] + h*v3[j]; v4[j] = qd[j] + h*k3[j]; }
    memcpy(vt, v4, sizeof(double)*n);
    dy_fd_chol(m, d, par, qt, vt, tau, k4);
    for (int j = 0; j < n; j++) {
      q[j] += h/6*(v1[j] + 2*v2[j] + 2*v3[j] + v4[j]);
      qd[j] += h/6*(k1[j] + 2*k2[j] + 2*k3[j] + k4[j]);
    }
  }
}

static void check_horizon(void) {
  dyModel* m = th_random_model(4, 0.0, 0.3, 0);
  const int n = m->n, N = 300;
  const double dt = 0.002;
  dyData* d = dy_make_data(m);
  double* wrong = malloc(sizeof(double) * 14 * n);
  for (int k = 0; k < 14*n; k++) wrong[k] = 1.2 * m->par[k];
  dyvValidator* v = dyv_validator_make(m, m->par, NULL, NULL, 0.1);
  dyvValidator* w = dyv_validator_make(m, wrong, NULL, NULL, 0.1);
  double q[DY_MAXJ], qd[DY_MAXJ];
  th_random_state(n, q, qd, NULL);
  for (int i = 0; i < N; i++) {
    dyiSample s;
    memset(&s, 0, sizeof s);
    s.row = i + 1; s.t = dt*i;
    memcpy(s.q, q, sizeof(double)*n); memcpy(s.qd, qd, sizeof(double)*n);
    /* a torque that holds the arm roughly against gravity plus a wiggle */
    dy_rnea(m, d, m->par, q, qd, NULL, s.tau_raw);
    for (int j = 0; j < n; j++) s.tau_raw[j] += 2*sin(7*s.t + j);
    dy_fd_chol(m, d, m->par, q, qd, s.tau_raw, s.qdd);
    memcpy(s.tau, s.tau_raw, sizeof(double)*n);
    dyv_validator_add(v, &s);
    dyv_validator_add(w, &s);
    fine_step(m, d, m->par, q, qd, s.tau_raw, dt);
  }
  double worst = 0, worstw = 0;
  for (int j = 0; j < n; j++) { worst = fmax(worst, v->sim_max[j]); worstw = fmax(worstw, w->sim_max[j]); }
  CHECK(v->sim_count == N - 1, "compared samples %ld, segments %ld", v->sim_count, v->sim_segments);
  CHECK(v->sim_segments >= 5 && v->sim_segments <= 7, "segments %ld for 0.6 s / 0.1 s", v->sim_segments);
  CHECK(worst < 1e-6, "horizon simulation, true parameters: max error %.3g rad", worst);
  CHECK(worstw > 1e3 * worst && worstw > 1e-5, "horizon simulation, 20%% wrong parameters: max error %.3g rad", worstw);
  dyv_validator_free(v); dyv_validator_free(w);
  free(wrong);
  dy_free_data(d);
  dy_free_model(m);
}

/* QR base set of model m: B (nb x 10n row-major) and pivot list; returns nb */
static int qr_base(const dyModel* m, double** Bout, int** pivout) {
  const int n = m->n, nc = 10*n, ns = 40, rows = ns*n;
  dyData* d = dy_make_data(m);
  double* Y = malloc(sizeof(double) * rows * nc);
  double* e = calloc(14*n, sizeof(double));
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
  for (int s = 0; s < ns; s++) {
    th_random_state(n, q, qd, qdd);
    dy_rnea(m, d, e, q, qd, qdd, t0);
    for (int k = 0; k < nc; k++) {
      e[k] = 1; dy_rnea(m, d, e, q, qd, qdd, t1); e[k] = 0;
      for (int i = 0; i < n; i++) Y[(size_t)k*rows + s*n + i] = t1[i] - t0[i];
    }
  }
  double* A = malloc(sizeof(double) * rows * nc);
  memcpy(A, Y, sizeof(double) * rows * nc);
  lapack_int* jp = calloc(nc, sizeof(lapack_int));
  double* tq = malloc(sizeof(double) * nc);
  LAPACKE_dgeqp3(LAPACK_COL_MAJOR, rows, nc, A, rows, jp, tq);
  int nb = 0;
  while (nb < nc && fabs(A[(size_t)nb*rows + nb]) > 1e-9 * fabs(A[0])) nb++;
  /* B: least squares Y_b B = Y, Y_b = pivot columns */
  double* Yb = malloc(sizeof(double) * rows * nb);
  for (int i = 0; i < nb; i++) memcpy(Yb + (size_t)i*rows, Y + (size_t)(jp[i]-1)*rows, sizeof(double)*rows);
  LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', rows, nb, nc, Yb, rows, Y, rows);
  double* B = malloc(sizeof(double) * nb * nc);
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < nc; k++) {
      double x = Y[(size_t)k*rows + i];
      B[i*nc + k] = fabs(x) < 1e-9 ? 0 : x;
    }
  int* piv = malloc(sizeof(int) * nb);
  for (int i = 0; i < nb; i++) piv[i] = jp[i] - 1;
  *Bout = B; *pivout = piv;
  free(Y); free(e); free(A); free(jp); free(tq); free(Yb);
  dy_free_data(d);
  return nb;
}

/* realisation with only pivot parameters: pi0[piv_i] = beta_i */
static void realise(const dyModel* m, const double* B, const int* piv, int nb, const double* pi,
                    double* pi0, double* beta) {
  const int n = m->n, nc = 10*n;
  for (int i = 0; i < nb; i++) {
    double s = 0;
    for (int k = 0; k < nc; k++) s += B[i*nc + k] * pi[k];
    beta[i] = s;
  }
  memset(pi0, 0, sizeof(double) * 14 * n);
  for (int i = 0; i < nb; i++) pi0[piv[i]] = beta[i];
}

/* single links: a valid body; triangle inequality violated; negative mass */
static void check_links(void) {
  double p10[10], c[3] = {0.1, -0.05, 0.2}, Ic[6] = {0.02, 0.001, 0, 0.03, 0, 0.04};
  dyvLinkPhys l;
  dy_linkpar_from_com(p10, 2.0, c, Ic);
  dyv_link_phys(&l, p10);
  CHECK(l.ok && l.pi_mineig > 0, "valid body reported valid (min eig %.3g)", l.pi_mineig);
  CHECK_REL(l.com[0], 0.1, 1e-12, "com x");
  double Ib[6] = {0.01, 0, 0, 0.01, 0, 0.05};   /* 0.01 + 0.01 < 0.05 */
  dy_linkpar_from_com(p10, 2.0, c, Ib);
  dyv_link_phys(&l, p10);
  CHECK(!l.ok && l.tri < 0 && l.pi_mineig < 0, "triangle violation detected (tri %.3g)", l.tri);
  CHECK_REL(l.tri, -0.03, 1e-9, "triangle margin I1 + I2 - I3");
  dy_linkpar_from_com(p10, 2.0, c, Ic);
  for (int k = 0; k < 10; k++) p10[k] = -p10[k];
  dyv_link_phys(&l, p10);
  CHECK(!l.ok && l.mass < 0, "negative mass detected");
}

/* feasible on purpose: the MLCs of a physically valid (3 + trial)-joint robot
 * are certified consistent, by a witness that reproduces them */
static void check_feasible(int trial) {
  char err[256];
  dyModel* m = th_random_model(3 + trial, 0.0, 0.5, 0);
  const int n = m->n;
  double *B; int* piv;
  int nb = qr_base(m, &B, &piv);
  double pi0[14*DY_MAXJ], beta[10*DY_MAXJ];
  realise(m, B, piv, nb, m->par, pi0, beta);
  dyvPhys ph;
  int r = dyv_phys_check(&ph, m, pi0, B, nb, 10*n, err, sizeof err);
  CHECK(r == 0, "phys check runs: %s", err);
  int given_ok = 1;
  for (int j = 0; j < n; j++) given_ok &= ph.given[j].ok;
  CHECK(!given_ok, "trial %d: P beta itself is not physical (so the search is exercised)", trial);
  CHECK(ph.verdict == 1, "trial %d (n=%d): consistent MLCs certified consistent (verdict %d, distance %.3g)",
        trial, n, ph.verdict, ph.dist);
  int best_ok = 1;
  for (int j = 0; j < n; j++) best_ok &= ph.best[j].pi_mineig >= -1e-9 * (ph.best[j].mass + 1);
  CHECK(best_ok, "trial %d: the witness has positive semi-definite pseudo-inertias", trial);
  /* the witness has the same MLCs: B best = beta */
  double worst = 0;
  for (int i = 0; i < nb; i++) {
    double s = 0;
    for (int k = 0; k < 10*n; k++) s += B[i*10*n + k] * ph.best_par[k];
    worst = fmax(worst, fabs(s - beta[i]));
  }
  double bmax = 0;
  for (int i = 0; i < nb; i++) bmax = fmax(bmax, fabs(beta[i]));
  /* the SDP's witness is interior-point accurate: relative distance <= 1e-6 */
  CHECK(worst < 1e-6 * bmax, "witness reproduces the MLCs: %.3g of %.3g", worst, bmax);
  dyv_phys_free(&ph);
  free(B); free(piv);
  dy_free_model(m);
}

/* dyv_phys_print of an inconsistent result says so and names link 2 */
static void check_phys_print(const dyvPhys* ph) {
  FILE* f = tmpfile();
  dyv_phys_print(f, ph);
  rewind(f);
  char line[512];
  int heur = 0, l2 = 0;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "INCONSISTENT (certified)")) heur = 1;
    if (strstr(line, "link 2") && strstr(line, "INVALID")) l2 = 1;
  }
  fclose(f);
  CHECK(heur && l2, "report says inconsistent (certified) and names link 2");
}

/* the inertia matrix of the planar arm's pi0 (ZZ2 < 0) is indefinite on
 * every sample (H_22 = ZZ2 at every q), the decided certificate */
static void check_indefinite(const dyModel* m, const double* pi0) {
  dyvValidator* v = dyv_validator_make(m, pi0, NULL, NULL, 0);
  for (int i = 0; i < 5; i++) {
    dyiSample sm;
    memset(&sm, 0, sizeof sm);
    sm.row = i + 1; sm.t = i;
    th_random_state(2, sm.q, sm.qd, sm.qdd);
    dyv_validator_add(v, &sm);
  }
  CHECK(v->st.count == 0 && v->not_pd == 0, "5 samples wait for the batch kernels");
  dyv_validator_flush(v);
  CHECK(v->not_pd == 5 && v->mineig < 0, "indefinite H on every sample: %ld, %.3g", v->not_pd, v->mineig);
  dyv_validator_free(v);
}

/* infeasible on purpose: planar 2R, vertical axes, gravity along the axes;
 * ZZ2 (= Izz_c2 + m2 (cx^2 + cy^2) >= 0 for any body) is a base parameter
 * on its own; made negative it is certified inconsistent, with its true
 * value consistent */
static void check_infeasible(void) {
  char err[256];
  dyModel* m = dy_make_model(2);
  m->dh_a[1] = 0.5;
  for (int j = 0; j < 2; j++) th_random_link(m->par + 10*j);
  double *B; int* piv;
  int nb = qr_base(m, &B, &piv);
  int zz2_alone = -1;
  for (int i = 0; i < nb; i++) {
    int cnt = 0, who = -1;
    for (int k = 0; k < 20; k++) if (B[i*20 + k] != 0) { cnt++; who = k; }
    if (cnt == 1 && who == 10 + DY_ZZ) zz2_alone = i;
  }
  CHECK(zz2_alone >= 0, "planar 2R: ZZ2 is a base parameter on its own (nb = %d)", nb);
  double pi0[28], beta[20];
  double bad[28];
  memcpy(bad, m->par, sizeof bad);
  bad[10 + DY_ZZ] = -0.05;     /* then every realisation has ZZ2 = -0.05 */
  realise(m, B, piv, nb, bad, pi0, beta);
  dyvPhys ph;
  dyv_phys_check(&ph, m, pi0, B, nb, 20, err, sizeof err);
  CHECK(ph.verdict == 0, "inconsistent MLCs certified inconsistent (verdict %d, lower bound %.3g)", ph.verdict,
        ph.lower);
  CHECK(!ph.given[1].ok && ph.best[1].ok,
        "link 2 of the given realisation reported failing, the closest consistent one valid");
  check_phys_print(&ph);
  check_indefinite(m, pi0);
  dyv_phys_free(&ph);
  /* the same robot with its true ZZ2 is feasible */
  realise(m, B, piv, nb, m->par, pi0, beta);
  dyv_phys_check(&ph, m, pi0, B, nb, 20, err, sizeof err);
  CHECK(ph.verdict == 1, "planar 2R true MLCs certified consistent (verdict %d)", ph.verdict);
  dyv_phys_free(&ph);
  free(B); free(piv);
  dy_free_model(m);
}

/* physical consistency: single links, feasible MLCs, an infeasible arm */
static void check_phys(void) {
  check_links();
  for (int trial = 0; trial < 5; trial++) check_feasible(trial);
  check_infeasible();
}

/* the log at path: N samples along a known trajectory, torque from dy_rnea
 * plus uniform noise; the samples (q qd qdd tau, 4n each) into S */
static void write_cv_log(const dyModel* m, dyData* d, const char* path, int N, double* S) {
  const int n = m->n;
  FILE* f = fopen(path, "w");
  fprintf(f, "t");
  for (int j = 1; j <= n; j++) fprintf(f, ",q%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",qd%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",qdd%d", j);
  for (int j = 1; j <= n; j++) fprintf(f, ",tau%d", j);
  fprintf(f, "\n");
  for (int i = 0; i < N; i++) {
    double* x = S + (size_t)i*4*n;
    double t = 0.01*i;
    for (int j = 0; j < n; j++) {
      double w1 = 0.9 + 0.37*j, w2 = 2.3 + 0.51*j;
      x[j] = 0.7*sin(w1*t + j) + 0.3*sin(w2*t);
      x[n+j] = 0.7*w1*cos(w1*t + j) + 0.3*w2*cos(w2*t);
      x[2*n+j] = -0.7*w1*w1*sin(w1*t + j) - 0.3*w2*w2*sin(w2*t);
    }
    dy_rnea(m, d, m->par, x, x + n, x + 2*n, x + 3*n);
    for (int j = 0; j < n; j++) x[3*n+j] += th_uniform(-0.3, 0.3);
    fprintf(f, "%.17g", t);
    for (int k = 0; k < 4*n; k++) fprintf(f, ",%.17g", x[k]);
    fprintf(f, "\n");
  }
  fclose(f);
}

/* the rows Y_b = Y P of the N samples of S (column c at Yb + c N n), with Y
 * from dy_rnea on unit vectors */
static void cv_regressor(const dyModel* m, dyData* d, const dyiBase* b, const double* S, int N, double* Yb) {
  const int n = m->n, nb = b->nb, np = b->npar;
  double e[14*DY_MAXJ] = {0}, t0[DY_MAXJ], t1[DY_MAXJ];
  for (int i = 0; i < N; i++) {
    const double* x = S + (size_t)i*4*n;
    memset(e, 0, sizeof e);
    dy_rnea(m, d, e, x, x + n, x + 2*n, t0);
    for (int c = 0; c < nb; c++) {
      for (int k = 0; k < np; k++) e[k] = b->P[(size_t)k*nb + c];
      dy_rnea(m, d, e, x, x + n, x + 2*n, t1);
      for (int r2 = 0; r2 < n; r2++) Yb[(size_t)c*N*n + (size_t)i*n + r2] = t1[r2] - t0[r2];
    }
  }
}

/* fold fo of K in memory: OLS (dgels) on the other samples, then the sums of
 * squared errors (se) and squared torques (sm) of the fold's own samples
 * predicted by dy_rnea on P beta */
static void cv_fold(const dyModel* m, dyData* d, const dyiBase* b, const double* S, const double* Yb, int N,
                    int K, int fo, double* se, double* sm) {
  const int n = m->n, nb = b->nb, np = b->npar;
  long s0 = (long)N * fo / K, s1 = (long)N * (fo + 1) / K;
  int rows = (int)(N - (s1 - s0)) * n;
  double* A = malloc(sizeof(double) * rows * nb);
  double* y = malloc(sizeof(double) * rows);
  int rr = 0;
  for (int i = 0; i < N; i++) {
    if (i >= s0 && i < s1) continue;
    for (int r2 = 0; r2 < n; r2++, rr++) {
      for (int c = 0; c < nb; c++) A[(size_t)c*rows + rr] = Yb[(size_t)c*N*n + (size_t)i*n + r2];
      y[rr] = S[(size_t)i*4*n + 3*n + r2];
    }
  }
  LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', rows, nb, 1, A, rows, y, rows);
  double par[14*DY_MAXJ] = {0}, t1[DY_MAXJ];
  for (int k = 0; k < np; k++)
    for (int c = 0; c < nb; c++) par[k] += b->P[(size_t)k*nb + c] * y[c];
  *se = 0; *sm = 0;
  for (int i = (int)s0; i < s1; i++) {
    const double* x = S + (size_t)i*4*n;
    dy_rnea(m, d, par, x, x + n, x + 2*n, t1);
    for (int j = 0; j < n; j++) { double ee = x[3*n+j] - t1[j]; *se += ee*ee; *sm += x[3*n+j]*x[3*n+j]; }
  }
  free(A); free(y);
}

/* dyv_crossval on the log against the K-fold done here in memory: pooled
 * and per-fold rel_err_pct */
static void check_cv_memory(const dyModel* m, dyData* d, const dyiBase* b, dyiLogReader* lr, const double* S,
                            int N, int K) {
  const int n = m->n;
  char err[512];
  dyvCrossVal cv;
  int r = dyv_crossval(&cv, m, b, lr, 0, K, err, sizeof err);   /* counts the samples */
  CHECK(r == 0, "crossval runs: %s", err);
  CHECK(cv.N == N, "crossval saw %ld samples", cv.N);
  dyvCrossVal cn;   /* the count given (a pass already made): the same folds */
  CHECK(dyv_crossval(&cn, m, b, lr, N, K, err, sizeof err) == 0 && cn.N == N &&
        !memcmp(cn.fold_rel, cv.fold_rel, sizeof cv.fold_rel), "crossval with the sample count given: %s", err);
  double* Yb = malloc(sizeof(double) * N * n * b->nb);
  cv_regressor(m, d, b, S, N, Yb);
  double se_all = 0, sm_all = 0, worst_fold = 0;
  for (int fo = 0; fo < K; fo++) {
    double se, sm;
    cv_fold(m, d, b, S, Yb, N, K, fo, &se, &sm);
    se_all += se; sm_all += sm;
    worst_fold = fmax(worst_fold, fabs(cv.fold_rel[fo] - 100*sqrt(se/sm)) / (100*sqrt(se/sm)));
  }
  double rms[DY_MAXJ+1], rel[DY_MAXJ+1], r2[DY_MAXJ+1];
  dyv_stats_result(&cv.pooled, rms, rel, r2);
  CHECK_REL(rel[n], 100*sqrt(se_all/sm_all), 1e-6, "cv pooled rel_err_pct vs in-memory K-fold");
  CHECK(worst_fold < 1e-6, "cv per-fold rel_err_pct vs in-memory: %.3g", worst_fold);
  free(Yb);
}

/* what the tests read from dyv_validate_log's report */
struct vreport {
  double rel_all, relsum, mean_printed;
  int decided, cvall, sim, pd, nrel;
};

/* the report in f, read to its end */
static void parse_report(FILE* f, struct vreport* v) {
  char line[1024];
  *v = (struct vreport){.rel_all = NAN, .mean_printed = NAN};
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "all,", 4)) {
      double a, bb2, c2;
      if (sscanf(line + 4, "%lf,%lf,%lf", &a, &bb2, &c2) == 3) v->rel_all = bb2;
    }
    if (strstr(line, "consistent (certified)")) v->decided = 1;
    if (strstr(line, "# cv all")) v->cvall = 1;
    if (line[0] >= '1' && line[0] <= '9' && strchr(line, ',')) {
      double a2, b2; if (sscanf(strchr(line, ',') + 1, "%lf,%lf", &a2, &b2) == 2) { v->relsum += b2; v->nrel++; }
    }
    const char* mp = strstr(line, "# mean of the per-joint relative errors (normalised rms, every joint alike): ");
    if (mp) v->mean_printed = strtod(strchr(mp, ':') + 1, NULL);
    if (strstr(line, "# sim joint")) v->sim = 1;
    if (strstr(line, "positive definite at every sample")) v->pd = 1;
  }
}

/* the same check with the log's rows parsed on a thread of their own prints
 * what one thread printed into f (read to its end) */
static void check_threads(FILE* f, const dyModel* m, const double* par, const dyiBase* b, const char* path,
                          const dyiLogOpt* lo) {
  char err[512];
  FILE* f2 = tmpfile();
  int r2 = dyv_validate_log(f2, m, par, b, 0, path, lo, 0.05, 3, 2, err, sizeof err);
  long n1 = ftell(f), n2 = ftell(f2);
  char *a1 = calloc((size_t)n1 + 1, 1), *a2 = calloc((size_t)n2 + 1, 1);
  rewind(f); rewind(f2);
  int same = r2 == 0 && n1 == n2 && a1 && a2 && fread(a1, 1, (size_t)n1, f) == (size_t)n1 &&
             fread(a2, 1, (size_t)n2, f2) == (size_t)n2 && !memcmp(a1, a2, (size_t)n1);
  CHECK(same, "dyv_validate_log with 2 threads prints what one prints (%ld and %ld bytes)", n1, n2);
  free(a1); free(a2);
  fclose(f2);
}

/* the whole check (what `dynid validate` prints) on the realisation P B pi
 * of the true parameters: rel_err_pct "all" is the noise level */
static void check_validate_log(const dyModel* m, dyData* d, const dyiBase* b, const char* path,
                               const dyiLogOpt* lo, const double* S, int N) {
  const int n = m->n, nb = b->nb, np = b->npar;
  char err[512];
  double par[14*DY_MAXJ] = {0}, beta[14*DY_MAXJ], t1[DY_MAXJ];
  for (int i = 0; i < nb; i++) {
    beta[i] = 0;
    for (int k = 0; k < np; k++) beta[i] += b->B[(size_t)i*np + k] * m->par[k];
  }
  for (int k = 0; k < np; k++)
    for (int i = 0; i < nb; i++) par[k] += b->P[(size_t)k*nb + i] * beta[i];
  double se = 0, sm = 0;
  for (int i = 0; i < N; i++) {
    const double* x = S + (size_t)i*4*n;
    dy_rnea(m, d, m->par, x, x + n, x + 2*n, t1);
    for (int j = 0; j < n; j++) { double ee = x[3*n+j] - t1[j]; se += ee*ee; sm += x[3*n+j]*x[3*n+j]; }
  }
  FILE* f = tmpfile();
  int r2v = dyv_validate_log(f, m, par, b, 0, path, lo, 0.05, 3, 1, err, sizeof err);
  CHECK(r2v == 0, "dyv_validate_log: %s", err);
  rewind(f);
  struct vreport v;
  parse_report(f, &v);
  check_threads(f, m, par, b, path, lo);
  fclose(f);
  CHECK_REL(v.rel_all, 100*sqrt(se/sm), 1e-5, "validate: rel_err_pct all (6 digits printed)");
  CHECK(v.decided && v.cvall && v.sim && v.pd, "validate report: feasible %d, cv %d, sim %d, pd %d", v.decided,
        v.cvall, v.sim, v.pd);
  CHECK(v.nrel == n && fabs(v.mean_printed - v.relsum / n) <= 1e-5 * (v.relsum / n),
        "validate: the mean of the per-joint relative errors (%.6g) is the mean of the rows (%.6g, %d rows)",
        v.mean_printed, v.relsum / (v.nrel ? v.nrel : 1), v.nrel);
}

/* k-fold cross-validation through a log file written here (torque from
 * dy_rnea along a known trajectory plus known noise), read back by the
 * library's log reader without filtering; compared with a K-fold done
 * here in memory: rows Y_b = Y P with Y from dy_rnea unit vectors, OLS by
 * LAPACK dgels, prediction by dy_rnea on P beta. */
static void check_crossval(void) {
  dyModel* m = th_random_model(3, 0.0, 0.3, 0);
  const int n = m->n, N = 600, K = 4;
  char err[512];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b != NULL, "khalil set: %s", err);
  if (!b) { dy_free_model(m); return; }
  const char* path = "build/tests/cv_log.csv";
  double* S = malloc(sizeof(double) * N * 4 * n);   /* q qd qdd tau per sample */
  dyData* d = dy_make_data(m);
  write_cv_log(m, d, path, N, S);
  dyiLogOpt lo;
  dyi_log_defaults(&lo);
  lo.cutoff_hz = -1;
  lo.filter_tau = 0;
  dyiLogReader* lr = dyi_log_open(path, n, &lo, err, sizeof err);
  CHECK(lr != NULL, "log opens: %s", err);
  if (lr) {
    check_cv_memory(m, d, b, lr, S, N, K);
    dyi_log_close(lr);
    check_validate_log(m, d, b, path, &lo, S, N);
  }
  free(S);
  dy_free_data(d);
  dyi_base_free(b);
  dy_free_model(m);
}

/* dyv_sparse_P: B Ps = 1, only nb nonzero rows, and the realisation gives
 * the torques of the set's own realisation P beta (dy_rnea on both) */
static void check_sparse(void) {
  static const char* sets[2] = {"qr", "khalil"};
  for (int trial = 0; trial < 4; trial++) {
    dyModel* m = th_random_model(3 + trial, trial % 2 ? 0.3 : 0, 0.5, trial % 2);
    const int n = m->n;
    dyData* d = dy_make_data(m);
    for (int si = 0; si < 2; si++) {
      char err[512];
      dyiBase* b = dyi_base_make(m, dyi_base_set_parse(sets[si], NULL, 0), m->has_friction, err, sizeof err);
      CHECK(b != NULL, "%s: %s", sets[si], err);
      if (!b) continue;
      const int nb = b->nb, np = b->npar;
      double* Ps = malloc(sizeof(double) * np * nb);
      CHECK(dyv_sparse_P(Ps, b, err, sizeof err) == 0, "sparse P: %s", err);
      double worst = 0;
      for (int i = 0; i < nb; i++)
        for (int k = 0; k < nb; k++) {
          double acc = 0;
          for (int c = 0; c < np; c++) acc += b->B[(size_t)i*np + c] * Ps[(size_t)c*nb + k];
          worst = fmax(worst, fabs(acc - (i == k)));
        }
      int rows = 0;
      for (int c = 0; c < np; c++) {
        int nz = 0;
        for (int k = 0; k < nb; k++) nz |= Ps[(size_t)c*nb + k] != 0;
        rows += nz;
      }
      CHECK(worst < 1e-9 && rows == nb, "%s: B Ps = 1 (%.3g), %d nonzero rows of %d", sets[si], worst, rows, nb);
      double beta[14*DY_MAXJ], p1[14*DY_MAXJ] = {0}, p2[14*DY_MAXJ] = {0};
      for (int i = 0; i < nb; i++) beta[i] = th_uniform(-1, 1);
      for (int c = 0; c < np; c++)
        for (int i = 0; i < nb; i++) { p1[c] += b->P[(size_t)c*nb + i]*beta[i]; p2[c] += Ps[(size_t)c*nb + i]*beta[i]; }
      double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t1[DY_MAXJ], t2[DY_MAXJ];
      th_random_state(n, q, qd, qdd);
      dy_rnea(m, d, p1, q, qd, qdd, t1);
      dy_rnea(m, d, p2, q, qd, qdd, t2);
      double e = 0, sc = 1;
      for (int j = 0; j < n; j++) { e = fmax(e, fabs(t1[j] - t2[j])); sc = fmax(sc, fabs(t1[j])); }
      CHECK(e <= 1e-9 * sc, "%s: sparse realisation has the same torques (%.3g)", sets[si], e);
      free(Ps);
      dyi_base_free(b);
    }
    dy_free_data(d);
    dy_free_model(m);
  }
}

int main(void) {
  check_metrics();
  check_sparse();
  check_crossval();
  check_horizon();
  check_phys();
  return test_report();
}
