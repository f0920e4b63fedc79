/* SPDX-License-Identifier: MIT */
/* dynid program: dynid excite, an exciting trajectory for identification. */
#include "reports/cli.h"
#include "ident/excite.h"
#include <cblas.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* progress on a terminal: searches done (screening, then the local searches)
 * and the best criterion so far; the line stays open until the last search
 * (progress_open) */
static int progress_open;
static void excite_progress(void* ctx, int done, int total, double best) {
  const dyiExciteOpt* o = ctx;
  if (!isatty(2) || cli_quiet) return;
  fprintf(stderr, "\rexcite: %d of %d searches, best %s %.6g   %s", done, total,
          o->criterion == DYI_EXC_DOPT ? "log det" : "cond", best, done == total ? "\n" : "");
  progress_open = done != total;
}

/* end a progress line the search left open (--maxtime ended it before the
 * last start), so that what follows starts on a line of its own */
static void excite_progress_end(void) {
  if (progress_open) fputc('\n', stderr);
  progress_open = 0;
}

static const char* const cname[3] = {"cond", "dopt", "cond-scaled"};

/* The command's resolved options: the search's (ident/excite.h) and the
 * trajectory written. */
typedef struct {
  dyiExciteOpt o;
  double dur, rate;           /* length [s] and sample rate [Hz] of the file written */
  const char* set;            /* base set the criterion is computed for */
} excOpt;

/* Options, each with its default from dyi_excite_defaults (--rate 500 Hz,
 * --duration one period, --threads the cores) and its range: harmonics
 * 1..DYI_FOURIER_MAXH, samples 2..100000, maxeval >= 1, starts >= 1, screen >= 0,
 * hops >= 0, hop-rounds >= 0, hop-eval >= 1, threads 1..64, polish >= 0, seed >= 0; rate, duration and maxtime
 * positive, margin in (0, 1]; --rest needs 2 harmonics; -o is required.
 * 0, or 2 after printing the usage error. */
static int excite_options(const cliArgs* c, excOpt* x) {
  dyiExciteOpt* o = &x->o;
  dyi_excite_defaults(o);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  long nh, seed, ns, me, st, nt, pol, scr, hp, hr, he;
  double margin, maxtime;
  if (cli_int(c, "harmonics", o->nh, &nh) || cli_double(c, "period", o->period, &o->period) ||
      cli_int(c, "seed", (long)o->seed, &seed) || cli_int(c, "samples", o->nsamp, &ns) ||
      cli_int(c, "maxeval", o->maxeval, &me) || cli_double(c, "rate", 500, &x->rate) ||
      cli_double(c, "margin", o->margin, &margin) || cli_double(c, "maxtime", o->maxtime, &maxtime) ||
      cli_int(c, "starts", o->starts, &st) || cli_int(c, "threads", ncpu > 0 ? ncpu : 1, &nt) ||
      cli_int(c, "polish", o->polish, &pol) || cli_int(c, "screen", o->screen, &scr) ||
      cli_int(c, "hops", o->hops, &hp) || cli_int(c, "hop-rounds", o->hop_rounds, &hr) ||
      cli_int(c, "hop-eval", o->hop_eval, &he))
    return 2;
  if (cli_double(c, "duration", o->period, &x->dur)) return 2;
  if (nh < 1 || nh > DYI_FOURIER_MAXH || ns < 2 || ns > 100000 || me < 1 || me > 100000000 || st < 1 ||
      st > 100000 || nt < 1 || nt > 64 || pol < 0 || pol > 100000000 || seed < 0 || scr < 0 || scr > 100000 ||
      hp < 0 || hp > 100000 || hr < 0 || hr > 100000 || he < 1 || he > 100000000)
    return cli_usage("excite: --harmonics 1..%d, --samples 2..100000, --maxeval >= 1, --starts >= 1, "
                     "--screen >= 0, --hops >= 0, --hop-rounds >= 0, --hop-eval >= 1, --threads 1..64, "
                     "--polish >= 0, --seed >= 0", DYI_FOURIER_MAXH);
  o->nh = (int)nh; o->seed = (unsigned long long)seed; o->nsamp = (int)ns; o->maxeval = (int)me;
  o->margin = margin; o->maxtime = maxtime; o->starts = (int)st; o->threads = (int)nt; o->polish = (int)pol;
  o->screen = (int)scr; o->hops = (int)hp; o->hop_rounds = (int)hr; o->hop_eval = (int)he;
  o->rest = cli_flag(c, "rest");
  const char* crit = cli_opt(c, "criterion");
  if (crit && !strcmp(crit, "dopt")) o->criterion = DYI_EXC_DOPT;
  else if (crit && !strcmp(crit, "cond-scaled")) o->criterion = DYI_EXC_COND_SCALED;
  else if (crit && strcmp(crit, "cond"))
    return cli_usage("excite: --criterion is cond, dopt or cond-scaled, not '%s'", crit);
  if (!(x->rate > 0) || !(x->dur > 0) || !(margin > 0 && margin <= 1) || !(maxtime >= 0) || !isfinite(maxtime))
    return cli_usage("excite: --rate and --duration must be positive, --maxtime >= 0 (0: no cap), --margin in (0, 1]");
  if (o->rest && o->nh < 2) return cli_usage("excite: --rest needs at least 2 harmonics");
  if (!cli_opt(c, "o")) return cli_usage("excite: -o TRAJ is required");
  x->set = cli_opt(c, "set");
  if (!x->set) x->set = "khalil";
  return 0;
}

/* --qdmax / --qddmax: velocity and acceleration limits for the plan, one
 * value for every joint or one per joint, each positive and finite (they
 * replace the model's); --noise: torque noise per joint (weights the
 * criterion). 0, or 2 after printing the usage error. */
static int excite_limits(const cliArgs* c, dyModel* m, dyiExciteOpt* o) {
  const char* lk[3] = {"qdmax", "qddmax", "noise"};
  double* lim[3] = {m->jnt_qdmax, m->jnt_qddmax, o->sigma};
  for (int k = 0; k < 3; k++) {
    const char* v = cli_opt(c, lk[k]);
    if (!v) continue;
    double x[DY_MAXJ];
    int all = cli_doubles(v, x, 1) == 0;
    if (!all && cli_doubles(v, x, m->n))
      return cli_usage("excite: --%s takes one value or %d comma-separated values, got '%s'", lk[k], m->n, v);
    for (int j = 0; j < m->n; j++) {
      double y = all ? x[0] : x[j];
      if (!(y > 0) || !isfinite(y)) return cli_usage("excite: --%s must be positive", lk[k]);
      lim[k][j] = y;
    }
  }
  o->weighted = cli_opt(c, "noise") != NULL;
  return 0;
}

/* The TRAJ file, written atomically: '#' lines with the search's result
 * (criterion values, starts, evaluations), the limits used and the Fourier
 * coefficients q0, a, b of each joint (enough to rebuild the trajectory),
 * then t,q,qd,qdd at the rate. 0, or 1 after printing. */
static int excite_write(const cliArgs* c, const dyModel* m, const dyiBase* b, const excOpt* x,
                        const dyiFourier* f, const dyiExciteInfo* info, double worst, const char* what) {
  const dyiExciteOpt* o = &x->o;
  char err[DY_ERRSZ] = "";   /* stays empty when the rows fail to write */
  dyOut out;
  if (dy_out_open(&out, cli_opt(c, "o"), err, sizeof err)) return cli_fail("%s", err);
  fprintf(out.f, "# dynid excite: %s, base set %s (%d parameters), criterion %s%s, seed %llu\n", m->source, x->set,
          b->nb, cname[o->criterion], o->weighted ? " weighted by the noise" : "", o->seed);
  fprintf(out.f, "# cond(W) %.6g (first start %.6g), cond of the column-scaled W %.6g, log det(W^T W) %.6g "
          "(first start %.6g); %d points screened, %d of %d starts, %d hops (%d of %d rounds lower), %ld evaluations, "
          "%.1f s%s\n",
          info->cond, info->cond0, info->cond_scaled, info->logdet, info->logdet0, info->screened, info->starts_done,
          o->starts, info->hops, info->hops_better, o->hops > 0 ? o->hop_rounds : 0, info->evals, info->seconds,
          info->budget_hit ? " (time budget reached)" : "");
  fprintf(out.f, "# limits: worst use %.2f %% (%s), checked every %g s\n", 100 * (1 + worst), what, 1 / x->rate);
  fprintf(out.f, "# fourier: q_j(t) = q0_j + sum_l a_lj/(l wf) sin(l wf t) - b_lj/(l wf) cos(l wf t), wf = %.17g rad/s\n", f->wf);
  for (int j = 0; j < m->n; j++) {
    fprintf(out.f, "# joint %d: q0 %.17g; a", j + 1, f->q0[j]);
    for (int l = 0; l < f->nh; l++) fprintf(out.f, " %.17g", f->a[l][j]);
    fprintf(out.f, "; b");
    for (int l = 0; l < f->nh; l++) fprintf(out.f, " %.17g", f->b[l][j]);
    fputc('\n', out.f);
  }
  if (dyi_traj_write(out.f, f, x->dur, x->rate) || dy_out_commit(&out, err, sizeof err)) {
    dy_out_abort(&out);
    return cli_fail("%s", err[0] ? err : "excite: write failed");
  }
  return 0;
}

/* Poorly excited base parameters: a variance inflation ten times the
 * median (over the base parameters) or more, listed on one line; else one
 * line saying none is. 0, or 1 after printing (out of memory). */
static int excite_poor(const dyiBase* b, const dyiExciteInfo* info) {
  double* s = malloc(sizeof(double) * (size_t)b->nb);
  if (!s) return cli_fail("excite: out of memory");
  memcpy(s, info->vif, sizeof(double) * (size_t)b->nb);
  for (int i = 1; i < b->nb; i++)
    for (int k = i; k > 0 && s[k] < s[k-1]; k--) { double t = s[k]; s[k] = s[k-1]; s[k-1] = t; }
  double med = s[b->nb / 2];
  free(s);
  int poor = 0;
  for (int i = 0; i < b->nb; i++)
    if (info->vif[i] > 10 * med) {
      if (!poor++) fprintf(stderr, "excite: poorly excited (variance inflation >= 10x the median %.3g):", med);
      fprintf(stderr, " %s (%.3g)", b->name[i], info->vif[i]);
    }
  fprintf(stderr, poor ? "\n" : "excite: every base parameter within 10x the median variance inflation\n");
  return 0;
}

/* The expected standard deviations of OLS on the samples written, with
 * the torque noise sig per joint they assume (given, or 1 % of the gravity
 * torque RMS, of the whole torque RMS on the joints flagged in fb): the
 * noise on standard error, name,nominal,std,rel_std_pct on standard
 * output (rel_std_pct inf for a nominal value within 1e-12 of zero). */
static void excite_std(const dyModel* m, const dyiBase* b, const excOpt* x, const double* sig, const int* fb,
                       const double* beta, const double* sd) {
  if (cli_quiet) goto table;   /* the table alone */
  fprintf(stderr, "excite: expected standard deviations (standard output) of OLS on the %ld samples written, "
          "torque noise per joint [N m|N]:", lround(x->dur * x->rate));
  for (int j = 0; j < m->n; j++) fprintf(stderr, "%s %.3g", j ? "," : "", sig[j]);
  if (!x->o.weighted) {
    fprintf(stderr, " (1 %% of the gravity torque RMS");
    int any = 0;
    for (int j = 0; j < m->n; j++)
      if (fb[j]) fprintf(stderr, "%s%d", any++ ? "," : "; of the whole torque RMS on joint ", j + 1);
    fprintf(stderr, "; --noise to set)");
  }
  fputc('\n', stderr);
table:
  printf("name,nominal,std,rel_std_pct\n");
  for (int i = 0; i < b->nb; i++) {
    printf("%s,%.6g,%.6g,", b->name[i], beta[i], sd[i]);
    if (fabs(beta[i]) > 1e-12) printf("%.4g\n", 100 * sd[i] / fabs(beta[i])); else printf("inf\n");
  }
}

/* The search's result on standard error: criterion values, starts,
 * evaluations, time and the limits used, and a note when the time budget
 * ended the search (the result then depends on the machine's speed). */
static void excite_result(const excOpt* x, const dyiExciteInfo* info, double worst, const char* what) {
  fprintf(stderr, "excite: cond %.6g (first start %.6g), cond scaled %.4g, log det %.6g (first start %.6g); "
          "%d points screened, %d of %d starts, %d hops (%d of %d rounds lower), %ld evaluations, %.1f s; "
          "limits used up to %.2f %% (%s)\n",
          info->cond, info->cond0, info->cond_scaled, info->logdet, info->logdet0, info->screened, info->starts_done,
          x->o.starts, info->hops, info->hops_better, x->o.hops > 0 ? x->o.hop_rounds : 0, info->evals, info->seconds,
          100 * (1 + worst), what);
  if (info->budget_hit)
    fprintf(stderr, "excite: the time budget (--maxtime %g) ended the search early: the result depends on "
            "the machine's speed; raise --maxtime or lower --starts or --hops\n", x->o.maxtime);
}

/* options -> model and its limits -> base set -> search (ident/excite.h)
 * -> limits checked on the samples written -> predicted std -> TRAJ ->
 * summary. A trajectory beyond a limit by more than 1e-12 (relative) is
 * an error, not a file. */
int cmd_excite(cliArgs* c) {
  const char* use = "dynid excite MODEL [--harmonics L] [--period S] [--duration S] [--rate HZ] "
                    "[--criterion cond|dopt|cond-scaled] [--noise S1,..] [--set khalil|qr|lin] [--friction] "
                    "[--rest] [--seed N] [--screen N] [--starts N] [--hops N] [--hop-rounds N] [--hop-eval N] [--threads N] [--maxtime S] [--samples K] [--maxeval N] "
                    "[--polish N] [--margin F] [--qdmax V1,..] [--qddmax A1,..] -o TRAJ";
  int r = cli_check(c, "harmonics,period,duration,rate,criterion,set,friction,transmission,rest,seed,samples,maxeval,margin,maxtime,"
                    "qdmax,qddmax,screen,starts,hops,hop-rounds,hop-eval,threads,noise,polish",
                    1, 1, use);
  if (r) return r;
  excOpt x;
  if ((r = excite_options(c, &x))) return r;
  dyiExciteOpt* o = &x.o;
  dyModel* m = cli_model(c);
  if (!m) return 1;
  if ((r = excite_limits(c, m, o))) { dy_free_model(m); return r; }
  o->progress = excite_progress;
  o->progress_ctx = o;
  char err[DY_ERRSZ];
  dyiBaseSet kind = dyi_base_set_parse(x.set, err, sizeof err);
  dyiBase* b = kind == DYI_SET_NONE ? NULL : dyi_base_make(m, kind, cli_flag(c, "friction"), err, sizeof err);
  if (!b) { dy_free_model(m); return cli_fail("%s", err); }
  dyiFourier f;
  dyiExciteInfo info;
  memset(&info, 0, sizeof info);
  info.vif = malloc(sizeof(double) * (size_t)b->nb);
  double* beta = malloc(sizeof(double) * (size_t)b->nb);
  double* sd = malloc(sizeof(double) * (size_t)b->nb);
  int status = 1;
  if (!info.vif || !beta || !sd) { cli_fail("excite: out of memory"); goto done; }
  char cap[48] = "";
  if (o->maxtime > 0) snprintf(cap, sizeof cap, ", at most %g s", o->maxtime);
  if (!cli_quiet)
    fprintf(stderr, "excite: %d base parameters (%s), %d harmonics, period %g s, criterion %s%s, "
          "%d points screened, %d starts, %d x %d hops on %d threads%s\n", b->nb, x.set, o->nh, o->period,
          cname[o->criterion], o->weighted ? " (rows weighted by 1/noise)" : "", o->screen > o->starts ? o->screen : 0,
          o->starts, o->hops > 0 ? o->hop_rounds : 0, o->hops, o->threads, cap);
  int xr = dyi_excite(m, b, o, &f, &info, err, sizeof err);
  excite_progress_end();
  if (xr) { cli_fail("%s", err); goto done; }
  char what[16];
  double tw, worst = dyi_excite_check(m, &f, x.dur, x.rate, what, &tw);
  if (worst > 1e-12) {
    cli_fail("excite: the trajectory exceeds the %s limit by %.3g %% at t = %g s", what, 100 * worst, tw);
    goto done;
  }
  /* the predictions: noise given, or 1 % of the gravity torque RMS */
  int fb[DY_MAXJ] = {0};
  double sig[DY_MAXJ];
  if (o->weighted) memcpy(sig, o->sigma, sizeof sig);
  else if (dyi_excite_default_noise(m, &f, x.dur, x.rate, sig, fb)) { cli_fail("excite: out of memory"); goto done; }
  if (dyi_excite_predict(m, b, &f, x.dur, x.rate, sig, beta, sd, err, sizeof err)) { cli_fail("%s", err); goto done; }
  if (excite_write(c, m, b, &x, &f, &info, worst, what)) goto done;
  if (!cli_quiet) excite_result(&x, &info, worst, what);
  if (!cli_quiet && excite_poor(b, &info)) goto done;
  excite_std(m, b, &x, sig, fb, beta, sd);
  status = 0;
done:
  free(info.vif); free(beta); free(sd);
  dyi_base_free(b);
  dy_free_model(m);
  return status;
}
