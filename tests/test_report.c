/* dynid tests: the HTML report.
 *  - well-formed XML (xmllint --noout), so any browser parses it alike;
 *  - every section is present (model, identifiability, parameters, each
 *    held-out log with data quality and torque prediction, physical
 *    consistency) and every plot is an inline <svg>;
 *  - its metrics table holds exactly the numbers `dynid validate` prints on
 *    the same model, parameters and log (the report must not recompute
 *    them differently);
 *  - its parameter table holds the PARAMS file's values.
 * The data: a PUMA 560 log simulated with noise, identified by dynid. */
#include "testhelp.h"
#include <string.h>
#include <sys/wait.h>

static char* slurp(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  s[n] = 0;
  fclose(f);
  return s;
}

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
  int r = system(cmd);
  CHECK(r == 0, "simulate, identify, validate and report (status %d)", r);
  if (r) return test_report();
  r = system("xmllint --noout build/tests/rep.html 2>/dev/null");
  CHECK(r == 0, "the report is well-formed XML (xmllint status %d)", WEXITSTATUS(r));
  char* html = slurp("build/tests/rep.html");
  CHECK(html != NULL, "report readable");
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

  /* parameters: each PARAMS value appears (as %.6g) */
  f = fopen("build/tests/rep_params.csv", "r");
  int np = 0, found = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || !strncmp(line, "name,", 5)) continue;
    char name[64], want[128];
    double v;
    if (sscanf(line, "%63[^,],%lf", name, &v) != 2) continue;
    np++;
    snprintf(want, sizeof want, ">%s</td><td>%.6g</td>", name, v);
    found += strstr(html, want) != NULL;
  }
  if (f) fclose(f);
  CHECK(np > 0 && found == np, "all %d parameters in the report's table (%d found)", np, found);
  free(html);
  return test_report();
}
