#!/usr/bin/env bash
# Session 16, call 2: caller 10 Mbp, three builds alternating (new / call-1 build / 61b2a55),
# a profile of the new build's call, test_mapper_gpu. Results in one tar (few files come back).
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
GATEMAP="$PWD/$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh /tmp/gm_call > $R/call.tsv 2> $R/call.log
H=$PWD; cd /tmp/gm_call
printf "round\tbuild\twall_s\n" > $R/call_ab.tsv
for r in 1 2 3 4 5; do for g in gatemap gatemap-c1 gatemap-old; do
  st=$(date +%s%N)
  $H/$B $g call -t $T --backend gpu -r ref.fa -o $g.vcf pe.bam 2> $R/call_$g.$r.log
  printf "%s\t%s\t%s\n" $r $g "$(ms $st)" >> $R/call_ab.tsv
done; done
for g in gatemap-c1 gatemap-old; do
  cmp -s <(grep -v '^##' gatemap.vcf) <(grep -v '^##' $g.vcf) && echo "# VCF of $g identical" >> $R/call_ab.tsv || echo "# VCF of $g DIFFERS" >> $R/call_ab.tsv
done
$H/$B perf record -F 4000 -g -o /tmp/call.perf $H/$B gatemap call -t $T --backend gpu -r ref.fa -o p.vcf pe.bam 2> $R/call_perf_run.log
$H/$B perf report -i /tmp/call.perf --no-children --sort symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -80 | cut -c1-150 > $R/call_perf.txt
$H/$B perf report -i /tmp/call.perf --children --sort symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -80 | cut -c1-150 > $R/call_perf_children.txt
cd $H
GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data timeout 300 $B test_mapper_gpu > $R/test_mapper_gpu.log 2>&1
echo "test_mapper_gpu exit $? $(grep -E '\[  PASSED|FAILED' $R/test_mapper_gpu.log | head -3 | tr '\n' ' ')" >> $R/tests.txt
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/call_ab.tsv $R/tests.txt
for g in gatemap gatemap-c1 gatemap-old; do echo "== $g round 3"; grep -E '^(regions_s|assembly_s|pairhmm_s|genotype_s|batch_s|write_s|reads_s|input_wait_s|total_s)' $R/call_$g.3.log | tr '\n' ' '; echo; done
head -40 $R/call_perf.txt
