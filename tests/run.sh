#!/usr/bin/env bash
# Run every test binary given, show each one's result, and close with the sum
# as "N passed, N failed" (the line CI reads). Exit 1 if anything failed.
cd "$(dirname "$0")/.." || exit 1
P=0; F=0; status=0
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
  else
    p=0; f=1
    printf '%s\n' "$out" | tail -n 20
  fi
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; echo "$(basename "$t"): no checks ran"; fi
  if [ "$f" != 0 ]; then printf '%s\n' "$out" | grep -E 'FAIL|error|Error' | head -n 30; status=1; fi
  printf '%-28s %s\n' "$(basename "$t")" "$p passed, $f failed"
  P=$((P + p)); F=$((F + f))
done
echo "$P passed, $F failed"
exit $status
