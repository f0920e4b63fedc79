/* SPDX-License-Identifier: MIT */
/* dynid fuzz targets: the fuzzer's bytes become a file (the readers take
 * paths, as users give them), the reader runs, and everything it allocated
 * must be freed. A crash, a leak, a hang, a sanitizer report or an
 * allocation above make fuzz's -malloc_limit_mb is a finding (what a
 * reader allocates follows from the input's size or a documented cap); an
 * error return is the expected outcome for garbage, but it must be one
 * line that names the file: the targets abort otherwise (not on the words
 * "out of memory", which a message may quote from the file).
 * tests/test_fuzz_regress.c replays tests/fuzz/regress/ through these same
 * functions. */
#ifndef DYNID_FUZZ_COMMON_H
#define DYNID_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Scratch files go to FUZZ_DIR (the fuzzer's working directory, or
 * build/tests when the regression corpus is replayed by make test). */
#ifndef FUZZ_DIR
#define FUZZ_DIR "."
#endif

/* write data to a per-process scratch file with the given suffix */
static const char* fuzz_file(const uint8_t* data, size_t size, const char* suffix) {
  static char path[256];
  snprintf(path, sizeof path, FUZZ_DIR "/dynid-fuzz-%d%s", (int)getpid(), suffix);
  FILE* f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

/* The 3-joint arm (revolute, one twist of pi/2) that the targets needing a
 * model share (statistics files, several logs; the statistics seeds were
 * written for it), loaded once per process. */
#include "core/io.h"
static const dyModel* fuzz_model3(void) {
  static const char* table =
    "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
    "1,R,0,0,0,0.3,2,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
    "2,R,1.5707963267948966,0.2,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01\n"
    "3,R,0,0.2,0,0,1,0.1,0,0,0.01,0,0,0.01,0,0.01\n";
  static dyModel* m;
  if (!m) {
    char err[DY_ERRSZ];
    const char* p = fuzz_file((const uint8_t*)table, strlen(table), ".model.csv");
    if (dy_load_table(p, NULL, &m, err, sizeof err)) abort();
  }
  return m;
}
#endif
