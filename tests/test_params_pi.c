/* SPDX-License-Identifier: MIT */
/* dynid tests: the standard parameters a PARAMS file carries ("#! pi" lines).
 *  - writer: without pi the bytes are those of the format as documented
 *    (comment lines, header, rows with %.17g numbers and empty std fields),
 *    built here by hand; with pi the same text with the note line and one
 *    "#! pi,NAME,VALUE" line per standard parameter before the header;
 *  - round trip with pi: pi, values, std (NaN: empty field), B and the
 *    comment (without the #! lines and the note) come back bit-exactly,
 *    dyi_params_realise returns pi itself; the lines may come in any order;
 *    another pi with the same B pi (a parameter the base set does not see)
 *    is accepted;
 *  - reader errors, each one line "FILE:ROW:COL: ..." at the exact place:
 *    unknown directive, unknown name, duplicate, missing, not a number,
 *    a field missing or too many, a directive after the header, and a pi
 *    whose B pi does not reproduce the values;
 *  - the rule of the poorly identified list (dyi_ident_class): fine, poor,
 *    tiny, held by a bound (std NaN), and its lines;
 *  - the program: a PARAMS file whose realisation P beta has links of mass
 *    zero, carrying consistent standard parameters (the nominal Panda's):
 *    `dynid validate` says "consistent (certified)" with no INVALID link
 *    and the same torque metrics as the file without the #! pi lines (same
 *    beta); without them it still prints the P beta realisation and its
 *    INVALID links. `dynid id` and `dynid inertia --params` give the
 *    library's RNEA and CRBA on pi; `dynid report` calls the set certified
 *    consistent with no INVALID link; on the training log of `dynid
 *    identify` the report's poorly identified lines are the terminal's. */
#include "testmodels.h"
#include "ident/base.h"
#include "ident/estimate.h"
#include "ident/params.h"
#include "reports/cli.h"
#include <string.h>
#include <unistd.h>

/* x as %.17g, -0 as 0 (the format's numbers) */
static void num17(FILE* f, double x) { fprintf(f, "%.17g", x == 0 ? 0.0 : x); }

/* The PARAMS text of b with values v, std sd (NaN: empty), comment lines
 * and, if pi, the note and #! pi lines: the format spelled out here,
 * independent of dyi_params_write. Caller frees. */
static char* expected_text(const dyModel* m, const dyiBase* b, const double* v, const double* sd,
                           const char* comment, const double* pi) {
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  for (const char* s = comment; *s;) {
    size_t L = strcspn(s, "\n");
    fprintf(f, "# %.*s\n", (int)L, s);
    s += L + (s[L] == '\n');
  }
  if (pi) {
    fprintf(f, "# %s\n", DYI_PARAMS_PI_NOTE);
    for (int k = 0; k < dy_npar(m); k++) {
      char nm[32];
      dy_parname(m, k, nm, sizeof nm);
      fprintf(f, "#! pi,%s,", nm);
      num17(f, pi[k]);
      fputc('\n', f);
    }
  }
  fputs("name,value,std,rel_std_pct,expression\n", f);
  for (int i = 0; i < b->nb; i++) {
    char expr[8192];
    dyi_base_expr(m, b, i, expr, sizeof expr);
    fprintf(f, "%s,", b->name[i]);
    num17(f, v[i]);
    fputc(',', f);
    if (isfinite(sd[i])) {
      num17(f, sd[i]);
      fputc(',', f);
      if (v[i] != 0) num17(f, 100 * sd[i] / fabs(v[i]));
    } else fputc(',', f);
    fprintf(f, ",%s\n", expr);
  }
  fclose(f);
  return buf;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* beta = B pi for set b */
static void base_of(const dyiBase* b, const double* pi, double* beta) {
  for (int i = 0; i < b->nb; i++) {
    beta[i] = 0;
    for (int k = 0; k < b->npar; k++) beta[i] += b->B[(size_t)i * b->npar + k] * pi[k];
  }
}

/* ------------------------------------------------ writer and round trip */
static void roundtrip(dyModel* m, const char* set, int fr) {
  char what[96], err[DY_ERRSZ], path[] = "/tmp/dynid_test_pi_XXXXXX";
  snprintf(what, sizeof what, "%d joints [%s%s]", m->n, set, fr ? ", friction" : "");
  dyiBase* b = dyi_base_make(m, dyi_base_set_parse(set, NULL, 0), fr, err, sizeof err);
  CHECK(b != NULL, "%s: %s", what, err);
  if (!b) return;
  const int nb = b->nb, np = dy_npar(m);
  double* pi = malloc(sizeof(double) * (size_t)np);
  double* beta = malloc(sizeof(double) * (size_t)nb);
  double* sd = malloc(sizeof(double) * (size_t)nb);
  for (int k = 0; k < np; k++) pi[k] = m->par[k] * (1 + th_uniform(-0.1, 0.1));
  base_of(b, pi, beta);
  for (int i = 0; i < nb; i++) sd[i] = i % 4 == 1 ? NAN : th_uniform(0, 0.1);   /* NaN: held by a bound */
  const char* comment = "model: test\nset: test";
  int fd = mkstemp(path);
  FILE* f = fdopen(fd, "w");
  /* without pi: the documented format, byte for byte */
  CHECK(dyi_params_write(f, m, b, beta, sd, comment, NULL, NULL) == 0, "%s: write without pi", what);
  fclose(f);
  char* got = th_read_file(path);
  char* want = expected_text(m, b, beta, sd, comment, NULL);
  CHECK(got && !strcmp(got, want), "%s: without pi the file is the format as before:\n%.300s\nvs\n%.300s", what,
        got ? got : "", want);
  free(got); free(want);
  /* with pi: the note and the #! pi lines before the header */
  f = fopen(path, "w");
  CHECK(dyi_params_write(f, m, b, beta, sd, comment, pi, NULL) == 0, "%s: write with pi", what);
  fclose(f);
  got = th_read_file(path);
  want = expected_text(m, b, beta, sd, comment, pi);
  CHECK(got && !strcmp(got, want), "%s: with pi: note, #! pi lines, header, rows", what);
  free(got); free(want);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p != NULL, "%s: read with pi: %s", what, err);
  if (p) {
    int same = p->base->nb == nb && p->pi && !memcmp(p->pi, pi, sizeof(double) * (size_t)np) &&
               !memcmp(p->value, beta, sizeof(double) * (size_t)nb);
    for (int i = 0; same && i < nb; i++) same = isnan(sd[i]) ? isnan(p->std[i]) : p->std[i] == sd[i];
    for (int i = 0; same && i < nb; i++)
      for (int k = 0; k < b->npar; k++) same &= p->base->B[(size_t)i * b->npar + k] == b->B[(size_t)i * b->npar + k];
    CHECK(same, "%s: pi, values, std (empty: NaN) and B round-trip bit-exactly", what);
    CHECK(!strcmp(p->comment, comment), "%s: the comment is kept as written, without the #! lines: '%s'", what,
          p->comment);
    double* par = malloc(sizeof(double) * (size_t)np);
    dyi_params_realise(m, p, par);
    CHECK(!memcmp(par, pi, sizeof(double) * (size_t)np), "%s: dyi_params_realise gives the file's pi", what);
    free(par);
  }
  dyi_params_free(p);
  unlink(path);
  free(pi); free(beta); free(sd);
  dyi_base_free(b);
}

/* ------------------------------------------------------- reader errors */
/* text with line `line` (1-based) replaced by repl ("" deletes it; NULL
 * keeps it) and add appended after the last line */
static char* edit_line(const char* text, int line, const char* repl, const char* add) {
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  int k = 1;
  for (const char* s = text; *s; k++) {
    size_t L = strcspn(s, "\n");
    if (k != line || !repl) fprintf(f, "%.*s\n", (int)L, s);
    else if (*repl) fprintf(f, "%s\n", repl);
    s += L + (s[L] == '\n');
  }
  if (add) fputs(add, f);
  fclose(f);
  return buf;
}

/* the file must be refused with an error containing want, one line naming path */
static void refused(const char* path, const dyModel* m, const char* text, const char* want, const char* what) {
  char err[DY_ERRSZ];
  write_file(path, text);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(!p && strstr(err, want) && !strncmp(err, path, strlen(path)) && !strchr(err, '\n'),
        "%s: expected '%s', got '%s'", what, want, p ? "(accepted)" : err);
  dyi_params_free(p);
}

/* B pi against the values: a parameter the set sees, changed by 1e-6 of its
 * size, is refused; one it does not see (another realisation of the same
 * beta) is accepted and used as it is */
static void check_realisation(const char* path, const dyModel* m, const dyiBase* b, const char* text) {
  char err[DY_ERRSZ], want[256];
  int kseen = -1, kblind = -1;
  for (int k = 0; k < b->npar; k++) {
    double c = 0;
    for (int i = 0; i < b->nb; i++) c = fmax(c, fabs(b->B[(size_t)i * b->npar + k]));
    if (c > 0.5 && kseen < 0) kseen = k;
    if (c == 0 && kblind < 0) kblind = k;
  }
  CHECK(kseen >= 0 && kblind >= 0, "the set sees a parameter (%d) and not another (%d)", kseen, kblind);
  if (kseen < 0 || kblind < 0) return;
  char nm[32], ln[128];
  dy_parname(m, kseen, nm, sizeof nm);
  snprintf(ln, sizeof ln, "#! pi,%s,%.17g", nm, m->par[kseen] + 1e-6 * fmax(1, fabs(m->par[kseen])));
  char* t = edit_line(text, 4 + kseen, ln, NULL);
  snprintf(want, sizeof want, "%s: the standard parameters (#! pi lines) do not reproduce the base parameters (", path);
  refused(path, m, t, want, "B pi does not reproduce the values"); free(t);
  dy_parname(m, kblind, nm, sizeof nm);
  snprintf(ln, sizeof ln, "#! pi,%s,%.17g", nm, m->par[kblind] + 0.5);
  t = edit_line(text, 4 + kblind, ln, NULL);
  write_file(path, t);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p && p->pi[kblind] == m->par[kblind] + 0.5, "a pi the base set cannot tell apart is accepted: %s",
        p ? "" : err);
  dyi_params_free(p);
  free(t);
}

/* any order: the np #! pi lines (after 3 lines) of text reversed read the same pi */
static void check_reversed(const char* path, const dyModel* m, const char* text) {
  const int np = dy_npar(m);
  char err[DY_ERRSZ];
  char* r = NULL;
  size_t rl = 0;
  FILE* f = open_memstream(&r, &rl);
  const char* s = text;
  for (int k = 1; k <= 3; k++) { size_t L = strcspn(s, "\n") + 1; fwrite(s, 1, L, f); s += L; }
  const char* lines[64];
  for (int k = 0; k < np; k++) { lines[k] = s; s += strcspn(s, "\n") + 1; }
  for (int k = np - 1; k >= 0; k--) fwrite(lines[k], 1, strcspn(lines[k], "\n") + 1, f);
  fputs(s, f);
  fclose(f);
  write_file(path, r);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p && !memcmp(p->pi, m->par, sizeof(double) * (size_t)np), "the #! pi lines in reverse order: %s",
        p ? "" : err);
  dyi_params_free(p);
  free(r);
}

/* the edits of a valid file that must be refused: line `line` replaced by
 * repl ("" deletes it; NULL keeps it), add appended; the error contains want,
 * after "PATH" when at */
struct bad_pi { int line; const char* repl; const char* add; int at; const char* want; const char* what; };

static void reader_errors(void) {
  const char* path = "/tmp/dynid_test_pi_bad.csv";
  dyModel* m = th_random_model(2, 0, 0, 0);
  char err[DY_ERRSZ], want[256], dup[128];
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b != NULL, "khalil: %s", err);
  if (!b) { dy_free_model(m); return; }
  double beta[64], sd[64];
  base_of(b, m->par, beta);
  for (int i = 0; i < b->nb; i++) sd[i] = 0.01;
  /* lines: 1-2 comment, 3 the note, 4..31 #! pi (XX1 first), 32 header; 28 parameters */
  char* text = expected_text(m, b, beta, sd, "model: test\nset: test", m->par);
  write_file(path, text);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  CHECK(p && p->pi, "the valid file reads: %s", p ? "" : err);
  dyi_params_free(p);
  snprintf(dup, sizeof dup, "#! pi,XX1,%.17g", m->par[0]);
  const struct bad_pi cases[] = {
    {4, "#! gravity,0,0,-9.81", NULL, 1, ":4:4: unknown directive 'gravity' (pi)", "unknown directive"},
    {4, "#! pi,XX3,1", NULL, 1, ":4:7: 'XX3' is not a standard parameter of the 2-joint model", "unknown name"},
    {5, dup, NULL, 1, ":5:7: second value of XX1 (the first is on line 4)", "duplicate"},
    {5, "", NULL, 1, ":30: the #! pi lines give 27 of the 28 standard parameters: XY1 is missing", "missing"},
    {4, "#! pi,XX1,abc", NULL, 1, ":4:11: value of XX1: not a finite number: 'abc'", "not a number"},
    {4, "#! pi,XX1,nan", NULL, 0, "value of XX1: not a finite number: 'nan'", "NaN"},
    {4, "#! pi,XX1,", NULL, 0, "value of XX1: not a finite number: ''", "empty value"},
    {4, "#! pi,XX1", NULL, 1, ":4:10: expected ',' and the value", "no value"},
    {4, "#! pi,XX1,1,2", NULL, 1, ":4:12: more than a name and a value", "a field too many"},
    {4, NULL, "#! pi,XX1,1\n", 0, "directive after the header (line 32)", "after the header"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char* t = edit_line(text, cases[c].line, cases[c].repl, cases[c].add);
    snprintf(want, sizeof want, "%s%s", cases[c].at ? path : "", cases[c].want);
    refused(path, m, t, want, cases[c].what);
    free(t);
  }
  check_realisation(path, m, b, text);
  check_reversed(path, m, text);
  free(text);
  unlink(path);
  dyi_base_free(b);
  dy_free_model(m);
}

/* ---------------------------------------- the poorly identified rule */
static void ident_rule(void) {
  CHECK(dyi_ident_class(1, 0.05, 1) == DYI_ID_FINE, "5 %% relative std: fine");
  CHECK(dyi_ident_class(1, 0.5, 1) == DYI_ID_POOR, "50 %% relative std, std 0.5 of the scale: poor");
  CHECK(dyi_ident_class(1e-6, 1e-6, 1) == DYI_ID_TINY, "100 %% relative std, std 1e-6 of the scale: tiny");
  CHECK(dyi_ident_class(0, 1e-2, 1) == DYI_ID_POOR, "a zero value with a std: poor");
  CHECK(dyi_ident_class(1, NAN, 1) == DYI_ID_BOUND, "no std: held by a bound");
  const char* names[4] = {"ZZ1R", "MX2", "MY2", "XX3R"};
  double v[4] = {1, 1, 1e-6, 2}, sd[4] = {0.01, 0.5, 1e-6, NAN}, sc[4] = {1, 1, 1, 1};
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  cli_ident_lines(f, 4, names, v, sd, sc);
  fclose(f);
  CHECK(buf && strstr(buf, "poorly identified: 1 of 4 base parameters") && strstr(buf, ": MX2 (50 %)") &&
        strstr(buf, "not flagged: 1 parameter ") &&
        strstr(buf, "held by a bound: 1 base parameter without a standard deviation (at a bound of the "
                    "consistent estimate): XX3R\n") && !strstr(buf, "XX3R ("),
        "the lines: '%s'", buf ? buf : "");
  free(buf);
}

/* -------------------------------------------------------- the program */
static char dir[] = "/tmp/dynid_test_pi_dir_XXXXXX";

static int run(const char* fmt, const char* a) {
  char cmd[2048], c2[2048];
  snprintf(c2, sizeof c2, fmt, a, a, a, a, a, a);
  snprintf(cmd, sizeof cmd, "%s", c2);
  return th_run(dir, cmd);
}

/* the lines of text not starting with '#' (the metrics CSV), joined */
static void csv_rows(const char* text, char* out, size_t sz) {
  out[0] = 0;
  size_t L = 0;
  for (const char* s = text; s && *s;) {
    size_t n = strcspn(s, "\n");
    if (*s != '#' && L + n + 2 < sz) { memcpy(out + L, s, n); L += n; out[L++] = '\n'; out[L] = 0; }
    s += n + (s[n] == '\n');
  }
}

/* the lines of text beginning with one of the list's openings */
static void ident_part(const char* text, char* out, size_t sz) {
  static const char* heads[] = {"poorly identified: ", "identified: ", "not flagged: ", "held by a bound: "};
  out[0] = 0;
  size_t L = 0;
  for (const char* s = text; s && *s;) {
    size_t n = strcspn(s, "\n");
    for (int h = 0; h < 4; h++)
      if (!strncmp(s, heads[h], strlen(heads[h])) && L + n + 2 < sz) {
        memcpy(out + L, s, n); L += n; out[L++] = '\n'; out[L] = 0;
      }
    s += n + (s[n] == '\n');
  }
}

/* dir/name with the PARAMS of b: values beta, std sd, the #! pi lines if pi */
static void write_params(const char* name, const dyModel* m, const dyiBase* b, const double* beta,
                         const double* sd, const double* pi) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  dyi_params_write(f, m, b, beta, sd, "dynid test", pi, NULL);
  fclose(f);
}

/* p_pi.csv (with pi) and p.csv (without) of the nominal links; the
 * realisation P beta of p.csv has inconsistent links, pi none */
static void write_pi_files(const dyModel* m, const dyiBase* b, const double* pi) {
  const int n = m->n;
  char err[DY_ERRSZ], path[512];
  double beta[14 * DY_MAXJ], sd[14 * DY_MAXJ], par[14 * DY_MAXJ];
  base_of(b, pi, beta);
  for (int i = 0; i < b->nb; i++) sd[i] = 1e-3 * fabs(beta[i]) + 1e-6;
  write_params("p_pi.csv", m, b, beta, sd, pi);
  write_params("p.csv", m, b, beta, sd, NULL);
  snprintf(path, sizeof path, "%s/p.csv", dir);
  dyiParams* p = dyi_params_read(path, m, err, sizeof err);
  int bad = 0;
  if (p) {
    dyi_params_realise(m, p, par);
    for (int j = 0; j < n; j++) bad += !dy_link_consistent(par + DY_NPAR_LINK * j);
  }
  CHECK(p && bad > 0, "P beta has inconsistent links (%d), pi none", bad);
  dyi_params_free(p);
  for (int j = 0; j < n; j++) CHECK(dy_link_consistent(pi + DY_NPAR_LINK * j), "nominal link %d consistent", j + 1);
}

/* validate with pi: certified consistent, no P beta; without: P beta and its
 * INVALID links; the same torque metrics */
static void check_validate(void) {
  char path[512];
  int r = run("./dynid simulate datasets/models/panda.csv fourier --duration 4 --rate 200 --noise 0.05 -o %s/log.csv",
              dir);
  CHECK(r == 0, "simulate (%d)", r);
  r = run("./dynid validate datasets/models/panda.csv %s/p_pi.csv %s/log.csv --horizon 0.05 -o %s/v_pi.csv", dir);
  CHECK(r == 0, "validate with pi (%d)", r);
  r = run("./dynid validate datasets/models/panda.csv %s/p.csv %s/log.csv --horizon 0.05 -o %s/v.csv", dir);
  CHECK(r == 0, "validate without pi (%d)", r);
  snprintf(path, sizeof path, "%s/v_pi.csv", dir);
  char* vpi = th_read_file(path);
  snprintf(path, sizeof path, "%s/v.csv", dir);
  char* v = th_read_file(path);
  if (vpi && v) {
    CHECK(strstr(vpi, "\n# physical consistency: consistent (certified): the PARAMS file carries physically "
                      "consistent standard parameters (every link's pseudo-inertia positive semi-definite)\n"),
          "validate with pi: the verdict line:\n%s", vpi);
    CHECK(!strstr(vpi, "INVALID") && !strstr(vpi, "P beta") && !strstr(vpi, "closest"),
          "validate with pi: no INVALID link, no realisation P beta, no search");
    CHECK(strstr(vpi, "#   link 7: m ") && strstr(vpi, "m from O_7, principal moments about it"),
          "validate with pi: a line per link with mass, centre of mass and principal moments");
    CHECK(strstr(vpi, "positive definite at every sample") && strstr(vpi, "# sim joint 7"),
          "validate with pi: inertia matrix and simulation on pi");
    CHECK(strstr(v, "# given realisation P beta:") && strstr(v, "INVALID"),
          "validate without pi: the realisation P beta and its invalid links, as before");
    static char a[4096], c[4096];
    csv_rows(vpi, a, sizeof a);
    csv_rows(v, c, sizeof c);
    CHECK(a[0] && !strcmp(a, c), "the same torque metrics with and without pi (same beta):\n%s\nvs\n%s", a, c);
  }
  free(vpi); free(v);
}

/* dir/states.csv: 3 random states (q, qd, qdd) of n joints, kept in S */
static void write_states(int n, double S[3][3][DY_MAXJ]) {
  char path[512];
  snprintf(path, sizeof path, "%s/states.csv", dir);
  FILE* f = fopen(path, "w");
  for (int j = 0; j < n; j++) fprintf(f, "%sq%d", j ? "," : "", j + 1);
  for (int j = 0; j < n; j++) fprintf(f, ",qd%d", j + 1);
  for (int j = 0; j < n; j++) fprintf(f, ",qdd%d", j + 1);
  fputc('\n', f);
  for (int s = 0; s < 3; s++) {
    th_random_state(n, S[s][0], S[s][1], S[s][2]);
    for (int k = 0; k < 3; k++) for (int j = 0; j < n; j++) fprintf(f, "%s%.17g", k || j ? "," : "", S[s][k][j]);
    fputc('\n', f);
  }
  fclose(f);
}

/* `dynid id` (inertia 0) or `dynid inertia` (1) --params p_pi.csv on the
 * states S: the library's RNEA or CRBA on pi */
static void check_id_params(const dyModel* m, dyData* d, const double* pi, double S[3][3][DY_MAXJ], int inertia) {
  const int n = m->n;
  char path[512];
  int r = run(inertia ? "./dynid inertia datasets/models/panda.csv %s/states.csv --params %s/p_pi.csv -o %s/out.csv"
                      : "./dynid id datasets/models/panda.csv %s/states.csv --params %s/p_pi.csv -o %s/out.csv", dir);
  snprintf(path, sizeof path, "%s/out.csv", dir);
  char* out = th_read_file(path);
  double worst = 0, scale = 1;
  int rows = 0;
  const char* s = out;   /* the provenance '#' lines, then the header */
  while (s && *s == '#') s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
  s = s ? strchr(s, '\n') : NULL;
  while (s && s[1] && rows < 3) {
    double want[DY_MAXJ * DY_MAXJ];
    if (inertia) dy_crba(m, d, pi, S[rows][0], want);
    else dy_rnea(m, d, pi, S[rows][0], S[rows][1], S[rows][2], want);
    char* e = (char*)s + 1;
    for (int k = 0; k < (inertia ? n * n : n); k++) {
      double x = strtod(e, &e);
      if (*e == ',') e++;
      worst = fmax(worst, fabs(x - want[k]));
      scale = fmax(scale, fabs(want[k]));
    }
    rows++;
    s = strchr(s + 1, '\n');
  }
  CHECK(r == 0 && rows == 3 && worst <= 1e-12 * scale, "%s --params with pi equals the library on pi: %.3g",
        inertia ? "inertia" : "id", worst);
  free(out);
}

/* a bad #! pi line: validate refuses it in one line, exit 1 */
static void check_bad_line(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/p_pi.csv", dir);
  char* txt = th_read_file(path);
  char* bad_txt = txt ? edit_line(txt, 3, "#! pi,XX1,x", NULL) : NULL;   /* XX1: after the comment and the note */
  snprintf(path, sizeof path, "%s/p_bad.csv", dir);
  if (bad_txt) write_file(path, bad_txt);
  int r = run("./dynid validate datasets/models/panda.csv %s/p_bad.csv %s/log.csv -o %s/v_bad.csv", dir);
  snprintf(path, sizeof path, "%s/stderr", dir);
  char* e = th_read_file(path);
  CHECK(r == 1 && e && strstr(e, "p_bad.csv:3:11: value of XX1: not a finite number: 'x'") && strchr(e, '\n') &&
        !strchr(e, '\n')[1], "validate refuses a bad #! pi line in one line: %s", e ? e : "");
  free(e); free(txt); free(bad_txt);
}

/* the report: certified consistent, every identified link valid */
static void check_report(void) {
  char path[512];
  int r = run("./dynid report datasets/models/panda.csv %s/p_pi.csv %s/log.csv -o %s/r.html", dir);
  CHECK(r == 0, "report with pi (%d)", r);
  snprintf(path, sizeof path, "%s/r.html", dir);
  char* html = th_read_file(path);
  CHECK(html && strstr(html, "certified consistent") && !strstr(html, "INVALID") &&
        strstr(html, "the parameters file carries physically consistent standard parameters") &&
        strstr(html, "the standard parameters the parameters file carries (the ones the estimate was solved as)"),
        "report with pi: certified consistent, the carried links, no INVALID");
  free(html);
}

/* the list lines of the report's k-th <pre class="poorly"> (one a set)
 * into out, the text as a reader sees it (&gt; is '>'); out unchanged if
 * there is none */
static void html_ident_part(const char* html, int k, char* out, size_t sz) {
  const char* pre = html ? strstr(html, "<pre class=\"poorly\">") : NULL;
  for (int i = 0; i < k && pre; i++) pre = strstr(pre + 1, "<pre class=\"poorly\">");
  const char* pe = pre ? strstr(pre, "</pre>") : NULL;
  if (!pre || !pe) return;
  char* part = strndup(pre + 20, (size_t)(pe - pre - 20));
  char* o = part;
  for (const char* c = part; *c; c++) {
    if (!strncmp(c, "&gt;", 4)) { *o++ = '>'; c += 3; }
    else if (!strncmp(c, "&lt;", 4)) { *o++ = '<'; c += 3; }
    else if (!strncmp(c, "&amp;", 5)) { *o++ = '&'; c += 4; }
    else *o++ = *c;
  }
  *o = 0;
  ident_part(part, out, sz);
  free(part);
}

/* the report's poorly identified lines are identify's terminal lines */
static void check_report_ident(void) {
  char path[512];
  int r = run("./dynid identify datasets/models/panda.csv %s/log.csv -o %s/p_id.csv", dir);
  snprintf(path, sizeof path, "%s/stderr", dir);
  char* term = th_read_file(path);
  static char tl[4096], hl[4096];
  ident_part(term, tl, sizeof tl);
  r |= run("./dynid report datasets/models/panda.csv %s/p_id.csv %s/log.csv -o %s/r2.html", dir);
  snprintf(path, sizeof path, "%s/r2.html", dir);
  char* h2 = th_read_file(path);
  html_ident_part(h2, 0, hl, sizeof hl);
  CHECK(r == 0 && strstr(tl, "identified: ") && !strcmp(tl, hl),
        "the report's list is identify's on its training log:\n%s\nvs\n%s", tl, hl);
  CHECK(strstr(tl, "poorly identified: "), "the short log leaves some parameters poorly identified:\n%s", tl);
  free(h2);
  /* two sets on the same rows and columns (the second takes the first's
   * scales, not computed again) and a set with joint friction (other
   * columns: its own): each list is its identify run's */
  static const struct { const char* opt; const char* name; } second[] = {
    {"--consistent", "p_cons.csv"}, {"--friction", "p_fric.csv"}};
  for (int k = 0; k < 2; k++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "./dynid identify datasets/models/panda.csv %%s/log.csv %s -o %%s/%s", second[k].opt,
             second[k].name);
    int r2 = run(cmd, dir);
    snprintf(path, sizeof path, "%s/stderr", dir);
    char* t2 = th_read_file(path);
    static char tl2[4096], hl1[4096], hl2[4096];
    ident_part(t2, tl2, sizeof tl2);
    snprintf(cmd, sizeof cmd, "./dynid report datasets/models/panda.csv %%s/p_id.csv %%s/log.csv --compare %%s/%s "
             "-o %%s/r3.html", second[k].name);
    r2 |= run(cmd, dir);
    snprintf(path, sizeof path, "%s/r3.html", dir);
    char* h3 = th_read_file(path);
    hl1[0] = hl2[0] = 0;
    html_ident_part(h3, 0, hl1, sizeof hl1);
    html_ident_part(h3, 1, hl2, sizeof hl2);
    CHECK(r2 == 0 && !strcmp(tl, hl1) && strstr(tl2, "identified: ") && !strcmp(tl2, hl2),
          "report --compare (%s): each set's list is its identify run's:\n%s\nvs\n%s\nand\n%s\nvs\n%s",
          second[k].opt, tl, hl1, tl2, hl2);
    free(t2); free(h3);
  }
  free(term);
}

/* the program on the Panda's PARAMS file with and without the nominal links as pi */
static void program(void) {
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
  const char* M = "datasets/models/panda.csv";
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  CHECK(dy_load_model(M, NULL, &m, err, sizeof err) == 0, "load %s: %s", M, err);
  if (!m) return;
  dyiBase* b = dyi_base_make(m, DYI_SET_KHALIL, 0, err, sizeof err);
  CHECK(b != NULL, "khalil: %s", err);
  if (!b) { dy_free_model(m); return; }
  /* pi: the nominal links (consistent), no joint parameters */
  double pi[14 * DY_MAXJ] = {0}, S[3][3][DY_MAXJ];
  memcpy(pi, m->par, sizeof(double) * DY_NPAR_LINK * (size_t)m->n);
  write_pi_files(m, b, pi);
  check_validate();
  /* id and inertia --params: RNEA and CRBA on pi */
  write_states(m->n, S);
  dyData* d = dy_make_data(m);
  for (int inertia = 0; inertia < 2; inertia++) check_id_params(m, d, pi, S, inertia);
  dy_free_data(d);
  check_bad_line();
  check_report();
  check_report_ident();
  char rm[600];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm)) {}
  dyi_base_free(b);
  dy_free_model(m);
}

int main(void) {
  for (int t = 0; t < 6; t++) {
    dyModel* m = th_random_model(2 + t, t % 3 == 1 ? 0.3 : 0, 0.5, t % 2);
    roundtrip(m, "khalil", t % 2);
    roundtrip(m, "qr", 1 - t % 2);
    dy_free_model(m);
  }
  reader_errors();
  ident_rule();
  program();
  return test_report();
}
