#!/usr/bin/env bash
# The audio of the cost measurements (bench/cascade_cost.sh, bench/wyoming_cost.sh), 16 kHz mono
# 16-bit WAVs in OUT_DIR from ../shared/data:
#   noise.wav  - 10 min of the noise/ recordings (no speech)
#   speech.wav - 10 min of LibriSpeech speech/ without the keyword
#   day.wav    - 20 min of noise with 5% speech, a tenth of it requests ("computer" + an stt/ utterance)
# EARSHOT_BENCH_SECONDS=N (bench/bench_lib.sh): each N s, day.wav the request over the noise; none
# of the three where the data are missing (skipped, exit 0).
# Usage: bench/cost_audio.sh OUT_DIR   (EARSHOT_DATA_DIR: the shared data, default ../shared/data)
set -euo pipefail
source "$(dirname "$0")/../tools/eval/usage.sh"
usage_check 1 "$@"
source "$(dirname "$0")/bench_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
data=${EARSHOT_DATA_DIR:-$root/../shared/data}
mkdir -p "$out"
rm -f "$out/noise.wav" "$out/speech.wav" "$out/day.wav"
bench_need sox "$data/noise" "$data/speech" "$data/wakeword/computer/dev" "$data/stt"
wav=(-r 16000 -c 1 -b 16)
seconds=${bench_seconds:-600} day_s=${bench_seconds:-1200}

# noise: the noise recordings, each at -30 dBFS peak, looped to 10 min
for f in "$data"/noise/*.wav; do sox "$f" "${wav[@]}" "$out/n_$(basename "$f")" norm -30; done
sox "$out"/n_*.wav "${wav[@]}" "$out/noise_once.wav"
sox "$out/noise_once.wav" "$out/noise_long.wav" repeat 40 trim 0 "$day_s"
sox "$out/noise_long.wav" "$out/noise.wav" trim 0 "$seconds"
# speech: LibriSpeech speech/, 10 min
speech=("$data"/speech/*.flac)
sox "${speech[@]:0:80}" "${wav[@]}" "$out/speech.wav" norm -3 trim 0 "$seconds"
# day: 20 min of noise; 60 s of speech in it, 6 s of which is a request
keywords=("$data"/wakeword/computer/dev/*.flac)
requests=("$data"/stt/*.flac)
sox "${keywords[0]}" "${requests[0]}" "${wav[@]}" "$out/request.wav" norm -3 trim 0 6
if [ -n "$bench_seconds" ]; then
  sox -m -v 1 "$out/request.wav" -v 1 "$out/noise_long.wav" "$out/day.wav" trim 0 "$day_s"
  exit 0
fi
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
