#!/usr/bin/env bash
# Builds here and bundles the test and bench binaries for the GPU machine
# (see ../shared/GPU.md). Then run there, in one `run` call with carry [".gpu-bundle"]:
#   bash scripts/gpu-suite.sh   (writes gpu.txt, tests.log, filter.tsv, demo.txt, map*.json under $OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
../shared/tools/gpu-bundle.sh build gatemap test_gpu_device test_gpu_cpu test_mapper_gpu test_pairhmm test_pairhmm_gpu test_correct test_correct_gpu test_caller
# The pair-HMM benchmark files travel with the bundle (the GPU machine has no ../shared).
mkdir -p .gpu-bundle/data
cp -r ../shared/data/pairhmm-carneiro .gpu-bundle/data/
# Lighter (Debian package) for the correction benchmark: the GPU machine has no apt.
if command -v lighter > /dev/null; then cp "$(command -v lighter)" .gpu-bundle/bin/; fi
