#!/usr/bin/env bash
# Cohorts (docs/BENCHMARKS.md "cohorts"): a simulated trio and a 10-sample cohort called
# one sample at a time, all BAMs together (`call a.bam b.bam ...`), and per-sample gVCFs
# merged by `joint`; scored per sample by `eval vcf` against each sample's truth.
#   trio     two parents from independent donors, the child one haplotype of each, at
#            DEPTHS (30 10)x: per-sample F1 of each way, Mendelian-inconsistent child
#            genotypes, and how often `joint` and the multi-BAM call agree
#   cohort   COHORT (10) samples at COHORT_DEPTH (5)x sharing half their variants (the
#            donor of seed 100 in all, one of its own each): recall of the shared variants
#            per way, beside `bcftools mpileup | bcftools call -m` of all BAMs
#   deep     a DEEP_LENGTH (20000) bp panel, one donor, at DEEP_DEPTHS (1000 5000 10000)x:
#            planted variants called PASS with their genotype, call seconds, reads seen and
#            downsampled, regions and those at the haplotype cap
#   speed    on REF_FA (a FASTA, e.g. chr20): SPEED_SAMPLES (3) donors at SPEED_DEPTH (30)x
#            called one at a time and together, and `joint` of their gVCFs with those of
#            more donors at JOINT_DEPTH (10)x up to JOINT_SAMPLES (10): wall seconds
# Usage: scripts/bench_cohort.sh STAGE... ; env: OUTDIR (/tmp/gm_cohort), GATEMAP, THREADS,
#   LENGTH (genome bp, 2000000), DEPTHS, COHORT, COHORT_DEPTH. Prints a TSV (set, way,
#   sample, measure, value) and `# ` lines; stderr of every command in OUTDIR/runs.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=$(realpath "$(command -v "${GATEMAP:-$here/../build/apps/gatemap}")")
OUTDIR=${OUTDIR:-/tmp/gm_cohort}
T=${THREADS:-$(nproc)}
LENGTH=${LENGTH:-2000000}
DEPTHS=${DEPTHS:-30 10}
COHORT=${COHORT:-10}
COHORT_DEPTH=${COHORT_DEPTH:-5}
mkdir -p "$OUTDIR"
cd "$OUTDIR"
LOG=$OUTDIR/runs.log
row() { printf "%s\t%s\t%s\t%s\t%s\n" "$@"; }
run() { echo "## $*" >> "$LOG"; "$@" 2>> "$LOG"; }
secs() { local s; s=$(date +%s%N); "$@"; awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

reference() {
  [ -s ref.gmi ] && return
  if [ -n "${REF_FA:-}" ]; then
    cp "$REF_FA" ref.fa
    LENGTH=$(awk '!/^>/ { n += length($0) } END { print n }' ref.fa)
    run "$G" index -t "$T" -o ref.gmi ref.fa
    return
  fi
  run "$G" sim genome --length "$LENGTH" --contigs 3 --seed 7 -o ref.fa
  run "$G" index -t "$T" -o ref.gmi ref.fa
}

# child MOM DAD OUT: OUT.truth.vcf.gz, the first haplotype of each parent (phased truths).
child() {
  bcftools merge --force-samples "$1.truth.vcf.gz" "$2.truth.vcf.gz" 2>> "$LOG" |
    awk -F'\t' -v OFS='\t' '/^##/ { print; next }
      /^#CHROM/ { print $1, $2, $3, $4, $5, $6, $7, $8, $9, "donor"; next }
      { split($10, m, "|"); split($11, d, "|"); if ($10 ~ /^\./) m[1] = 0; if ($11 ~ /^\./) d[1] = 0
        if (m[1] == 0 && d[1] == 0) next
        print $1, $2, $3, $4, $5, $6, $7, $8, "GT", m[1] "|" d[1] }' | bcftools view -Oz -o "$3.truth.vcf.gz"
  bcftools index -f -t "$3.truth.vcf.gz"
}

# with_shared OWN SHARED OUT: OUT.truth.vcf.gz, the variants of both donors (the shared
# one's where both have a variant at a position).
with_shared() {
  bcftools concat -a -D "$2.truth.vcf.gz" "$1.truth.vcf.gz" 2>> "$LOG" | bcftools sort -Oz -o "$3.truth.vcf.gz" 2>> "$LOG"
  bcftools index -f -t "$3.truth.vcf.gz"
}

# sample NAME DEPTH: NAME.DEPTH.bam (sorted, indexed, @RG SM:NAME) from NAME's truth. Each
# sample's reads get a seed of their own: with one seed, samples sharing a haplotype got
# the same reads with the same errors there, which a multi-sample call takes for variants.
sample() {
  local name=$1 depth=$2 pairs seed
  [ -s "$name.$depth.bam" ] && return
  pairs=$((LENGTH * depth / 300))
  seed=$((depth * 100000 + $(printf %s "$name" | cksum | cut -d' ' -f1) % 100000))
  run "$G" sim reads ref.fa --vcf "$name.truth.vcf.gz" -n "$pairs" --seed "$seed" -t "$T" \
    -o "$name.$depth"
  run "$G" map -t "$T" --sort -R "@RG\tID:$name\tSM:$name" -o "$name.$depth.bam" ref.gmi "$name.${depth}_1.fq" \
    "$name.${depth}_2.fq"
  rm -f "$name.${depth}"_[12].fq
}

# score SET WAY NAME VCF: the sample's F1 (and recall) against its truth.
score() {
  local set=$1 way=$2 name=$3 vcf=$4
  bcftools view -s "$name" -Oz -o "$set.$way.$name.vcf.gz" "$vcf" 2>> "$LOG"
  run "$G" eval vcf "$name.truth.vcf.gz" "$set.$way.$name.vcf.gz" -r ref.fa > "$set.$way.$name.eval" || true
  awk -v s="$set" -v w="$way" -v n="$name" '$1 == "SNP" || $1 == "INDEL" { printf "%s\t%s\t%s\tF1_%s\t%s\n", s, w, n, $1, $7 }' \
    "$set.$way.$name.eval"
}

# three_ways SET NAMES...: single, multi (all BAMs) and joint (gVCFs) calls of the set's BAMs.
three_ways() {
  local set=$1 n t; shift
  local bams=() gvcfs=()
  for n in "$@"; do bams+=("$n.bam"); done
  t=0
  for n in "$@"; do
    t=$(awk -v a="$t" -v b="$(secs run "$G" call -t "$T" -r ref.fa -o "$set.single.$n.all.vcf.gz" "$n.bam")" 'BEGIN { print a + b }')
    run "$G" call -t "$T" --gvcf -r ref.fa -o "$set.$n.g.vcf.gz" "$n.bam"
    gvcfs+=("$set.$n.g.vcf.gz")
  done
  row "$set" single all call_s "$t"
  row "$set" multi all call_s "$(secs run "$G" call -t "$T" -r ref.fa -o "$set.multi.vcf.gz" "${bams[@]}")"
  row "$set" joint all joint_s "$(secs run "$G" joint -t "$T" -r ref.fa -o "$set.joint.vcf.gz" "${gvcfs[@]}")"
  for n in "$@"; do
    score "$set" single "$n" "$set.single.$n.all.vcf.gz"
    score "$set" multi "$n" "$set.multi.vcf.gz"
    score "$set" joint "$n" "$set.joint.vcf.gz"
  done
}

# Genotype strings per site of a multi-sample VCF: CHROM POS REF ALT GT...
genotypes() { bcftools query -f '%CHROM\t%POS\t%REF\t%ALT[\t%GT]\n' "$1" | sed 's#|#/#g'; }

for stage in "$@"; do
  case $stage in
    trio)
      reference
      [ -s mom.truth.vcf.gz ] || run "$G" sim variants ref.fa --seed 1 -o mom
      [ -s dad.truth.vcf.gz ] || run "$G" sim variants ref.fa --seed 2 -o dad
      [ -s kid.truth.vcf.gz ] || child mom dad kid
      for depth in $DEPTHS; do
        for n in mom dad kid; do sample "$n" "$depth"; ln -sf "$n.$depth.bam" "$n.bam"; ln -sf "$n.$depth.bam.bai" "$n.bam.bai"; done
        three_ways "trio$depth" mom dad kid
        for way in multi joint; do  # the child's non-reference genotypes its parents cannot give
          genotypes "trio$depth.$way.vcf.gz" | awk -v set="trio$depth" -v way="$way" '
            function ok(k, m, d,   a, b, x, y) {
              split(k, a, "/"); split(m, x, "/"); split(d, y, "/")
              return ((a[1] == x[1] || a[1] == x[2]) && (a[2] == y[1] || a[2] == y[2])) ||
                     ((a[2] == x[1] || a[2] == x[2]) && (a[1] == y[1] || a[1] == y[2]))
            }
            $5 ~ /\./ || $6 ~ /\./ || $7 ~ /\./ { next }
            $7 != "0/0" { n++; if (!ok($7, $5, $6)) bad++ }
            END { printf "%s\t%s\tkid\tmendelian_inconsistent\t%d of %d (%.3f%%)\n", set, way, bad, n, 100 * bad / (n ? n : 1) }'
        done
        join -j1 <(genotypes "trio$depth.multi.vcf.gz" | awk '{ print $1 ":" $2 ":" $3 ":" $4, $5, $6, $7 }' | sort) \
          <(genotypes "trio$depth.joint.vcf.gz" | awk '{ print $1 ":" $2 ":" $3 ":" $4, $5, $6, $7 }' | sort) |
          awk -v set="trio$depth" '{ n++; same += ($2 == $5 && $3 == $6 && $4 == $7) }
            END { printf "%s\tjoint_vs_multi\tall\tsame_genotypes\t%d of %d sites (%.2f%%)\n", set, same, n, 100 * same / (n ? n : 1) }'
      done ;;
    cohort)
      reference
      [ -s shared.truth.vcf.gz ] || run "$G" sim variants ref.fa --seed 100 --snp-rate 0.0005 --indel-rate 0.00007 -o shared
      names=()
      for i in $(seq "$COHORT"); do
        n=s$i; names+=("$n")
        [ -s "$n.truth.vcf.gz" ] || { run "$G" sim variants ref.fa --seed $((200 + i)) --snp-rate 0.0005 \
          --indel-rate 0.00007 -o "own$i"; with_shared "own$i" shared "$n"; }
        sample "$n" "$COHORT_DEPTH"; ln -sf "$n.$COHORT_DEPTH.bam" "$n.bam"; ln -sf "$n.$COHORT_DEPTH.bam.bai" "$n.bam.bai"
      done
      three_ways cohort "${names[@]}"
      bcftools mpileup -f ref.fa -a AD,DP "${names[@]/%/.bam}" 2>> "$LOG" | bcftools call -mv -Oz -o cohort.bcftools.vcf.gz 2>> "$LOG"
      for n in "${names[@]}"; do score cohort bcftools "$n" cohort.bcftools.vcf.gz; done
      # Recall of the shared variants: sites of the shared truth a sample is called non-reference at.
      for way in single multi joint bcftools; do
        for n in "${names[@]}"; do
          bcftools query -i 'GT!="0/0" && GT!="./."' -f '%CHROM:%POS:%REF:%ALT\n' "cohort.$way.$n.vcf.gz" 2>> "$LOG"
        done | sort | uniq -c | awk '{ print $2, $1 }' > "cohort.$way.called"
        bcftools query -f '%CHROM:%POS:%REF:%ALT\n' shared.truth.vcf.gz | sort |
          join - <(sort cohort.$way.called) -a1 | awk -v way="$way" -v n="$COHORT" '
            { called += ($2 == "" ? 0 : $2); total += n }
            END { printf "cohort\t%s\tall\tshared_recall\t%.4f\n", way, called / total }'
      done ;;
    deep)
      mkdir -p deep
      [ -s deep/ref.gmi ] || { run "$G" sim genome --length "${DEEP_LENGTH:-20000}" --contigs 1 --seed 9 -o deep/ref.fa
        run "$G" index -o deep/ref.gmi deep/ref.fa; run "$G" sim variants deep/ref.fa --seed 21 -o deep/donor; }
      planted=$(gzip -dc deep/donor.truth.vcf.gz | grep -vc '^#')
      for depth in ${DEEP_DEPTHS:-1000 5000 10000}; do
        d=deep/x$depth
        if [ ! -s "$d.bam" ]; then
          run "$G" sim reads deep/ref.fa --vcf deep/donor.truth.vcf.gz -n $((${DEEP_LENGTH:-20000} * depth / 300)) \
            --seed "$depth" -t "$T" -o "$d"
          run "$G" map -t "$T" --sort -R "@RG\tID:x$depth\tSM:donor" -o "$d.bam" deep/ref.gmi "${d}_1.fq" "${d}_2.fq"
          rm -f "${d}"_[12].fq
        fi
        row deep "${depth}x" donor call_s "$(secs run "$G" call -t "$T" --stats "$d.json" -r deep/ref.fa -o "$d.vcf.gz" "$d.bam")"
        run "$G" eval vcf deep/donor.truth.vcf.gz "$d.vcf.gz" -r deep/ref.fa > "$d.eval"
        awk -v d="${depth}x" -v n="$planted" '$1 == "SNP" || $1 == "INDEL" { tp += $2; fp += $3; gt += $2 * $8 }
          END { printf "deep\t%s\tdonor\tPASS_right_genotype\t%d of %d (FP %d)\n", d, gt + 0.5, n, fp }' "$d.eval"
        for k in reads reads_downsampled regions regions_capped; do
          row deep "${depth}x" donor "$k" "$(grep -o "\"$k\": [0-9]*" "$d.json" | grep -o '[0-9]*$')"
        done
      done ;;
    speed)
      reference
      [ -n "${REF_FA:-}" ] && LENGTH=$(awk '!/^>/ { n += length($0) } END { print n }' ref.fa)
      bams=() gvcfs=() t=0
      for i in $(seq "${JOINT_SAMPLES:-10}"); do
        n=d$i depth=${SPEED_DEPTH:-30}
        [ "$i" -le "${SPEED_SAMPLES:-3}" ] || depth=${JOINT_DEPTH:-10}
        [ -s "$n.truth.vcf.gz" ] || run "$G" sim variants ref.fa --seed $((300 + i)) -t "$T" -o "$n"
        sample "$n" "$depth"
        row speed "$n" "$n" "gvcf_call_s" "$(secs run "$G" call -t "$T" --gvcf -r ref.fa -o "$n.g.vcf.gz" "$n.$depth.bam")"
        gvcfs+=("$n.g.vcf.gz")
        if [ "$i" -le "${SPEED_SAMPLES:-3}" ]; then
          bams+=("$n.$depth.bam")
          t=$(awk -v a="$t" -v b="$(secs run "$G" call -t "$T" -r ref.fa -o "$n.vcf.gz" "$n.$depth.bam")" 'BEGIN { print a + b }')
        fi
      done
      row speed single "${#bams[@]}" call_s_summed "$t"
      row speed multi "${#bams[@]}" call_s "$(secs run "$G" call -t "$T" -r ref.fa -o multi.vcf.gz "${bams[@]}")"
      row speed joint "${SPEED_SAMPLES:-3}" joint_s \
        "$(secs run "$G" joint -t "$T" -r ref.fa -o joint_first.vcf.gz "${gvcfs[@]:0:${SPEED_SAMPLES:-3}}")"
      row speed joint "${#gvcfs[@]}" joint_s "$(secs run "$G" joint -t "$T" -r ref.fa -o joint.vcf.gz "${gvcfs[@]}")"
      for v in multi.vcf.gz joint_first.vcf.gz joint.vcf.gz; do
        row speed "$v" all records "$(gzip -dc "$v" | grep -vc '^#')"
      done ;;
    *) echo "unknown stage '$stage'" >&2; exit 2 ;;
  esac
done
