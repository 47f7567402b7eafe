#!/usr/bin/env bash
# Session 16, call 6: pair-HMM engine with cells taken from the plan vs the build before it
# (gatemap-prev), gpuPairHMM; a profile of `gatemap map` (chr20, 1 M pairs, GPU).
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R; H=$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
P=/tmp/gm_ph60; mkdir -p $P
for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
printf "round\ttool\twall_s\n" > $R/pairhmm60.tsv
for r in 1 2 3 4 5 6 7; do for g in gatemap gatemap-prev gpuPairHMM; do
  st=$(date +%s%N)
  if [ $g = gpuPairHMM ]; then $B gpuPairHMM --inputfile $P/x60.in --outputfile $P/gph.txt >> $R/pairhmm60_gph.log 2>&1
  else $B $g pairhmm -t $T --backend gpu -v 4 -o $P/$g.txt $P/x60.in 2>> $R/pairhmm60_$g.log; fi
  printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $R/pairhmm60.tsv
done; done
cmp -s $P/gatemap.txt $P/gatemap-prev.txt && echo "# likelihoods identical" >> $R/pairhmm60.tsv || echo "# likelihoods DIFFER" >> $R/pairhmm60.tsv
D=/tmp/gm_mb; mkdir -p $D; L=$R/prep.log
for i in 1 2 3 4 5 6; do zcat .gpu-bundle/data/real/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
for r in 1 2; do rm -f $D/x.sam; sync; st=$(date +%s%N); $B gatemap map -t $T -o $D/x.sam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> $R/map.$r.log; echo "map round $r: $(ms $st) s" >> $R/map.txt; done
rm -f $D/x.sam; sync
$B perf record -F 2000 -g -o /tmp/map.perf $B gatemap map -t $T -o $D/x.sam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> $R/map_perf_run.log
$B perf report -i /tmp/map.perf --no-children --sort dso,symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -70 | cut -c1-160 > $R/map_perf.txt
$B perf report -i /tmp/map.perf --no-children --sort tid 2>/dev/null | grep -v '^#' | grep '%' | head -40 > $R/map_perf_tid.txt
$B perf report -i /tmp/map.perf --children --sort symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -80 | cut -c1-160 > $R/map_perf_children.txt
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/pairhmm60.tsv $R/map.txt
grep -h 'engine' $R/pairhmm60_gatemap.log | cut -c60-200; grep -h engine $R/pairhmm60_gatemap-prev.log | cut -c60-200
head -30 $R/map_perf.txt; head -25 $R/map_perf_tid.txt
