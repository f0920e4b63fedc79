/* dynid fuzz targets: the fuzzer's bytes become a file (the readers take
 * paths, as users give them), the reader runs, and everything it allocated
 * must be freed. A crash, a leak, a hang or a sanitizer report is a finding;
 * an error return is the expected outcome for garbage. */
#ifndef DYNID_FUZZ_COMMON_H
#define DYNID_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* write data to a per-process temporary file with the given suffix */
static const char* fuzz_file(const uint8_t* data, size_t size, const char* suffix) {
  static char path[256];
  snprintf(path, sizeof path, "/tmp/dynid-fuzz-%d%s", (int)getpid(), suffix);
  FILE* f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}
#endif
