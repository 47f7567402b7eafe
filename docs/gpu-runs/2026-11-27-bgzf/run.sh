#!/usr/bin/env bash
# GPU calls for BAM's deflate on the GPU (bundle: gatemap, test_io_gpu, test_io, samtools,
# bgzip, time, minimap2, strobealign; data/: the chr20 parts). From the repository root,
# results in $OUT:  bash docs/gpu-runs/2026-11-27-bgzf/run.sh tests io whole bgzf
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap samtools bgzip time minimap2 strobealign; do [ -e .gpu-bundle/bin/$b ] || continue; printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
W=/tmp/io
mkdir -p $W
[ -s $W/20.fa ] || zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
export GATEMAP=/tmp/bin/gatemap SAMTOOLS=/tmp/bin/samtools TIME=/tmp/bin/time THREADS=$T
for stage in "$@"; do
case $stage in
  tests)
    for t in test_io_gpu test_io; do
      timeout 300 $R $t > "$W/$t.log" 2>&1
      echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
    done
    grep -E "FAILED|Failure" -A3 $W/test_io.log | head -30 >> "$OUT/tests.txt"
    ;;
  io)  # 1 M chr20 pairs: every input and output form, GPU deflate (default) vs -l 6 and -l 1, peers
    MINIMAP2=/tmp/bin/minimap2 STROBEALIGN=/tmp/bin/strobealign PAIRS=1000000 ROUNDS=2 LEVELS="gpu 1 6" \
      bash scripts/bench_io.sh $W $W/20.fa > "$OUT/io.tsv" 2> "$OUT/io.err"
    cp $W/runs.log "$OUT/io_runs.log"
    ;;
  whole)  # all of chr20 at 30x, gzip -> sorted markdup BAM: default (GPU deflate), -l 6, -l 1
    TABLE=0 PAIRS=1000000 LEVELS="gpu 1" WHOLE=6300000 bash scripts/bench_io.sh $W $W/20.fa > "$OUT/whole.tsv" 2> "$OUT/whole.err"
    grep -E "time:|sorted|output|GPU|bgzf" $W/runs.log | tail -30 > "$OUT/whole_runs.log"
    ;;
  bgzf)  # compression alone on the 1 M pairs' BAM
    gatemap bench bgzf -t $T --reps 3 $W/gatemap.gz.bam > "$OUT/bgzf.tsv" 2>&1
    ;;
  quick)  # after io: each BAM form on the 1 M pairs, 2 rounds: --bgzf-gpu vs -l 1 and -l 6, time breakdown
    cd $W
    for r in 1 2; do
      for l in "--bgzf-gpu" "-l 1" "-l 6"; do
        for sort in "" "--sort --markdup"; do
          s=$(date +%s%N); gatemap map -t $T $l $sort -o q.bam ref.gmi pe_1.fq.gz pe_2.fq.gz 2> q.log
          echo "round $r map $l $sort: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(stat -c %s q.bam) bytes" >> "$OUT/quick.txt"
          grep -E "ready|sorted|time:|warn" q.log | cut -c1-300 >> "$OUT/quick.txt"
        done
      done
    done
    cd - > /dev/null
    ;;
  devices)  # a multi-GPU host: 4 M pairs plain FASTQ -> BAM, --device 0 vs all, htslib's deflate vs --bgzf-gpu
    cd $W
    [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2>/dev/null
    [ -s d_2.fq ] || gatemap sim reads 20.fa -n 4000000 -l 150 -t $T --seed 12 -o d 2>/dev/null
    echo "# $(nproc) cores, $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$OUT/devices.txt"
    for r in 1 2; do
      for f in "" "--bgzf-gpu"; do
        for dev in 0 all; do
          s=$(date +%s%N); /tmp/bin/time -f "%e s %U user %S sys" -o t.txt gatemap map -t $T --device $dev $f -o d$dev$f.bam ref.gmi d_1.fq d_2.fq 2> d.log
          echo "round $r --device $dev $f: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(cat t.txt)" >> "$OUT/devices.txt"
          grep "time:" d.log | cut -c1-400 >> "$OUT/devices.txt"
        done
      done
      [ $r = 1 ] && cmp <(samtools view d0.bam) <(samtools view dall--bgzf-gpu.bam) && echo "records: --device all --bgzf-gpu = --device 0" >> "$OUT/devices.txt"
    done
    cd - > /dev/null
    ;;
esac
done
