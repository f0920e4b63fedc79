/* SPDX-License-Identifier: MIT */
/* dynid tests: base-parameter sets (qr, khalil, and lin when it is built).
 *
 * For every set on every test robot, the set is checked against an
 * independent computation of the identifiable subspace:
 *  - the regressor is rebuilt from Newton-Euler with unit parameter vectors
 *    (column k = dy_rnea(e_k), not dyi_regressor) over random states drawn
 *    by the test's own generator, the columns scaled to unit norm, and its
 *    rank found by an SVD (LAPACKE dgesvd, tolerance 1e-9 of the largest
 *    singular value -- another factorization and another tolerance than the
 *    QR rank test under test); nb must equal that rank;
 *  - the expressions are written (dyi_base_expr) and parsed back
 *    (dyi_expr_parse), and the parsed rows must round-trip exactly and span
 *    exactly the identifiable subspace: each row is orthogonal to the null
 *    space of the independent regressor (|B x| <= 1e-8 |B| |x| for the
 *    right singular vectors x past the rank) and the rows have rank nb (SVD);
 *  - the set fails the QR rank test when a coefficient is perturbed or a
 *    row is dropped (the proof is not vacuous).
 * Robots: random chains of R and P joints, special geometries (SCARA,
 * parallel axes, gravity along the first axis, a prismatic first joint, two
 * prismatic joints in a row, a Cartesian robot, coaxial joints, no gravity),
 * Renaud's 6R ([Renaud]) with its grouped parameters derived by hand, and
 * the Franka Emika Panda (modified DH from the robot's documentation):
 * 43 base parameters and the expressions of Gaz et al. 2019, Table III. */
#include "testmodels.h"
#include "core/dynamics.h"
#include "ident/regressor.h"
#include "ident/base.h"
#include <lapacke.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/io.h"

/* independent regressor from NE with unit vectors: rank and null space.
 * Returns rank; Vnull (npar x nnull, column-major, unscaled coordinates) */
static int indep_subspace(const dyModel* m, int friction, double** Vnull, int* nnull, double* gap) {
  int n = m->n, np = friction ? 14*n : 10*n, ns = 40 * np / n + 20, N = ns * n;
  dyData* d = dy_make_data(m);
  double* Y = calloc((size_t)N * (size_t)np, sizeof(double));
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
  for (int s = 0; s < ns; s++) {
    th_random_state(n, q, qd, qdd);
    for (int j = 0; j < n; j++) if (m->jnt_type[j] == DY_PRISMATIC) q[j] *= 0.2;
    th_ne_regressor(m, d, np, q, qd, qdd, Y + (size_t)s*n, N);
  }
  double* sc = calloc((size_t)np, sizeof(double)), big = 0;
  for (int k = 0; k < np; k++) {
    double s = 0;
    for (int i = 0; i < N; i++) s += Y[i + (size_t)N*k] * Y[i + (size_t)N*k];
    sc[k] = sqrt(s);
    big = fmax(big, sc[k]);
  }
  for (int k = 0; k < np; k++) {
    double f = sc[k] > 1e-11 * big ? 1 / sc[k] : 0;
    if (f == 0) sc[k] = 0;
    for (int i = 0; i < N; i++) Y[i + (size_t)N*k] *= f;
  }
  double* S = malloc(sizeof(double) * (size_t)np);
  double* VT = malloc(sizeof(double) * (size_t)np * (size_t)np);
  double wq;
  LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', N, np, Y, N, S, NULL, 1, VT, np, &wq, -1);
  int lw = (int)wq;
  double* w = malloc(sizeof(double) * (size_t)lw);
  int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', N, np, Y, N, S, NULL, 1, VT, np, w, lw);
  CHECK(info == 0, "dgesvd info %d", info);
  int r = 0;
  while (r < np && S[r] > 1e-9 * S[0]) r++;
  *gap = r < np ? S[r-1] / fmax(S[r], 1e-300) : INFINITY;
  /* null space of Y D^-1 ... : Y_s z = 0 with Y_s = Y D, x = D z; zero columns: e_k */
  *nnull = np - r;
  *Vnull = calloc((size_t)np * (size_t)(np - r + 1), sizeof(double));
  for (int l = 0; l < np - r; l++)
    for (int k = 0; k < np; k++) {
      double z = VT[(r + l) + (size_t)np*k];
      (*Vnull)[k + (size_t)np*l] = sc[k] > 0 ? z / sc[k] : z;  /* zero column: any value is null */
    }
  free(S); free(VT); free(w); free(sc); free(Y); dy_free_data(d);
  return r;
}

static int svd_rank(const double* Brow, int nb, int np) {
  if (nb == 0) return 0;
  double* A = malloc(sizeof(double) * (size_t)nb * (size_t)np);
  for (int i = 0; i < nb; i++) for (int k = 0; k < np; k++) A[i + (size_t)nb*k] = Brow[(size_t)i*np + k];
  int mn = nb < np ? nb : np;
  double* S = malloc(sizeof(double) * (size_t)mn), wq;
  LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', nb, np, A, nb, S, NULL, 1, NULL, 1, &wq, -1);
  int lw = (int)wq;
  double* w = malloc(sizeof(double) * (size_t)lw);
  LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', nb, np, A, nb, S, NULL, 1, NULL, 1, w, lw);
  int r = 0;
  while (r < mn && S[r] > 1e-10 * S[0]) r++;
  free(A); free(S); free(w);
  return r;
}

/* parsed expressions of set b into a new nb x npar array */
static double* parsed_rows(const dyModel* m, const dyiBase* b, const char* what) {
  double* Bp = calloc((size_t)b->nb * (size_t)b->npar + 1, sizeof(double));
  char buf[8192], err[256];
  int exact = 1;
  for (int i = 0; i < b->nb; i++) {
    dyi_base_expr(m, b, i, buf, sizeof buf);
    int rc = dyi_expr_parse(m, b->npar, buf, Bp + (size_t)i*b->npar, err, sizeof err);
    CHECK(rc == 0, "%s: parse '%s': %s", what, buf, err);
    for (int k = 0; k < b->npar; k++)
      if (Bp[(size_t)i*b->npar + k] != b->B[(size_t)i*b->npar + k] &&
          fabs(b->B[(size_t)i*b->npar + k]) > 1e-14) exact = 0;
  }
  CHECK(exact, "%s: expressions round-trip exactly", what);
  return Bp;
}

/* the proof is not vacuous: a perturbed coefficient of a dependent column
 * and a missing base parameter must fail the QR test of b; restored it passes */
static void check_not_vacuous(const dyModel* m, dyiBase* b, const char* what) {
  char err[512];
  int np = b->npar;
  int i = b->nb / 2, k = 0;
  while (k < np && b->B[(size_t)i*np + k] == 0) k++;
  double* B0 = malloc(sizeof(double) * (size_t)b->nb * (size_t)np);
  memcpy(B0, b->B, sizeof(double) * (size_t)b->nb * (size_t)np);
  /* perturb a coefficient of a dependent column (or add a wrong one) */
  int kd = -1;
  for (int c = 0; c < np; c++) if (b->B[(size_t)i*np + c] != 0 && c != b->lead[i]) kd = c;
  if (kd >= 0) {
    b->B[(size_t)i*np + kd] *= 1.01;
    int rc = dyi_base_verify(m, b, err, sizeof err);
    CHECK(rc != 0, "%s: a perturbed coefficient must fail the QR test", what);
    memcpy(b->B, B0, sizeof(double) * (size_t)b->nb * (size_t)np);
  }
  b->nb--;  /* drop the last row: rank test must fail (B, P row-major with nb columns: rebuild P) */
  double* P0 = b->P;
  b->P = calloc((size_t)np * (size_t)b->nb, sizeof(double));
  char e2[256];
  dyi_base_pinv(b, e2, sizeof e2);
  CHECK(dyi_base_verify(m, b, err, sizeof err) != 0, "%s: a missing base parameter must fail", what);
  free(b->P);
  b->P = P0;
  b->nb++;
  CHECK(dyi_base_verify(m, b, err, sizeof err) == 0, "%s: restored set passes: %s", what, err);
  free(B0);
}

/* the largest |row . x| / (|row| |x|) of the nb rows of Bp (np columns)
 * against the nn null-space vectors in Vn */
static double null_overlap(const double* Bp, int nb, int np, const double* Vn, int nn) {
  double worst = 0;
  for (int l = 0; l < nn; l++) {
    const double* x = Vn + (size_t)np*l;
    double xn = 0;
    for (int k = 0; k < np; k++) xn += x[k] * x[k];
    for (int i = 0; i < nb; i++) {
      double s = 0, a = 0;
      for (int k = 0; k < np; k++) {
        s += Bp[(size_t)i*np + k] * x[k];
        a += Bp[(size_t)i*np + k] * Bp[(size_t)i*np + k];
      }
      worst = fmax(worst, fabs(s) / fmax(sqrt(a * xn), 1e-300));
    }
  }
  return worst;
}

/* the checks shared by every set; returns the set (caller frees) */
static dyiBase* check_set(const dyModel* m, const char* set, int friction, const char* what0) {
  char what[160], err[512];
  snprintf(what, sizeof what, "%s [%s%s]", what0, set, friction ? ", friction" : "");
  dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), friction, err, sizeof err);
  CHECK(b != NULL, "%s: compute: %s", what, err);
  if (!b) return NULL;
  if (b->note[0]) {   /* informative */
    printf("%s: %s\n", what, b->note);
    if (getenv("DYNID_TEST_VERBOSE"))
      for (int j = 0; j < m->n; j++)
        printf("  %d %c alpha %.17g a %.17g theta %.17g d %.17g\n", j + 1, m->jnt_type[j] ? 'P' : 'R',
               m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j]);
  }
  double* Vn;
  int nn;
  double gap;
  int r = indep_subspace(m, friction, &Vn, &nn, &gap);
  CHECK(b->nb == r, "%s: nb %d vs independent SVD rank %d (SVD gap %.3g)", what, b->nb, r, gap);
  CHECK(b->rank_gap > 1e6, "%s: QR rank gap %.3g", what, b->rank_gap);
  double* Bp = parsed_rows(m, b, what);
  int np = b->npar;
  double worst = null_overlap(Bp, b->nb, np, Vn, nn);
  CHECK(worst <= 1e-8, "%s: rows of B orthogonal to the null space: %.3g", what, worst);
  CHECK(svd_rank(Bp, b->nb, np) == b->nb, "%s: rows of B independent", what);
  if (b->nb > 1) check_not_vacuous(m, b, what);
  free(Bp); free(Vn);
  return b;
}

static void check_all_sets(const dyModel* m, const char* what) {
  for (int fr = 0; fr < 2; fr++) {
    dyiBase* bq = check_set(m, "qr", fr, what);
    dyiBase* bk = check_set(m, "khalil", fr, what);
    if (bq && bk) CHECK(bq->nb == bk->nb, "%s: qr and khalil counts %d %d", what, bq->nb, bk->nb);
    dyi_base_free(bq); dyi_base_free(bk);
    /* Lin's set (ident/base_lin.c, another module): checked the same way
     * where it applies; a refusal outside [LinFang99]'s theorem is reported */
    char err[512];
    dyiBase* bl = dyi_base_make(m, DYI_SET_LIN, fr, err, sizeof err);
    if (bl) { dyi_base_free(bl); dyi_base_free(check_set(m, "lin", fr, what)); }
    else if (strstr(err, "outside")) printf("%s [lin]: not applicable: %s\n", what, err);
    else CHECK(0, "%s [lin%s]: %s", what, fr ? ", friction" : "", err);
  }
}

/* model from a table: types "RRPR", alpha, a, d; random inertias */
static dyModel* make_robot(const char* types, const double* alpha, const double* a, const double* d,
                           const double g[3]) {
  int n = (int)strlen(types);
  dyModel* m = dy_make_model(n);
  for (int j = 0; j < n; j++) {
    m->jnt_type[j] = types[j] == 'P' ? DY_PRISMATIC : DY_REVOLUTE;
    m->dh_alpha[j] = alpha[j]; m->dh_a[j] = a[j]; m->dh_d[j] = d[j];
    m->dh_theta[j] = 0;
    th_random_link(m->par + DY_NPAR_LINK*j);
  }
  dy_set_const(m);
  memcpy(m->gravity, g, sizeof m->gravity);
  m->has_friction = 1;
  return m;
}

static const double G0[3] = {0, 0, -9.81};
#define H (M_PI/2)

/* coefficient of standard parameter pname in base parameter bname */
static double coef(const dyModel* m, const dyiBase* b, const char* bname, const char* pname, int* found) {
  *found = 0;
  int k = dy_parindex(m, pname);
  for (int i = 0; i < b->nb; i++)
    if (!strcmp(b->name[i], bname)) { *found = 1; return k >= 0 ? b->B[(size_t)i*b->npar + k] : NAN; }
  return NAN;
}
#define CHECK_COEF(m, b, bn, pn, val) do { int f_; double c_ = coef(m, b, bn, pn, &f_); \
  CHECK(f_ && fabs(c_ - (val)) <= 1e-12 * fmax(1, fabs((double)(val))), \
        "%s: coefficient of %s in %s: %.17g, hand-derived %.17g", \
        dyi_base_set_name(b->set), pn, bn, c_, (double)(val)); } while (0)

static void renaud_6r(void) {
  /* [Renaud], Fig. 6: Renaud's (alpha_{i-1}, a_{i-1}, r_i) are our (alpha_i, a_i, d_i) */
  const double a2 = 0.43, r4 = 0.41;
  const double alpha[6] = {0, H, 0, H, -H, H}, a[6] = {0, 0, a2, 0, 0, 0}, d[6] = {0, 0, 0, r4, 0, 0};
  dyModel* m = make_robot("RRRRRR", alpha, a, d, G0);
  dyiBase* b = check_set(m, "khalil", 0, "Renaud 6R");
  if (b) {
    /* x*2 = x2 + m3 a2: MX2 grows by a2 M3 (and the masses beyond, grouped into M3) */
    CHECK_COEF(m, b, "MX2R", "MX2", 1);
    CHECK_COEF(m, b, "MX2R", "M3", a2);
    CHECK_COEF(m, b, "MX2R", "M4", a2);
    CHECK_COEF(m, b, "MX2R", "M6", a2);
    /* y*3 = y3 - m4 r4 */
    CHECK_COEF(m, b, "MY3R", "M4", -r4);
    CHECK_COEF(m, b, "MY3R", "MZ4", -1);
    /* a*3 = a3 + m4 r4^2, c*3 = c3 + m4 r4^2 (XX3R = XX3 - YY3 + ...) */
    CHECK_COEF(m, b, "XX3R", "M4", r4*r4);
    CHECK_COEF(m, b, "ZZ3R", "M4", r4*r4);
    CHECK_COEF(m, b, "XX3R", "YY3", -1);
    /* c*2 = c2 + m3 a2^2 in ZZ2R; b*2 = b2 + m3 a2^2 goes with YY2 into ZZ1R
     * (alpha_2 = pi/2) and into XX2R with a minus sign */
    CHECK_COEF(m, b, "ZZ2R", "M3", a2*a2);
    CHECK_COEF(m, b, "ZZ1R", "M3", a2*a2);
    CHECK_COEF(m, b, "XX2R", "M3", -a2*a2);
    CHECK_COEF(m, b, "ZZ1R", "YY2", 1);
    /* y5 and z6 only as their difference (Renaud's remark): MY5R = MY5 - MZ6 */
    CHECK_COEF(m, b, "MY5R", "MZ6", -1);
    CHECK_COEF(m, b, "MY5R", "MY5", 1);
    CHECK(b->nb == 36, "Renaud 6R: %d base parameters (36 expected for this PUMA-like arm)", b->nb);
    CHECK(b->note[0] == 0, "Renaud 6R: closed-form rules complete: %s", b->note);
  }
  dyi_base_free(b);
  check_all_sets(m, "Renaud 6R");
  dy_free_model(m);
}

/* Table III of the supplementary material of Gaz et al. (2019), in our names
 * (J about O_j, c m = first moment). Printed with 4 digits: compare to 1e-4.
 * Row 2 prints 0.1067 (m3 + m4 + ...) where m3 is already in 0.0998 m3 (row
 * 6 has the consistent form): written here with m4..m7. */
static const char* const panda_tab[] = {
  "ZZ1 + YY2",
  "XX2 - YY2 + YY3 + 0.0998*M3 + 0.632*MZ3 + 0.1067*M4 + 0.1067*M5 + 0.1067*M6 + 0.1067*M7",
  "XY2", "XZ2", "YZ2",
  "YY3 + ZZ2 + 0.09985*M3 + 0.632*MZ3 + 0.1067*M4 + 0.1067*M5 + 0.1067*M6 + 0.1067*M7",
  "XX3 - YY3 + YY4 - 0.0068*M4", "XY3 + 0.0825*MZ4", "XZ3", "YZ3",
  "YY4 + ZZ3 + 0.0068*M4 + 0.0136*M5 + 0.0136*M6 + 0.0136*M7",
  "XX4 - YY4 + YY5 + 0.768*MZ5 + 0.1406*M5 + 0.1406*M6 + 0.1406*M7",
  "XY4 + 0.0317*M5 + 0.0317*M6 + 0.0317*M7 + 0.0825*MZ5", "XZ4", "YZ4",
  "YY5 + ZZ4 + 0.1543*M5 + 0.1543*M6 + 0.1543*M7 + 0.768*MZ5",
  "XX5 - YY5 + YY6 + 0.0077*M7", "XY5", "XZ5", "YZ5", "YY6 + ZZ5 + 0.0077*M7",
  "XX6 - YY6 + YY7 - 0.0077*M7", "XY6 + 0.088*MZ7", "XZ6", "YZ6", "YY7 + ZZ6 + 0.0077*M7",
  "XX7 - YY7", "XY7", "XZ7", "YZ7", "ZZ7", "MX2",
  "MY2 - 0.316*M4 - 0.316*M5 - 0.316*M6 - 0.316*M7 - 0.316*M3 - MZ3",
  "0.0825*M4 + 0.0825*M5 + 0.0825*M6 + 0.0825*M7 + MX3", "MY3 - MZ4",
  "MX4 - 0.0825*M6 - 0.0825*M7 - 0.0825*M5", "0.384*M5 + 0.384*M6 + 0.384*M7 + MY4 + MZ5",
  "MX5", "MY5 - MZ6", "0.088*M7 + MX6", "MY6 - MZ7", "MX7", "MY7"};

/* every row of Table III is a base parameter with the same terms and
 * coefficients within 1e-4 */
static void panda_table3(const dyModel* m, const dyiBase* b) {
  int ntab = (int)(sizeof panda_tab / sizeof panda_tab[0]), matched = 0, np = b->npar;
  CHECK(ntab == 43, "Panda table has %d rows", ntab);
  double row[70];
  char err[256];
  for (int t = 0; t < ntab; t++) {
    if (dyi_expr_parse(m, np, panda_tab[t], row, err, sizeof err)) { CHECK(0, "table row %d: %s", t, err); continue; }
    int hit = -1;
    for (int i = 0; i < b->nb && hit < 0; i++) {
      int same = 1;
      for (int k = 0; k < np; k++) if ((row[k] != 0) != (b->B[(size_t)i*np + k] != 0)) same = 0;
      if (same) hit = i;
    }
    CHECK(hit >= 0, "Panda: Table III row %d (%s) has no base parameter with the same terms", t + 1, panda_tab[t]);
    if (hit < 0) continue;
    matched++;
    double worst = 0;
    for (int k = 0; k < np; k++) worst = fmax(worst, fabs(row[k] - b->B[(size_t)hit*np + k]));
    CHECK(worst <= 1e-4, "Panda: Table III row %d vs %s: coefficients differ by %.3g", t + 1, b->name[hit], worst);
  }
  CHECK(matched == 43, "Panda: %d of 43 rows matched", matched);
}

/* hand-derived exact coefficients and the identifiability report */
static void panda_exact(const dyModel* m, const dyiBase* b) {
  CHECK_COEF(m, b, "XX2R", "M4", 0.316*0.316 + 0.0825*0.0825);
  CHECK_COEF(m, b, "ZZ4R", "M5", 0.0825*0.0825 + 0.384*0.384);
  CHECK_COEF(m, b, "XY4R", "M5", (-0.0825)*0.384*(-1.0));
  CHECK_COEF(m, b, "XX3R", "M4", -0.0825*0.0825);
  char* txt = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&txt, &len);
  dyi_base_report(f, m, b);
  fclose(f);
  CHECK(strstr(txt, "MX1: not identifiable: joint 1 is revolute about gravity") != NULL, "report MX1");
  CHECK(strstr(txt, "XY2: identifiable alone as XY2") != NULL, "report XY2");
  CHECK(strstr(txt, "YY2: identifiable only in combination, in ZZ1R XX2R") != NULL, "report YY2");
  CHECK(strstr(txt, "XX1: not identifiable") != NULL, "report XX1");
  free(txt);
}

/* Franka Emika Panda, modified DH (Gaz et al. 2019, matlab/utils/Load_Franka_DH.m) */
static void panda(void) {
  const double alpha[7] = {0, -H, H, H, -H, H, H}, a[7] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088},
               d[7] = {0.333, 0, 0.316, 0, 0.384, 0, 0};
  dyModel* m = make_robot("RRRRRRR", alpha, a, d, G0);
  dyiBase* b = check_set(m, "khalil", 0, "Panda");
  CHECK(b && b->nb == 43, "Panda: 43 base parameters (Table III), got %d", b ? b->nb : -1);
  if (b) {
    CHECK(b->note[0] == 0, "Panda: closed-form rules complete: %s", b->note);
    panda_table3(m, b);
    panda_exact(m, b);
  }
  dyi_base_free(b);
  /* with friction: 43 + FV FC FO per joint; IA1 with ZZ1 (r1), IA2 with ZZ2 (joint 2 perpendicular to 1) */
  b = check_set(m, "khalil", 1, "Panda");
  CHECK(b && b->nb == 43 + 21 + 5, "Panda with friction: %d", b ? b->nb : -1);
  if (b) {
    CHECK_COEF(m, b, "ZZ1R", "IA1", 1);
    CHECK_COEF(m, b, "ZZ2R", "IA2", 1);
    CHECK(b->note[0] == 0, "Panda friction: closed-form rules complete: %s", b->note);
  }
  dyi_base_free(b);
  dyiBase* bq = check_set(m, "qr", 0, "Panda");
  CHECK(bq && bq->nb == 43, "Panda qr: 43");
  dyi_base_free(bq);
  dy_free_model(m);
}

/* SCARA: the closed-form rules are complete */
static void scara_more(const dyModel* m) {
  char err[256];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b && b->note[0] == 0, "SCARA: closed-form rules complete: %s", b ? b->note : err);
  dyi_base_free(b);
}

/* coaxial joints: MX2, MY2 of the joint coaxial with joint 1 (vertical) vanish by rule */
static void coaxial_more(const dyModel* m) {
  char err[256];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b != NULL, "coaxial: %s", err);
  CHECK(b && b->note[0] == 0, "coaxial: closed-form rules complete: '%s'", b ? b->note : "");
  int f1, f2;
  if (b) { coef(m, b, "MX2", "MX2", &f1); coef(m, b, "MX2R", "MX2", &f2); }
  CHECK(b && !f1 && !f2, "coaxial: MX2 is not a base parameter");
  dyi_base_free(b);
}

/* no gravity, axes 1 and 2 meeting in O1 (a2 = 0): link 2 turns about the
 * fixed point C = O2 + t z2 with t = -d2 (hand-derived), so
 * XZ2R = XZ2 - d2 MX2, YZ2R = YZ2 - d2 MY2 */
static void intersecting_more(const dyModel* m) {
  char err[256];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b && b->note[0] == 0, "intersecting axes: closed form: %s", b ? b->note : err);
  if (b) { CHECK_COEF(m, b, "XZ2R", "MX2", -0.2); CHECK_COEF(m, b, "YZ2R", "MY2", -0.2); }
  dyi_base_free(b);
}

/* a special geometry: types, MDH alpha, a, d; without gravity (nog); its own
 * checks after those of every set (more, or NULL) */
typedef struct {
  const char* name; const char* types;
  double al[5], a[5], d[5];
  int nog;
  void (*more)(const dyModel* m);
} geom_t;

static const geom_t geometries[] = {
  /* SCARA: RRPR, all axes vertical */
  {"SCARA", "RRPR", {0, 0, 0, 0}, {0, 0.4, 0.3, 0}, {0.5, 0, 0, 0.1}, 0, scara_more},
  /* parallel axes 2, 3, 4 (planar wrist-less arm on a vertical first axis) */
  {"parallel axes", "RRRR", {0, H, 0, 0}, {0, 0.1, 0.5, 0.4}, {0.3, 0, 0.05, 0}, 0, NULL},
  /* gravity along a horizontal first axis: alpha_1 = pi/2, z1 horizontal: MX1, MY1 identifiable */
  {"first axis horizontal", "RRR", {H, -H, 0}, {0, 0.2, 0.6}, {0, 0.1, 0}, 0, NULL},
  /* prismatic first joint (vertical), then RR */
  {"prismatic first joint", "PRR", {0, 0, H}, {0, 0.3, 0.2}, {0, 0.1, 0}, 0, NULL},
  /* prismatic first joint perpendicular to gravity: M1 with IA1 */
  {"horizontal prismatic first joint", "PRR", {H, H, -H}, {0, 0.3, 0.2}, {0, 0.1, 0}, 0, NULL},
  /* two prismatic joints in a row, then a wrist; and without the first joint */
  {"RPP..", "RPPRR", {0, H, H, -H, H}, {0, 0, 0.1, 0, 0}, {0.2, 0.1, 0, 0.3, 0}, 0, NULL},
  {"PPRR", "PPRR", {0, H, H, -H}, {0, 0, 0.1, 0}, {0.2, 0.1, 0, 0.3}, 0, NULL},
  /* Cartesian robot */
  {"Cartesian", "PPP", {0, H, H}, {0, 0, 0}, {0, 0, 0}, 0, NULL},
  /* coaxial revolute joints 1 and 2 (a2 = 0, alpha2 = 0): the rules miss it, QR must catch it */
  {"coaxial joints", "RRR", {0, 0, H}, {0, 0, 0.3}, {0.2, 0.1, 0}, 0, coaxial_more},
  {"no gravity, intersecting axes", "RR", {0, H}, {0, 0}, {0, 0.2}, 1, intersecting_more},
  {"no gravity", "RRR", {0, H, 0}, {0, 0.1, 0.4}, {0.3, 0, 0}, 1, NULL},
};

static void special_geometries(void) {
  static const double z6[6] = {0};
  for (size_t i = 0; i < sizeof geometries / sizeof *geometries; i++) {
    const geom_t* g = geometries + i;
    dyModel* m = make_robot(g->types, g->al, g->a, g->d, g->nog ? z6 : G0);
    check_all_sets(m, g->name);
    if (g->more) g->more(m);
    dy_free_model(m);
  }
}

static void parser(void) {
  dyModel* m = dy_make_model(3);
  double row[42];
  char err[256];
  CHECK(dyi_expr_parse(m, 42, "ZZ2 + 0.18062500000000001*M3 + 0.85*MZ3 - YY3", row, err, sizeof err) == 0,
        "parse: %s", err);
  CHECK(row[15] == 1 && row[29] == 0.18062500000000001 && row[28] == 0.85 && row[23] == -1, "parse values");
  CHECK(dyi_expr_parse(m, 42, "-2.5e-3*fo3 - IA1", row, err, sizeof err) == 0 && row[41] == -2.5e-3 && row[30] == -1,
        "parse friction names, leading minus");
  CHECK(dyi_expr_parse(m, 30, "ZZ2 +", row, err, sizeof err) != 0, "trailing '+' rejected");
  CHECK(dyi_expr_parse(m, 30, "ZZ4", row, err, sizeof err) != 0, "link 4 of 3 rejected");
  CHECK(dyi_expr_parse(m, 30, "IA1", row, err, sizeof err) != 0, "joint parameter without friction rejected");
  CHECK(dyi_expr_parse(m, 30, "2 ZZ1", row, err, sizeof err) != 0, "missing '*' rejected");
  CHECK(dyi_expr_parse(m, 30, "ZZ1 ZZ2", row, err, sizeof err) != 0, "missing operator rejected");
  CHECK(dyi_expr_parse(m, 30, "", row, err, sizeof err) != 0, "empty rejected");
  CHECK(dyi_expr_parse(m, 30, "0", row, err, sizeof err) == 0, "zero accepted");
  /* writer: %.17g (the files' form), coefficient 1 omitted, " - " */
  dyiBase* b = dyi_base_make_empty(DYI_SET_FILE, 1, 30, 0);
  b->B[15] = 1; b->B[29] = 0.180625; b->B[23] = -1; b->B[28] = -0.1;
  char buf[256];
  dyi_base_expr(m, b, 0, buf, sizeof buf);
  CHECK(!strcmp(buf, "ZZ2 - YY3 - 0.10000000000000001*MZ3 + 0.18062500000000001*M3"), "writer: '%s'", buf);
  int need = dyi_base_expr(m, b, 0, buf, 8);
  CHECK(need == (int)strlen("ZZ2 - YY3 - 0.10000000000000001*MZ3 + 0.18062500000000001*M3") && strlen(buf) == 7,
        "writer truncates and reports the length");
  /* for reading (the report): the fewest digits that read back as the same double */
  dyi_base_expr_fmt(m, b, 0, 1, buf, sizeof buf);
  CHECK(!strcmp(buf, "ZZ2 - YY3 - 0.1*MZ3 + 0.180625*M3"), "short writer: '%s'", buf);
  double back[30];
  CHECK(dyi_expr_parse(m, 30, buf, back, err, sizeof err) == 0 && back[28] == -0.1 && back[29] == 0.180625 &&
        back[15] == 1 && back[23] == -1, "the short expression reads back to the same coefficients");
  b->B[28] = -0.1 * (1 + 2.2e-16);   /* a coefficient that needs all 17 digits keeps them */
  dyi_base_expr_fmt(m, b, 0, 1, buf, sizeof buf);
  CHECK(dyi_expr_parse(m, 30, buf, back, err, sizeof err) == 0 && back[28] == b->B[28] && strstr(buf, "0.1000000000000000"),
        "17 digits where needed: '%s'", buf);
  dyi_base_free(b);
  dy_free_model(m);
}

/* the rows `dynid base` printed on pr parsed into Bp (np columns, at most
 * 64): the header, the '#' report lines counted; returns the rows */
static int read_printed_rows(FILE* pr, const dyModel* m, int np, double* Bp, const char* what, int* header,
                             int* comments) {
  char line[8192], err[512];
  int nb = 0;
  *header = 0; *comments = 0;
  while (pr && fgets(line, sizeof line, pr)) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0] == '#') { (*comments)++; continue; }
    if (!*header) { CHECK(!strcmp(line, "name,expression"), "%s: header '%s'", what, line); *header = 1; continue; }
    char* comma = strchr(line, ',');
    CHECK(comma != NULL && nb < 64, "%s: row '%s'", what, line);
    if (!comma || nb >= 64) continue;
    CHECK(dyi_expr_parse(m, np, comma + 1, Bp + (size_t)nb*np, err, sizeof err) == 0, "%s: %s", what, err);
    nb++;
  }
  return nb;
}

/* `dynid base MODEL --set set [--friction]`: the printed expressions are the
 * set exactly and span the identifiable subspace */
static void cli_base_set(const dyModel* m, const char* mp, const char* set, int fr) {
  char cmd[512], what[64], err[512];
  snprintf(what, sizeof what, "dynid base SCARA --set %s%s", set, fr ? " --friction" : "");
  snprintf(cmd, sizeof cmd, "./dynid base %s --set %s%s", mp, set, fr ? " --friction" : "");
  FILE* pr = popen(cmd, "r");
  int np = fr ? 14*m->n : 10*m->n, header, comments;
  double* Bp = calloc((size_t)np * 64, sizeof(double));
  int nb = read_printed_rows(pr, m, np, Bp, what, &header, &comments);
  int rc = pr ? pclose(pr) : -1;
  CHECK(rc == 0 && header && comments > np, "%s: rc %d, report lines %d", what, rc, comments);
  dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), fr, err, sizeof err);
  CHECK(b && b->nb == nb, "%s: %d rows printed, %d in the set", what, nb, b ? b->nb : -1);
  int same = b && b->nb == nb;
  for (int i = 0; same && i < nb * np; i++) if (Bp[i] != b->B[i]) same = 0;
  CHECK(same, "%s: printed expressions are the set exactly", what);
  double* Vn; int nn; double gap;
  int r = indep_subspace(m, fr, &Vn, &nn, &gap);
  CHECK(nb == r, "%s: %d rows vs independent rank %d", what, nb, r);
  double worst = null_overlap(Bp, nb, np, Vn, nn);
  CHECK(worst <= 1e-8 && svd_rank(Bp, nb, np) == nb, "%s: printed rows span the identifiable subspace (%.3g)", what,
        worst);
  free(Vn); free(Bp); dyi_base_free(b);
}

/* `dynid base` as a program: the printed expressions, parsed, are the set
 * and pass the independent subspace checks (the path users and scripts take) */
static void cli_base(void) {
  const char* mp = "/tmp/dynid_test_base_model.csv";
  FILE* f = fopen(mp, "w");
  fputs("joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
        "1,R,0,0,0,0.5,3,0.01,0.02,0.1,0.1,0.001,0.002,0.1,0.003,0.05\n"
        "2,R,0,0.4,0,0,2,0.2,0.01,0.02,0.01,0.001,0.002,0.05,0.003,0.05\n"
        "3,P,0,0.3,0,0.1,1,0.01,0.02,-0.1,0.02,0.001,0.002,0.02,0.003,0.001\n"
        "4,R,0,0,0,0.05,0.5,0.01,0.02,0.01,0.001,0.0001,0.0002,0.001,0.0003,0.001\n", f);
  fclose(f);
  char err[512];
  dyModel* m = NULL;
  CHECK(dy_load_model(mp, NULL, &m, err, sizeof err) == 0, "load: %s", err);
  if (!m) return;
  static const char* const sets[2] = {"qr", "khalil"};
  for (int si = 0; si < 2; si++)
    for (int fr = 0; fr < 2; fr++) cli_base_set(m, mp, sets[si], fr);
  /* bad usage and a failing set */
  char cmd[512];
  snprintf(cmd, sizeof cmd, "./dynid base %s --set nope 2>/dev/null", mp);
  int rc = system(cmd);
  CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "unknown set: exit 2 (got %d)", rc);
  dy_free_model(m);
  unlink(mp);
}

/* --friction=fv,fc,fo (and other subsets): the set restricted to the kinds
 * kept has no coefficient on the others, passes the QR rank test on the
 * regressor without their columns, and its size is the rank of that
 * regressor computed here independently (QR of the stacked columns kept);
 * the kinds parser answers a bad word. */
static void joint_subsets(void) {
  const unsigned keeps[4] = {14u /* fv fc fo */, 6u /* fv fc */, 9u /* ia fo */, 15u};
  char err[DY_ERRSZ], bad[40];
  unsigned k;
  CHECK(dyi_friction_kinds("fv,FC,fo", &k, bad, sizeof bad) == 0 && k == 14u, "kinds fv,FC,fo -> %u", k);
  CHECK(dyi_friction_kinds("fv,xx", &k, bad, sizeof bad) == -1 && !strcmp(bad, "xx"), "bad kind named: %s", bad);
  CHECK(dyi_friction_kinds(NULL, &k, bad, sizeof bad) == 0 && k == 15u, "no list: all");
  for (int t = 0; t < 6; t++) {
    dyModel* m = th_random_model(2 + t % 5, 0.3, 0.5, 1);
    const int n = m->n, np = 14*n, nl = 10*n;
    for (int kk = 0; kk < 4; kk++) {
      const char* set = kk == 1 ? "qr" : "khalil";
      dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), 1, err, sizeof err);
      int ok = b && dyi_base_keep_joint(m, b, keeps[kk], err, sizeof err) == 0;
      CHECK(ok, "random %d keep %u (%s): %s", t, keeps[kk], set, err);
      if (!ok) { dyi_base_free(b); continue; }
      int stray = 0;
      for (int i = 0; i < b->nb; i++)
        for (int c = nl; c < np; c++)
          if (!(keeps[kk] & (1u << ((c - nl) % 4))) && b->B[(size_t)i*np + c] != 0) stray++;
      /* the rank of the regressor with only the kept joint columns */
      int ns = 40 * np / n, N = ns * n;
      double* Y = malloc(sizeof(double) * (size_t)N * np);
      dyData* d = dy_make_data(m);
      for (int s = 0; s < ns; s++) {
        double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
        th_random_state(n, q, qd, qdd);
        th_ne_regressor(m, d, np, q, qd, qdd, Y + (size_t)s*n, N);
      }
      for (int c = nl; c < np; c++)
        if (!(keeps[kk] & (1u << ((c - nl) % 4)))) memset(Y + (size_t)N*c, 0, sizeof(double) * (size_t)N);
      double* sv = malloc(sizeof(double) * (size_t)np);
      double* sup = malloc(sizeof(double) * (size_t)np);
      /* column scaling (a column below 1e-10 of the largest is round-off
       * of a structurally zero one: zero), then singular values */
      double big = 0, nn[14*DY_MAXJ];
      for (int c = 0; c < np; c++) {
        nn[c] = 0;
        for (int i = 0; i < N; i++) nn[c] += Y[(size_t)N*c + i] * Y[(size_t)N*c + i];
        nn[c] = sqrt(nn[c]);
        big = fmax(big, nn[c]);
      }
      for (int c = 0; c < np; c++)
        for (int i = 0; i < N; i++) Y[(size_t)N*c + i] = nn[c] > 1e-10 * big ? Y[(size_t)N*c + i] / nn[c] : 0;
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', N, np, Y, N, sv, NULL, 1, NULL, 1, sup);
      int rank = 0;
      for (int c = 0; c < np; c++) rank += sv[c] > 1e-9 * sv[0];
      CHECK(stray == 0 && b->nb == rank, "random %d keep %u (%s): %d base parameters, rank %d, %d stray "
            "coefficients", t, keeps[kk], set, b->nb, rank, stray);
      free(Y); free(sv); free(sup);
      dy_free_data(d);
      dyi_base_free(b);
    }
    dy_free_model(m);
  }
}

int main(void) {
  parser();
  cli_base();
  renaud_6r();
  panda();
  special_geometries();
  joint_subsets();
  char what[64];
  int nrand = getenv("DYNID_TEST_MANY") ? atoi(getenv("DYNID_TEST_MANY")) : TH_SWEEP(10);
  for (int t = 0; t < nrand; t++) {
    int n = 2 + t % 5;
    dyModel* m = th_random_model(n, t % 3 == 0 ? 0 : 0.3, t % 2 ? 0.6 : 0, 1);
    snprintf(what, sizeof what, "random chain %d (n=%d)", t, n);
    check_all_sets(m, what);
    dy_free_model(m);
  }
  return test_report();
}
