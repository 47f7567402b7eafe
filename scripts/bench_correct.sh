#!/usr/bin/env bash
# Error-correction benchmark (docs/BENCHMARKS.md): gatemap correct (each backend in
# BACKENDS) and Lighter on the same simulated reads of a human-like synthetic genome,
# 100 and 150 bp at 30x and 60x, scored with `gatemap eval correct`; then the share of
# reads that map with 0 edits before and after (first MAP_READS reads of each set).
# Usage: scripts/bench_correct.sh [OUTDIR]
#   env: GENOME_LEN BACKENDS MAP_READS SETS GATEMAP LIGHTER; EXTRA (more gatemap correct
#   options, e.g. "--spectrum exact", also appended to the tool's name); SKIP_LIGHTER=1
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GATEMAP:-$PWD/build/apps/gatemap}
LIGHTER=${LIGHTER:-lighter}
OUT=${1:-/tmp/gm_bench_correct}
GENOME_LEN=${GENOME_LEN:-10000000}
BACKENDS=${BACKENDS:-cpu}
MAP_READS=${MAP_READS:-200000}
SETS=${SETS:-"100:30 100:60 150:30 150:60"}
T=$(nproc)
mkdir -p "$OUT"
cd "$OUT"
[ -s ref.fa ] || $G sim genome --length "$GENOME_LEN" --contigs 8 --seed 7 -t "$T" -o ref.fa 2>/dev/null
[ "$MAP_READS" = 0 ] || [ -s ref.gmi ] || $G index -t "$T" -o ref.gmi ref.fa 2>/dev/null
wall() {  # command...: runs it, prints wall seconds
  local s e
  s=$(date +%s%N)
  "$@" > /dev/null 2>> run.log
  e=$(date +%s%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", (e - s) / 1e9 }'
}
zero_edit() {  # fastq: share of the first MAP_READS reads mapped with NM:i:0 (primary records)
  head -n $((4 * MAP_READS)) "$1" > map_in.fq
  $G map -t "$T" ref.gmi map_in.fq 2>/dev/null | awk '!/^@/ && int($2 / 256) % 2 == 0 && int($2 / 2048) % 2 == 0 {
    n++; if (int($2 / 4) % 2 == 0 && /\tNM:i:0(\t|$)/) z++ }
    END { printf "%.4f", z / n }'
}
echo "# $(date -u +%F) $T threads, genome $GENOME_LEN bp; Lighter $($LIGHTER -v 2>&1 | head -1)"
printf "set\ttool\twall_s\treads_per_s\terrors_before\terrors_after\tfixed\tintroduced\treads_fully_corrected\tzero_edit_frac\n"
for s in $SETS; do
  len=${s%%:*} cov=${s##*:}
  n=$((GENOME_LEN * cov / len))
  name=r${len}x${cov}
  [ -s $name.fq ] || $G sim reads ref.fa --single -n "$n" -l "$len" --sub-rate 0.005 --indel-rate 0.0001 \
    --seed $((len + cov)) --truth-fastq -t "$T" -o $name 2>/dev/null
  before=$([ "$MAP_READS" = 0 ] && echo - || zero_edit $name.fq)
  printf "%s\toriginal\t-\t-\t-\t-\t-\t-\t-\t%s\n" $name "$before"
  score() {  # tool wall corrected.fq
    local z
    z=$([ "$MAP_READS" = 0 ] && echo - || zero_edit "$3")
    $G eval correct $name.fq "$3" $name.true.fq 2>/dev/null | awk -v s=$name -v t="$1" -v w="$2" -v n="$n" -v z="$z" '
      { v[$1] = $2 } END { printf "%s\t%s\t%s\t%.0f\t%d\t%d\t%d\t%d\t%d\t%s\n", s, t, w, n / w,
        v["error_rate_before"] * v["bases"] + 0.5, v["error_rate_after"] * v["bases"] + 0.5, v["errors_fixed"],
        v["errors_introduced"], v["reads_fully_corrected"], z }'
  }
  for b in $BACKENDS; do
    w=$(wall $G correct -t "$T" --backend "$b" ${EXTRA:-} -o $name.$b.fq --summary $name.$b.summary $name.fq)
    score "gatemap_$b${EXTRA:+ $EXTRA}" "$w" $name.$b.fq
    sed "s/^/# $name $b: /" $name.$b.summary >&2
  done
  [ -n "${SKIP_LIGHTER:-}" ] && continue
  rm -rf lighter_out && mkdir lighter_out
  w=$(wall $LIGHTER -r $name.fq -K 21 "$GENOME_LEN" -t "$T" -od lighter_out)
  score lighter "$w" lighter_out/$name.cor.fq
done
