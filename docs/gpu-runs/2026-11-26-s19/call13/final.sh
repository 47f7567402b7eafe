#!/usr/bin/env bash
# Session 19 measurement: GPU tests, chr20 mapbench with minimap2, a -v 4 timeline, GRCh37-size mapbench.
set -u
R=$OUT
for t in test_gpu_device test_mapper_gpu; do .gpu-bundle/run $t > $R/$t.log 2>&1; echo "$t rc $?"; grep -E "^\[  (PASSED|FAILED)" $R/$t.log; done
MB_TOOLS="${MB_TOOLS:-gm_gpu gm_old minimap2 gm_old gm_gpu gm_gpu_off gm_cpu}" MB_ROUNDS=${MB_ROUNDS:-3} MB_BWA=0 OUT=$R bash scripts/gpu-suite.sh mapbench > /dev/null 2>&1
cat $R/mapbench.tsv; grep "records gm" $R/mapbench.log
.gpu-bundle/run gatemap map -v 4 -t 16 --backend gpu -o /tmp/gm_mb/tl.sam /tmp/gm_mb/20.gmi /tmp/gm_mb/pe_1.fq /tmp/gm_mb/pe_2.fq 2> $R/timeline.log; echo "map rc $?" >> $R/timeline.log
grep -E "at [0-9.]+ s|loaded|ready|Real|rc" $R/timeline.log
if [ "${MB37:-1}" = 1 ]; then
  MB37_TOOLS="${MB37_TOOLS:-gm_gpu gm_old minimap2}" MB37_ROUNDS=${MB37_ROUNDS:-2} OUT=$R bash scripts/gpu-suite.sh mapbench37 > /dev/null 2>&1
  cat $R/mapbench37_raw.tsv; cat $R/mapbench37.tsv; grep -E "records|loaded index|GPU seeding ready" $R/mapbench37.log
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
