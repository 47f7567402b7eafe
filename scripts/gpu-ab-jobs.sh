#!/usr/bin/env bash
# Side-by-side timing of builds on the GPU machine: the named bundled binaries (e.g.
# gatemap and gatemap-old, copied into .gpu-bundle/bin) take turns round by round on one
# job, so that each round compares them on the same machine state; outputs are compared.
# Usage (on the GPU machine, from the repository root):
#   bash scripts/gpu-ab-jobs.sh JOB ROUNDS BUILD...
#   JOB pairhmm60: `pairhmm --backend gpu -v 4` on the PairHMM project's 1m.in x 60
#                  (BUILD gpuPairHMM runs the bundled peer on the same file)
#       call10:    `call --backend gpu -v 4` on 10 Mbp at 30x (scripts/bench_call.sh's set)
# Writes $OUT/ab_JOB.tsv (round, build, wall seconds; then whether the outputs agree) and
# each build's stderr to $OUT/ab_JOB_BUILD.log.
set -uo pipefail
job=$1 rounds=$2
shift 2
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=$PWD/.gpu-bundle/run T=$(nproc)
tsv=$OUT/ab_$job.tsv
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
case $job in
  pairhmm60)
    D=/tmp/gm_ab_ph60
    mkdir -p $D
    [ -s $D/x60.in ] || for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $D/x60.in
    run() {
      if [ "$1" = gpuPairHMM ]; then "$B" gpuPairHMM --inputfile $D/x60.in --outputfile $D/gpuPairHMM.out
      else "$B" "$1" pairhmm -t "$T" --backend gpu -v 4 -o "$D/$1.out" $D/x60.in; fi
    } ;;
  call10)
    D=/tmp/gm_ab_call
    GATEMAP="$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh $D > /dev/null 2>&1
    run() { "$B" "$1" call -t "$T" --backend gpu -v 4 -r $D/ref.fa -o "$D/$1.out" $D/pe.bam; } ;;
  *)
    echo "unknown job '$job' (pairhmm60, call10)" >&2
    exit 2 ;;
esac
printf "round\tbuild\twall_s\n" > "$tsv"
for r in $(seq "$rounds"); do
  for b in "$@"; do
    st=$(date +%s%N)
    run "$b" >> "$OUT/ab_${job}_$b.log" 2>&1
    printf "%s\t%s\t%s\n" "$r" "$b" "$(ms "$st")" >> "$tsv"
  done
done
# Outputs of the gatemap builds against the first (VCF headers carry the command line).
first=$1
for b in "$@"; do
  [ "$b" = "$first" ] || [ "$b" = gpuPairHMM ] && continue
  if cmp -s <(grep -v '^##' "$D/$first.out") <(grep -v '^##' "$D/$b.out"); then
    echo "# $b: output identical to $first's" >> "$tsv"
  else
    echo "# $b: output DIFFERS from $first's" >> "$tsv"
  fi
done
# Medians per build.
for b in "$@"; do
  awk -F'\t' -v b="$b" 'NR > 1 && $2 == b { print $3 }' "$tsv" | sort -n |
    awk -v b="$b" '{ v[NR] = $1 } END { printf "# %s median %.3f s over %d rounds\n", b, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, NR }' >> "$tsv"
done
cat "$tsv"
