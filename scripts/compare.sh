#!/usr/bin/env bash
# Two gatemap builds side by side on the same data (the simulated set of scripts/sim_data.sh;
# for records also the NA12878 and HG002 chr20 slices when there). Exits 1 if any output
# differs.
#   records OLD NEW [DIR] [SCALE] [PAIRS]: map's records byte for byte (@PG aside) in every
#       setting a refactoring must keep (-e 2/5/8, -a; --filter cpu/off, and gpu when
#       FILTERS names it); one line per setting. REAL_DIR: the slices as FASTQ (the GPU
#       bundle's data/real) instead of ../shared.
#   calls OLD NEW DIR: `correct` of the simulated pairs and `call` on a sorted BAM of them,
#       per backend in BACKENDS (cpu); VCFs without ##source/##commandline, FASTQ by bases
#       and qualities (builds before 808f475 dropped the /1 /2 of read names).
#   speed OLD NEW DIR [ROUNDS]: wall seconds of `map` per build, filter (FILTERS) and round,
#       alternating (machines are noisy: compare within one call); medians per setting.
# THREADS: -t (all cores).
set -euo pipefail
mode=${1:-}
OLD=$(realpath "$2")
NEW=$(realpath "$3")
DIR=$(realpath -m "${4:-/tmp/gm_compare}")
cd "$(dirname "$0")/.."
T=${THREADS:-$(nproc)}
FILTERS=${FILTERS:-cpu off}
fail=0

records() {
  local OUT=$1 SCALE=${2:-0.01} PAIRS=${3:-40000}
  D=$PWD/../shared/data
  REAL_DIR=${REAL_DIR:+$(realpath "$REAL_DIR")}
  G=$NEW
  source scripts/sim_data.sh
  sim_donor_set "$OUT" "$SCALE" "$PAIRS"
  cd "$OUT"
  SETS="ref.gmi:pe_1.fq:pe_2.fq ref.gmi:se.fq:"
  # Real reads: from ../shared (needs samtools), or as FASTQ from REAL_DIR (the GPU bundle's
  # data/real: 20.part*-of-6.fa.gz, NA12878.r1.fq.gz, ...; see scripts/gpu-suite.sh bundle).
  if [ -n "${REAL_DIR:-}" ]; then
    R=$REAL_DIR
    [ -s 20.gmi ] || { zcat "$R"/20.part*-of-6.fa.gz > 20.fa && $NEW index -t "$T" -o 20.gmi 20.fa 2>/dev/null; }
    for s in NA12878 HG002; do SETS="$SETS 20.gmi:$R/$s.r1.fq.gz:$R/$s.r2.fq.gz"; done
  elif [ -d "$D/grch37-chr20" ] && command -v samtools > /dev/null; then
    if [ ! -s 20.gmi ]; then
      for i in 1 2 3 4 5 6; do zcat "$D/grch37-chr20/20.part$i-of-6.fa.gz"; done > 20.fa
      $NEW index -t "$T" -o 20.gmi 20.fa 2>/dev/null
    fi
    for s in NA12878_S1 HG002_NIST_150bp_downsampled_30x; do
      b=$D/grch37-chr20-deepvariant-testdata/$s.chr20.10_10p1mb.bam
      [ -s "$s.r1.fq" ] || samtools view -u -F 0x900 "$b" | samtools collate -u -O - |
        samtools fastq -1 "$s.r1.fq" -2 "$s.r2.fq" -s /dev/null -0 /dev/null - 2>/dev/null
      SETS="$SETS 20.gmi:$s.r1.fq:$s.r2.fq"
    done
  fi
  for set in $SETS; do
    IFS=: read -r idx r1 r2 <<< "$set"
    for f in $FILTERS; do
      for args in "" "-e 2" "-e 5" "-e 8" "-a" "-a -e 8"; do
        for bin in OLD NEW; do
          # shellcheck disable=SC2086
          "${!bin}" map -t "$T" --filter "$f" $args "$idx" "$r1" $r2 2> "$bin.log" | grep -v '^@PG' > "$bin.sam"
        done
        if cmp -s OLD.sam NEW.sam; then
          res=identical
        else
          res="DIFFER ($( { diff OLD.sam NEW.sam || true; } | grep -c '^<') lines)"
          fail=1
        fi
        name=$(basename "$r1")
        echo "${name%%.*} filter=$f ${args:-default}: $(grep -vc '^@' NEW.sam) records $res"
      done
    done
  done
}

calls() {
  cd "$1"
  local BACKENDS=${BACKENDS:-cpu}
  [ -s sorted.bam ] || $NEW map -t "$T" --sort -o sorted.bam ref.gmi pe_1.fq pe_2.fq 2> /dev/null
  body() {  # a VCF without its command lines, or a FASTQ's bases and qualities
    case $1 in
      *.fq) awk 'NR % 4 != 1' "$1" ;;
      *) grep -v '^##source\|^##commandline' "$1" ;;
    esac
  }
  same() {  # label file1 file2
    if cmp -s <(body "$2") <(body "$3"); then
      echo "$1: identical ($(grep -vc '^#' "$3") lines)"
    else
      echo "$1: DIFFER"
      fail=1
    fi
  }
  for b in $BACKENDS; do
    for bin in OLD NEW; do
      "${!bin}" correct -t "$T" --backend "$b" -o "c_$bin.1.fq" -p "c_$bin.2.fq" pe_1.fq pe_2.fq 2> /dev/null
      "${!bin}" call -t "$T" --backend "$b" -r ref.fa -o "call_$bin.vcf" sorted.bam 2> /dev/null
    done
    same "correct --backend $b (mate 1)" c_OLD.1.fq c_NEW.1.fq
    same "correct --backend $b (mate 2)" c_OLD.2.fq c_NEW.2.fq
    same "call --backend $b" call_OLD.vcf call_NEW.vcf
  done
}

speed() {
  cd "$1"
  local ROUNDS=${2:-3} SETS=${SETS:-"ref.gmi:pe_1.fq:pe_2.fq ref.gmi:se.fq:"}
  printf "set\tfilter\tbuild\tround\twall_s\n" > ab.tsv
  for round in $(seq 1 "$ROUNDS"); do
    for set in $SETS; do
      IFS=: read -r idx r1 r2 <<< "$set"
      for f in $FILTERS; do
        for bin in OLD NEW; do
          s=$(date +%s%N)
          # shellcheck disable=SC2086
          "${!bin}" map -t "$T" --filter "$f" "$idx" "$r1" $r2 > /dev/null 2> ab.log
          e=$(date +%s%N)
          printf "%s\t%s\t%s\t%s\t%s\n" "${r1%%.*}" "$f" "$bin" "$round" "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" >> ab.tsv
        done
      done
    done
  done
  echo "# $(date -u +%F) $(nproc) cores, -t $T, $ROUNDS rounds alternating; median wall s"
  printf "set\tfilter\told_s\tnew_s\tnew/old\n"
  awk -F'\t' 'NR > 1 { k = $1 "\t" $2; v[k, $3] = v[k, $3] " " $5; keys[k] = 1 }
    function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { for (k in keys) { o = median(v[k, "OLD"]); n = median(v[k, "NEW"]); printf "%s\t%.2f\t%.2f\t%.3f\n", k, o, n, n / o } }' ab.tsv | sort
}

case $mode in
  records) records "$DIR" "${5:-0.01}" "${6:-40000}" ;;
  calls) calls "$DIR" ;;
  speed) speed "$DIR" "${5:-3}" ;;
  *) echo "usage: scripts/compare.sh records|calls|speed OLD NEW [DIR ...]" >&2; exit 2 ;;
esac
exit $fail
