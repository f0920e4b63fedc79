/* SPDX-License-Identifier: MIT */
/* dynid program: provenance. Every file dynid writes starts with '#' lines
 * saying how it was made:
 *
 *   # dynid 1.0.0
 *   # command: dynid identify arm.urdf log.csv --friction -o params.csv
 *   # model: arm.urdf, fingerprint: 7 joints RRRRRRR geometry 5d1c0f3a
 *   # input: log.csv (1234567 bytes, rows 1..14000)
 *
 * The fingerprint is the joint count, the joint types and a hash of the
 * modified-DH geometry (alpha, a, theta, d rounded to 1e-6): the same arm
 * read from its URDF or from a table written by dynid gives the same one.
 * Commands that use a PARAMS file with a model (validate, id, inertia, fd,
 * report) refuse one whose fingerprint differs (--force overrides); a
 * PARAMS file without one (written before) is accepted as it is. The
 * reader of PARAMS files parses these lines (ident/params.h: model,
 * fingerprint, the --rows of the command line).
 * The model of a command is loaded here too (cli_model), as it completes
 * the provenance: cli.c (arguments, messages) calls nothing of this file. */
#include "reports/cli.h"
#include "reports/version.h"
#include "core/transmission.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_fingerprint(const dyModel* m, char* buf, size_t sz) {
  unsigned long long h = 1469598103934665603ull;   /* FNV-1a 64 */
  char types[DY_MAXJ + 1];
  for (int j = 0; j < m->n; j++) {
    types[j] = m->jnt_type[j] == DY_PRISMATIC ? 'P' : 'R';
    const double v[4] = {m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j]};
    for (int k = 0; k < 5; k++) {
      long long x = k < 4 ? llround(v[k] * 1e6) : types[j];
      for (int b = 0; b < 8; b++) { h ^= (unsigned long long)(x >> (8 * b)) & 0xffu; h *= 1099511628211ull; }
    }
  }
  types[m->n] = 0;
  snprintf(buf, sz, "%d joint%s %s geometry %08llx", m->n, m->n == 1 ? "" : "s", types,
           (h ^ (h >> 32)) & 0xffffffffull);
}

static char prelude[8192];

/* append a line to the prelude (truncated lines keep the reader's 1 kB limit) */
static void add(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void add(const char* fmt, ...) {
  size_t L = strlen(prelude);
  if (L + 2 >= sizeof prelude) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line - 4, fmt, ap);
  va_end(ap);
  if (strlen(line) >= sizeof line - 5) strcpy(line + sizeof line - 8, "...");
  snprintf(prelude + L, sizeof prelude - L, "%s%s", L ? "\n" : "", line);
}

/* a word of the command line, quoted for a shell when it needs it */
static void quoted(char* out, size_t sz, const char* w) {
  if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == strlen(w)) {
    snprintf(out, sz, "%s", w);
    return;
  }
  size_t L = 0;
  out[L++] = '\'';
  for (; *w && L + 6 < sz; w++) {
    if (*w == '\'') { memcpy(out + L, "'\\''", 4); L += 4; }
    else out[L++] = *w;
  }
  out[L++] = '\'';
  out[L] = 0;
}

void cli_provenance(const cliArgs* c, const dyModel* m) {
  prelude[0] = 0;
  add("dynid %s", DYNID_VERSION);
  char cmd[1000] = "command: dynid";
  for (int i = 1; i < c->argc; i++) {
    char w[300];
    quoted(w, sizeof w, c->argv[i]);
    size_t L = strlen(cmd);
    snprintf(cmd + L, sizeof cmd - L, " %s", w);
  }
  add("%s", cmd);
  if (m) {
    char fp[96];
    cli_fingerprint(m, fp, sizeof fp);
    add("model: %s, fingerprint: %s", m->source, fp);
  }
  const char* rows = cli_opt(c, "rows");
  for (int i = m ? 1 : 0; i < c->npos; i++) {
    struct stat st;
    if (stat(c->pos[i], &st) || !S_ISREG(st.st_mode)) continue;
    add("input: %s (%lld bytes%s%s)", c->pos[i], (long long)st.st_size, rows ? ", --rows " : "", rows ? rows : "");
  }
  dy_out_prelude(prelude);
}

int cli_params_match(const cliArgs* c, const dyModel* m, const dyiParams* p) {
  if (!p->fingerprint[0]) return 0;   /* written before fingerprints: accepted */
  char ours[96];
  cli_fingerprint(m, ours, sizeof ours);
  if (!strcmp(ours, p->fingerprint)) return 0;
  if (cli_flag(c, "force")) {
    fprintf(stderr, "dynid: warning: %s was identified on %s (%s), not on this model %s (%s); used anyway "
            "(--force)\n", p->path, p->model, p->fingerprint, m->source, ours);
    return 0;
  }
  return cli_fail("%s: identified on another model: %s (%s), this model %s is %s; give the model it was "
                  "identified on, or --force to use it anyway", p->path, p->model, p->fingerprint, m->source, ours);
}

/* --transmission FILE into the model (it replaces one the model carries,
 * said on stderr). 0, or 1 after printing the error. */
static int cli_transmission(const cliArgs* c, dyModel* m) {
  const char* path = cli_opt(c, "transmission");
  if (!path || !strcmp(path, "urdf")) return 0;   /* the URDF's, read by the loader */
  char err[DY_ERRSZ];
  double R[DY_MAXJ * DY_MAXJ];
  if (dy_trans_read(path, m->n, R, err, sizeof err)) return cli_fail("%s", err);
  if (m->has_trans && !cli_flag(c, "quiet"))
    fprintf(stderr, "dynid: --transmission %s replaces the transmission %s carries\n", path, m->source);
  return dy_set_transmission(m, R, err, sizeof err) ? cli_fail("%s", err) : 0;
}

dyModel* cli_model(const cliArgs* c) {
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  /* the --lock options (checked by cli_check) as names and values */
  dyLoadOpt opt = c->load;
  const char* names[CLI_MAXOPT];
  double vals[CLI_MAXOPT];
  char* buf = NULL;
  size_t total = 0;
  for (int i = 0; i < c->nopt; i++)
    if (!strcmp(c->key[i], "lock") && c->val[i]) total += strlen(c->val[i]) + 1;
  if (total && !(buf = malloc(total))) { cli_fail("out of memory"); return NULL; }
  char* p = buf;
  opt.nlock = 0;
  for (int i = 0; i < c->nopt; i++) {
    size_t len;
    if (strcmp(c->key[i], "lock") || cli_lock_value(c->val[i], &len, &vals[opt.nlock])) continue;
    memcpy(p, c->val[i], len);
    p[len] = 0;
    names[opt.nlock++] = p;
    p += len + 1;
  }
  opt.lock_joint = names;
  opt.lock_q = vals;
  const char* tr = cli_opt(c, "transmission");
  if (tr && !strcmp(tr, "urdf")) {
    size_t L = strlen(c->pos[0]);
    if (L < 5 || strcasecmp(c->pos[0] + L - 5, ".urdf")) {
      free(buf);
      cli_usage("--transmission urdf needs a URDF model (a file ending in .urdf); give a transmission file instead");
      return NULL;
    }
    opt.urdf_trans = 1;
  }
  int r = dy_load_model(c->pos[0], &opt, &m, err, sizeof err);
  free(buf);
  if (r) {
    cli_fail("%s", err);
    return NULL;
  }
  if (cli_transmission(c, m)) { dy_free_model(m); return NULL; }
  cli_provenance(c, m);
  /* what the loader changed or assumed, e.g. locked joints, one warning each */
  for (const char* s = m->notes; *s && !cli_flag(c, "quiet");) {
    const char* e = strchr(s, '\n');
    int L = e ? (int)(e - s) : (int)strlen(s);
    fprintf(stderr, "dynid: warning: %.*s\n", L, s);
    s += L + (e != NULL);
  }
  return m;
}
