#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test gatemap (--test: and the
# test-only oracles; --bench: and the tools benchmarked side by side). Idempotent:
# packages already present are not reinstalled, apt-get update runs only when needed.
# CUDA is used when present at /usr/local/cuda (it is not installed here).
set -euo pipefail

packages=(cmake ninja-build g++ make pkg-config zlib1g-dev libisal-dev libdeflate-dev libzstd-dev libhts-dev libcli11-dev
          libgtest-dev googletest libedlib-dev samtools gzip)
if [[ "${1:-}" == "--test" || "${1:-}" == "--bench" ]]; then
  packages+=(picard-tools)  # its ValidateSamFile checks the mapper's output in a test
  packages+=(clang libclang-rt-14-dev libomp-14-dev)  # libFuzzer runs over the parsers (scripts/fuzz.sh)
  packages+=(snakemake bcftools)  # the workflow's test (workflow/test/run.sh)
  packages+=(slurmctld slurmd slurm-client munge)  # a one-node SLURM for the profile's test (workflow/test/slurm.sh)
  packages+=(bwa)  # the oracle of smart pairing (-p) and AS/XS (tests/mapper/test_bwa_agreement.cpp)
  packages+=(valgrind)  # gatemap started by another program (tests/cli/test_data_loss.cpp)
  packages+=(dpkg-dev file)  # the Debian package's dependencies by name (scripts/package_test.sh)
  packages+=(chromium)  # gatemap report's page rendered headless (tests/cli/test_report.cpp)
fi
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(minimap2 time bc lighter freebayes)  # tools compared side by side in benchmarks
  packages+=(art-nextgen-simulation-tools seqan-apps)  # ART and mason reads (scripts/bench_correct.sh profiles)
  packages+=(python3-matplotlib)  # scripts/plot_mapbench.py
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[deps] installing: ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "[deps] all packages present" >&2
fi
