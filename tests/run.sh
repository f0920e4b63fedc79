#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run every test binary given, show each one's result, and close with the sum
# as "N passed, N failed" (the line CI reads). Exit 1 if anything failed.
# A binary counts as one failure (with a line saying why) when its last line
# is not "N passed, N failed" (it crashed, or printed something after), when
# it ran no check at all ("0 passed, 0 failed": a test that cannot fail), or
# when it exits non-zero while reporting no failure.
cd "$(dirname "$0")/.." || exit 1
P=0; F=0; status=0
for t in "$@"; do
  name=$(basename "$t")
  out=$("$t" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  why=""
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
  else
    p=0; f=1
    printf '%s\n' "$out" | tail -n 20
    why="no summary line \"N passed, N failed\" at the end of its output (exit $rc)"
  fi
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; why="exit status $rc although it reports no failure"; fi
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; why="no checks ran (0 passed, 0 failed)"; fi
  if [ -n "$why" ]; then echo "FAIL $name: $why: counted as 1 failure"; fi
  if [ "$f" != 0 ]; then printf '%s\n' "$out" | grep -E 'FAIL|error|Error' | head -n 30; status=1; fi
  printf '%-28s %s\n' "$name" "$p passed, $f failed"
  P=$((P + p)); F=$((F + f))
done
echo "$P passed, $F failed"
exit $status
