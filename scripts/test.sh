#!/usr/bin/env bash
# README command (2): install dependencies, build, run the whole test suite.
# GPU tests skip themselves where no device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
ctest --test-dir build -j "$(nproc)" --output-on-failure
