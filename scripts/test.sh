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
# Without CUDA (a machine with no toolkit) the CPU twins alone: it links, and its demo runs.
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGATEMAP_CUDA=OFF -DGATEMAP_BUILD_TESTS=OFF > /dev/null
cmake --build build-cpu -j "$(nproc)" --target gatemap
demo=$(mktemp -d) && build-cpu/apps/gatemap demo -t 2 -v 1 -d "$demo" > /dev/null && rm -rf "$demo"
# The Debian package: installed, its demo run, removed (scripts/package_test.sh).
scripts/package_test.sh
# A short libFuzzer run over every parser of untrusted input (FUZZ_SECONDS per target).
if command -v clang++ > /dev/null; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
else
  echo "[test] clang not found: fuzzing skipped" >&2
fi
