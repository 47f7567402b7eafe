#!/usr/bin/env bash
# Session 16, call 5 (final build): pair-HMM engine (ShapeMemo) vs the build before it,
# gpuPairHMM; call 10 Mbp vs 61b2a55 and --gvcf; mapbench (gm_gpu, gm_gpu_off, minimap2);
# GPU tests. Results in one tar.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R; H=$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
P=/tmp/gm_ph60; mkdir -p $P
for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
printf "round\ttool\twall_s\n" > $R/pairhmm60.tsv
for r in 1 2 3 4 5 6; do for g in gatemap gatemap-prev gpuPairHMM; do
  st=$(date +%s%N)
  if [ $g = gpuPairHMM ]; then $B gpuPairHMM --inputfile $P/x60.in --outputfile $P/gph.txt >> $R/pairhmm60_gph.log 2>&1
  else $B $g pairhmm -t $T --backend gpu -v 4 -o $P/$g.txt $P/x60.in 2>> $R/pairhmm60_$g.log; fi
  printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $R/pairhmm60.tsv
done; done
$B gatemap-old pairhmm -t $T --backend gpu -o $P/old.txt $P/x60.in 2> /dev/null
for g in gatemap-prev old; do cmp -s $P/gatemap.txt $P/$g.txt && echo "# likelihoods of $g identical" >> $R/pairhmm60.tsv || echo "# likelihoods of $g DIFFER" >> $R/pairhmm60.tsv; done
GATEMAP="$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GVCF=1 GENOME_LEN=10000000 bash scripts/bench_call.sh /tmp/gm_call > $R/call.tsv 2> $R/call.log
cd /tmp/gm_call
printf "round\tbuild\twall_s\n" > $R/call_ab.tsv
for r in 1 2 3 4 5; do for g in gatemap gatemap-old; do
  st=$(date +%s%N)
  $B $g call -t $T -v 4 --backend gpu -r ref.fa -o $g.vcf pe.bam 2> $R/call_$g.$r.log
  printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $R/call_ab.tsv
done; done
cmp -s <(grep -v '^##' gatemap.vcf) <(grep -v '^##' gatemap-old.vcf) && echo "# VCFs identical" >> $R/call_ab.tsv || echo "# VCFs DIFFER" >> $R/call_ab.tsv
cd $H
OUT=$R MB_TOOLS="gm_gpu gm_gpu_off minimap2" MB_ROUNDS=3 MB_BWA=0 bash scripts/gpu-suite.sh mapbench > $R/mapbench_stdout.log 2>&1
for t in test_pairhmm_gpu test_mapper_gpu; do
  GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data timeout 240 $B $t > $R/$t.log 2>&1; echo "$t exit $? $(grep -E '\[  PASSED|FAILED' $R/$t.log | head -3 | tr '\n' ' ')" >> $R/tests.txt
done
rm -f $R/*.sam; tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/pairhmm60.tsv $R/call_ab.tsv $R/call.tsv $R/tests.txt; cat $R/mapbench.tsv 2>/dev/null | head -20
grep -h 'engine' $R/pairhmm60_gatemap.log | cut -c1-200; grep -h engine $R/pairhmm60_gatemap-prev.log | cut -c1-200
for g in gatemap gatemap-old; do echo "== call $g r3"; grep -E '^(assembly_s|reads_s|setup_s|total_s)|exiting' $R/call_$g.3.log | tr '\n' ' '; echo; done
