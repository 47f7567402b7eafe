#!/usr/bin/env bash
# Real reads end to end (docs/BENCHMARKS.md): the NA12878 (HiSeq 101 bp, ~50x) and HG002
# (HiSeq 148 bp, ~30x) pairs of chr20:10.0-10.1 Mb from ../shared, as FASTQ, mapped to all
# of GRCh37 chromosome 20 by gatemap, bwa mem and minimap2 -ax sr with the same threads;
# samtools flagstat of each; then gatemap call on each NA12878 BAM, scored against the GIAB
# HG001 truth over the slice and inside its confident intervals.
# Usage: scripts/bench_real.sh [OUTDIR]   (needs scripts/deps.sh --bench; DATA: a folder
#   holding grch37-chr20/20.fa.gz (Debian's vt-examples: usr/share/doc/vt/examples/ref/) and
#   grch37-chr20-deepvariant-testdata/ (google/deepvariant deepvariant/testdata/input/:
#   the *.chr20.10_10p1mb.bam files, test_nist.b37_chr20_100kbp_at_10mb.vcf.gz and .bed);
#   default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GATEMAP:-$PWD/build/apps/gatemap}
D=${DATA:-$PWD/../shared/data}
OUT=${1:-/tmp/gm_bench_real}
T=$(nproc)
mkdir -p "$OUT"
cd "$OUT"
if [ ! -s 20.gmi ]; then
  if [ -s "$D/grch37-chr20/20.fa.gz" ]; then
    zcat "$D/grch37-chr20/20.fa.gz" > 20.fa
  else
    for i in 1 2 3 4 5 6; do zcat "$D/grch37-chr20/20.part$i-of-6.fa.gz"; done > 20.fa  # the same, in pieces
  fi
  samtools faidx 20.fa
  $G index -t "$T" -o 20.gmi 20.fa 2>/dev/null
  bwa index 20.fa 2>/dev/null
  minimap2 -x sr -d 20.mmi 20.fa 2>/dev/null
fi
SETS="NA12878_S1.chr20.10_10p1mb HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb"
for s in $SETS; do
  [ -s "$s.r1.fq" ] && continue
  samtools view -u -F 0x900 "$D/grch37-chr20-deepvariant-testdata/$s.bam" | samtools collate -u -O - |
    samtools fastq -1 "$s.r1.fq" -2 "$s.r2.fq" -s /dev/null -0 /dev/null - 2>/dev/null
done
wall() {  # command...: wall seconds
  local s e
  s=$(date +%s%N)
  "$@"
  e=$(date +%s%N)
  echo "scale=2; ($e - $s) / 1000000000" | bc
}
echo "# $(date -u +%F) $T threads; $(bwa 2>&1 | grep Version); minimap2 $(minimap2 --version)"
printf "reads\ttool\twall_s\tmapped\tproperly_paired\tsingletons\tmapq60\n"
for s in $SETS; do
  short=${s%%_*}
  rg="@RG\tID:$short\tSM:$short"
  w_gm=$(wall sh -c "$G map -t $T -R '$rg' -o $s.gatemap.bam 20.gmi $s.r1.fq $s.r2.fq 2>$s.gatemap.log")
  w_bwa=$(wall sh -c "bwa mem -t $T -R '$rg' 20.fa $s.r1.fq $s.r2.fq 2>/dev/null | samtools view -b -o $s.bwa.bam")
  w_mm=$(wall sh -c "minimap2 -t $T -ax sr -R '$rg' 20.mmi $s.r1.fq $s.r2.fq 2>/dev/null | samtools view -b -o $s.minimap2.bam")
  for tool in gatemap bwa minimap2; do
    w=$w_gm; [ $tool = bwa ] && w=$w_bwa; [ $tool = minimap2 ] && w=$w_mm
    samtools flagstat "$s.$tool.bam" | awk -v r="$short" -v t=$tool -v w="$w" '
      / mapped \(/ && !m { m = $1 " " $5 } /properly paired/ { p = $1 " " $6 } /singletons/ { g = $1 }
      END { gsub(/[(:]/, "", m); gsub(/[(:]/, "", p); printf "%s\t%s\t%s\t%s\t%s\t%s\t", r, t, w, m, p, g }'
    samtools view -c -F 0x904 -q 60 "$s.$tool.bam"
  done
done
# Calls from each NA12878 BAM; truth: GIAB HG001 v3.3.2 over the slice, and inside the
# GIAB confident intervals (test_giab BED).
s=NA12878_S1.chr20.10_10p1mb
DV=$D/grch37-chr20-deepvariant-testdata
zcat "$DV"/HG001_*.vcf.gz | awk '/^#/ || ($2 >= 10000000 && $2 < 10100000)' > truth.vcf
awk 'BEGIN { OFS = "\t" } { print $1, $2, $3 }' "$DV/test_giab.b37_chr20_100kbp_at_10mb.bed" > confident.bed
echo
printf "calls_from\tclass\tTP\tFP\tFN\tprecision\trecall\tF1\tconfident_exact\n"
for tool in gatemap bwa minimap2; do
  samtools sort -o "$s.$tool.sorted.bam" "$s.$tool.bam" 2>/dev/null
  $G call -t "$T" -r 20.fa -o "call.$tool.vcf" "$s.$tool.sorted.bam" 2>/dev/null
  # Inside the confident intervals: records (pos ref alt genotype) equal to the truth's?
  inside() { bcftools view -H -T confident.bed "$1" 2>/dev/null | awk '{ split($10, g, ":"); gsub(/\|/, "/", g[1]);
    if (g[1] == "1/0") g[1] = "0/1"; print $2, $4, $5, g[1] }' | sort; }
  diffs=$(comm -3 <(inside truth.vcf) <(inside "call.$tool.vcf") | wc -l)
  $G eval vcf truth.vcf "call.$tool.vcf" -r 20.fa 2>/dev/null | awk -v t=$tool -v d="$diffs" '
    $1 == "SNP" || $1 == "INDEL" { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, $1, $2, $3, $4, $5, $6, $7, (d == 0 ? "yes" : d " differ") }'
done
