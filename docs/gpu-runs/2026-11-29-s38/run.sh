#!/usr/bin/env bash
# GPU calls of 2026-11-29 (s38): the sorted BAM's end (#38).
# Bundle: `scripts/gpu-suite.sh bundle <gatemap of 42fcc18> build/tests/test_io_gpu
# ../shared/peers/strobealign/strobealign`. From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-29-s37/run.sh tests ecoli spectrum
# tests: the GPU tests of BGZF, mapping and correcting. one: 1 M chr20 pairs, plain ->
# SAM, gzip -1 -> SAM, gzip -> BAM, gzip -> sorted duplicate-marked BAM, this build vs
# gatemap-old (and ONE_EXTRA builds, sorted only), ROUNDS (3) rounds alternating. whole: chr20
# at 30x (6.3 M pairs, gzip -1) to a sorted, duplicate-marked, indexed BAM, WHOLE_BUILDS. peers:
# strobealign (prebuilt index) and minimap2 -ax sr on one's gzip files, beside gatemap gzip ->
# SAM. ecoli: correct on 1 M E. coli pairs, this build and gatemap-old, -v 4 and --stats, 3
# rounds, and Lighter once (#44). spectrum: correct with this build's exact spectrum (compact,
# 32 MiB), gatemap-old's (64-bit slots, 64 MiB) and a Bloom filter (16 MiB), ROUNDS (2).
# big: 10 M E. coli pairs and chr20 at 30x, this build, gatemap-old and Lighter once each.
# threads: correct at -t 16..8. knobs: 1 M gzip -> sorted md BAM under the experiment's
# KNOBS (label:VAR=value,...), ROUNDS rounds, beside plain -> SAM. ab: 1 M gzip -> sorted md
# BAM, this build and gatemap-old alternating, ROUNDS (5) rounds, plain -> SAM once a round.
# thp: plain -> SAM and gzip -> sorted md BAM with and without glibc's malloc on huge pages
# (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), ROUNDS (3) rounds. thp_other: the same for call
# (10 Mbp at 30x, as s33's callspeed) and correct (1 M E. coli pairs), ROUNDS (3) rounds. replace: correct writing over its last outputs vs into fresh names.
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
echo "$(date -u +%F) $T cores, $N x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(lscpu | grep 'Model name' | sed 's/.*: *//')" >> "$OUT/machine.txt"
ROOT=$PWD W=/tmp/s38
mkdir -p $W && cd $W
# timed LABEL OUTFILE CMD...: wall, user, sys and peak RSS to $OUT/$STAGE.txt, the log's
# summary lines after it.
timed() {
  local label=$1 out=$2
  shift 2
  rm -f "$out"
  /usr/bin/time -f "%e s wall, %U user, %S sys, %M KB" -o t.txt "$@" > /dev/null 2> run.log || echo "FAILED: $label" >> "$OUT/$STAGE.txt"
  echo "== $label: $(cat t.txt)" >> "$OUT/$STAGE.txt"
  grep -E "time:|Real time|exiting at|\[D::map\] (duplicates|records|their|output)|\[D::bgzf\]|\[M::map\] sorted" run.log | cut -c1-400 >> "$OUT/$STAGE.txt"
}
same() {
  case $1 in
    *.bam) cmp -s <(samtools view -@ 16 "$1") <(samtools view -@ 16 "$2") ;;
    *.sam) cmp -s <(grep -v '^@' "$1") <(grep -v '^@' "$2") ;;
    *) cmp -s "$1" "$2" ;;
  esac && echo "same: $1 $2" || echo "DIFFER: $1 $2"
}
ref() {
  [ -s 20.fa ] || zcat $ROOT/.gpu-bundle/data/real/20.part*-of-6.fa.gz > 20.fa
  [ -s ref.gmi ] || gatemap index -t $T -o ref.gmi 20.fa 2> /dev/null
}
# ecoli_reads: 1 M simulated E. coli pairs (as s33) in ec1/, entered; len: the genome's length
ecoli_reads() {
  mkdir -p ec1 && cd ec1
  [ -s ref.fa ] || zcat $ROOT/.gpu-bundle/data/real/MG1655-K12.fasta.gz > ref.fa
  len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
  [ -s p_2.fq ] || gatemap sim reads ref.fa -n 1000000 -l 150 --sub-rate 0.005 --indel-rate 0.0001 -t $T --seed 31 -o p 2> /dev/null
}
for STAGE in "$@"; do
  case $STAGE in
    tests)
      for t in ${TESTS:-test_io_gpu test_mapper_gpu test_correct_gpu}; do
        GATEMAP_TEST_DATA=$ROOT/.gpu-bundle/data timeout 300 $R $t > $t.log 2>&1
        echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' $t.log | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
        grep -E "^\[  FAILED|Failure" -A3 $t.log | head -20 >> "$OUT/tests.txt"
      done
      ;;
    one)
      ref
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 -k o_1.fq & gzip -1 -k o_2.fq; wait; }
      for r in $(seq ${ROUNDS:-3}); do
        for b in gatemap gatemap-old ${ONE_EXTRA:-}; do
          [ -e /tmp/bin/$b ] || continue
          case " ${ONE_EXTRA:-} " in *" $b "*) ;; *)  # extra builds: the sorted BAM only
          timed "$b: 1 M plain -> SAM (round $r)" p_$b.sam $b map -t $T -v 4 -o p_$b.sam ref.gmi o_1.fq o_2.fq
          timed "$b: 1 M gzip -> SAM (round $r)" g_$b.sam $b map -t $T -v 4 -o g_$b.sam ref.gmi o_1.fq.gz o_2.fq.gz
          timed "$b: 1 M gzip -> BAM (round $r)" ob_$b.bam $b map -t $T -v 4 -o ob_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz ;;
          esac
          timed "$b: 1 M gzip -> sorted md BAM (round $r)" os_$b.bam $b map -t $T -v 4 --sort --markdup -o os_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz
          ls -l os_$b.bam | awk '{print "size", $5}' >> "$OUT/$STAGE.txt"
        done
      done
      { same p_gatemap.sam p_gatemap-old.sam; same p_gatemap.sam g_gatemap.sam; same ob_gatemap.bam ob_gatemap-old.bam
        same os_gatemap.bam os_gatemap-old.bam
        cmp -s os_gatemap.bam os_gatemap-old.bam && echo "os BAMs byte-identical" || echo "os BAMs' bytes differ"; } >> "$OUT/$STAGE.txt"
      ;;
    knobs)  # the sorted run under environment knobs of an experiment build
      ref
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 -k o_1.fq & gzip -1 -k o_2.fq; wait; }
      for r in $(seq ${ROUNDS:-3}); do
        timed "plain -> SAM (round $r)" kp.sam gatemap map -t $T -v 4 -o kp.sam ref.gmi o_1.fq o_2.fq
        for k in ${KNOBS:-base:}; do
          IFS=: read -r label vars <<< "$k"
          timed "$label: gzip -> sorted md BAM (round $r)" ks_$label.bam env ${vars//,/ } gatemap map -t $T -v 4 --sort --markdup -o ks_$label.bam ref.gmi o_1.fq.gz o_2.fq.gz
        done
      done
      for k in ${KNOBS:-base:}; do same ks_base.bam ks_${k%%:*}.bam >> "$OUT/$STAGE.txt"; done
      ;;
    ab)  # the sorted run, this build and gatemap-old in turn
      ref
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 -k o_1.fq & gzip -1 -k o_2.fq; wait; }
      for r in $(seq ${ROUNDS:-5}); do
        timed "plain -> SAM (round $r)" ap.sam gatemap map -t $T -v 4 -o ap.sam ref.gmi o_1.fq o_2.fq
        for b in gatemap gatemap-old; do
          timed "$b: gzip -> sorted md BAM (round $r)" as_$b.bam $b map -t $T -v 4 --sort --markdup -o as_$b.bam ref.gmi o_1.fq.gz o_2.fq.gz
        done
      done
      same as_gatemap.bam as_gatemap-old.bam >> "$OUT/$STAGE.txt"
      ;;
    thp)  # malloc's memory on transparent huge pages, or not
      ref
      [ -s o_2.fq.gz ] || { gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null; gzip -1 -k o_1.fq & gzip -1 -k o_2.fq; wait; }
      { ldd --version | head -1; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; } >> "$OUT/$STAGE.txt"
      for r in $(seq ${ROUNDS:-3}); do
        for v in "base" "thp GLIBC_TUNABLES=glibc.malloc.hugetlb=1"; do
          read -r label vars <<< "$v"
          timed "$label: plain -> SAM (round $r)" tp_$label.sam env $vars gatemap map -t $T -v 4 -o tp_$label.sam ref.gmi o_1.fq o_2.fq
          timed "$label: gzip -> sorted md BAM (round $r)" ts_$label.bam env $vars gatemap map -t $T -v 4 --sort --markdup -o ts_$label.bam ref.gmi o_1.fq.gz o_2.fq.gz
        done
      done
      { same tp_base.sam tp_thp.sam; same ts_base.bam ts_thp.bam; } >> "$OUT/$STAGE.txt"
      ;;
    thp_other)  # call and correct with and without malloc on huge pages
      if [ ! -s cs/pe.bam ]; then
        mkdir -p cs
        gatemap sim genome --length 10000000 --contigs 4 --seed 11 -t $T -o cs/ref.fa 2> /dev/null
        gatemap sim variants cs/ref.fa -o cs/donor 2> /dev/null
        gatemap sim reads cs/ref.fa --vcf cs/donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o cs/pe 2> /dev/null
        gatemap index -t $T -o cs/ref.gmi cs/ref.fa 2> /dev/null
        gatemap map -t $T --sort -R '@RG\tID:donor\tSM:donor' -o cs/pe.bam cs/ref.gmi cs/pe_1.fq cs/pe_2.fq 2> /dev/null
      fi
      ( ecoli_reads )
      for r in $(seq ${ROUNDS:-3}); do
        for v in "base" "thp GLIBC_TUNABLES=glibc.malloc.hugetlb=1"; do
          read -r label vars <<< "$v"
          timed "$label: call 10 Mbp at 30x (round $r)" cs/$label.vcf env $vars gatemap call -t $T -v 4 -r cs/ref.fa -o cs/$label.vcf cs/pe.bam
          timed "$label: correct 1 M E. coli pairs (round $r)" ec1/c_$label.1.fq env $vars gatemap correct -t $T -v 4 -o ec1/c_$label.1.fq -p ec1/c_$label.2.fq ec1/p_1.fq ec1/p_2.fq
        done
      done
      { cmp -s <(grep -v '^##' cs/base.vcf) <(grep -v '^##' cs/thp.vcf) && echo "same calls" || echo "DIFFERENT calls"
        same ec1/c_base.1.fq ec1/c_thp.1.fq; } >> "$OUT/$STAGE.txt"
      ;;
    bgzf)
      gatemap bench bgzf -t $T os_gatemap.bam > "$OUT/bgzf.txt" 2>&1
      ;;
    kernel)  # `bench bgzf` with every bundled build
      ref
      [ -s os_gatemap.bam ] || { [ -s o_2.fq ] || gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o o 2> /dev/null
        gatemap map -t $T --sort --markdup -o os_gatemap.bam ref.gmi o_1.fq o_2.fq 2> /dev/null; }
      for b in gatemap $(cd /tmp/bin && ls gatemap-*) gatemap; do
        echo "== $b" >> "$OUT/kernel.txt"
        $b bench bgzf -t $T --reps 2 os_gatemap.bam 2>&1 | grep -E "gpu|alone" >> "$OUT/kernel.txt"
      done
      ;;
    whole)  # chr20 at 30x, gzip -1, to a sorted duplicate-marked BAM: this build, old, this build
      ref
      if [ ! -s w_2.fq.gz ]; then
        gatemap sim reads 20.fa -n 6300000 -l 150 -t $T --seed 12 -o w 2> /dev/null
        gzip -1 w_1.fq & gzip -1 w_2.fq; wait
      fi
      for b in ${WHOLE_BUILDS:-gatemap gatemap-old gatemap}; do
        timed "$b: chr20 30x gzip -> sorted md BAM" ws_$b.bam $b map -t $T -v 4 --sort --markdup -o ws_$b.bam ref.gmi w_1.fq.gz w_2.fq.gz
      done
      same ws_gatemap.bam ws_gatemap-old.bam >> "$OUT/$STAGE.txt"
      ;;
    ecoli)  # correct, 1 M simulated E. coli pairs (as s33): this build and gatemap-old -v 4 --stats,
      # alternating, 3 rounds, Lighter once; corrections compared
      ecoli_reads
      for r in 1 2 3; do
        for b in gatemap gatemap-old; do
          rm -rf o_$b && mkdir o_$b
          timed "$b correct (round $r)" o_$b/c_1.fq $b correct -t $T -v 4 --stats o_$b/s.json -o o_$b/c_1.fq -p o_$b/c_2.fq p_1.fq p_2.fq
          grep -E "D::correct|D::main" run.log | cut -c1-300 >> "$OUT/$STAGE.txt"
          grep -E "count_s|correct_s|read_wait|spectrum_s|write_s|kernel_ms" o_$b/s.json | tr -d '\n ' >> "$OUT/$STAGE.txt"
          echo >> "$OUT/$STAGE.txt"
        done
      done
      { same o_gatemap/c_1.fq o_gatemap-old/c_1.fq; same o_gatemap/c_2.fq o_gatemap-old/c_2.fq; } >> "$OUT/$STAGE.txt"
      rm -rf o_lighter && mkdir o_lighter
      timed "lighter" o_lighter/x lighter -r p_1.fq -r p_2.fq -K 21 $len -t $T -od o_lighter
      cd ..
      ;;
    spectrum)  # correct's 1 M E. coli run (needs ecoli's files): the compact exact spectrum,
      # gatemap-old's 64-bit exact one and a Bloom filter of 16 MiB
      ecoli_reads
      for r in $(seq ${ROUNDS:-2}); do
        for sp in "gatemap exact" "gatemap-old exact" "gatemap bloom --fpr 0.001"; do
          read -r b args <<< "$sp"
          timed "$b spectrum $args (round $r)" ps_1.fq $b correct -t $T -v 4 --stats ps.json --spectrum $args -o ps_1.fq -p ps_2.fq p_1.fq p_2.fq
          grep -E "D::correct\] (count pass|outputs|spectrum|last batch)|solid threshold" run.log | cut -c1-200 >> "$OUT/$STAGE.txt"
          grep -E "spectrum_bytes|correct_kernel_ms|correct_s|write_s|reads_changed" ps.json | tr -d '\n ' >> "$OUT/$STAGE.txt"
          echo >> "$OUT/$STAGE.txt"
        done
      done
      cd ..
      ;;
    big)  # 10 M E. coli pairs and all of chr20 at 30x (6.3 M pairs): this build, gatemap-old and
      # Lighter once each, corrections compared (BIG_SETS picks)
      mkdir -p big && cd big
      [ -s ec.fa ] || zcat $ROOT/.gpu-bundle/data/real/MG1655-K12.fasta.gz > ec.fa
      [ -s 20.fa ] || zcat $ROOT/.gpu-bundle/data/real/20.part*-of-6.fa.gz > 20.fa
      for set in ${BIG_SETS:-ec10m:ec.fa:10000000:32 c20:20.fa:6300000:33}; do
        IFS=: read -r p ref pairs seed <<< "$set"
        glen=$(grep -v '^>' $ref | tr -d '\n' | wc -c)
        gatemap sim reads $ref -n $pairs -l 150 --sub-rate 0.005 --indel-rate 0.0001 --seed $seed -t $T -o $p 2> /dev/null
        for b in gatemap gatemap-old; do
          timed "$p: $b correct" ${p}_$b.1.fq $b correct -t $T -v 4 --stats $p.json -o ${p}_$b.1.fq -p ${p}_$b.2.fq ${p}_1.fq ${p}_2.fq
          grep -E "D::correct\] (first reading|count pass|spectrum on|last batch)|solid threshold" run.log | cut -c1-200 >> "$OUT/$STAGE.txt"
          grep -E "spectrum_bytes|count_s|correct_s|kernel_ms|write_s|count_parts" $p.json | tr -d '\n ' >> "$OUT/$STAGE.txt"
          echo >> "$OUT/$STAGE.txt"
        done
        { same ${p}_gatemap.1.fq ${p}_gatemap-old.1.fq; same ${p}_gatemap.2.fq ${p}_gatemap-old.2.fq; } >> "$OUT/$STAGE.txt"
        rm -f ${p}_gatemap*.fq
        rm -rf lo && mkdir lo
        timed "$p: lighter" lo/x lighter -r ${p}_1.fq -r ${p}_2.fq -K 21 $glen -t $T -od lo
        rm -rf lo ${p}_1.fq ${p}_2.fq
      done
      cd ..
      ;;
    threads)  # correct's 1 M E. coli run at -t 16 .. 8 (is the cutting thread short of a core?)
      ecoli_reads
      lscpu | grep -E "^(Thread|Core|Socket|NUMA node)" >> "$OUT/$STAGE.txt"
      for r in $(seq ${ROUNDS:-2}); do
        for t in 16 14 12 10 8; do
          timed "correct -t $t (round $r)" pt_1.fq gatemap correct -t $t -v 4 -o pt_1.fq -p pt_2.fq p_1.fq p_2.fq
          grep -E "D::correct\] (first reading|count pass|correcting lanes|last batch|outputs)" run.log | cut -c1-200 >> "$OUT/$STAGE.txt"
        done
      done
      cd ..
      ;;
    replace)  # correct's 1 M run writing over its last outputs vs into fresh names: does
      # replacing a file cost (ext4 writes the new file out when it is renamed over another)?
      ecoli_reads
      df -T . | tail -1 >> "$OUT/$STAGE.txt"
      mount | grep -E " / | /tmp " >> "$OUT/$STAGE.txt"
      for r in $(seq ${ROUNDS:-3}); do
        timed "over the last outputs (round $r)" no-such-file gatemap correct -t $T -v 4 -o pr_1.fq -p pr_2.fq p_1.fq p_2.fq
        grep -E "D::correct\] (count pass|last batch|outputs)" run.log | cut -c1-200 >> "$OUT/$STAGE.txt"
        rm -f pn_1.fq pn_2.fq; sleep 1
        timed "fresh names (round $r)" pn_1.fq gatemap correct -t $T -v 4 -o pn_1.fq -p pn_2.fq p_1.fq p_2.fq
        grep -E "D::correct\] (count pass|last batch|outputs)" run.log | cut -c1-200 >> "$OUT/$STAGE.txt"
      done
      cd ..
      ;;
    teardown)  # DEVICE_MB PINNED_MB HOST_MB HOW MANAGED_MB, twice each
      for r in 1 2; do
        for args in "0 0 0 exit 0" "4000 0 0 exit 0" "4000 0 0 reset 0" "0 1000 0 exit 0" "0 1000 0 free 0" \
          "0 0 3000 exit 0" "0 0 0 exit 2000" "0 0 0 free 2000" "8000 1000 3000 exit 2000" "8000 1000 3000 reset 2000"; do
          teardown $args >> "$OUT/$STAGE.txt" 2>&1
        done
      done
      ;;
    peers)  # the CPU mappers on one's gzip files, beside gatemap (needs one's files)
      ref
      [ -s 20.fa.r150.sti ] || strobealign --create-index -t $T -r 150 20.fa 2> /dev/null
      for r in 1 2; do
        timed "gatemap: 1 M gzip -> SAM (round $r)" g_gatemap.sam gatemap map -t $T -o g_gatemap.sam ref.gmi o_1.fq.gz o_2.fq.gz
        timed "strobealign --use-index: 1 M gzip -> SAM (round $r)" sa.sam strobealign --use-index -t $T -o sa.sam 20.fa o_1.fq.gz o_2.fq.gz
      done
      timed "minimap2 -ax sr: 1 M gzip -> SAM" mm2.sam minimap2 -ax sr -t $T -o mm2.sam 20.fa o_1.fq.gz o_2.fq.gz
      ;;
  esac
done
