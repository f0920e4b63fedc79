/* dynid program: dynid excite, an exciting trajectory for identification. */
#include "cli.h"
#include "excite.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmd_excite(dyCli* c) {
  const char* use = "dynid excite MODEL [--harmonics L] [--period S] [--duration S] [--rate HZ] "
                    "[--criterion cond|dopt] [--set khalil|qr|lin] [--friction] [--rest] [--seed N] "
                    "[--samples K] [--maxeval N] [--margin F] [--qdmax V1,..] [--qddmax A1,..] -o TRAJ";
  int r = cli_check(c, "harmonics,period,duration,rate,criterion,set,friction,rest,seed,samples,maxeval,margin,maxtime,"
                    "qdmax,qddmax",
                    1, 1, use);
  if (r) return r;
  dyExciteOpt o;
  dyi_excite_defaults(&o);
  long nh, seed, ns, me;
  double dur, rate, margin, maxtime;
  if (cli_int(c, "harmonics", o.nh, &nh) || cli_double(c, "period", o.period, &o.period) ||
      cli_int(c, "seed", (long)o.seed, &seed) || cli_int(c, "samples", o.nsamp, &ns) ||
      cli_int(c, "maxeval", o.maxeval, &me) || cli_double(c, "rate", 500, &rate) ||
      cli_double(c, "margin", o.margin, &margin) || cli_double(c, "maxtime", o.maxtime, &maxtime))
    return 2;
  if (cli_double(c, "duration", o.period, &dur)) return 2;
  o.nh = (int)nh; o.seed = (unsigned long long)seed; o.nsamp = (int)ns; o.maxeval = (int)me;
  o.margin = margin; o.maxtime = maxtime;
  o.rest = cli_flag(c, "rest");
  const char* crit = cli_opt(c, "criterion");
  if (crit && !strcmp(crit, "dopt")) o.criterion = DYI_EXC_DOPT;
  else if (crit && strcmp(crit, "cond")) return cli_usage("excite: --criterion is cond or dopt, not '%s'", crit);
  if (!(rate > 0) || !(dur > 0) || !(margin > 0 && margin <= 1))
    return cli_usage("excite: --rate and --duration must be positive, --margin in (0, 1]");
  if (!cli_opt(c, "o")) return cli_usage("excite: -o TRAJ is required");
  const char* set = cli_opt(c, "set");
  if (!set) set = "khalil";

  dyModel* m = cli_model(c);
  if (!m) return 1;
  /* --qdmax / --qddmax: velocity and acceleration limits for the plan, one
   * value for every joint or one per joint (they replace the model's) */
  const char* lk[2] = {"qdmax", "qddmax"};
  double* lim[2] = {m->jnt_qdmax, m->jnt_qddmax};
  for (int k = 0; k < 2; k++) {
    const char* v = cli_opt(c, lk[k]);
    if (!v) continue;
    double x[DY_MAXJ];
    int all = cli_doubles(v, x, 1) == 0;
    if (!all && cli_doubles(v, x, m->n)) {
      dy_freeModel(m);
      return cli_usage("excite: --%s takes one value or %d comma-separated values, got '%s'", lk[k], m->n, v);
    }
    for (int j = 0; j < m->n; j++) {
      double y = all ? x[0] : x[j];
      if (!(y > 0)) { dy_freeModel(m); return cli_usage("excite: --%s must be positive", lk[k]); }
      lim[k][j] = y;
    }
  }
  char err[DY_ERRSZ];
  dyBase* b = dyi_base_compute(m, set, cli_flag(c, "friction"), err, sizeof err);
  if (!b) { dy_freeModel(m); return cli_fail("%s", err); }
  dyFourier f;
  dyExciteInfo info;
  info.vif = malloc(sizeof(double) * (size_t)b->nb);
  int status = 1;
  fprintf(stderr, "excite: %d base parameters (%s), %d harmonics, period %g s, criterion %s\n", b->nb, set,
          o.nh, o.period, o.criterion == DYI_EXC_DOPT ? "D-optimal" : "condition number");
  if (dyi_excite(m, b, &o, &f, &info, err, sizeof err)) { cli_fail("%s", err); goto done; }
  char what[16];
  double tw, worst = dyi_excite_check(m, &f, dur, rate * 4, what, &tw);
  if (worst > 1e-12) {
    cli_fail("excite: the trajectory exceeds the %s limit by %.3g %% at t = %g s", what, 100 * worst, tw);
    goto done;
  }
  dyOut out;
  if (dy_out_open(&out, cli_opt(c, "o"), err, sizeof err)) { cli_fail("%s", err); goto done; }
  fprintf(out.f, "# dynid excite: %s, base set %s (%d parameters), criterion %s\n", m->source, set, b->nb,
          o.criterion == DYI_EXC_DOPT ? "dopt" : "cond");
  fprintf(out.f, "# cond(W) %.6g (start %.6g), log det(W^T W) %.6g (start %.6g), %d evaluations\n",
          info.cond, info.cond0, info.logdet, info.logdet0, info.evals);
  fprintf(out.f, "# limits: worst use %.1f %% (%s), checked every %g s\n", 100 * (1 + worst), what, 1 / (rate * 4));
  fprintf(out.f, "# fourier: q_j(t) = q0_j + sum_l a_lj/(l wf) sin(l wf t) - b_lj/(l wf) cos(l wf t), wf = %.17g rad/s\n", f.wf);
  for (int j = 0; j < m->n; j++) {
    fprintf(out.f, "# joint %d: q0 %.17g; a", j + 1, f.q0[j]);
    for (int l = 0; l < f.nh; l++) fprintf(out.f, " %.17g", f.a[l][j]);
    fprintf(out.f, "; b");
    for (int l = 0; l < f.nh; l++) fprintf(out.f, " %.17g", f.b[l][j]);
    fputc('\n', out.f);
  }
  if (dyi_traj_write(out.f, &f, dur, rate) || dy_out_commit(&out, err, sizeof err)) {
    dy_out_abort(&out);
    cli_fail("%s", err[0] ? err : "excite: write failed");
    goto done;
  }
  fprintf(stderr, "excite: cond %.4g (start %.4g), log det %.4g (start %.4g), %d evaluations\n",
          info.cond, info.cond0, info.logdet, info.logdet0, info.evals);
  /* poorly excited: variance inflation ten times the median or more */
  double* s = malloc(sizeof(double) * (size_t)b->nb);
  memcpy(s, info.vif, sizeof(double) * (size_t)b->nb);
  for (int i = 1; i < b->nb; i++)
    for (int k = i; k > 0 && s[k] < s[k-1]; k--) { double t = s[k]; s[k] = s[k-1]; s[k-1] = t; }
  double med = s[b->nb / 2];
  free(s);
  int poor = 0;
  for (int i = 0; i < b->nb; i++)
    if (info.vif[i] > 10 * med) {
      if (!poor++) fprintf(stderr, "excite: poorly excited (variance inflation >= 10x the median %.3g):", med);
      fprintf(stderr, " %s (%.3g)", b->name[i], info.vif[i]);
    }
  fprintf(stderr, poor ? "\n" : "excite: every base parameter within 10x the median variance inflation\n");
  status = 0;
done:
  free(info.vif);
  dyi_base_free(b);
  dy_freeModel(m);
  return status;
}
