#!/usr/bin/env bash
# Session 16, call 8: pair-HMM engine with the shapes' costs kept per thread across chunks
# (gatemap) vs 3ab0b3f (gatemap-prev), gpuPairHMM, 1m.in x60, 7 rounds; test_pairhmm_gpu.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
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
GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data timeout 240 $B test_pairhmm_gpu > $R/test_pairhmm_gpu.log 2>&1; echo "test_pairhmm_gpu exit $? $(grep -E '\[  PASSED|FAILED' $R/test_pairhmm_gpu.log | head -3 | tr '\n' ' ')" >> $R/tests.txt
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/pairhmm60.tsv $R/tests.txt
for g in gatemap gatemap-prev; do echo "== $g"; grep -h 'D::pairhmm' $R/pairhmm60_$g.log | sed 's/.*packed in/packed in/' | cut -c1-110; grep -h 'engine' $R/pairhmm60_$g.log | sed 's/.*engine/engine/' | cut -c1-80; done
