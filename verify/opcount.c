/* dynid verify: the counting build of the verified algorithms (see
 * opcount.h). lin91.c and ne_base.c are compiled here a second time with
 * DYV_COUNT_OPS defined, which turns every DYV_OPS(M, A) annotation and
 * counting helper into additions to dyv_nmul / dyv_nadd and renames the
 * algorithms with the suffix _ops; the ordinary objects are untouched. */
#define DYV_COUNT_OPS 1
#include "opcount.h"
long dyv_nmul, dyv_nadd;
#include "lin91.c"
#include "ne_base.c"

#include "dynamics.h"
#include <stdlib.h>

void dyv_opcount(dyvOpCounts* out, const dyModel* m, const double* par) {
  const int n = m->n;
  dyData* d = dy_makeData(m);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ], b[DY_MAXJ];
  double* H = malloc(sizeof(double) * (size_t)n * (size_t)n);
  unsigned char* zero = malloc((size_t)(14*n));
  out->lin91_H_mul = out->lin91_H_add = out->lin91_Hb_mul = out->lin91_Hb_add = -1;
  out->nebase_mul = out->nebase_add = out->nefull_mul = out->nefull_add = -1;
  if (!d || !H || !zero) { dy_freeData(d); free(H); free(zero); return; }
  /* a generic state: counts depend only on the code paths, not on values */
  for (int j = 0; j < n; j++) { q[j] = 0.1 + 0.3*j; qd[j] = 0.7 - 0.2*j; qdd[j] = 0.5 + 0.1*j; }
  dyv_nmul = dyv_nadd = 0;
  dyv_lin91_H_ops(m, d, par, q, H);
  out->lin91_H_mul = dyv_nmul; out->lin91_H_add = dyv_nadd;
  dyv_nmul = dyv_nadd = 0;
  dyv_lin91_Hb_ops(m, d, par, q, qd, H, b);
  out->lin91_Hb_mul = dyv_nmul; out->lin91_Hb_add = dyv_nadd;
  dyvNeBase pl;
  dyv_nebase_zero_from_par(zero, m, par);
  dyv_nebase_make(&pl, m, zero);
  dyv_nmul = dyv_nadd = 0;
  dyv_nebase_rnea_ops(&pl, d, par, q, qd, qdd, tau);
  out->nebase_mul = dyv_nmul; out->nebase_add = dyv_nadd;
  dyv_nebase_make(&pl, m, NULL);
  dyv_nmul = dyv_nadd = 0;
  dyv_nebase_rnea_ops(&pl, d, par, q, qd, qdd, tau);
  out->nefull_mul = dyv_nmul; out->nefull_add = dyv_nadd;
  dy_freeData(d); free(H); free(zero);
}

int dyv_opcount_report(FILE* f, const dyModel* m, const double* P, int npar, int nb) {
  const int n = m->n;
  int nrev = 0;
  for (int j = 0; j < n; j++) nrev += m->jnt_type[j] == DY_REVOLUTE;
  double* par = malloc(sizeof(double) * (size_t)(14*n));
  if (!par) return -1;
  dyvOpCounts c;
  dyv_opcount(&c, m, m->par);
  fprintf(f, "# operation counts per call (M multiplications, A additions), %s, n = %d (%d revolute)\n",
          m->source, n, nrev);
  fprintf(f, "algorithm,mul,add,seed_formula,seed_mul,seed_add\n");
  double nn = n;
  if (nrev == n && n >= 2) {
    fprintf(f, "lin91_H,%ld,%ld,seed 000 Table I (10.5n^2+38.5n-85 M; 6n^2+39n-70 A),%.0f,%.0f\n",
            c.lin91_H_mul, c.lin91_H_add, 10.5*nn*nn + 38.5*nn - 85, 6*nn*nn + 39*nn - 70);
    fprintf(f, "lin91_H+b,%ld,%ld,seed 000 section 4 (23n^2+44n-82 M; 15n^2+40n-70 A),%.0f,%.0f\n",
            c.lin91_Hb_mul, c.lin91_Hb_add, 23*nn*nn + 44*nn - 82, 15*nn*nn + 40*nn - 70);
  } else {
    fprintf(f, "lin91_H,%ld,%ld,seed 000 formulas are for n>=2 rotational joints,,\n", c.lin91_H_mul, c.lin91_H_add);
    fprintf(f, "lin91_H+b,%ld,%ld,,,\n", c.lin91_Hb_mul, c.lin91_Hb_add);
  }
  fprintf(f, "ne_full_params,%ld,%ld,no parameter known zero,,\n", c.nefull_mul, c.nefull_add);
  fprintf(f, "ne_nominal_zeros,%ld,%ld,exact zeros of the nominal parameters skipped,,\n",
          c.nebase_mul, c.nebase_add);
  if (P) {
    /* a realisation with every structurally nonzero parameter set to 1 */
    unsigned char* zero = malloc((size_t)(14*n));
    if (zero) {
      dyv_nebase_zero_from_P(zero, m, P, npar, nb);
      for (int k = 0; k < 14*n; k++) par[k] = zero[k] ? 0 : 1;
      dyvOpCounts cb;
      dyv_opcount(&cb, m, par);
      fprintf(f, "ne_base_params,%ld,%ld,seed 004 6R example (181 M; 127 A; 164 M 115 A simplified),181,127\n",
              cb.nebase_mul, cb.nebase_add);
      free(zero);
    }
  }
  free(par);
  return 0;
}
