#!/usr/bin/env bash
# Error-correction benchmarks (docs/BENCHMARKS.md "correct"): gatemap correct beside
# Lighter on the same reads, each run scored with `gatemap eval correct`. Prints TSV.
#   scripts/bench_correct.sh [OUTDIR]: simulated single reads of a human-like synthetic
#     genome, 100 and 150 bp at 30x and 60x (SETS), each backend in BACKENDS; then the
#     share of reads that map with 0 edits before and after (first MAP_READS reads).
#     env: GENOME_LEN BACKENDS MAP_READS SETS; EXTRA (more gatemap correct options, e.g.
#     "--spectrum exact", also appended to the tool's name); SKIP_LIGHTER=1
#   scripts/bench_correct.sh profiles [OUTDIR]: E. coli pairs of three error profiles: the
#     project's simulator, ART (HiSeq 2500 qualities: errors where qualities are low) and
#     mason_simulator (mismatches rising to the 3' end; scripts/sim_profile_reads.py); tools
#     alternate within each round. env: PAIRS (200000), PROFILES ("gatemap art mason"),
#     TOOLS ("gm_cpu lighter"; gm_gpu on a GPU machine, gm_old: the build OLD), ROUNDS (1),
#     THREADS, REF (MG1655 from ../shared/data), EXTRA, EVAL=0 (time only), TIME
# Both: GATEMAP, LIGHTER.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=${GATEMAP:-$here/../build/apps/gatemap}
LIGHTER=${LIGHTER:-lighter}

synthetic() {
  OUT=${1:-/tmp/gm_bench_correct}
  GENOME_LEN=${GENOME_LEN:-10000000}
  BACKENDS=${BACKENDS:-cpu}
  MAP_READS=${MAP_READS:-200000}
  SETS=${SETS:-"100:30 100:60 150:30 150:60"}
  T=$(nproc)
  mkdir -p "$OUT"
  cd "$OUT"
  [ -s ref.fa ] || $G sim genome --length "$GENOME_LEN" --contigs 8 --seed 7 -t "$T" -o ref.fa 2>/dev/null
  [ "$MAP_READS" = 0 ] || [ -s ref.gmi ] || $G index -t "$T" -o ref.gmi ref.fa 2>/dev/null
  wall() {  # command...: runs it, prints wall seconds
    local s e
    s=$(date +%s%N)
    "$@" > /dev/null 2>> run.log
    e=$(date +%s%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", (e - s) / 1e9 }'
  }
  zero_edit() {  # fastq: share of the first MAP_READS reads mapped with NM:i:0 (primary records)
    head -n $((4 * MAP_READS)) "$1" > map_in.fq
    $G map -t "$T" ref.gmi map_in.fq 2>/dev/null | awk '!/^@/ && int($2 / 256) % 2 == 0 && int($2 / 2048) % 2 == 0 {
      n++; if (int($2 / 4) % 2 == 0 && /\tNM:i:0(\t|$)/) z++ }
      END { printf "%.4f", z / n }'
  }
  echo "# $(date -u +%F) $T threads, genome $GENOME_LEN bp; Lighter $($LIGHTER -v 2>&1 | head -1)"
  printf "set\ttool\twall_s\treads_per_s\terrors_before\terrors_after\tfixed\tintroduced\treads_fully_corrected\tzero_edit_frac\n"
  for s in $SETS; do
    len=${s%%:*} cov=${s##*:}
    n=$((GENOME_LEN * cov / len))
    name=r${len}x${cov}
    [ -s $name.fq ] || $G sim reads ref.fa --single -n "$n" -l "$len" --sub-rate 0.005 --indel-rate 0.0001 \
      --seed $((len + cov)) --truth-fastq -t "$T" -o $name 2>/dev/null
    before=$([ "$MAP_READS" = 0 ] && echo - || zero_edit $name.fq)
    printf "%s\toriginal\t-\t-\t-\t-\t-\t-\t-\t%s\n" $name "$before"
    score() {  # tool wall corrected.fq
      local z
      z=$([ "$MAP_READS" = 0 ] && echo - || zero_edit "$3")
      $G eval correct $name.fq "$3" $name.true.fq 2>/dev/null | awk -v s=$name -v t="$1" -v w="$2" -v n="$n" -v z="$z" '
        { v[$1] = $2 } END { printf "%s\t%s\t%s\t%.0f\t%d\t%d\t%d\t%d\t%d\t%s\n", s, t, w, n / w,
          v["error_rate_before"] * v["bases"] + 0.5, v["error_rate_after"] * v["bases"] + 0.5, v["errors_fixed"],
          v["errors_introduced"], v["reads_fully_corrected"], z }'
    }
    for b in $BACKENDS; do
      w=$(wall $G correct -t "$T" --backend "$b" ${EXTRA:-} -o $name.$b.fq --summary $name.$b.summary $name.fq)
      score "gatemap_$b${EXTRA:+ $EXTRA}" "$w" $name.$b.fq
      sed "s/^/# $name $b: /" $name.$b.summary >&2
    done
    [ -n "${SKIP_LIGHTER:-}" ] && continue
    rm -rf lighter_out && mkdir lighter_out
    w=$(wall $LIGHTER -r $name.fq -K 21 "$GENOME_LEN" -t "$T" -od lighter_out)
    score lighter "$w" lighter_out/$name.cor.fq
  done
}

profiles() {
  SIM=$here/sim_profile_reads.py
  REF=${REF:-$here/../../shared/data/ecoli-k12-mg1655/MG1655-K12.fasta.gz}
  OUT=${1:-/tmp/gm_correct_profiles}
  PAIRS=${PAIRS:-200000}
  T=${THREADS:-$(nproc)}
  mkdir -p "$OUT"
  cd "$OUT"
  [ -s ref.fa ] || zcat -f "$REF" > ref.fa
  genome_len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
  echo "# $(date -u +%F) $T threads, $PAIRS pairs of 2x150 bp; $($LIGHTER -v 2>&1 | head -1)"
  printf "profile\tround\ttool\twall_s\tmax_rss_mb\terrors_before\tfixed\tintroduced\tfixed_minus_introduced\n"
  for profile in ${PROFILES:-gatemap art mason}; do
    p=$profile
    truth=--truth-fastq; [ "${EVAL:-1}" = 0 ] && truth=
    if [ ! -s "${p}_2.fq" ] || { [ -n "$truth" ] && [ ! -s "${p}_2.true.fq" ]; }; then
      if [ "$profile" = gatemap ]; then
        $G sim reads ref.fa -n "$PAIRS" -l 150 --sub-rate 0.005 --indel-rate 0.0001 $truth -t "$T" -o "$p" 2> /dev/null
      else
        python3 "$SIM" "$profile" ref.fa "$PAIRS" "$p"
      fi
    fi
    if [ "${EVAL:-1}" != 0 ]; then
      cat "${p}_1.fq" "${p}_2.fq" > both.fq
      cat "${p}_1.true.fq" "${p}_2.true.fq" > truth.fq
    fi
    for round in $(seq "${ROUNDS:-1}"); do
      for tool in ${TOOLS:-gm_cpu lighter}; do
        rm -rf out && mkdir out
        case $tool in
          gm_cpu | gm_gpu | gm_old)
            # shellcheck disable=SC2086
            cmd=("$([ $tool = gm_old ] && echo "$OLD" || echo "$G")" correct -t "$T" ${EXTRA:-}
                 --backend "$([ $tool = gm_cpu ] && echo cpu || echo gpu)" --summary out/summary
                 -o out/c_1.fq -p out/c_2.fq "${p}_1.fq" "${p}_2.fq") ;;
          lighter) cmd=("$LIGHTER" -r "${p}_1.fq" -r "${p}_2.fq" -K 21 "$genome_len" -t "$T" -od out) ;;
          *) echo "unknown tool $tool" >&2; exit 2 ;;
        esac
        echo "== $profile round $round $tool: ${cmd[*]}" >&2
        # shellcheck disable=SC2086
        ${TIME:-/usr/bin/time} -f "%e %M" -o time.txt "${cmd[@]}" > run.log 2>&1
        [ -s out/summary ] && sed "s/^/# /" out/summary >&2
        if [ "${EVAL:-1}" = 0 ]; then
          printf "%s\t%s\t%s\t%s\t%.1f\t\t\t\t\n" "$profile" "$round" "$tool" "$(cut -d' ' -f1 time.txt)" \
            "$(awk '{ print $2 / 1024 }' time.txt)"
          continue
        fi
        cat out/*_1.*f*q out/*_2.*f*q > cor.fq  # gatemap: c_N.fq; Lighter: PREFIX_N.cor.fq
        $G eval correct both.fq cor.fq truth.fq > eval.txt
        awk -v p="$profile" -v r="$round" -v t="$tool" -v w="$(cut -d' ' -f1 time.txt)" -v m="$(cut -d' ' -f2 time.txt)" '
          { v[$1] = $2 } END { printf "%s\t%s\t%s\t%s\t%.1f\t%d\t%d\t%d\t%d\n", p, r, t, w, m / 1024,
            v["error_rate_before"] * v["bases"] + 0.5, v["errors_fixed"], v["errors_introduced"],
            v["errors_fixed"] - v["errors_introduced"] }' eval.txt
      done
    done
  done
}

if [ "${1:-}" = profiles ]; then
  shift
  profiles "$@"
else
  synthetic "$@"
fi
