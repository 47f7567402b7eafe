#!/usr/bin/env bash
# README command (2): install dependencies, build, run the whole test suite.
# GPU tests skip themselves where no device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
# Release; CI builds sm_90 only, to save time (a default build targets sm_80, sm_89, sm_90 + PTX).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure
# A short libFuzzer run over every parser of untrusted input (FUZZ_SECONDS per target).
if command -v clang++ > /dev/null; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
else
  echo "[test] clang not found: fuzzing skipped" >&2
fi
