#!/usr/bin/env bash
# Runs ON the GPU machine: two (or more) bundled gatemap builds side by side on the
# pair-HMM benchmark, alternating, in one call (machines are noisy: compare within a call).
# Copy the older binary into .gpu-bundle/bin/ (e.g. as gatemap-old) after
# scripts/gpu-test.sh, send the bundle with carry [".gpu-bundle"], then:
#   AB_BINS="gatemap-old gatemap" AB_ROUNDS=2 bash scripts/gpu-ab.sh [bench pairhmm options]
# Writes $OUT/ab-BUILD-ROUND.tsv and prints kernel GCUPS per set and the 10s file's ms.
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=.gpu-bundle/run
F=.gpu-bundle/data/pairhmm-carneiro/10s.in
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(--sizes 16,32,64,128,256,512,1024,2048)
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for v in ${AB_BINS:-gatemap-old gatemap}; do
    t="$OUT/ab-$v-$round.tsv"
    timeout 300 $B "$v" bench pairhmm --no-cpu "${ARGS[@]}" --file "$F" -o "$t" > /dev/null 2>&1
    echo "$v round $round: GCUPS $(awk -F'\t' '$1 == "equal" || $1 == "long_reads" { printf "%sx%s=%s ", $2, $3, $6 }' "$t")10s=$(awk -F'\t' '$1 ~ /10s.in$/ { print $2 }' "$t") ms"
  done
done
