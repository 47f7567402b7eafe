#!/usr/bin/env bash
# README command (2): install dependencies, build, run the whole test suite.
# GPU tests skip themselves where no device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
ctest --test-dir build -j "$(nproc)" --output-on-failure
# A short libFuzzer run over every parser of untrusted input (FUZZ_SECONDS per target).
if command -v clang++ > /dev/null; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
else
  echo "[test] clang not found: fuzzing skipped" >&2
fi
