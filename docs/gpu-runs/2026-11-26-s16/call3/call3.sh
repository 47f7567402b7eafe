#!/usr/bin/env bash
# Session 16, call 3: caller 10 Mbp: new build with the default OpenMP wait policy,
# OMP_WAIT_POLICY=PASSIVE and GOMP_SPINCOUNT=10000, old build; profile (symbols) of the new build.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
GATEMAP="$PWD/$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh /tmp/gm_call > $R/call.tsv 2> $R/call.log
H=$PWD; cd /tmp/gm_call
printf "round\tvariant\twall_s\n" > $R/call_ab.tsv
for r in 1 2 3 4 5; do for v in new passive spin10k old; do
  g=gatemap; env=; [ $v = old ] && g=gatemap-old; [ $v = passive ] && env="OMP_WAIT_POLICY=PASSIVE"; [ $v = spin10k ] && env="GOMP_SPINCOUNT=10000"
  st=$(date +%s%N)
  env $env $H/$B $g call -t $T -v 4 --backend gpu -r ref.fa -o $v.vcf pe.bam 2> $R/call_$v.$r.log
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/call_ab.tsv
done; done
for v in passive spin10k old; do
  cmp -s <(grep -v '^##' new.vcf) <(grep -v '^##' $v.vcf) && echo "# VCF of $v identical" >> $R/call_ab.tsv || echo "# VCF of $v DIFFERS" >> $R/call_ab.tsv
done
$H/$B perf record -F 4000 -g -o /tmp/call.perf $H/$B gatemap call -t $T --backend gpu -r ref.fa -o p.vcf pe.bam 2> $R/call_perf_run.log
$H/$B perf report -i /tmp/call.perf --no-children --sort dso,symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -80 | cut -c1-160 > $R/call_perf.txt
$H/$B perf report -i /tmp/call.perf --children --sort symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -80 | cut -c1-160 > $R/call_perf_children.txt
cd $H
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/call_ab.tsv
for v in new passive spin10k old; do echo "== $v round 3"; grep -E '^(regions_s|assembly_s|pairhmm_s|genotype_s|batch_s|write_s|reads_s|input_wait_s|setup_s|engine_wait_s|total_s)|exiting' $R/call_$v.3.log | tr '\n' ' '; echo; done
head -40 $R/call_perf.txt
