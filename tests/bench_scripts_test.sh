#!/usr/bin/env bash
# Smoke test of the benchmark scripts: each of bench/cascade_cost.sh, wyoming_cost.sh (both through
# bench/cost_audio.sh), instructions.sh, embedding_cost.sh and soak.py run on 3 s of audio
# (EARSHOT_BENCH_SECONDS, bench/bench_lib.sh) with this build's programs, and its table checked: the
# header and a row per case, in order. The peers (openWakeWord, Silero VAD) run where they are
# installed (node_modules in ../shared/peers, from `npm ci` there), their columns then numbers;
# elsewhere the scripts say they skip them and leave their columns empty. A script whose data or
# tools are missing (valgrind, espeak-ng) skips, saying so; exit 77 where all did. instructions.sh
# measures `earshot run --stages vad,kws` (the speech-to-text's loading takes some 20 s under
# callgrind); it and embedding_cost.sh count x86-64 instructions alone unless EARSHOT_ARM64_BUILD
# names an aarch64 build (then qemu-user's too).
# Usage: tests/bench_scripts_test.sh BUILD_DIR
set -euo pipefail
if [ -n "${EARSHOT_EMULATOR:-}" ]; then  # the aarch64 suite, under qemu-user
  echo "SKIP: the scripts run the build's programs directly, and callgrind counts x86-64 ones;" \
    "the aarch64 counts come from an x86-64 suite given EARSHOT_ARM64_BUILD"
  exit 77
fi
build=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
data=${EARSHOT_DATA_DIR:-$src/../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export EARSHOT_BENCH_SECONDS=3 EARSHOT_BUILD_DIR=$build EARSHOT_DATA_DIR=$data
export EARSHOT_PEERS_DIR=${EARSHOT_PEERS_DIR:-$(dirname "$data")/peers}
export EARSHOT_ARM64_BUILD=${EARSHOT_ARM64_BUILD:-$tmp/none}
unset EARSHOT_NO_PEERS EARSHOT_BENCH_ARGS EARSHOT_X86_BUILD EARSHOT_COMMAND
fail() { echo "FAIL: $*"; exit 1; }
ran=0
t=$'\t' n='-?([0-9]+|[0-9]*\.[0-9]+)'  # a number as printf or bc writes it
tabbed() { local IFS=$'\t'; echo "$*"; }  # the arguments as one line of columns

# run NAME COMMAND...: stdout in $tmp/NAME.out, stderr in $tmp/NAME.err; exit 0 required. False
# where the script skipped (data or tools missing: said on stderr, shown here).
run() {
  local name=$1 rc=0
  shift
  echo "== $name"
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ $rc = 0 ] || { cat "$tmp/$name.out" "$tmp/$name.err"; fail "$name: exit status $rc"; }
  if grep -q "^[a-z_]*: skipped: " "$tmp/$name.err"; then
    sed -n 's/^[a-z_]*: skipped: /SKIP: &/p' "$tmp/$name.err"
    return 1
  fi
  ran=$((ran + 1))
}
# expect NAME REGEX...: NAME's output is one line per REGEX (extended, whole line), in order.
expect() {
  local name=$1 i=0 re lines
  shift
  mapfile -t lines <"$tmp/$name.out"
  [ ${#lines[@]} = $# ] || { cat "$tmp/$name.out"; fail "$name: ${#lines[@]} lines, not $#"; }
  for re; do
    [[ ${lines[i]} =~ ^$re$ ]] || fail "$name: line $((i + 1)) '${lines[i]}' is not /$re/"
    i=$((i + 1))
  done
  echo "ok: $name, $# lines"
}
# The peers' columns: numbers where they are installed, else empty and said on stderr.
peers_installed() { [ -d "$EARSHOT_PEERS_DIR/node_modules" ] && command -v node >/dev/null; }
peers_skipped() {  # NAME
  peers_installed && return 0
  grep -q "^$1: peers skipped: " "$tmp/$1.err" || fail "$1: no line saying the peers are skipped"
}

# cascade_cost.sh: noise, speech and day, each earshot's stages then the peers'.
if run cascade_cost "$src/bench/cascade_cost.sh" "$tmp/cascade"; then
  for wav in noise speech day; do  # bench/cost_audio.sh's audio, 3 s each
    [ "$(soxi -s "$tmp/cascade/$wav.wav")" = 48000 ] || fail "cost_audio: $wav.wav is not 3 s"
  done
  peers=$t$t$t && peers_installed && peers=$(tabbed "$n" "$n" "$n" "$n")
  ours=$(tabbed "$n" "$n" "$n" "$n" "$n" "[0-9]+")  # total, the four stages, wakes
  expect cascade_cost \
    "$(tabbed case earshot_us_per_s front_end vad kws stt wakes peers_us_per_s oww silero ratio)" \
    "$(tabbed noise "$ours" "$peers")" "$(tabbed speech "$ours" "$peers")" \
    "$(tabbed day "$ours" "$peers")"
  peers_skipped cascade_cost
fi

# wyoming_cost.sh: noise and speech streamed to earshot-wyoming, then openWakeWord's columns
# (its ratio none where earshot-wyoming's time is under a clock tick).
if run wyoming_cost "$src/bench/wyoming_cost.sh" "$tmp/wyoming"; then
  events='[a-z-]+:[0-9]+(,[a-z-]+:[0-9]+)*'
  peers=$t$t && peers_installed && peers=$(tabbed "$n" "$n" "($n)?")
  expect wyoming_cost \
    "$(tabbed case audio_s earshot_wyoming_cpu_s_per_h events oww_cpu_s_per_h oww_proc_s_per_h \
      ratio)" \
    "$(tabbed noise '3\.0*' "$n" "$events" "$peers")" \
    "$(tabbed speech '3\.0*' "$n" "$events" "$peers")"
  peers_skipped wyoming_cost
fi

# instructions.sh: idle, keyword and request, each its total then its top functions.
if EARSHOT_COMMAND="run --stages vad,kws" run instructions "$src/bench/instructions.sh" \
    "$tmp/instructions"; then
  arches=(x86) && [ ! -x "$EARSHOT_ARM64_BUILD/tools/earshot" ] || arches+=(aarch64)
  grep -q '^  ' "$tmp/instructions.out" || fail "instructions: no functions listed"
  grep -v '^  ' "$tmp/instructions.out" >"$tmp/instructions_cases.out"
  rows=()
  for c in idle keyword request; do for a in "${arches[@]}"; do rows+=("$c$t$a$t$n"); done; done
  expect instructions_cases "${rows[@]}"
fi

# embedding_cost.sh: the four cases, then what one embedding costs, per architecture.
if run embedding_cost "$src/bench/embedding_cost.sh" "$tmp/embedding"; then
  rows=()
  for a in x86 aarch64; do
    [ $a = x86 ] || [ -x "$EARSHOT_ARM64_BUILD/tools/earshot" ] || continue
    for c in embedding_mel embedding logmel kws; do rows+=("$c$t$a$t$n"); done
    summary="$a: embedding $n instructions each \($n per hop\), its front end $n per hop;"
    rows+=("$summary keyword spotter $n per hop: the embedding $n times it per hop")
  done
  expect embedding_cost "${rows[@]}"
fi

# soak.py: seed 3 starts with a request, heard (the soak's own checks: exit 0); no hourly marks.
if run soak /usr/bin/python3 "$src/bench/soak.py" --seed 3; then
  expect soak "audio: 0\.00 h, 1 requests, seed 3 .*" \
    "$(tabbed audio_h rss_kib fds cpu_s wall_s requests wakes finals)" \
    "end: exit 0, .*requests 1, wakes 1, finals 1 \(0 cancelled\), put in 1, 1 of them heard.*"
fi
[ $ran -gt 0 ] || { echo "SKIP: every script skipped"; exit 77; }
echo "PASS: $ran of 5 scripts ran"
