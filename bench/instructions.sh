#!/usr/bin/env bash
# Instructions per second of audio of `earshot run` on x86-64 (callgrind) and aarch64 (qemu-user
# with the TCG plugin bench/qemu/tb_count.c, built here), each the slope between a short and a
# long input so that start-up cancels, with the functions that take them (bench/instructions.py):
#   idle    - noise, no voice (decode, front end, VAD): 10 s and 30 s of ../shared/data/noise
#   keyword - speech without the wake word (the keyword spotter runs): 10 s and 30 s of speech/
#   request - the bundled sample (wake word, then a request transcribed) once and twice: per
#             second of the sample
# EARSHOT_BENCH_SECONDS=N (a smoke run, bench/bench_lib.sh): N/3 and N s (N up to 30), the
# sample's first N s; EARSHOT_COMMAND: what is measured (bench/instructions.py; default run).
# Usage: bench/instructions.sh [OUT_DIR]   (x86 from build/, aarch64 from build-arm64/ when built;
#        EARSHOT_X86_BUILD (default EARSHOT_BUILD_DIR), EARSHOT_ARM64_BUILD name others;
#        EARSHOT_DATA_DIR the shared data)
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 0 "$@"
source "$(dirname "$0")/bench_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/instructions}
data=${EARSHOT_DATA_DIR:-$root/../shared/data}
x86=${EARSHOT_X86_BUILD:-${EARSHOT_BUILD_DIR:-$root/build}}/tools/earshot
arm64=${EARSHOT_ARM64_BUILD:-$root/build-arm64}/tools/earshot
bench_need sox soxi "$data/noise" "$data/speech"
[ -x "$x86" ] || [ -x "$arm64" ] || bench_missing "no $x86 nor $arm64"
[ ! -x "$x86" ] || bench_need valgrind callgrind_annotate
[ ! -x "$arm64" ] || bench_need cc qemu-aarch64 aarch64-linux-gnu-nm
mkdir -p "$out"
wav=(-r 16000 -c 1 -b 16)
long_s=30 cut=()
if [ -n "$bench_seconds" ]; then
  [ "$bench_seconds" -ge $long_s ] || long_s=$bench_seconds
  cut=(trim 0 "$bench_seconds")
fi
short_s=$((long_s / 3)) slope_s=$((long_s - long_s / 3))

for f in "$data"/noise/*.wav; do sox "$f" "${wav[@]}" "$out/n_$(basename "$f")" norm -30; done
sox "$out"/n_*.wav "${wav[@]}" "$out/noise_all.wav"
speech=("$data"/speech/*.flac)
sox "${speech[@]:0:8}" "${wav[@]}" "$out/speech_all.wav" norm -3
for s in $short_s $long_s; do
  sox "$out/noise_all.wav" "$out/idle_$s.wav" trim 0 "$s"
  sox "$out/speech_all.wav" "$out/keyword_$s.wav" trim 0 "$s"
done
sample=$root/tools/samples/computer_request.flac
sox "$sample" "${wav[@]}" "$out/request_1.wav" "${cut[@]}"
sox "$out/request_1.wav" "$out/request_1.wav" "$out/request_2.wav"
request_s=$(soxi -D "$out/request_1.wav")

cases=("idle idle_$short_s idle_$long_s $slope_s"
  "keyword keyword_$short_s keyword_$long_s $slope_s" "request request_1 request_2 $request_s")
if [ -x "$arm64" ]; then
  cc -shared -fPIC -O2 -Wall -Wextra -fvisibility=hidden "$root/bench/qemu/tb_count.c" \
    -o "$out/tb_count.so"
fi
for c in "${cases[@]}"; do
  read -r name short long seconds <<<"$c"
  for arch in x86 aarch64; do
    program=$x86 plugin=()
    [ $arch = x86 ] || program=$arm64 plugin=("$out/tb_count.so")
    [ -x "$program" ] || continue
    /usr/bin/python3 "$root/bench/instructions.py" $arch "$program" "$name" "$out/$short.wav" \
      "$out/$long.wav" "$seconds" "${plugin[@]}" | tee "$out/${name}_$arch.txt"
  done
done
