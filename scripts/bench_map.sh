#!/usr/bin/env bash
# Mapping benchmark (docs/BENCHMARKS.md), all tools with the same threads on the same reads:
#  1. accuracy and speed of gatemap, bwa mem and minimap2 -ax sr on simulated 150 bp pairs
#     and 100 bp single reads from a GRCh37-like genome with a donor;
#  2. the GateKeeper filter on vs off at e = 2, 5, 8, best and all-mapping (-a) modes.
# Usage: scripts/bench_map.sh [OUTDIR] [SCALE] [PAIRS]   (needs scripts/deps.sh --bench)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GATEMAP:-$PWD/build/apps/gatemap}  # GATEMAP: a copy, so that rebuilding does not disturb a run
OUT=${1:-/tmp/gm_bench_map}
SCALE=${2:-0.03}
PAIRS=${3:-200000}
T=$(nproc)
FILTER=${FILTER:-auto}
source scripts/sim_data.sh
sim_donor_set "$OUT" "$SCALE" "$PAIRS"
cd "$OUT"
[ -s ref.fa.bwt ] || bwa index ref.fa 2>/dev/null
[ -s ref.mmi ] || minimap2 -x sr -d ref.mmi ref.fa 2>/dev/null
run() {  # name, output, command...: wall seconds to stdout
  local name=$1 out=$2; shift 2
  local s e
  s=$(date +%s%N)
  "$@" > "$out" 2> "$name.log"
  e=$(date +%s%N)
  echo "scale=2; ($e - $s) / 1000000000" | bc
}
echo "# $(date -u +%F) $(nproc) threads, genome scale $SCALE, $PAIRS pairs / reads; filter $FILTER"
printf "reads\ttool\twall_s\treads_per_s\tmapq60_frac\tmapq60_err\tmapq20_frac\tmapq20_err\tmapq1_frac\tmapq1_err\n"
score() {  # reads label tool wall sam
  "$G" eval map "$5" 2>/dev/null | awk -v r="$1" -v t="$2" -v w="$3" -v n="$4" '
    /^reads/ { total = $2 } $1 == 60 { f60 = $3; e60 = $5 } $1 == 20 { f20 = $3; e20 = $5 } $1 == 1 { f1 = $3; e1 = $5 }
    END { printf "%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n", r, t, w, n / w, f60, e60, f20, e20, f1, e1 }'
}
for set in pe se; do
  if [ $set = pe ]; then r1=pe_1.fq; r2=pe_2.fq; n=$((2 * PAIRS)); label="150bp pairs"; else r1=se.fq; r2=; n=$PAIRS; label="100bp single"; fi
  w=$(run gm_$set gm_$set.sam $G map -t "$T" --filter "$FILTER" ref.gmi $r1 $r2); score "$label" gatemap "$w" $n gm_$set.sam
  w=$(run bwa_$set bwa_$set.sam bwa mem -t "$T" ref.fa $r1 $r2); score "$label" "bwa mem" "$w" $n bwa_$set.sam
  w=$(run mm_$set mm_$set.sam minimap2 -ax sr -t "$T" ref.mmi $r1 $r2); score "$label" "minimap2 -ax sr" "$w" $n mm_$set.sam
done
[ -n "${SKIP_FILTER_TABLE:-}" ] && exit 0
echo
printf "mode\te\tfilter\twall_s\tverify_s\tfilter_s\tcandidates_verified\trecords\n"
for mode in best all; do
  for e in 2 5 8; do
    flag=; [ $mode = all ] && flag=-a
    for f in "$FILTER" off; do
      w=$(run fo fo_$f.sam $G map -t "$T" $flag -e $e --filter $f --stats fo_$f.json ref.gmi pe_1.fq pe_2.fq)
      v=$(grep -o '"verify": [0-9.e+-]*' fo_$f.json | cut -d' ' -f2)
      fs=$(grep -o '"filter": [0-9.e+-]*' fo_$f.json | cut -d' ' -f2)
      c=$(grep -o '"verified": [0-9]*' fo_$f.json | cut -d' ' -f2)
      rec=$(grep -o '"records": [0-9]*' fo_$f.json | cut -d' ' -f2)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $mode $e $f "$w" "$v" "$fs" "$c" "$rec"
    done
    cmp -s <(grep -v '^@PG' fo_$FILTER.sam) <(grep -v '^@PG' fo_off.sam) || echo "# e=$e $mode: RECORDS DIFFER"
  done
done
