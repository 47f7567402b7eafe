#!/usr/bin/env bash
# fq2bam side by side (docs/BENCHMARKS.md, issue #21): on simulated pairs, in alternating
# rounds, `gatemap map` (unsorted BAM), `gatemap map --sort --markdup` (sorted,
# duplicate-marked, indexed BAM) and `gatemap map | samtools fixmate -m | samtools sort |
# samtools markdup` + `samtools index`, with the same threads; then --sort under a small
# memory budget (-m per thread) with the peak RSS gatemap reports. Prints a TSV.
# Each command's stderr is kept in OUTDIR/runs.log. OLD (a second gatemap) adds its
# `map --sort --markdup` to every round.
# LEVELS (e.g. "1") adds both gatemap commands at those BAM compression levels (map -l).
# Usage: scripts/bench_sort.sh OUTDIR [SCALE] [PAIRS] [ROUNDS]   (GATEMAP, SAMTOOLS, THREADS, SMALL_M, OLD, LEVELS)
set -euo pipefail
G=${GATEMAP:-$PWD/build/apps/gatemap}
S=${SAMTOOLS:-samtools}
OUT=$1
SCALE=${2:-0.03}
PAIRS=${3:-1000000}
ROUNDS=${4:-3}
T=${THREADS:-$(nproc)}
mkdir -p "$OUT"
cd "$OUT"
if [ ! -s ref.gmi ]; then
  $G sim genome --like grch37 --scale "$SCALE" -t "$T" -o ref.fa 2> /dev/null
  $G sim reads ref.fa -n "$PAIRS" -l 150 -t "$T" -o pe 2> /dev/null
  $G index -t "$T" -o ref.gmi ref.fa 2> /dev/null
fi
# ms OUT CMD...: CMD's wall milliseconds. Its output OUT (and OUT.bai) from the last
# round is removed before the clock starts: deleting a large file takes a few tenths of
# a second, which the run's open or rename would otherwise pay.
ms() {
  local s e
  rm -f "$1" "$1.bai"
  shift
  s=$(date +%s%N)
  "$@" > /dev/null 2> last.log
  e=$(date +%s%N)
  { echo "== $*"; cat last.log; } >> runs.log
  echo $(((e - s) / 1000000))
}
rss() { grep -o 'Peak RSS: [0-9]* MiB' "$1" | tail -1 | grep -o '[0-9]*'; }
echo "# $(date -u +%F) $(nproc) cores, -t $T, $PAIRS pairs, genome scale $SCALE"
printf "round\tcommand\twall_ms\tpeak_rss_mib\n"
for r in $(seq 1 "$ROUNDS"); do
  w=$(ms u.bam $G map -t "$T" -o u.bam ref.gmi pe_1.fq pe_2.fq)
  printf "%s\tmap\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
  w=$(ms md.bam $G map -t "$T" -v 4 --sort --markdup -o md.bam ref.gmi pe_1.fq pe_2.fq)
  printf "%s\tmap --sort --markdup\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
  for l in ${LEVELS:-}; do  # other BAM compression levels (map -l)
    w=$(ms u.bam $G map -t "$T" -l "$l" -o u.bam ref.gmi pe_1.fq pe_2.fq)
    printf "%s\tmap -l %s\t%s\t%s\n" "$r" "$l" "$w" "$(rss last.log)"
    w=$(ms md.bam $G map -t "$T" -l "$l" --sort --markdup -o md.bam ref.gmi pe_1.fq pe_2.fq)
    printf "%s\tmap --sort --markdup -l %s\t%s\t%s\n" "$r" "$l" "$w" "$(rss last.log)"
  done
  if [ -n "${OLD:-}" ]; then
    w=$(ms md_old.bam $OLD map -t "$T" --sort --markdup -o md_old.bam ref.gmi pe_1.fq pe_2.fq)
    printf "%s\tmap --sort --markdup (old build)\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
  fi
  w=$(ms smd.bam bash -c "$G map -t $T ref.gmi pe_1.fq pe_2.fq 2>/dev/null | $S fixmate -@$T -m - - | $S sort -@$T - 2>/dev/null |
    $S markdup -@$T - smd.bam && $S index -@$T smd.bam")
  printf "%s\tmap | samtools fixmate | sort | markdup; index\t%s\t\n" "$r" "$w"
done
$G map -t "$T" --sort --markdup -m "${SMALL_M:-4M}" -o small.bam ref.gmi pe_1.fq pe_2.fq 2> small.log > /dev/null
printf "1\tmap --sort --markdup -m %s (runs: %s)\t\t%s\n" "${SMALL_M:-4M}" \
  "$(grep -o '[0-9]* runs spilled' small.log | grep -o '^[0-9]*')" "$(rss small.log)"
echo "# records: --sort --markdup vs -m ${SMALL_M:-4M}: $(cmp -s <($S view md.bam) <($S view small.bam) && echo identical || echo DIFFER);" \
  "duplicates: gatemap $($S view -c -f 0x400 md.bam), samtools markdup $($S view -c -f 0x400 smd.bam)"
