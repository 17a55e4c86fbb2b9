#!/usr/bin/env bash
# Smoke test of the training pipelines: a tiny VAD and tiny keyword spotters (large and small)
# trained from the shared data in seconds must load in C++ and match the scripts' integer
# reference bit for bit. Skips without PyTorch or the data, and under qemu-user (saying why).
# Usage: tests/train_smoke_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
if [ -n "${EARSHOT_EMULATOR:-}" ]; then  # the aarch64 suite, under qemu-user
  echo "SKIP: under qemu-user the training's features come from the emulated earshot (over 15" \
    "minutes), and PyTorch trains natively as in the x86 suite; the aarch64 models' bit-exactness" \
    "with the training reference runs here in vad_test, kws_test and command_model_test on the" \
    "committed vectors (tests/data)"
  exit 77
fi
earshot=$build/tools/earshot
src=$(cd "$(dirname "$0")/.." && pwd)
data=${EARSHOT_DATA_DIR:-$src/../shared/data}
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "SKIP: python3-torch is not installed (tools/setup.sh --training installs it)"; exit 0
fi
if [ ! -d "$data/speech" ]; then echo "SKIP: no shared data at $data"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$src/tools/train/train_vad.py" --data "$data" --earshot "$earshot" \
  --streams 8 --epochs 1 --out "$tmp/vad.eshm" --log "$tmp/train.log" --vectors "$tmp/vectors.txt"
EARSHOT_VAD_MODEL="$tmp/vad.eshm" EARSHOT_VAD_VECTORS="$tmp/vectors.txt" \
  "$build/tests/vad_test" --gtest_filter='Vad.BitExactWithTheTrainingReference'
"$earshot" vad --set vad.model="$tmp/vad.eshm" "$src/tools/samples/computer_request.flac" >/dev/null
# A dozen synthetic clips when the synthesisers are there (tools/setup.sh --training installs them).
synth=(--synth none)
if command -v espeak-ng >/dev/null && command -v flite >/dev/null; then
  synth=(--synth "$tmp/synth" --synth-scale 0.01)
fi
kws_options=(--data "$data" --earshot "$earshot" --streams 4 --epochs 1
  --mine-rounds 2 "${synth[@]}" --transform 8,7,-64,63 --spec-mask 8,4 --ema 0.99
  --noise-suppression --frames 69  # not the defaults: the C++ follows the file
  --start-cut 0.5 --transients 0.5 --neg-speed
  --checkpoint "$tmp/kws.checkpoint")
/usr/bin/python3 "$src/tools/train/train_kws.py" "${kws_options[@]}" --out "$tmp/kws.eshm" \
  --small-out "$tmp/kws_small.eshm" --log "$tmp/kws.log"
# A stream cut inside a keyword (--start-cut) keeps no target for what is left of it.
/usr/bin/python3 - "$src/tools/train" "$data" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import audio_io
import kws_data
y = np.array([0, 0, -1, -1, 1, 1, -1, 0, 0, -1, 1, -1, 0], float)
s = np.arange(len(y) * audio_io.HOP, dtype=float)
for hops, want in ((1, y[1:]), (3, [-1, -1, -1, -1, 0, 0, -1, 1, -1, 0]), (8, y[8:])):
    s2, y2 = kws_data.cut_start(s, y, hops)
    assert list(y2) == list(want) and s2[0] == hops * audio_io.HOP, (hops, y2)
# Synthetic clatter (--transients): unit RMS, bursts standing out of a floor.
import augment
bank = augment.NoiseBank(sys.argv[2], np.random.default_rng(1), transient_share=1.0)
for _ in range(4):
    x = bank.sample(5 * audio_io.SR)
    db = 10 * np.log10(audio_io.frame_power(x) + 1e-12)
    p10, p99 = np.percentile(db, [10, 99])
    assert len(x) == 5 * audio_io.SR and abs(np.mean(x * x) - 1) < 1e-6 and p99 - p10 > 10, (p10, p99)
PY
# The same command again goes on from the checkpoint of the last stage: the same bytes.
/usr/bin/python3 "$src/tools/train/train_kws.py" "${kws_options[@]}" --out "$tmp/resumed.eshm" \
  --small-out "$tmp/resumed_small.eshm" --log "$tmp/resumed.log" >/dev/null
grep -q "^resumed from $tmp/kws.checkpoint: 3 stage" "$tmp/resumed.log"
cmp "$tmp/kws.eshm" "$tmp/resumed.eshm" && cmp "$tmp/kws_small.eshm" "$tmp/resumed_small.eshm"
# A checkpoint of other options, or a broken one, is refused with the file's name and the cause.
head -c 100000 "$tmp/kws.checkpoint" > "$tmp/truncated.checkpoint"
for case in "--seed 7|$tmp/kws.checkpoint: a checkpoint of a run with other options (seed)" \
            "--checkpoint $tmp/truncated.checkpoint|$tmp/truncated.checkpoint: not a readable checkpoint" \
            "--large-from $tmp/kws.eshm|--large-from trains the small model alone: no --checkpoint"; do
  if /usr/bin/python3 "$src/tools/train/train_kws.py" "${kws_options[@]}" ${case%%|*} \
       --out "$tmp/refused.eshm" --small-out "$tmp/refused_small.eshm" --log "$tmp/refused.log" \
       2> "$tmp/refused.txt"; then
    echo "FAIL: train_kws.py ${case%%|*} was not refused"; exit 1
  fi
  grep -qF -e "${case#*|}" "$tmp/refused.txt" || { cat "$tmp/refused.txt"; exit 1; }
done
# The small model alone, its first hard negatives mined by the large model file just written; a
# window every 3rd frame (the bundled small model's), where the large model's is every 2nd.
/usr/bin/python3 "$src/tools/train/train_kws.py" --data "$data" --earshot "$earshot" \
  --streams 4 --epochs 1 --mine-rounds 1 --small-fresh --small-mine-rounds 1 "${synth[@]}" \
  --transform 8,7,-64,63 --noise-suppression --frames 69 --large-from "$tmp/kws.eshm" \
  --small-stride 3 --small-out "$tmp/kws_from_large.eshm" --log "$tmp/from_large.log"
grep -q "^hard negatives of kws.eshm, round 1: " "$tmp/from_large.log"
grep -q "^small: convolution over 5 frames every 3 (22 positions) x 32 channels, MLP hidden" "$tmp/from_large.log"
# The large models above have two convolutions (--conv2's default), both streamed in C++;
# here a large model of one (--conv2 none) and a small one of two (--small-conv2).
/usr/bin/python3 "$src/tools/train/train_kws.py" --data "$data" --earshot "$earshot" \
  --streams 4 --epochs 1 --mine-rounds 1 "${synth[@]}" --frames 69 --conv2 none \
  --small-conv2 4,1,8 \
  --out "$tmp/kws_alt.eshm" --small-out "$tmp/kws_alt_small.eshm" --log "$tmp/alt.log"
grep -q "^large: 69 frames x 20 bands, .* (33 positions) x 64 channels, MLP hidden" "$tmp/alt.log"
grep -q "^large: 69 frames x 20 bands, .* x 64 channels, then over 5 positions every 2 (15) x 64 channels" "$tmp/kws.log"
grep -q "^small: convolution over 5 frames every 2 (33 positions) x 32 channels, then over 4 positions every 1 (30) x 8 channels" "$tmp/alt.log"
# A large model of another input transform, or of another context, is refused before any
# training, naming the file.
for case in "--frames 69|its kws_transform is (8, 7, -64, 63)" \
            "--transform 8,7,-64,63 --noise-suppression|its context is (-136, "; do
  if /usr/bin/python3 "$src/tools/train/train_kws.py" --data "$data" --earshot "$earshot" \
       ${case%%|*} --large-from "$tmp/kws.eshm" --small-out "$tmp/refused_small.eshm" \
       --log "$tmp/refused.log" 2> "$tmp/refused.txt"; then
    echo "FAIL: train_kws.py ${case%%|*} --large-from a model of other inputs was not refused"; exit 1
  fi
  grep -qF "$tmp/kws.eshm: ${case#*|}" "$tmp/refused.txt" || { cat "$tmp/refused.txt"; exit 1; }
done
for size in kws kws_small kws_from_large kws_alt kws_alt_small; do
  /usr/bin/python3 "$src/tools/train/make_kws_vectors.py" --model "$tmp/$size.eshm" \
    --earshot "$earshot" --out "$tmp/${size}_vectors.txt"
  EARSHOT_KWS_MODEL="$tmp/$size.eshm" EARSHOT_KWS_VECTORS="$tmp/${size}_vectors.txt" \
    "$build/tests/kws_test" --gtest_filter='Kws.BitExactWithTheTrainingReference'
  "$earshot" kws --model "$tmp/$size.eshm" "$src/tools/samples/computer_request.flac" >/dev/null
done
# The random microphone (--channel): 700 Hz passes (at least 0.77 of it at any draw), 7 kHz does not
# (at most 0.66: the low-pass is at 6 kHz or below).
/usr/bin/python3 - "$src/tools/train" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import augment
rng = np.random.default_rng(1)
t = np.arange(16000) / 16000
for hz, lo, hi in ((700, 0.77, 1.0), (7000, 0.0, 0.66)):
    x = np.sin(2 * np.pi * hz * t)
    for _ in range(50):
        kept = np.std(augment.microphone(x, rng)) / np.std(x)
        assert lo <= kept <= hi, f"{hz} Hz kept {kept:.3f}, not in [{lo}, {hi}]"
PY
if out=$(/usr/bin/python3 "$src/tools/train/train_commands.py" --channel 2 2>&1); then
  echo "train_commands.py --channel 2 was accepted"; exit 1
fi
grep -q "a share, from 0 to 1" <<<"$out" || { echo "$out"; exit 1; }
# A --more folder whose clips are not kws/train's words is refused, naming the folder.
if out=$(/usr/bin/python3 "$src/tools/train/train_commands.py" --data "$data" --earshot "$earshot" \
    --more wakeword/computer --out "$tmp/more.eshm" --log "$tmp/more.log" 2>&1); then
  echo "train_commands.py --more wakeword/computer was accepted"; exit 1
fi
grep -q "wakeword/computer/dev: 'dev' is not a word of kws/train" <<<"$out" || { echo "$out"; exit 1; }
# A tiny command classifier (one folder of other words as an extra class, a few epochs),
# cross-validated against a decoder's words (here: each clip's own word, so fused = 100% at any
# bonus but 0), each fold's head and held-out clips written, read by the C++ with the script's
# log-probabilities, and joined to stt.words.
for f in "$data"/kws/train/*/*.flac; do
  w=$(basename "$(dirname "$f")"); printf '%s_%s\t%s\n' "$w" "$(basename "$f" .flac)" "$w"
done > "$tmp/own_words.tsv"
/usr/bin/python3 "$src/tools/train/train_commands.py" --data "$data" --earshot "$earshot" \
  --copies 1 --extra wakeword/computer/train --epochs 4 --channel 0.5 --folds 2 \
  --ps-hyps "$tmp/own_words.tsv" --fold-models "$tmp/command_folds" \
  --out "$tmp/commands.eshm" --log "$tmp/commands.log" --vectors "$tmp/command_vectors.txt"
grep -q "^  fused, bonus 1000: 138/138 (100.0%)" "$tmp/commands.log" || { cat "$tmp/commands.log"; exit 1; }
held=$(find "$tmp/command_folds/fold0" "$tmp/command_folds/fold1" -name '*.flac' | wc -l)
[ "$held" = 411 ] && [ -f "$tmp/command_folds/fold1.eshm" ] || { echo "fold models: $held clips"; exit 1; }
# The vectors of the trained network, then those of the file read back (--vectors-of).
/usr/bin/python3 "$src/tools/train/train_commands.py" --earshot "$earshot" \
  --vectors-of "$tmp/commands.eshm" --vectors "$tmp/command_vectors_of.txt"
for v in command_vectors command_vectors_of; do
  EARSHOT_COMMAND_MODEL="$tmp/commands.eshm" EARSHOT_COMMAND_VECTORS="$tmp/$v.txt" \
    "$build/tests/command_model_test" --gtest_filter='CommandModel.MatchesTheTrainingScript'
done
"$earshot" transcribe --set 'stt.words=yes|no|up|down|left|right|on|off|stop|go' \
  --set stt.command_model="$tmp/commands.eshm" "$data/kws/dev/yes/"*.flac >/dev/null
# Two words from text alone (when the synthesisers are there): no recording of them is read, and
# the decoder takes the head for those words.
if [ "${synth[1]}" != none ]; then
  /usr/bin/python3 "$src/tools/train/train_commands.py" --data "$data" --earshot "$earshot" \
    --words 'yes|lights' --from-text --synth "$tmp/command_synth" --synth-per-word 2 \
    --copies 0 --epochs 2 --extra none --more none \
    --out "$tmp/from_text.eshm" --log "$tmp/from_text.log"
  grep -q "^kws/train: 398 clips" "$tmp/from_text.log" || { cat "$tmp/from_text.log"; exit 1; }
  "$earshot" transcribe --set 'stt.words=yes|lights' --set stt.command_model="$tmp/from_text.eshm" \
    "$data/kws/dev/yes/"*.flac >/dev/null
fi
if out=$(/usr/bin/python3 "$src/tools/train/train_commands.py" --from-text --folds 2 2>&1); then
  echo "train_commands.py --from-text --folds 2 was accepted"; exit 1
fi
grep -q "not with --from-text" <<<"$out" || { echo "$out"; exit 1; }
if out=$(/usr/bin/python3 "$src/tools/train/train_commands.py" --data "$data" --earshot "$earshot" \
    --words 'yes|lights' --out "$tmp/no_lights.eshm" --log "$tmp/no_lights.log" 2>&1); then
  echo "train_commands.py --words 'yes|lights' without --from-text was accepted"; exit 1
fi
grep -q "no recording of 'lights'" <<<"$out" || { echo "$out"; exit 1; }
echo "train_smoke_test: every check passed"
