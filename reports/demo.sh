#!/usr/bin/env bash
# make demo: identify two real arms from the logs shipped in datasets/,
# validate each on data it was not identified on, and write one HTML report
# per arm into reports/. Prints a short summary. Run from the repository
# root (make demo does).
#   KUKA LWR4+ : identified on recording 1, validated on recordings 2
#                (the same motion repeated) and 3 (a faster motion)
#   Franka Panda: identified on the first 14 s of its log, validated on the
#                last 6.5 s (the paper's golden case uses the whole log)
set -euo pipefail
cd "$(dirname "$0")/.."
D=./dynid
OUT=reports/out
mkdir -p "$OUT"
t0=$(date +%s)

summary() {  # $1 arm, $2 identify log, $3.. metrics files
  local arm=$1 ilog=$2; shift 2
  local nb cond
  nb=$(grep -m1 -o '[0-9]* base parameters' "$ilog" | cut -d' ' -f1)
  cond=$(grep -m1 -o 'condition number [0-9.e+]*' "$ilog" | cut -d' ' -f3)
  printf '\n%s: %s base parameters, regressor condition number %s\n' "$arm" "$nb" "$cond"
  for mfile in "$@"; do
    printf '  held-out %-28s rel. error per joint [%%]:' "$(sed -n 's/^# held-out: //p' "$mfile")"
    awk -F, '/^[0-9]+,/ {printf " %.2f", $3} /^all,/ {printf "   all %.2f", $3}' "$mfile"
    printf '\n'
  done
}

# ---- KUKA LWR4+ (URDF of the arm, torque sensors, 200 Hz)
K=datasets/urdf/kuka_lwr4.urdf
KOPT=(--map t=t_s)
echo "demo: KUKA LWR4+: identifying on datasets/kuka_lwr4/measurements_1.csv.gz"
$D identify $K datasets/kuka_lwr4/measurements_1.csv.gz "${KOPT[@]}" --friction --set khalil \
   -o $OUT/kuka_lwr4.params.csv 2> $OUT/kuka_lwr4.identify.txt
for k in 2 3; do
  { echo "# held-out: measurements_$k.csv.gz"
    $D validate $K $OUT/kuka_lwr4.params.csv datasets/kuka_lwr4/measurements_$k.csv.gz "${KOPT[@]}"
  } > $OUT/kuka_lwr4.validate_$k.csv
done
echo "demo: KUKA LWR4+: writing reports/kuka_lwr4.html"
$D report $K $OUT/kuka_lwr4.params.csv datasets/kuka_lwr4/measurements_2.csv.gz \
   datasets/kuka_lwr4/measurements_3.csv.gz "${KOPT[@]}" \
   --title "KUKA LWR4+: identified on recording 1, validated on recordings 2 and 3" -o reports/kuka_lwr4.html

# ---- Franka Panda (model table, torque sensors, ~1 kHz)
P=datasets/models/panda.csv
PLOG=datasets/panda/exciting_traj.csv.gz
echo "demo: Franka Panda: identifying on the first 14 s of $PLOG"
$D identify $P $PLOG --map t=t_s --rows 1..14000 --friction --set khalil \
   -o $OUT/panda.params.csv 2> $OUT/panda.identify.txt
{ echo "# held-out: last 6.5 s (rows 14001..20544)"
  $D validate $P $OUT/panda.params.csv $PLOG --map t=t_s --rows 14001..20544
} > $OUT/panda.validate.csv
echo "demo: Franka Panda: writing reports/panda.html"
$D report $P $OUT/panda.params.csv $PLOG --map t=t_s --rows 14001..20544 \
   --title "Franka Panda: identified on 0-14 s, validated on 14-20.5 s" -o reports/panda.html

summary "KUKA LWR4+" $OUT/kuka_lwr4.identify.txt $OUT/kuka_lwr4.validate_2.csv $OUT/kuka_lwr4.validate_3.csv
summary "Franka Panda" $OUT/panda.identify.txt $OUT/panda.validate.csv
printf '\nreports: reports/kuka_lwr4.html reports/panda.html (parameters and metrics in %s/), %d s\n' \
  "$OUT" $(( $(date +%s) - t0 ))
