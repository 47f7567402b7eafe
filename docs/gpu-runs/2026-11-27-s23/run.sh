#!/usr/bin/env bash
# GPU calls for the corrector's memory work (bundle: gatemap, gatemap-old = the build
# before it, test_correct_gpu, test_correct, samtools, bgzip, lighter; data/: chr20 parts
# and E. coli MG1655). From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-27-s23/run.sh tests ecoli map
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old samtools bgzip lighter; do [ -e .gpu-bundle/bin/$b ] || continue; printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
W=/tmp/s23
mkdir -p $W
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# wall ms and peak RSS (MB, from /proc polling: no /usr/bin/time there) of a command
run_timed() {
  local label=$1; shift
  local s=$(date +%s%N) peak=0
  "$@" & local pid=$!
  while kill -0 $pid 2>/dev/null; do
    local r=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null); [ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
    for c in $(pgrep -P $pid); do r=$(awk '/VmHWM/ {print $2}' /proc/$c/status 2>/dev/null); [ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r; done
    sleep 0.05
  done
  wait $pid; local rc=$?
  echo "$label	$(ms $s) ms	peak ${peak} kB	rc $rc"
}
for stage in "$@"; do
case $stage in
  tests)
    for t in test_correct_gpu test_correct; do [ -e .gpu-bundle/bin/$t ] || continue;
      timeout 200 $R $t > "$W/$t.log" 2>&1
      echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
    done
    tail -40 $W/test_correct_gpu.log >> "$OUT/tests.txt"
    ;;
  ecoli)  # 1 M simulated 2x150 pairs: new vs old on the GPU vs Lighter -t T, alternating; CPU twin once each
    cd $W
    zcat $OLDPWD/.gpu-bundle/data/MG1655-K12.fasta.gz > ec.fa
    glen=$(grep -v '^>' ec.fa | tr -d '\n' | wc -c)
    gatemap sim reads ec.fa -n 1000000 -l 150 --seed 31 --truth-fastq -t $T -o ec 2>/dev/null
    cat ec_1.fq ec_2.fq > both.fq; cat ec_1.true.fq ec_2.true.fq > truth.fq
    for r in 1 2; do
      for tool in gatemap gatemap-old lighter; do
        rm -rf o_$tool; mkdir o_$tool
        if [ $tool = lighter ]; then
          run_timed "$tool gpu round $r" lighter -r ec_1.fq -r ec_2.fq -K 21 $glen -t $T -od o_$tool >> "$OUT/ecoli.txt" 2> /dev/null
        else
          run_timed "$tool gpu round $r" $tool correct -t $T -v 1 --summary o_$tool/sum.txt -o o_$tool/c_1.fq -p o_$tool/c_2.fq ec_1.fq ec_2.fq >> "$OUT/ecoli.txt"
        fi
      done
    done
    for tool in gatemap gatemap-old lighter; do
      cat o_$tool/*_1.*f*q o_$tool/*_2.*f*q > cor.fq
      echo "== $tool" >> "$OUT/ecoli.txt"; gatemap eval correct both.fq cor.fq truth.fq >> "$OUT/ecoli.txt" 2>&1
    done
    grep -h "count_s\|correct_s\|read_wait\|kernel_ms\|count_table" o_gatemap/sum.txt >> "$OUT/ecoli.txt"
    cmp o_gatemap/c_1.fq o_gatemap-old/c_1.fq && cmp o_gatemap/c_2.fq o_gatemap-old/c_2.fq && echo "GPU output: new = old" >> "$OUT/ecoli.txt"
    for tool in gatemap gatemap-old; do
      run_timed "$tool cpu" $tool correct -t $T -v 1 --backend cpu -o cpu_$tool.1.fq -p cpu_$tool.2.fq ec_1.fq ec_2.fq >> "$OUT/ecoli.txt"
    done
    cmp cpu_gatemap.1.fq o_gatemap/c_1.fq && cmp cpu_gatemap.2.fq o_gatemap/c_2.fq && echo "CPU twin = GPU output" >> "$OUT/ecoli.txt"
    cd - > /dev/null
    ;;
  phases)  # where a GPU run's time goes: log lines stamped, default vs a count table sized to the input vs reads kept
    cd $W
    [ -s ec_1.fq ] || { zcat $OLDPWD/.gpu-bundle/data/MG1655-K12.fasta.gz > ec.fa; gatemap sim reads ec.fa -n 1000000 -l 150 --seed 31 --truth-fastq -t $T -o ec 2>/dev/null; }
    for opt in "" "--count-mem 4G"; do
      echo "== options: $opt" >> "$OUT/phases.txt"
      s=$(date +%s%N)
      gatemap correct -t $T -v 4 $opt --summary sum.txt -o p_1.fq -p p_2.fq ec_1.fq ec_2.fq 2>&1 |
        while IFS= read -r l; do echo "$(( ($(date +%s%N) - s) / 1000000 )) ms $l"; done >> "$OUT/phases.txt"
      echo "total $(ms $s) ms" >> "$OUT/phases.txt"; cat sum.txt >> "$OUT/phases.txt"
    done
    cd - > /dev/null
    ;;
  big)  # 10 M E. coli pairs and all of chr20 at 30x (6.3 M pairs): gatemap vs Lighter -t T, once each;
        # chr20 also in a 4 GiB count budget (parts: the cost of a pass, for a whole genome's plan)
    cd $W
    zcat $OLDPWD/.gpu-bundle/data/MG1655-K12.fasta.gz > ec.fa
    zcat $OLDPWD/.gpu-bundle/data/20.part*-of-6.fa.gz > 20.fa
    SETS=${BIG_SETS:-ec10m:ec.fa c20:20.fa}
    [[ $SETS == *ec10m* ]] && gatemap sim reads ec.fa -n 10000000 -l 150 --seed 32 -t $T -o ec10m 2>/dev/null
    [[ $SETS == *c20* ]] && gatemap sim reads 20.fa -n 6300000 -l 150 --seed 33 -t $T -o c20 2>/dev/null
    for set in $SETS; do
      p=${set%%:*} ref=${set#*:}
      glen=$(grep -v '^>' $ref | tr -d '\n' | wc -c)
      run_timed "$p gatemap gpu" gatemap correct -t $T -v 1 --summary $p.sum.txt -o g_1.fq -p g_2.fq ${p}_1.fq ${p}_2.fq >> "$OUT/big.txt"
      grep -E "count_s|correct_s|count_parts|read_passes|count_table|spectrum_bytes|solid_threshold|solid_kmers|bases_changed|wait" $p.sum.txt | tr '\n' ' ' >> "$OUT/big.txt"; echo >> "$OUT/big.txt"
      rm -f g_1.fq g_2.fq; rm -rf lo; mkdir lo
      run_timed "$p lighter" lighter -r ${p}_1.fq -r ${p}_2.fq -K 21 $glen -t $T -od lo >> "$OUT/big.txt" 2>/dev/null
      rm -rf lo
    done
    [[ $SETS == *c20* ]] && run_timed "c20 gatemap gpu --count-mem 4G" gatemap correct -t $T -v 1 --count-mem 4G --summary c20b.sum.txt -o g_1.fq -p g_2.fq c20_1.fq c20_2.fq >> "$OUT/big.txt"
    [[ $SETS == *c20* ]] && grep -E "count_s|correct_s|count_parts|read_passes|count_table|wait" c20b.sum.txt | tr '\n' ' ' >> "$OUT/big.txt"; echo >> "$OUT/big.txt"
    cd - > /dev/null
    ;;
  human)  # for a 30x human genome's plan: chr20 at 30x (6.3 M pairs) and a GRCh37-size genome at 2x
          # (20 M pairs): the count table's distinct k-mers, parts, passes, times and memory
    cd $W
    zcat $OLDPWD/.gpu-bundle/data/20.part*-of-6.fa.gz > 20.fa
    gatemap sim reads 20.fa -n 6300000 -l 150 --seed 33 -t $T -o c20 2>/dev/null
    run_timed "chr20 30x gatemap gpu" gatemap correct -t $T -v 1 --summary c20.sum.txt -o g_1.fq -p g_2.fq c20_1.fq c20_2.fq >> "$OUT/human.txt"
    cat c20.sum.txt >> "$OUT/human.txt"
    rm -f c20_* g_*
    s=$(date +%s%N); gatemap sim genome --like grch37 --scale 1 -t $T -o g37.fa 2>/dev/null; echo "sim genome $(ms $s) ms" >> "$OUT/human.txt"
    s=$(date +%s%N); gatemap sim reads g37.fa -n 20000000 -l 150 --seed 34 -t $T -o g37 2>/dev/null; echo "sim reads $(ms $s) ms" >> "$OUT/human.txt"
    rm -f g37.fa
    run_timed "GRCh37-size 2x gatemap gpu" gatemap correct -t $T -v 1 --summary g37.sum.txt -o g_1.fq -p g_2.fq g37_1.fq g37_2.fq >> "$OUT/human.txt"
    cat g37.sum.txt >> "$OUT/human.txt"
    df -h /tmp | tail -1 >> "$OUT/human.txt"
    cd - > /dev/null
    ;;
  gz)  # as a user runs it: gzip FASTQ in, compressed FASTQ out, all cores, beside plain in/out; vs Lighter
    cd $W
    zcat $OLDPWD/.gpu-bundle/data/MG1655-K12.fasta.gz > ec.fa
    glen=$(grep -v '^>' ec.fa | tr -d '\n' | wc -c)
    gatemap sim reads ec.fa -n 1000000 -l 150 --seed 31 -t $T -o ec 2>/dev/null
    gzip -1 -c ec_1.fq > ec_1.fq.gz & gzip -1 -c ec_2.fq > ec_2.fq.gz; wait
    for r in 1 2; do
      rm -rf lo; mkdir lo
      run_timed "gatemap gz->gz round $r" gatemap correct -t $T -v 1 -o c_1.fq.gz -p c_2.fq.gz ec_1.fq.gz ec_2.fq.gz >> "$OUT/gz.txt"
      run_timed "lighter gz->gz round $r" lighter -r ec_1.fq.gz -r ec_2.fq.gz -K 21 $glen -t $T -od lo >> "$OUT/gz.txt" 2>/dev/null
      run_timed "gatemap plain->plain round $r" gatemap correct -t $T -v 1 -o c_1.fq -p c_2.fq ec_1.fq ec_2.fq >> "$OUT/gz.txt"
      rm -rf lo; mkdir lo
      run_timed "lighter plain->plain round $r" lighter -r ec_1.fq -r ec_2.fq -K 21 $glen -t $T -od lo >> "$OUT/gz.txt" 2>/dev/null
    done
    ls -la lo c_1.fq.gz >> "$OUT/gz.txt"
    cmp <(zcat c_1.fq.gz) c_1.fq && echo "gz output = plain output" >> "$OUT/gz.txt"
    cd - > /dev/null
    ;;
  map)  # the read-ahead change: 1 M chr20 pairs gzip -> SAM and -> sorted markdup BAM, new vs old, records compared
    zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
    cd $W
    gatemap index -t $T -o ref.gmi 20.fa 2>/dev/null
    gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o pe 2>/dev/null
    gzip -1 -f pe_1.fq & gzip -1 -f pe_2.fq; wait
    for r in 1 2; do
      for b in gatemap gatemap-old; do
        run_timed "$b gzip->SAM round $r" $b map -t $T -v 1 -o $b.sam ref.gmi pe_1.fq.gz pe_2.fq.gz >> "$OUT/map.txt"
        run_timed "$b gzip->sorted markdup round $r" $b map -t $T -v 1 --sort --markdup -o $b.bam ref.gmi pe_1.fq.gz pe_2.fq.gz >> "$OUT/map.txt"
      done
    done
    cmp <(grep -v '^@PG' gatemap.sam) <(grep -v '^@PG' gatemap-old.sam) && echo "SAM records identical" >> "$OUT/map.txt"
    cmp <(samtools view gatemap.bam) <(samtools view gatemap-old.bam) && echo "sorted BAM records identical" >> "$OUT/map.txt"
    cd - > /dev/null
    ;;
esac
done
