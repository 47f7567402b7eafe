#!/usr/bin/env bash
# A user's run from FASTQ to BAM (docs/BENCHMARKS.md "map: input and output"): PAIRS
# simulated 2x150 pairs of REF, as plain FASTQ, `gzip -1` and bgzip; `gatemap map` to SAM,
# to BAM and to a sorted, duplicate-marked, indexed BAM; minimap2 -ax sr and strobealign
# (prebuilt index) on the gzip files; OLD (another gatemap build) side by side. ROUNDS
# rounds, alternating. Wall, CPU (user+sys) and peak RSS per run as TSV on stdout; records
# compared across input and output forms (and with OLD) at the end. LEVELS (e.g. "1") adds
# the BAM rows at those compression levels (map -l; "gpu": map --bgzf-gpu). WHOLE=N adds N pairs (6300000: chr20
# at 30x) from gzip to a sorted, duplicate-marked BAM, at the default level and LEVELS (OLD too;
# MAP_FLAGS added to those runs, e.g. -v 4 for the sort's laps); TABLE=0 runs only that.
# Usage: scripts/bench_io.sh OUTDIR REF.fa
#   (env: GATEMAP OLD MINIMAP2 STROBEALIGN SAMTOOLS TIME PAIRS ROUNDS THREADS LEVELS WHOLE MAP_FLAGS)
#
# scripts/bench_io.sh sort OUTDIR ...: fq2bam side by side (docs/BENCHMARKS.md "map --sort
# --markdup"): on simulated pairs, in alternating rounds, `gatemap map` (unsorted BAM), `gatemap map --sort --markdup` (sorted,
# duplicate-marked, indexed BAM) and `gatemap map | samtools fixmate -m | samtools sort |
# samtools markdup` + `samtools index`, with the same threads; then --sort under a small
# memory budget (-m per thread) with the peak RSS gatemap reports and the peak temporary
# disk beside the BAM (OLD's too). Prints a TSV.
# Each command's stderr is kept in OUTDIR/runs.log. OLD (a second gatemap) adds its
# `map --sort --markdup` to every round.
# LEVELS (e.g. "1") adds both gatemap commands at those BAM compression levels (map -l).
# Usage: scripts/bench_io.sh sort OUTDIR [SCALE] [PAIRS] [ROUNDS]   (GATEMAP, SAMTOOLS, THREADS, SMALL_M, OLD, LEVELS)
set -euo pipefail

forms() {
  abs() { [ -z "$1" ] || realpath "$(command -v "$1")"; }  # tools found before the cd below
  G=$(abs "${GATEMAP:-build/apps/gatemap}")
  S=$(abs "${SAMTOOLS:-samtools}")
  OLD=$(abs "${OLD:-}")
  MINIMAP2=$(abs "${MINIMAP2:-}")
  STROBEALIGN=$(abs "${STROBEALIGN:-}")
  TIME=$(abs "${TIME:-/usr/bin/time}")
  OUTDIR=$1
  REF=$(realpath "$2")
  PAIRS=${PAIRS:-1000000}
  ROUNDS=${ROUNDS:-2}
  T=${THREADS:-$(nproc)}
  mkdir -p "$OUTDIR"
  cd "$OUTDIR"
  log() { echo "[bench_io] $*" >&2; }
  # reads PREFIX N [bgz]: N pairs as PREFIX_{1,2}.fq and .fq.gz (gzip -1), and .fq.bgz (bgzip)
  reads() {
    [ -s "$1_2.fq.gz" ] && return
    $G sim reads ref.fa -n "$2" -l 150 -t "$T" --seed 11 -o "$1" 2> /dev/null
    for m in 1 2; do
      gzip -1 -c "$1_$m.fq" > "$1_$m.fq.gz" &
      [ -z "${3:-}" ] || bgzip -@ $((T / 2)) -c "$1_$m.fq" > "$1_$m.fq.bgz" &
    done
    wait
  }
  if [ ! -s ref.gmi ]; then
    log "index and reads"
    ln -sf "$REF" ref.fa
    $G index -t "$T" -o ref.gmi ref.fa 2> /dev/null
    [ -n "$STROBEALIGN" ] && $STROBEALIGN --create-index -t "$T" -r 150 ref.fa 2> /dev/null
  fi
  reads pe "$PAIRS" bgz
  # level_flag L: map's option for a LEVELS entry ("gpu": --bgzf-gpu, else -l L)
  level_flag() { if [ "$1" = gpu ]; then echo --bgzf-gpu; else echo "-l $1"; fi; }
  # run NAME OUTPUT CMD...: one timed run (its output from the last round removed first).
  run() {
    local name=$1 out=$2
    shift 2
    rm -f "$out" "$out.bai"
    $TIME -f "%e %U %S %M" -o time.txt "$@" > /dev/null 2> last.log || {
      echo "FAILED: $name" >&2
      tail -5 last.log >&2
    }
    { echo "== $name: $*"; cat last.log; } >> runs.log
    read -r wall user sys rss < <(tail -1 time.txt)
    awk -v r="$r" -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
      'BEGIN { printf "%s\t%s\t%s\t%.2f\t%d\n", r, n, w, u + s, m / 1024 }'
  }
  echo "# $(date -u +%F) $(nproc) cores, -t $T, $PAIRS pairs of $(basename "$REF"); $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)"
  printf "round\tcommand\twall_s\tcpu_s\tpeak_rss_mib\n"
  for r in $(seq 1 "$ROUNDS"); do
    [ "${TABLE:-1}" = 1 ] || break
    for b in "$G" $OLD; do
      tag=$([ "$b" = "$G" ] && echo gatemap || echo old)
      run "$tag fq->sam" $tag.sam $b map -t "$T" -o $tag.sam ref.gmi pe_1.fq pe_2.fq
      run "$tag fq.gz->sam" $tag.gz.sam $b map -t "$T" -o $tag.gz.sam ref.gmi pe_1.fq.gz pe_2.fq.gz
      run "$tag fq.bgz->sam" $tag.bgz.sam $b map -t "$T" -o $tag.bgz.sam ref.gmi pe_1.fq.bgz pe_2.fq.bgz
      run "$tag fq->bam" $tag.bam $b map -t "$T" -o $tag.bam ref.gmi pe_1.fq pe_2.fq
      run "$tag fq.gz->bam" $tag.gz.bam $b map -t "$T" -o $tag.gz.bam ref.gmi pe_1.fq.gz pe_2.fq.gz
      run "$tag fq.gz->sorted markdup bam" $tag.md.bam $b map -t "$T" --sort --markdup -o $tag.md.bam ref.gmi \
        pe_1.fq.gz pe_2.fq.gz
    done
    for l in ${LEVELS:-}; do
      lf=$(level_flag "$l")
      run "gatemap fq.gz->bam $lf" gatemap.l.bam $G map -t "$T" $lf -o gatemap.l.bam ref.gmi pe_1.fq.gz pe_2.fq.gz
      run "gatemap fq.gz->sorted markdup bam $lf" gatemap.lmd.bam $G map -t "$T" $lf --sort --markdup \
        -o gatemap.lmd.bam ref.gmi pe_1.fq.gz pe_2.fq.gz
      echo "# sizes: bam $(stat -c %s gatemap.gz.bam), -l $l $(stat -c %s gatemap.l.bam); sorted $(stat -c %s gatemap.md.bam), -l $l $(stat -c %s gatemap.lmd.bam)"
    done
    [ -n "$MINIMAP2" ] && run "minimap2 -ax sr fq.gz->sam" mm2.sam $MINIMAP2 -ax sr -t "$T" -o mm2.sam ref.fa \
      pe_1.fq.gz pe_2.fq.gz
    [ -n "$STROBEALIGN" ] && run "strobealign fq.gz->sam" sa.sam $STROBEALIGN --use-index -t "$T" -o sa.sam ref.fa \
      pe_1.fq.gz pe_2.fq.gz
  done
  if [ "${TABLE:-1}" = 1 ]; then
  same() { cmp -s <(grep -v '^@PG' "$1") <(grep -v '^@PG' "$2") && echo identical || echo DIFFER; }
  echo "# records: fq vs fq.gz $(same gatemap.sam gatemap.gz.sam), vs fq.bgz $(same gatemap.sam gatemap.bgz.sam);" \
    "bam vs sam $(same <($S view gatemap.bam) <(grep -v '^@' gatemap.sam));" \
    "sorted (flags aside) vs samtools sort $(same <($S view gatemap.md.bam | cut -f 1,3-11) <($S sort -@ "$T" -O sam gatemap.bam 2> /dev/null | grep -v '^@' | cut -f 1,3-11));" \
    "idxstats $($S idxstats gatemap.md.bam | awk '{m += $3} END {print m}') mapped;" \
    "duplicates $($S view -c -f 0x400 gatemap.md.bam)"
  [ -n "${LEVELS:-}" ] && echo "# records vs the last -l: bam $(same <($S view gatemap.gz.bam) <($S view gatemap.l.bam))," \
    "sorted markdup $(same <($S view gatemap.md.bam) <($S view gatemap.lmd.bam))"
  if [ -n "$OLD" ]; then
    echo "# records vs OLD: sam $(same gatemap.sam old.sam), bam $(same <($S view gatemap.bam) <($S view old.bam))," \
      "sorted markdup $(same <($S view gatemap.md.bam) <($S view old.md.bam))"
  fi
  fi
  if [ -n "${WHOLE:-}" ]; then
    reads whole "$WHOLE"
    r=whole
    for l in default ${LEVELS:-}; do
      flag=$([ "$l" = default ] || level_flag "$l")
      for b in "$G" $OLD; do
        tag=$([ "$b" = "$G" ] && echo gatemap || echo old)
        run "$tag $WHOLE pairs fq.gz->sorted markdup bam $flag" whole.md.bam $b map -t "$T" $flag ${MAP_FLAGS:-} \
          --sort --markdup -o whole.md.bam ref.gmi whole_1.fq.gz whole_2.fq.gz
        grep -E "sorted .* records|time:|(decided|sorted|written|closed) in" last.log | sed 's/^/# /'
        echo "# BAM size $(stat -c %s whole.md.bam) bytes"
        [ -z "$OLD" ] || $S view whole.md.bam | md5sum | sed "s/^/# records of $tag: /"
      done
    done
  fi
}

sort_bench() {
  G=${GATEMAP:-$PWD/build/apps/gatemap}
  S=${SAMTOOLS:-samtools}
  OUT=$1
  SCALE=${2:-0.03}
  PAIRS=${3:-1000000}
  ROUNDS=${4:-3}
  T=${THREADS:-$(nproc)}
  mkdir -p "$OUT"
  cd "$OUT"
  if [ ! -s ref.gmi ]; then
    $G sim genome --like grch37 --scale "$SCALE" -t "$T" -o ref.fa 2> /dev/null
    $G sim reads ref.fa -n "$PAIRS" -l 150 -t "$T" -o pe 2> /dev/null
    $G index -t "$T" -o ref.gmi ref.fa 2> /dev/null
  fi
  # ms OUT CMD...: CMD's wall milliseconds. Its output OUT (and OUT.bai) from the last
  # round is removed before the clock starts: deleting a large file takes a few tenths of
  # a second, which the run's open or rename would otherwise pay.
  ms() {
    local s e
    rm -f "$1" "$1.bai"
    shift
    s=$(date +%s%N)
    "$@" > /dev/null 2> last.log
    e=$(date +%s%N)
    { echo "== $*"; cat last.log; } >> runs.log
    echo $(((e - s) / 1000000))
  }
  rss() { grep -o 'Peak RSS: [0-9]* MiB' "$1" | tail -1 | grep -o '[0-9]*'; }
  echo "# $(date -u +%F) $(nproc) cores, -t $T, $PAIRS pairs, genome scale $SCALE"
  printf "round\tcommand\twall_ms\tpeak_rss_mib\n"
  for r in $(seq 1 "$ROUNDS"); do
    w=$(ms u.bam $G map -t "$T" -o u.bam ref.gmi pe_1.fq pe_2.fq)
    printf "%s\tmap\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
    w=$(ms md.bam $G map -t "$T" -v 4 --sort --markdup -o md.bam ref.gmi pe_1.fq pe_2.fq)
    printf "%s\tmap --sort --markdup\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
    for l in ${LEVELS:-}; do  # other BAM compression levels (map -l)
      w=$(ms u.bam $G map -t "$T" -l "$l" -o u.bam ref.gmi pe_1.fq pe_2.fq)
      printf "%s\tmap -l %s\t%s\t%s\n" "$r" "$l" "$w" "$(rss last.log)"
      w=$(ms md.bam $G map -t "$T" -l "$l" --sort --markdup -o md.bam ref.gmi pe_1.fq pe_2.fq)
      printf "%s\tmap --sort --markdup -l %s\t%s\t%s\n" "$r" "$l" "$w" "$(rss last.log)"
    done
    if [ -n "${OLD:-}" ]; then
      w=$(ms md_old.bam $OLD map -t "$T" --sort --markdup -o md_old.bam ref.gmi pe_1.fq pe_2.fq)
      printf "%s\tmap --sort --markdup (old build)\t%s\t%s\n" "$r" "$w" "$(rss last.log)"
    fi
    w=$(ms smd.bam bash -c "$G map -t $T ref.gmi pe_1.fq pe_2.fq 2>/dev/null | $S fixmate -@$T -m - - | $S sort -@$T - 2>/dev/null |
      $S markdup -@$T - smd.bam && $S index -@$T smd.bam")
    printf "%s\tmap | samtools fixmate | sort | markdup; index\t%s\t\n" "$r" "$w"
  done
  # The small budget's run, and OLD's: peak temporary disk (--tmp-dir sampled every 0.1 s)
  # beside the final BAM.
  for b in $G ${OLD:-}; do
    tag=$([ "$b" = "$G" ] && echo small || echo small_old)
    rm -rf spill && mkdir spill
    (while sleep 0.1; do du -sb spill | cut -f1; done > spill.du) & du_pid=$!
    $b map -t "$T" --sort --markdup -m "${SMALL_M:-4M}" --tmp-dir spill -o $tag.bam ref.gmi pe_1.fq pe_2.fq 2> $tag.log > /dev/null
    kill $du_pid
    printf "1\tmap --sort --markdup -m %s%s (runs: %s)\t\t%s\n" "${SMALL_M:-4M}" "$([ $tag = small ] || echo ' (old build)')" \
      "$(grep -o '[0-9]* runs spilled' $tag.log | grep -o '^[0-9]*')" "$(rss $tag.log)"
    echo "# $tag: peak temporary disk $(sort -n spill.du | tail -1) bytes, BAM $(stat -c %s $tag.bam) bytes"
  done
  same() { cmp -s <($S view "$1") <($S view "$2") && echo identical || echo DIFFER; }
  [ -z "${OLD:-}" ] || echo "# records: -m ${SMALL_M:-4M} vs the old build's: $(same small.bam small_old.bam)"
  [ "$ROUNDS" = 0 ] || echo "# records: --sort --markdup vs -m ${SMALL_M:-4M}: $(same md.bam small.bam);" \
    "duplicates: gatemap $($S view -c -f 0x400 md.bam), samtools markdup $($S view -c -f 0x400 smd.bam)"
}

if [ "${1:-}" = sort ]; then
  shift
  sort_bench "$@"
else
  forms "$@"
fi
