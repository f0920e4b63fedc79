#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make fuzz: libFuzzer runs of every reader, FUZZ_SECONDS each (FUZZ_TARGETS
# to choose), with a limit on any one allocation (FUZZ_MALLOC_MB: an input
# that asks for more is a finding, as is a crash, a leak, a hang or a
# sanitizer report). The library is compiled with clang and the fuzzer's
# instrumentation into build/fuzz/obj (each layer with its own and lower
# include paths, as the Makefile does). The corpus is seeded from
# datasets/, tests/bad and tests/fuzz/regress/<target>/; a finding is copied
# into tests/fuzz/regress/<target>/, where test_fuzz_regress (make test)
# replays it through the same code forever. Run from the repository root.
set -u
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-table urdf log logs params roundtrip stats trans}
MALLOC_MB=${FUZZ_MALLOC_MB:-512}
LIBS=${FUZZ_LIBS:?the Makefile passes the link libraries}
OPS=${VERIFY_OPS:?the Makefile passes the counting variants}
CFLAGS="-O1 -g -std=c11 -D_GNU_SOURCE -fsanitize=address,undefined -fno-omit-frame-pointer -I/usr/include/libxml2"

if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null || exit 1
  else echo "fuzz: needs clang and libclang-rt-14-dev: sudo apt-get install clang libclang-rt-14-dev"; exit 1; fi
fi

# the instrumented library, rebuilt where a source or any header is newer
mkdir -p build/fuzz/obj
newest=$(ls -t core/*.h ident/*.h verify/*.h reports/*.h | head -n 1)
for layer in core ident verify reports; do
  for f in "$layer"/*.c; do
    [ "$f" = reports/main.c ] && continue
    o=build/fuzz/obj/$(echo "$f" | tr / _).o
    [ "$o" -nt "$f" ] && [ "$o" -nt "$newest" ] && continue
    clang $CFLAGS -Ibuild/inc/$layer -fsanitize=fuzzer-no-link -c "$f" -o "$o" || exit 1
  done
done
for k in $OPS; do
  f=verify/$k.c; o=build/fuzz/obj/verify_${k}_ops.o
  [ "$o" -nt "$f" ] && [ "$o" -nt "$newest" ] && continue
  clang $CFLAGS -Ibuild/inc/verify -DDY_COUNT_OPS -fsanitize=fuzzer-no-link -c "$f" -o "$o" || exit 1
done

# the seed corpus of target $1
seed() {
  local t=$1 c=build/fuzz/$1/corpus g
  mkdir -p "$c"
  case $t in
    table) cp datasets/models/*.csv tests/bad/*.csv "$c"/ 2>/dev/null ;;
    urdf) cp datasets/urdf/*.urdf tests/bad/*.urdf "$c"/ 2>/dev/null ;;
    log) for g in datasets/*/*.csv.gz; do zcat "$g" | head -c 4000 > "$c/$(basename "$g" .gz)"; done 2>/dev/null ;;
    params) cp tests/fuzz/seeds/*.params "$c"/ 2>/dev/null ;;
    stats) cp tests/fuzz/seeds/*.stats "$c"/ 2>/dev/null ;;
    logs) cp tests/fuzz/seeds/*.logs "$c"/ 2>/dev/null ;;
    roundtrip)
      for g in datasets/models/*.csv; do { printf '\000'; cat "$g"; } > "$c/$(basename "$g")"; done
      for g in datasets/urdf/*.urdf; do { printf '\001'; cat "$g"; } > "$c/$(basename "$g")"; done ;;
  esac
  [ -d tests/fuzz/regress/$t ] && cp tests/fuzz/regress/$t/* "$c"/ 2>/dev/null
  return 0
}

for t in $TARGETS; do
  # shellcheck disable=SC2086  # LIBS is a list of linker flags
  clang $CFLAGS -Ibuild/inc/reports -Itests/fuzz -fsanitize=fuzzer tests/fuzz/fuzz_$t.c build/fuzz/obj/*.o \
    $LIBS -o build/fuzz/fuzz_$t || exit 1
  seed "$t"
  echo "fuzz: $t for $SECONDS_EACH s"
  (cd build/fuzz/$t && rm -f crash-* leak-* oom-* timeout-* slow-unit-* &&
    ../fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 \
      -malloc_limit_mb="$MALLOC_MB" -rss_limit_mb=2048 corpus >fuzz.log 2>&1)
  rc=$?
  tail -n 3 build/fuzz/$t/fuzz.log
  if [ $rc != 0 ]; then
    mkdir -p tests/fuzz/regress/$t
    for a in build/fuzz/$t/crash-* build/fuzz/$t/leak-* build/fuzz/$t/oom-* build/fuzz/$t/timeout-*; do
      [ -e "$a" ] || continue
      cp "$a" "tests/fuzz/regress/$t/fuzz_$t-$(basename "$a")"
      echo "fuzz: finding kept as tests/fuzz/regress/$t/fuzz_$t-$(basename "$a")"
    done
    echo "fuzz: $t found a problem: build/fuzz/$t/fuzz.log"
    exit 1
  fi
done
