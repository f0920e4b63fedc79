/* dynid program: the identify subcommand.
 *
 *   dynid identify MODEL LOG [--set qr|khalil|lin] [--method ols|wls|irls]
 *                  [--friction] [log options] [--quiet] -o PARAMS
 *
 * Reads the log through the log reader (ident/log.h: checked, filtered,
 * differentiated samples), builds the base regressor Y_b = Y P of every
 * sample (dyi_regressor, then the non-zeros of the base set's P: for the
 * qr and khalil sets P is a column selection), streams the rows into the
 * estimator (ident/estimate.h) and writes the PARAMS file (CONVENTIONS.md
 * section 3): '#' lines with the model, log, set, method, samples, condition
 * number and residuals, then name,value,std,rel_std_pct,expression.
 * A summary goes to standard error (samples, condition number, per-joint
 * residual RMS and relative error, warnings) unless --quiet. Samples the
 * reader flags as slow (--qd-min) leave that joint's equation out. */
#include "cli.h"
#include "base.h"
#include "estimate.h"
#include "log.h"
#include "regressor.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS threads cost more than they bring on ~60-column blocks (PITFALLS) */
void openblas_set_num_threads(int num_threads);

static const char* USAGE =
    "dynid identify MODEL LOG [--set qr|khalil|lin] [--method ols|wls|irls] [--friction]\n"
    "       [--no-header] [--map NAME=COLUMN] [--gain K1,...,Kn] [--rows A..B] [--cutoff HZ]\n"
    "       [--on-bad drop|stop] [--time-scale K] [--resample HZ] [--qd-min V] [--decimate D]\n"
    "       [--filter-order N] [--block SAMPLES] [--quiet] -o PARAMS";

/* the row source: log samples -> base regressor rows */
typedef struct {
  const dyModel* m;
  dyData* d;
  dyLogReader* r;
  int friction, ncol, nb;
  int *pstart, *pk;   /* non-zeros of column b of P: pk[pstart[b] .. pstart[b+1]-1] */
  double* pv;         /* their values */
  double* Y;          /* full regressor of one sample, n x ncol column-major */
  long long read;     /* samples read in this pass */
  int pass;
  char what[32];
} idSource;

static int id_fill(void* ctx, double* A, int lda, double* y, double* rw, int maxs, char* err,
                   int errsz) {
  idSource* s = ctx;
  int n = s->m->n, ns = 0;
  dySample smp;
  for (; ns < maxs; ns++) {
    int r = dyi_log_next(s->r, &smp, err, errsz);
    if (r < 0) return -1;
    if (r == 0) break;
    dyi_regressor(s->m, s->d, smp.q, smp.qd, smp.qdd, s->friction, s->Y, n);
    for (int b = 0; b < s->nb; b++) {
      double* a = A + (size_t)lda * (size_t)b + (size_t)ns * (size_t)n;
      for (int i = 0; i < n; i++) a[i] = 0;
      for (int e = s->pstart[b]; e < s->pstart[b + 1]; e++) {
        const double* yk = s->Y + (size_t)n * (size_t)s->pk[e];
        double v = s->pv[e];
        for (int i = 0; i < n; i++) a[i] += v * yk[i];
      }
    }
    for (int i = 0; i < n; i++) {
      y[ns * n + i] = smp.tau[i];
      if (smp.slow[i]) rw[ns * n + i] = 0;   /* --qd-min: joint too slow, leave out */
    }
  }
  s->read += ns;
  if (ns) cli_progress(s->what, s->read, "samples", 0);
  return ns;
}

static int id_rewind(void* ctx, char* err, int errsz) {
  idSource* s = ctx;
  cli_progress(s->what, s->read, "samples", 1);
  s->read = 0;
  s->pass++;
  snprintf(s->what, sizeof s->what, "identify (pass %d)", s->pass);
  return dyi_log_rewind(s->r, err, errsz);
}

/* can full parameter k (CONVENTIONS.md order) reach the torque of joint j?
 * Link k's parameters act on joints 1..k (the wrench of link k is carried
 * toward the base), joint k's parameters on joint k only. */
static int reaches(int n, int k, int j) {
  return k < DY_NPAR_LINK * n ? k / DY_NPAR_LINK >= j : (k - DY_NPAR_LINK * n) / DY_NPAR_JNT == j;
}

static const char* method_name(dyiMethod m) {
  return m == DYI_WLS ? "wls" : m == DYI_IRLS ? "irls" : "ols";
}

/* PARAMS file (CONVENTIONS.md section 3). 0 or -1 with err set. */
static int write_params(const char* path, const dyCli* c, const dyModel* m, const dyBase* b,
                        const dyEstim* e, char* err, int errsz) {
  dyOut o;
  if (dy_out_open(&o, path, err, errsz)) return -1;
  FILE* f = o.f;
  fprintf(f, "# dynid identify\n# model: %s\n# log: %s\n# set: %s\n# method: %s\n# friction: %s\n",
          m->source, c->pos[1], b->set, method_name(e->opt.method), b->friction ? "on" : "off");
  fprintf(f, "# samples: %ld\n", e->samples);
  fprintf(f, "# condition number: %.6g (regressor%s, SI units; %.6g after column scaling)\n",
          e->cond, e->opt.method == DYI_OLS ? "" : " as weighted", e->cond_scaled);
  fprintf(f, "# residual rms per joint:");
  for (int j = 0; j < m->n; j++) fprintf(f, " %.6g", e->rms[j]);
  fprintf(f, "\n# relative error per joint [%%]:");
  for (int j = 0; j < m->n; j++) fprintf(f, " %.4g", e->relerr_pct[j]);
  fprintf(f, "\n# relative error all joints [%%]: %.4g\n", e->relerr_all_pct);
  fprintf(f, "name,value,std,rel_std_pct,expression\n");
  char* expr = NULL;
  int cap = 0;
  for (int i = 0; i < b->nb; i++) {
    int need = dyi_base_expr(m, b, i, expr, cap);
    if (need >= cap) {
      cap = need + 64;
      char* nx = realloc(expr, (size_t)cap);
      if (!nx) { free(expr); dy_out_abort(&o); snprintf(err, (size_t)errsz, "out of memory"); return -1; }
      expr = nx;
      dyi_base_expr(m, b, i, expr, cap);
    }
    fprintf(f, "%s,", b->name[i]);
    dy_fprint_double(f, e->beta[i]);
    fputc(',', f);
    dy_fprint_double(f, e->std[i]);
    fputc(',', f);
    if (isfinite(e->rel_std_pct[i])) fprintf(f, "%.6g", e->rel_std_pct[i]);
    else fputs("inf", f);
    fprintf(f, ",%s\n", expr);
  }
  free(expr);
  return dy_out_commit(&o, err, errsz);
}

int cmd_identify(dyCli* c) {
  int rc = cli_check(c, "set,method,friction,quiet,block,no-header,map,gain,rows,cutoff,on-bad,"
                     "time-scale,resample,qd-min,decimate,filter-order", 2, 2, USAGE);
  if (rc) return rc;
  const char* set = cli_opt(c, "set");
  const char* meth = cli_opt(c, "method");
  if (!set) set = "qr";
  if (strcmp(set, "qr") && strcmp(set, "khalil") && strcmp(set, "lin"))
    return cli_usage("identify: --set must be qr, khalil or lin, got '%s'", set);
  dyEstOpt eo;
  dyi_est_defaults(&eo);
  if (!meth || !strcmp(meth, "ols")) eo.method = DYI_OLS;
  else if (!strcmp(meth, "wls")) eo.method = DYI_WLS;
  else if (!strcmp(meth, "irls")) eo.method = DYI_IRLS;
  else return cli_usage("identify: --method must be ols, wls or irls, got '%s'", meth);
  long block;
  if (cli_int(c, "block", 256, &block)) return 2;
  if (block < 1 || block > 1 << 16) return cli_usage("identify: --block must be 1..65536");
  eo.block = (int)block;
  int friction = cli_flag(c, "friction"), quiet = cli_flag(c, "quiet");

  dyModel* m = cli_model(c);
  if (!m) return 1;
  int n = m->n;
  dyLogOpt lo;
  if ((rc = cli_logopt(c, n, &lo))) { dy_freeModel(m); return rc; }
  openblas_set_num_threads(1);

  char err[DY_ERRSZ];
  rc = 1;
  dyBase* b = NULL;
  dyEstim* e = NULL;
  idSource s;
  memset(&s, 0, sizeof s);
  unsigned char* mask = NULL;
  const char** names = NULL;

  b = dyi_base_compute(m, set, friction, err, sizeof err);
  if (!b) { cli_fail("%s", err); goto done; }
  int nb = b->nb, ncol = dyi_ncols(m, friction);
  if (b->npar != ncol) { cli_fail("base set over %d parameters, regressor has %d", b->npar, ncol); goto done; }
  /* sparse P, the structural mask and the names */
  s.m = m; s.friction = friction; s.ncol = ncol; s.nb = nb;
  s.d = dy_makeData(m);
  s.pstart = malloc(sizeof(int) * (size_t)(nb + 1));
  s.pk = malloc(sizeof(int) * (size_t)ncol * (size_t)nb);
  s.pv = malloc(sizeof(double) * (size_t)ncol * (size_t)nb);
  s.Y = calloc((size_t)n * (size_t)ncol, sizeof(double));
  mask = calloc((size_t)n * (size_t)nb, 1);
  names = malloc(sizeof(char*) * (size_t)nb);
  if (!s.d || !s.pstart || !s.pk || !s.pv || !s.Y || !mask || !names) { cli_fail("out of memory"); goto done; }
  double pmax = 0;
  for (int k = 0; k < ncol * nb; k++) pmax = fmax(pmax, fabs(b->P[k]));
  int nz = 0;
  for (int bc = 0; bc < nb; bc++) {
    s.pstart[bc] = nz;
    for (int k = 0; k < ncol; k++) {
      double v = b->P[(size_t)k * (size_t)nb + (size_t)bc];
      if (fabs(v) <= 1e-15 * pmax) continue;   /* round-off of a computed P */
      s.pk[nz] = k; s.pv[nz] = v; nz++;
      for (int j = 0; j < n; j++) if (reaches(n, k, j)) mask[(size_t)j * (size_t)nb + (size_t)bc] = 1;
    }
    names[bc] = b->name[bc];
  }
  s.pstart[nb] = nz;
  eo.mask = mask;
  eo.names = names;
  e = dyi_est_make(n, nb, &eo, err, sizeof err);
  if (!e) { cli_fail("%s", err); goto done; }
  s.r = dyi_log_open(c->pos[1], n, &lo, err, sizeof err);
  if (!s.r) { cli_fail("%s", err); goto done; }
  s.pass = 1;
  snprintf(s.what, sizeof s.what, "identify");
  dyRowSource src = {&s, id_fill, id_rewind};
  if (dyi_est_run(e, &src, err, sizeof err)) {
    cli_progress(s.what, s.read, "samples", 1);
    cli_fail("%s: %s", c->pos[1], err);
    goto done;
  }
  cli_progress(s.what, s.read, "samples", 1);
  dyLogInfo li;
  dyi_log_info(s.r, &li);
  if (write_params(cli_opt(c, "o"), c, m, b, e, err, sizeof err)) { cli_fail("%s", err); goto done; }

  if (!quiet) {
    fprintf(stderr, "identify: %ld samples x %d joints, %d base parameters (set %s, method %s%s), "
            "%d pass%s over the log\n", e->samples, n, nb, b->set, method_name(eo.method),
            friction ? ", friction" : "", e->iterations, e->iterations == 1 ? "" : "es");
    fprintf(stderr, "log: %ld rows read, %ld dropped, sample rate %.6g Hz, low-pass %s%.6g Hz\n",
            li.rows_read, li.rows_dropped, li.fs, li.fc > 0 ? "" : "none ", li.fc);
    fprintf(stderr, "condition number %.6g (%.6g after column scaling)\n", e->cond, e->cond_scaled);
    fprintf(stderr, "joint  residual_rms  rel_err_pct  noise_std\n");
    for (int j = 0; j < n; j++)
      fprintf(stderr, "%5d  %12.6g  %11.4g  %9.4g\n", j + 1, e->rms[j], e->relerr_pct[j], e->sigma_j[j]);
    fprintf(stderr, "  all  %12.6g  %11.4g\n", e->rms_all, e->relerr_all_pct);
    for (int w = 0; w < e->nwarn && w < DYI_MAXWARN; w++) fprintf(stderr, "warning: %s\n", e->warn[w]);
    if (e->nwarn > DYI_MAXWARN) fprintf(stderr, "warning: ... and %d more\n", e->nwarn - DYI_MAXWARN);
  }
  rc = 0;
done:
  dyi_log_close(s.r);
  dyi_est_free(e);
  free(s.pstart); free(s.pk); free(s.pv); free(s.Y);
  dy_freeData(s.d);
  free(mask); free(names);
  dyi_base_free(b);
  dy_freeModel(m);
  return rc;
}
