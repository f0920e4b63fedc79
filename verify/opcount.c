/* SPDX-License-Identifier: MIT */
/* dynid verify: executed operation counts of the efficient algorithms
 * beside the papers' tables (see opcount.h). The counting variants
 * (names ending in _ops) come from the second, counting build of each
 * algorithm file (verify/kernels.h, the Makefile's build/verify/NAME_ops.o). */
#include "verify/opcount.h"
#include "core/dynamics.h"
#include "verify/lin91.h"
#include "verify/ne_base.h"
#include "verify/renaud.h"
#include "verify/saha.h"
#include "core/util.h"
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a generic state: counts depend only on the code paths, not on values */
static void generic_state(int n, double* q, double* qd, double* qdd) {
  for (int j = 0; j < n; j++) { q[j] = 0.1 + 0.3*j; qd[j] = 0.7 - 0.2*j; qdd[j] = 0.5 + 0.1*j; }
}

void dyv_opcount(dyvOpCounts* out, const dyModel* m, const double* par) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], b[DY_MAXJ];
  double* H = malloc(sizeof(double) * (size_t)n * (size_t)n);
  unsigned char* zero = malloc((size_t)dy_npar(m));
  out->lin91_H_mul = out->lin91_H_add = out->lin91_Hb_mul = out->lin91_Hb_add = -1;
  out->nebase_mul = out->nebase_add = out->nefull_mul = out->nefull_add = -1;
  if (!d || !H || !zero) { dy_free_data(d); free(H); free(zero); return; }
  generic_state(n, q, qd, qdd);
  dyvOps o = {0, 0};
  dyv_lin91_H_ops(&o, m, d, par, q, H);
  out->lin91_H_mul = o.mul; out->lin91_H_add = o.add;
  o = (dyvOps){0, 0};
  dyv_lin91_Hb_ops(&o, m, d, par, q, qd, H, b);
  out->lin91_Hb_mul = o.mul; out->lin91_Hb_add = o.add;
  dyvNeBase pl;
  dyv_nebase_zero_from_par(zero, m, par);
  dyv_nebase_make(&pl, m, zero);
  o = (dyvOps){0, 0};
  dyv_nebase_rnea_ops(&o, &pl, d, par, q, qd, qdd, tau);
  out->nebase_mul = o.mul; out->nebase_add = o.add;
  dyv_nebase_make(&pl, m, NULL);
  o = (dyvOps){0, 0};
  dyv_nebase_rnea_ops(&o, &pl, d, par, q, qd, qdd, tau);
  out->nefull_mul = o.mul; out->nefull_add = o.add;
  dy_free_data(d); free(H); free(zero);
}

void dyv_renaud_count(const dyvRenaud* r, long* mul, long* add) {
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  generic_state(r->n, q, qd, qdd);
  dyvOps o = {0, 0};
  dyv_renaud_rnea_ops(&o, r, q, qd, qdd, tau);
  *mul = o.mul; *add = o.add;
}

int dyv_saha_count(const dyModel* m, const double* par, long c[4]) {
  const int n = m->n;
  dyData* d = dy_make_data(m);
  if (!d) return -1;
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
  generic_state(n, q, qd, qdd);
  dyvOps o = {0, 0};
  dyv_saha_id_ops(&o, m, d, par, q, qd, qdd, tau);
  c[0] = o.mul; c[1] = o.add;
  /* phi: the inverse dynamics at qdd = 0 (same code path) and n subtractions */
  o = (dyvOps){0, 0};
  const int r = dyv_saha_fd_ops(&o, m, d, par, q, qd, tau, qdd);
  c[2] = o.mul - c[0]; c[3] = o.add - c[1] - n;
  dy_free_data(d);
  return r ? -1 : 0;
}

void dyv_general_geometry(dyModel* m) {
  for (int j = 1; j < m->n; j++) {
    m->dh_alpha[j] = 0.3 + 0.2*j; m->dh_a[j] = 0.1 + 0.05*j; m->dh_d[j] = 0.1 + 0.03*j;
  }
  dy_set_const(m);
}

dyModel* dyv_renaud_model(int simplified) {
  /* 6R, alpha_{i-1} = 0 pi/2 0 pi/2 -pi/2 pi/2, a_2, r_4, centres of mass
   * on one axis, no products of inertia, masses grouped (augmented
   * bodies): nonzero x*2, y*3, y*5, z*1, z*4, z*6, a*, b*, c*; simplified:
   * z*6 lies on the axis of joint 6, which is -y_5 (alpha_5 = pi/2, O_6 =
   * O_5): it acts as a first moment of link 5, y*5 - z*6, and z*6 = 0 */
  dyModel* r = dy_make_model(6);
  if (!r) return NULL;
  static const double al[6] = {0, M_PI/2, 0, M_PI/2, -M_PI/2, M_PI/2};
  static const int msk[6] = {DY_MZ, DY_MX, DY_MY, DY_MZ, DY_MY, DY_MZ};
  for (int j = 0; j < 6; j++) {
    r->dh_alpha[j] = al[j];
    double* p = r->par + DY_NPAR_LINK*j;
    p[DY_XX] = 0.1 + 0.01*j; p[DY_YY] = 0.2 + 0.01*j; p[DY_ZZ] = 0.3 + 0.01*j;
    p[msk[j]] = 0.5 + 0.1*j;
  }
  r->dh_a[2] = 0.4; r->dh_d[3] = 0.35;
  dy_set_const(r);
  if (simplified) {
    r->par[DY_NPAR_LINK*4 + DY_MY] -= r->par[DY_NPAR_LINK*5 + DY_MZ];
    r->par[DY_NPAR_LINK*5 + DY_MZ] = 0;
  }
  snprintf(r->source, sizeof r->source, "[Renaud] 6R example%s", simplified ? " (y5 - z6 grouped)" : "");
  return r;
}

/* [Saha99] Tables 1 and 2 (all-revolute arms): (120n - 44) M + (97n - 55) A
 * and (201n - 335) M + (193n - 361) A; this model and a general geometry */
static void saha_rows(FILE* f, const dyModel* m) {
  const int n = m->n;
  int nrev = 0;
  for (int j = 0; j < n; j++) nrev += m->jnt_type[j] == DY_REVOLUTE;
  for (int g = 0; g < 2; g++) {
    dyModel* gm = g ? dy_copy_model(m) : NULL;
    if (g && !gm) return;
    if (g) dyv_general_geometry(gm);
    long c[4];
    if (dyv_saha_count(g ? gm : m, m->par, c) == 0) {
      const char* sfx = g ? "_general" : "";
      if (nrev == n)
        fprintf(f, "saha_id%s,%ld,%ld,[Saha99] Table 1 (120n-44 M; 97n-55 A),%d,%d\n"
                   "saha_fd%s,%ld,%ld,[Saha99] Table 2 (201n-335 M; 193n-361 A; phi not included),%d,%d\n",
                sfx, c[0], c[1], 120*n - 44, 97*n - 55, sfx, c[2], c[3], 201*n - 335, 193*n - 361);
      else
        fprintf(f, "saha_id%s,%ld,%ld,[Saha99] Table 1 is for revolute joints,,\n"
                   "saha_fd%s,%ld,%ld,[Saha99] Table 2 is for revolute joints (phi not included),,\n",
                sfx, c[0], c[1], sfx, c[2], c[3]);
    }
    dy_free_model(gm);
  }
}

int dyv_opcount_report(FILE* f, const dyModel* m, const double* P, int npar, int nb) {
  const int n = m->n;
  int nrev = 0;
  for (int j = 0; j < n; j++) nrev += m->jnt_type[j] == DY_REVOLUTE;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  if (!par) return -1;
  dyvOpCounts c;
  dyv_opcount(&c, m, m->par);
  fprintf(f, "# operation counts per call (M multiplications, A additions), %s, n = %d (%d revolute)\n",
          m->source, n, nrev);
  fprintf(f, "algorithm,mul,add,paper_formula,paper_mul,paper_add\n");
  double nn = n;
  if (nrev == n && n >= 2) {
    fprintf(f, "lin91_H,%ld,%ld,[Lin91] Table I (10.5n^2+38.5n-85 M; 6n^2+39n-70 A),%.0f,%.0f\n",
            c.lin91_H_mul, c.lin91_H_add, 10.5*nn*nn + 38.5*nn - 85, 6*nn*nn + 39*nn - 70);
    fprintf(f, "lin91_H+b,%ld,%ld,[Lin91] section 4 (23n^2+44n-82 M; 15n^2+40n-70 A),%.0f,%.0f\n",
            c.lin91_Hb_mul, c.lin91_Hb_add, 23*nn*nn + 44*nn - 82, 15*nn*nn + 40*nn - 70);
    /* the tables count a general geometry: the same joints with general
     * twists and lengths */
    dyModel* gm = dy_copy_model(m);
    if (gm) {
      dyvOpCounts cg;
      dyv_general_geometry(gm);
      dyv_opcount(&cg, gm, gm->par);
      fprintf(f, "lin91_H_general,%ld,%ld,[Lin91] Table I (same joints; general twists and lengths),%.0f,%.0f\n",
              cg.lin91_H_mul, cg.lin91_H_add, 10.5*nn*nn + 38.5*nn - 85, 6*nn*nn + 39*nn - 70);
      fprintf(f, "lin91_H+b_general,%ld,%ld,[Lin91] section 4 (same joints; general twists and lengths),%.0f,%.0f\n",
              cg.lin91_Hb_mul, cg.lin91_Hb_add, 23*nn*nn + 44*nn - 82, 15*nn*nn + 40*nn - 70);
      dy_free_model(gm);
    }
  } else {
    fprintf(f, "lin91_H,%ld,%ld,[Lin91] formulas are for n>=2 rotational joints,,\n", c.lin91_H_mul, c.lin91_H_add);
    fprintf(f, "lin91_H+b,%ld,%ld,,,\n", c.lin91_Hb_mul, c.lin91_Hb_add);
  }
  saha_rows(f, m);
  fprintf(f, "ne_full_params,%ld,%ld,no parameter known zero,,\n", c.nefull_mul, c.nefull_add);
  fprintf(f, "ne_nominal_zeros,%ld,%ld,exact zeros of the nominal parameters skipped,,\n",
          c.nebase_mul, c.nebase_add);
  /* structural zeros: of the given base set, else of the QR-pivot set */
  unsigned char* zero = malloc((size_t)dy_npar(m));
  if (zero) {
    int nbq = nb;
    if (P) dyv_nebase_zero_from_P(zero, m, P, npar, nb);
    else nbq = dyv_qr_zero_mask(zero, m);
    for (int k = 0; k < dy_npar(m); k++) par[k] = zero[k] ? 0 : 1;
    dyvOpCounts cb;
    dyv_opcount(&cb, m, par);
    fprintf(f, "ne_base_params,%ld,%ld,realisation of the %s (%d base parameters),,\n",
            cb.nebase_mul, cb.nebase_add, P ? "given base set" : "QR-pivot base set", nbq);
    free(zero);
  }
  for (int simp = 0; simp < 2; simp++) {
    dyModel* r = dyv_renaud_model(simp);
    static dyvRenaud rp;
    if (!r) break;
    dyvOpCounts cr;
    long rm, ra;
    dyv_opcount(&cr, r, r->par);
    dyv_renaud_make(&rp, r, r->par);
    dyv_renaud_count(&rp, &rm, &ra);
    const int pm = simp ? 164 : 181, pa = simp ? 115 : 127;
    const char* what = simp ? "its simplification (y5 - z6 one parameter)" : "its table's parameters";
    fprintf(f, "renaud%s,%ld,%ld,[Renaud] augmented-body Newton-Euler on its 6R example; %s,%d,%d\n",
            simp ? "_simplified" : "", rm, ra, what, pm, pa);
    fprintf(f, "ne_base_renaud_6R%s,%ld,%ld,base-parameter Newton-Euler on the same model (paper: %d M; %d A),%d,%d\n",
            simp ? "_simplified" : "", cr.nebase_mul, cr.nebase_add, pm, pa, pm, pa);
    dy_free_model(r);
  }
  free(par);
  return 0;
}

int dyv_qr_zero_mask(unsigned char* zero, const dyModel* m) {
  const int n = m->n, np = dy_npar(m), ncol = m->has_friction ? np : DY_NPAR_LINK * n, ns = 40, rows = ns*n;
  dyData* d = dy_make_data(m);
  double* Y = malloc(sizeof(double) * (size_t)rows * (size_t)ncol);
  double* e = calloc((size_t)np, sizeof(double));
  lapack_int* jpvt = calloc((size_t)ncol, sizeof(lapack_int));
  double* tq = malloc(sizeof(double) * (size_t)ncol);
  int nb = -1;
  if (d && Y && e && jpvt && tq) {
    unsigned long long st = 12345;
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], t0[DY_MAXJ], t1[DY_MAXJ];
    for (int s = 0; s < ns; s++) {
      for (int j = 0; j < n; j++) {
        double r[3];
        for (int k = 0; k < 3; k++) r[k] = dy_uniform(&st, -1, 1);
        q[j] = 3*r[0]; qd[j] = 2*r[1]; qdd[j] = 5*r[2];
      }
      dy_rnea(m, d, e, q, qd, qdd, t0);
      for (int k = 0; k < ncol; k++) {
        e[k] = 1;
        dy_rnea(m, d, e, q, qd, qdd, t1);
        e[k] = 0;
        for (int i = 0; i < n; i++) Y[(size_t)k*rows + (size_t)s*n + i] = t1[i] - t0[i];
      }
    }
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, rows, ncol, Y, rows, jpvt, tq) == 0) {
      double r0 = fabs(Y[0]);
      nb = 0;
      while (nb < ncol && fabs(Y[(size_t)nb*rows + nb]) > 1e-9 * r0) nb++;
      for (int k = 0; k < np; k++) zero[k] = 1;
      for (int i = 0; i < nb; i++) zero[jpvt[i] - 1] = 0;
    }
  }
  dy_free_data(d); free(Y); free(e); free(jpvt); free(tq);
  return nb;
}
