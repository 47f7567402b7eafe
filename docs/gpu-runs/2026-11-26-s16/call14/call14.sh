#!/usr/bin/env bash
# Session 16, call 14: gatemap correct (1 M E. coli pairs, GPU) with the passive OpenMP wait
# policy (the default now) vs OMP_WAIT_POLICY=active (the behaviour before), alternating.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
D=/tmp/gm_ec; mkdir -p $D
zcat .gpu-bundle/data/real/MG1655-K12.fasta.gz > $D/ec.fa
$B gatemap sim reads $D/ec.fa -n 1000000 -l 150 --sub-rate 0.005 --indel-rate 0.0001 -t $T -o $D/p > $R/prep.log 2>&1
printf "round\tpolicy\twall_s\n" > $R/correct.tsv
for r in 1 2 3 4 5; do for v in passive active; do
  rm -rf $D/out && mkdir -p $D/out && sync
  env=; [ $v = active ] && env="OMP_WAIT_POLICY=active"
  st=$(date +%s%N)
  env $env $B gatemap correct -t $T --backend gpu -o $D/out/p_1.cor.fq -p $D/out/p_2.cor.fq $D/p_1.fq $D/p_2.fq 2> $R/correct_$v.$r.log
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/correct.tsv
  cp $D/out/p_1.cor.fq $D/$v.cor.fq
done; done
cmp -s $D/passive.cor.fq $D/active.cor.fq && echo "# corrections identical" >> $R/correct.tsv || echo "# corrections DIFFER" >> $R/correct.tsv
for v in passive active; do
  awk -F'\t' -v v=$v 'NR > 1 && $2 == v { print $3 }' $R/correct.tsv | sort -n | awk -v v=$v '{ a[NR] = $1 } END { printf "# %s median %.3f\n", v, a[(NR + 1) / 2] }' >> $R/correct.tsv
done
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/correct.tsv
