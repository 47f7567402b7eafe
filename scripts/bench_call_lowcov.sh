#!/usr/bin/env bash
# The caller where coverage is low (docs/BENCHMARKS.md "call: low coverage"): a slice of a
# real reference, a donor from `gatemap sim variants`, reads at 15x and 10x from gatemap's
# simulator and from ART (HiSeq 2500 profile, when art_illumina is installed), mapped by
# gatemap; gatemap call (and OLD, another build), bcftools mpileup | call -mv and freebayes
# on the same BAMs, scored by `gatemap eval vcf` (PASS records); then gatemap's calls at
# several --min-qual (the QUAL/precision curve) and why each miss was missed
# (scripts/why_missed.py). Prints TSV.
# Usage: scripts/bench_call_lowcov.sh OUTDIR REF.fa [CONTIG:BEG-END]   (env: GATEMAP OLD THREADS)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=$(realpath "$(command -v "${GATEMAP:-build/apps/gatemap}")")
OLD=${OLD:+$(realpath "$(command -v "$OLD")")}
OUT=$1
REF=$(realpath "$2")
SLICE=${3:-20:10000001-12000000}
T=${THREADS:-$(nproc)}
mkdir -p "$OUT"
cd "$OUT"
if [ ! -s ref.fa ]; then
  samtools faidx "$REF" "$SLICE" | sed 's/^>.*/>slice/' > ref.fa
  $G sim variants ref.fa --seed 5 -o donor 2> /dev/null
  $G index -t "$T" -o ref.gmi ref.fa 2> /dev/null
fi
len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
sets=()
for cov in 15 10; do
  name=sim${cov}x
  [ -s $name.bam ] || {
    $G sim reads ref.fa --vcf donor.truth.vcf.gz -n $((len * cov / 300)) -l 150 -t "$T" --seed $cov -o $name 2> /dev/null
    $G map -t "$T" --sort -R "@RG\tID:$name\tSM:donor" -o $name.bam ref.gmi ${name}_1.fq ${name}_2.fq 2> /dev/null
  }
  sets+=($name)
  command -v art_illumina > /dev/null || continue
  name=art${cov}x
  [ -s $name.bam ] || {
    for h in 1 2; do  # each haplotype at half the depth
      art_illumina -ss HS25 -i donor.hap$h.fa -p -l 150 -f "$(awk -v c=$cov 'BEGIN { print c / 2 }')" -m 400 -s 50 \
        -rs $((cov + h)) -na -o ${name}_h$h > /dev/null
    done
    cat ${name}_h11.fq ${name}_h21.fq > ${name}_1.fq
    cat ${name}_h12.fq ${name}_h22.fq > ${name}_2.fq
    $G map -t "$T" --sort -R "@RG\tID:$name\tSM:donor" -o $name.bam ref.gmi ${name}_1.fq ${name}_2.fq 2> /dev/null
  }
  sets+=($name)
done
score() {  # score SET CALLER VCF: one line per variant class
  $G eval vcf donor.truth.vcf.gz "$3" -r ref.fa 2> /dev/null | awk -v s="$1" -v c="$2" 'NR > 1 { print s "\t" c "\t" $0 }'
}
printf "set\tcaller\tclass\tTP\tFP\tFN\tprecision\trecall\tF1\tgenotype_concordance\n"
for s in "${sets[@]}"; do
  $G call -t "$T" -r ref.fa -o $s.gatemap.vcf.gz $s.bam 2> /dev/null
  score $s gatemap $s.gatemap.vcf.gz
  if [ -n "$OLD" ]; then
    $OLD call -t "$T" -r ref.fa -o $s.old.vcf.gz $s.bam 2> /dev/null
    score $s "gatemap (old build)" $s.old.vcf.gz
  fi
  if command -v bcftools > /dev/null; then
    bcftools mpileup -f ref.fa $s.bam 2> /dev/null | bcftools call -mv -Oz -o $s.bcftools.vcf.gz 2> /dev/null
    score $s bcftools $s.bcftools.vcf.gz
  fi
  if command -v freebayes > /dev/null; then
    freebayes -f ref.fa $s.bam 2> /dev/null | bgzip > $s.freebayes.vcf.gz
    score $s freebayes $s.freebayes.vcf.gz
  fi
  for q in 0 5 20 30; do
    $G call -t "$T" --min-qual $q -r ref.fa -o $s.q$q.vcf.gz $s.bam 2> /dev/null
    score $s "gatemap --min-qual $q" $s.q$q.vcf.gz
  done
  python3 "$here/why_missed.py" --gatemap "$G" donor.truth.vcf.gz $s.gatemap.vcf.gz $s.bam ref.fa > $s.missed.tsv \
    2> $s.missed.txt
  echo "# $s: $(cat $s.missed.txt)"
done
