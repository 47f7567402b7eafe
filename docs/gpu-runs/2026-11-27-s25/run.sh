#!/usr/bin/env bash
# GPU calls for the corrector's speed (#44) and FASTQ parsing (#38/#39). Bundle: gatemap (the
# build under test), gatemap-old (the session-start build, where present), lighter,
# test_correct_gpu, test_correct; data/: E. coli MG1655. From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-27-s25/run.sh fastq phases ecoli
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old lighter; do [ -e .gpu-bundle/bin/$b ] || continue; printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
W=/tmp/s25
mkdir -p $W
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
ecoli() {  # 1 M simulated 2x150 pairs (the corrector's benchmark set: seed 31, truth reads)
  [ -s $W/ec_1.fq ] && return
  zcat .gpu-bundle/data/MG1655-K12.fasta.gz > $W/ec.fa
  (cd $W && gatemap sim reads ec.fa -n 1000000 -l 150 --seed 31 --truth-fastq -t $T -o ec 2>/dev/null &&
    cat ec_1.fq ec_2.fq > both.fq && cat ec_1.true.fq ec_2.true.fq > truth.fq)
}
builds() { for b in gatemap gatemap-old; do [ -e .gpu-bundle/bin/$b ] && echo $b; done; }
for stage in "$@"; do
case $stage in
  fastq)  # parsing speed, lines alone vs records vs batches, at several thread counts
    ecoli
    for b in $(builds); do
      for t in $T 8 4; do echo "== $b -t $t" >> "$OUT/fastq.txt"; $b bench fastq -t $t $W/ec_1.fq $W/ec_2.fq >> "$OUT/fastq.txt" 2>&1; done
    done
    ;;
  phases)  # where a GPU run's time goes: log lines stamped (-v 4)
    ecoli
    for b in $(builds); do
      echo "== $b" >> "$OUT/phases.txt"
      s=$(date +%s%N)
      $b correct -t $T -v 4 --summary $W/sum.txt -o $W/p_1.fq -p $W/p_2.fq $W/ec_1.fq $W/ec_2.fq 2>&1 |
        while IFS= read -r l; do echo "$(( ($(date +%s%N) - s) / 1000000 )) ms $l"; done | grep -v "counted k-mers of\|corrected [0-9]* reads$" >> "$OUT/phases.txt"
      echo "total $(ms $s) ms" >> "$OUT/phases.txt"; grep _s $W/sum.txt | tr '\n' ' ' >> "$OUT/phases.txt"; echo >> "$OUT/phases.txt"
    done
    ;;
  ecoli)  # 1 M pairs: the builds on the GPU vs Lighter -t T, 2 rounds alternating; outputs compared; CPU twin once
    ecoli
    cd $W
    glen=$(grep -v '^>' ec.fa | tr -d '\n' | wc -c)
    for r in 1 2; do
      for tool in $(cd $OLDPWD && builds) lighter; do
        rm -rf o_$tool; mkdir o_$tool; s=$(date +%s%N)
        if [ $tool = lighter ]; then lighter -r ec_1.fq -r ec_2.fq -K 21 $glen -t $T -od o_$tool 2> /dev/null
        else $tool correct -t $T -v 1 -o o_$tool/c_1.fq -p o_$tool/c_2.fq ec_1.fq ec_2.fq; fi
        echo "$tool round $r $(ms $s) ms" >> "$OUT/ecoli.txt"
      done
    done
    for tool in $(cd $OLDPWD && builds) lighter; do
      cat o_$tool/*_1.*f*q o_$tool/*_2.*f*q > cor.fq
      echo "== $tool" >> "$OUT/ecoli.txt"; gatemap eval correct both.fq cor.fq truth.fq >> "$OUT/ecoli.txt" 2>&1
    done
    [ -d o_gatemap-old ] && cmp o_gatemap/c_1.fq o_gatemap-old/c_1.fq && cmp o_gatemap/c_2.fq o_gatemap-old/c_2.fq && echo "GPU output: new = old" >> "$OUT/ecoli.txt"
    s=$(date +%s%N); gatemap correct -t $T -v 1 --backend cpu -o cpu.1.fq -p cpu.2.fq ec_1.fq ec_2.fq; echo "gatemap cpu $(ms $s) ms" >> "$OUT/ecoli.txt"
    cmp cpu.1.fq o_gatemap/c_1.fq && cmp cpu.2.fq o_gatemap/c_2.fq && echo "CPU twin = GPU output" >> "$OUT/ecoli.txt"
    cd - > /dev/null
    ;;
  tests)
    for t in test_correct_gpu test_correct; do [ -e .gpu-bundle/bin/$t ] || continue
      timeout 300 $R $t > "$W/$t.log" 2>&1
      echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
    done
    ;;
esac
done
