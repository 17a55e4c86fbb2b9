#!/usr/bin/env bash
# What the cascade costs per hour of audio, per stage, in three cases, beside openWakeWord (one
# model) + Silero VAD from ../shared/peers run on the same audio in the same run:
#   noise  - 10 min of the noise/ recordings (no speech)
#   speech - 10 min of LibriSpeech speech/ without the keyword
#   day    - 20 min of noise with 5% speech, a tenth of it requests ("computer" + an stt/ utterance)
# Usage: bench/cascade_cost.sh [OUT_DIR]   (peers installed in $EARSHOT_PEERS_DIR, default
#        ../shared/peers, with `npm ci` done there; EARSHOT_BUILD_DIR, default build)
# Environment: EARSHOT_BENCH_ARGS, options of `earshot bench` (e.g. --set kws.models=A,B,C: the
#   cascade with three keywords); EARSHOT_NO_PEERS=1 measures earshot alone (peer columns empty),
#   as where the peers are not installed (no node_modules; said on stderr); EARSHOT_BENCH_SECONDS=N
#   cuts each case to N s (bench/cost_audio.sh; a smoke run, bench/bench_lib.sh).
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 0 "$@"
source "$(dirname "$0")/bench_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/cascade_cost}
peers=${EARSHOT_PEERS_DIR:-$root/../shared/peers}
earshot=${EARSHOT_BUILD_DIR:-$root/build}/tools/earshot
bench_need "$earshot"
mkdir -p "$out"
"$root/bench/cost_audio.sh" "$out"  # noise.wav, speech.wav, day.wav
[ -s "$out/day.wav" ] || bench_missing "no audio (bench/cost_audio.sh skipped)"
run_peers=0
if bench_peers "$peers"; then run_peers=1; bench_need bc; fi

# Per case: earshot's stages from `earshot bench`; each peer's compute time per second of audio
# from its timing.json; each peer's output in its own log.
us() { awk -F'\t' -v s="$1" '$1==s {print $3}' "$out/$case.bench.tsv"; }
peer_us() {
  /usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print(f\"{1e6*t['proc_s']/t['audio_s']:.1f}\")" \
    "$1/timing.json"
}
printf 'case\tearshot_us_per_s\tfront_end\tvad\tkws\tstt\twakes\tpeers_us_per_s\toww\tsilero\tratio\n'
for case in noise speech day; do
  # shellcheck disable=SC2086  # the options are words
  "$earshot" bench ${EARSHOT_BENCH_ARGS:-} "$out/$case.wav" >"$out/$case.bench.tsv"
  total=$(us total) oww="" silero="" peers_us="" ratio=""
  if [ $run_peers = 1 ]; then
    bench_logged "$out/oww_$case.log" node "$peers/kws_openwakeword.mjs" --models hey_jarvis \
      --out-dir "$out/oww_$case" "$out/$case.wav"
    bench_logged "$out/silero_$case.log" node "$peers/vad_silero.mjs" --no-frames \
      --out-dir "$out/silero_$case" "$out/$case.wav"
    oww=$(peer_us "$out/oww_$case"); silero=$(peer_us "$out/silero_$case")
    peers_us=$(echo "$oww + $silero" | bc -l)
    ratio=$(echo "($oww + $silero) / $total" | bc -l | cut -c1-6)
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$total" "$(us front_end)" "$(us vad)" \
    "$(us kws)" "$(us stt)" "$(awk -F'\t' '$1=="wakes" {print $2}' "$out/$case.bench.tsv")" \
    "$peers_us" "$oww" "$silero" "$ratio"
done
