#!/usr/bin/env bash
# A runnable example for the workflow, made by `gatemap sim`: a 1 Mbp reference of three
# contigs, two samples of 40,000 pairs (gzip FASTQ, one lane each), their truth VCFs, a
# sample sheet and a config (joint genotyping on) in DIR. Then, from the checkout:
#   snakemake -s workflow/Snakefile --configfile DIR/config.yaml --cores 4
# gives the samples' gVCFs (DIR/results/vcf/s1.g.vcf.gz, s2) and their joint genotypes
# (DIR/results/cohort.vcf.gz); score a sample against its truth with
#   bcftools view -s s1 -Oz -o s1.vcf.gz DIR/results/cohort.vcf.gz
#   gatemap eval vcf DIR/s1.truth.vcf.gz s1.vcf.gz -r DIR/reference.fa
# Usage: workflow/example/make.sh DIR [GATEMAP] (default: this checkout's build, else PATH)
set -euo pipefail
dir=${1:?usage: make.sh DIR [GATEMAP]}
here=$(cd "$(dirname "$0")" && pwd)
gatemap=${2:-$here/../../build/apps/gatemap}
[ -x "$gatemap" ] || gatemap=$(command -v gatemap) || { echo "make.sh: no gatemap binary" >&2; exit 1; }
gatemap=$(realpath "$gatemap")
mkdir -p "$dir"
dir=$(realpath "$dir")
cd "$dir"
"$gatemap" sim genome --length 1000000 --contigs 3 --seed 3 -o reference.fa 2> sim.log
printf 'sample\tread_group\tfastq_1\tfastq_2\n' > samples.tsv
for s in 1 2; do
  "$gatemap" sim variants reference.fa --seed $((40 + s)) -o s$s 2>> sim.log
  "$gatemap" sim reads reference.fa --vcf s$s.truth.vcf.gz -n 40000 --seed $((50 + s)) --gz -o s${s}_L1 2>> sim.log
  rm -f s$s.hap*.fa
  printf 's%d\ts%d_L1\t%s\t%s\n' "$s" "$s" "$dir/s${s}_L1_1.fq.gz" "$dir/s${s}_L1_2.fq.gz" >> samples.tsv
done
cat > config.yaml << CONFIG
# The example's settings (workflow/config.yaml explains each).
gatemap: "$gatemap"
reference: $dir/reference.fa
samples: $dir/samples.tsv
outdir: $dir/results
shard_reads: 20000
scatter: 4
joint: true
threads: {index: 2, correct: 2, map: 2, markdup: 2, call: 2, joint: 2}
CONFIG
echo "example in $dir: snakemake -s $here/../Snakefile --configfile $dir/config.yaml --cores 4" >&2
