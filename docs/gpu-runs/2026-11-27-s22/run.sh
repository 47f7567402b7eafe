#!/usr/bin/env bash
# Session 22's GPU calls (bundle: gatemap, gatemap-old = 5fbd363, test_mapper_gpu,
# test_call_intervals, samtools, bgzip; for `peers` minimap2 and strobealign; chr20 in data/). Run from the repository root:
#   bash docs/gpu-runs/2026-11-27-s22/run.sh tests|call|map   (results in $OUT)
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
mkdir -p /tmp/bin
for b in gatemap gatemap-old samtools bgzip minimap2 strobealign; do printf '#!/bin/sh\nexec %s %s "$@"\n' "$R" "$b" > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
export PATH=/tmp/bin:$PATH
T=$(nproc)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
W=/tmp/s22
mkdir -p $W
case $1 in
  tests)
    for t in test_mapper_gpu test_call_intervals; do
      timeout 280 $R $t > "$OUT/$t.log" 2>&1
      echo "$t exit $? $(grep -E '\[  PASSED|FAILED' "$OUT/$t.log" | head -3 | tr '\n' ' ')" >> "$OUT/tests.txt"
    done
    ;;
  call)  # 10 Mbp at 30x: new vs old, alternating; calls compared without INFO
    cd $W
    G=/tmp/bin/gatemap
    $G sim genome --length 10000000 --contigs 4 --seed 11 -t $T -o ref.fa 2>/dev/null
    $G sim variants ref.fa -o donor 2>/dev/null
    $G sim reads ref.fa --vcf donor.truth.vcf.gz -n 1000000 -l 150 -t $T -o pe 2>/dev/null
    $G index -t $T -o ref.gmi ref.fa 2>/dev/null
    $G map -t $T --sort -R '@RG\tID:donor\tSM:donor' -o pe.bam ref.gmi pe_1.fq pe_2.fq 2>/dev/null
    for r in 1 2 3; do
      for b in gatemap gatemap-old; do
        s=$(date +%s%N); /tmp/bin/$b call -t $T -v 1 -r ref.fa -o $b.vcf pe.bam; e=$(date +%s%N)
        echo "$b round $r $(( (e - s) / 1000000 )) ms" >> "$OUT/call.txt"
      done
    done
    for b in gatemap gatemap-old; do /tmp/bin/gatemap eval vcf donor.truth.vcf.gz $b.vcf -r ref.fa >> "$OUT/call.txt" 2>/dev/null; done
    cmp <(grep -v '^#' gatemap.vcf | cut -f 1-7,9-) <(grep -v '^#' gatemap-old.vcf | cut -f 1-7,9-) \
      && echo "calls identical but INFO" >> "$OUT/call.txt"
    grep -v '^#' gatemap.vcf | head -3 >> "$OUT/call.txt"
    ;;
  map)  # 1 M chr20 pairs, plain/gzip/bgzip -> SAM/BAM/sorted: new vs old
    zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
    GATEMAP=/tmp/bin/gatemap OLD=/tmp/bin/gatemap-old SAMTOOLS=/tmp/bin/samtools PAIRS=1000000 ROUNDS=2 \
      bash scripts/bench_io.sh $W/io $W/20.fa > "$OUT/io.tsv" 2> "$OUT/io.log"
    cd $W/io  # records vs the old build with AS and XS (now bwa's scores) set aside
    strip() { grep -v '^@' "$1" | sed -E 's/\tAS:i:[0-9-]+//; s/\tXS:i:[0-9-]+//'; }
    cmp <(strip gatemap.sam) <(strip old.sam) && echo "# records vs OLD but AS/XS: identical" >> "$OUT/io.tsv"
    /tmp/bin/samtools view gatemap.md.bam | sed -E 's/\tAS:i:[0-9-]+//; s/\tXS:i:[0-9-]+//' > new.md.txt
    /tmp/bin/samtools view old.md.bam | sed -E 's/\tAS:i:[0-9-]+//; s/\tXS:i:[0-9-]+//' > old.md.txt
    cmp new.md.txt old.md.txt && echo "# sorted markdup records vs OLD but AS/XS: identical" >> "$OUT/io.tsv"
    ;;
  peers)  # 1 M chr20 pairs as a user runs them (gzip FASTQ in, sorted BAM out, -t 16) beside
           # plain FASTQ -> SAM, minimap2 -ax sr and strobealign (prebuilt index) on the same gzip files
    zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
    GATEMAP=/tmp/bin/gatemap MINIMAP2=/tmp/bin/minimap2 STROBEALIGN=/tmp/bin/strobealign SAMTOOLS=/tmp/bin/samtools \
      PAIRS=1000000 ROUNDS=2 bash scripts/bench_io.sh $W/peers $W/20.fa > "$OUT/peers.tsv" 2> "$OUT/peers.log"
    ;;
  ubam)  # after map: the same pairs as an unmapped BAM (samtools import) vs gzip FASTQ, 2 rounds
    cd $W/io
    samtools import -@ 8 -1 pe_1.fq.gz -2 pe_2.fq.gz -r ID:g1 -r SM:s1 -o u.bam 2>/dev/null
    for r in 1 2; do
      for input in "u.bam" "pe_1.fq.gz pe_2.fq.gz"; do
        s=$(date +%s%N); gatemap map -t $T -v 1 -o ub.sam ref.gmi $input; e=$(date +%s%N)
        echo "map $input -> SAM: $(( (e - s) / 1000000 )) ms" >> "$OUT/ubam.txt"
        [ "$input" = u.bam ] && mv ub.sam from_ubam.sam || mv ub.sam from_fq.sam
      done
    done
    cmp <(grep -v '^@' from_ubam.sam | sed 's/\tRG:Z:g1$//') <(grep -v '^@' from_fq.sam) \
      && echo "records from uBAM = from FASTQ (RG aside)" >> "$OUT/ubam.txt"
    ;;
  stats)  # where the new build's extra CPU time goes: --stats of both builds, plain FASTQ -> SAM
    zcat .gpu-bundle/data/20.part*-of-6.fa.gz > $W/20.fa
    cd $W
    gatemap index -t $T -o ref.gmi 20.fa 2>/dev/null
    gatemap sim reads 20.fa -n 1000000 -l 150 -t $T --seed 11 -o pe 2>/dev/null
    for r in 1 2 3; do
      for b in gatemap gatemap-old; do
        /usr/bin/time -f "$b round $r: %e s %U user %S sys" $b map -t $T -v 1 --stats $W/$b.$r.json -o /dev/null \
          ref.gmi pe_1.fq pe_2.fq 2>> $OUT/times.txt
        { echo "== $b round $r"; cat $W/$b.$r.json; } >> $OUT/stats.json.txt
      done
    done
    ;;
esac
exit 0
