#!/usr/bin/env bash
# GPU calls of 2026-11-28 (s28): the verify stage's refactoring (#40) against the build
# before it (bundle: gatemap, gatemap-old = 1aac5a6, the GPU tests, samtools; data/real:
# the chr20 parts and the NA12878/HG002 slices). From the repository root, results in $OUT:
#   tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
#   bash scripts/gpu-suite.sh tests compare          -> verify-stage/
#   bash docs/gpu-runs/2026-11-28-s28/run.sh chr20 ab            -> speed/ (3 rounds)
#   ROUNDS=6 bash docs/gpu-runs/2026-11-28-s28/run.sh chr20 ab   -> speed6/
set -uo pipefail
R=$PWD/.gpu-bundle/run
T=$(nproc)
for stage in "$@"; do
  case $stage in
    ab)  # 500 k simulated pairs and single reads, filter gpu/cpu/off, 3 rounds alternating
      AB_ROUNDS=${ROUNDS:-3} bash scripts/gpu-suite.sh ab
      ;;
    chr20)  # 1 M chr20 pairs, plain FASTQ -> BAM and -> sorted, duplicate-marked BAM, ROUNDS (3)
      # rounds alternating, the builds' order swapped every round
      W=/tmp/chr20
      mkdir -p $W
      [ -s $W/20.fa ] || zcat .gpu-bundle/data/real/20.part*-of-6.fa.gz > $W/20.fa
      if [ -s /tmp/gm_compare/20.gmi ]; then ln -sf /tmp/gm_compare/20.gmi $W/20.gmi; fi
      [ -s $W/20.gmi ] || $R gatemap index -t $T -o $W/20.gmi $W/20.fa 2> /dev/null
      [ -s $W/p_2.fq ] || $R gatemap sim reads $W/20.fa -n 1000000 -l 150 -t $T --seed 12 -o $W/p 2> /dev/null
      echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $T cores; wall ms" > "$OUT/chr20.txt"
      for r in $(seq 1 "${ROUNDS:-3}"); do
        order="gatemap-old gatemap"; [ $((r % 2)) = 0 ] && order="gatemap gatemap-old"
        for f in "" "--sort --markdup"; do
          for b in $order; do
            s=$(date +%s%N)
            $R $b map -t $T $f -o $W/$b.bam $W/20.gmi $W/p_1.fq $W/p_2.fq 2> $W/log
            echo "round $r $b ${f:-unsorted}: $(( ($(date +%s%N) - s) / 1000000 ))" >> "$OUT/chr20.txt"
          done
          [ $r = 1 ] && { cmp -s <($R samtools view $W/gatemap-old.bam) <($R samtools view $W/gatemap.bam) &&
            echo "records ${f:-unsorted}: identical" || echo "records ${f:-unsorted}: DIFFER"; } >> "$OUT/chr20.txt"
        done
      done
      ;;
  esac
done
