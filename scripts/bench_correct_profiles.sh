#!/usr/bin/env bash
# Corrector accuracy and speed on E. coli reads of three error profiles, side by side with
# Lighter (docs/BENCHMARKS.md, #23): the project's simulator (`gatemap sim reads`), ART
# (HiSeq 2500 quality profile: errors where qualities are low) and mason_simulator
# (mismatches rising to the 3' end); see scripts/sim_profile_reads.py. Tools alternate
# within each round; each run is scored with `gatemap eval correct`.
# Usage: scripts/bench_correct_profiles.sh [OUTDIR] > table.tsv
#   env: PAIRS (200000), PROFILES ("gatemap art mason"), TOOLS ("gm_cpu lighter"; gm_gpu
#   too on a GPU machine), ROUNDS (1), THREADS (nproc), REF (MG1655 from ../shared/data),
#   GATEMAP, LIGHTER
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GATEMAP:-$PWD/build/apps/gatemap}
LIGHTER=${LIGHTER:-lighter}
SIM=$PWD/scripts/sim_profile_reads.py
REF=${REF:-$PWD/../shared/data/ecoli-k12-mg1655/MG1655-K12.fasta.gz}
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
  if [ ! -s "${p}_2.true.fq" ]; then
    if [ "$profile" = gatemap ]; then
      $G sim reads ref.fa -n "$PAIRS" -l 150 --sub-rate 0.005 --indel-rate 0.0001 --truth-fastq -t "$T" -o "$p" 2> /dev/null
    else
      python3 "$SIM" "$profile" ref.fa "$PAIRS" "$p"
    fi
  fi
  cat "${p}_1.fq" "${p}_2.fq" > both.fq
  cat "${p}_1.true.fq" "${p}_2.true.fq" > truth.fq
  for round in $(seq "${ROUNDS:-1}"); do
    for tool in ${TOOLS:-gm_cpu lighter}; do
      rm -rf out && mkdir out
      case $tool in
        gm_cpu | gm_gpu) cmd=("$G" correct -t "$T" --backend "${tool#gm_}" -o out/c_1.fq -p out/c_2.fq "${p}_1.fq" "${p}_2.fq") ;;
        lighter) cmd=("$LIGHTER" -r "${p}_1.fq" -r "${p}_2.fq" -K 21 "$genome_len" -t "$T" -od out) ;;
        *) echo "unknown tool $tool" >&2; exit 2 ;;
      esac
      /usr/bin/time -f "%e %M" -o time.txt "${cmd[@]}" > run.log 2>&1
      cat out/*_1.*f*q out/*_2.*f*q > cor.fq  # gatemap: c_N.fq; Lighter: PREFIX_N.cor.fq
      $G eval correct both.fq cor.fq truth.fq > eval.txt
      awk -v p="$profile" -v r="$round" -v t="$tool" -v w="$(cut -d' ' -f1 time.txt)" -v m="$(cut -d' ' -f2 time.txt)" '
        { v[$1] = $2 } END { printf "%s\t%s\t%s\t%s\t%.1f\t%d\t%d\t%d\t%d\n", p, r, t, w, m / 1024,
          v["error_rate_before"] * v["bases"] + 0.5, v["errors_fixed"], v["errors_introduced"],
          v["errors_fixed"] - v["errors_introduced"] }' eval.txt
    done
  done
done
