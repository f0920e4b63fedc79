/* SPDX-License-Identifier: MIT */
/* dynid program: option parsing, errors, model loading, progress and the
 * states reader shared by the subcommands (see cli.h). */
#include "core/io.h"
#include "reports/cli.h"
#include "core/util.h"
#include "ident/base.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const char* cli_opt(const cliArgs* c, const char* key) {
  for (int i = c->nopt - 1; i >= 0; i--)
    if (!strcmp(c->key[i], key)) return c->val[i];
  return NULL;
}

int cli_flag(const cliArgs* c, const char* key) {
  for (int i = 0; i < c->nopt; i++)
    if (!strcmp(c->key[i], key)) return 1;
  return 0;
}

static int in_list(const char* list, const char* key) {
  size_t k = strlen(key);
  for (const char* s = list; s && *s;) {
    const char* e = strchr(s, ',');
    size_t L = e ? (size_t)(e - s) : strlen(s);
    if (L == k && !strncmp(s, key, k)) return 1;
    s = e ? e + 1 : NULL;
  }
  return 0;
}

/* cli.h: --lock JOINT=VALUE */
int cli_lock_value(const char* v, size_t* namelen, double* q) {
  const char* eq = v ? strrchr(v, '=') : NULL;
  if (!eq || eq == v || cli_doubles(eq + 1, q, 1) || !isfinite(*q)) return -1;
  *namelen = (size_t)(eq - v);
  return 0;
}

static int is_urdf(const char* path) {
  size_t L = strlen(path);
  return L >= 5 && !strcasecmp(path + L - 5, ".urdf");
}

#define COMMON_OPTS "dh,base,tip,gravity,lock,snap,o,quiet"

/* the command whose options were checked: usage errors point at its help */
static const char* usage_cmd;

int cli_quiet;

int cli_check(const cliArgs* c, const char* allowed, int minpos, int maxpos, const char* usage) {
  cli_quiet = cli_flag(c, "quiet");
  if (c->help) {
    char all[1024];
    snprintf(all, sizeof all, "%s,%s", allowed, COMMON_OPTS);
    cli_help(stdout, c->cmd, all);
    return 3;
  }
  for (int i = 0; i < c->nopt; i++)
    if (!in_list(COMMON_OPTS, c->key[i]) && !in_list(allowed, c->key[i])) {
      char all[1024];
      snprintf(all, sizeof all, "%s,%s", allowed, COMMON_OPTS);
      const char* near = cli_suggest(c->key[i], all);
      char hint[128] = "";
      if (near) snprintf(hint, sizeof hint, " (did you mean '%s%s'?)", strlen(near) == 1 ? "-" : "--", near);
      fprintf(stderr, "dynid: %s: unknown option '%s%s'%s\nusage: %s\n(dynid %s --help lists every option)\n",
              c->cmd, strlen(c->key[i]) == 1 ? "-" : "--", c->key[i], hint, usage, c->cmd);
      return 2;
    }
  usage_cmd = c->cmd;
  if (c->npos < minpos || c->npos > maxpos) {
    /* the arguments as the usage line names them: the words after "dynid CMD" up to the first option */
    char args[200] = "";
    const char* u = strstr(usage, c->cmd);
    u = u ? u + strlen(c->cmd) : usage;
    const char* e = strstr(u, " [-");
    if (!e) e = strstr(u, " -");
    int L = e ? (int)(e - u) : (int)strlen(u);
    while (L > 0 && u[0] == ' ') { u++; L--; }
    snprintf(args, sizeof args, "%.*s", L, u);
    fprintf(stderr, "dynid: %s: takes %s; got %d argument%s\nusage: %s\n(dynid %s --help lists every option)\n",
            c->cmd, args, c->npos, c->npos == 1 ? "" : "s", usage, c->cmd);
    return 2;
  }
  for (int i = 0; i < c->nopt; i++) {
    if (strcmp(c->key[i], "lock")) continue;
    size_t len;
    double q;
    if (cli_lock_value(c->val[i], &len, &q)) {
      fprintf(stderr, "dynid: %s: --lock: expected JOINT=VALUE (VALUE in rad, or m for a prismatic joint), "
              "got '%s'\nusage: %s\n", c->cmd, c->val[i] ? c->val[i] : "", usage);
      return 2;
    }
    if (!c->npos || !is_urdf(c->pos[0])) {
      fprintf(stderr, "dynid: %s: --lock needs a URDF model (a file ending in .urdf)\nusage: %s\n", c->cmd, usage);
      return 2;
    }
  }
  return 0;
}

int cli_doubles(const char* s, double* out, int n) {
  if (!s) return -1;
  for (int i = 0; i < n; i++) {
    char* e;
    errno = 0;
    out[i] = strtod(s, &e);
    if (e == s || errno == ERANGE || out[i] != out[i]) return -1;
    s = e;
    if (i < n - 1) { if (*s != ',') return -1; s++; }
  }
  return *s ? -1 : 0;
}

int cli_int(const cliArgs* c, const char* key, long def, long* out) {
  const char* v = cli_opt(c, key);
  if (!v) { *out = def; return 0; }
  char* e;
  errno = 0;
  *out = strtol(v, &e, 10);
  if (e == v || *e || errno) {
    fprintf(stderr, "dynid: --%s: expected an integer, got '%s'\n", key, v);
    return -1;
  }
  return 0;
}

int cli_double(const cliArgs* c, const char* key, double def, double* out) {
  const char* v = cli_opt(c, key);
  if (!v) { *out = def; return 0; }
  if (cli_doubles(v, out, 1)) {
    fprintf(stderr, "dynid: --%s: expected a number, got '%s'\n", key, v);
    return -1;
  }
  return 0;
}

int cli_fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dynid: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

int cli_usage(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dynid: ", stderr);
  vfprintf(stderr, fmt, ap);
  if (usage_cmd) fprintf(stderr, "\n(dynid %s --help lists every option)\n", usage_cmd);
  else fputs("\n(dynid --help lists the commands)\n", stderr);
  va_end(ap);
  return 2;
}

void cli_progress_of(const char* what, long long done, const char* units, long long part, long long whole,
                     int final) {
  const double frac = whole > 0 ? (double)part / (double)whole : -1;
  static double t0, last;
  static int started;
  if (!isatty(2) || cli_quiet) return;
  const double now = dy_now_s();
  if (!started) { t0 = now; last = now; started = 1; }
  if (!final && now - last < 0.5) return;
  last = now;
  const double el = now - t0;
  if (frac > 0 && frac <= 1 && !final) {   /* a bar and the time left at the pace so far */
    char bar[21];
    const int k = (int)(20 * frac);
    for (int i = 0; i < 20; i++) bar[i] = i < k ? '#' : '.';
    bar[20] = 0;
    fprintf(stderr, "\r%s [%s] %3.0f %%, %lld %s, %.0f s left   ", what, bar, 100 * frac, done, units,
            el * (1 - frac) / frac);
  } else {
    /* the final line blanks the rest of a longer bar line before it */
    fprintf(stderr, "\r%s: %lld %s (%.0f/s)%s", what, done, units, el > 0 ? (double)done / el : 0.0,
            final ? "                              \n" : "   ");
  }
  if (final) started = 0;
}

void cli_progress(const char* what, long long done, const char* units, int final) {
  cli_progress_of(what, done, units, 0, 0, final);
}

/* ------------------------------------------------------------ states */

struct cliStates_ {
  dyCsv* csv;
  int n, npre;
  int col[4][DY_MAXJ];
};

cliStates* cli_states_open(const char* path, int n, const char* const* pre, int npre,
                          char* err, int errsz) {
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return NULL;
  char** f; int nf;
  int r = dy_csv_next(csv, &f, &nf, err, errsz);
  if (r <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected a header with %s1..%s%d", path,
                         pre[0], pre[0], n);
    dy_csv_close(csv);
    return NULL;
  }
  cliStates* s = calloc(1, sizeof *s);
  if (!s) { dy_csv_close(csv); snprintf(err, (size_t)errsz, "out of memory"); return NULL; }
  s->csv = csv; s->n = n; s->npre = npre;
  for (int k = 0; k < npre; k++)
    for (int j = 0; j < n; j++) {
      char name[32];
      snprintf(name, sizeof name, "%s%d", pre[k], j + 1);
      s->col[k][j] = dy_csv_find(f, nf, name);
      if (s->col[k][j] < 0) {
        dy_errpos(err, errsz, path, dy_csv_line(csv), 0, "missing column '%s' in the header", name);
        cli_states_close(s);
        return NULL;
      }
    }
  return s;
}

int cli_states_next(cliStates* s, double* const* out, char* err, int errsz) {
  char** f; int nf;
  int r = dy_csv_next(s->csv, &f, &nf, err, errsz);
  if (r <= 0) return r;
  for (int k = 0; k < s->npre; k++)
    for (int j = 0; j < s->n; j++) {
      int col = s->col[k][j];
      if (col >= nf) {
        dy_errpos(err, errsz, dy_csv_path(s->csv), dy_csv_line(s->csv), nf + 1, "row has %d columns, expected at least %d", nf, col + 1);
        return -1;
      }
      if (dy_csv_double(s->csv, f[col], col, 0, &out[k][j], err, errsz)) return -1;
    }
  return 1;
}

long cli_states_line(const cliStates* s) { return dy_csv_line(s->csv); }

void cli_states_close(cliStates* s) {
  if (!s) return;
  dy_csv_close(s->csv);
  free(s);
}

int cli_kinds(const cliArgs* c, unsigned* keep) {
  char bad[40];
  if (dyi_friction_kinds(cli_opt(c, "friction"), keep, bad, sizeof bad))
    return cli_usage("%s: --friction=LIST takes joint-parameter kinds ia, fv, fc, fo (e.g. --friction=fv,fc,fo), "
                     "got '%s'", c->cmd, bad);
  return 0;
}

void cli_kinds_text(unsigned keep, char* buf, int bufsz) {
  static const char* const names[4] = {"ia", "fv", "fc", "fo"};
  int L = 0;
  buf[0] = 0;
  for (int k = 0; k < 4; k++)
    if (keep & (1u << k)) L += snprintf(buf + L, (size_t)(bufsz > L ? bufsz - L : 0), "%s%s", L ? "," : "", names[k]);
}
