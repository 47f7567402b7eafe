#!/usr/bin/env bash
# Mapping benchmark (docs/BENCHMARKS.md), all tools with the same threads on the same reads:
#  1. accuracy and speed of gatemap, bwa mem and minimap2 -ax sr on simulated 150 bp pairs
#     and 100 bp single reads from a GRCh37-like genome with a donor;
#  2. the GateKeeper filter on vs off at e = 2, 5, 8, best and all-mapping (-a) modes.
# Usage: scripts/bench_map.sh [OUTDIR] [SCALE] [PAIRS]   (needs scripts/deps.sh --bench)
#
# scripts/bench_map.sh real [OUTDIR]: real reads end to end (docs/BENCHMARKS.md): the NA12878
# (HiSeq 101 bp, ~50x) and HG002 (HiSeq 148 bp, ~30x) pairs of chr20:10.0-10.1 Mb from ../shared, as FASTQ, mapped to all
# of GRCh37 chromosome 20 by gatemap, bwa mem and minimap2 -ax sr with the same threads;
# samtools flagstat of each; then gatemap call on each NA12878 BAM, scored against the GIAB
# HG001 truth over the slice and inside its confident intervals.
# Usage: scripts/bench_map.sh real [OUTDIR]   (needs scripts/deps.sh --bench; DATA: a folder
#   holding grch37-chr20/20.fa.gz (Debian's vt-examples: usr/share/doc/vt/examples/ref/) and
#   grch37-chr20-deepvariant-testdata/ (google/deepvariant deepvariant/testdata/input/:
#   the *.chr20.10_10p1mb.bam files, test_nist.b37_chr20_100kbp_at_10mb.vcf.gz and .bed);
#   default ../shared/data)
#
# scripts/bench_map.sh index [OUTDIR] [SIZES_MBP...]: index benchmark (docs/BENCHMARKS.md):
# gatemap index, bwa index and minimap2 -d side by side on synthetic GRCh37-like genomes of 10, 100 and 300 Mbp, with the machine's cores.
# Usage: scripts/bench_map.sh index [OUTDIR] [SIZES_MBP...]   (needs scripts/deps.sh --bench)
set -euo pipefail
cd "$(dirname "$0")/.."

simulated() {
  G=${GATEMAP:-$PWD/build/apps/gatemap}  # GATEMAP: a copy, so that rebuilding does not disturb a run
  OUT=${1:-/tmp/gm_bench_map}
  SCALE=${2:-0.03}
  PAIRS=${3:-200000}
  T=$(nproc)
  FILTER=${FILTER:-auto}
  source scripts/sim_data.sh
  sim_donor_set "$OUT" "$SCALE" "$PAIRS"
  cd "$OUT"
  [ -s ref.fa.bwt ] || bwa index ref.fa 2>/dev/null
  [ -s ref.mmi ] || minimap2 -x sr -d ref.mmi ref.fa 2>/dev/null
  run() {  # name, output, command...: wall seconds to stdout
    local name=$1 out=$2; shift 2
    local s e
    s=$(date +%s%N)
    "$@" > "$out" 2> "$name.log"
    e=$(date +%s%N)
    echo "scale=2; ($e - $s) / 1000000000" | bc
  }
  echo "# $(date -u +%F) $(nproc) threads, genome scale $SCALE, $PAIRS pairs / reads; filter $FILTER"
  printf "reads\ttool\twall_s\treads_per_s\tmapq60_frac\tmapq60_err\tmapq20_frac\tmapq20_err\tmapq1_frac\tmapq1_err\n"
  score() {  # reads label tool wall sam
    "$G" eval map "$5" 2>/dev/null | awk -v r="$1" -v t="$2" -v w="$3" -v n="$4" '
      /^reads/ { total = $2 } $1 == 60 { f60 = $3; e60 = $5 } $1 == 20 { f20 = $3; e20 = $5 } $1 == 1 { f1 = $3; e1 = $5 }
      END { printf "%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n", r, t, w, n / w, f60, e60, f20, e20, f1, e1 }'
  }
  for set in pe se; do
    if [ $set = pe ]; then r1=pe_1.fq; r2=pe_2.fq; n=$((2 * PAIRS)); label="150bp pairs"; else r1=se.fq; r2=; n=$PAIRS; label="100bp single"; fi
    w=$(run gm_$set gm_$set.sam $G map -t "$T" --filter "$FILTER" ref.gmi $r1 $r2); score "$label" gatemap "$w" $n gm_$set.sam
    w=$(run bwa_$set bwa_$set.sam bwa mem -t "$T" ref.fa $r1 $r2); score "$label" "bwa mem" "$w" $n bwa_$set.sam
    w=$(run mm_$set mm_$set.sam minimap2 -ax sr -t "$T" ref.mmi $r1 $r2); score "$label" "minimap2 -ax sr" "$w" $n mm_$set.sam
  done
  [ -n "${SKIP_FILTER_TABLE:-}" ] && exit 0
  echo
  printf "mode\te\tfilter\twall_s\tverify_s\tfilter_s\tcandidates_verified\trecords\n"
  for mode in best all; do
    for e in 2 5 8; do
      flag=; [ $mode = all ] && flag=-a
      for f in "$FILTER" off; do
        w=$(run fo fo_$f.sam $G map -t "$T" $flag -e $e --filter $f --stats fo_$f.json ref.gmi pe_1.fq pe_2.fq)
        v=$(grep -o '"verify": [0-9.e+-]*' fo_$f.json | cut -d' ' -f2)
        fs=$(grep -o '"filter": [0-9.e+-]*' fo_$f.json | cut -d' ' -f2)
        c=$(grep -o '"verified": [0-9]*' fo_$f.json | cut -d' ' -f2)
        rec=$(grep -o '"records": [0-9]*' fo_$f.json | cut -d' ' -f2)
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $mode $e $f "$w" "$v" "$fs" "$c" "$rec"
      done
      cmp -s <(grep -v '^@PG' fo_$FILTER.sam) <(grep -v '^@PG' fo_off.sam) || echo "# e=$e $mode: RECORDS DIFFER"
    done
  done
}

real() {
  G=${GATEMAP:-$PWD/build/apps/gatemap}
  D=${DATA:-$PWD/../shared/data}
  OUT=${1:-/tmp/gm_bench_real}
  T=$(nproc)
  mkdir -p "$OUT"
  cd "$OUT"
  if [ ! -s 20.gmi ]; then
    if [ -s "$D/grch37-chr20/20.fa.gz" ]; then
      zcat "$D/grch37-chr20/20.fa.gz" > 20.fa
    else
      for i in 1 2 3 4 5 6; do zcat "$D/grch37-chr20/20.part$i-of-6.fa.gz"; done > 20.fa  # the same, in pieces
    fi
    samtools faidx 20.fa
    $G index -t "$T" -o 20.gmi 20.fa 2>/dev/null
    bwa index 20.fa 2>/dev/null
    minimap2 -x sr -d 20.mmi 20.fa 2>/dev/null
  fi
  SETS="NA12878_S1.chr20.10_10p1mb HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb"
  for s in $SETS; do
    [ -s "$s.r1.fq" ] && continue
    samtools view -u -F 0x900 "$D/grch37-chr20-deepvariant-testdata/$s.bam" | samtools collate -u -O - |
      samtools fastq -1 "$s.r1.fq" -2 "$s.r2.fq" -s /dev/null -0 /dev/null - 2>/dev/null
  done
  wall() {  # command...: wall seconds
    local s e
    s=$(date +%s%N)
    "$@"
    e=$(date +%s%N)
    echo "scale=2; ($e - $s) / 1000000000" | bc
  }
  echo "# $(date -u +%F) $T threads; $(bwa 2>&1 | grep Version); minimap2 $(minimap2 --version)"
  printf "reads\ttool\twall_s\tmapped\tproperly_paired\tsingletons\tmapq60\n"
  for s in $SETS; do
    short=${s%%_*}
    rg="@RG\tID:$short\tSM:$short"
    w_gm=$(wall sh -c "$G map -t $T -R '$rg' -o $s.gatemap.bam 20.gmi $s.r1.fq $s.r2.fq 2>$s.gatemap.log")
    w_bwa=$(wall sh -c "bwa mem -t $T -R '$rg' 20.fa $s.r1.fq $s.r2.fq 2>/dev/null | samtools view -b -o $s.bwa.bam")
    w_mm=$(wall sh -c "minimap2 -t $T -ax sr -R '$rg' 20.mmi $s.r1.fq $s.r2.fq 2>/dev/null | samtools view -b -o $s.minimap2.bam")
    for tool in gatemap bwa minimap2; do
      w=$w_gm; [ $tool = bwa ] && w=$w_bwa; [ $tool = minimap2 ] && w=$w_mm
      samtools flagstat "$s.$tool.bam" | awk -v r="$short" -v t=$tool -v w="$w" '
        / mapped \(/ && !m { m = $1 " " $5 } /properly paired/ { p = $1 " " $6 } /singletons/ { g = $1 }
        END { gsub(/[(:]/, "", m); gsub(/[(:]/, "", p); printf "%s\t%s\t%s\t%s\t%s\t%s\t", r, t, w, m, p, g }'
      samtools view -c -F 0x904 -q 60 "$s.$tool.bam"
    done
  done
  # Calls from each NA12878 BAM; truth: GIAB HG001 v3.3.2 over the slice, and inside the
  # GIAB confident intervals (test_giab BED).
  s=NA12878_S1.chr20.10_10p1mb
  DV=$D/grch37-chr20-deepvariant-testdata
  zcat "$DV"/HG001_*.vcf.gz | awk '/^#/ || ($2 >= 10000000 && $2 < 10100000)' > truth.vcf
  awk 'BEGIN { OFS = "\t" } { print $1, $2, $3 }' "$DV/test_giab.b37_chr20_100kbp_at_10mb.bed" > confident.bed
  echo
  printf "calls_from\tclass\tTP\tFP\tFN\tprecision\trecall\tF1\tconfident_exact\n"
  for tool in gatemap bwa minimap2; do
    samtools sort -o "$s.$tool.sorted.bam" "$s.$tool.bam" 2>/dev/null
    $G call -t "$T" -r 20.fa -o "call.$tool.vcf" "$s.$tool.sorted.bam" 2>/dev/null
    # Inside the confident intervals: records (pos ref alt genotype) equal to the truth's?
    inside() { bcftools view -H -T confident.bed "$1" 2>/dev/null | awk '{ split($10, g, ":"); gsub(/\|/, "/", g[1]);
      if (g[1] == "1/0") g[1] = "0/1"; print $2, $4, $5, g[1] }' | sort; }
    diffs=$(comm -3 <(inside truth.vcf) <(inside "call.$tool.vcf") | wc -l)
    $G eval vcf truth.vcf "call.$tool.vcf" -r 20.fa 2>/dev/null | awk -v t=$tool -v d="$diffs" '
      $1 == "SNP" || $1 == "INDEL" { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, $1, $2, $3, $4, $5, $6, $7, (d == 0 ? "yes" : d " differ") }'
  done
}

index() {
  G=$PWD/build/apps/gatemap
  OUT=${1:-/tmp/gm_bench_index}; shift || true
  SIZES=${*:-10 100 300}
  T=$(nproc)
  mkdir -p "$OUT"
  measure() {  # label, command...: prints label, wall s, peak RSS MiB
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$@" > /dev/null 2> "$OUT/$label.log"
    read -r wall rss < "$OUT/time.txt"
    echo "$wall $((rss / 1024))"
  }
  printf "size_mbp\ttool\tbuild_s\tpeak_rss_mib\tindex_mib\tload_s\n"
  for mbp in $SIZES; do
    scale=$(awk -v m="$mbp" 'BEGIN { printf "%.6f", m * 1e6 / 3101804739 }')
    fa="$OUT/g$mbp.fa"
    [ -s "$fa" ] || $G sim genome --like grch37 --scale "$scale" -t "$T" -o "$fa" 2>/dev/null
    read -r w r < <(measure gm$mbp $G index -t "$T" -o "$OUT/g$mbp.gmi" "$fa")
    sz=$(( $(stat -c %s "$OUT/g$mbp.gmi") / 1048576 ))
    printf '@r\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n' > "$OUT/one.fq"
    read -r lw lr < <(measure gmload$mbp $G map "$OUT/g$mbp.gmi" "$OUT/one.fq")
    printf "%s\tgatemap\t%s\t%s\t%s\t%s\n" "$mbp" "$w" "$r" "$sz" "$lw"
    read -r w r < <(measure mm$mbp minimap2 -x sr -t "$T" -d "$OUT/g$mbp.mmi" "$fa")
    printf "%s\tminimap2 -d\t%s\t%s\t%s\t-\n" "$mbp" "$w" "$r" "$(( $(stat -c %s "$OUT/g$mbp.mmi") / 1048576 ))"
    cp "$fa" "$OUT/bwa$mbp.fa"
    read -r w r < <(measure bwa$mbp bwa index "$OUT/bwa$mbp.fa")
    bsz=$(( $(cat "$OUT/bwa$mbp.fa".{bwt,pac,sa,ann,amb} | wc -c) / 1048576 ))
    printf "%s\tbwa index\t%s\t%s\t%s\t-\n" "$mbp" "$w" "$r" "$bsz"
    rm -f "$OUT/bwa$mbp.fa"*
  done
}

case ${1:-} in
  real | index) mode=$1; shift; "$mode" "$@" ;;
  *) simulated "$@" ;;
esac
