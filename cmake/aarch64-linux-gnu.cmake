# Cross-building for aarch64 on Debian 12 (tools/setup.sh --arm64 installs what it names):
#   cmake -S . -B build-arm64 --toolchain cmake/aarch64-linux-gnu.cmake
# Libraries come from the :arm64 packages (multiarch, /usr/lib/aarch64-linux-gnu); programs and
# tests run under qemu-user, which CTest prepends to every test command (the emulator) and the
# script tests prepend when they exec a binary of the build (EARSHOT_EMULATOR, tests/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config reads the arm64 .pc files only (the cross wrapper of pkgconf).
set(PKG_CONFIG_EXECUTABLE aarch64-linux-gnu-pkg-config CACHE FILEPATH "pkg-config for aarch64")
# No -L /usr/aarch64-linux-gnu: that prefix holds the cross toolchain's glibc (libc6-arm64-cross,
# Debian 12.0's build), whose loader would then pair with libc6:arm64's libc.so.6 (a later build,
# found through the host's /etc/ld.so.cache); the two builds' private interface differs and the
# first pthread_create loops for ever (docs/research/arm64.md). Without -L, qemu runs the binary's
# /lib/ld-linux-aarch64.so.1, which libc6:arm64 installs on the host: loader and libc of one build.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 CACHE STRING "Runs aarch64 programs on the build machine")
