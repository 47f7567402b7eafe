#!/usr/bin/env bash
# The user's path at genome scale (docs/BENCHMARKS.md "whole genome"): a GRCh37-sized
# genome (`sim genome --like grch37 --scale 1`, the real chr20 in place of its 20 when
# CHR20 names a FASTA), a diploid donor, PAIRS 2x150 pairs as gzip FASTQ, `map --sort
# --markdup` to an indexed BAM, `call` over the whole genome to an indexed VCF, scored by
# `eval vcf`; beside it, in the same run, the same steps on chr20 alone with 1 M pairs
# (about the same depth as PAIRS=50 M on the genome) and with 6.3 M pairs (30x), the
# figures the 30x extrapolation scales.
# Per step one TSV row on stdout: wall s, CPU s (user + sys), peak RSS, peak GPU memory
# (nvidia-smi, where present), peak temporary disk (the sorter's --tmp-dir), output bytes.
# Usage: scripts/bench_genome.sh STAGE... (prep20 chr20 old chr20x30 prep genome capped old_genome report), in OUTDIR
#   env: OUTDIR (/tmp/gm_genome), GATEMAP, PAIRS (50000000), THREADS (all), CHR20 (FASTA),
#   CAP (24G) and CAP_PAIRS (2000000) for the stage `capped` (after `genome`: its reads and BAM),
#   MAP_FLAGS, CALL_FLAGS (added to every map / call), LOG (stderr of every command), OLD
#   (another gatemap build, for the stages `old`: chr20 beside it, records and calls compared,
#   and `old_genome`: the capped stage's pairs beside it, records compared);
#   for a quick try on a small machine: SCALE (1), CHR20_PAIRS (1000000), CHR20_DEEP_PAIRS (6300000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=$(realpath "$(command -v "${GATEMAP:-$here/../build/apps/gatemap}")")
OUTDIR=${OUTDIR:-/tmp/gm_genome}
PAIRS=${PAIRS:-50000000}
SCALE=${SCALE:-1}
CHR20_PAIRS=${CHR20_PAIRS:-1000000}
CHR20_DEEP_PAIRS=${CHR20_DEEP_PAIRS:-6300000}
T=${THREADS:-$(nproc)}
TIME=${TIME:-/usr/bin/time}
mkdir -p "$OUTDIR"
OUTDIR=$(realpath "$OUTDIR")
LOG=${LOG:-$OUTDIR/runs.log}
ROWS=$OUTDIR/rows.tsv
cd "$OUTDIR"
[ -s "$ROWS" ] || printf "set\tstep\twall_s\tcpu_s\tpeak_rss_mib\tpeak_gpu_mib\tpeak_tmp_bytes\toutput_bytes\n" > "$ROWS"
note() { echo "[bench_genome] $*" >&2; echo "## $*" >> "$LOG"; }

# measure SET STEP OUTPUT SPILL CMD...: runs CMD with its stderr in LOG and appends a row
# (set, step, wall, CPU, peak RSS, peak GPU memory, peak bytes under SPILL, OUTPUT's bytes).
measure() {
  local set=$1 step=$2 output=$3 spill=$4 smi= disk= st
  local tmp=$OUTDIR/.measure.$set.$step  # its own files: two steps may run at once
  shift 4
  echo "## $set $step: $*" >> "$LOG"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$tmp.gpu" & smi=$!
  fi
  : > "$tmp.disk"
  if [ -n "$spill" ]; then
    mkdir -p "$spill"
    while sleep 1; do du -sb "$spill" 2> /dev/null | cut -f1; done >> "$tmp.disk" & disk=$!
  fi
  st=$(date +%s%N)
  "$TIME" -f '%e %U %S %M' -o "$tmp.time" "$@" 2>> "$LOG" || { note "$set $step failed"; }
  local wall; wall=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  [ -z "$smi" ] || { kill "$smi"; wait "$smi" 2> /dev/null || true; }
  [ -z "$disk" ] || { kill "$disk"; wait "$disk" 2> /dev/null || true; }
  local cpu rss gpu peak bytes
  cpu=$(tail -1 "$tmp.time" | awk '{ printf "%.1f", $2 + $3 }')
  rss=$(tail -1 "$tmp.time" | awk '{ printf "%.0f", $4 / 1024 }')
  gpu=$( { sort -n "$tmp.gpu" 2> /dev/null || true; } | tail -1)
  peak=$(sort -n "$tmp.disk" | tail -1)
  bytes=$(stat -c %s "$output" 2> /dev/null || echo 0)
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$set" "$step" "$wall" "$cpu" "$rss" "${gpu:-na}" "${peak:-0}" "$bytes" \
    | tee -a "$ROWS"
}

# donor_set DIR REF N: a donor of REF (DIR/donor.truth.vcf.gz) and N pairs from it as gzip
# FASTQ (DIR/pe_{1,2}.fq.gz); the donor's haplotypes are removed once the reads are made.
donor_set() {
  local dir=$1 ref=$2 n=$3
  [ -s "$dir/pe_2.fq.gz" ] && return
  mkdir -p "$dir"
  measure "$(basename "$dir")" sim_variants "$dir/donor.truth.vcf.gz" "" \
    "$G" sim variants "$ref" --seed 5 -t "$T" -o "$dir/donor"
  measure "$(basename "$dir")" sim_reads "$dir/pe_1.fq.gz" "" \
    "$G" sim reads "$ref" --vcf "$dir/donor.truth.vcf.gz" -n "$n" -l 150 --gz --seed 11 -t "$T" -o "$dir/pe"
  rm -f "$dir"/donor.hap*.fa
}

# user_path SET DIR REF: map --sort --markdup, call, eval vcf (rows for each)
user_path() {
  local set=$1 dir=$2 ref=$3
  rm -f "$dir"/pe.bam* "$dir"/calls.vcf.gz*
  # shellcheck disable=SC2086
  measure "$set" map_sort_markdup "$dir/pe.bam" "$dir/spill" \
    "$G" map -t "$T" ${MAP_FLAGS:-} --sort --markdup --tmp-dir "$dir/spill" -R "@RG\tID:$set\tSM:donor" \
    --stats "$dir/map.json" -o "$dir/pe.bam" "${ref%.fa}.gmi" "$dir/pe_1.fq.gz" "$dir/pe_2.fq.gz"
  # shellcheck disable=SC2086
  measure "$set" call "$dir/calls.vcf.gz" "" \
    "$G" call -t "$T" ${CALL_FLAGS:-} --stats "$dir/call.json" -r "$ref" -o "$dir/calls.vcf.gz" "$dir/pe.bam"
  "$G" eval vcf "$dir/donor.truth.vcf.gz" "$dir/calls.vcf.gz" -r "$ref" > "$dir/eval.txt" 2>> "$LOG" || note "$set eval failed"
  sed "s/^/# $set eval: /" "$dir/eval.txt"
}

for stage in "$@"; do
  case $stage in
    prep20)  # chr20 alone: its index, a donor, 1 M pairs and the 30x set
      if [ ! -s chr20/ref.gmi ]; then
        mkdir -p chr20
        awk '/^>/ { print ">20"; next } { print }' "$CHR20" > chr20/ref.fa
        "$G" index -t "$T" -o chr20/ref.gmi chr20/ref.fa 2>> "$LOG"
      fi
      donor_set chr20 chr20/ref.fa "$CHR20_PAIRS"
      mkdir -p chr20x30
      [ -s chr20x30/pe_2.fq.gz ] || { cp chr20/donor.truth.vcf.gz* chr20x30/
        "$G" sim reads chr20/ref.fa --vcf chr20/donor.truth.vcf.gz -n "$CHR20_DEEP_PAIRS" -l 150 --gz --seed 12 -t "$T" \
          -o chr20x30/pe 2>> "$LOG"; } ;;
    prep)  # the genome (the real chr20 in place of its 20 with CHR20), its index, a donor, PAIRS pairs
      if [ ! -s genome/ref.gmi ]; then
        mkdir -p genome
        measure genome sim_genome genome/sim.fa "" "$G" sim genome --like grch37 --scale "$SCALE" -t "$T" -o genome/sim.fa
        if [ -n "${CHR20:-}" ]; then
          awk '/^>/ { keep = ($1 != ">20") } keep' genome/sim.fa > genome/ref.fa
          awk '/^>/ { print ">20"; next } { print }' "$CHR20" >> genome/ref.fa
          rm genome/sim.fa
        else
          mv genome/sim.fa genome/ref.fa
        fi
        # Indexed while the donor (one thread) and its reads are made: the rows' times overlap.
        measure genome index genome/ref.gmi "" "$G" index -t "$T" -o genome/ref.gmi genome/ref.fa &
      fi
      donor_set genome genome/ref.fa "$PAIRS"
      wait
      df -h "$OUTDIR" | tail -1 | sed 's/^/# disk after prep: /' ;;
    genome) user_path genome genome genome/ref.fa ;;
    chr20) user_path chr20 chr20 chr20/ref.fa ;;
    chr20x30) user_path chr20x30 chr20x30 chr20/ref.fa ;;
    old)  # OLD (another gatemap build) on the chr20 set: its times beside, records and calls compared
      d=chr20
      measure chr20_old map_sort_markdup "$d/old.bam" "$d/spill" "$OLD" map -t "$T" --sort --markdup --tmp-dir "$d/spill" \
        -R "@RG\tID:chr20\tSM:donor" -o "$d/old.bam" chr20/ref.gmi "$d/pe_1.fq.gz" "$d/pe_2.fq.gz"
      measure chr20_old call "$d/old.vcf.gz" "" "$OLD" call -t "$T" -r chr20/ref.fa -o "$d/old.vcf.gz" "$d/old.bam"
      cmp -s <(samtools view "$d/pe.bam") <(samtools view "$d/old.bam") \
        && echo "# chr20: records identical to OLD's" || echo "# chr20: records DIFFER from OLD's"
      cmp -s <(gzip -dc "$d/calls.vcf.gz" | grep -v '^##') <(gzip -dc "$d/old.vcf.gz" | grep -v '^##') \
        && echo "# chr20: calls identical to OLD's" || echo "# chr20: calls differ from OLD's (fields or records)"
      "$G" eval vcf "$d/donor.truth.vcf.gz" "$d/old.vcf.gz" -r chr20/ref.fa 2>> "$LOG" | sed "s/^/# chr20_old eval: /" ;;
    capped)  # the genome under --gpu-mem CAP (24G: an L4-sized card): CAP_PAIRS of its pairs mapped and
             # chr20 called with and without the cap, records and calls compared
      d=genome/capped && mkdir -p $d
      n=${CAP_PAIRS:-2000000} cap=${CAP:-24G}
      for m in 1 2; do
        [ -s $d/pe_$m.fq.gz ] || { gzip -dc genome/pe_$m.fq.gz | head -n $((4 * n)) | gzip -1 > $d/pe_$m.fq.gz & }
      done
      wait
      for c in 0 "$cap"; do
        measure "capped_$c" map_sort_markdup "$d/$c.bam" "$d/spill" "$G" map -t "$T" --gpu-mem "$c" --sort --markdup \
          --tmp-dir "$d/spill" -R "@RG\tID:genome\tSM:donor" -o "$d/$c.bam" genome/ref.gmi $d/pe_1.fq.gz $d/pe_2.fq.gz
        measure "capped_$c" call_20 "$d/$c.vcf.gz" "" "$G" call -t "$T" --gpu-mem "$c" -L 20 -r genome/ref.fa \
          -o "$d/$c.vcf.gz" genome/pe.bam
      done
      grep -h "free left to this run" "$LOG" | tail -2 | sed 's/^/# capped: /'
      cmp -s <(samtools view "$d/0.bam") <(samtools view "$d/$cap.bam") \
        && echo "# capped: records identical under --gpu-mem $cap" || echo "# capped: records DIFFER under --gpu-mem $cap"
      cmp -s <(gzip -dc "$d/0.vcf.gz" | grep -v '^##') <(gzip -dc "$d/$cap.vcf.gz" | grep -v '^##') \
        && echo "# capped: calls identical under --gpu-mem $cap" || echo "# capped: calls DIFFER under --gpu-mem $cap" ;;
    old_genome)  # OLD beside on the genome: the `capped` stage's CAP_PAIRS pairs mapped by both, records compared
      d=genome/capped
      measure genome_old map_sort_markdup "$d/old.bam" "$d/spill" "$OLD" map -t "$T" --sort --markdup --tmp-dir "$d/spill" \
        -R "@RG\tID:genome\tSM:donor" -o "$d/old.bam" genome/ref.gmi $d/pe_1.fq.gz $d/pe_2.fq.gz
      cmp -s <(samtools view "$d/0.bam") <(samtools view "$d/old.bam") \
        && echo "# genome: records identical to OLD's" || echo "# genome: records DIFFER from OLD's" ;;
    report)  # per pair and per Mbp, and the 30x genome from them (see docs/BENCHMARKS.md)
      awk -F'\t' -v pairs="$PAIRS" -v scale="$SCALE" -v c20="$CHR20_PAIRS" -v c20deep="$CHR20_DEEP_PAIRS" '
        { wall[$1 "/" $2] = $3; cpu[$1 "/" $2] = $4 }
        END {
          n["genome"] = pairs / 1e6; n["chr20"] = c20 / 1e6; n["chr20x30"] = c20deep / 1e6
          len["genome"] = 3101.8 * scale; len["chr20"] = 63.0; len["chr20x30"] = 63.0
          for (s in n) if ((s "/map_sort_markdup") in wall)
            printf "# %s: map %.3f s and %.1f CPU-s per 1 M pairs; call %.4f s per Mbp\n", s,
              wall[s "/map_sort_markdup"] / n[s], cpu[s "/map_sort_markdup"] / n[s], wall[s "/call"] / len[s]
          if (("genome/call" in wall) && ("chr20/call" in wall) && ("chr20x30/call" in wall)) {
            m = wall["genome/map_sort_markdup"] / n["genome"] * 310
            r = (wall["genome/call"] / len["genome"]) / (wall["chr20/call"] / len["chr20"])
            c = wall["chr20x30/call"] / len["chr20x30"] * 3101.8 * r
            printf "# 30x genome: map %.0f s (310 M pairs at the genome run'"'"'s per-pair cost), call %.0f s\n", m, c
            printf "#   (chr20 at 30x per Mbp x 3101.8 Mbp x %.2f, the genome/chr20 per-Mbp ratio at equal depth): %.1f min\n", r, (m + c) / 60
          }
        }' "$ROWS" ;;
    *) echo "unknown stage '$stage'" >&2; exit 2 ;;
  esac
done
