#!/usr/bin/env bash
# libearshot installed (issue 51): `cmake --install BUILD --prefix /usr` into a staging directory,
# then the example of docs/library.md (under 60 lines) built with `pkg-config --cflags --libs
# earshot` and with the CMake package (find_package(earshot)), run on the sample: the wake and the
# transcript, the models read from the staged prefix and no file of the checkout; the SONAME and
# the exported symbols (the C API alone).
# The example is built as an application for the build's target would be: with its C compiler,
# pkg-config, binutils and CMake toolchain file (in the aarch64 suite, issue 50:
# aarch64-linux-gnu-gcc and -pkg-config, cmake/aarch64-linux-gnu.cmake), and runs under qemu.
# Usage: packaging/library_test.sh BUILD_DIR CC PKG_CONFIG READELF NM [TOOLCHAIN_FILE]
build=$(realpath "$1") cc=$2 pkg_config=$3 readelf=$4 nm=$5 toolchain=${6:-}
source "$(dirname "$0")/../tests/cli_lib.sh"
source "$(dirname "$0")/package_lib.sh"
stage="$tmp/stage"
check "install" status_is 0 env DESTDIR="$stage" cmake --install "$build" --prefix /usr
export PKG_CONFIG_PATH; PKG_CONFIG_PATH=$(dirname "$(find "$stage" -name earshot.pc)")
pc() { "$pkg_config" --define-variable=prefix="$stage/usr" "$@" earshot; }
libdir=$(pc --variable=libdir)
sed -n '/^```c$/,/^```$/p' "$src/docs/library.md" | sed '1d;$d' >listen.c
check "the example is under 60 lines" test "$(wc -l <listen.c)" -gt 10 -a "$(wc -l <listen.c)" -lt 60
check "pkg-config --modversion" test "$(pc --modversion)" = "$(sed -n 's/^project(earshot VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
# shellcheck disable=SC2046  # the flags are words
check "builds with pkg-config" status_is 0 "$cc" -std=c11 -Wall -Wextra -Werror listen.c \
  $(pc --cflags --libs) -o listen
sox "$src/tools/samples/computer_request.flac" -t raw -r 16000 -c 1 -b 16 -e signed - >sample.raw
check "runs on the sample" status_is 0 env LD_LIBRARY_PATH="$libdir" \
  strace -f -qq -e trace=%file -o trace.txt ${EARSHOT_EMULATOR:-} ./listen <sample.raw
check "wakes and transcribes" wakes_and_transcribes
check "models from the library's prefix" grep -qF "$stage/usr/share/earshot/models/vad/vad.eshm" trace.txt
check "reads no file of the checkout" checkout_unread
check "SONAME libearshot.so.0" eval \
  "'$readelf' -d '$libdir/libearshot.so' | grep -q 'SONAME.*\[libearshot.so.0\]'"
check "exports the C API alone" eval "! '$nm' -D --defined-only '$libdir/libearshot.so.0' |
  awk '{print \$3}' | grep -v -e '^earshot_' -e '^EARSHOT_0\$'"

mkdir app && mv listen.c app/ && cat >app/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(listen C)
find_package(earshot 0.1 REQUIRED)
add_executable(listen listen.c)
target_link_libraries(listen PRIVATE earshot::earshot)
CMAKE
check "builds with find_package(earshot)" status_is 0 sh -c \
  "cmake -S app -B app/build -DCMAKE_PREFIX_PATH='$stage/usr' \
   ${toolchain:+--toolchain '$toolchain'} && cmake --build app/build"
check "that one runs on the sample" status_is 0 ${EARSHOT_EMULATOR:-} app/build/listen <sample.raw
check "and wakes and transcribes" wakes_and_transcribes
finish
