#!/usr/bin/env bash
# Runs the whole test suite twice: on the release build (build/) and under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/). Tests that need ../shared/data skip without it.
# Usage: tools/test.sh [--arm64]
#   --arm64  instead, cross-build for aarch64 (cmake/aarch64-linux-gnu.cmake) into build-arm64/ and
#            run the same suite there under qemu-user (tools/setup.sh --arm64 installs them), the
#            arm64 .deb's check included (deb_test)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

if [ "${1:-}" = --arm64 ]; then
  # The release build's flags without -g: GCC's code is the same with or without debug info, and
  # the cross build compiles in a third less CPU time without it (docs/research/arm64.md).
  nodebug="-O2 -DNDEBUG"
  cmake -S . -B build-arm64 --toolchain cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$nodebug" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$nodebug" \
    -DEARSHOT_WERROR=ON -DEARSHOT_BUILD_BENCH=OFF >/dev/null
  cmake --build build-arm64 -j"$jobs"
  ctest --test-dir build-arm64 --output-on-failure -j"$jobs"
  exit
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEARSHOT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DEARSHOT_SANITIZE=ON -DEARSHOT_WERROR=ON \
  -DEARSHOT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE no_sanitizer
