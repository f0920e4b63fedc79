#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layers as the build enforces them: every header compiles on its own
# with only its layer's and lower include paths (build/inc/LAYER), an
# upward include does not compile, libdynid exports no symbol of the
# program (cli_, cmd_, dyp_), neither it nor the program links libxml2 or
# PLplot (both are loaded on first use), the program carries OpenBLAS,
# LAPACKE and DSDP where their archives exist, its heap is marked for
# huge pages where the system has them, the installed
# tree has only public headers and the umbrella header alone compiles.
# Last line "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
P=0; F=0
# check COMMAND MESSAGE [FILE]: FILE's first lines are shown on a failure
check() {
  if eval "$1"; then P=$((P+1)); else F=$((F+1)); echo "FAIL: $2"; [ -n "${3:-}" ] && head -n 3 "$3"; fi
}
D=$(mktemp -d /tmp/dynid-layers.XXXXXX)
trap 'rm -rf "$D"' EXIT
CC=${CC:-cc}
make -s --no-print-directory build/inc/core build/inc/ident build/inc/verify build/inc/reports >/dev/null 2>&1
for layer in core ident verify reports; do
  for h in "$layer"/*.h; do
    printf '#include "%s"\n' "$h" > "$D/one.c"
    check "$CC -std=c11 -D_GNU_SOURCE -fsyntax-only -I/usr/include/libxml2 -Ibuild/inc/$layer $D/one.c 2>$D/err" \
          "$h does not compile alone with the include paths of $layer" "$D/err"
  done
done
# an upward include, from each layer to the one above it
set -- core:ident/base.h ident:verify/validate.h verify:reports/cli.h
for pair in "$@"; do
  layer=${pair%%:*}; up=${pair#*:}
  printf '#include "%s"\n' "$up" > "$D/up.c"
  check "! $CC -std=c11 -fsyntax-only -I/usr/include/libxml2 -Ibuild/inc/$layer $D/up.c 2>/dev/null" \
        "$layer can include $up"
done
check "[ -z \"\$(nm -D --defined-only libdynid.so | grep -E ' T (cli_|cmd_|dyp_)')\" ]" \
      "libdynid.so exports program symbols: $(nm -D --defined-only libdynid.so | grep -cE ' T (cli_|cmd_|dyp_)')"
# libxml2 and PLplot are loaded when a URDF is read or a plot drawn, not at
# every start (core/util.h dy_dlsyms)
check "! readelf -d dynid libdynid.so | grep -qE 'NEEDED.*(plplot|xml2)'" "dynid or libdynid.so links libxml2 or PLplot"
# where the system has their archives, the program carries OpenBLAS, LAPACKE
# and DSDP itself (it starts without binding their symbols: Makefile)
archives=1
for l in dsdp lapacke openblas; do case $($CC -print-file-name=lib$l.a) in /*) ;; *) archives=0 ;; esac; done
if [ "$archives" = 1 ]; then
  check "! readelf -d dynid | grep -qE 'NEEDED.*(openblas|lapack|blas|dsdp)'" "dynid links OpenBLAS, LAPACKE or DSDP shared though their archives exist"
fi
# the program's heap from a 2 MiB boundary on is marked for huge pages
# (reports/main.c heap_setup: 64 MiB at once; buffers the program marks
# itself take 2 MiB each there), where the system has them: looked at in
# a run held on a named pipe as its log (not under the sanitizers, whose
# allocator is not the C library's)
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
readelf -d dynid | grep -qE 'NEEDED.*(asan|ubsan)' && thp=""
case $thp in
  *"[always]"*|*"[madvise]"*)
    mkfifo "$D/log"
    ./dynid identify datasets/models/panda.csv "$D/log" --quiet -o "$D/p.csv" 2>/dev/null &
    pid=$!
    hg=""
    for _ in $(seq 50); do
      hg=$(awk '/^[0-9a-f]+-[0-9a-f]+ .*\[heap\]$/ { split($1, a, "-"); s = a[1]; e = a[2]; next }
                /^[0-9a-f]+-[0-9a-f]+ / { s = "" }
                /^VmFlags:/ && s != "" && / hg/ { print s, e }' "/proc/$pid/smaps" 2>/dev/null |
           while read -r s e; do [ $(( 0x$e - 0x$s )) -ge 33554432 ] && { echo "$s"; break; }; done)
      [ -n "$hg" ] && break
      sleep 0.1
    done
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    check "[ -n \"$hg\" ] && [ \$(( 0x$hg % 2097152 )) = 0 ]" \
          "the program's heap has no 32 MiB or more marked for huge pages from a 2 MiB boundary (heap_setup)" ;;
esac
make -s --no-print-directory install DESTDIR="$D/root" PREFIX=/usr >"$D/install.log" 2>&1
I=$D/root/usr/include/dynid
check "[ -f $I/dynid.h ] && [ ! -e $I/core/mathu.h ] && [ ! -e $I/core/util.h ] && [ ! -e $I/verify/kernels.h ]" \
      "installed headers: umbrella missing or internal ones shipped"
printf '#include <dynid/dynid.h>\nint main(void) { dyModel* m = dy_make_model(2); dy_free_model(m); return 0; }\n' > "$D/u.c"
check "$CC -std=c11 -Wall -Wextra -Werror -fsyntax-only -I$D/root/usr/include -I$I $D/u.c 2>$D/err" \
      "the installed umbrella header does not compile alone" "$D/err"
echo "$P passed, $F failed"
[ "$F" = 0 ]
