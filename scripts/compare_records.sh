#!/usr/bin/env bash
# Two gatemap builds, the same records? Maps simulated pairs and single reads and (when
# ../shared/data is there) the NA12878 and HG002 chr20 slices with both binaries, in every
# setting a refactoring must keep (-e 2/5/8, -a, --filter cpu/off, and gpu when FILTERS
# names it), and compares the records byte for byte (@PG aside). Prints one line per
# setting; exits 1 if any differs.
# Usage: scripts/compare_records.sh OLD_GATEMAP NEW_GATEMAP [OUTDIR] [SCALE] [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1")
NEW=$(realpath "$2")
D=$PWD/../shared/data
OUT=${3:-/tmp/gm_compare}
SCALE=${4:-0.01}
PAIRS=${5:-40000}
T=${THREADS:-$(nproc)}
FILTERS=${FILTERS:-cpu off}
REAL_DIR=${REAL_DIR:+$(realpath "$REAL_DIR")}
G=$NEW
source scripts/sim_data.sh
sim_donor_set "$OUT" "$SCALE" "$PAIRS"
cd "$OUT"
SETS="ref.gmi:pe_1.fq:pe_2.fq ref.gmi:se.fq:"
# Real reads: from ../shared (needs samtools), or as FASTQ from REAL_DIR (the GPU bundle's
# data/real: 20.part*-of-6.fa.gz, NA12878.r1.fq.gz, ...; see scripts/gpu-test.sh).
if [ -n "${REAL_DIR:-}" ]; then
  R=$REAL_DIR
  [ -s 20.gmi ] || { zcat "$R"/20.part*-of-6.fa.gz > 20.fa && $NEW index -t "$T" -o 20.gmi 20.fa 2>/dev/null; }
  for s in NA12878 HG002; do SETS="$SETS 20.gmi:$R/$s.r1.fq.gz:$R/$s.r2.fq.gz"; done
elif [ -d "$D/grch37-chr20" ] && command -v samtools > /dev/null; then
  if [ ! -s 20.gmi ]; then
    for i in 1 2 3 4 5 6; do zcat "$D/grch37-chr20/20.part$i-of-6.fa.gz"; done > 20.fa
    $NEW index -t "$T" -o 20.gmi 20.fa 2>/dev/null
  fi
  for s in NA12878_S1 HG002_NIST_150bp_downsampled_30x; do
    b=$D/grch37-chr20-deepvariant-testdata/$s.chr20.10_10p1mb.bam
    [ -s "$s.r1.fq" ] || samtools view -u -F 0x900 "$b" | samtools collate -u -O - |
      samtools fastq -1 "$s.r1.fq" -2 "$s.r2.fq" -s /dev/null -0 /dev/null - 2>/dev/null
    SETS="$SETS 20.gmi:$s.r1.fq:$s.r2.fq"
  done
fi
fail=0
for set in $SETS; do
  IFS=: read -r idx r1 r2 <<< "$set"
  for f in $FILTERS; do
    for args in "" "-e 2" "-e 5" "-e 8" "-a" "-a -e 8"; do
      for bin in OLD NEW; do
        # shellcheck disable=SC2086
        "${!bin}" map -t "$T" --filter "$f" $args "$idx" "$r1" $r2 2> "$bin.log" | grep -v '^@PG' > "$bin.sam"
      done
      if cmp -s OLD.sam NEW.sam; then
        res=identical
      else
        res="DIFFER ($(diff OLD.sam NEW.sam | grep -c '^<') lines)"
        fail=1
      fi
      name=$(basename "$r1")
      echo "${name%%.*} filter=$f ${args:-default}: $(grep -vc '^@' NEW.sam) records $res"
    done
  done
done
exit $fail
