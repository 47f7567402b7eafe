#!/usr/bin/env bash
# The workflow on a tiny simulated data set (two samples, two lanes each, three shards
# per lane, a few calling chunks, a SNP planted on each side of the first chunk edge):
#  1. `snakemake --cores 2` runs, and each sample's VCF has the same records as the
#     single-process commands give on the same reads (map per lane, merge, markdup, one
#     `gatemap call` over the whole genome);
#  2. after one shard's BAM is deleted, a re-run redoes that shard and what depends on it
#     (its sample's merge, calls and VCF), nothing of the other sample;
#  3. gvcf=True: gVCFs as one process writes them; joint=True: cohort.vcf.gz as `gatemap
#     joint` of them writes it;
#  4. workflow/example/make.sh's example runs as workflow/README.md says.
# Usage: workflow/test/run.sh path/to/gatemap   (needs snakemake, samtools, bcftools)
set -euo pipefail
gatemap=$(realpath "${1:?usage: run.sh path/to/gatemap}")
snakefile=$(realpath "$(dirname "$0")/../Snakefile")
for tool in snakemake samtools bcftools; do
  command -v "$tool" > /dev/null || { echo "run.sh: $tool is not installed: skipped" >&2; exit 77; }
done
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] && echo "kept: $work" >&2 || trap 'rm -rf "$work"' EXIT
cd "$work"
g() { "$gatemap" "$@" 2>> sim.log; }

# Reference: two contigs. The scatter count is the first from 3 on whose first chunk edge
# (the Snakefile's ceil(total / scatter)) lies in plain sequence, 600 bp from any N.
g sim genome --length 240000 --contigs 2 --seed 11 -o ref.fa
samtools faidx ref.fa
total=$(awk '{s += $2} END {print s}' ref.fa.fai)
scatter=0
for n in 3 4 5 6 7 8 9 10; do
  at=$(( (total + n - 1) / n ))
  read -r contig edge < <(awk -v at="$at" '{ if (at < $2) { print $1, at; exit } at -= $2 }' ref.fa.fai)
  if (( edge > 600 )) && ! samtools faidx ref.fa "$contig:$((edge - 600))-$((edge + 600))" | tail -n +2 | grep -qi n; then
    scatter=$n
    break
  fi
done
(( scatter )) || { echo "run.sh: no chunk edge in plain sequence" >&2; exit 1; }
base_at() { samtools faidx ref.fa "$contig:$1-$1" | tail -1 | tr a-z A-Z; }
other() { case $1 in A) echo C;; *) echo A;; esac; }

printf 'sample\tread_group\tfastq_1\tfastq_2\n' > samples.tsv
for s in 1 2; do
  g sim variants ref.fa --seed $((20 + s)) -o donor$s
  # Planted SNPs (homozygous) at the edge's last base of chunk 0 and first base of chunk 1,
  # replacing any simulated variant within 60 bp.
  { zcat donor$s.truth.vcf.gz | grep '^#'
    { zcat donor$s.truth.vcf.gz | grep -v '^#' \
        | awk -v c="$contig" -v e="$edge" '!($1 == c && $2 > e - 60 && $2 < e + 60)'
      for p in "$edge" $((edge + 1)); do
        b=$(base_at "$p")
        printf '%s\t%d\t.\t%s\t%s\t.\tPASS\t.\tGT\t1|1\n' "$contig" "$p" "$b" "$(other "$b")"
      done
    } | sort -k1,1V -k2,2n
  } > donor$s.vcf
  for lane in 1 2; do
    g sim reads ref.fa --vcf donor$s.vcf -n 6000 --seed $((100 * s + lane)) --gz -o s${s}_L$lane
    printf 's%d\ts%d_L%d\t%s\t%s\n' "$s" "$s" "$lane" "$PWD/s${s}_L${lane}_1.fq.gz" "$PWD/s${s}_L${lane}_2.fq.gz" >> samples.tsv
  done
done

# The insert-size model given, not estimated per shard: records (MAPQ, and with it the
# VCF's MQ) then do not depend on how the lanes are cut (workflow/README.md).
insert="--insert 400 --insert-sd 50"
config=(gatemap="$gatemap" reference="$PWD/ref.fa" samples="$PWD/samples.tsv" outdir="$PWD/results"
        shard_reads=2500 scatter=$scatter device=0 "threads={index: 2, correct: 2, map: 2, markdup: 2, call: 2}"
        "map_options=$insert")
snakemake -s "$snakefile" --cores 2 --quiet --config "${config[@]}" > snakemake.log 2>&1 \
  || { tail -50 snakemake.log >&2; exit 1; }

records() { bcftools view -H "$1"; }
fail=0
for s in 1 2; do
  # One @RG per lane in the merged BAM (shards of a lane share theirs).
  groups=$(samtools view -H results/bam/s$s.bam | grep -c '^@RG')
  if [[ "$groups" != 2 ]]; then
    echo "FAIL: sample s$s's BAM has $groups @RG lines for its 2 lanes" >&2
    fail=1
  fi
  # The single-process commands on the same reads.
  for lane in 1 2; do
    "$gatemap" map -t 2 $insert -R "@RG\tID:s${s}_L$lane\tSM:s$s\tLB:s$s\tPL:ILLUMINA" results/reference/index.gmi \
      s${s}_L${lane}_1.fq.gz s${s}_L${lane}_2.fq.gz 2> /dev/null | samtools fixmate -m -u - - | samtools sort -o one_$s$lane.bam - 2> /dev/null
  done
  samtools merge -u -o - one_${s}1.bam one_${s}2.bam | samtools markdup - one_$s.bam 2> /dev/null
  samtools index one_$s.bam
  "$gatemap" call -t 2 -r ref.fa -o one_$s.vcf.gz one_$s.bam 2> /dev/null
  if ! diff <(records one_$s.vcf.gz) <(records results/vcf/s$s.vcf.gz) > diff_$s.txt; then
    echo "FAIL: sample s$s: workflow VCF differs from the single-process one:" >&2
    head -20 diff_$s.txt >&2
    fail=1
  fi
  for p in "$edge" $((edge + 1)); do
    if ! records results/vcf/s$s.vcf.gz | awk -v c="$contig" -v p="$p" '$1 == c && $2 == p {f = 1} END {exit !f}'; then
      echo "FAIL: sample s$s: the SNP planted at $contig:$p (a chunk edge) was not called" >&2
      fail=1
    fi
  done
  chunks=$(for c in results/vcf/s$s/*.vcf.gz; do bcftools view -H "$c" | wc -l; done | awk '{s += $1} END {print s}')
  whole=$(bcftools view -H results/vcf/s$s.vcf.gz | wc -l)
  echo "sample s$s: $whole records (chunks: $chunks), single-process: $(bcftools view -H one_$s.vcf.gz | wc -l)"
done

# Re-run after deleting one shard's BAM: only that shard and what depends on it.
rm results/mapped/s1/s1_L2/00001.bam
snakemake -s "$snakefile" --cores 2 --config "${config[@]}" -n --quiet > rerun.txt 2>&1 || { cat rerun.txt >&2; exit 1; }
jobs_of() { awk -v r="$1" '$1 == r {print $2}' rerun.txt; }
expect() {
  local got
  got=$(jobs_of "$1")
  if [[ "${got:-0}" != "$2" ]]; then
    echo "FAIL: re-run plans ${got:-0} '$1' jobs, expected $2" >&2
    fail=1
  fi
}
expect map 1
expect merge_markdup 1
expect call "$scatter"
expect concat 1
expect index 0
expect shard 0
if (( fail )); then cat rerun.txt >&2; exit 1; fi

# gVCF: the same mapping, calls with --gvcf; every base of the genome in exactly one
# record across the chunks, and the variant records those of one `gatemap call --gvcf`.
snakemake -s "$snakefile" --cores 2 --quiet --config "${config[@]}" gvcf=True > snakemake_gvcf.log 2>&1 \
  || { tail -50 snakemake_gvcf.log >&2; exit 1; }
"$gatemap" call -t 2 --gvcf -r ref.fa -o one_1.g.vcf.gz one_1.bam 2> /dev/null
variants() { bcftools view -H "$1" | grep -v $'\tEND='; }
if ! diff <(variants one_1.g.vcf.gz) <(variants results/vcf/s1.g.vcf.gz) > diff_g.txt; then
  echo "FAIL: gVCF variant records differ from the single-process gVCF's:" >&2
  head -20 diff_g.txt >&2
  exit 1
fi
covered=$(bcftools view -H results/vcf/s1.g.vcf.gz | awk -F'\t' '
  { end = $2 + length($4) - 1; if (match($8, /END=[0-9]+/)) end = substr($8, RSTART + 4, RLENGTH - 4) + 0
    if ($1 != c) { c = $1; last = 0 }
    if ($2 != last + 1) bad++
    if (end > last) last = end; total[c] = last }
  END { for (k in total) s += total[k]; print (bad ? "BAD" : s) }')
if [[ "$covered" != "$total" ]]; then
  echo "FAIL: the gVCF covers $covered bases of $total (or has gaps/overlaps)" >&2
  exit 1
fi
echo "gVCF: $total bases covered once, $(variants results/vcf/s1.g.vcf.gz | wc -l) variant records as one process"

# 3, continued. joint=True: the samples' gVCFs genotyped together equal `gatemap joint` of them.
snakemake -s "$snakefile" --cores 2 --quiet --config "${config[@]}" joint=True > snakemake_joint.log 2>&1 \
  || { tail -50 snakemake_joint.log >&2; exit 1; }
"$gatemap" joint -r ref.fa -o one_joint.vcf.gz results/vcf/s1.g.vcf.gz results/vcf/s2.g.vcf.gz 2>> sim.log
if ! cmp -s <(records results/cohort.vcf.gz) <(records one_joint.vcf.gz) \
    || [[ $(bcftools query -l results/cohort.vcf.gz | tr '\n' ' ') != "s1 s2 " ]]; then
  echo "FAIL: the workflow's cohort.vcf.gz differs from 'gatemap joint' of its gVCFs" >&2
  exit 1
fi
echo "joint: $(bcftools view -H results/cohort.vcf.gz | wc -l) cohort records as one process"

# 4. The runnable example of workflow/README.md: made, run as the README says, each
# sample's joint genotypes scored against its truth.
bash "$(dirname "$snakefile")/example/make.sh" "$work/example" "$gatemap" 2>> sim.log
snakemake -s "$snakefile" --configfile "$work/example/config.yaml" --cores 2 --quiet > snakemake_example.log 2>&1 \
  || { tail -50 snakemake_example.log >&2; exit 1; }
for s in s1 s2; do
  bcftools view -s $s -Oz -o "example_$s.vcf.gz" "$work/example/results/cohort.vcf.gz"
  f1=$("$gatemap" eval vcf "$work/example/$s.truth.vcf.gz" "example_$s.vcf.gz" -r "$work/example/reference.fa" 2>> sim.log \
    | awk '$1 == "SNP" { print $7 }')
  awk -v f="$f1" 'BEGIN { exit !(f >= 0.95) }' || { echo "FAIL: the example's $s SNP F1 is $f1" >&2; exit 1; }
  echo "example: $s SNP F1 $f1"
done
echo "workflow test passed"
