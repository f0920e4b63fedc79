/* SPDX-License-Identifier: MIT */
/* dynid tests: the Panda golden case (datasets/panda: Gaz, Cognetti, Oliva,
 * Robuffo Giordano, De Luca, RA-L 2019, supplementary Table III).
 *
 * The paper identifies, by classical OLS on this very log, 43 base
 * parameters plus 21 friction parameters (fv, fc, fo per joint), with a
 * regressor condition number of 121.88 and a relative error of 1.41 %.
 * dynid's khalil set with --friction has the same 43 link parameters and
 * fv, fc, fo per joint, plus the rotor inertias IA3..IA7 (IA1 and IA2 are
 * grouped into ZZ1R and ZZ2R): 69. The values below are the paper's CLS
 * column, typed from the supplementary text shipped in datasets/panda.
 *
 * Tolerances, and why they are not tighter:
 *  - condition number within 15 % of 121.88: the paper's filter and
 *    sample selection are not published in the table; ours (10 Hz
 *    zero-phase Butterworth, every sample, five more columns) gives 113;
 *  - relative error between 0.5 % and 1.41 % x 1.25: ours is 1.15 %, a
 *    little lower because the five IA columns absorb some unmodelled effects;
 *  - the best-determined coefficients (the paper's %sigma below 0.2 %)
 *    within 15 % of the paper's value: the IA columns (negative values,
 *    -0.01..-0.06 kg m^2: the Panda measures link-side torque, so rotor
 *    inertia should not appear, and these columns take up modelling and
 *    filtering errors instead) move the inertia combinations by up to 10 %,
 *    the filter moves friction by up to 14 %. The first moments, which
 *    gravity determines, agree within 5 %, or within 0.01 kg m (0.1 N m of
 *    gravity torque, below the 0.05-0.17 N m residual rms per joint).
 *
 * Two runs. The coefficients are compared with --no-parallel, the
 * pipeline closest to the paper's classical least squares: torque
 * low-passed, regressor built from the (filtered) measured signals and not
 * filtered itself. dynid's default, parallel filtering (the torque and
 * every regressor column through the same low-pass, then decimated),
 * removes the bias that filtering the torque alone puts on the Coulomb
 * columns (the torque's sign steps are smoothed, the regressor's are not):
 * its FC come out 3-28 % above the paper's, by design. The default run is
 * checked for the same structure (43 + 21 + 5), the condition number, the
 * relative error and the gravity-determined first moments. */
#include "testhelp.h"
#include <string.h>

typedef struct { const char* name; double paper; } coef_t;

/* With --friction=fv,fc,fo (no rotor inertia: the Panda measures the
 * torque on the link side) the set is the paper's exactly: 43 link base
 * parameters + 21 friction parameters, nothing else. Condition number and
 * relative error as above; the inertia combinations, which the IA columns
 * no longer disturb, within 10 % of the paper's (--no-parallel, as the
 * coefficient comparison below). */
static void exact_set(void) {
  int r = system("./dynid identify datasets/models/panda.csv datasets/panda/exciting_traj.csv.gz "
                 "--map t=t_s --friction=fv,fc,fo --set khalil --no-parallel -o build/tests/golden64.csv "
                 "2> build/tests/golden64.txt");
  CHECK(r == 0, "identify the Panda log with --friction=fv,fc,fo (status %d)", r);
  FILE* f = fopen("build/tests/golden64.csv", "r");
  char line[8192], name[32];
  double cond = 0, rel = 0, v;
  int nlink = 0, nfric = 0, nia = 0, inertia_ok = 0;
  static const coef_t paper[] = {{"XX2R", 0.9188}, {"ZZ2R", 0.9346}, {"XX4R", 0.5462}, {"ZZ4R", 0.6196}};
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#') {
      const char* c = strstr(line, "condition number: ");
      if (c) sscanf(c, "condition number: %lf", &cond);
      const char* e = strstr(line, "relative error all joints");
      if (e) sscanf(strchr(e, ':') + 1, "%lf", &rel);
      continue;
    }
    if (!strncmp(line, "name,", 5) || sscanf(line, "%31[^,],%lf", name, &v) != 2) continue;
    if (!strncmp(name, "IA", 2)) nia++;
    else if (name[0] == 'F') nfric++;
    else nlink++;
    for (int i = 0; i < 4; i++)
      if (!strcmp(name, paper[i].name)) {
        printf("  --friction=fv,fc,fo: %-5s dynid %9.4f  paper (CLS) %9.4f  difference %5.1f %%\n", name, v,
               paper[i].paper, 100 * fabs(v / paper[i].paper - 1));
        inertia_ok += fabs(v / paper[i].paper - 1) < 0.10;
      }
  }
  if (f) fclose(f);
  printf("Panda --friction=fv,fc,fo: %d link + %d friction parameters, cond %.5g, relative error %.4g %%\n",
         nlink, nfric, cond, rel);
  CHECK(nlink == 43 && nfric == 21 && nia == 0, "exactly 43 + 21 as in Table III (got %d + %d + %d IA)", nlink,
        nfric, nia);
  CHECK(fabs(cond / 121.88 - 1) < 0.15, "condition number %.5g within 15 %% of 121.88", cond);
  CHECK(rel > 0.5 && rel < 1.41 * 1.25, "relative error %.4g %% near the paper's 1.41 %%", rel);
  CHECK(inertia_ok == 4, "XX2R ZZ2R XX4R ZZ4R within 10 %% of the paper's (%d of 4)", inertia_ok);
}

/* what golden() reads from the PARAMS file: the condition number, the
 * relative error, the base parameters' names and values and their kinds */
typedef struct {
  double cond, rel;
  int nb, nlink, nfric, nia;
  char names[128][32];
  double vals[128];
} golden_t;

/* the summary from the PARAMS comments, and the rows */
static void read_golden(const char* path, golden_t* g) {
  FILE* f = fopen(path, "r");
  char line[8192];
  g->cond = 0; g->rel = 0;
  g->nb = 0; g->nlink = 0; g->nfric = 0; g->nia = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#') {
      const char* c = strstr(line, "condition number");
      if (c && !g->cond) sscanf(c, "condition number: %lf", &g->cond);
      if (c && !g->cond) sscanf(c, "condition number %lf", &g->cond);
      const char* e = strstr(line, "relative error all joints");
      if (e) sscanf(strchr(e, ':') + 1, "%lf", &g->rel);
      continue;
    }
    if (!strncmp(line, "name,", 5)) continue;
    int nb = g->nb;
    if (nb < 128 && sscanf(line, "%31[^,],%lf", g->names[nb], &g->vals[nb]) == 2) {
      if (!strncmp(g->names[nb], "IA", 2)) g->nia++;
      else if (g->names[nb][0] == 'F') g->nfric++;
      else g->nlink++;
      g->nb++;
    }
  }
  if (f) fclose(f);
}

/* the base parameters the paper lists against its values: first moments
 * within 5 % (or 0.1 N m of gravity torque), the rest within 15 % (those
 * only with --no-parallel; see the top) */
static void check_paper_coefs(const golden_t* g, int parallel) {
  static const coef_t paper[] = {
    {"MY2R", -3.1363}, {"MX3R", 0.6803}, {"MX4R", -0.4726}, {"MY4R", 1.7517}, {"MY5R", 0.0817},
    {"MX6R", 0.1637}, {"MY6R", -0.0623}, {"XX2R", 0.9188}, {"ZZ2R", 0.9346}, {"XX4R", 0.5462},
    {"ZZ4R", 0.6196}, {"FC1", 0.2450}, {"FC2", 0.1523}, {"FC3", 0.1827}, {"FC4", 0.3591},
    {"FC5", 0.2669}, {"FC6", 0.1658}, {"FC7", 0.2109}};
  int npaper = (int)(sizeof paper / sizeof paper[0]);
  for (int i = 0; i < npaper; i++) {
    int k = -1;
    for (int b = 0; b < g->nb; b++) if (!strcmp(g->names[b], paper[i].name)) k = b;
    CHECK(k >= 0, "%s present", paper[i].name);
    if (k < 0) continue;
    double d = fabs(g->vals[k] / paper[i].paper - 1);
    printf("  %-5s dynid %9.4f  paper (CLS) %9.4f  difference %5.1f %%\n", paper[i].name, g->vals[k],
           paper[i].paper, 100 * d);
    int moment = g->names[k][0] == 'M' && (g->names[k][1] == 'X' || g->names[k][1] == 'Y');
    if (parallel && !moment) continue;   /* see the top: only the first moments */
    if (moment)   /* 5 %, or a gravity torque difference below the 0.1 N m residual level */
      CHECK(d < 0.05 || 9.81 * fabs(g->vals[k] - paper[i].paper) < 0.1,
            "%s = %.4f within 5 %% (or 0.1 N m of gravity torque) of the paper's %.4f (%s)", paper[i].name,
            g->vals[k], paper[i].paper, parallel ? "default" : "--no-parallel");
    else
      CHECK(d < 0.15, "%s = %.4f within 15 %% of the paper's %.4f", paper[i].name, g->vals[k], paper[i].paper);
  }
}

/* the Panda's log identified (with or without parallel filtering) against
 * the paper's Table III */
static void golden(int parallel) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv datasets/panda/exciting_traj.csv.gz "
           "--map t=t_s --friction --set khalil %s -o build/tests/golden_params.csv "
           "2> build/tests/golden_identify.txt", parallel ? "" : "--no-parallel");
  int r = system(cmd);
  CHECK(r == 0, "identify the Panda log (status %d)", r);
  if (r) return;
  static golden_t g;
  read_golden("build/tests/golden_params.csv", &g);
  printf("%s: Panda: %d base parameters (%d link, %d friction, %d rotor inertia), cond %.5g (paper 121.88), "
         "relative error %.4g %% (paper 1.41 %%)\n", parallel ? "default (parallel filtering)" : "--no-parallel",
         g.nb, g.nlink, g.nfric, g.nia, g.cond, g.rel);
  CHECK(g.nlink == 43, "43 link base parameters as in Table III (got %d)", g.nlink);
  CHECK(g.nfric == 21, "21 friction parameters as in Table III (got %d)", g.nfric);
  CHECK(g.nia == 5, "IA3..IA7 beside them (got %d)", g.nia);
  CHECK(fabs(g.cond / 121.88 - 1) < 0.15, "condition number %.5g within 15 %% of 121.88", g.cond);
  CHECK(g.rel > 0.5 && g.rel < 1.41 * 1.25, "relative error %.4g %% near the paper's 1.41 %%", g.rel);
  check_paper_coefs(&g, parallel);
}

int main(void) {
  golden(0);
  golden(1);
  exact_set();
  return test_report();
}
