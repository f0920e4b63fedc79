#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: identify two real arms from the logs shipped in datasets/, each
# twice: by unconstrained least squares and physically consistent
# (--consistent), validate both on data they were not identified on, and
# write one HTML report per arm into reports/ with the two estimates side
# by side. Prints a short summary. Run from the repository root (make demo
# does).
#   KUKA LWR4+ : identified on recordings 1 and 3 (a motion and a faster
#                one), validated on recording 2 (the first motion repeated)
#   Franka Panda: identified on the first 14 s of its log, validated on the
#                last 6.5 s (the paper's golden case uses the whole log)
# Where identify writes model files (--model-out), the consistent model goes
# to reports/out/<arm>.identified.csv and .urdf and the unconstrained one to
# <arm>.unconstrained.csv, and the report links them.
set -euo pipefail
cd "$(dirname "$0")/.."
D=./dynid
OUT=reports/out
mkdir -p "$OUT"
t0=$(date +%s)

# identify ARM MODEL "LOG [LOG...]" [options...]: both estimates of ARM
# into $OUT, and the model files where identify writes them
identify() {
  local arm=$1 model=$2 log=$3; shift 3
  # shellcheck disable=SC2086  # $log is a list of file names without blanks
  rm -f "$OUT/$arm".{unconstrained,identified}.{csv,urdf}
  $D identify "$model" $log "$@" --friction --set khalil --model-out "$OUT/$arm.unconstrained.csv" \
     -o "$OUT/$arm.unconstrained.params.csv" 2> "$OUT/$arm.identify.txt"
  $D identify "$model" $log "$@" --friction --set khalil --consistent --model-out "$OUT/$arm.identified.csv" \
     -o "$OUT/$arm.consistent.params.csv" 2> "$OUT/$arm.identify_consistent.txt"
  if [ -f "$OUT/$arm.identified.csv" ]; then   # the same model as a URDF
    $D model "$OUT/$arm.identified.csv" -o "$OUT/$arm.identified.urdf" 2> /dev/null
  fi
}

# validate ARM MODEL LOG NAME [log options...]: both estimates on one held-out
# log into $OUT/ARM.{unconstrained,consistent}.validate_NAME.csv
validate() {
  local arm=$1 model=$2 log=$3 name=$4; shift 4
  for set in unconstrained consistent; do
    $D validate "$model" "$OUT/$arm.$set.params.csv" "$log" "$@" -o "$OUT/$arm.$set.validate_$name.csv" \
      2> "$OUT/$arm.$set.validate_$name.txt"   # warnings and data findings
  done
}

# the model files written for ARM, as report --models (empty: none)
models() {
  local arm=$1 u="" c=""
  [ -f "$OUT/$arm.unconstrained.csv" ] && u="$OUT/$arm.unconstrained.csv"
  [ -f "$OUT/$arm.identified.csv" ] && c="$OUT/$arm.identified.csv"
  [ -f "$OUT/$arm.identified.urdf" ] && c="$c+$OUT/$arm.identified.urdf"
  [ -n "$u$c" ] && echo "--models=$u,$c"
  return 0
}

summary() {  # $1 arm name, $2 arm file stem, $3 training label, then NAME:LABEL per held-out log
  local title=$1 arm=$2 train=$3; shift 3
  local ilog=$OUT/$arm.identify.txt nb cond rel rise
  nb=$(grep -m1 -o '[0-9]* base parameters' "$ilog" | cut -d' ' -f1)
  cond=$(grep -m1 -o 'condition number [0-9.e+]*' "$ilog" | cut -d' ' -f3)
  rel=$(sed -n 's/^# relative error all joints \[%\]: //p' "$OUT/$arm.unconstrained.params.csv")
  rise=$(sed -n 's/^# consistent: training residual \([-+0-9.e]*\) %.*/\1/p' "$OUT/$arm.consistent.params.csv")
  printf '\n%s: %s base parameters, regressor condition number %s\n' "$title" "$nb" "$cond"
  printf '  identified on %s: training rel. error %s %% (least squares)\n' "$train" "$rel"
  for nl in "$@"; do
    local name=${nl%%:*} label=${nl#*:}
    printf '  held-out %s, rel. error per joint [%%]:\n' "$label"
    for set in unconstrained consistent; do
      local v=$OUT/$arm.$set.validate_$name.csv verdict npd
      printf '    %-14s' "$set"
      awk -F, '/^[0-9]+,/ {printf " %6.2f", $3} /^all,/ {printf "   all %5.2f", $3}' "$v"
      npd=$(sed -n 's/.*(\([0-9]*\) of \([0-9]*\) samples not positive definite).*/\1 of \2/p' "$v")
      if grep -q '^# physical consistency: consistent' "$v"; then
        verdict="certified consistent"
      elif grep -q '^# physical consistency: INCONSISTENT' "$v"; then
        verdict="inconsistent"
      else
        verdict="consistency undecided"
      fi
      case "$npd" in
        ''|0\ of*) [ "$verdict" = "certified consistent" ] || verdict="$verdict; inertia matrix positive definite" ;;
        *) verdict="$verdict: inertia matrix indefinite on $npd samples" ;;
      esac
      [ "$set" = consistent ] && verdict="$verdict; training residual $(printf '%+.0f' "$rise") %"
      printf '   (%s)\n' "$verdict"
    done
  done
}

# ---- KUKA LWR4+ (URDF of the arm, torque sensors, 200 Hz)
K=datasets/urdf/kuka_lwr4.urdf
KLOG=datasets/kuka_lwr4/measurements
echo "demo: KUKA LWR4+: identifying on ${KLOG}_1.csv.gz and ${KLOG}_3.csv.gz (unconstrained and --consistent)"
identify kuka_lwr4 $K "${KLOG}_1.csv.gz ${KLOG}_3.csv.gz" --map t=t_s
validate kuka_lwr4 $K ${KLOG}_2.csv.gz 2 --map t=t_s
echo "demo: KUKA LWR4+: writing reports/kuka_lwr4.html"
$D report $K $OUT/kuka_lwr4.unconstrained.params.csv ${KLOG}_2.csv.gz --map t=t_s \
   --compare $OUT/kuka_lwr4.consistent.params.csv --labels unconstrained,consistent $(models kuka_lwr4) \
   --title "KUKA LWR4+: identified on recordings 1 and 3, validated on recording 2" -o reports/kuka_lwr4.html

# ---- Franka Panda (model table, torque sensors, ~1 kHz)
P=datasets/models/panda.csv
PLOG=datasets/panda/exciting_traj.csv.gz
echo "demo: Franka Panda: identifying on the first 14 s of $PLOG (unconstrained and --consistent)"
identify panda $P $PLOG --map t=t_s --rows 1..14000
validate panda $P $PLOG last --map t=t_s --rows 14001..20544
echo "demo: Franka Panda: writing reports/panda.html"
$D report $P $OUT/panda.unconstrained.params.csv $PLOG --map t=t_s --rows 14001..20544 \
   --compare $OUT/panda.consistent.params.csv --labels unconstrained,consistent $(models panda) \
   --title "Franka Panda: identified on 0-14 s, validated on 14-20.5 s" -o reports/panda.html

summary "KUKA LWR4+" kuka_lwr4 "recordings 1 and 3" "2:measurements_2.csv.gz"
summary "Franka Panda" panda "0-14 s" "last:last 6.5 s (rows 14001..20544)"
printf '\nreports: reports/kuka_lwr4.html reports/panda.html (parameters, metrics and models in %s/), %d s\n' \
  "$OUT" $(( $(date +%s) - t0 ))
