#!/usr/bin/env bash
# Index benchmark (docs/BENCHMARKS.md): gatemap index, bwa index and minimap2 -d side by
# side on synthetic GRCh37-like genomes of 10, 100 and 300 Mbp, with the machine's cores.
# Usage: scripts/bench_index.sh [OUTDIR] [SIZES_MBP...]   (needs scripts/deps.sh --bench)
set -euo pipefail
cd "$(dirname "$0")/.."
G=$PWD/build/apps/gatemap
OUT=${1:-/tmp/gm_bench_index}; shift || true
SIZES=${*:-10 100 300}
T=$(nproc)
mkdir -p "$OUT"
measure() {  # label, command...: prints label, wall s, peak RSS MiB
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$@" > /dev/null 2> "$OUT/$label.log"
  read -r wall rss < "$OUT/time.txt"
  echo "$wall $((rss / 1024))"
}
printf "size_mbp\ttool\tbuild_s\tpeak_rss_mib\tindex_mib\tload_s\n"
for mbp in $SIZES; do
  scale=$(awk -v m="$mbp" 'BEGIN { printf "%.6f", m * 1e6 / 3101804739 }')
  fa="$OUT/g$mbp.fa"
  [ -s "$fa" ] || $G sim genome --like grch37 --scale "$scale" -t "$T" -o "$fa" 2>/dev/null
  read -r w r < <(measure gm$mbp $G index -t "$T" -o "$OUT/g$mbp.gmi" "$fa")
  sz=$(( $(stat -c %s "$OUT/g$mbp.gmi") / 1048576 ))
  printf '@r\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n' > "$OUT/one.fq"
  read -r lw lr < <(measure gmload$mbp $G map "$OUT/g$mbp.gmi" "$OUT/one.fq")
  printf "%s\tgatemap\t%s\t%s\t%s\t%s\n" "$mbp" "$w" "$r" "$sz" "$lw"
  read -r w r < <(measure mm$mbp minimap2 -x sr -t "$T" -d "$OUT/g$mbp.mmi" "$fa")
  printf "%s\tminimap2 -d\t%s\t%s\t%s\t-\n" "$mbp" "$w" "$r" "$(( $(stat -c %s "$OUT/g$mbp.mmi") / 1048576 ))"
  cp "$fa" "$OUT/bwa$mbp.fa"
  read -r w r < <(measure bwa$mbp bwa index "$OUT/bwa$mbp.fa")
  bsz=$(( $(cat "$OUT/bwa$mbp.fa".{bwt,pac,sa,ann,amb} | wc -c) / 1048576 ))
  printf "%s\tbwa index\t%s\t%s\t%s\t-\n" "$mbp" "$w" "$r" "$bsz"
  rm -f "$OUT/bwa$mbp.fa"*
done
