/* dynid ident: Lin's minimal linear combinations (placeholder). */
#include "base.h"
#include <stdio.h>
dyBase* dyi_base_lin(const dyModel* m, int friction, char* err, int errsz) {
  (void)m; (void)friction;
  snprintf(err, (size_t)errsz, "the lin set is not built yet");
  return NULL;
}
