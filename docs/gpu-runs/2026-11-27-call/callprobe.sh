#!/usr/bin/env bash
# The caller on the GPU machine: this build vs c96761c on the same BAMs, timed and scored.
set -uo pipefail
B=$PWD/.gpu-bundle; eval "$($B/run --env)"; export PATH=$B/bin:$PATH
[ -x /usr/bin/time ] || cp $B/bin/time /usr/bin/time
R=$PWD
# 1. bench_call.sh's 10 Mbp synthetic genome at 30x (gatemap only), then the old build.
GENOME_LEN=10000000 SKIP_OTHERS=1 BACKENDS=gpu GATEMAP=$B/bin/gatemap bash scripts/bench_call.sh /tmp/bc > $OUT/call10m.tsv 2> $OUT/call10m.err
cd /tmp/bc
for r in 1 2 3; do for b in gatemap gatemap-old; do
  /usr/bin/time -f "$b round $r: %e s" $b call -t 16 -r ref.fa -o $b.vcf pe.bam 2>> $OUT/call10m_ab.log > /dev/null
  tail -1 $OUT/call10m_ab.log
done; done
for b in gatemap gatemap-old; do echo "== $b"; gatemap eval vcf donor.truth.vcf.gz $b.vcf -r ref.fa 2>/dev/null; done >> $OUT/call10m_ab.log
# 2. All of chr20 at 30x (gatemap's simulator and mapper).
mkdir -p /tmp/w && cd /tmp/w
zcat $B/data/20.part*-of-6.fa.gz > chr20.fa
gatemap sim variants chr20.fa --seed 3 -o donor 2> /dev/null
gatemap sim reads chr20.fa --vcf donor.truth.vcf.gz -n 6300000 -l 150 -t 16 -o pe 2> /dev/null
gatemap index -t 16 -o chr20.gmi chr20.fa 2> /dev/null
gatemap map -t 16 --sort -R '@RG\tID:d\tSM:d' -o pe.bam chr20.gmi pe_1.fq pe_2.fq 2> /dev/null
for r in 1 2; do for b in gatemap gatemap-old; do
  /usr/bin/time -f "$b round $r: %e s" $b call -t 16 -r chr20.fa -o $b.vcf pe.bam 2>> $OUT/chr20.log > /dev/null
  tail -1 $OUT/chr20.log
done; done
for b in gatemap gatemap-old; do echo "== $b"; gatemap eval vcf donor.truth.vcf.gz $b.vcf -r chr20.fa 2>/dev/null; done >> $OUT/chr20.log
cd /tmp/w && python3 $R/scripts/why_missed.py --gatemap $B/bin/gatemap donor.truth.vcf.gz gatemap.vcf pe.bam chr20.fa > $OUT/chr20_missed.tsv 2> $OUT/chr20_missed.txt || true
cat $OUT/call10m.tsv $OUT/call10m_ab.log $OUT/chr20.log $OUT/chr20_missed.txt
