#!/usr/bin/env bash
# Configures and builds gatemap into build/ (Release). Extra arguments go to cmake.
# CI builds sm_90 only to save time; a release build targets sm_80, sm_89 and sm_90 + PTX.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs"
