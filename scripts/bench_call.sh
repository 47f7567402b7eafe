#!/usr/bin/env bash
# Variant-calling benchmarks (docs/BENCHMARKS.md "call"), gatemap beside bcftools mpileup |
# call -mv and freebayes on the same BAMs, scored by `gatemap eval vcf`. Prints TSV.
#   scripts/bench_call.sh [OUTDIR]: a human-like synthetic genome (GENOME_LEN), a donor from
#     `gatemap sim variants`, 30x 150 bp pairs mapped and sorted by `gatemap map --sort`.
#     env: GATEMAP, BACKENDS (gatemap call backends), GVCF=1, SKIP_OTHERS=1 (gatemap only,
#     e.g. on the GPU machine, which has neither bcftools nor freebayes)
#   scripts/bench_call.sh lowcov OUTDIR REF.fa [CONTIG:BEG-END]: where coverage is low: a
#     slice of a real reference, a donor, reads at 15x and 10x from gatemap's simulator and
#     from ART (HiSeq 2500 profile, when art_illumina is installed); also OLD (another
#     build), gatemap's calls at several --min-qual (the QUAL/precision curve) and why each
#     miss was missed (scripts/why_missed.py). env: GATEMAP OLD THREADS
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

synthetic() {
  G=${GATEMAP:-$here/../build/apps/gatemap}
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
  [ -n "${SKIP_OTHERS:-}" ] && return 0
  [ -s ref.fa.fai ] || samtools faidx ref.fa
  w=$(wall sh -c "bcftools mpileup -f ref.fa pe.bam 2>/dev/null | bcftools call -mv -o bcftools.vcf")
  score bcftools "$w" bcftools.vcf
  w=$(wall sh -c "freebayes -f ref.fa pe.bam > freebayes.vcf")
  score freebayes "$w" freebayes.vcf
}

lowcov() {
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
}

if [ "${1:-}" = lowcov ]; then
  shift
  lowcov "$@"
else
  synthetic "$@"
fi
