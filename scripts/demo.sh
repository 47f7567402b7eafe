#!/usr/bin/env bash
# README command (1): install dependencies, build, run `gatemap demo` on built-in data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -U CMAKE_CUDA_ARCHITECTURES > /dev/null
cmake --build build -j "$(nproc)"
build/apps/gatemap demo -t "$(nproc)" "$@"
