/* dynid ident: log reader (placeholder). */
#include "log.h"
#include <stdio.h>
#include <string.h>
void dyi_log_defaults(dyLogOpt* opt) { memset(opt, 0, sizeof *opt); for (int j = 0; j < DY_MAXJ; j++) opt->gain[j] = 1; }
dyLogReader* dyi_log_open(const char* path, int n, const dyLogOpt* opt, char* err, int errsz) {
  (void)n; (void)opt;
  snprintf(err, (size_t)errsz, "%s: the log reader is not built yet", path);
  return NULL;
}
int dyi_log_next(dyLogReader* r, dySample* s, char* err, int errsz) { (void)r; (void)s; (void)err; (void)errsz; return -1; }
int dyi_log_rewind(dyLogReader* r, char* err, int errsz) { (void)r; (void)err; (void)errsz; return -1; }
void dyi_log_close(dyLogReader* r) { (void)r; }
