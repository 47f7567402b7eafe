#!/usr/bin/env bash
# Session 16, call 11: verification jobs made on the device from the seeder's clusters.
# GPU tests; chr20 1 M pairs: new vs 88006e3 (gatemap-head), filter on and off, and
# minimap2, 3 rounds alternating (sync before each); records compared.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
for t in test_mapper_gpu; do
  timeout 300 $B $t > $R/$t.log 2>&1; echo "$t exit $? $(grep -E '\[  PASSED|FAILED' $R/$t.log | head -5 | tr '\n' ' ')" >> $R/tests.txt
done
D=/tmp/gm_mb; mkdir -p $D; L=$R/prep.log
for i in 1 2 3 4 5 6; do zcat .gpu-bundle/data/real/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
$B minimap2 -x sr -d $D/20.mmi $D/20.fa >> $L 2>&1
printf "round\ttool\twall_s\n" > $R/map.tsv
for r in 1 2 3; do for v in new head new_off head_off minimap2; do
  rm -f $D/$v.sam; sync
  g=gatemap; f=; [ ${v%_off} = head ] && g=gatemap-head; [ ${v#*_} = off ] && f="--filter off"
  st=$(date +%s%N)
  if [ $v = minimap2 ]; then $B minimap2 -ax sr -t $T $D/20.mmi $D/pe_1.fq $D/pe_2.fq > $D/$v.sam 2> $R/map_$v.$r.log
  else $B $g map -t $T $f -o $D/$v.sam $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> $R/map_$v.$r.log; fi
  printf "%s\t%s\t%s\n" $r $v "$(ms $st)" >> $R/map.tsv
done; done
for p in "new head" "new new_off" "new head_off"; do set -- $p
  cmp -s <(grep -v '^@PG' $D/$1.sam) <(grep -v '^@PG' $D/$2.sam) && echo "# records $1 = $2" >> $R/map.tsv || echo "# records $1 DIFFER from $2" >> $R/map.tsv
done
for v in new head new_off head_off minimap2; do
  awk -F'\t' -v v=$v 'NR > 1 && $2 == v { print $3 }' $R/map.tsv | sort -n | awk -v v=$v '{ a[NR] = $1 } END { printf "# %s median %.3f\n", v, a[(NR + 1) / 2] }' >> $R/map.tsv
done
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/tests.txt $R/map.tsv; grep -h 'time:' $R/map_new.3.log $R/map_head.3.log
