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
data=${EARSHOT_DATA_DIR:-$root/../shared/data}
peers=${EARSHOT_PEERS_DIR:-$root/../shared/peers}
earshot=$root/build/tools/earshot
mkdir -p "$out"
wav=(-r 16000 -c 1 -b 16)

# noise: the noise recordings, each at -30 dBFS peak, looped to 10 min
for f in "$data"/noise/*.wav; do sox "$f" "${wav[@]}" "$out/n_$(basename "$f")" norm -30; done
sox "$out"/n_*.wav "${wav[@]}" "$out/noise_once.wav"
sox "$out/noise_once.wav" "$out/noise_long.wav" repeat 40 trim 0 1200
sox "$out/noise_long.wav" "$out/noise.wav" trim 0 600
# speech: LibriSpeech speech/, 10 min
speech=("$data"/speech/*.flac)
sox "${speech[@]:0:80}" "${wav[@]}" "$out/speech.wav" norm -3 trim 0 600
# day: 20 min of noise; 60 s of speech in it, 6 s of which is a request
keywords=("$data"/wakeword/computer/dev/*.flac)
requests=("$data"/stt/*.flac)
sox "${keywords[0]}" "${requests[0]}" "${wav[@]}" "$out/request.wav" norm -3 trim 0 6
sox "$out/speech.wav" "$out/chatter.wav" trim 0 54
sox -n "${wav[@]}" "$out/gap.wav" trim 0 160
pieces=()
for i in 0 1 2 3 4 5; do
  sox "$out/chatter.wav" "$out/chat_$i.wav" trim $((i * 9)) 9
  pieces+=("$out/gap.wav" "$out/chat_$i.wav")
done
pieces+=("$out/gap.wav" "$out/request.wav" "$out/gap.wav")
sox "${pieces[@]}" "$out/day_speech.wav"
sox -m -v 1 "$out/day_speech.wav" -v 1 "$out/noise_long.wav" "$out/day.wav" trim 0 1200

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
