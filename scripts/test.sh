#!/usr/bin/env bash
# README command (2): install dependencies, build, run the whole test suite.
# GPU tests skip themselves where no device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
# Release, with kernels for every GPU generation (CMakeLists.txt; an architecture list an
# earlier cmake line left in the cache is cleared).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -U CMAKE_CUDA_ARCHITECTURES > /dev/null
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure
# The Debian package: installed, its demo run, removed (scripts/package_test.sh).
scripts/package_test.sh
# A short libFuzzer run over every parser of untrusted input (FUZZ_SECONDS per target).
if command -v clang++ > /dev/null; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
else
  echo "[test] clang not found: fuzzing skipped" >&2
fi
