/* dynid core: URDF reader (placeholder until the URDF work lands). */
#include "io.h"
#include <stdio.h>
int dy_load_urdf(const char* path, const dyLoadOpt* opt, dyModel** out,
                 char* err, int errsz) {
  (void)opt; *out = NULL;
  snprintf(err, (size_t)errsz, "%s: URDF reading is not built yet", path);
  return -1;
}
