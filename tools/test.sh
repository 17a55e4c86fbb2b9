#!/usr/bin/env bash
# Runs the whole test suite twice: on the release build (build/) and under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/). Tests that need ../shared/data skip without it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEARSHOT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DEARSHOT_SANITIZE=ON -DEARSHOT_WERROR=ON \
  -DEARSHOT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE no_sanitizer
