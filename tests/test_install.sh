#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dynid as an installed C library: `make install` into a temporary DESTDIR,
# then what a user of the library does there: pkg-config --cflags --libs
# dynid, build tests/example_identify.c against the installed headers and
# shared library (not the build tree), run it. Also checks the soname, the
# manual page and the program installed. Last line "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
P=0; F=0
check() { if eval "$1"; then P=$((P+1)); else F=$((F+1)); echo "FAIL: $2"; fi; }
D=$(mktemp -d /tmp/dynid-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
PREFIX=/usr/local
make -s --no-print-directory install DESTDIR="$D" PREFIX=$PREFIX >"$D/install.log" 2>&1
check "[ $? = 0 ]" "make install DESTDIR=$D failed: $(tail -n 5 "$D/install.log")"
L=$D$PREFIX/lib
check "[ -f '$L/libdynid.a' ] && [ -L '$L/libdynid.so' ] && [ -f '$D$PREFIX/include/dynid/dynid.h' ] && [ -f '$D$PREFIX/include/dynid/ident/estimate.h' ]" \
      "libraries or headers not installed"
check "readelf -d '$L/libdynid.so' | grep -q 'SONAME.*libdynid\.so\.[0-9]'" "libdynid.so has no soname"
check "[ -f '$D$PREFIX/share/man/man1/dynid.1' ] && [ -x '$D$PREFIX/bin/dynid' ]" "manual page or program not installed"
check "'$D$PREFIX/bin/dynid' --version | grep -q '^dynid [0-9]'" "installed dynid --version"
export PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
FLAGS=$(pkg-config --cflags --libs dynid 2>"$D/pc.err")
check "[ -n '$FLAGS' ]" "pkg-config --cflags --libs dynid: $(cat "$D/pc.err")"
check "echo '$FLAGS' | grep -q -- '-I$D$PREFIX/include' && echo '$FLAGS' | grep -q -- '-ldynid'" \
      "pkg-config flags point outside the install: $FLAGS"
# the example as a user builds it: only the installed tree (the build tree's
# folders are not on the include path), the shared library
# (the compiler make used: under `make asan` the library needs the
# sanitizer runtime, which only that compiler line links)
${CC:-cc} -std=c11 -Wall -Wextra -Werror tests/example_identify.c $FLAGS -lm -o "$D/example" 2>"$D/cc.err"
check "[ $? = 0 ]" "the example does not build against the installed tree: $(head -n 5 "$D/cc.err")"
check "readelf -d '$D/example' | grep -q 'NEEDED.*libdynid\.so'" "the example is not linked to the shared library"
OUT=$(LD_LIBRARY_PATH=$L "$D/example" datasets/models/panda.csv 2>&1); rc=$?
echo "$OUT"
check "[ $rc = 0 ]" "the example failed (exit $rc)"
check "echo \"\$OUT\" | grep -q 'base parameters from 2000 samples'" "the example's output"
# the README shows the example and how to build it
check "grep -q 'example_identify.c' README.md && grep -q 'pkg-config --cflags --libs dynid' README.md" \
      "README.md does not show the example"
echo "$P passed, $F failed"
[ $F = 0 ]
