#!/usr/bin/env bash
# Variant-calling benchmark (docs/BENCHMARKS.md): a human-like synthetic genome, a donor
# from `gatemap sim variants`, 30x 150 bp pairs mapped and sorted by `gatemap map --sort`;
# then gatemap call, bcftools mpileup | call -mv and freebayes on the same BAM,
# each scored with `gatemap eval vcf`.
# Usage: scripts/bench_call.sh [OUTDIR]   env: GENOME_LEN GATEMAP BACKENDS (gatemap call backends), GVCF=1,
#   SKIP_OTHERS=1 (gatemap only, e.g. on the GPU machine, which has neither bcftools nor freebayes)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GATEMAP:-$PWD/build/apps/gatemap}
OUT=${1:-/tmp/gm_bench_call}
GENOME_LEN=${GENOME_LEN:-5000000}
BACKENDS=${BACKENDS:-auto}
T=$(nproc)
mkdir -p "$OUT"
cd "$OUT"
if [ ! -s pe.bam ]; then
  $G sim genome --length "$GENOME_LEN" --contigs 4 --seed 11 -t "$T" -o ref.fa 2>/dev/null
  $G sim variants ref.fa -o donor 2>/dev/null
  $G sim reads ref.fa --vcf donor.truth.vcf.gz -n $((GENOME_LEN * 30 / 300)) -l 150 -t "$T" -o pe 2>/dev/null
  $G index -t "$T" -o ref.gmi ref.fa 2>/dev/null
  $G map -t "$T" --sort -R '@RG\tID:donor\tSM:donor' -o pe.bam ref.gmi pe_1.fq pe_2.fq 2>/dev/null
fi
wall() {  # command...: wall seconds
  local s e
  s=$(date +%s%N)
  "$@" 2>> run.log
  e=$(date +%s%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", (e - s) / 1e9 }'
}
score() {  # tool wall vcf
  $G eval vcf donor.truth.vcf.gz "$3" -r ref.fa 2>/dev/null | awk -v t="$1" -v w="$2" '
    $1 == "SNP" { s = $2 "\t" $3 "\t" $4 "\t" $7 } $1 == "INDEL" { i = $2 "\t" $3 "\t" $4 "\t" $7 }
    END { printf "%s\t%s\t%s\t%s\n", t, w, s, i }'
}
echo "# $(date -u +%F) $T threads, genome $GENOME_LEN bp, 30x 150 bp pairs; $(bcftools --version 2>/dev/null | head -1); freebayes $(freebayes --version 2>&1 | head -1)"
printf "tool\twall_s\tsnp_tp\tsnp_fp\tsnp_fn\tsnp_f1\tindel_tp\tindel_fp\tindel_fn\tindel_f1\n"
for b in $BACKENDS; do
  w=$(wall $G call -t "$T" --backend "$b" --stats gatemap_$b.json -r ref.fa -o gatemap_$b.vcf pe.bam)
  score "gatemap_call_$b" "$w" gatemap_$b.vcf
  grep -E '"(backend|regions|pairhmm|assembly_s|genotype_s|batch_s|write_s|reads_s|input_wait_s|setup_s|engine_wait_s|total_s)' \
    gatemap_$b.json | sed "s/^ */# $b: /" >&2
done
if [ -n "${GVCF:-}" ]; then  # the first backend again, writing a gVCF
  b=${BACKENDS%% *}
  w=$(wall $G call -t "$T" --backend "$b" --gvcf -r ref.fa -o gatemap_$b.g.vcf.gz pe.bam)
  echo "# gatemap call --gvcf ($b): $w s, $(zcat gatemap_$b.g.vcf.gz | grep -vc '^#') records"
fi
[ -n "${SKIP_OTHERS:-}" ] && exit 0
[ -s ref.fa.fai ] || samtools faidx ref.fa
w=$(wall sh -c "bcftools mpileup -f ref.fa pe.bam 2>/dev/null | bcftools call -mv -o bcftools.vcf")
score bcftools "$w" bcftools.vcf
w=$(wall sh -c "freebayes -f ref.fa pe.bam > freebayes.vcf")
score freebayes "$w" freebayes.vcf
