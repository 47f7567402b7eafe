#!/usr/bin/env bash
# GPU calls for BAM compressed on the GPU by default (16-way, 4-byte-hash matching; #38,
# #39). Bundle: `scripts/gpu-suite.sh bundle <gatemap of afbaf79> build/tests/test_io
# build/tests/test_io_gpu ../shared/peers/strobealign`, plus data/real/*.bam (the NA12878
# and HG002 chr20 slices). From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-28-s31/run.sh tests bgzf io timeline
#   bash docs/gpu-runs/2026-11-28-s31/run.sh data timeline devices   (devices: on 2 or more GPUs)
#   bash docs/gpu-runs/2026-11-28-s31/run.sh whole            (chr20 at 30x; WHOLE_LEVELS="": the default alone)
#   bash docs/gpu-runs/2026-11-28-s31/run.sh big              (on 2 or more GPUs; BIG pairs, 12 M)
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old samtools strobealign; do
  [ -e .gpu-bundle/bin/$b ] || continue
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b
  chmod +x /tmp/bin/$b
done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
echo "$T cores" >> "$OUT/gpu.txt"
W=/tmp/io
mkdir -p $W
[ -s $W/20.fa ] || zcat .gpu-bundle/data/real/20.part*-of-6.fa.gz > $W/20.fa
export GATEMAP=/tmp/bin/gatemap SAMTOOLS=/tmp/bin/samtools TIME=/usr/bin/time THREADS=$T
for stage in "$@"; do
  case $stage in
    tests)
      for t in test_io_gpu test_io test_mapper_gpu; do
        GATEMAP_TEST_DATA=$PWD/.gpu-bundle/data/shared timeout 300 $R $t > "$W/$t.log" 2>&1
        echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
        grep -E "^\[  FAILED|Failure" -A3 "$W/$t.log" | head -20 >> "$OUT/tests.txt"
      done
      ;;
    io)  # 1 M chr20 pairs, every input and output form, this build and afbaf79, strobealign
      OLD=/tmp/bin/gatemap-old STROBEALIGN=/tmp/bin/strobealign PAIRS=1000000 ROUNDS=2 LEVELS="1 6" \
        bash scripts/bench_io.sh $W $W/20.fa > "$OUT/io.tsv" 2> "$OUT/io.err"
      grep -E "^==|time:" $W/runs.log | cut -c1-420 > "$OUT/io_runs.log"
      ;;
    bgzf)  # the compressors on the same records: 1 M pairs' BAM and the real slices
      for bam in $W/gatemap.bam .gpu-bundle/data/shared/grch37-chr20-deepvariant-testdata/*.bam; do
        [ -s "$bam" ] || continue
        for b in gatemap gatemap-old; do
          echo "== $b $(basename $bam)" >> "$OUT/bgzf.txt"
          $b bench bgzf -t $T --reps 3 "$bam" >> "$OUT/bgzf.txt" 2>&1
        done
      done
      ;;
    data)  # the 1 M pairs of `io` without its runs: index, reads, gzip -1
      cd $W
      ln -sf $W/20.fa ref.fa  # as bench_io.sh names it
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      if [ ! -s pe_2.fq.gz ]; then
        gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o pe 2> /dev/null
        for m in 1 2; do gzip -1 -c pe_$m.fq > pe_$m.fq.gz & done
        wait
      fi
      cd - > /dev/null
      ;;
    timeline)  # where a sorted, duplicate-marked BAM's time goes, GPU deflate (default) vs -l 1 vs afbaf79
      cd $W
      for run in "|gatemap" "|gatemap -l 1" "|gatemap-old" \
        "|gatemap"; do
        set -- ${run#*|}
        s=$(date +%s%N)
        env ${run%%|*} $1 map "${@:2}" -t $T -v 4 --sort --markdup -o tl.bam ref.gmi pe_1.fq.gz pe_2.fq.gz 2> tl.log
        echo "== $run: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(stat -c %s tl.bam) bytes" >> "$OUT/timeline.txt"
        grep -E "time:|(decided|sorted|written|closed) in|encoded in|D::bgzf|Real time|exiting" tl.log | cut -c1-400 >> "$OUT/timeline.txt"
      done
      cd - > /dev/null
      ;;
    devices)  # several GPUs: 4 M pairs plain FASTQ -> BAM, --device 0 vs all, this build vs afbaf79
      cd $W
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      [ -s d_2.fq ] || gatemap sim reads 20.fa -n 4000000 -l 150 -t $T --seed 12 -o d 2> /dev/null
      echo "# $T cores, $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$OUT/devices.txt"
      for r in 1 2; do
        for dev in 0 all; do
          for b in gatemap gatemap-old; do
            s=$(date +%s%N)
            /usr/bin/time -f "%e s %U user %S sys" -o t.txt $b map -t $T -v 4 --device $dev -o d$b$dev.bam ref.gmi d_1.fq d_2.fq 2> d.log
            echo "round $r $b --device $dev: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(cat t.txt), $(stat -c %s d$b$dev.bam) bytes" >> "$OUT/devices.txt"
            grep -E "time:|\[D::map\] lane|D::bgzf" d.log | cut -c1-420 >> "$OUT/devices.txt"
          done
        done
        [ $r = 1 ] && cmp <(samtools view dgatemap-old0.bam) <(samtools view dgatemapall.bam) &&
          echo "records: new --device all = old --device 0" >> "$OUT/devices.txt"
      done
      cd - > /dev/null
      ;;
    big)  # several GPUs, BIG pairs (default 12 M) plain FASTQ -> BAM, --device 0 vs all, this build alone
      cd $W
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      [ -s big_2.fq ] || gatemap sim reads 20.fa -n ${BIG:-12000000} -l 150 -t $T --seed 13 -o big 2> /dev/null
      for dev in 0 all; do
        /usr/bin/time -f "%e s %U user %S sys" -o t.txt gatemap map -t $T -v 4 --device $dev -o big$dev.bam ref.gmi big_1.fq big_2.fq 2> d.log
        echo "${BIG:-12000000} pairs --device $dev: $(cat t.txt), $(stat -c %s big$dev.bam) bytes" >> "$OUT/big.txt"
        grep -E "time:|\[D::map\] lane|Real time" d.log | cut -c1-420 >> "$OUT/big.txt"
      done
      cmp <(samtools view -@ 8 big0.bam) <(samtools view -@ 8 bigall.bam) && echo "records: --device all = --device 0" >> "$OUT/big.txt"
      cd - > /dev/null
      ;;
    whole)  # all of chr20 at 30x, gzip -> sorted markdup BAM, this build (default, -l 1) and afbaf79
      OLD=/tmp/bin/gatemap-old TABLE=0 LEVELS="${WHOLE_LEVELS-1}" WHOLE=6300000 MAP_FLAGS="-v 4" bash scripts/bench_io.sh $W $W/20.fa \
        > "$OUT/whole.tsv" 2> "$OUT/whole.err"
      ;;
  esac
done
