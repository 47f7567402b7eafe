#!/usr/bin/env bash
# Session 16, call 1: caller 10 Mbp new vs old (alternating), perf of the new call,
# pair-HMM 1m.in x60 new vs old vs gpuPairHMM (alternating), GPU tests.
set -uo pipefail
B=.gpu-bundle/run; T=$(nproc); O=$OUT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt
git log -1 --format='%H %s' > $O/commit.txt 2>/dev/null
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
# --- caller, 10 Mbp at 30x
GATEMAP="$PWD/$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh /tmp/gm_call > $O/call.tsv 2> $O/call.log
cd /tmp/gm_call
printf "round\tbuild\twall_s\n" > $O/call_ab.tsv
for r in 1 2 3 4; do for g in gatemap gatemap-old; do
  st=$(date +%s%N)
  $OLDPWD/$B $g call -t $T --backend gpu -r ref.fa -o $g.vcf pe.bam 2> $O/call_$g.$r.log
  printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $O/call_ab.tsv
done; done
cmp -s <(grep -v '^##' gatemap.vcf) <(grep -v '^##' gatemap-old.vcf) && echo "# VCFs identical" >> $O/call_ab.tsv || echo "# VCFs DIFFER" >> $O/call_ab.tsv
$OLDPWD/$B perf record -F 5000 -g -o /tmp/call.perf $OLDPWD/$B gatemap call -t $T --backend gpu -r ref.fa -o p.vcf pe.bam 2> $O/call_perf_run.log
$OLDPWD/$B perf report -i /tmp/call.perf --no-children --sort symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -60 | cut -c1-140 > $O/call_perf.txt
cd - > /dev/null
# --- pair-HMM x60
P=/tmp/gm_ph60; mkdir -p $P
for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
printf "round\ttool\twall_s\n" > $O/pairhmm60.tsv
for r in 1 2 3 4 5; do
  for g in gatemap gatemap-old; do
    st=$(date +%s%N); $B $g pairhmm -t $T --backend gpu -v 4 -o $P/$g.txt $P/x60.in 2>> $O/pairhmm60_$g.log
    printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $O/pairhmm60.tsv
  done
  st=$(date +%s%N); $B gpuPairHMM --inputfile $P/x60.in --outputfile $P/gph.txt >> $O/pairhmm60_gph.log 2>&1
  printf "%s\tgpuPairHMM\t%s\n" $r "$(ms $st)" >> $O/pairhmm60.tsv
done
cmp -s $P/gatemap.txt $P/gatemap-old.txt && echo "# likelihoods identical" >> $O/pairhmm60.tsv || echo "# likelihoods DIFFER" >> $O/pairhmm60.tsv
# --- GPU tests
for t in test_pairhmm_gpu test_mapper_gpu; do
  GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data timeout 200 $B $t > $O/$t.log 2>&1; echo "$t exit $? $(grep -E '\[  PASSED|FAILED' $O/$t.log | head -3 | tr '\n' ' ')" >> $O/tests.txt
done
