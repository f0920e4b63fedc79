/* dynid ident: allocation of base-parameter sets (see base.h). */
#include "base.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

dyBase* dyi_base_alloc(const char* set, int nb, int npar, int friction) {
  dyBase* b = calloc(1, sizeof(dyBase));
  if (!b) return NULL;
  snprintf(b->set, sizeof b->set, "%s", set);
  b->friction = friction;
  b->npar = npar;
  b->nb = nb;
  b->name = calloc((size_t)(nb ? nb : 1), sizeof *b->name);
  b->B = calloc((size_t)(nb ? nb : 1) * (size_t)npar, sizeof(double));
  b->P = calloc((size_t)(nb ? nb : 1) * (size_t)npar, sizeof(double));
  b->lead = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
  if (!b->name || !b->B || !b->P || !b->lead) { dyi_base_free(b); return NULL; }
  for (int i = 0; i < nb; i++) b->lead[i] = -1;
  return b;
}

void dyi_base_free(dyBase* b) {
  if (!b) return;
  free(b->name); free(b->B); free(b->P); free(b->lead);
  free(b);
}
