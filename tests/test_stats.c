/* SPDX-License-Identifier: MIT */
/* Mergeable statistics (--save-stats, --stats) and identification on
 * several threads (--threads): the same estimate as one pass on one thread.
 *
 * - the Panda log split into 10 files: statistics of each, merged, give the
 *   parameters of one pass over the 10 files (1e-10 relative), for OLS and
 *   WLS; merged in two stages (statistics of statistics) too;
 * - --threads 2, 3 and 4 against --threads 1 (default parallel filtering and
 *   --no-parallel, two logs), 1e-10;
 * - estimator level: the triangles of two halves merged (dyi_est_merge)
 *   against the triangles of the whole;
 * - refusals: another model, other options, IRLS, truncated and damaged
 *   files, each a one-line error;
 * - the GNU parallel recipe of ident/README.md, when `parallel` is installed. */
#include "testhelp.h"
#include "ident/estimate.h"
#include "ident/stats.h"
#include <string.h>
#include <unistd.h>

#define DIR "build/tests/stats"
#define MODEL "datasets/models/panda.csv"

/* read name -> value of a PARAMS file into v (at most 200), returns count */
static int read_params(const char* path, char names[][32], double* v) {
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char line[8192];
  int k = 0;
  while (fgets(line, sizeof line, f) && k < 200) {
    if (line[0] == '#' || !strncmp(line, "name,", 5)) continue;
    char* c = strchr(line, ',');
    if (!c) continue;
    *c = 0;
    snprintf(names[k], 32, "%.31s", line);
    v[k++] = strtod(c + 1, NULL);
  }
  fclose(f);
  return k;
}

/* largest relative difference of two PARAMS files (same names), or 1e300 */
static double params_diff(const char* a, const char* b) {
  static char na[200][32], nb[200][32];
  double va[200], vb[200];
  int ka = read_params(a, na, va), kb = read_params(b, nb, vb);
  if (ka == 0 || ka != kb) return 1e300;
  double vmax = 0, d = 0;
  for (int k = 0; k < ka; k++) vmax = fmax(vmax, fabs(vb[k]));
  for (int k = 0; k < ka; k++) {
    if (strcmp(na[k], nb[k])) return 1e300;
    /* relative to the value, floored at 1e-6 of the largest (values near 0) */
    d = fmax(d, fabs(va[k] - vb[k]) / fmax(fabs(vb[k]), 1e-6 * vmax));
  }
  return d;
}

static int run(const char* cmd) { return th_run(DIR, cmd); }

static void split_log(void) {
  CHECK(system("mkdir -p " DIR " && rm -f " DIR "/*.stats " DIR "/part*.csv && "
               "zcat datasets/panda/exciting_traj.csv.gz > " DIR "/all.csv && "
               "head -n 1 " DIR "/all.csv > " DIR "/head && tail -n +2 " DIR "/all.csv > " DIR "/body && "
               "split -n l/10 -d " DIR "/body " DIR "/part && "
               "for p in " DIR "/part0?; do cat " DIR "/head $p > $p.csv; rm $p; done") == 0, "split the log");
}

static void test_ten_splits(void) {
  char cmd[4096];
  int ok = 1;
  for (int k = 0; k < 10; k++) {
    snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " " DIR "/part%02d.csv --map t=t_s --friction --quiet "
             "--save-stats " DIR "/s/part%02d.stats", k, k);
    if (k == 0 && system("mkdir -p " DIR "/s && rm -f " DIR "/s/*") != 0) ok = 0;
    if (run(cmd) != 0) ok = 0;
  }
  CHECK(ok, "statistics of 10 pieces: %s", th_slurp(DIR "/stderr"));
  const char* parts = DIR "/part00.csv " DIR "/part01.csv " DIR "/part02.csv " DIR "/part03.csv " DIR "/part04.csv "
                      DIR "/part05.csv " DIR "/part06.csv " DIR "/part07.csv " DIR "/part08.csv " DIR "/part09.csv";
  for (int wls = 0; wls < 2; wls++) {
    const char* mopt = wls ? " --method wls" : "";
    snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " %s --map t=t_s --friction --quiet --threads 1%s -o "
             DIR "/one.csv", parts, mopt);
    CHECK(run(cmd) == 0, "one pass over 10 logs: %s", th_slurp(DIR "/stderr"));
    snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " --stats " DIR "/s --quiet%s -o " DIR "/merged.csv", mopt);
    CHECK(run(cmd) == 0, "merge a directory: %s", th_slurp(DIR "/stderr"));
    double d = params_diff(DIR "/merged.csv", DIR "/one.csv");
    CHECK(d <= 1e-10, "%s: merged statistics of 10 pieces vs one pass: rel %.3g", wls ? "WLS" : "OLS", d);
  }
  /* in two stages: 0..4 and 5..9 merged into statistics, then those */
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/s/part00.stats " DIR "/s/part01.stats " DIR "/s/part02.stats "
            DIR "/s/part03.stats " DIR "/s/part04.stats --save-stats " DIR "/a.stats --quiet") == 0 &&
        run("ls " DIR "/s/part0[5-9].stats > " DIR "/list && ./dynid identify " MODEL " --stats @" DIR "/list "
            "--save-stats " DIR "/b.stats --quiet") == 0 &&
        run("./dynid identify " MODEL " --stats " DIR "/a.stats " DIR "/b.stats --quiet -o " DIR "/two.csv") == 0,
        "two-stage merge: %s", th_slurp(DIR "/stderr"));
  snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " %s --map t=t_s --friction --quiet --threads 1 -o "
           DIR "/one.csv", parts);
  CHECK(run(cmd) == 0, "one pass");
  double d = params_diff(DIR "/two.csv", DIR "/one.csv");
  CHECK(d <= 1e-10, "two-stage merge vs one pass: rel %.3g", d);
  CHECK(strstr(th_slurp(DIR "/two.csv"), "statistics: 10 files merged, 10 logs") != NULL,
        "the PARAMS header counts the files and logs behind the merge");
  /* --consistent works from merged statistics */
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/s --consistent --quiet -o " DIR "/cons.csv") == 0,
        "--consistent from statistics: %s", th_slurp(DIR "/stderr"));
}

static void test_refusals(void) {
  CHECK(run("./dynid identify datasets/models/puma560.csv --stats " DIR "/s/part00.stats -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), "statistics of another model") != NULL, "another model refused: %s",
        th_slurp(DIR "/stderr"));
  CHECK(run("./dynid identify " MODEL " " DIR "/part00.csv --map t=t_s --friction --cutoff 5 --quiet --save-stats "
            DIR "/other.stats") == 0, "statistics with another cutoff");
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/s/part00.stats " DIR "/other.stats -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), "other.stats: statistics made with other options") != NULL,
        "other options refused: %s", th_slurp(DIR "/stderr"));
  CHECK(run("./dynid identify " MODEL " " DIR "/part00.csv --map t=t_s --quiet --save-stats " DIR "/other.stats") == 0 &&
        run("./dynid identify " MODEL " --stats " DIR "/s/part00.stats " DIR "/other.stats -o " DIR "/x.csv") == 1,
        "statistics without friction refused beside ones with");
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/s/part00.stats --method irls -o " DIR "/x.csv") == 2,
        "IRLS from statistics is a usage error");
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/s/part00.stats --cutoff 3 -o " DIR "/x.csv") == 2,
        "log options with --stats are a usage error");
  CHECK(run("head -n 150 " DIR "/s/part01.stats > " DIR "/trunc.stats && ./dynid identify " MODEL " --stats "
            DIR "/trunc.stats -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), ": truncated: the file ends") != NULL, "truncated file: %s",
        th_slurp(DIR "/stderr"));
  CHECK(run("sed 's/^T,3,2,/T,3,2,x/' " DIR "/s/part01.stats > " DIR "/bad.stats && ./dynid identify " MODEL
            " --stats " DIR "/bad.stats -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), ":4: expected a number, found 'x") != NULL, "bad number at its cell: %s",
        th_slurp(DIR "/stderr"));
  /* a changed value: the sums beside the triangle disagree */
  CHECK(run("awk -F, 'BEGIN{OFS=\",\"} $1==\"T\" && $2==2 && $3==1 {$NF=$NF*1.5} {print}' " DIR "/s/part01.stats > "
            DIR "/dmg.stats && ./dynid identify " MODEL " --stats " DIR "/dmg.stats -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), "the file is damaged") != NULL, "damaged triangle: %s",
        th_slurp(DIR "/stderr"));
  CHECK(run("./dynid identify " MODEL " --stats " DIR "/all.csv -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), "all.csv:1:1: not a dynid statistics file") != NULL,
        "not a statistics file: %s", th_slurp(DIR "/stderr"));
  CHECK(access(DIR "/x.csv", F_OK) != 0, "no PARAMS written by a failed merge");
  /* an @LIST naming no file (it once crashed) */
  CHECK(run(": > " DIR "/empty.list && ./dynid identify " MODEL " --stats @" DIR "/empty.list -o " DIR "/x.csv") == 1 &&
        strstr(th_slurp(DIR "/stderr"), "empty.list: no statistics files in this list") != NULL,
        "empty list: %s", th_slurp(DIR "/stderr"));
}

static void test_threads(void) {
  const char* logs[2] = {"datasets/panda/exciting_traj.csv.gz", "datasets/panda/exciting_traj.csv.gz " DIR "/part03.csv"};
  const char* modes[2] = {"", " --no-parallel --decimate 4"};
  char cmd[2048];
  for (int l = 0; l < 2; l++)
    for (int md = 0; md < 2; md++) {
      if (TH_SANITIZED && l != md) continue;   /* two of the four under the sanitizers */
      snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " %s --map t=t_s --friction --quiet%s --threads 1 -o "
               DIR "/t1.csv", logs[l], modes[md]);
      CHECK(run(cmd) == 0, "one thread: %s", th_slurp(DIR "/stderr"));
      for (int t = 2; t <= 4; t++) {   /* 1, 2 and 3 workers beside the reading thread */
        snprintf(cmd, sizeof cmd, "./dynid identify " MODEL " %s --map t=t_s --friction --quiet%s --threads %d -o "
                 DIR "/tn.csv", logs[l], modes[md], t);
        CHECK(run(cmd) == 0, "%d threads: %s", t, th_slurp(DIR "/stderr"));
        double d = params_diff(DIR "/tn.csv", DIR "/t1.csv");
        CHECK(d <= 1e-10, "%d threads vs 1 (%d logs%s): rel %.3g", t, l + 1, modes[md], d);
      }
    }
  CHECK(run("./dynid identify " MODEL " datasets/panda/exciting_traj.csv.gz --map t=t_s --threads 0 -o "
            DIR "/x.csv") == 2, "--threads 0 is a usage error");
}

/* triangles of two halves of random rows merged = triangles of all rows */
static void test_merge_level(void) {
  const int n = 3, p = 5, N = 400;
  char err[512];
  dyiEstOpt o;
  dyi_est_defaults(&o);
  o.block = 64;
  dyiEstim *all = dyi_est_make(n, p, &o, err, sizeof err), *h1 = dyi_est_make(n, p, &o, err, sizeof err),
          *h2 = dyi_est_make(n, p, &o, err, sizeof err);
  CHECK(all && h1 && h2, "estimators");
  if (!all || !h1 || !h2) return;
  double A[3 * 64 * 5], y[3 * 64], beta[5] = {1, -2, 0.5, 3, -1};
  for (int blk = 0; blk < N / 64 + 1; blk++) {
    int ns = blk < N / 64 ? 64 : N % 64;
    for (int r = 0; r < n * ns; r++) {
      y[r] = th_uniform(-1e-3, 1e-3);
      for (int c = 0; c < p; c++) { A[r + 3 * 64 * c] = th_uniform(-1, 1); y[r] += A[r + 3 * 64 * c] * beta[c]; }
    }
    CHECK(dyi_est_add(all, A, 3 * 64, y, ns, NULL, err, sizeof err) == 0, "add");
    CHECK(dyi_est_add(blk % 2 ? h2 : h1, A, 3 * 64, y, ns, NULL, err, sizeof err) == 0, "add half");
  }
  CHECK(dyi_est_merge(h1, h2, err, sizeof err) == 0, "merge: %s", err);
  CHECK(h1->samples == all->samples && h1->rows_j[0] == all->rows_j[0], "counts add up");
  CHECK(dyi_est_finish(h1, err, sizeof err) == 0 && dyi_est_finish(all, err, sizeof err) == 0, "solve: %s", err);
  for (int k = 0; k < p; k++) CHECK_REL(h1->beta[k], all->beta[k], 1e-12, "merged beta");
  CHECK_REL(h1->sigma2, all->sigma2, 1e-10, "merged sigma^2");
  dyi_est_free(all); dyi_est_free(h1); dyi_est_free(h2);
}

/* README.md's recipe: a folder of logs to statistics with GNU parallel,
 * then one merge */
static void test_parallel_recipe(void) {
  if (system("command -v parallel >/dev/null 2>&1") != 0) {
    printf("skipped: the GNU parallel recipe (GNU parallel is not installed: apt-get install parallel)\n");
    return;
  }
  CHECK(run("mkdir -p " DIR "/logs " DIR "/stats && rm -f " DIR "/stats/* && cp " DIR "/part0*.csv " DIR "/logs/ && "
            "ls " DIR "/logs/*.csv | parallel --will-cite -j 2 ./dynid identify " MODEL
            " {} --map t=t_s --friction --quiet --threads 1 --save-stats " DIR "/stats/{/.}.stats && "
            "./dynid identify " MODEL " --stats " DIR "/stats --quiet -o " DIR "/par.csv") == 0,
        "the GNU parallel recipe: %s", th_slurp(DIR "/stderr"));
  double d = params_diff(DIR "/par.csv", DIR "/one.csv");
  CHECK(d <= 1e-10, "GNU parallel recipe vs one pass: rel %.3g", d);
}

int main(void) {
  split_log();
  test_merge_level();
  test_ten_splits();
  test_refusals();
  test_threads();
  test_parallel_recipe();
  return test_report();
}
