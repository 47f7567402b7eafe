#!/usr/bin/env bash
# README command (1): install dependencies, build, run `gatemap demo` on built-in data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
build/apps/gatemap demo -t "$(nproc)" "$@"
