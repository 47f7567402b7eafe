#!/usr/bin/env bash
# gatemap call, this build vs the session-start build, alternating: 1 M chr20 pairs mapped and sorted.
set -u
B=.gpu-bundle/run T=16 D=/tmp/gm_mb R=$PWD/.gpu-bundle/data/real L=$OUT/callab.log
mkdir -p $D
for i in 1 2 3 4 5 6; do zcat $R/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
$B gatemap map -t $T --sort -o $D/x.bam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2>> $L
printf "round\tbuild\twall_s\n" > $OUT/callab.tsv
for round in 1 2 3; do
  for b in gatemap gatemap-old gatemap-old gatemap; do
    rm -f $D/$b.vcf; sync
    st=$(date +%s%N)
    $B $b call -t $T -r $D/20.fa -o $D/$b.vcf $D/x.bam 2>> $L
    echo "rc $?" >> $L
    printf "%s\t%s\t%s\n" $round $b $(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') >> $OUT/callab.tsv
  done
done
cmp -s <(grep -v '^##' $D/gatemap.vcf) <(grep -v '^##' $D/gatemap-old.vcf) && echo "calls identical" | tee -a $L || echo "calls DIFFER" | tee -a $L
grep -c -v '^#' $D/gatemap.vcf
cat $OUT/callab.tsv
