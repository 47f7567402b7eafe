#!/usr/bin/env bash
# GPU calls of 2026-11-28 (s33): a pair's likelihood independent of its batch (call --device
# all byte-identical) and plain FASTQ mapped, not read (#39). Bundle: `scripts/gpu-suite.sh
# bundle <gatemap of a68c9d0> build/tests/test_call_intervals <test_pairhmm_gpu of a68c9d0
# with this commit's test file, named test_pairhmm_gpu-a68c9d0> <test_pairhmm_gpu-warpmates>`. From the repository root,
# results in $OUT:
#   bash docs/gpu-runs/2026-11-28-s33/run.sh prep tests call map correct pairhmm callspeed
#   (one GPU: ... one ecoli: map 1 M pairs plain/gzip -> SAM / sorted BAM; correct 1 M E. coli
#   pairs beside Lighter)
# prep: chr20, its index, chr20 at 30x (6.3 M pairs, map --sort), BIG (12 M) pairs, EC (10 M)
# E. coli pairs. tests: the GPU tests (test_pairhmm_gpu-a68c9d0: the batch test on the old
# kernels' dispatcher; test_pairhmm_gpu-warpmates: on this one without lane-scaling pairs
# kept to 32-lane shapes). call: --device 0 vs all vs 0,0,0,0, 2 rounds. map: BIG pairs plain
# FASTQ -> BAM, --device 0, all (and gatemap-old), and on 16 cores. correct: EC pairs,
# --device 0 vs all. pairhmm: the PairHMM files, this build vs gatemap-old (small batches
# took other shapes before). callspeed: one GPU, 10 Mbp at 30x, this build vs gatemap-old.
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in .gpu-bundle/bin/*; do
  b=$(basename "$b")
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b
  chmod +x /tmp/bin/$b
done
export PATH=/tmp/bin:$PATH
T=$(nproc)
N=$(nvidia-smi -L | wc -l)
echo "$(date -u +%F) $T cores, $N x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" > "$OUT/machine.txt"
ROOT=$PWD W=/tmp/s33
mkdir -p $W && cd $W
# timed LABEL OUTFILE CMD...: wall, user, sys and peak RSS to $OUT/$STAGE.txt, the log's
# summary lines after it; mean SM% per GPU from nvidia-smi dmon.
timed() {
  local label=$1 out=$2
  shift 2
  rm -f "$out"
  nvidia-smi dmon -s u -d 1 > dmon.txt 2>&1 &
  local dmon=$!
  /usr/bin/time -f "%e s wall, %U user, %S sys, %M KB" -o t.txt "$@" > /dev/null 2> run.log || echo "FAILED: $label" >> "$OUT/$STAGE.txt"
  kill $dmon 2> /dev/null; wait $dmon 2> /dev/null
  local sm
  sm=$(awk '$1 ~ /^[0-9]+$/ { s[$1] += $2; n[$1]++ } END { for (g = 0; g in s; g++) printf "%s%d:%.0f", (g ? " " : ""), g, s[g] / n[g] }' dmon.txt)
  echo "== $label: $(cat t.txt); SM% $sm" >> "$OUT/$STAGE.txt"
  grep -E "time:|\] reads |parts on|\[D::call\] part|\[D::map\] lane|Real time|exiting at|\[[MD]::correct\]" run.log | grep -vE "(corrected|counted k-mers of) [0-9]* reads" | cut -c1-600 >> "$OUT/$STAGE.txt"
}
same() {
  case $1 in
    *.bam) cmp -s <(samtools view -@ 16 "$1") <(samtools view -@ 16 "$2") ;;
    *.sam) cmp -s <(grep -v '^@' "$1") <(grep -v '^@' "$2") ;;
    *.vcf) cmp -s <(grep -v '^##' "$1") <(grep -v '^##' "$2") ;;
    *) cmp -s "$1" "$2" ;;
  esac && echo "same: $1 $2" || echo "DIFFER: $1 $2"
}
for STAGE in "$@"; do
  case $STAGE in
    prep)
      s=$(date +%s)
      [ -s 20.fa ] || zcat $OLDPWD/.gpu-bundle/data/real/20.part*-of-6.fa.gz > 20.fa
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      if [ ! -s cov.bam ]; then
        gatemap sim variants 20.fa -o donor 2> /dev/null
        gatemap sim reads 20.fa --vcf donor.truth.vcf.gz -n 6300000 -l 150 -t $T --seed 12 -o cov 2> /dev/null
        gatemap map -t $T --device all --sort -o cov.bam ref.gmi cov_1.fq cov_2.fq 2> /dev/null
        rm -f cov_1.fq cov_2.fq
      fi
      [ -s big_2.fq ] || gatemap sim reads 20.fa -n ${BIG:-12000000} -l 150 -t $T --seed 13 -o big 2> /dev/null
      if [ ! -s ec_2.fq ]; then
        zcat $OLDPWD/.gpu-bundle/data/real/MG1655-K12.fasta.gz > ec.fa
        gatemap sim reads ec.fa -n ${EC:-10000000} -l 150 -t $T --seed 31 -o ec 2> /dev/null
      fi
      echo "prep $(( $(date +%s) - s )) s; $(ls -la cov.bam big_1.fq ec_1.fq | awk '{print $5, $9}' | tr '\n' ' ')" >> "$OUT/machine.txt"
      ;;
    call)
      for r in 1 2; do
        timed "call --device 0 (round $r)" c0.vcf gatemap call -t $T -v 4 --device 0 -r 20.fa -o c0.vcf cov.bam
        timed "call --device all (round $r)" call.vcf gatemap call -t $T -v 4 --device all -r 20.fa -o call.vcf cov.bam
      done
      timed "call --device 0,0,0,0" c0000.vcf gatemap call -t $T -v 4 --device 0,0,0,0 -r 20.fa -o c0000.vcf cov.bam
      [ -e /tmp/bin/gatemap-old ] && timed "old: call --device all" cold.vcf gatemap-old call -t $T -v 4 --device all -r 20.fa -o cold.vcf cov.bam
      { same c0.vcf call.vcf; same c0.vcf c0000.vcf; [ -s cold.vcf ] && same c0.vcf cold.vcf; } >> "$OUT/$STAGE.txt"
      ;;
    one)  # one GPU: 1 M pairs plain -> SAM, gzip -1 -> SAM, gzip -> sorted duplicate-marked BAM, this build vs old, alternating
      [ -s 20.fa ] || zcat $OLDPWD/.gpu-bundle/data/real/20.part*-of-6.fa.gz > 20.fa
      [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 -k o_1.fq & gzip -1 -k o_2.fq; wait; }
      for r in 1 2; do
        for b in gatemap gatemap-old; do
          timed "$b: 1 M plain -> SAM (round $r)" p_$b.sam $b map -t $T -v 4 -o p_$b.sam ref.gmi o_1.fq o_2.fq
          timed "$b: 1 M gzip -> SAM (round $r)" g_$b.sam $b map -t $T -v 4 -o g_$b.sam ref.gmi o_1.fq.gz o_2.fq.gz
          timed "$b: 1 M gzip -> sorted md BAM (round $r)" os_$b.bam $b map -t $T -v 4 --sort --markdup -o os_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz
        done
      done
      { same p_gatemap.sam p_gatemap-old.sam; same p_gatemap.sam g_gatemap.sam; same os_gatemap.bam os_gatemap-old.bam; } >> "$OUT/$STAGE.txt"
      ;;
    ecoli)  # correct, 1 M simulated E. coli pairs: this build, old and Lighter, rotated, 3 rounds
      mkdir -p ec1 && cd ec1
      [ -s ref.fa ] || zcat $ROOT/.gpu-bundle/data/real/MG1655-K12.fasta.gz > ref.fa
      len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
      [ -s p_2.fq ] || gatemap sim reads ref.fa -n 1000000 -l 150 --sub-rate 0.005 --indel-rate 0.0001 -t $T --seed 31 -o p 2> /dev/null
      tools=(new old lighter)
      for r in 1 2 3; do
        for i in 0 1 2; do
          tool=${tools[$(( (i + r - 1) % 3 ))]}
          rm -rf o_$tool && mkdir o_$tool
          case $tool in
            new) timed "gatemap correct (round $r)" o_new/c_1.fq gatemap correct -t $T -o o_new/c_1.fq -p o_new/c_2.fq p_1.fq p_2.fq ;;
            old) timed "gatemap-old correct (round $r)" o_old/c_1.fq gatemap-old correct -t $T -o o_old/c_1.fq -p o_old/c_2.fq p_1.fq p_2.fq ;;
            lighter) timed "lighter (round $r)" o_lighter/x lighter -r p_1.fq -r p_2.fq -K 21 $len -t $T -od o_lighter ;;
          esac
        done
      done
      { same o_new/c_1.fq o_old/c_1.fq; same o_new/c_2.fq o_old/c_2.fq; } >> "$OUT/$STAGE.txt"
      cd ..
      ;;
    calllanes)  # lanes per GPU: --device all (one each) vs each GPU named 2 and 3 times, 2 rounds
      G=$(seq -s, 0 $((N - 1)))
      for r in 1 2; do
        timed "call --device all (round $r)" call.vcf gatemap call -t $T -v 4 --device all -r 20.fa -o call.vcf cov.bam
        timed "call --device $G,$G (round $r)" c2.vcf gatemap call -t $T -v 4 --device $G,$G -r 20.fa -o c2.vcf cov.bam
        timed "call --device $G,$G,$G (round $r)" c3.vcf gatemap call -t $T -v 4 --device $G,$G,$G -r 20.fa -o c3.vcf cov.bam
      done
      { same call.vcf c2.vcf; same call.vcf c3.vcf; } >> "$OUT/$STAGE.txt"
      ;;
    map)  # MAP16=0: without the 16-core runs
      timed "map --device 0" m0.bam gatemap map -t $T -v 4 --device 0 -o m0.bam ref.gmi big_1.fq big_2.fq
      for r in 1 2; do
        timed "map --device all (round $r)" mall.bam gatemap map -t $T -v 4 --device all -o mall.bam ref.gmi big_1.fq big_2.fq
        [ -e /tmp/bin/gatemap-old ] && timed "old: map --device all (round $r)" mold.bam gatemap-old map -t $T -v 4 --device all -o mold.bam ref.gmi big_1.fq big_2.fq
      done
      for b in gatemap gatemap-old gatemap; do
        [ "${MAP16:-1}" = 1 ] && [ -e /tmp/bin/$b ] && timed "$b: map --device 0 -t 16 on 16 cores" m16.bam taskset -c 0-15 $b map -t 16 -v 4 --device 0 -o m16.bam ref.gmi big_1.fq big_2.fq
      done
      { same m0.bam mall.bam; [ -s m16.bam ] && same m0.bam m16.bam; [ -s mold.bam ] && same m0.bam mold.bam; } >> "$OUT/$STAGE.txt"
      ;;
    one)  # one GPU and 16 cores, 1 M pairs gzip -1 -> BAM and -> sorted duplicate-marked BAM, this build vs OLD
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 o_1.fq & gzip -1 o_2.fq; wait; }
      for r in 1 2; do
        for b in gatemap gatemap-old; do
          [ -e /tmp/bin/$b ] || continue
          timed "$b: 1 M gzip -> BAM (round $r)" o_$b.bam taskset -c 0-15 $b map -t 16 -v 4 --device 0 -o o_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz
          timed "$b: 1 M gzip -> sorted md BAM (round $r)" os_$b.bam taskset -c 0-15 $b map -t 16 -v 4 --device 0 --sort --markdup -o os_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz
        done
      done
      { same o_gatemap.bam o_gatemap-old.bam; same os_gatemap.bam os_gatemap-old.bam; } >> "$OUT/$STAGE.txt"
      ;;
    correct)
      for r in 1 2; do
        timed "correct --device 0 (round $r)" e0_1.fq gatemap correct -t $T -v 4 --device 0 -o e0_1.fq -p e0_2.fq ec_1.fq ec_2.fq
        timed "correct --device all (round $r)" eall_1.fq gatemap correct -t $T -v 4 --device all -o eall_1.fq -p eall_2.fq ec_1.fq ec_2.fq
        [ -e /tmp/bin/gatemap-old ] && timed "old: correct --device all (round $r)" eold_1.fq gatemap-old correct -t $T -v 4 --device all -o eold_1.fq -p eold_2.fq ec_1.fq ec_2.fq
      done
      [ -s eold_1.fq ] && { same e0_1.fq eold_1.fq; same e0_2.fq eold_2.fq; } >> "$OUT/$STAGE.txt"
      { same e0_1.fq eall_1.fq; same e0_2.fq eall_2.fq; } >> "$OUT/$STAGE.txt"
      ;;
    calldiff)  # where --device all's VCF and --device 0's differ (the lines of each), and with 4 lanes on GPU 0
      gatemap call -t $T --device 0 -r 20.fa -o d0.vcf cov.bam 2> d0.log
      gatemap call -t $T --device all -r 20.fa -o dall.vcf cov.bam 2> dall.log
      gatemap call -t $T --device 0,0,0,0 -r 20.fa -o d0000.vcf cov.bam 2> d0000.log
      for v in dall d0000; do
        echo "== d0 vs $v: $(diff <(grep -v '^##' d0.vcf) <(grep -v '^##' $v.vcf) | grep -c '^[<>]') lines differ" >> "$OUT/$STAGE.txt"
        diff <(grep -v '^##' d0.vcf) <(grep -v '^##' $v.vcf) | head -40 | cut -c1-400 >> "$OUT/$STAGE.txt"
      done
      ;;
    callspeed)  # one GPU: 10 Mbp synthetic at 30x (bench_call.sh's set), this build vs gatemap-old, 4 rounds alternating
      if [ ! -s cs/pe.bam ]; then
        mkdir -p cs
        gatemap sim genome --length 10000000 --contigs 4 --seed 11 -t $T -o cs/ref.fa 2> /dev/null
        gatemap sim variants cs/ref.fa -o cs/donor 2> /dev/null
        gatemap sim reads cs/ref.fa --vcf cs/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o cs/pe 2> /dev/null
        gatemap index -t $T -o cs/ref.gmi cs/ref.fa 2> /dev/null
        gatemap map -t $T --sort -R '@RG\tID:donor\tSM:donor' -o cs/pe.bam cs/ref.gmi cs/pe_1.fq cs/pe_2.fq 2> /dev/null
      fi
      for r in 1 2 3 4; do
        for b in gatemap gatemap-old; do
          timed "$b: call 10 Mbp at 30x (round $r)" cs/$b.vcf $b call -t $T -v 4 -r cs/ref.fa -o cs/$b.vcf cs/pe.bam
        done
      done
      for b in gatemap gatemap-old; do
        echo "== $b" >> "$OUT/$STAGE.txt"
        gatemap eval vcf cs/donor.truth.vcf.gz cs/$b.vcf -r cs/ref.fa >> "$OUT/$STAGE.txt" 2> /dev/null
      done
      ;;
    tests)
      for t in test_pairhmm_gpu test_pairhmm_gpu-a68c9d0 test_pairhmm_gpu-warpmates test_call_intervals test_mapper_gpu test_correct_gpu; do
        GATEMAP_TEST_DATA=$OLDPWD/.gpu-bundle/data timeout 300 $R $t > $t.log 2>&1
        echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' $t.log | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
        grep -E "^\[  FAILED|Failure" -A3 $t.log | head -20 >> "$OUT/tests.txt"
      done
      ;;
    pairhmm)  # the PairHMM files, 3 rounds alternating; likelihoods compared between the builds
      P=$OLDPWD/.gpu-bundle/data/pairhmm-carneiro
      for f in 10s 1m; do
        for r in 1 2 3; do
          for b in gatemap gatemap-old; do
            timed "$b: pairhmm $f.in (round $r)" ph_$b.txt $b pairhmm -t $T --backend gpu --no-tristate -o ph_$b.txt $P/$f.in
          done
        done
        same ph_gatemap.txt ph_gatemap-old.txt >> "$OUT/$STAGE.txt"
        echo "max |new - old| $f: $(paste ph_gatemap.txt ph_gatemap-old.txt | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { print m + 0 }')" >> "$OUT/$STAGE.txt"
      done
      ;;
  esac
done
