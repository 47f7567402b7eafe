#!/usr/bin/env bash
# libFuzzer runs over every parser of untrusted input (FASTQ/FASTA reads, reference
# FASTA, index loader, the caller's SAM/BAM input, PairHMM benchmark files): builds the
# targets with clang, ASan and UBSan into build-fuzz/ and runs each for SECONDS (default
# 60) on a copy of its seed corpus (tests/fuzz/corpus/). Prints executions and new corpus
# entries per target; exits 1 on any crash, leak, hang (10 s per input) or sanitizer
# report, keeping the input in build-fuzz/crashes/.
# Usage: scripts/fuzz.sh [SECONDS]   (needs clang, libclang-rt-dev, libomp-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
TARGETS="fuzz_fastq fuzz_fasta fuzz_index fuzz_sam_input fuzz_pairhmm_file"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGATEMAP_FUZZ=ON \
  -DGATEMAP_CUDA=OFF -DGATEMAP_BUILD_TESTS=OFF > /dev/null
# shellcheck disable=SC2086
cmake --build build-fuzz -j "$(nproc)" --target $TARGETS > build-fuzz/build.log 2>&1 || { tail -30 build-fuzz/build.log; exit 1; }
mkdir -p build-fuzz/crashes
printf "target\tseconds\texecutions\tcorpus\tresult\n"
fail=0
for t in $TARGETS; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus"
  cp tests/fuzz/corpus/$t/* "$corpus/"
  log=build-fuzz/$t.log
  # OpenMP's thread pool looks like a leak to LeakSanitizer at exit: leaks are off.
  if ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "build-fuzz/tests/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 \
      -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" "$corpus" > "$log" 2>&1; then
    result=ok
  else
    result=CRASH
    fail=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  printf "%s\t%s\t%s\t%s\t%s\n" "$t" "$SECONDS_PER_TARGET" "$execs" "$(ls "$corpus" | wc -l)" "$result"
  [ $result = ok ] || grep -m 20 -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|#[0-9]+ ' "$log" >&2 || true
done
exit $fail
