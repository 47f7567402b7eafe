set -uo pipefail
tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=/tmp/res; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
(.gpu-bundle/run test_mapper_gpu > $R/tests.log 2>&1; echo "test_mapper_gpu exit $?" >> $R/tests.log)
tail -3 $R/tests.log
MB_TOOLS="gm_gpu gm_old minimap2 gm_old gm_gpu gm_gpu_off gm_cpu" MB_ROUNDS=3 MB_BWA=0 OUT=$R bash scripts/gpu-suite.sh mapbench
.gpu-bundle/run gatemap eval map /tmp/gm_mb/gm_gpu.sam > $R/eval_gm_gpu.txt 2>&1
tar -czf $OUT/res.tgz -C /tmp res
cat $R/gpu.txt $R/mapbench.tsv; grep records $R/mapbench.log; grep "M::map\] time" $R/mapbench.log | tail -7 | cut -c1-400
