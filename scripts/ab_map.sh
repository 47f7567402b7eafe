#!/usr/bin/env bash
# Two gatemap builds side by side on the same reads, alternating (machines are noisy:
# compare within one call): wall seconds of `map` per build, filter setting and round,
# then the median per build and setting. Data: what scripts/compare_records.sh made.
# Usage: scripts/ab_map.sh OLD_GATEMAP NEW_GATEMAP DATADIR [ROUNDS]   (FILTERS, SETS, THREADS)
set -euo pipefail
OLD=$(realpath "$1")
NEW=$(realpath "$2")
cd "$3"
ROUNDS=${4:-3}
T=${THREADS:-$(nproc)}
FILTERS=${FILTERS:-cpu off}
SETS=${SETS:-"ref.gmi:pe_1.fq:pe_2.fq ref.gmi:se.fq:"}
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
