/* SPDX-License-Identifier: MIT */
/* dynid tests: the PARAMS header parsed into dyiParams (ident/params.h).
 *  - a header as dynid identify writes it (provenance and summary, with the
 *    consistent certificate), written by dyi_params_write and read back:
 *    each field equals what was written, the comment is the text written;
 *    read in one pass (dyi_params_read) and in two (header, then rows);
 *  - the header of a gzip-compressed file, lines longer than 1 kB, and
 *    fields beyond the 8 kB of comment;
 *  - an old-style file (no provenance, no fingerprint): fields absent,
 *    accepted by the program; a file without any header;
 *  - the program's own files: `dynid identify` (least squares on two logs
 *    with --rows, and --consistent) read back, each field against the line
 *    of the file it comes from and against the model (fingerprint);
 *  - the header of another model's file read although its rows do not
 *    parse for this model, so the program refuses it by its fingerprint. */
#include "testhelp.h"
#include "core/io.h"
#include "ident/base.h"
#include "ident/params.h"
#include "reports/cli.h"
#include <string.h>
#include <unistd.h>

static char tmp[256];  /* scratch directory of this run */

/* a PARAMS file at path with the khalil set of m, random values, comment */
static int write_params(const char* path, const dyModel* m, const char* comment) {
  char err[DY_ERRSZ];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  if (!b) return -1;
  double beta[DY_NPAR_LINK * DY_MAXJ];
  for (int i = 0; i < b->nb; i++) beta[i] = th_uniform(-1, 1);
  FILE* f = fopen(path, "w");
  int r = f ? dyi_params_write(f, m, b, beta, NULL, comment, NULL, NULL) : -1;
  if (f) fclose(f);
  dyi_base_free(b);
  return r;
}

static dyModel* panda(void) {
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  dyLoadOpt opt;
  memset(&opt, 0, sizeof opt);
  if (dy_load_model("datasets/models/panda.csv", &opt, &m, err, sizeof err)) {
    CHECK(0, "panda model: %s", err);
    return NULL;
  }
  return m;
}

/* every parsed field of the header check_written writes (p read from path) */
static void check_fields(const dyiParams* p, const char* path, const char* comment) {
  CHECK(!strcmp(p->comment, comment), "comment: '%s'", p->comment);
  CHECK(!strcmp(p->path, path), "path '%s'", p->path);
  CHECK(!strcmp(p->model, "models/arm, with comma.csv"), "model '%s'", p->model);
  CHECK(!strcmp(p->fingerprint, "7 joints RRRRRRR geometry 0123abcd"), "fingerprint '%s'", p->fingerprint);
  CHECK(!strcmp(p->rows, "101..5000"), "rows '%s'", p->rows);
  CHECK(p->nlog == 2 && !strcmp(p->log[0], "a.csv") && !strcmp(p->log[1], "dir with blank/b.csv"),
        "logs: %d", p->nlog);
  CHECK(p->samples == 4321, "samples %ld", p->samples);
  CHECK(p->cond == 1246.29 && p->cond_weighted == 1 && p->cond_scaled == 190.471, "cond %.17g %d %.17g",
        p->cond, p->cond_weighted, p->cond_scaled);
  CHECK(p->rel_err == 1.012, "rel_err %.17g", p->rel_err);
  CHECK(p->consistent == 1 && p->rss_rise == 45.05, "consistent %d, rss_rise %.17g", p->consistent, p->rss_rise);
  CHECK(p->nbound == 3 && !strncmp(p->bound[0], "bounds auto: each", 17) &&
        !strcmp(p->bound[1], "link 1: ellipsoid centre (0.001, 0.001, -0.08) m, semi-axes (0.6, 0.6, 0.8) m; margin 0.461") &&
        !strncmp(p->bound[2], "link 2: bounding", 16), "bounds: %d", p->nbound);
  CHECK(p->base && p->base->nb > 0 && p->value, "rows not read with the header");
  /* the text of the condition number as identify writes and report quotes it */
  char ct[160];
  cli_cond_text(ct, sizeof ct, p->cond, p->cond_weighted, p->cond_scaled);
  CHECK(!strcmp(ct, "1246.29 (regressor as weighted, SI units; 190.471 after column scaling)"),
        "cli_cond_text: '%s'", ct);
}

/* the fields of a header written as identify writes it */
static void check_written(const dyModel* m) {
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/w.csv", tmp);
  const char* comment =
      "dynid 1.0.0\n"
      "command: dynid identify arm.csv a.csv b.csv --map t=t_s --rows 101..5000 --method wls -o w.csv\n"
      "model: models/arm, with comma.csv, fingerprint: 7 joints RRRRRRR geometry 0123abcd\n"
      "input: a.csv (123 bytes, --rows 101..5000)\n"
      "dynid identify\n"
      "model: models/arm, with comma.csv\n"
      "log: a.csv\n"
      "log: dir with blank/b.csv\n"
      "rows: parallel filtering: 293 samples left out at each file end\n"
      "set: khalil\nmethod: wls\nfriction: off\n"
      "samples: 4321\n"
      "condition number: 1246.29 (regressor as weighted, SI units; 190.471 after column scaling)\n"
      "residual rms per joint: 0.1 0.2 0.3 0.4 0.5 0.6 0.7\n"
      "relative error per joint [%]: 1 2 3 4 5 6 7\n"
      "relative error all joints [%]: 1.012\n"
      "consistent: certified optimal, physically consistent and plausible (objective 1, ...)\n"
      "consistent: training residual +45.05 % over the unconstrained estimate (weighted rss 10.2 vs 7.04)\n"
      "consistent: prior nominal, weight 1e+03 (default); pseudo-inertia margin --min-eig 0\n"
      "consistent: bounds auto: each link's mass in an ellipsoid, mass in [0.5, 2] x nominal\n"
      "consistent: link 1: ellipsoid centre (0.001, 0.001, -0.08) m, semi-axes (0.6, 0.6, 0.8) m; margin 0.461\n"
      "consistent: link 2: bounding ellipsoid from its kinematics (semi-axes 0.382 0.653 0.382 m)\n"
      "consistent: smallest of IA, FV, FC: 5.922e-12";
  CHECK(write_params(path, m, comment) == 0, "writing %s", path);
  for (int how = 0; how < 2; how++) {
    dyiParams* p = NULL;
    if (how == 0) p = dyi_params_read(path, m, err, sizeof err);
    else {
      p = dyi_params_read_header(path, err, sizeof err);
      CHECK(p && !p->base && !p->value, "read_header: %s", p ? "rows read" : err);
      if (p && dyi_params_read_rows(p, m, err, sizeof err)) { CHECK(0, "read_rows: %s", err); dyi_params_free(p); p = NULL; }
    }
    CHECK(p != NULL, "read (%s): %s", how ? "two steps" : "one pass", err);
    if (!p) continue;
    check_fields(p, path, comment);
    dyi_params_free(p);
  }
  /* gzip-compressed: the same header */
  char cmd[700];
  snprintf(cmd, sizeof cmd, "gzip -c %s > %s.gz", path, path);
  CHECK(system(cmd) == 0, "gzip");
  snprintf(cmd, sizeof cmd, "%s.gz", path);
  dyiParams* p = dyi_params_read(cmd, m, err, sizeof err);
  CHECK(p && !strcmp(p->comment, comment) && !strcmp(p->fingerprint, "7 joints RRRRRRR geometry 0123abcd") &&
        p->samples == 4321 && p->nlog == 2, "gzip: %s", p ? p->comment : err);
  dyi_params_free(p);
}

/* a file without any header, and an old-style one (no provenance: no
 * fingerprint, the model from the summary's line) */
static void check_absent(const dyModel* m) {
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/none.csv", tmp);
  CHECK(write_params(path, m, NULL) == 0, "writing %s", path);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p != NULL, "read: %s", err);
  if (p) {
    CHECK(!p->comment[0] && !p->model[0] && !p->fingerprint[0] && !p->rows[0] && p->nlog == 0 && !p->log &&
          p->samples == -1 && isnan(p->cond) && isnan(p->cond_scaled) && !p->cond_weighted && isnan(p->rel_err) &&
          !p->consistent && isnan(p->rss_rise) && p->nbound == 0 && !p->bound,
          "no header: fields not absent");
    dyi_params_free(p);
  }
  snprintf(path, sizeof path, "%s/old.csv", tmp);
  CHECK(write_params(path, m, "dynid identify\nmodel: old/arm.csv\nlog: x.csv\nset: khalil\nsamples: 7\n"
                              "condition number: 12.5") == 0, "writing %s", path);
  p = dyi_params_read_header(path, err, sizeof err);
  CHECK(p != NULL, "read: %s", err);
  if (p) {
    CHECK(!p->fingerprint[0] && !strcmp(p->model, "old/arm.csv") && p->nlog == 1 && p->samples == 7 &&
          p->cond == 12.5 && isnan(p->cond_scaled) && !p->cond_weighted && !p->rows[0] && !p->consistent,
          "old-style header: '%s' '%s' %d %ld %g %g", p->fingerprint, p->model, p->nlog, p->samples, p->cond,
          p->cond_scaled);
    dyi_params_free(p);
  }
  /* the program accepts it on any model of the same joints (no fingerprint to refuse it by) */
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "printf 'q1,q2,q3,q4,q5,q6,q7,qd1,qd2,qd3,qd4,qd5,qd6,qd7,qdd1,qdd2,qdd3,qdd4,qdd5,qdd6,qdd7\\n"
           "0,0,0,-1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\\n' > %s/s.csv && ./dynid id datasets/models/panda.csv %s/s.csv "
           "--params %s", tmp, tmp, path);
  CHECK(th_run(tmp, cmd) == 0, "an old-style PARAMS file refused: %s", th_slurp(strcat(strcpy(path, tmp), "/stderr")));
  /* a path that cannot be read: the reader's message */
  snprintf(path, sizeof path, "%s/nonexistent.csv", tmp);
  p = dyi_params_read_header(path, err, sizeof err);
  CHECK(!p && strstr(err, "nonexistent.csv: cannot open"), "missing file: %s", p ? "read" : err);
  dyi_params_free(p);
}

/* header lines longer than 1 kB, and fields after the 8 kB the comment holds */
static void check_long(const dyModel* m) {
  char path[300], err[DY_ERRSZ];
  snprintf(path, sizeof path, "%s/long.csv", tmp);
  size_t cap = 20000, L = 0;
  char* c = malloc(cap);
  char longlog[1500];
  memset(longlog, 'x', sizeof longlog - 1);
  longlog[sizeof longlog - 1] = 0;
  L += (size_t)snprintf(c + L, cap - L, "dynid identify\nlog: %s\n", longlog);
  for (int k = 0; k < 80; k++) L += (size_t)snprintf(c + L, cap - L, "note %d: %0100d\n", k, 0);
  snprintf(c + L, cap - L, "samples: 99\nrelative error all joints [%%]: 2.5\nlog: last.csv");
  CHECK(write_params(path, m, c) == 0, "writing %s", path);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p != NULL, "read: %s", err);
  if (p) {
    CHECK(p->nlog == 2 && !strcmp(p->log[0], longlog) && !strcmp(p->log[1], "last.csv"), "long lines: %d logs", p->nlog);
    CHECK(p->samples == 99 && p->rel_err == 2.5, "fields beyond the comment: %ld %g", p->samples, p->rel_err);
    CHECK(strlen(p->comment) < sizeof p->comment && !strstr(p->comment, "samples: 99") &&
          !strncmp(p->comment, c, strlen(p->comment)), "the comment: the lines that fit, as before");
    dyi_params_free(p);
  }
  free(c);
}

/* the value after "# key" on a line of the file text, NULL if none */
static const char* line_value(const char* text, const char* key) {
  char k[128];
  snprintf(k, sizeof k, "\n# %s", key);
  const char* s = strstr(text, k);
  return s ? s + strlen(k) : NULL;
}

/* dynid identify's files read back: each field against its line */
/* run identify's command cmd, which writes tmp/name: its text (*text) and
 * the file as read (NULL, and a failed check, when either is missing) */
static dyiParams* identified(const char* cmd, const char* name, const dyModel* m, char** text) {
  char path[300], err[DY_ERRSZ];
  CHECK(th_run(tmp, cmd) == 0, "%s: %s", cmd, th_slurp(strcat(strcpy(path, tmp), "/stderr")));
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  *text = th_read_file(path);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p && *text, "read %s: %s", path, err);
  if (p && *text) return p;
  dyi_params_free(p);
  return NULL;
}

/* identify's least-squares file over two logs with --rows: each field
 * against its own line */
static void program_ls(const dyModel* m, const char* L) {
  char cmd[1500];
  snprintf(cmd, sizeof cmd, "cp %s %s/second.csv.gz && ./dynid identify datasets/models/panda.csv %s %s/second.csv.gz "
           "--map t=t_s --rows 1..3000 --friction --quiet -o %s/id.csv", L, tmp, L, tmp, tmp);
  char* text = NULL;
  dyiParams* p = identified(cmd, "id.csv", m, &text);
  if (p) {
    char fp[96], second[300];
    cli_fingerprint(m, fp, sizeof fp);
    snprintf(second, sizeof second, "%s/second.csv.gz", tmp);
    CHECK(!strcmp(p->fingerprint, fp) && !strcmp(p->model, "datasets/models/panda.csv"), "model '%s' (%s)", p->model,
          p->fingerprint);
    CHECK(!strcmp(p->rows, "1..3000"), "rows '%s'", p->rows);
    CHECK(p->nlog == 2 && !strcmp(p->log[0], L) && !strcmp(p->log[1], second), "logs: %d", p->nlog);
    const char* v = line_value(text, "samples: ");
    CHECK(v && p->samples == strtol(v, NULL, 10) && p->samples > 0, "samples %ld", p->samples);
    v = line_value(text, "condition number: ");
    double c1 = 0, c2 = 0;
    CHECK(v && sscanf(v, "%lf (regressor, SI units; %lf after column scaling)", &c1, &c2) == 2 && p->cond == c1 &&
          p->cond_scaled == c2 && !p->cond_weighted, "cond %g %g", p->cond, p->cond_scaled);
    char ct[160];
    cli_cond_text(ct, sizeof ct, p->cond, p->cond_weighted, p->cond_scaled);
    CHECK(v && !strncmp(v, ct, strlen(ct)) && v[strlen(ct)] == '\n', "cond text '%s'", ct);
    v = line_value(text, "relative error all joints [%]: ");
    CHECK(v && p->rel_err == strtod(v, NULL) && p->rel_err > 0, "rel_err %g", p->rel_err);
    CHECK(!p->consistent && isnan(p->rss_rise) && p->nbound == 0, "least squares read as consistent");
  }
  free(text);
  dyi_params_free(p);
}

/* identify --consistent's file: the residual's rise and the bound lines */
static void program_consistent(const dyModel* m, const char* L) {
  char cmd[1500];
  /* --consistent (one solve: a given prior weight, no bootstrap) */
  snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %s --map t=t_s --rows 1..3000 --friction "
           "--consistent --prior-weight 1 --boot 0 --quiet -o %s/cons.csv", L, tmp);
  char* text = NULL;
  dyiParams* p = identified(cmd, "cons.csv", m, &text);
  if (p) {
    const char* v = line_value(text, "consistent: training residual ");
    CHECK(p->consistent && v && p->rss_rise == strtod(v, NULL), "rss_rise %g", p->rss_rise);
    int nb = 0;
    for (const char* s = text; (s = strstr(s, "\n# consistent: ")); s++)
      if (!strncmp(s + 15, "bounds ", 7) || !strncmp(s + 15, "link ", 5)) {
        size_t k = strcspn(s + 15, "\n");
        CHECK(nb < p->nbound && strlen(p->bound[nb]) == k && !strncmp(p->bound[nb], s + 15, k), "bound %d", nb);
        nb++;
      }
    CHECK(nb > m->n && nb == p->nbound, "%d bound lines, %d read", nb, p->nbound);
    CHECK(p->nlog == 1 && p->pi != NULL, "consistent file: %d logs, pi %s", p->nlog, p->pi ? "read" : "missing");
  }
  free(text);
  dyi_params_free(p);
}

/* another model's file (program_ls's): its header read although its rows
 * do not parse for a 3-joint arm; the program refuses it by the fingerprint */
static void program_other_model(const char* L) {
  char cmd[1500], path[300], err[DY_ERRSZ];
  dyModel* m3 = NULL;
  dyLoadOpt opt;
  memset(&opt, 0, sizeof opt);
  CHECK(dy_load_model("datasets/models/planar3r.csv", &opt, &m3, err, sizeof err) == 0, "planar3r: %s", err);
  snprintf(path, sizeof path, "%s/id.csv", tmp);
  dyiParams* p = dyi_params_read_header(path, err, sizeof err);
  CHECK(p && p->fingerprint[0], "header of another model's file: %s", p ? "no fingerprint" : err);
  if (p && m3) {
    char fp3[96];
    cli_fingerprint(m3, fp3, sizeof fp3);
    CHECK(strcmp(fp3, p->fingerprint) != 0, "planar3r has the Panda's fingerprint");
    CHECK(dyi_params_read_rows(p, m3, err, sizeof err) != 0 && !p->base && p->fingerprint[0],
          "the Panda's rows read for a 3-joint arm");
  }
  dyi_params_free(p);
  dy_free_model(m3);
  snprintf(cmd, sizeof cmd, "./dynid validate datasets/models/planar3r.csv %s/id.csv %s --map t=t_s", tmp, L);
  CHECK(th_run(tmp, cmd) == 1 && strstr(th_slurp(strcat(strcpy(path, tmp), "/stderr")), "identified on another model"),
        "validate on another model: %s", th_slurp(path));
}

static void check_program(const dyModel* m) {
  const char* L = "datasets/panda/exciting_traj.csv.gz";
  program_ls(m, L);
  program_consistent(m, L);
  program_other_model(L);
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/dynid_test_params_hdr_XXXXXX");
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  dyModel* m = panda();
  if (m) {
    check_written(m);
    check_absent(m);
    check_long(m);
    check_program(m);
  }
  dy_free_model(m);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  return test_report();
}
