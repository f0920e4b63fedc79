/* SPDX-License-Identifier: MIT */
/* dynid program: the base subcommand.
 *
 *   dynid base MODEL [--set qr|khalil|lin] [--friction] [--fix NAME=VALUE] [--drop NAME] [-o FILE]
 *
 * Output (CSV): '#' comment lines at the top -- the model, the set, the
 * number of base parameters, the rank of the stacked random regressor and
 * the gap at the rank decision, the reproduction residual max|Y - Y_b B| /
 * max|Y| on fresh random states, any dependency the closed-form rules missed
 * and that was reduced numerically, then the identifiability report (one
 * comment line per standard parameter: identifiable alone, only in
 * combination and in which base parameters, or not identifiable and why).
 * The report is always printed as comments, so the file stays a plain
 * `name,expression` table for every CSV reader. Then the header
 * `name,expression` and one row per base parameter; expressions per
 * README.md, Parameters (parsed back by dyi_expr_parse). A set that fails
 * the QR rank test is not printed: exit 1 with the reason. */
#include "reports/cli.h"
#include "ident/base.h"
#include <stdlib.h>
#include <string.h>

/* The '#' lines: model, set (kinds: the joint-parameter kinds, NULL
 * without), size, held parameters, the proof, the closed-form rules' note,
 * the identifiability of every standard parameter. */
static void base_header(FILE* f, const dyModel* m, const dyiBase* b, const char* set, const char* kinds) {
  fprintf(f, "# dynid base: %s\n# set: %s%s%s%s\n", m->source, set, kinds ? " (with joint parameters: " : "",
          kinds ? kinds : "", kinds ? ")" : "");
  fprintf(f, "# base parameters: %d of %d standard\n", b->nb, b->npar);
  char held[1024];
  if (dyi_base_fix_text(m, b, held, sizeof held) > 0) fprintf(f, "# held (not estimated): %s\n", held);
  fprintf(f, "# rank of the stacked random regressor: %d (%d samples), gap |R_rr|/|R_r+1,r+1| = %.3g "
             "(tolerance %.0e after column scaling)\n", b->rank, dyi_base_nsamples(m, b->friction), b->rank_gap,
          DYI_RANK_TOL);
  fprintf(f, "# reproduction on fresh random states: max|Y - Y_b B| / max|Y| = %.3g, max|B P - 1| = %.3g\n",
          b->repro_err, b->bp_err);
  if (b->note[0]) {   /* the closed-form rules missed a case: grouped numerically */
    fprintf(f, "# note: %s\n", b->note);
    fprintf(stderr, "dynid: warning: %s\n", b->note);
  }
  dyi_base_report(f, m, b);
}

int cmd_base(cliArgs* c) {
  int r = cli_check(c, "set,friction,fix,drop,transmission", 1, 1, "dynid base MODEL [--set qr|khalil|lin] [--friction[=ia,fv,fc,fo]] "
                    "[--fix NAME=VALUE] [--drop NAME] [-o FILE]");
  if (r) return r;
  unsigned keep = 15u;
  if (cli_flag(c, "friction") && cli_kinds(c, &keep)) return 2;
  const char* set = cli_opt(c, "set");
  if (!set) set = "khalil";
  dyiBaseSet kind = dyi_base_set_parse(set, NULL, 0);
  if (kind == DYI_SET_NONE) return cli_usage("base: unknown --set '%s' (qr, khalil or lin)", set);
  dyModel* m = cli_model(c);
  if (!m) return 1;
  char err[DY_ERRSZ];
  int fr = cli_flag(c, "friction"), hk[DY_MAXPAR], nh;
  double hv[DY_MAXPAR];
  if ((r = cli_held(c, m, hk, hv, &nh))) { dy_free_model(m); return r; }
  dyiBase* b = dyi_base_make(m, kind, fr, err, sizeof err);
  if (!b || dyi_base_keep_joint(m, b, keep, err, sizeof err)) {
    dyi_base_free(b); dy_free_model(m);
    return cli_fail("%s: %s", c->pos[0], err);
  }
  if ((r = cli_held_apply(c, m, b, hk, hv, nh))) { dyi_base_free(b); dy_free_model(m); return r; }
  char kinds[32];
  cli_kinds_text(keep, kinds, sizeof kinds);
  dyOut o;
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) {
    dyi_base_free(b); dy_free_model(m);
    return cli_fail("%s", err);
  }
  FILE* f = o.f;
  base_header(f, m, b, set, fr ? kinds : NULL);
  fprintf(f, "name,expression\n");
  int cap = 4096;
  char* buf = malloc((size_t)cap);
  for (int i = 0; i < b->nb && buf; i++) {
    int need = dyi_base_expr(m, b, i, buf, cap);
    if (need >= cap) {
      free(buf); cap = need + 1; buf = malloc((size_t)cap);
      if (!buf) break;
      dyi_base_expr(m, b, i, buf, cap);
    }
    fprintf(f, "%s,%s\n", b->name[i], buf);
  }
  int bad = !buf;
  free(buf);
  dyi_base_free(b);
  dy_free_model(m);
  if (bad) { dy_out_abort(&o); return cli_fail("out of memory"); }
  if (dy_out_commit(&o, err, sizeof err)) return cli_fail("%s", err);
  return 0;
}
