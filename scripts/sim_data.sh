#!/usr/bin/env bash
# Simulated test data, made once per folder and the same way by every script that needs
# it (source this file; G: the gatemap binary, T: threads).
# sim_donor_set DIR SCALE PAIRS: a GRCh37-like genome (`sim genome --like grch37 --scale
# SCALE`), a donor of it (`sim variants`: donor.truth.vcf.gz), PAIRS 2x150 pairs
# (pe_1.fq, pe_2.fq) and PAIRS 100 bp single reads (se.fq) from the donor, the truth in
# the read names, and gatemap's index: DIR/ref.fa, DIR/ref.gmi. Kept when DIR has them.
sim_donor_set() {
  local dir=$1 scale=$2 pairs=$3
  [ -s "$dir/ref.gmi" ] && return
  mkdir -p "$dir"
  "$G" sim genome --like grch37 --scale "$scale" -t "$T" -o "$dir/ref.fa" 2> /dev/null
  "$G" sim variants "$dir/ref.fa" -o "$dir/donor" 2> /dev/null
  "$G" sim reads "$dir/ref.fa" --vcf "$dir/donor.truth.vcf.gz" -n "$pairs" -l 150 -t "$T" -o "$dir/pe" 2> /dev/null
  "$G" sim reads "$dir/ref.fa" --vcf "$dir/donor.truth.vcf.gz" -n "$pairs" -l 100 --single --seed 9 -t "$T" \
    -o "$dir/se" 2> /dev/null
  "$G" index -t "$T" -o "$dir/ref.gmi" "$dir/ref.fa" 2> /dev/null
}
