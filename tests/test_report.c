/* SPDX-License-Identifier: MIT */
/* dynid tests: the HTML report.
 *  - well-formed XML (xmllint --noout), so any browser parses it alike;
 *  - every section is present (model, identifiability, parameters, each
 *    held-out log with data quality and torque prediction, physical
 *    consistency) and every plot is an inline <svg>;
 *  - its metrics table holds the numbers `dynid validate` prints on the
 *    same model, parameters and log, rounded for reading (the report must
 *    not recompute them differently);
 *  - its parameter table holds the PARAMS file's values, each with the unit
 *    its name implies (kg m^2, kg m, kg, N m s/rad, N m: derived here from
 *    the name, the report derives it from the set's lead parameter);
 *  - the identifiability table puts every standard parameter in the status
 *    `dynid base` gives it (identifiable alone, in combination, not at all),
 *    exactly once; no raw '#' text is left;
 *  - the identification summary is a table whose units and training error
 *    are the PARAMS header's; the data-quality table counts the log's rows;
 *    the forward-simulation errors are in rad with validate's values;
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
  char* out = malloc(strlen(html) + 1);   /* a reference is longer than its UTF-8 bytes */
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
      if (*e == ';' && c >= 128 && c < 0x800) { *o++ = (char)(0xc0 | c >> 6); *o++ = (char)(0x80 | (c & 63)); s = e; continue; }
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

/* validate's verdict line as the report words it (verdict_text in
 * reports/cmd_report.c): the index into VERDICT, -1 without a known one */
enum { V_INCONSISTENT, V_CONSISTENT, V_UNDECIDED, V_CARRIED_BAD };
static const struct { const char* line; const char* html; } VERDICT[] = {
  {"INCONSISTENT (certified)", "<span class=\"bad\">inconsistent (certified)</span>"},
  {"consistent (certified)", "<span class=\"ok\">certified consistent</span>"},
  {"undecided", "undecided"},
  {"INCONSISTENT: ", "<span class=\"bad\">inconsistent standard parameters</span>"},
};
static int validate_verdict(const char* path) {
  FILE* f = fopen(path, "r");
  char line[1024];
  int v = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "# physical consistency: ", 24))
      for (int i = 0; i < 4; i++)
        if (!strncmp(line + 24, VERDICT[i].line, strlen(VERDICT[i].line))) v = i;
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

/* The unit a base parameter's name implies (HTML, as the report writes
 * units): the standard parameter it is named after, its link number and
 * the R of a grouped parameter stripped; the PUMA's joints are revolute. */
static const char* unit_of(const char* name) {
  static const struct { const char* pre; const char* unit; } U[] = {
    {"XX", "kg&#183;m<sup>2</sup>"}, {"XY", "kg&#183;m<sup>2</sup>"}, {"XZ", "kg&#183;m<sup>2</sup>"},
    {"YY", "kg&#183;m<sup>2</sup>"}, {"YZ", "kg&#183;m<sup>2</sup>"}, {"ZZ", "kg&#183;m<sup>2</sup>"},
    {"MX", "kg&#183;m"}, {"MY", "kg&#183;m"}, {"MZ", "kg&#183;m"}, {"IA", "kg&#183;m<sup>2</sup>"},
    {"FV", "N&#183;m&#183;s/rad"}, {"FC", "N&#183;m"}, {"FO", "N&#183;m"}, {"M", "kg"}};
  for (size_t i = 0; i < sizeof U / sizeof U[0]; i++)
    if (!strncmp(name, U[i].pre, strlen(U[i].pre)) && name[strlen(U[i].pre)] >= '1' &&
        name[strlen(U[i].pre)] <= '9') return U[i].unit;
  return "?";
}

/* validate's rms, rel_err_pct and r2 (fields 1..3) as the report rounds
 * them for reading: 3 significant digits, 0.01 %, 1e-4 (validate's own
 * numbers, so the check is that the page shows them, not its own) */
static void metric_cells(char f[4][40], char* out, size_t sz) {
  snprintf(out, sz, "<td>%.3g</td><td>%.2f</td><td>%.4f</td>", strtod(f[1], NULL), strtod(f[2], NULL),
           strtod(f[3], NULL));
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
    if (with_name) {   /* in the row of its name, after its unit and the nominal value of the same combination */
      snprintf(want, sizeof want, "<td class=\"l\">%s</td><td class=\"u\">%s</td><td class=\"nomv\">", name,
               unit_of(name));
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

/* whether what occurs in [from, to) */
static int within(const char* from, const char* to, const char* what) {
  return from && to && to > from && memmem(from, (size_t)(to - from), what, strlen(what)) != NULL;
}

/* how many rows of the table that starts at tab (up to its </table>) have
 * the set cell who and hold what between the row's <tr and its </tr> */
static int rows_with(const char* tab, const char* who, const char* what) {
  const char* end = tab ? strstr(tab, "</table>") : NULL;
  char cell[128];
  snprintf(cell, sizeof cell, "<td class=\"t\">%s</td>", who);
  int k = 0;
  for (const char* p = tab; end && (p = strstr(p, cell)) && p < end; p++) {
    const char* tr = p;
    while (tr > tab && strncmp(tr, "<tr", 3)) tr--;
    const char* e = strstr(p, "</tr>");
    k += !strncmp(tr, "<tr", 3) && !within(tr, p, "</tr>") && e && e < end && within(tr, e, what);
  }
  return k;
}

/* identify both sets (least squares, consistent with its model files),
 * validate the consistent one and write the two-set report; the page */
static char* compare_report(const char* M) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "./dynid identify %s build/tests/rep_train.csv --friction --model-out build/tests/rep_ls_model.csv "
           "-o build/tests/rep_params.csv 2>/dev/null && "
           "./dynid identify %s build/tests/rep_train.csv --friction --consistent --quiet --boot 0 "
           "--model-out build/tests/rep_cons_model.csv -o build/tests/rep_cons.csv 2>/dev/null && "
           "./dynid identify %s build/tests/rep_train.csv --friction --consistent --quiet "
           "--model-out build/tests/rep_cons_model.urdf -o build/tests/rep_cons.csv 2>/dev/null && "
           "./dynid validate %s build/tests/rep_cons.csv build/tests/rep_test.csv --horizon 0.05 "
           "-o build/tests/rep_cons_metrics.csv 2>/dev/null && "
           "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv --compare build/tests/rep_cons.csv "
           "--labels 'least squares,consistent' "
           "--models build/tests/rep_ls_model.csv,build/tests/rep_cons_model.urdf+build/tests/rep_cons_model.csv "
           "-o build/tests/rep2.html 2>/dev/null", M, M, M, M, M);
  return make_report(cmd, "build/tests/rep2.html");
}

/* the forward simulation's position errors of each joint (rms, largest)
 * in rad with degrees beside, as validate --horizon's notes at path give
 * them, to the 3 digits the page prints */
static void sim_errors(const char* html, const char* path) {
  char line[1024], want[256];
  FILE* f = fopen(path, "r");
  int nj = 0, ok = 0;
  while (f && fgets(line, sizeof line, f)) {
    int j;
    double rms, mx;
    if (sscanf(line, "# sim joint %d: position error rms %lf, max %lf", &j, &rms, &mx) != 3) continue;
    nj++;
    snprintf(want, sizeof want, "<tr><td>%d</td><td class=\"u\">rad (&#176;)</td><td>%.3g (%.3g)</td><td>%.3g (%.3g)</td>",
             j, rms, rms * 180 / M_PI, mx, mx * 180 / M_PI);
    ok += strstr(html, want) != NULL;
  }
  if (f) fclose(f);
  CHECK(nj == 6 && ok == nj, "forward simulation: %d of %d joints' errors in rad (deg) as validate's", ok, nj);
}

/* two sets: the sections, validate's numbers of both sets in one metrics
 * row, a column group per set, the consistent set's parameter values */
static void compare_tables(const char* html) {
  const char* sections[] = {"id=\"sets\"", "id=\"model\"", "id=\"parameters\"", "id=\"log1\"",
                            "id=\"physical\"", "id=\"links\""};
  for (int i = 0; i < 6; i++) CHECK(strstr(html, sections[i]) != NULL, "two sets: section %s present", sections[i]);
  const char* joints[] = {"1", "2", "3", "4", "5", "6", "all"};
  for (int j = 0; j < 7; j++) {
    char a[4][40], b[4][40], want[512];
    int ok = validate_row("build/tests/rep_metrics.csv", joints[j], a) &&
             validate_row("build/tests/rep_cons_metrics.csv", joints[j], b);
    char ra[128], rb[128];
    metric_cells(a, ra, sizeof ra);
    metric_cells(b, rb, sizeof rb);
    snprintf(want, sizeof want, "<tr><td>%s</td>%s%s</tr>", a[0], ra, rb);
    CHECK(ok && strstr(html, want) != NULL, "both sets' validate row '%s' in the report", want);
  }
  const char* met = strstr(html, "<table class=\"metrics\">");
  const char* par = strstr(html, "<table class=\"params\">");
  const char* met_end = met ? strstr(met, "</tr>") : NULL;
  const char* par_end = par ? strstr(par, "</tr>") : NULL;
  CHECK(within(met, met_end, "<th colspan=\"3\">least squares</th><th colspan=\"3\">consistent</th>") &&
        within(par, par_end, "<th colspan=\"3\">least squares</th><th colspan=\"3\">consistent</th>"),
        "a column group per set in the metrics and parameter tables");
  int np = 0, found = params_found(html, "build/tests/rep_cons.csv", 0, &np);
  CHECK(np > 0 && found == np, "all %d consistent parameters in the report (%d found)", np, found);
}

/* both verdicts in the physical-consistency list, each worded as the
 * report words validate's verdict (undecided too) */
static void compare_verdicts(const char* html) {
  const char* phys = strstr(html, "id=\"physical\"");
  const char* links = phys ? strstr(phys, "id=\"links\"") : NULL;
  const struct { const char* label; const char* metrics; } sets[] = {
    {"least squares", "build/tests/rep_metrics.csv"}, {"consistent", "build/tests/rep_cons_metrics.csv"}};
  for (int k = 0; k < 2; k++) {
    int v = validate_verdict(sets[k].metrics);
    char want[256];
    snprintf(want, sizeof want, "<li><b>%s</b>: %s: ", sets[k].label, v >= 0 ? VERDICT[v].html : "?");
    CHECK(v >= 0 && within(phys, links, want), "%s verdict as validate's: %s", sets[k].label, want);
  }
  int v1 = validate_verdict("build/tests/rep_metrics.csv");
  CHECK(v1 == V_INCONSISTENT, "the least-squares estimate of the noisy log is certified inconsistent (%d)", v1);
}

/* per link: nominal, least squares, consistent; the consistent links all
 * valid, some least-squares links invalid; the model files linked */
static void compare_links(const char* html) {
  const char* tab = strstr(html, "id=\"links\"");
  tab = tab ? strstr(tab, "<table") : NULL;
  int nn = rows_with(tab, "nominal", ""), nl = rows_with(tab, "least squares", ""), nc = rows_with(tab, "consistent", "");
  CHECK(nn == 6 && nl == 6 && nc == 6, "per-link table: 6 links x (nominal, both sets): %d %d %d", nn, nl, nc);
  int valid = rows_with(tab, "consistent", "<span class=\"ok\">valid</span>");
  CHECK(valid == 6, "the consistent model file's 6 links are valid (%d)", valid);
  int invalid = rows_with(tab, "least squares", "<span class=\"bad\">INVALID</span>");
  CHECK(invalid >= 1, "the least-squares model file has invalid links (%d rows)", invalid);
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
}

/* refused: a model file of another arm (exit 1, one line), labels that
 * do not match the sets (2); no report written */
static void compare_refused(const char* M) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "--models datasets/models/panda.csv -o build/tests/rep_bad.html", M);
  int r = th_run("build/tests", cmd);
  const char* err = th_slurp("build/tests/stderr");
  CHECK(r == 1 && !strncmp(err, "dynid: datasets/models/panda.csv: 7 joints", 42) && count(err, "\n") == 1,
        "a model file of another arm: exit 1, one line (%d: %s)", r, err);
  snprintf(cmd, sizeof cmd, "./dynid report %s build/tests/rep_params.csv build/tests/rep_test.csv "
           "--compare build/tests/rep_cons.csv --labels one -o build/tests/rep_bad.html", M);
  CHECK(th_run("build/tests", cmd) == 2, "--labels with one name for two sets: exit 2");
  CHECK(fopen("build/tests/rep_bad.html", "r") == NULL, "no report written on failure");
}

/* two parameter sets side by side */
static void compare(const char* M) {
  char* html = compare_report(M);
  if (html) {
    compare_tables(html);
    sim_errors(html, "build/tests/rep_cons_metrics.csv");
    compare_verdicts(html);
    compare_links(html);
    free(html);
  }
  compare_refused(M);
}

/* one set: every section, 14 inline SVG plots with labelled axes */
static void single_sections(const char* html) {
  const char* sections[] = {"id=\"model\"", "id=\"identifiability\"", "id=\"parameters\"", "id=\"log1\"",
                            "<h3>Data quality</h3>", "<h3>Torque prediction</h3>", "id=\"physical\"",
                            "smallest eigenvalue"};
  for (int i = 0; i < 8; i++) CHECK(strstr(html, sections[i]) != NULL, "section %s present", sections[i]);
  int nsvg = count(html, "<svg");
  /* bars + eigenvalue + 6 joints x (lines + histogram) */
  CHECK(nsvg == 2 + 2 * 6, "%d inline SVG plots (expected 14)", nsvg);
  char* text = visible_text(html);
  /* one unit typography: N·m, kg·m² (superscript), as in the tables */
  const char* labels[] = {"torque [N\xc2\xb7m]", "time [s]", "residual [N\xc2\xb7m]", "measured", "predicted",
                          "joint 3: measured and predicted torque", "\xce\xbbmin [kg\xc2\xb7m2]"};
  for (int i = 0; i < 7; i++) CHECK(strstr(text, labels[i]) != NULL, "plot text '%s' (axes, units, legends)", labels[i]);
  free(text);
}

/* the group of the identifiability section that holds the standard
 * parameter name as a whole word in a parameters cell: 0 not
 * identifiable, 1 only in combination, 2 alone, 3 held; -1 if none, -2 if more
 * than one cell holds it */
static int ident_group_of(const char* sec, const char* end, const char* name) {
  static const char* head[4] = {"<b>Not identifiable</b>", "<b>Identifiable only in combination</b>",
                                "<b>Identifiable alone</b>", "<b>Held, not estimated</b>"};
  int g = -1;
  size_t L = strlen(name);
  for (const char* p = sec; (p = strstr(p, name)) && p < end; p++) {
    if (!(p[-1] == '>' || p[-1] == ' ') || !(p[L] == ',' || p[L] == '<')) continue;
    const char* cell = p;
    while (cell > sec && strncmp(cell, "<td", 3)) cell--;
    if (strncmp(cell, "<td class=\"l\">", 14)) continue;   /* a parameters cell, not a base parameter link */
    int k = -1;
    for (int h = 0; h < 4; h++) {
      const char* at = strstr(sec, head[h]);
      if (at && at < p && (k < 0 || at > strstr(sec, head[k]))) k = h;
    }
    if (g != -1) return -2;
    g = k;
  }
  return g;
}

/* every standard parameter once in the identifiability tables, in the
 * status `dynid base` gives it (the status does not depend on the set
 * chosen: it is whether the parameter's unit vector lies in, meets or is
 * orthogonal to the row space of B); no raw '#' lines */
static void ident_table(const char* html, const char* M) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "./dynid base %s --friction", M);
  CHECK(th_run("build/tests", cmd) == 0, "dynid base %s --friction", M);
  char* base = th_read_file("build/tests/stdout");
  const char* sec = strstr(html, "<h2 id=\"identifiability\">");
  const char* end = sec ? strstr(sec, "<h2") : NULL;
  end = end ? strstr(end + 1, "<h2") : NULL;
  int n = 0, right = 0;
  for (char* line = base ? strtok(base, "\n") : NULL; line && sec && end; line = strtok(NULL, "\n")) {
    char name[32], rest[64];
    if (strncmp(line, "#   ", 4) || sscanf(line + 4, "%31[^:]: %63[^\n]", name, rest) != 2) continue;
    int want = !strncmp(rest, "not identifiable", 16) ? 0 : !strncmp(rest, "identifiable only", 17) ? 1
             : !strncmp(rest, "held at ", 8) ? 3 : 2;
    int got = ident_group_of(sec, end, name);
    n++;
    right += got == want;
    if (got != want) fprintf(stderr, "  %s: group %d, dynid base says %d\n", name, got, want);
  }
  CHECK(n == 84 && right == n, "identifiability: %d of %d standard parameters once, in dynid base's status", right, n);
  CHECK(sec && end && !memmem(sec, (size_t)(end - sec), "#   ", 4), "identifiability: no raw '#' lines");
  free(base);
}

/* the identification summary's rows: quantity, unit, value from the
 * PARAMS header (training error with %, residual rms with N m); the
 * data-quality line counts the test log's data rows (counted here) */
static void summary_tables(const char* html) {
  const char* p = th_slurp("build/tests/rep_params.csv");
  const char* e = p ? strstr(p, "# relative error all joints [%]: ") : NULL;
  char want[256];
  snprintf(want, sizeof want, "<td class=\"t\">relative error, all joints</td><td class=\"u\">%%</td><td class=\"t\">%.*s</td>",
           e ? (int)strcspn(e + 33, "\n") : 0, e ? e + 33 : "");
  CHECK(e && strstr(html, want), "identification summary row '%s'", want);
  CHECK(strstr(html, "<td class=\"t\">residual rms, joints 1..n</td><td class=\"u\">N&#183;m</td>") != NULL,
        "identification summary: residual rms in N·m");
  FILE* f = fopen("build/tests/rep_test.csv", "r");
  char line[4096];
  long rows = -1;   /* the header */
  while (f && fgets(line, sizeof line, f)) rows += line[0] != '#' && line[0] != '\n';
  if (f) fclose(f);
  snprintf(want, sizeof want, "<p>%ld rows read, 0 dropped, ", rows);
  CHECK(rows > 0 && strstr(html, want), "data quality: '%s'", want);
  CHECK(!strstr(html, "<pre class=\"quality\">") && !strstr(html, "overflow-x"), "no raw or scrolling boxes");
}

/* one set: each "joint,rms,rel,r2" row of validate appears as a table
 * row; every PARAMS value after its name; the summary first, provenance */
static void single_tables(const char* html) {
  FILE* f = fopen("build/tests/rep_metrics.csv", "r");
  char line[512];
  int rows = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || !strncmp(line, "joint,", 6)) continue;
    char a[40], b[40], c[40], d[40], want[256];
    if (sscanf(line, "%39[^,],%39[^,],%39[^,],%39s", a, b, c, d) != 4) continue;
    char cells[4][40] = {"", "", "", ""}, rc[128];
    snprintf(cells[1], 40, "%s", b); snprintf(cells[2], 40, "%s", c); snprintf(cells[3], 40, "%s", d);
    metric_cells(cells, rc, sizeof rc);
    snprintf(want, sizeof want, "<tr><td>%s</td>%s</tr>", a, rc);
    CHECK(strstr(html, want) != NULL, "validate's row '%s' in the report", want);
    rows++;
  }
  if (f) fclose(f);
  CHECK(rows == 7, "validate gave 6 joints and 'all' (%d rows)", rows);
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
  single_sections(html);
  single_tables(html);
  ident_table(html, M);
  summary_tables(html);
  free(html);
  compare(M);
  return test_report();
}
