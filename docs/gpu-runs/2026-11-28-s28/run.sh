#!/usr/bin/env bash
# GPU calls of 2026-11-28 (s28): the verify stage's refactoring (#40) against the build
# before it (bundle: gatemap, gatemap-old = 1aac5a6, the GPU tests, samtools; data/real:
# the chr20 parts and the NA12878/HG002 slices). From the repository root, results in $OUT:
#   tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
#   bash scripts/gpu-suite.sh tests compare          -> verify-stage/
#   bash docs/gpu-runs/2026-11-28-s28/run.sh chr20 ab            -> speed/ (3 rounds)
#   ROUNDS=6 bash docs/gpu-runs/2026-11-28-s28/run.sh chr20 ab   -> speed6/
#   bash docs/gpu-runs/2026-11-28-s28/run.sh bind (nvidia-h100-x2) -> bind/
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
    bind)  # several GPUs: 4 M chr20 pairs, plain FASTQ -> BAM, --device 0 vs all, OpenMP threads
      # free (the default), bound to cores (OMP_PROC_BIND=close) and spread; the host's NUMA layout
      W=/tmp/bind
      mkdir -p $W
      { lscpu | grep -E "^(Model name|Socket|NUMA|Core|Thread)"; nvidia-smi topo -m; } > "$OUT/host.txt" 2>&1
      [ -s $W/20.fa ] || zcat .gpu-bundle/data/real/20.part*-of-6.fa.gz > $W/20.fa
      [ -s $W/20.gmi ] || $R gatemap index -t $T -o $W/20.gmi $W/20.fa 2> /dev/null
      [ -s $W/d_2.fq ] || $R gatemap sim reads $W/20.fa -n ${PAIRS:-4000000} -l 150 -t $T --seed 12 -o $W/d 2> /dev/null
      for r in 1 2; do
        for bind in none close spread; do
          for dev in 0 all; do
            s=$(date +%s%N)
            if [ $bind = none ]; then
              $R gatemap map -t $T --device $dev -v 4 -o $W/x.bam $W/20.gmi $W/d_1.fq $W/d_2.fq 2> $W/log
            else
              OMP_PROC_BIND=$bind OMP_PLACES=cores $R gatemap map -t $T --device $dev -v 4 -o $W/x.bam $W/20.gmi \
                $W/d_1.fq $W/d_2.fq 2> $W/log
            fi
            echo "round $r bind=$bind --device $dev: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/bind.txt"
            grep -E "lane [0-9]|time:" $W/log | cut -c1-400 >> "$OUT/bind.txt"
          done
        done
      done
      ;;
  esac
done
