/* SPDX-License-Identifier: MIT */
/* dynid program: single standard parameters held at a value instead of
 * estimated, `--fix NAME=VALUE` and `--drop NAME` (= `--fix NAME=0`), both
 * repeatable (ident/base.h dyi_base_fix does the work), and the hint that
 * names them when the data cannot tell some parameters apart. */
#include "reports/cli.h"
#include "ident/base.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* edit distance of two short names, case-insensitive (at most 31 chars) */
static int name_distance(const char* a, const char* b) {
  int la = (int)strlen(a), lb = (int)strlen(b), d[32][32];
  if (la > 31 || lb > 31) return 99;
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int v = d[i-1][j-1] + (toupper((unsigned char)a[i-1]) != toupper((unsigned char)b[j-1]));
      if (d[i-1][j] + 1 < v) v = d[i-1][j] + 1;
      if (d[i][j-1] + 1 < v) v = d[i][j-1] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

/* the usage error of an unknown name: the model's names one edit away */
static int unknown_name(const cliArgs* c, const dyModel* m, const char* opt, const char* name) {
  char close[256] = "";
  int len = 0, nclose = 0;
  for (int k = 0; k < dy_npar(m) && nclose < 8; k++) {
    char nm[24];
    dy_parname(m, k, nm, sizeof nm);
    if (name_distance(name, nm) > 1) continue;
    len += snprintf(close + len, sizeof close - (size_t)len, "%s%s", nclose++ ? ", " : "", nm);
  }
  if (nclose)
    return cli_usage("%s: --%s %s: no parameter %s; close names: %s", c->cmd, opt, name, name, close);
  return cli_usage("%s: --%s %s: no parameter %s; names are XXj XYj XZj YYj YZj ZZj MXj MYj MZj Mj IAj FVj "
                   "FCj FOj, j = 1..%d", c->cmd, opt, name, name, m->n);
}

int cli_held(const cliArgs* c, const dyModel* m, int* k, double* v, int* nk) {
  *nk = 0;
  for (int i = 0; i < c->nopt; i++) {
    const int fix = !strcmp(c->key[i], "fix");
    if (!fix && strcmp(c->key[i], "drop")) continue;
    const char* s = c->val[i] ? c->val[i] : "";
    char name[64];
    const char* eq = strchr(s, '=');
    size_t L = fix && eq ? (size_t)(eq - s) : strlen(s);
    if (fix && !eq)
      return cli_usage("%s: --fix takes NAME=VALUE (e.g. --fix M7=0.35), got '%s'; --drop NAME holds at 0", c->cmd, s);
    if (!fix && eq)
      return cli_usage("%s: --drop takes a parameter name (e.g. --drop FO1), got '%s'; --fix NAME=VALUE holds at a "
                       "value", c->cmd, s);
    snprintf(name, sizeof name, "%.*s", (int)(L < sizeof name - 1 ? L : sizeof name - 1), s);
    int idx = dy_parindex(m, name);
    if (idx < 0) return unknown_name(c, m, fix ? "fix" : "drop", name);
    double val = 0;
    if (fix) {
      char* e;
      val = strtod(eq + 1, &e);
      if (e == eq + 1 || *e || !isfinite(val))
        return cli_usage("%s: --fix %s: the value must be a number in SI units, got '%s'", c->cmd, s, eq + 1);
    }
    if (*nk == DY_MAXPAR) return cli_usage("%s: too many --fix and --drop", c->cmd);
    k[*nk] = idx; v[(*nk)++] = val;
  }
  return 0;
}

int cli_held_apply(const cliArgs* c, const dyModel* m, dyiBase* b, const int* k, const double* v, int nk) {
  char err[DY_ERRSZ];
  if (!nk || !dyi_base_fix(m, b, k, v, nk, err, sizeof err)) return 0;
  if (!strncmp(err, "holding ", 8)) return cli_fail("%s: --fix/--drop: %s", c->cmd, err);
  return cli_usage("%s: --fix/--drop: %s", c->cmd, err);
}

/* the base parameter called name in b, -1 when none */
static int base_row(const dyiBase* b, const char* name) {
  for (int i = 0; i < b->nb; i++) if (!strcmp(b->name[i], name)) return i;
  return -1;
}

void cli_drop_hint(const dyModel* m, const dyiBase* b, const char* err, char* hint, int sz) {
  int len = 0;
  hint[0] = 0;
  if (!strstr(err, "do not determine the combination")) return;
  for (const char* s = strchr(err, '*'); s; s = strchr(s + 1, '*')) {
    char name[40];
    size_t L = strcspn(s + 1, " (),");
    snprintf(name, sizeof name, "%.*s", (int)(L < sizeof name - 1 ? L : sizeof name - 1), s + 1);
    int i = base_row(b, name), only = -1, nz = 0;
    for (int c = 0; i >= 0 && c < b->npar; c++)
      if (b->B[(size_t)i * (size_t)b->npar + (size_t)c] != 0) { nz++; only = c; }
    if (nz != 1) continue;   /* a combination of several: no single parameter to drop */
    char nm[24];
    dy_parname(m, only, nm, sizeof nm);
    len += snprintf(hint + len, (size_t)(sz > len ? sz - len : 0), "%s--drop %s", len ? " or " : "", nm);
  }
}
