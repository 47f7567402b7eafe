#!/usr/bin/env bash
# GPU calls for map's read-ahead of gzip input and its lanes' timeline (bundle: gatemap, gatemap-old,
# test_io, test_common, test_mapper_gpu, samtools, bgzip, time, strobealign; data/: the
# chr20 parts). From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-28-s27/run.sh tests io whole thp devices
# (devices and fastq: the same 4 M pairs, simulated by whichever runs first)
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old samtools bgzip time strobealign; do
  [ -e .gpu-bundle/bin/$b ] || continue
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b
  chmod +x /tmp/bin/$b
done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
W=/tmp/io
mkdir -p $W
[ -s $W/20.fa ] || zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
export GATEMAP=/tmp/bin/gatemap OLD=/tmp/bin/gatemap-old SAMTOOLS=/tmp/bin/samtools TIME=/tmp/bin/time THREADS=$T
for stage in "$@"; do
  case $stage in
    tests)
      for t in test_io test_common test_mapper_gpu; do
        timeout 300 $R $t > "$W/$t.log" 2>&1
        echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
        grep -E "^\[  FAILED|Failure" -A3 "$W/$t.log" | head -20 >> "$OUT/tests.txt"
      done
      ;;
    io)  # 1 M chr20 pairs: every input and output form, this build and the one before, strobealign
      STROBEALIGN=/tmp/bin/strobealign PAIRS=1000000 ROUNDS=2 LEVELS="1 gpu" \
        bash scripts/bench_io.sh $W $W/20.fa > "$OUT/io.tsv" 2> "$OUT/io.err"
      grep -E "^==|time:" $W/runs.log | cut -c1-420 > "$OUT/io_runs.log"
      ;;
    io_new)  # the same, this build alone (the closing call: its only change to the build before is --markdup's budget)
      OLD= STROBEALIGN=/tmp/bin/strobealign PAIRS=1000000 ROUNDS=2 LEVELS="1 gpu" \
        bash scripts/bench_io.sh $W $W/20.fa > "$OUT/io.tsv" 2> "$OUT/io.err"
      grep -E "^==|time:" $W/runs.log | cut -c1-420 > "$OUT/io_runs.log"
      ;;
    whole)  # all of chr20 at 30x, gzip -> sorted markdup BAM, this build and the one before
      TABLE=0 LEVELS="1 gpu" WHOLE=6300000 MAP_FLAGS="-v 4" bash scripts/bench_io.sh $W $W/20.fa \
        > "$OUT/whole.tsv" 2> "$OUT/whole.err"
      ;;
    thp)  # glibc asked for huge pages on malloc's heap, vs not (1 M pairs, after io_new)
      cd $W
      for r in 1 2; do
        for e in "" "glibc.malloc.hugetlb=1"; do
          for out in t.sam t.md.bam; do
            f=$([ $out = t.md.bam ] && echo "-l 1 --sort --markdup")
            s=$(date +%s%N)
            GLIBC_TUNABLES=$e gatemap map -t $T $f -o $out ref.gmi pe_1.fq.gz pe_2.fq.gz 2> t.log
            echo "round $r [$e] $out: $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -o 'Peak RSS.*' t.log)" >> "$OUT/thp.txt"
          done
        done
      done
      cd - > /dev/null
      ;;
    sortbench)  # parallel sorts of the sorter's entries and markdup's read ends (/tmp/sortbench/main.cpp, kept in this folder)
      for t in 16 $T; do OMP_NUM_THREADS=$t timeout 120 $R sortbench 12600000 >> "$OUT/sortbench.txt" 2>&1; done
      ;;
    fastq)  # the reader alone on 4 M pairs, plain and gzip -1 (and gzip -dc's own speed)
      cd $W
      [ -s d_2.fq ] || gatemap sim reads 20.fa -n 4000000 -l 150 -t $T --seed 12 -o d 2> /dev/null
      for m in 1 2; do [ -s d_$m.fq.gz ] || gzip -1 -c d_$m.fq > d_$m.fq.gz & done
      wait
      gatemap bench fastq -t $T d_1.fq d_2.fq > "$OUT/fastq.txt" 2>&1
      gatemap bench fastq -t $T d_1.fq.gz d_2.fq.gz >> "$OUT/fastq.txt" 2>&1
      s=$(date +%s%N)
      gzip -dc d_1.fq.gz | wc -c >> "$OUT/fastq.txt"
      echo "gzip -dc d_1.fq.gz: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/fastq.txt"
      cd - > /dev/null
      ;;
    devices)  # several GPUs: 4 M pairs plain FASTQ -> BAM, --device 0 vs all, new vs old
      cd $W
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      [ -s d_2.fq ] || gatemap sim reads 20.fa -n 4000000 -l 150 -t $T --seed 12 -o d 2> /dev/null
      # BIG=N: first, N pairs (e.g. 16000000) --device 0 vs all with this build alone, -v 4
      if [ -n "${BIG:-}" ]; then
        [ -s big_2.fq ] || gatemap sim reads 20.fa -n $BIG -l 150 -t $T --seed 13 -o big 2> /dev/null
        for f in "--bgzf-gpu" ""; do
          for dev in 0 all; do
            s=$(date +%s%N)
            /tmp/bin/time -f "%e s %U user %S sys" -o t.txt gatemap map -t $T -v 4 --device $dev $f -o big.bam ref.gmi big_1.fq big_2.fq 2> d.log
            echo "$BIG pairs --device $dev $f: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(cat t.txt)" >> "$OUT/devices.txt"
            grep -E "time:|\[D::(map|main)\]" d.log | cut -c1-420 >> "$OUT/devices.txt"
          done
        done
      fi
      echo "# $(nproc) cores, $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$OUT/devices.txt"
      for r in 1 2; do
        for f in "--bgzf-gpu" ""; do
          for dev in 0 all; do  # MAP_FLAGS: e.g. -v 4 for each lane's timeline
            for b in gatemap gatemap-old; do
              s=$(date +%s%N)
              /tmp/bin/time -f "%e s %U user %S sys" -o t.txt $b map -t $T ${MAP_FLAGS:-} --device $dev $f -o d$b$dev$f.bam ref.gmi d_1.fq d_2.fq 2> d.log
              echo "round $r $b --device $dev $f: $(( ($(date +%s%N) - s) / 1000000 )) ms, $(cat t.txt)" >> "$OUT/devices.txt"
              grep -E "time:|\[D::(map|main)\]" d.log | cut -c1-420 >> "$OUT/devices.txt"
            done
          done
        done
        [ $r = 1 ] && for f in "--bgzf-gpu" ""; do
          cmp <(samtools view dgatemap-old0$f.bam) <(samtools view dgatemapall$f.bam) &&
            echo "records $f: new --device all = old --device 0" >> "$OUT/devices.txt"
        done
      done
      cd - > /dev/null
      ;;
  esac
done
