#!/usr/bin/env bash
# What earshot-wyoming costs as a Home Assistant wake-word service, beside openWakeWord (one model,
# ../shared/peers) on the same audio in the same run: the noise and speech cases of
# bench/cost_audio.sh (10 min each), each streamed over loopback by the Wyoming test client
# (tests/wyoming_client.py: detect, audio-start, 20 ms audio-chunks of 16 kHz mono, audio-stop) as
# fast as the server takes it. earshot-wyoming's cost is the CPU time (user + system, every
# thread) its process spent on the stream, read from /proc before and after: protocol, conversion,
# VAD and keyword spotter. openWakeWord's is its process's CPU time (user + system, /usr/bin/time)
# less its timing.json's load_s and io_s (model loading and WAV reading, wall times, so at least
# their CPU time): the models alone, no protocol. Both in CPU seconds per hour of audio; ratio:
# openWakeWord's over earshot-wyoming's. oww_proc_s_per_h is openWakeWord's own figure (proc_s, the
# wall time of its compute, which a loaded machine inflates).
# Usage: bench/wyoming_cost.sh [OUT_DIR]   (peers installed in $EARSHOT_PEERS_DIR, default
#        ../shared/peers, with `npm ci` done there; EARSHOT_BUILD_DIR, default build)
# Environment: EARSHOT_NO_PEERS=1 measures earshot-wyoming alone (openWakeWord's columns empty), as
#   where the peers are not installed (no node_modules; said on stderr); EARSHOT_BENCH_SECONDS=N
#   cuts each case to N s (bench/cost_audio.sh; a smoke run, bench/bench_lib.sh).
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 0 "$@"
source "$(dirname "$0")/bench_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/wyoming_cost}
peers=${EARSHOT_PEERS_DIR:-$root/../shared/peers}
server=${EARSHOT_BUILD_DIR:-$root/build}/wyoming/earshot-wyoming
client=$root/tests/wyoming_client.py
bench_need "$server" sox soxi bc /usr/bin/python3
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The audio of bench/cost_audio.sh, made unless OUT_DIR holds both cases at this length.
samples=$((16000 * ${bench_seconds:-600}))
if [ ! -s "$out/noise.wav" ] || [ ! -s "$out/speech.wav" ] ||
    [ "$(soxi -s "$out/noise.wav")" != $samples ] ||
    [ "$(soxi -s "$out/speech.wav")" != $samples ]; then
  "$root/bench/cost_audio.sh" "$out"
  [ -s "$out/speech.wav" ] || bench_missing "no audio (bench/cost_audio.sh skipped)"
fi
run_peers=0
if bench_peers "$peers"; then run_peers=1; bench_need /usr/bin/time; fi

"$server" --uri tcp://127.0.0.1:0 2>"$out/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do grep -q "listening on" "$out/server.log" && break; sleep 0.1; done
uri=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' "$out/server.log")
if [ -z "$uri" ]; then
  echo "wyoming_cost.sh: earshot-wyoming did not start" >&2
  cat "$out/server.log" >&2
  exit 1
fi
tick=$(getconf CLK_TCK)
cpu_s() { awk -v t="$tick" '{print ($14 + $15) / t}' "/proc/$pid/stat"; }
per_hour() { echo "$1 * 3600 / $2" | bc -l | xargs printf '%.2f'; }

printf 'case\taudio_s\tearshot_wyoming_cpu_s_per_h\tevents\t'
printf 'oww_cpu_s_per_h\toww_proc_s_per_h\tratio\n'
for case in noise speech; do
  sox "$out/$case.wav" -t raw -e signed -b 16 -L "$out/$case.raw"
  audio_s=$(soxi -D "$out/$case.wav")
  before=$(cpu_s)
  /usr/bin/python3 "$client" "$uri" stream "$out/$case.raw" 16000 2 1 20 >"$out/$case.events.jsonl"
  after=$(cpu_s)
  ours=$(per_hour "$(echo "$after - $before" | bc -l)" "$audio_s")
  oww="" oww_proc="" ratio=""
  if [ $run_peers = 1 ]; then
    (cd "$peers" && bench_logged "$out/oww_$case.log" /usr/bin/time -f '%U %S' \
      -o "$out/oww_$case.time" node kws_openwakeword.mjs --models hey_jarvis \
      --out-dir "$out/oww_$case" "$out/$case.wav")
    read -r oww oww_proc < <(/usr/bin/python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
user, system = map(float, open(sys.argv[2]).read().split()[-2:])
cpu = user + system - t['load_s'] - t['io_s']
print(f\"{3600 * cpu / t['audio_s']:.2f} {3600 * t['proc_s'] / t['audio_s']:.2f}\")" \
      "$out/oww_$case/timing.json" "$out/oww_$case.time")
    # None where earshot-wyoming's time is under the clock's tick (a few seconds of audio).
    [ "$ours" = 0.00 ] || ratio=$(echo "$oww / $ours" | bc -l | xargs printf '%.1f')
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$audio_s" "$ours" \
    "$(cut -d'"' -f4 "$out/$case.events.jsonl" | sort | uniq -c |
      awk '{printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1}')" \
    "$oww" "$oww_proc" "$ratio"
done
kill $pid
wait $pid || true
trap - EXIT
