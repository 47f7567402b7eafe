#!/usr/bin/env bash
# Many GPUs in one host (docs/BENCHMARKS.md "scale-out"): `--device 0`, `0,1` and `all`
# side by side, ROUNDS rounds alternating, outputs compared with --device 0's:
#   map      PAIRS simulated 2x150 pairs of REF, plain FASTQ -> BAM (also `-t 16` pinned
#            to 16 cores with one GPU: the one-H100 machine); GZ=1 adds `gzip -1` FASTQ -> BAM
#            and SAM=1 plain FASTQ -> SAM
#   call     COV x (0: no call rows) pairs of a donor of REF (sim variants) mapped to a sorted, indexed BAM,
#            called whole
#   correct  EC_PAIRS (4 M) simulated pairs of EC_REF (skipped without EC_REF)
# Per-GPU SM utilisation (nvidia-smi dmon, averaged over the run) in the last column.
# TSV on stdout; logs in OUTDIR/runs.log.
# Usage: scripts/bench_devices.sh OUTDIR REF.fa   (env: GATEMAP SAMTOOLS PAIRS COV ROUNDS EC_REF EC_PAIRS)
set -euo pipefail
abs() { [ -z "$1" ] || realpath "$(command -v "$1")"; }
G=$(abs "${GATEMAP:-build/apps/gatemap}")
S=$(abs "${SAMTOOLS:-samtools}")
OUTDIR=$1
REF=$(realpath "$2")
EC_REF=${EC_REF:+$(realpath "$EC_REF")}
PAIRS=${PAIRS:-4000000}
COV=${COV:-30}
ROUNDS=${ROUNDS:-2}
T=$(nproc)
N=$(nvidia-smi -L | wc -l)
mkdir -p "$OUTDIR"
cd "$OUTDIR"
log() { echo "[bench_devices] $(date -u +%T) $*" >&2; }
devices=("0")
[ "$N" -ge 2 ] && devices+=("0,1")
[ "$N" -ge 3 ] && devices+=("all")
# run NAME OUT CMD...: one timed run; wall seconds, peak RSS and mean SM% per GPU as TSV.
run() {
  local name=$1 out=$2
  shift 2
  rm -f "$out" "$out.bai"
  nvidia-smi dmon -s u -d 1 > dmon.txt 2>&1 &
  local dmon=$! st
  st=$(date +%s%N)
  "$@" > /dev/null 2> last.log || { echo "FAILED: $name" >&2; tail -5 last.log >&2; }
  local wall
  wall=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  kill $dmon 2> /dev/null || true
  wait $dmon 2> /dev/null || true
  { echo "== $name: $*"; cat last.log; } >> runs.log
  local sm
  sm=$(awk '$1 ~ /^[0-9]+$/ { s[$1] += $2; n[$1]++ } END { for (g = 0; g in s; g++) printf "%s%d:%.0f", (g ? " " : ""), g, s[g] / n[g] }' dmon.txt)
  printf "%s\t%s\t%s\t%s\n" "$r" "$name" "$wall" "$sm"
}
# same A B: the records (or calls, or reads) of two outputs equal, headers aside.
same() {
  case $1 in
    *.bam) cmp -s <($S view "$1") <($S view "$2") ;;
    *.vcf) cmp -s <(grep -v '^##' "$1") <(grep -v '^##' "$2") ;;
    *) cmp -s "$1" "$2" ;;
  esac && echo yes || echo NO
}

echo "# $(date -u +%F) $T cores, $N x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $PAIRS pairs of $(basename "$REF"), call at ${COV}x"
if [ ! -s ref.gmi ]; then
  log "index and reads"
  ln -sf "$REF" ref.fa
  $G index -t "$T" -o ref.gmi ref.fa 2> /dev/null
  $G sim reads ref.fa -n "$PAIRS" -l 150 -t "$T" --seed 11 -o pe 2> /dev/null
  len=$(grep -v '>' ref.fa | tr -d '\n' | wc -c)
  if [ "$COV" -gt 0 ]; then
    $G sim variants ref.fa -o donor 2> /dev/null
    $G sim reads ref.fa --vcf donor.truth.vcf.gz -n $((len * COV / 300)) -l 150 -t "$T" --seed 12 -o cov 2> /dev/null
    $G map -t "$T" --device all --sort -o cov.bam ref.gmi cov_1.fq cov_2.fq 2> /dev/null
  fi
  if [ -n "${GZ:-}" ]; then
    gzip -1 -c pe_1.fq > pe_1.fq.gz &
    gzip -1 -c pe_2.fq > pe_2.fq.gz
    wait
  fi
  if [ -n "$EC_REF" ]; then
    $G sim reads "$EC_REF" -n "${EC_PAIRS:-4000000}" -l 150 -t "$T" --seed 13 -o ec 2> /dev/null
  fi
fi
printf "round\tcommand\twall_s\tsm_percent_per_gpu\n"
for r in $(seq 1 "$ROUNDS"); do
  for d in "${devices[@]}"; do
    run "map --device $d" map_$d.bam $G map -t "$T" --device "$d" -o map_$d.bam ref.gmi pe_1.fq pe_2.fq
  done
  run "map -t 16, 16 cores, --device 0" map_16.bam taskset -c 0-15 $G map -t 16 --device 0 -o map_16.bam ref.gmi \
    pe_1.fq pe_2.fq
  for d in "${devices[@]}"; do
    [ -z "${GZ:-}" ] || run "map fq.gz --device $d" gz_$d.bam $G map -t "$T" --device "$d" -o gz_$d.bam ref.gmi \
      pe_1.fq.gz pe_2.fq.gz
    [ -z "${SAM:-}" ] || run "map ->sam --device $d" sam_$d.sam $G map -t "$T" --device "$d" -o sam_$d.sam ref.gmi \
      pe_1.fq pe_2.fq
  done
  if [ "$COV" -gt 0 ]; then
    for d in "${devices[@]}"; do
      run "call --device $d" call_$d.vcf $G call -t "$T" --device "$d" -r ref.fa -o call_$d.vcf cov.bam
    done
  fi
  if [ -n "$EC_REF" ]; then
    for d in "${devices[@]}"; do
      run "correct --device $d" ec_$d.fq $G correct -t "$T" --device "$d" -o ec_$d.fq -p ec_${d}_2.fq ec_1.fq ec_2.fq
    done
  fi
done
for d in "${devices[@]:1}"; do
  echo "# --device $d vs 0: map $(same map_0.bam map_$d.bam)$([ "$COV" -eq 0 ] || echo ", call $(same call_0.vcf call_$d.vcf)")$([ -z "${GZ:-}" ] || echo ", fq.gz $(same map_0.bam gz_$d.bam)")$([ -z "$EC_REF" ] || echo ", correct $(same ec_0.fq ec_$d.fq) $(same ec_0_2.fq ec_${d}_2.fq)")"
done
echo "# map -t 16 (16 cores) vs --device 0: $(same map_0.bam map_16.bam)"
