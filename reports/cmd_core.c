/* dynid program: the core subcommands model, id, inertia and fd. */
#include "cli.h"
#include "dynamics.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_limit(FILE* f, double x) {
  fputc(',', f);
  if (isfinite(x)) dy_fprint_double(f, x);
}

/* a text cell, quoted (with doubled quotes) when it holds , " or a newline */
static void fprint_csv_text(FILE* f, const char* s) {
  if (!strpbrk(s, ",\"\n\r")) { fputs(s, f); return; }
  fputc('"', f);
  for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
  fputc('"', f);
}

/* dynid model MODEL: the model as a modified-DH table (the input format of
 * CONVENTIONS.md, inertias about the centre of mass), so it round-trips */
int cmd_model(dyCli* c) {
  int r = cli_check(c, "", 1, 1, "dynid model MODEL [--dh] [--base LINK] [--tip LINK] [--gravity gx,gy,gz] [-o FILE]");
  if (r) return r;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  char err[DY_ERRSZ];
  dyOut o;
  if (dy_out_open(&o, cli_opt(c, "o"), err, sizeof err)) { dy_freeModel(m); return cli_fail("%s", err); }
  FILE* f = o.f;
  int n = m->n, limits = 0;
  char types[DY_MAXJ + 1];
  for (int j = 0; j < n; j++) {
    types[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
    limits |= isfinite(m->jnt_qmin[j]) || isfinite(m->jnt_qmax[j]) || isfinite(m->jnt_qdmax[j]) ||
              isfinite(m->jnt_qddmax[j]) || isfinite(m->jnt_taumax[j]);
  }
  types[n] = 0;
  fprintf(f, "# dynid model: %s\n# joints: %d (%s), modified DH (Khalil-Kleinfinger / Craig)\n", m->source, n, types);
  fprintf(f, "# gravity in frame 0: %.17g,%.17g,%.17g m/s^2\n", m->gravity[0], m->gravity[1], m->gravity[2]);
  fprintf(f, "# largest forward-kinematics difference, source description vs. this table, over random configurations: %.3g (m, rad)\n",
          m->load_fk_err);
  fprintf(f, "# tip frame in frame %d: R = [%.6g %.6g %.6g; %.6g %.6g %.6g; %.6g %.6g %.6g], p = (%.6g, %.6g, %.6g) m\n",
          n, m->tip_T[0], m->tip_T[1], m->tip_T[2], m->tip_T[3], m->tip_T[4], m->tip_T[5], m->tip_T[6],
          m->tip_T[7], m->tip_T[8], m->tip_T[9], m->tip_T[10], m->tip_T[11]);
  fprintf(f, "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz%s%s,name\n",
          m->has_friction ? ",ia,fv,fc,fo" : "", limits ? ",qmin,qmax,qdmax,qddmax,taumax" : "");
  for (int j = 0; j < n; j++) {
    double mass, com[3], Ic[6];
    dy_linkpar_to_com(m->par + DY_NPAR_LINK*j, &mass, com, Ic);
    double v[16] = {m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j], mass, com[0], com[1], com[2],
                    Ic[0], Ic[1], Ic[2], Ic[3], Ic[4], Ic[5]};
    fprintf(f, "%d,%c", j + 1, types[j]);
    for (int k = 0; k < 14; k++) { fputc(',', f); dy_fprint_double(f, v[k]); }
    if (m->has_friction)
      for (int k = 0; k < DY_NPAR_JNT; k++) {
        fputc(',', f);
        dy_fprint_double(f, m->par[DY_NPAR_LINK*n + DY_NPAR_JNT*j + k]);
      }
    if (limits) {
      print_limit(f, m->jnt_qmin[j]); print_limit(f, m->jnt_qmax[j]); print_limit(f, m->jnt_qdmax[j]);
      print_limit(f, m->jnt_qddmax[j]); print_limit(f, m->jnt_taumax[j]);
    }
    fputc(',', f);
    fprint_csv_text(f, m->jnt_name[j]);
    fputc('\n', f);
  }
  dy_freeModel(m);
  if (dy_out_commit(&o, err, sizeof err)) return cli_fail("%s", err);
  return 0;
}

/* shared body of id and inertia: stream the states, one output row each */
static int run_states(dyCli* c, int inertia) {
  const char* use = inertia ? "dynid inertia MODEL STATES [--params P] [--algo crba] [-o FILE]"
                            : "dynid id MODEL STATES [--params P] [--algo rnea] [-o FILE]";
  int r = cli_check(c, "params,algo", 2, 2, use);
  if (r) return r;
  const char* algo = cli_opt(c, "algo");
  if (algo && strcmp(algo, inertia ? "crba" : "rnea"))
    return cli_usage("%s: unknown --algo '%s'", c->cmd, algo);
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, status = 1;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  dyData* d = dy_makeData(m);
  dyStates* s = NULL;
  char err[DY_ERRSZ];
  dyOut o = {0};
  int opened = 0;
  if (!par || !d) { cli_fail("out of memory"); goto done; }
  if (cli_params(c, m, par)) goto done;
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
    if (inertia) dy_crba(m, d, par, q, out);
    else dy_rnea(m, d, par, q, qd, qdd, out);
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
  cli_states_close(s);
  dy_freeData(d);
  free(par);
  dy_freeModel(m);
  return status;
}

int cmd_id(dyCli* c) { return run_states(c, 0); }
int cmd_inertia(dyCli* c) { return run_states(c, 1); }

/* dynid fd MODEL LOG: qdd from q, qd, tau by Cholesky (default) or ABA */
int cmd_fd(dyCli* c) {
  int r = cli_check(c, "params,algo", 2, 2, "dynid fd MODEL LOG [--algo chol|aba] [--params P] [-o FILE]");
  if (r) return r;
  const char* algo = cli_opt(c, "algo");
  int aba = algo && !strcmp(algo, "aba");
  if (algo && !aba && strcmp(algo, "chol")) return cli_usage("fd: unknown --algo '%s' (chol or aba)", algo);
  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n, status = 1, opened = 0;
  double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
  dyData* d = dy_makeData(m);
  dyStates* s = NULL;
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
    int info = aba ? dy_fd_aba(m, d, par, q, qd, tau, qdd) : dy_fd_chol(m, d, par, q, qd, tau, qdd);
    if (info) {
      cli_fail("%s:%ld: the inertia matrix is not positive definite here (%s, joint %d)", c->pos[1],
               cli_states_line(s), aba ? "articulated inertia" : "Cholesky minor", info);
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
  dy_freeData(d);
  free(par);
  dy_freeModel(m);
  return status;
}
