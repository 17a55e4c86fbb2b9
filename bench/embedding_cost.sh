#!/usr/bin/env bash
# What the speech embedding costs in instructions, x86-64 (callgrind) and aarch64 (qemu-user with
# bench/qemu/tb_count.c), each the slope between 10 s and 30 s of read speech so that start-up and
# the model's loading cancel (bench/instructions.py), beside the bundled keyword spotter's per hop
# in the same run:
#   embedding_mel - `earshot features --kind embedding-mel`: its front end alone
#   embedding     - `earshot features --kind embedding`: front end and stream
#   logmel        - `earshot features --kind logmel`: the main front end alone
#   kws           - `earshot kws --model models/kws/computer.eshm`: main front end and spotter
# Per embedding: (embedding - embedding_mel) / 12.5 per second; the spotter per hop: (kws -
# logmel) / 100 (each includes a little printing: 96 values per embedding, one line per hop).
# EARSHOT_BENCH_SECONDS=N (a smoke run, bench/bench_lib.sh): the slope between N/3 and N s (N up
# to 30).
# Usage: bench/embedding_cost.sh [OUT_DIR]   (x86 from build/, aarch64 from build-arm64/ when built;
#        EARSHOT_X86_BUILD (default EARSHOT_BUILD_DIR), EARSHOT_ARM64_BUILD name others;
#        EARSHOT_DATA_DIR the shared data)
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 0 "$@"
source "$(dirname "$0")/bench_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/embedding_cost}
data=${EARSHOT_DATA_DIR:-$root/../shared/data}
x86=${EARSHOT_X86_BUILD:-${EARSHOT_BUILD_DIR:-$root/build}}/tools/earshot
arm64=${EARSHOT_ARM64_BUILD:-$root/build-arm64}/tools/earshot
bench_need sox "$data/speech"
[ -x "$x86" ] || [ -x "$arm64" ] || bench_missing "no $x86 nor $arm64"
[ ! -x "$x86" ] || bench_need valgrind callgrind_annotate
[ ! -x "$arm64" ] || bench_need cc qemu-aarch64 aarch64-linux-gnu-nm
mkdir -p "$out"
wav=(-r 16000 -c 1 -b 16)
long_s=30
[ -z "$bench_seconds" ] || [ "$bench_seconds" -ge $long_s ] || long_s=$bench_seconds
short_s=$((long_s / 3))
speech=("$data"/speech/*.flac)
sox "${speech[@]:0:8}" "${wav[@]}" "$out/speech_all.wav" norm -3
for s in $short_s $long_s; do sox "$out/speech_all.wav" "$out/speech_$s.wav" trim 0 "$s"; done
if [ -x "$arm64" ]; then
  cc -shared -fPIC -O2 -Wall -Wextra -fvisibility=hidden "$root/bench/qemu/tb_count.c" \
    -o "$out/tb_count.so"
fi
cases=("embedding_mel|features --kind embedding-mel" "embedding|features --kind embedding"
  "logmel|features --kind logmel" "kws|kws --model $root/models/kws/computer.eshm")
for arch in x86 aarch64; do
  program=$x86 plugin=()
  [ $arch = x86 ] || program=$arm64 plugin=("$out/tb_count.so")
  [ -x "$program" ] || continue
  for c in "${cases[@]}"; do
    name=${c%%|*}
    EARSHOT_COMMAND=${c#*|} /usr/bin/python3 "$root/bench/instructions.py" $arch "$program" "$name" \
      "$out/speech_$short_s.wav" "$out/speech_$long_s.wav" $((long_s - short_s)) "${plugin[@]}" \
      > "$out/${name}_$arch.txt"
    head -1 "$out/${name}_$arch.txt"
  done
  per_s() { head -1 "$out/$1_$arch.txt" | cut -f3; }
  awk -v e="$(per_s embedding)" -v m="$(per_s embedding_mel)" -v l="$(per_s logmel)" \
      -v k="$(per_s kws)" -v a=$arch 'BEGIN {
    printf "%s: embedding %.0f instructions each (%.0f per hop), its front end %.0f per hop;", a,
      (e - m) / 12.5, (e - m) / 100, m / 100
    printf " keyword spotter %.0f per hop: the embedding %.1f times it per hop\n", (k - l) / 100,
      (e - m) / (k - l) }'
done
