#!/usr/bin/env bash
# What the cascade costs per hour of audio, per stage, in three cases, beside openWakeWord (one
# model) + Silero VAD from ../shared/peers run on the same audio in the same run:
#   noise  - 10 min of the noise/ recordings (no speech)
#   speech - 10 min of LibriSpeech speech/ without the keyword
#   day    - 20 min of noise with 5% speech, a tenth of it requests ("computer" + an stt/ utterance)
# Usage: bench/cascade_cost.sh [OUT_DIR]   (peers installed in $EARSHOT_PEERS_DIR, default
#        ../shared/peers, with `npm ci` done there)
# Environment: EARSHOT_BENCH_ARGS, options of `earshot bench` (e.g. --set kws.models=A,B,C: the
#   cascade with three keywords); EARSHOT_NO_PEERS=1 measures earshot alone (peer columns empty).
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 0 "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/cascade_cost}
peers=${EARSHOT_PEERS_DIR:-$root/../shared/peers}
earshot=$root/build/tools/earshot
mkdir -p "$out"
"$root/bench/cost_audio.sh" "$out"  # noise.wav, speech.wav, day.wav

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
  total=$(us total) oww="" silero="" peers="" ratio=""
  if [ "${EARSHOT_NO_PEERS:-0}" != 1 ]; then
    node "$peers/kws_openwakeword.mjs" --models hey_jarvis --out-dir "$out/oww_$case" "$out/$case.wav" \
      >"$out/oww_$case.log" 2>&1
    node "$peers/vad_silero.mjs" --no-frames --out-dir "$out/silero_$case" "$out/$case.wav" \
      >"$out/silero_$case.log" 2>&1
    oww=$(peer_us "$out/oww_$case"); silero=$(peer_us "$out/silero_$case")
    peers=$(echo "$oww + $silero" | bc -l) ratio=$(echo "($oww + $silero) / $total" | bc -l | cut -c1-6)
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$total" "$(us front_end)" "$(us vad)" \
    "$(us kws)" "$(us stt)" "$(awk -F'\t' '$1=="wakes" {print $2}' "$out/$case.bench.tsv")" \
    "$peers" "$oww" "$silero" "$ratio"
done
