#!/usr/bin/env bash
# Session 16, call 10: the mapper's worker-thread steps timed (a temporary instrumented build).
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
D=/tmp/gm_mb; mkdir -p $D; L=$R/prep.log
for i in 1 2 3 4 5 6; do zcat .gpu-bundle/data/real/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
for r in 1 2 3; do rm -f $D/x.sam; sync; $B gatemap map -t $T -o $D/x.sam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> $R/map.$r.log; done
for r in 1 2 3; do echo "== round $r"; grep -E 'PROF|time:|Real' $R/map.$r.log; done
