/* SPDX-License-Identifier: MIT */
/* dynid ident: allocation of base-parameter sets, their names and
 * friction kinds (see base.h). Calls nothing of base.c or base_lin.c:
 * base.c -> base_lin.c -> base_common.c, no cycle. */
#include "ident/base.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <math.h>

static const char* const set_names[] = {"qr", "khalil", "lin", "file"};

int dyi_base_sparse(const dyiBase* b, double tol, int* pstart, int* pk, double* pv) {
  const int nb = b->nb, np = b->npar;
  double pmax = 0;
  for (long k = 0; k < (long)np * nb; k++) pmax = fmax(pmax, fabs(b->P[k]));
  int nz = 0;
  for (int c = 0; c < nb; c++) {
    pstart[c] = nz;
    for (int k = 0; k < np; k++) {
      const double v = b->P[(size_t)k * (size_t)nb + (size_t)c];
      if (fabs(v) <= tol * pmax) continue;
      pk[nz] = k; pv[nz] = v; nz++;
    }
  }
  pstart[nb] = nz;
  return nz;
}

dyiBaseSet dyi_base_set_parse(const char* name, char* err, int errsz) {
  for (int k = DYI_SET_QR; k <= DYI_SET_LIN; k++)
    if (!strcmp(name, set_names[k])) return (dyiBaseSet)k;
  if (err) snprintf(err, (size_t)errsz, "unknown base-parameter set '%s' (qr, khalil or lin)", name);
  return DYI_SET_NONE;
}

const char* dyi_base_set_name(dyiBaseSet set) {
  return set >= DYI_SET_QR && set <= DYI_SET_FILE ? set_names[set] : "?";
}

dyiBase* dyi_base_make_empty(dyiBaseSet set, int nb, int npar, int friction) {
  dyiBase* b = calloc(1, sizeof(dyiBase));
  if (!b) return NULL;
  b->set = set;
  b->friction = friction;
  b->joint_keep = friction ? 15u : 0u;
  b->npar = npar;
  b->nb = nb;
  b->name = calloc((size_t)(nb ? nb : 1), sizeof *b->name);
  b->B = calloc((size_t)(nb ? nb : 1) * (size_t)npar, sizeof(double));
  b->P = calloc((size_t)(nb ? nb : 1) * (size_t)npar, sizeof(double));
  b->lead = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
  b->lin_kind = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
  b->lin_joint = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
  if (!b->name || !b->B || !b->P || !b->lead || !b->lin_kind || !b->lin_joint) { dyi_base_free(b); return NULL; }
  for (int i = 0; i < nb; i++) b->lead[i] = b->lin_kind[i] = b->lin_joint[i] = -1;
  return b;
}

void dyi_base_free(dyiBase* b) {
  if (!b) return;
  free(b->name); free(b->B); free(b->P); free(b->lead); free(b->lin_kind); free(b->lin_joint);
  free(b->fix);
  free(b);
}

int dyi_friction_kinds(const char* list, unsigned* keep, char* bad, int badsz) {
  static const char* const names[DY_NPAR_JNT] = {"ia", "fv", "fc", "fo"};
  *keep = 0;
  if (!list) { *keep = 15u; return 0; }
  const char* p = list;
  while (*p) {
    const char* e = strchr(p, ',');
    size_t L = e ? (size_t)(e - p) : strlen(p);
    int k = 0;
    while (k < DY_NPAR_JNT && !(strlen(names[k]) == L && !strncasecmp(p, names[k], L))) k++;
    if (k == DY_NPAR_JNT) { snprintf(bad, (size_t)badsz, "%.*s", (int)(L < 32 ? L : 32), p); return -1; }
    *keep |= 1u << k;
    p += L + (e != NULL);
  }
  if (!*keep) { snprintf(bad, (size_t)badsz, "(empty)"); return -1; }
  return 0;
}

void dyi_base_drop_empty(dyiBase* b) {
  const int np = b->npar;
  int nb = 0;
  for (int i = 0; i < b->nb; i++) {
    double big = 0;
    for (int k = 0; k < np; k++) big = fmax(big, fabs(b->B[(size_t)i*np + k]));
    if (big == 0) continue;
    if (nb != i) {
      memcpy(b->B + (size_t)nb*np, b->B + (size_t)i*np, sizeof(double) * (size_t)np);
      memcpy(b->name[nb], b->name[i], sizeof b->name[0]);
      b->lead[nb] = b->lead[i];
      b->lin_kind[nb] = b->lin_kind[i];
      b->lin_joint[nb] = b->lin_joint[i];
    }
    nb++;
  }
  b->nb = nb;
}
