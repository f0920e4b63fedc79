/* SPDX-License-Identifier: MIT */
/* dynid tests: the PARAMS file and --params.
 *  - write (dyi_params_write) then read (dyi_params_read): names, values,
 *    std and the rows of B come back exactly (%.17g), B P = 1 for the
 *    rebuilt P = B^+;
 *  - the realisation pi = P beta gives Y pi = Y_b beta, with Y_b = Y P_set
 *    of the set that wrote the file (independent of the reader's P), for
 *    every set, with and without friction, on the Panda and random chains;
 *  - `dynid id MODEL STATES --params P` (run as a program through popen)
 *    prints Y_b beta computed here from the regressor;
 *  - bad files are rejected with FILE:ROW:COL messages.
 * Tolerance 1e-10 relative to the torque scale: Y pi and Y_b beta are sums
 * of O(100) terms of products of O(1) numbers (P = B^+ from a Cholesky
 * solve of B B^T, condition <= 1e4 for these sets). */
#include "testmodels.h"
#include "core/dynamics.h"
#include "ident/regressor.h"
#include "ident/base.h"
#include "ident/params.h"
#include "core/io.h"
#include <string.h>
#include <unistd.h>

static void roundtrip(dyModel* m, const char* set, int fr, const char* what0) {
  char what[128], err[512], path[] = "/tmp/dynid_test_params_XXXXXX";
  snprintf(what, sizeof what, "%s [%s%s]", what0, set, fr ? ", friction" : "");
  dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), fr, err, sizeof err);
  CHECK(b != NULL, "%s: %s", what, err);
  if (!b) return;
  int nb = b->nb, np = b->npar, n = m->n;
  double* beta = malloc(sizeof(double) * (size_t)nb);
  double* sd = malloc(sizeof(double) * (size_t)nb);
  for (int i = 0; i < nb; i++) { beta[i] = th_uniform(-2, 2); sd[i] = i % 3 ? th_uniform(0, 0.1) : NAN; }
  int fd = mkstemp(path);
  FILE* f = fdopen(fd, "w");
  CHECK(dyi_params_write(f, m, b, beta, sd, "model: test\nset: test", NULL, NULL) == 0, "%s: write", what);
  fclose(f);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p != NULL, "%s: read: %s", what, err);
  if (p) {
    CHECK(p->base->nb == nb && p->base->npar == np, "%s: sizes %d %d", what, p->base->nb, p->base->npar);
    int same = p->base->nb == nb && p->base->npar == np;
    for (int i = 0; same && i < nb; i++) {
      if (strcmp(p->base->name[i], b->name[i]) || p->value[i] != beta[i]) same = 0;
      if (isfinite(sd[i]) ? p->std[i] != sd[i] : !isnan(p->std[i])) same = 0;
      for (int k = 0; k < np; k++) if (p->base->B[(size_t)i*np + k] != b->B[(size_t)i*np + k]) same = 0;
    }
    CHECK(same, "%s: names, values, std, B round-trip exactly", what);
    CHECK(strstr(p->comment, "set: test") != NULL, "%s: comments kept: '%s'", what, p->comment);
    /* realisation: Y pi = Y_b beta, Y_b = Y P of the writing set */
    double* par = malloc(sizeof(double) * (size_t)dy_npar(m));
    dyi_params_realise(m, p, par);
    dyData* d = dy_make_data(m);
    double* Y = malloc(sizeof(double) * (size_t)n * (size_t)dy_npar(m));
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tau[DY_MAXJ];
    double worst = 0, scale = 1;
    for (int s = 0; s < 5; s++) {
      th_random_state(n, q, qd, qdd);
      dyi_regressor(m, d, q, qd, qdd, fr, Y, n);
      dy_rnea(m, d, par, q, qd, qdd, tau);
      for (int i = 0; i < n; i++) {
        double yb = 0;
        for (int l = 0; l < nb; l++) {
          double c = 0;
          for (int k = 0; k < np; k++) c += Y[i + (size_t)n*k] * b->P[(size_t)k*nb + l];
          yb += c * beta[l];
        }
        worst = fmax(worst, fabs(yb - tau[i]));
        scale = fmax(scale, fabs(yb));
      }
    }
    CHECK(worst <= 1e-10 * scale, "%s: NE with the realisation vs Y_b beta: %.3g", what, worst);
    free(par); free(Y); dy_free_data(d);
  }
  dyi_params_free(p);
  unlink(path);
  free(beta); free(sd);
  dyi_base_free(b);
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* malformed PARAMS files: each refused with an error containing want */
static void bad_files(dyModel* m) {
  static const struct { const char* text; const char* want; const char* what; } bad[] = {
    {"name,value\nZZ1R,1\n", "expression", "missing column"},
    {"# c\nname,value,std,rel_std_pct,expression\nZZ1R,1,,,ZZ1 + YY9\n", ":3:5:", "bad name with position"},
    {"name,value,std,rel_std_pct,expression\nZZ1R,abc,,,ZZ1\n", ":2:2", "bad value with position"},
    {"name,value,std,rel_std_pct,expression\nA,1,,,ZZ1 + YY2\nB,1,,,2*ZZ1 + 2*YY2\n", "dependent", "dependent rows"},
  };
  char err[512];
  const char* path = "/tmp/dynid_test_params_bad.csv";
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_file(path, bad[i].text);
    CHECK(!dyi_params_read(path, m, err, sizeof err) && strstr(err, bad[i].want), "%s: %s", bad[i].what, err);
  }
  unlink(path);
}

/* 4 random states of n joints into S and the file sp */
static void write_id_states(const char* sp, int n, double S[4][3][DY_MAXJ]) {
  FILE* f = fopen(sp, "w");
  for (int j = 0; j < n; j++) fprintf(f, "%sq%d", j ? "," : "", j + 1);
  for (int j = 0; j < n; j++) fprintf(f, ",qd%d", j + 1);
  for (int j = 0; j < n; j++) fprintf(f, ",qdd%d", j + 1);
  fputc('\n', f);
  for (int s = 0; s < 4; s++) {
    th_random_state(n, S[s][0], S[s][1], S[s][2]);
    for (int k = 0; k < 3; k++) for (int j = 0; j < n; j++) fprintf(f, "%s%.17g", k || j ? "," : "", S[s][k][j]);
    fputc('\n', f);
  }
  fclose(f);
}

/* the torques `dynid id` prints on pr (after its header) against Y_b beta
 * at the states S: rows read, largest difference and scale */
static int read_id_rows(FILE* pr, const dyModel* m, const dyiBase* b, const double* beta, double S[4][3][DY_MAXJ],
                        double* worst, double* scale) {
  const int n = m->n, nb = b->nb, np = b->npar;
  char line[4096];
  int rows = 0;
  dyData* d = dy_make_data(m);
  double* Y = malloc(sizeof(double) * (size_t)n * (size_t)np);
  *worst = 0; *scale = 1;
  if (pr && fgets(line, sizeof line, pr)) {
    CHECK(!strncmp(line, "tau1,", 5), "id header: %s", line);
    while (rows < 4 && fgets(line, sizeof line, pr)) {
      dyi_regressor(m, d, S[rows][0], S[rows][1], S[rows][2], 1, Y, n);
      char* s = line;
      for (int i = 0; i < n; i++) {
        double t = strtod(s, &s);
        if (*s == ',') s++;
        double yb = 0;
        for (int l = 0; l < nb; l++)
          for (int k = 0; k < np; k++) yb += Y[i + (size_t)n*k] * b->P[(size_t)k*nb + l] * beta[l];
        *worst = fmax(*worst, fabs(t - yb));
        *scale = fmax(*scale, fabs(yb));
      }
      rows++;
    }
  }
  free(Y); dy_free_data(d);
  return rows;
}

/* dynid id with --params through the program */
static void cli_id(void) {
  const char* mp = "/tmp/dynid_test_params_model.csv";
  const char* sp = "/tmp/dynid_test_params_states.csv";
  const char* pp = "/tmp/dynid_test_params_p.csv";
  /* Panda geometry, some inertias */
  write_file(mp,
    "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,ia,fv,fc,fo\n"
    "1,R,0,0,0,0.333,4.97,0.003,-0.002,-0.07,0.7,0.0001,0.002,0.7,0.002,0.009,0.1,0.2,0.3,0.1\n"
    "2,R,-1.5707963267948966,0,0,0,0.646,-0.003,-0.028,0.003,0.008,-0.004,0.001,0.03,0.004,0.03,0.1,0.2,0.3,0.1\n"
    "3,R,1.5707963267948966,0,0,0.316,3.23,0.027,0.039,-0.066,0.037,-0.005,-0.004,0.036,-0.013,0.011,0.1,0.2,0.3,0.1\n"
    "4,R,1.5707963267948966,0.0825,0,0,3.59,-0.053,0.104,0.027,0.026,0.008,-0.006,0.02,0.01,0.03,0.1,0.2,0.3,0.1\n"
    "5,R,-1.5707963267948966,-0.0825,0,0.384,1.22,-0.012,0.041,-0.038,0.036,-0.0005,-0.005,0.03,0.008,0.009,0.1,0.2,"
    "0.3,0.1\n"
    "6,R,1.5707963267948966,0,0,0,1.66,0.06,-0.014,-0.01,0.002,0.0001,-0.001,0.004,0.0004,0.005,0.1,0.2,0.3,0.1\n"
    "7,R,1.5707963267948966,0.088,0,0,0.735,0.01,-0.004,0.06,0.013,-0.0004,-0.001,0.01,-0.001,0.005,0.1,0.2,0.3,0.1\n");
  char err[512];
  dyModel* m = NULL;
  CHECK(dy_load_model(mp, NULL, &m, err, sizeof err) == 0, "load: %s", err);
  if (!m) return;
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 1, err, sizeof err);
  CHECK(b != NULL, "khalil: %s", err);
  if (!b) { dy_free_model(m); return; }
  double* beta = malloc(sizeof(double) * (size_t)b->nb);
  for (int i = 0; i < b->nb; i++) beta[i] = th_uniform(-1, 1);
  FILE* f = fopen(pp, "w");
  dyi_params_write(f, m, b, beta, NULL, "test", NULL, NULL);
  fclose(f);
  double S[4][3][DY_MAXJ];
  write_id_states(sp, m->n, S);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "./dynid id %s %s --params %s", mp, sp, pp);
  FILE* pr = popen(cmd, "r");
  CHECK(pr != NULL, "popen");
  double worst, scale;
  int rows = read_id_rows(pr, m, b, beta, S, &worst, &scale);
  int rc = pr ? pclose(pr) : -1;
  CHECK(rc == 0 && rows == 4, "dynid id --params: rc %d, %d rows", rc, rows);
  CHECK(worst <= 1e-10 * scale, "dynid id --params vs Y_b beta: %.3g", worst);
  /* a PARAMS file of another model is refused */
  write_file(pp, "name,value,std,rel_std_pct,expression\nZZ1R,1,,,ZZ1\n");
  snprintf(cmd, sizeof cmd, "./dynid id %s %s --params %s 2>/dev/null >/dev/null", mp, sp, pp);
  rc = system(cmd);
  CHECK(rc != 0, "a set that is not a base set of the model is refused");
  free(beta);
  dyi_base_free(b);
  dy_free_model(m);
  unlink(mp); unlink(sp); unlink(pp);
}

int main(void) {
  const double H = M_PI / 2;
  dyModel* m = dy_make_model(7);
  const double al[7] = {0, -H, H, H, -H, H, H}, a[7] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088},
               d[7] = {0.333, 0, 0.316, 0, 0.384, 0, 0};
  for (int j = 0; j < 7; j++) {
    m->dh_alpha[j] = al[j]; m->dh_a[j] = a[j]; m->dh_d[j] = d[j];
    th_random_link(m->par + 10*j);
  }
  dy_set_const(m);
  for (int fr = 0; fr < 2; fr++) {
    roundtrip(m, "khalil", fr, "Panda");
    roundtrip(m, "qr", fr, "Panda");
  }
  bad_files(m);
  dy_free_model(m);
  for (int t = 0; t < 6; t++) {
    dyModel* r = th_random_model(2 + t, 0.3, t % 2 ? 0.5 : 0, 1);
    roundtrip(r, "khalil", t % 2, "random chain");
    roundtrip(r, "qr", 1 - t % 2, "random chain");
    dy_free_model(r);
  }
  cli_id();
  return test_report();
}
