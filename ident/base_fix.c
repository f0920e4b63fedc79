/* SPDX-License-Identifier: MIT */
/* dynid ident: standard parameters held at a value instead of estimated
 * (`--fix NAME=VALUE`, `--drop NAME`), applied to a base set (see base.h
 * dyi_base_fix). The identification model of the remaining parameters is
 *     tau - sum_k Y e_k v_k = Y_rest pi_rest      (k held at v_k),
 * so a held parameter leaves every base parameter's expression, and the
 * set is proved again on the regressor without its column. */
#include "ident/base.h"
#include "core/io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* largest |B| of the set (0 for an empty one) */
static double b_max(const dyiBase* b) {
  double big = 0;
  for (size_t i = 0; i < (size_t)b->nb * (size_t)b->npar; i++) big = fmax(big, fabs(b->B[i]));
  return big;
}

/* 0 when parameter k may be held in set b, else -1 with err saying why:
 * not a parameter of the set, or in no base parameter (a zero column of B:
 * its regressor column is zero or its effect is grouped away entirely) */
static int fix_refused(const dyModel* m, const dyiBase* b, int k, char* err, int errsz) {
  const int nl = DY_NPAR_LINK * m->n;
  char nm[24];
  if (k < 0 || k >= dy_npar(m)) { snprintf(err, (size_t)errsz, "parameter index %d out of range", k); return -1; }
  dy_parname(m, k, nm, sizeof nm);
  if (k >= b->npar) {
    snprintf(err, (size_t)errsz, "%s is a joint parameter and the set has none (identify with --friction)", nm);
    return -1;
  }
  if (k >= nl && !(b->joint_keep & (1u << ((k - nl) % DY_NPAR_JNT)))) {
    snprintf(err, (size_t)errsz, "%s is left out of the set already (--friction=LIST without its kind): it is 0", nm);
    return -1;
  }
  const double tol = 1e-12 * b_max(b);
  for (int i = 0; i < b->nb; i++)
    if (fabs(b->B[(size_t)i * (size_t)b->npar + (size_t)k]) > tol) return 0;
  snprintf(err, (size_t)errsz, "%s is in no base parameter of this arm (its regressor column is zero: it does not act "
           "on the torques, `dynid base` lists why): holding it changes nothing", nm);
  return -1;
}

/* row i of the set renamed after its largest remaining term (khalil, qr,
 * file: NAME + "R"; unique among the rows); lin names are kept */
static void fix_rename(const dyModel* m, dyiBase* b, int i) {
  const int np = b->npar;
  int best = -1;
  for (int c = 0; c < np; c++)
    if (b->B[(size_t)i*np + c] != 0 && (best < 0 || fabs(b->B[(size_t)i*np + c]) > fabs(b->B[(size_t)i*np + best])))
      best = c;
  b->lead[i] = -1;
  if (best < 0 || b->lin_kind[i] >= 0) return;
  char nm[24], cand[32];
  dy_parname(m, best, nm, sizeof nm);
  for (int t = 1; t < 100; t++) {
    if (t == 1) snprintf(cand, sizeof cand, "%sR", nm); else snprintf(cand, sizeof cand, "%sR%d", nm, t);
    int clash = 0;
    for (int r = 0; r < b->nb && !clash; r++) clash = r != i && !strcmp(b->name[r], cand);
    if (!clash) break;
  }
  snprintf(b->name[i], sizeof b->name[i], "%s", cand);
}

/* the held columns of B cleared, rows left without a coefficient removed,
 * rows that lost their lead renamed */
static void fix_rows(const dyModel* m, dyiBase* b) {
  const int np = b->npar;
  for (int i = 0; i < b->nb; i++)
    for (int k = 0; k < np; k++)
      if (!isnan(b->fix[k])) b->B[(size_t)i*np + k] = 0;
  dyi_base_drop_empty(b);
  for (int i = 0; i < b->nb; i++)
    if (b->lead[i] >= 0 && !isnan(b->fix[b->lead[i]])) fix_rename(m, b, i);
}

int dyi_base_fix(const dyModel* m, dyiBase* b, const int* k, const double* val, int nk, char* err, int errsz) {
  if (nk <= 0) return 0;
  for (int i = 0; i < nk; i++) {
    char nm[24];
    if (fix_refused(m, b, k[i], err, errsz)) return -1;
    dy_parname(m, k[i], nm, sizeof nm);
    if (!isfinite(val[i])) { snprintf(err, (size_t)errsz, "%s: the value must be a finite number", nm); return -1; }
    for (int l = 0; l < i; l++)
      if (k[l] == k[i]) { snprintf(err, (size_t)errsz, "%s is held twice", nm); return -1; }
  }
  if (!b->fix) {
    b->fix = malloc(sizeof(double) * (size_t)b->npar);
    if (!b->fix) { snprintf(err, (size_t)errsz, "out of memory"); return -1; }
    for (int c = 0; c < b->npar; c++) b->fix[c] = NAN;
  }
  for (int i = 0; i < nk; i++) b->fix[k[i]] = val[i];
  fix_rows(m, b);
  char why[DY_ERRSZ], held[512];
  if (!dyi_base_pinv(b, why, sizeof why) && !dyi_base_verify(m, b, why, sizeof why)) return 0;
  dyi_base_fix_text(m, b, held, sizeof held);
  snprintf(err, (size_t)errsz, "holding %s: %s%s", held, why,
           b->set == DYI_SET_QR ? "" : " (the closed-form set does not survive it; --set qr computes one without them)");
  return -1;
}

int dyi_base_fix_text(const dyModel* m, const dyiBase* b, char* buf, int bufsz) {
  int len = 0;
  if (bufsz > 0) buf[0] = 0;
  for (int k = 0; b->fix && k < b->npar; k++) {
    if (isnan(b->fix[k])) continue;
    char nm[24];
    dy_parname(m, k, nm, sizeof nm);
    len += snprintf(buf + (len < bufsz ? len : bufsz), (size_t)(len < bufsz ? bufsz - len : 0), "%s%s=%.17g",
                    len ? ", " : "", nm, b->fix[k]);
  }
  return len;
}

int dyi_base_fix_parse(const dyModel* m, const char* text, int* k, double* val, char* err, int errsz) {
  int nk = 0;
  for (const char* s = text; s && *s;) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    const char* e = strchr(s, ',');
    size_t L = e ? (size_t)(e - s) : strlen(s);
    char item[96], *eq, *end;
    snprintf(item, sizeof item, "%.*s", (int)(L < sizeof item - 1 ? L : sizeof item - 1), s);
    if (!(eq = strchr(item, '='))) { snprintf(err, (size_t)errsz, "'%s': NAME=VALUE expected", item); return -1; }
    *eq = 0;
    int idx = dy_parindex(m, item);
    double v = strtod(eq + 1, &end);
    while (*end == ' ') end++;
    if (idx < 0) { snprintf(err, (size_t)errsz, "'%s': not a parameter of this model", item); return -1; }
    if (end == eq + 1 || *end || !isfinite(v)) { snprintf(err, (size_t)errsz, "%s='%s': not a number", item, eq + 1); return -1; }
    if (nk == DY_MAXPAR) { snprintf(err, (size_t)errsz, "too many held parameters"); return -1; }
    k[nk] = idx; val[nk++] = v;
    s = e ? e + 1 : NULL;
  }
  return nk;
}

double* dyi_base_held_B(const dyiBase* b, int* nrows) {
  const int np = b->npar;
  int nh = 0;
  *nrows = b->nb;
  for (int k = 0; b->fix && k < np; k++) nh += !isnan(b->fix[k]);
  double* B = nh ? calloc((size_t)(b->nb + nh) * (size_t)np, sizeof(double)) : NULL;
  if (!B) return NULL;
  memcpy(B, b->B, sizeof(double) * (size_t)b->nb * (size_t)np);
  int r = b->nb;
  for (int k = 0; k < np; k++)
    if (!isnan(b->fix[k])) B[(size_t)(r++) * (size_t)np + (size_t)k] = 1;
  *nrows = r;
  return B;
}
