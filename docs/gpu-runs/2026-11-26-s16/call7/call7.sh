#!/usr/bin/env bash
# Session 16, call 7: where the pair-HMM engine's host packing goes: perf of gatemap pairhmm
# (1m.in x60, 3 runs) with symbols; annotated fill_chunk parts.
set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
B=$PWD/.gpu-bundle/run; T=$(nproc); R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
P=/tmp/gm_ph60; mkdir -p $P
for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
$B gatemap pairhmm -t $T --backend gpu -o $P/warm.txt $P/x60.in 2> /dev/null
$B perf record -F 20000 -g -o /tmp/ph.perf -- bash -c "for i in 1 2 3; do $B gatemap pairhmm -t $T --backend gpu -v 4 -o $P/g.txt $P/x60.in; done" 2> $R/perf_run.log
$B perf report -i /tmp/ph.perf --no-children --sort dso,symbol 2>/dev/null | grep -v '^#' | grep '%.*\[' | head -60 | cut -c1-170 > $R/ph_perf.txt
$B perf report -i /tmp/ph.perf --no-children --sort symbol --comm gatemap 2>/dev/null | grep -v '^#' | grep -i 'fill_chunk\|pick_config\|config_cost\|unordered\|_M_\|hash\|memo\|malloc\|free\|memset\|memmove' | head -40 | cut -c1-170 > $R/ph_fill.txt
$B perf report -i /tmp/ph.perf --no-children --sort symbol -F sym --stdio 2>/dev/null | grep -E 'fill_chunk|pick_config|config_cost' | sed 's/^ *\[\.\] *//; s/ *$//' | head -8 > $R/syms.txt
while IFS= read -r f; do
  echo "=== $f" >> $R/ph_annotate.txt
  $B perf annotate -i /tmp/ph.perf --stdio -s "$f" 2>/dev/null | grep -E '^\s+[0-9]+\.[0-9]+ +:' | sort -rn | head -25 >> $R/ph_annotate.txt
  $B perf annotate -i /tmp/ph.perf --stdio -s "$f" 2>/dev/null > "$R/annot_$(echo "$f" | md5sum | cut -c1-8).txt"
done < $R/syms.txt
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt; grep -h 'D::pairhmm\|engine' $R/perf_run.log | cut -c1-260; head -45 $R/ph_perf.txt; cat $R/ph_fill.txt
