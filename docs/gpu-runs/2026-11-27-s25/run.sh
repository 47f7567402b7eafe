#!/usr/bin/env bash
# GPU calls for the corrector's speed (#44) and FASTQ parsing (#38/#39). Bundle: gatemap (the
# build under test), gatemap-old (the session-start build, where present), lighter,
# test_correct_gpu, test_correct, test_io; data/: E. coli MG1655. From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-27-s25/run.sh tests fastq phases ecoli map big
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old lighter samtools; do [ -e .gpu-bundle/bin/$b ] || continue; printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
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
  split)  # experiment: the split parser vs record-by-record splitting (NO_SPLIT=1), stage times on stderr
    ecoli
    for v in split nosplit; do
      e=""; [ $v = nosplit ] && e="NO_SPLIT=1"
      echo "== $v" >> "$OUT/split.txt"
      env $e gatemap bench fastq -t $T $W/ec_1.fq >> "$OUT/split.txt" 2>&1
      env $e gatemap bench fastq -t $T $W/ec_1.fq $W/ec_2.fq 2>&1 | grep -v one_record >> "$OUT/split.txt"
      s=$(date +%s%N); env $e gatemap correct -t $T -v 1 --summary $W/sum.txt -o $W/p_1.fq -p $W/p_2.fq $W/ec_1.fq $W/ec_2.fq 2>&1 | grep -c EXP > /dev/null
      echo "correct $v $(ms $s) ms" >> "$OUT/split.txt"; grep _s $W/sum.txt | tr '\n' ' ' >> "$OUT/split.txt"; echo >> "$OUT/split.txt"
    done
    ;;
  knobs)  # experiment: read-ahead depth and engines per GPU, 1 M and 10 M pairs, 3 rounds alternating with the old build
    ecoli
    [ -s $W/ec10m_1.fq ] || (cd $W && gatemap sim reads ec.fa -n 10000000 -l 150 --seed 32 -t $T -o ec10m 2>/dev/null)
    for set in ec ec10m; do
      for r in 1 2 3; do
        for v in old "EXP_DEPTH=1 EXP_ONE_ENGINE=1" "EXP_DEPTH=1" "EXP_DEPTH=16 EXP_ONE_ENGINE=1" "EXP_DEPTH=16"; do
          b=gatemap; e="$v"; [ "$v" = old ] && { b=gatemap-old; e=""; }
          s=$(date +%s%N); env $e $b correct -t $T -v 1 --summary $W/k.sum -o $W/k_1.fq -p $W/k_2.fq $W/${set}_1.fq $W/${set}_2.fq
          echo "$set r$r [$v] $(ms $s) ms $(grep -E '^(count_s|correct_s|count_read_wait_s|correct_read_wait_s)' $W/k.sum | tr '\n' ' ')" >> "$OUT/knobs.txt"
        done
      done
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
  map)  # the parser under map: 1 M E. coli pairs, plain and gzip -1, to SAM; the builds alternating; records compared
    ecoli
    cd $W
    [ -s ec.idx ] || gatemap index -t $T -o ec.idx ec.fa 2>/dev/null
    [ -s ec_1.fq.gz ] || { gzip -1 -c ec_1.fq > ec_1.fq.gz; gzip -1 -c ec_2.fq > ec_2.fq.gz; }
    for r in 1 2; do
      for b in $(cd $OLDPWD && builds); do
        for ext in fq fq.gz; do
          s=$(date +%s%N); $b map -t $T -v 1 -o m_$b.sam ec.idx ec_1.$ext ec_2.$ext; echo "$b map $ext round $r $(ms $s) ms" >> "$OUT/map.txt"
        done
      done
    done
    for b in $(cd $OLDPWD && builds); do grep -v '^@PG' m_$b.sam | md5sum | sed "s/-/$b records/" >> "$OUT/map.txt"; done
    cd - > /dev/null
    ;;
  big)  # 10 M E. coli pairs: gatemap vs Lighter -t T, once each
    [ -s $W/ec10m_1.fq ] || { ecoli; (cd $W && gatemap sim reads ec.fa -n 10000000 -l 150 --seed 32 -t $T -o ec10m 2>/dev/null); }
    cd $W
    glen=$(grep -v '^>' ec.fa | tr -d '\n' | wc -c)
    for b in $(cd $OLDPWD && builds); do
      s=$(date +%s%N); $b correct -t $T -v 1 --summary big.sum -o g_1.fq -p g_2.fq ec10m_1.fq ec10m_2.fq; echo "$b 10M $(ms $s) ms" >> "$OUT/big.txt"
      grep _s big.sum | tr '\n' ' ' >> "$OUT/big.txt"; echo >> "$OUT/big.txt"; md5sum g_1.fq g_2.fq >> "$OUT/big.txt"; rm -f g_1.fq g_2.fq
    done
    rm -rf lo; mkdir lo; s=$(date +%s%N); lighter -r ec10m_1.fq -r ec10m_2.fq -K 21 $glen -t $T -od lo 2>/dev/null; echo "lighter 10M $(ms $s) ms" >> "$OUT/big.txt"; rm -rf lo
    cd - > /dev/null
    ;;
  call)  # the caller: 10 Mbp synthetic at 30x and all of chr20 at 30x, the builds alternating on the same BAMs; VCFs compared
    GENOME_LEN=10000000 SKIP_OTHERS=1 BACKENDS=gpu GATEMAP=gatemap bash scripts/bench_call.sh /tmp/bc > "$OUT/call10m.tsv" 2> /dev/null
    cd /tmp/bc
    for r in 1 2 3; do for b in $(cd $OLDPWD && builds); do
      s=$(date +%s%N); $b call -t $T -v 1 -r ref.fa -o $b.vcf pe.bam; echo "10 Mbp $b round $r $(ms $s) ms" >> "$OUT/call.txt"
    done; done
    for b in $(cd $OLDPWD && builds); do echo "== $b"; gatemap eval vcf donor.truth.vcf.gz $b.vcf -r ref.fa 2>/dev/null; grep -v '^##' $b.vcf | md5sum; done >> "$OUT/call.txt"
    cd - > /dev/null
    [ -s .gpu-bundle/data/20.part1-of-6.fa.gz ] || continue
    mkdir -p /tmp/w && cd /tmp/w
    zcat $OLDPWD/.gpu-bundle/data/20.part*-of-6.fa.gz > chr20.fa
    gatemap sim variants chr20.fa --seed 3 -o donor 2> /dev/null
    gatemap sim reads chr20.fa --vcf donor.truth.vcf.gz -n 6300000 -l 150 -t $T -o pe 2> /dev/null
    gatemap index -t $T -o chr20.gmi chr20.fa 2> /dev/null
    for b in $(cd $OLDPWD && builds); do
      s=$(date +%s%N); $b map -t $T -v 1 --sort -R '@RG\tID:d\tSM:d' -o $b.bam chr20.gmi pe_1.fq pe_2.fq; echo "chr20 30x map --sort $b $(ms $s) ms" >> "$OUT/call.txt"
    done
    for b in $(cd $OLDPWD && builds); do echo "chr20 BAM records $b $(samtools view $b.bam | md5sum)" >> "$OUT/call.txt"; done
    for b in $(cd $OLDPWD && builds); do
      s=$(date +%s%N); $b call -t $T -v 1 -r chr20.fa -o $b.vcf gatemap.bam; echo "chr20 30x call $b $(ms $s) ms" >> "$OUT/call.txt"
    done
    for b in $(cd $OLDPWD && builds); do echo "== chr20 $b"; gatemap eval vcf donor.truth.vcf.gz $b.vcf -r chr20.fa 2>/dev/null; grep -v '^##' $b.vcf | md5sum; done >> "$OUT/call.txt"
    cd - > /dev/null
    ;;
  malloc)  # glibc malloc settings (no code change): parse, map and correct on 1 M E. coli pairs, 3 rounds alternating
    ecoli
    cd $W
    [ -s ec.idx ] || gatemap index -t $T -o ec.idx ec.fa 2>/dev/null
    for r in 1 2 3; do
      for v in default "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" "MALLOC_ARENA_MAX=4" "GLIBC_TUNABLES=glibc.malloc.hugetlb=1 MALLOC_ARENA_MAX=4"; do
        e=""; [ "$v" = default ] || e="$v"
        p=$(env $e gatemap bench fastq -t $T ec_1.fq ec_2.fq 2>&1 | awk '$1 == "batches_of_pairs" { print $4 }')
        s=$(date +%s%N); env $e gatemap map -t $T -v 1 -o m.sam ec.idx ec_1.fq ec_2.fq; m=$(ms $s)
        s=$(date +%s%N); env $e gatemap correct -t $T -v 1 -o c_1.fq -p c_2.fq ec_1.fq ec_2.fq; c=$(ms $s)
        echo "r$r [$v] parse_pairs ${p} s map ${m} ms correct ${c} ms" >> "$OUT/malloc.txt"
      done
    done
    cd - > /dev/null
    ;;
  rounds)  # the kept text: 1 M and 10 M pairs, this build and the old one alternating, 3 rounds; Lighter once each
    ecoli
    [ -s $W/ec10m_1.fq ] || (cd $W && gatemap sim reads ec.fa -n 10000000 -l 150 --seed 32 -t $T -o ec10m 2>/dev/null)
    cd $W
    glen=$(grep -v '^>' ec.fa | tr -d '\n' | wc -c)
    for set in ec ec10m; do
      for r in 1 2 3; do for b in gatemap gatemap-old; do
        s=$(date +%s%N); $b correct -t $T -v 1 -o r_1.fq -p r_2.fq ${set}_1.fq ${set}_2.fq; echo "$set $b round $r $(ms $s) ms" >> "$OUT/rounds.txt"
        md5sum r_1.fq r_2.fq | awk '{ printf "%s ", $1 }' >> "$OUT/rounds_md5.txt"; echo "$set $b" >> "$OUT/rounds_md5.txt"
      done; done
      rm -rf lo; mkdir lo; s=$(date +%s%N); lighter -r ${set}_1.fq -r ${set}_2.fq -K 21 $glen -t $T -od lo 2>/dev/null; echo "$set lighter $(ms $s) ms" >> "$OUT/rounds.txt"; rm -rf lo
    done
    sort -u "$OUT/rounds_md5.txt" >> "$OUT/rounds.txt"
    cd - > /dev/null
    ;;
  callspeed)  # the caller against the issue's baseline build (bin/gatemap-c96 = c96761c), 10 Mbp at 30x, 4 rounds alternating
    [ -s /tmp/bc/pe.bam ] || GENOME_LEN=10000000 SKIP_OTHERS=1 BACKENDS=gpu GATEMAP=gatemap bash scripts/bench_call.sh /tmp/bc > /dev/null 2>&1
    cd /tmp/bc
    for r in 1 2 3 4; do for b in gatemap gatemap-c96; do
      s=$(date +%s%N); $R $b call -t $T -v 1 -r ref.fa -o $b.vcf pe.bam; echo "10 Mbp $b round $r $(ms $s) ms" >> "$OUT/callspeed.txt"
    done; done
    for b in gatemap gatemap-c96; do echo "== $b"; gatemap eval vcf donor.truth.vcf.gz $b.vcf -r ref.fa 2>/dev/null; done >> "$OUT/callspeed.txt"
    cd - > /dev/null
    ;;
  mapq)  # all of chr20 at 30x: calls with reads down to MAPQ 20, 10, 5, 1; the mapper's MAPQ against truth
    mkdir -p /tmp/w && cd /tmp/w
    if [ ! -s gatemap.bam ]; then
      zcat $OLDPWD/.gpu-bundle/data/20.part*-of-6.fa.gz > chr20.fa
      gatemap sim variants chr20.fa --seed 3 -o donor 2> /dev/null
      gatemap sim reads chr20.fa --vcf donor.truth.vcf.gz -n 6300000 -l 150 -t $T -o pe 2> /dev/null
      gatemap index -t $T -o chr20.gmi chr20.fa 2> /dev/null
      gatemap map -t $T -v 1 --sort -R '@RG\tID:d\tSM:d' -o gatemap.bam chr20.gmi pe_1.fq pe_2.fq
    fi
    gatemap eval map gatemap.bam > "$OUT/mapq_eval.txt" 2>&1
    for q in 20 10 5 1; do
      s=$(date +%s%N); gatemap call -t $T -v 1 --min-mapq $q -r chr20.fa -o q$q.vcf gatemap.bam; echo "== --min-mapq $q $(ms $s) ms" >> "$OUT/mapq.txt"
      gatemap eval vcf donor.truth.vcf.gz q$q.vcf -r chr20.fa 2>/dev/null >> "$OUT/mapq.txt"
    done
    cd - > /dev/null
    ;;
  tests)
    for t in test_correct_gpu test_correct test_io test_pairhmm_gpu test_pairhmm test_mapper_gpu; do [ -e .gpu-bundle/bin/$t ] || continue
      timeout 300 $R $t $([ $t = test_io ] && echo --gtest_filter='Fastq*') > "$W/$t.log" 2>&1
      echo "$t exit $? $(grep -E '\[  PASSED|FAILED|SKIPPED' "$W/$t.log" | head -4 | tr '\n' ' ')" >> "$OUT/tests.txt"
    done
    ;;
esac
done
