#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run every test binary given, show each one's result and seconds, and close
# with the sum as "N passed, N failed" (the line CI reads). Exit 1 if
# anything failed. The programs run DYNID_TEST_JOBS at a time (default: the
# number of processors; each test writes only files of its own name); the
# results are printed in the order given, each as soon as it and those
# before it have ended.
# A binary counts as one failure (with a line saying why) when its last line
# is not "N passed, N failed" (it crashed, or printed something after), when
# it ran no check at all ("0 passed, 0 failed": a test that cannot fail), or
# when it exits non-zero while reporting no failure.
cd "$(dirname "$0")/.." || exit 1
JOBS=${DYNID_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
# one BLAS thread per test when they run side by side (busy-waiting BLAS
# threads of two programs on the same processors slow both several times)
[ "$JOBS" -gt 1 ] && export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
T=$(mktemp -d /tmp/dynid-run.XXXXXX) || exit 1
trap 'kill $launcher 2>/dev/null; rm -rf "$T"' EXIT
tests=("$@")

run_one() {  # index program: output, exit status and seconds into $T
  local s=$SECONDS rc
  "$2" >"$T/$1.out" 2>&1; rc=$?
  echo "$rc $((SECONDS - s))" >"$T/$1.tmp" && mv "$T/$1.tmp" "$T/$1.rc"
}
(
  for i in "${!tests[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run_one "$i" "${tests[$i]}" &
  done
  wait
) &
launcher=$!

P=0; F=0; status=0
for i in "${!tests[@]}"; do
  name=$(basename "${tests[$i]}")
  while [ ! -f "$T/$i.rc" ]; do sleep 0.1; done
  read -r rc sec <"$T/$i.rc"
  out=$(cat "$T/$i.out")
  last=$(printf '%s\n' "$out" | tail -n 1)
  why=""
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
  else
    p=0; f=1
    printf '%s\n' "$out" | tail -n 20
    why="no summary line \"N passed, N failed\" at the end of its output (exit $rc)"
  fi
  if [ "$rc" -ne 0 ] && [ "$f" = 0 ]; then f=1; why="exit status $rc although it reports no failure"; fi
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; why="no checks ran (0 passed, 0 failed)"; fi
  if [ -n "$why" ]; then echo "FAIL $name: $why: counted as 1 failure"; fi
  if [ "$f" != 0 ]; then printf '%s\n' "$out" | grep -E 'FAIL|error|Error' | head -n 30; status=1; fi
  printf '%-28s %-26s %4ss\n' "$name" "$p passed, $f failed" "$sec"
  P=$((P + p)); F=$((F + f))
done
wait
echo "$P passed, $F failed"
exit $status
