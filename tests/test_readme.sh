#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README.md against the program: the demo's output block in README is what
# `make demo` prints (every line but the run time; under the sanitizers,
# where the demo is slow, only the block's presence is checked), and
# README stays under 250 lines. Last line "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
P=0; F=0
check() { if eval "$1"; then P=$((P+1)); else F=$((F+1)); echo "FAIL: $2"; fi; }
D=$(mktemp -d /tmp/dynid-readme.XXXXXX)
trap 'rm -rf "$D"' EXIT
check "[ \$(wc -l < README.md) -le 250 ]" "README.md has $(wc -l < README.md) lines (at most 250)"
# the block: from the KUKA summary line to the reports line, indentation removed
sed -n '/^    KUKA LWR4+: /,/^    reports: /p' README.md | sed 's/^    //' > "$D/readme.txt"
check "[ \$(wc -l < $D/readme.txt) -ge 10 ]" "README.md has no demo output block"
if nm dynid 2>/dev/null | grep -q __asan_init; then
  echo "(sanitizer build: the demo itself is not run here)"
else
  bash reports/demo.sh > "$D/demo.out" 2>"$D/demo.err"
  check "[ \$? = 0 ]" "make demo failed: $(tail -n 3 "$D/demo.err")"
  sed -n '/^KUKA LWR4+: /,/^reports: /p' "$D/demo.out" > "$D/demo.txt"
  # the run time is the run's own
  sed -i 's/), [0-9]* s$/), N s/' "$D/readme.txt" "$D/demo.txt"
  diff -u "$D/readme.txt" "$D/demo.txt" > "$D/diff"
  check "[ ! -s $D/diff ]" "README's demo block differs from a run: $(head -n 12 "$D/diff")"
fi
echo "$P passed, $F failed"
[ "$F" = 0 ]
