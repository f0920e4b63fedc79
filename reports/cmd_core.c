/* SPDX-License-Identifier: MIT */
/* dynid program: the core subcommands model, id, inertia and fd. */
#include "reports/cli.h"
#include "core/transmission.h"
#include "core/dynamics.h"
#include "ident/base.h"
#include "verify/lin91.h"
#include "verify/lin_inertia.h"
#include "verify/ne_base.h"
#include "verify/saha.h"
#include "verify/renaud.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dynid model MODEL: the model as a modified-DH table (the model-table
 * format of README.md with its #! directives) or, with -o X.urdf, as a URDF;
 * either reads back to the same robot (core/model_write.c) */
int cmd_model(cliArgs* c) {
  int r = cli_check(c, "transmission", 1, 1, "dynid model MODEL [--dh] [--base LINK] [--tip LINK] [--gravity gx,gy,gz] "
                    "[-o FILE.csv|FILE.urdf]");
  if (r) return r;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  char err[DY_ERRSZ];
  const char* out = cli_opt(c, "o");
  r = dy_write_model(out ? out : "-", m, m->par, NULL, err, sizeof err);
  dy_free_model(m);
  if (r < 0) return cli_fail("%s", err);
  if (r > 0) fprintf(stderr, "dynid: warning: %s: %s\n", out, err);
  return 0;
}

/* The algorithms behind --algo: every one of them computes the same
 * quantity from the same parameter vector, so they can be compared on a
 * user's own model and states (the tests do):
 *   id:      rnea (core Newton-Euler, default), ne-base (Newton-Euler on
 *            the base parameters, verify/ne_base.h), renaud (Newton-Euler
 *            on augmented bodies, [Renaud], verify/renaud.h), saha (DeNOC, [Saha99]),
 *            lin91 (H qdd + b of Lin's base-frame composite bodies, [Lin91])
 *   inertia: crba (composite rigid body, default), lin1 .. lin5 (Lin &
 *            Fang's Formulations 1-5 on Lin's MLCs, [LinFang99]), lin91 ([Lin91]),
 *            saha (U D U^T of the DeNOC forward dynamics)                  */
enum { A_RNEA, A_NEBASE, A_RENAUD, A_SAHA, A_LIN91, A_CRBA, A_LIN1, A_LIN2, A_LIN3, A_LIN4, A_LIN5 };

typedef struct {
  int algo;
  dyvNeBase plan;      /* ne-base */
  dyvRenaud* renaud;   /* renaud */
  dyvLin* lin;         /* lin1 .. lin5 */
  dyiBase* linset;
  double* beta;        /* Lin's MLCs of par (linset->nb) */
  double* U;           /* saha inertia: n x n */
  double b[DY_MAXJ];
} cmdEngine;

static int engine_make(cmdEngine* e, const dyModel* m, const double* par, const char* algo, int inertia) {
  static const char* const ids[] = {"rnea", "ne-base", "renaud", "saha", "lin91", NULL};
  static const char* const ins[] = {"crba", "lin1", "lin2", "lin3", "lin4", "lin5", "lin91", "saha", NULL};
  static const int idv[] = {A_RNEA, A_NEBASE, A_RENAUD, A_SAHA, A_LIN91};
  static const int inv[] = {A_CRBA, A_LIN1, A_LIN2, A_LIN3, A_LIN4, A_LIN5, A_LIN91, A_SAHA};
  memset(e, 0, sizeof *e);
  const char* const* names = inertia ? ins : ids;
  e->algo = -1;
  if (!algo) e->algo = inertia ? A_CRBA : A_RNEA;
  for (int k = 0; algo && names[k]; k++)
    if (!strcmp(algo, names[k])) e->algo = inertia ? inv[k] : idv[k];
  if (e->algo < 0)
    return cli_usage("%s: unknown --algo '%s' (%s)", inertia ? "inertia" : "id", algo,
                     inertia ? "crba, lin1, lin2, lin3, lin4, lin5, lin91 or saha" : "rnea, ne-base, renaud, saha or lin91");
  char err[DY_ERRSZ];
  if (e->algo == A_NEBASE) {
    unsigned char zero[DY_MAXPAR];
    dyv_nebase_zero_from_par(zero, m, par);
    dyv_nebase_make(&e->plan, m, zero);
  } else if (e->algo == A_RENAUD) {
    e->renaud = malloc(sizeof *e->renaud);
    if (!e->renaud) return cli_fail("out of memory");
    dyv_renaud_make(e->renaud, m, par);
  } else if (e->algo >= A_LIN1 && e->algo <= A_LIN5) {
    /* Lin's MLCs of this parameter vector: beta = B_lin par (the same
     * numbers whichever realisation of identified parameters par is) */
    e->linset = dyi_base_make(m, DYI_SET_LIN, 1, err, sizeof err);
    if (!e->linset) return cli_fail("%s", err);
    e->lin = dyv_lin_make(m, e->linset, err, sizeof err);
    e->beta = malloc(sizeof(double) * (size_t)e->linset->nb);
    if (!e->lin || !e->beta) return cli_fail("%s", e->lin ? "out of memory" : err);
    for (int i = 0; i < e->linset->nb; i++) {
      double acc = 0;
      for (int k = 0; k < e->linset->npar; k++) acc += e->linset->B[(size_t)i * e->linset->npar + k] * par[k];
      e->beta[i] = acc;
    }
  } else if (e->algo == A_SAHA && inertia) {
    e->U = malloc(sizeof(double) * (size_t)m->n * (size_t)m->n);
    if (!e->U) return cli_fail("out of memory");
  }
  return 0;
}

static void engine_free(cmdEngine* e) {
  dyv_lin_free(e->lin);
  dyi_base_free(e->linset);
  free(e->beta);
  free(e->U);
  free(e->renaud);
}

/* one row: tau (n) for id, H (n x n) for inertia; 0, or non-zero when the
 * algorithm failed on this state (saha: articulated inertia not positive) */
static int engine_algo(cmdEngine* e, const dyModel* m, dyData* d, const double* par, const double* q,
                       const double* qd, const double* qdd, double* out) {
  int n = m->n;
  switch (e->algo) {
    case A_RNEA: dy_rnea(m, d, par, q, qd, qdd, out); return 0;
    case A_NEBASE: dyv_nebase_rnea(&e->plan, d, par, q, qd, qdd, out); return 0;
    case A_RENAUD: dyv_renaud_rnea(e->renaud, q, qd, qdd, out); return 0;
    case A_SAHA:
      if (e->U) {
        double D[DY_MAXJ];
        int r = dyv_saha_udu(m, d, par, q, e->U, D);
        if (r) return r;
        for (int i = 0; i < n; i++)        /* H = U diag(D) U^T */
          for (int k = 0; k < n; k++) {
            double acc = 0;
            for (int l = 0; l < n; l++) acc += e->U[i*n + l] * D[l] * e->U[k*n + l];
            out[i*n + k] = acc;
          }
        return 0;
      }
      dyv_saha_id(m, d, par, q, qd, qdd, out);
      return 0;
    case A_LIN91:
      if (qdd) {
        double H[DY_MAXJ * DY_MAXJ];
        dyv_lin91_Hb(m, d, par, q, qd, H, e->b);
        for (int i = 0; i < n; i++) {
          double acc = e->b[i];
          for (int k = 0; k < n; k++) acc += H[i*n + k] * qdd[k];
          out[i] = acc;
        }
      } else dyv_lin91_H(m, d, par, q, out);
      return 0;
    case A_CRBA: dy_crba(m, d, par, q, out); return 0;
    case A_LIN1: dyv_lin_inertia1(e->lin, e->beta, q, out); return 0;
    case A_LIN2: dyv_lin_inertia2(e->lin, e->beta, q, out); return 0;
    case A_LIN3: dyv_lin_inertia3(e->lin, e->beta, q, out); return 0;
    case A_LIN4: dyv_lin_inertia4(e->lin, e->beta, q, out); return 0;
    case A_LIN5: dyv_lin_inertia5(e->lin, e->beta, q, out); return 0;
  }
  return -1;
}

/* engine_algo, then the coupled motors' terms (core/transmission.h) where
 * the algorithm leaves them out (the papers' algorithms know no
 * transmission; rnea, ne-base and crba add them, the lin sets refuse them):
 * their torque for id (qdd given), their inertia for inertia */
static int engine_run(cmdEngine* e, const dyModel* m, dyData* d, const double* par, const double* q,
                      const double* qd, const double* qdd, double* out) {
  int r = engine_algo(e, m, d, par, q, qd, qdd, out);
  if (r || !m->nmot || (e->algo != A_RENAUD && e->algo != A_SAHA && e->algo != A_LIN91)) return r;
  if (qdd) dy_motor_tau(m, par, qd, qdd, out);
  else dy_motor_inertia(m, par, out);
  return 0;
}

/* shared body of id and inertia: stream the states, one output row each */
static int run_states(cliArgs* c, int inertia) {
  const char* use = inertia ? "dynid inertia MODEL STATES [--params P] [--algo crba|lin1|lin2|lin3|lin4|lin5|lin91|saha] [-o FILE]"
                            : "dynid id MODEL STATES [--params P] [--algo rnea|ne-base|renaud|saha|lin91] [-o FILE]";
  int r = cli_check(c, "params,algo,force", 2, 2, use);
  if (r) return r;
  const char* algo = cli_opt(c, "algo");
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, status = 1;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  dyData* d = dy_make_data(m);
  cliStates* s = NULL;
  char err[DY_ERRSZ];
  dyOut o = {0};
  cmdEngine eng;
  memset(&eng, 0, sizeof eng);
  int opened = 0;
  if (!par || !d) { cli_fail("out of memory"); goto done; }
  if (cli_params(c, m, par)) goto done;
  if ((r = engine_make(&eng, m, par, algo, inertia)) != 0) { status = r; goto done; }
  static const char* const pre[3] = {"q", "qd", "qdd"};
  s = cli_states_open(c->pos[1], n, pre, inertia ? 1 : 3, err, sizeof err);
  if (!s) { cli_fail("%s", err); goto done; }
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < (inertia ? n : 1); k++) {
      if (inertia) fprintf(o.f, "%sM%d_%d", i || k ? "," : "", i + 1, k + 1);
      else fprintf(o.f, "%stau%d", i ? "," : "", i + 1);
    }
  fputc('\n', o.f);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], out[DY_MAXJ * DY_MAXJ];
  double* cols[3] = {q, qd, qdd};
  long rows = 0;
  while ((r = cli_states_next(s, cols, err, sizeof err)) > 0) {
    if (engine_run(&eng, m, d, par, q, inertia ? NULL : qd, inertia ? NULL : qdd, out)) {
      cli_fail("%s:%ld: the inertia matrix is not positive definite here (%s)", c->pos[1],
               cli_states_line(s), algo);
      goto done;
    }
    int cnt = inertia ? n*n : n;
    for (int k = 0; k < cnt; k++) {
      if (k) fputc(',', o.f);
      dy_fprint_double(o.f, out[k]);
    }
    fputc('\n', o.f);
    if ((++rows & 1023) == 0) cli_progress(c->cmd, rows, "rows", 0);
  }
  if (r < 0) { cli_fail("%s", err); goto done; }
  if (dy_out_commit(&o, err, sizeof err)) { opened = 0; cli_fail("%s", err); goto done; }
  opened = 0;
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  engine_free(&eng);
  cli_states_close(s);
  dy_free_data(d);
  free(par);
  dy_free_model(m);
  return status;
}

int cmd_id(cliArgs* c) { return run_states(c, 0); }
int cmd_inertia(cliArgs* c) { return run_states(c, 1); }

/* dynid fd MODEL LOG: qdd from q, qd, tau by Cholesky (default) or ABA */
int cmd_fd(cliArgs* c) {
  int r = cli_check(c, "params,algo,force", 2, 2, "dynid fd MODEL LOG [--algo chol|aba|saha] [--params P] [-o FILE]");
  if (r) return r;
  const char* algo = cli_opt(c, "algo");
  int aba = algo && !strcmp(algo, "aba"), saha = algo && !strcmp(algo, "saha");
  if (algo && !aba && !saha && strcmp(algo, "chol"))
    return cli_usage("fd: unknown --algo '%s' (chol, aba or saha)", algo);
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, status = 1, opened = 0;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  dyData* d = dy_make_data(m);
  cliStates* s = NULL;
  char err[DY_ERRSZ];
  dyOut o = {0};
  if (!par || !d) { cli_fail("out of memory"); goto done; }
  if (cli_params(c, m, par)) goto done;
  static const char* const pre[3] = {"q", "qd", "tau"};
  s = cli_states_open(c->pos[1], n, pre, 3, err, sizeof err);
  if (!s) { cli_fail("%s", err); goto done; }
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  opened = 1;
  for (int i = 0; i < n; i++) fprintf(o.f, "%sqdd%d", i ? "," : "", i + 1);
  fputc('\n', o.f);
  double q[DY_MAXJ], qd[DY_MAXJ], tau[DY_MAXJ], qdd[DY_MAXJ];
  double* cols[3] = {q, qd, tau};
  while ((r = cli_states_next(s, cols, err, sizeof err)) > 0) {
    int info = aba ? dy_fd_aba(m, d, par, q, qd, tau, qdd)
             : saha ? dyv_saha_fd(m, d, par, q, qd, tau, qdd) : dy_fd_chol(m, d, par, q, qd, tau, qdd);
    if (info) {
      cli_fail("%s:%ld: the inertia matrix is not positive definite here (%s, joint %d)", c->pos[1],
               cli_states_line(s), aba || saha ? "articulated inertia" : "Cholesky minor", info);
      goto done;
    }
    for (int k = 0; k < n; k++) {
      if (k) fputc(',', o.f);
      dy_fprint_double(o.f, qdd[k]);
    }
    fputc('\n', o.f);
  }
  if (r < 0) { cli_fail("%s", err); goto done; }
  opened = 0;
  if (dy_out_commit(&o, err, sizeof err)) { cli_fail("%s", err); goto done; }
  status = 0;
done:
  if (opened) dy_out_abort(&o);
  cli_states_close(s);
  dy_free_data(d);
  free(par);
  dy_free_model(m);
  return status;
}
