#!/usr/bin/env bash
# Session 16, call 4: OpenMP wait policy (default vs OMP_WAIT_POLICY=PASSIVE) for map (chr20,
# 1 M pairs, with minimap2 and the old build), call (10 Mbp) and pairhmm (1m.in x60).
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R; H=$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
D=/tmp/gm_mb; mkdir -p $D; L=$R/prep.log
for i in 1 2 3 4 5 6; do zcat .gpu-bundle/data/real/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
$B minimap2 -x sr -d $D/20.mmi $D/20.fa >> $L 2>&1
printf "round\tvariant\twall_s\n" > $R/map.tsv
for r in 1 2 3; do for v in new passive old minimap2; do
  rm -f $D/$v.sam; g=gatemap; env=; [ $v = old ] && g=gatemap-old; [ $v = passive ] && env="OMP_WAIT_POLICY=PASSIVE"
  st=$(date +%s%N)
  if [ $v = minimap2 ]; then $B minimap2 -ax sr -t $T $D/20.mmi $D/pe_1.fq $D/pe_2.fq > $D/$v.sam 2> $R/map_$v.$r.log
  else env $env $B $g map -t $T -o $D/$v.sam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> $R/map_$v.$r.log; fi
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/map.tsv
done; done
cmp -s <(grep -v '^@PG' $D/new.sam) <(grep -v '^@PG' $D/passive.sam) && echo "# passive records identical" >> $R/map.tsv || echo "# passive records DIFFER" >> $R/map.tsv
echo "# records (cols 1-9) differing new vs old: $(diff <(grep -v '^@' $D/new.sam | cut -f1-9) <(grep -v '^@' $D/old.sam | cut -f1-9) | grep -c '^>')" >> $R/map.tsv
for v in new old minimap2; do $B gatemap eval map $D/$v.sam > $R/eval_$v.txt 2>/dev/null; done
GATEMAP="$B gatemap" BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh /tmp/gm_call > $R/call.tsv 2> $R/call.log
cd /tmp/gm_call
printf "round\tvariant\twall_s\n" > $R/call_ab.tsv
for r in 1 2 3 4 5; do for v in new passive old; do
  g=gatemap; env=; [ $v = old ] && g=gatemap-old; [ $v = passive ] && env="OMP_WAIT_POLICY=PASSIVE"
  st=$(date +%s%N)
  env $env $B $g call -t $T -v 4 --backend gpu -r ref.fa -o $v.vcf pe.bam 2> $R/call_$v.$r.log
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/call_ab.tsv
done; done
for v in passive old; do cmp -s <(grep -v '^##' new.vcf) <(grep -v '^##' $v.vcf) && echo "# VCF of $v identical" >> $R/call_ab.tsv || echo "# VCF of $v DIFFERS" >> $R/call_ab.tsv; done
cd $H; P=/tmp/gm_ph60; mkdir -p $P
for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
printf "round\tvariant\twall_s\n" > $R/pairhmm.tsv
for r in 1 2 3 4 5; do for v in new passive; do
  env=; [ $v = passive ] && env="OMP_WAIT_POLICY=PASSIVE"
  st=$(date +%s%N); env $env $B gatemap pairhmm -t $T --backend gpu -v 4 -o $P/$v.txt $P/x60.in 2> $R/pairhmm_$v.$r.log
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/pairhmm.tsv
done; done
cmp -s $P/new.txt $P/passive.txt && echo "# likelihoods identical" >> $R/pairhmm.tsv || echo "# likelihoods DIFFER" >> $R/pairhmm.tsv
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/map.tsv $R/call_ab.tsv $R/pairhmm.tsv; head -12 $R/eval_new.txt
for v in new passive old; do echo "== call $v r3"; grep -E '^(assembly_s|reads_s|setup_s|total_s)|exiting' $R/call_$v.3.log | tr '\n' ' '; echo; done
for v in new passive; do echo "== ph $v r3"; grep -E 'engine' $R/pairhmm_$v.3.log; done
