/* SPDX-License-Identifier: MIT */
/* dynid tests: the HTML report.
 *  - well-formed XML (xmllint --noout), so any browser parses it alike;
 *  - every section is present (model, identifiability, parameters, each
 *    held-out log with data quality and torque prediction, physical
 *    consistency) and every plot is an inline <svg>;
 *  - its metrics table holds exactly the numbers `dynid validate` prints on
 *    the same model, parameters and log (the report must not recompute
 *    them differently);
 *  - its parameter table holds the PARAMS file's values;
 *  - with a second parameter set (--compare, the --consistent estimate, and
 *    --models, the model files identify wrote), each metrics row holds both
 *    sets' numbers of `dynid validate`, both verdicts appear and agree with
 *    validate's, the per-link table holds the nominal and both identified
 *    links, the model files are linked relative to the page; a model file of
 *    another arm and mismatched --labels are refused.
 * The data: a PUMA 560 log simulated with noise, identified by dynid. */
#include "testhelp.h"
#include <string.h>
#include <sys/wait.h>

/* the text with numeric character references (&#xHH;) decoded and tags
 * removed, as a reader sees it (PLplot writes SVG text as references) */
static char* visible_text(const char* html) {
  char* out = malloc(strlen(html) + 1);
  char* o = out;
  int in_tag = 0;
  for (const char* s = html; *s; s++) {
    if (*s == '<') { in_tag = 1; continue; }
    if (*s == '>') { in_tag = 0; continue; }
    if (in_tag) continue;
    if (s[0] == '&' && s[1] == '#' && s[2] == 'x') {
      char* e;
      long c = strtol(s + 3, &e, 16);
      if (*e == ';' && c > 0 && c < 128) { *o++ = (char)c; s = e; continue; }
    }
    *o++ = *s;
  }
  *o = 0;
  return out;
}

/* run the commands that write the report at path; check that they
 * succeed and that the page is well-formed XML; the page, or NULL */
static char* make_report(const char* cmd, const char* path) {
  int r = system(cmd);
  CHECK(r == 0, "commands ending in the report %s (status %d)", path, r);
  if (r) return NULL;
  char lint[256];
  snprintf(lint, sizeof lint, "xmllint --noout %s 2>/dev/null", path);
  r = system(lint);
  CHECK(r == 0, "%s is well-formed XML (xmllint status %d)", path, WEXITSTATUS(r));
  char* html = th_read_file(path);
  CHECK(html != NULL, "%s readable", path);
  return html;
}

/* the verdict line of a validate output: 1 consistent, 0 inconsistent, 2 else */
static int validate_verdict(const char* path) {
  FILE* f = fopen(path, "r");
  char line[1024];
  int v = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "# physical consistency: ", 24))
      v = !strncmp(line + 24, "consistent", 10) ? 1 : !strncmp(line + 24, "INCONSISTENT", 12) ? 0 : 2;
  if (f) fclose(f);
  return v;
}

/* the four fields of validate's row of joint j ("all" for j = 0) */
static int validate_row(const char* path, const char* joint, char out[4][40]) {
  FILE* f = fopen(path, "r");
  char line[512];
  int ok = 0;
  while (f && !ok && fgets(line, sizeof line, f))
    ok = line[0] != '#' && sscanf(line, "%39[^,],%39[^,],%39[^,],%39s", out[0], out[1], out[2], out[3]) == 4 &&
         !strcmp(out[0], joint);
  if (f) fclose(f);
  return ok;
}

/* how many values of the PARAMS file at path appear in html (as %.6g
 * cells; with_name: right after the name's cell); *np: how many there are */
static int params_found(const char* html, const char* path, int with_name, int* np) {
  FILE* f = fopen(path, "r");
  char line[512];
  int found = 0;
  *np = 0;
  while (f && fgets(line, sizeof line, f)) {
    char name[64], want[128];
    double v;
    if (line[0] == '#' || sscanf(line, "%63[^,],%lf", name, &v) != 2) continue;
    (*np)++;
    if (with_name) {   /* in the row of its name, after the nominal value of the same combination */
      snprintf(want, sizeof want, ">%s</td><td class=\"nomv\">", name);
      const char* row = strstr(html, want);
      const char* end = row ? strstr(row, "</tr>") : NULL;
      snprintf(want, sizeof want, "</td><td>%.6g</td>", v);
      const char* cell = row ? strstr(row, want) : NULL;
      found += cell && cell < end;
    } else {
      snprintf(want, sizeof want, "<td>%.6g</td>", v);
      found += strstr(html, want) != NULL;
    }
  }
  if (f) fclose(f);
  return found;
}

static int count(const char* s, const char* what) {
  int k = 0;
  for (; (s = strstr(s, what)); s++) k++;
  return k;
}

/* two parameter sets side by side */
static void compare(const char* M) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "./dynid identify %s build/tests/rep_train.csv --friction --model-out build/tests/rep_ls_model.csv "
           "-o build/tests/rep_params.csv 2>/dev/null && "
           "./dynid identify %s build/tests/rep_train.csv --friction --consistent --quiet "
           "--model-out build/tests/rep_cons_model.csv -o build/tests/rep_cons.csv 2>/dev/null && "
           "./dynid identify %s build/tests/rep_train.csv --friction --consistent --quiet "
           "--model-out build/tests/rep_cons_model.urdf -o build/tests/rep_cons.csv 2>/dev/null && "
           "./dynid validate %s build/tests/rep_cons.csv build/tests/rep_test.csv "
           "-o build/tests/rep_cons_metrics.csv 2>/dev/null && "
           "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv --compare build/tests/rep_cons.csv "
           "--labels 'least squares,consistent' "
           "--models build/tests/rep_ls_model.csv,build/tests/rep_cons_model.urdf+build/tests/rep_cons_model.csv "
           "-o build/tests/rep2.html 2>/dev/null", M, M, M, M, M);
  char* html = make_report(cmd, "build/tests/rep2.html");
  if (!html) return;
  int r;
  const char* sections[] = {"id=\"sets\"", "id=\"model\"", "id=\"parameters\"", "id=\"log1\"",
                            "id=\"physical\"", "id=\"links\""};
  for (int i = 0; i < 6; i++) CHECK(strstr(html, sections[i]) != NULL, "two sets: section %s present", sections[i]);
  /* metrics: validate's numbers of both sets in one row, per joint and all */
  const char* joints[] = {"1", "2", "3", "4", "5", "6", "all"};
  for (int j = 0; j < 7; j++) {
    char a[4][40], b[4][40], want[512];
    int ok = validate_row("build/tests/rep_metrics.csv", joints[j], a) &&
             validate_row("build/tests/rep_cons_metrics.csv", joints[j], b);
    snprintf(want, sizeof want, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>",
             a[0], a[1], a[2], a[3], b[1], b[2], b[3]);
    CHECK(ok && strstr(html, want) != NULL, "both sets' validate row '%s' in the report", want);
  }
  CHECK(count(html, "<th colspan=\"3\">least squares</th>") == 2 && count(html, "<th colspan=\"3\">consistent</th>") == 2,
        "a column group per set in the metrics and parameter tables");
  /* the parameter table holds the consistent set's values too */
  int np = 0, found = params_found(html, "build/tests/rep_cons.csv", 0, &np);
  CHECK(np > 0 && found == np, "all %d consistent parameters in the report (%d found)", np, found);
  /* both verdicts, each as validate decides it */
  const char* vtext[] = {"inconsistent (certified)", "certified consistent", "undecided"};
  int v1 = validate_verdict("build/tests/rep_metrics.csv"), v2 = validate_verdict("build/tests/rep_cons_metrics.csv");
  char want[256];
  snprintf(want, sizeof want, "<b>least squares</b>: <span class=\"%s\">%s", v1 == 1 ? "ok" : "bad", v1 >= 0 ? vtext[v1] : "?");
  CHECK(v1 >= 0 && (v1 == 2 || strstr(html, want)), "least-squares verdict as validate's: %s", want);
  snprintf(want, sizeof want, "<b>consistent</b>: <span class=\"%s\">%s", v2 == 1 ? "ok" : "bad", v2 >= 0 ? vtext[v2] : "?");
  CHECK(v2 >= 0 && (v2 == 2 || strstr(html, want)), "consistent verdict as validate's: %s", want);
  CHECK(v1 == 0, "the least-squares estimate of the noisy log is certified inconsistent (%d)", v1);
  /* per link: nominal, least squares, consistent; the consistent links all valid */
  const char* tab = strstr(html, "id=\"links\"");
  CHECK(tab && count(tab, "<td class=\"t\">nominal</td>") == 6 && count(tab, "<td class=\"t\">least squares</td>") == 6 &&
        count(tab, "<td class=\"t\">consistent</td>") == 6, "per-link table: 6 links x (nominal, both sets)");
  const char* p = tab;
  int valid = 0;
  while (p && (p = strstr(p, "<td class=\"t\">consistent</td>"))) {
    const char* e = strstr(p, "</tr>");
    const char* ok = strstr(p, ">valid<");
    valid += ok && e && ok < e;
    p++;
  }
  CHECK(valid == 6, "the consistent model file's 6 links are valid (%d)", valid);
  CHECK(tab && strstr(tab, "<td class=\"t\">least squares</td>") && strstr(tab, "INVALID"),
        "the least-squares model file has invalid links");
  /* model files linked relative to the page (same directory) */
  CHECK(strstr(html, "href=\"rep_cons_model.urdf\"") && strstr(html, "href=\"rep_cons_model.csv\"") &&
        strstr(html, "href=\"rep_ls_model.csv\""), "model files linked relative to the page");
  /* the consistent PARAMS carries its standard parameters: the links are
   * those (the one owner of PARAMS -> standard parameters), not the model
   * file's, and they reproduce the base parameters */
  CHECK(strstr(html, "<b>consistent</b>: the standard parameters the parameters file carries") != NULL,
        "links from the standard parameters the PARAMS file carries");
  const char* d = strstr(html, "<b>consistent</b>: the standard parameters");
  d = d ? strstr(d, "relative distance from the base parameters ") : NULL;
  CHECK(d && strtod(d + 43, NULL) < 1e-9, "the carried links reproduce the consistent base parameters (%s)",
        d ? d + 43 : "?");
  free(html);

  /* refused: a model file of another arm (exit 1, one line), labels that do not match the sets (2) */
  snprintf(cmd, sizeof cmd, "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "--models datasets/models/panda.csv -o build/tests/rep_bad.html", M);
  r = th_run("build/tests", cmd);
  const char* err = th_slurp("build/tests/stderr");
  CHECK(r == 1 && !strncmp(err, "dynid: datasets/models/panda.csv: 7 joints", 42) && count(err, "\n") == 1,
        "a model file of another arm: exit 1, one line (%d: %s)", r, err);
  snprintf(cmd, sizeof cmd, "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "--compare build/tests/rep_cons.csv --labels one -o build/tests/rep_bad.html", M);
  CHECK(th_run("build/tests", cmd) == 2, "--labels with one name for two sets: exit 2");
  CHECK(fopen("build/tests/rep_bad.html", "r") == NULL, "no report written on failure");
}

int main(void) {
  const char* M = "datasets/models/puma560.csv";
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "./dynid simulate %s fourier --seed 9 --noise 0.05 --duration 12 -o build/tests/rep_train.csv 2>/dev/null && "
           "./dynid simulate %s fourier --seed 10 --noise 0.05 --duration 6 -o build/tests/rep_test.csv 2>/dev/null && "
           "./dynid identify %s build/tests/rep_train.csv --friction -o build/tests/rep_params.csv 2>/dev/null && "
           "./dynid validate %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "-o build/tests/rep_metrics.csv 2>/dev/null && "
           "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "-o build/tests/rep.html 2>/dev/null", M, M, M, M, M);
  char* html = make_report(cmd, "build/tests/rep.html");
  if (!html) return test_report();
  const char* sections[] = {"id=\"model\"", "id=\"identifiability\"", "id=\"parameters\"", "id=\"log1\"",
                            "<h3>Data quality</h3>", "<h3>Torque prediction</h3>", "id=\"physical\"",
                            "smallest eigenvalue"};
  for (int i = 0; i < 8; i++) CHECK(strstr(html, sections[i]) != NULL, "section %s present", sections[i]);
  int nsvg = 0;
  for (const char* s = html; (s = strstr(s, "<svg")); s++) nsvg++;
  /* bars + eigenvalue + 6 joints x (lines + histogram) */
  CHECK(nsvg == 2 + 2 * 6, "%d inline SVG plots (expected 14)", nsvg);
  /* every plot has axis labels with units */
  char* text = visible_text(html);
  const char* labels[] = {"torque [N m]", "time [s]", "residual [N m]", "measured", "predicted",
                          "joint 3: measured and predicted torque", "lambda_min [kg m^2]"};
  for (int i = 0; i < 7; i++) CHECK(strstr(text, labels[i]) != NULL, "plot text '%s' (axes, units, legends)", labels[i]);
  free(text);

  /* metrics: each "joint,rms,rel,r2" row of validate appears as a table row */
  FILE* f = fopen("build/tests/rep_metrics.csv", "r");
  char line[512];
  int rows = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || !strncmp(line, "joint,", 6)) continue;
    char a[40], b[40], c[40], d[40], want[256];
    if (sscanf(line, "%39[^,],%39[^,],%39[^,],%39s", a, b, c, d) != 4) continue;
    snprintf(want, sizeof want, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>", a, b, c, d);
    CHECK(strstr(html, want) != NULL, "validate's row '%s' in the report", want);
    rows++;
  }
  if (f) fclose(f);
  CHECK(rows == 7, "validate gave 6 joints and 'all' (%d rows)", rows);

  /* parameters: each PARAMS value appears (as %.6g) after its name */
  int np = 0, found = params_found(html, "build/tests/rep_params.csv", 1, &np);
  CHECK(np > 0 && found == np, "all %d parameters in the report's table (%d found)", np, found);
  /* the answer first: the summary box before the model, with the held-out
   * errors per joint, the nominal baseline and the logs' roles */
  const char* sum = strstr(html, "<h2 id=\"summary\">Summary</h2>");
  const char* mod = strstr(html, "<h2 id=\"model\">");
  CHECK(sum && mod && sum < mod && strstr(sum, "<table class=\"errs\">") < mod &&
        strstr(sum, "nominal model (baseline)") && strstr(sum, "Held-out log"),
        "the report does not open with its summary");
  CHECK(strstr(html, "<h2 id=\"log1\">Held-out log: ") != NULL, "the log is not labelled by its role");
  CHECK(strstr(html, "Written by dynid ") && strstr(html, "fingerprint "), "no provenance at the end of the report");
  free(html);
  compare(M);
  return test_report();
}
