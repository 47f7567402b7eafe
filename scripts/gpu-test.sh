#!/usr/bin/env bash
# Builds here and bundles the test and bench binaries for the GPU machine
# (see ../shared/GPU.md). Then run there, in one `run` call with carry [".gpu-bundle"]:
#   bash scripts/gpu-suite.sh STAGES   (writes gpu.txt, tests.log, filter.tsv, demo.txt, map*.json under $OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
../shared/tools/gpu-bundle.sh build gatemap test_gpu_device test_filter_gpu test_filter test_mapper_gpu test_pairhmm test_pairhmm_gpu test_correct test_correct_gpu test_caller
# The pair-HMM benchmark files travel with the bundle (the GPU machine has no ../shared).
mkdir -p .gpu-bundle/data
cp -r ../shared/data/pairhmm-carneiro .gpu-bundle/data/
# Real reads for the `real` stage: chromosome 20 and the NA12878/HG002 slices as FASTQ.
mkdir -p .gpu-bundle/data/real
cp ../shared/data/grch37-chr20/20.part*-of-6.fa.gz .gpu-bundle/data/real/
for s in NA12878_S1 HG002_NIST_150bp_downsampled_30x; do
  short=${s%%_*}
  samtools view -u -F 0x900 "../shared/data/grch37-chr20-deepvariant-testdata/$s.chr20.10_10p1mb.bam" |
    samtools collate -u -O - | samtools fastq -1 ".gpu-bundle/data/real/$short.r1.fq.gz" \
    -2 ".gpu-bundle/data/real/$short.r2.fq.gz" -s /dev/null -0 /dev/null - 2> /dev/null
done
# The bundle must stay under 64 MiB: GPU_BUNDLE_SKIP names binaries and data left out.
for x in ${GPU_BUNDLE_SKIP:-}; do rm -rf ".gpu-bundle/bin/$x" ".gpu-bundle/data/$x"; done
# Lighter (Debian package) for the correction benchmark: the GPU machine has no apt.
if command -v lighter > /dev/null; then cp "$(command -v lighter)" .gpu-bundle/bin/; fi
