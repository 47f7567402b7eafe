#!/usr/bin/env bash
# Probe: where the seconds outside "Real time" go (process start, local destructors, CUDA teardown).
set -u
B=.gpu-bundle/run T=16 D=/tmp/gm_mb R=$PWD/.gpu-bundle/data/real L=$OUT/probe.log
mkdir -p $D
if [ ! -s $D/20.gmi ]; then
for i in 1 2 3 4 5 6; do zcat $R/20.part$i-of-6.fa.gz; done > $D/20.fa
$B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
$B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o $D/pe >> $L 2>&1
$B gatemap index -t $T -o $D/20.gmi $D/20.fa >> $L 2>&1
fi
eval "$($B --env)"
nvidia-smi -q | grep -i "persistence\|Product Name" >> $L
st=$(date +%s%N); $B gatemap --version >> $L 2>&1; echo "wrapper+version: $(( ($(date +%s%N) - st) / 1000000 )) ms" >> $L
st=$(date +%s%N); .gpu-bundle/bin/gatemap --version >> $L 2>&1; echo "direct version: $(( ($(date +%s%N) - st) / 1000000 )) ms" >> $L
printf "round\tmode\tshell_ms\tpremain_ms\treal_ms\texiting_ms\tpost_ms\n" > $OUT/probe.tsv
for round in $(seq ${ROUNDS:-3}); do
  for mode in ${MODES:-0 1 2 0 1 2}; do
    rm -f $D/p.sam; sync
    st=$(date +%s%N)
    GM_PROBE=$mode .gpu-bundle/bin/gatemap map -v 4 -t $T -o $D/p.sam --backend gpu $D/20.gmi $D/pe_1.fq $D/pe_2.fq 2> /tmp/p.log
    en=$(date +%s%N)
    echo "## round $round mode $mode" >> $L; cat /tmp/p.log >> $L
    se=$(awk '/start_epoch/ { print $3 }' /tmp/p.log | tail -1)
    rt=$(awk '/Real time/ { print $4 }' /tmp/p.log)
    ex=$(awk '/exiting at/ { print $4 }' /tmp/p.log)
    awk -v st=$st -v en=$en -v se=$se -v rt=$rt -v ex=${ex:-0} -v r=$round -v m=$mode 'BEGIN {
      s = st / 1e9; e = en / 1e9; last = (ex > 0 ? ex : rt);
      printf "%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", r, m, (e - s) * 1000, (se - s) * 1000, rt * 1000, ex * 1000, (e - se - last) * 1000 }' >> $OUT/probe.tsv
  done
done
md5sum $D/p.sam >> $L
cat $OUT/probe.tsv
grep -E "device reset|released|start_epoch|at [0-9.]+ s|batch 1:|batch 2:|Real time" /tmp/p.log
