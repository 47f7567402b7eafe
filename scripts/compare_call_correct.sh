#!/usr/bin/env bash
# Two gatemap builds, the same calls and corrections? On the data scripts/compare_records.sh
# made: `correct` of the simulated pairs and `call` on a sorted BAM of them, with each
# build and each backend in BACKENDS; outputs compared byte for byte (##source and
# ##commandline aside; corrected FASTQ by bases and qualities, as builds before 808f475
# dropped the /1 /2 of the read names). Exits 1 if any differs.
# Usage: scripts/compare_call_correct.sh OLD_GATEMAP NEW_GATEMAP DATADIR   (BACKENDS, THREADS)
set -euo pipefail
OLD=$(realpath "$1")
NEW=$(realpath "$2")
cd "$3"
T=${THREADS:-$(nproc)}
BACKENDS=${BACKENDS:-cpu}
[ -s sorted.bam ] || $NEW map -t "$T" --sort -o sorted.bam ref.gmi pe_1.fq pe_2.fq 2> /dev/null
fail=0
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
exit $fail
