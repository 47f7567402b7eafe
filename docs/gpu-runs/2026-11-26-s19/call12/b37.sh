#!/usr/bin/env bash
# GRCh37 size: this build vs the build before (gatemap-old), alternating, and a -v 4 timeline of each.
set -u
R=$OUT
.gpu-bundle/run test_mapper_gpu > /dev/null 2>&1; echo "test_mapper_gpu rc $?"
MB37_TOOLS="gm_gpu gm_old" MB37_ROUNDS=${ROUNDS:-3} OUT=$R bash scripts/gpu-suite.sh mapbench37 > /dev/null 2>&1
cat $R/mapbench37_raw.tsv; grep -E "records|loaded index|GPU seeding ready" $R/mapbench37.log
for b in gatemap gatemap-old; do
  .gpu-bundle/run $b map -v 4 -t 16 --backend gpu -o /tmp/gm_mb37/tl.sam /tmp/gm_mb37/ref.gmi /tmp/gm_mb37/pe_1.fq /tmp/gm_mb37/pe_2.fq 2> $R/timeline_$b.log; echo "$b rc $?"
  grep -E "at [0-9.]+ s|loaded|ready|Real" $R/timeline_$b.log | grep -v "batch [0-9]* begun" | head -12
done
