#!/usr/bin/env bash
# Smoke test of the wake word from text (tools/train/train_wakeword.py): a word the dictionary
# lacks is pronounced by espeak-ng, a word with no pronunciation at all (or a letter outside a-z)
# is a usage error naming the word; a tiny shared trunk and two tiny keyword models trained on it
# from text alone load in C++, score bit for bit as the scripts' integer reference, carry their
# phrase and their second stage (the phones, the default thresholds, the narrowband penalty) and
# share the trunk's bytes; the narrowband script calibrates a model trained before. Skips without
# PyTorch, the synthesisers or the data, and under qemu-user (saying why).
# Usage: tests/wakeword_smoke_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
if [ -n "${EARSHOT_EMULATOR:-}" ]; then  # the aarch64 suite, under qemu-user
  echo "SKIP: under qemu-user the training's features come from the emulated earshot (4 to 5" \
    "minutes), and PyTorch trains natively as in the x86 suite; the aarch64 scores of wake words" \
    "from text run here in cli_test (the three keywords' golden events: snowboy and view glass)" \
    "and kws_test (the committed vectors)"
  exit 77
fi
earshot=$build/tools/earshot
src=$(cd "$(dirname "$0")/.." && pwd)
data=${EARSHOT_DATA_DIR:-$src/../shared/data}
train=$src/tools/train
if ! /usr/bin/python3 -c "import torch" 2>/dev/null || ! command -v espeak-ng >/dev/null ||
    ! command -v flite >/dev/null; then
  echo "SKIP: python3-torch, espeak-ng or flite missing (tools/setup.sh --training installs them)"; exit 0
fi
if [ ! -d "$data/speech" ]; then echo "SKIP: no shared data at $data"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export EARSHOT_CACHE=$tmp/cache
common=(--data "$data" --earshot "$earshot")

# A word the dictionary lacks takes espeak-ng's pronunciation (`earshot pronounce`); with no
# pronunciation at all (no espeak-ng on the PATH): exit 2, the word named, no model written.
/usr/bin/python3 - "$train" "$earshot" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import pronounce
spoken, phones = pronounce.pronounce("Okay, Nabu!", pronounce.load(), pronounce.espeak(sys.argv[2]))
assert spoken == ["okay", "nabu"] and phones == ("OW", "K", "EY", "N", "AA", "B", "UW"), phones
PY
expect_error() {  # MESSAGE COMMAND...: exit status 2, MESSAGE (a grep pattern) on stderr, no model
  local want=$1 rc=0; shift
  "$@" 2> "$tmp/bad.err" || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q -- "$want" "$tmp/bad.err" || [ -e "$tmp/bad.eshm" ]; then
    echo "FAIL: exit status $rc, '$want' expected from: $*"; cat "$tmp/bad.err"; return 1
  fi
}
wakeword=(/usr/bin/python3 "$train/train_wakeword.py")
expect_error "'qxzvbl': no pronunciation.*espeak-ng could not be run" \
  env PATH=/nonexistent "${wakeword[@]}" "hey qxzvbl" --out "$tmp/bad.eshm" "${common[@]}"
# A letter outside a-z is named, not dropped ("élan" was trained as "lan").
expect_error "'élan': a letter outside a-z" \
  "${wakeword[@]}" "hey élan" --out "$tmp/bad.eshm" "${common[@]}"
# Paths it cannot use are usage errors naming them, before any training.
expect_error "--out $tmp: a directory" "${wakeword[@]}" "hey jarvis" "${common[@]}" --out "$tmp"
expect_error "--data $tmp/none: not a folder" \
  "${wakeword[@]}" "hey jarvis" "${common[@]}" --out "$tmp/m/bad.eshm" --data "$tmp/none"
mkdir "$tmp/nodata"
expect_error "--data $tmp/nodata: no speech/transcripts.tsv" \
  "${wakeword[@]}" "hey jarvis" "${common[@]}" --out "$tmp/m/bad.eshm" --data "$tmp/nodata"
[ ! -e "$tmp/m" ]

/usr/bin/python3 "$train/train_kws_trunk.py" "${common[@]}" --out "$tmp/trunk.eshm" --streams 4 \
  --epochs 1 --synth-per-word 1 --vocabulary 4 --no-aligned > /dev/null
for phrase in "hey snowboy" "kitchen light"; do
  name=${phrase// /_}
  /usr/bin/python3 "$train/train_wakeword.py" "$phrase" --tiny --trunk "$tmp/trunk.eshm" \
    --out "$tmp/$name.eshm" "${common[@]}" > /dev/null
  "$earshot" kws --set kws.smooth_ms=10 --model "$tmp/$name.eshm" \
    "$src/tools/samples/computer_request.flac" > "$tmp/$name.tsv"
done
/usr/bin/python3 - "$train" "$tmp" "$earshot" "$src/tools/samples/computer_request.flac" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import audio_io, kws_input, vad_export, vad_input
tmp, earshot, sample = sys.argv[2:]
mel = audio_io.logmel(earshot, audio_io.read_audio(sample))
files = {}
for name, phrase in (("hey_snowboy", "hey snowboy"), ("kitchen_light", "kitchen light")):
    t = vad_export.read_tensors(f"{tmp}/{name}.eshm")
    files[name] = t
    assert "".join(chr(c) for c in t["kws_phrase"]) == phrase, t["kws_phrase"]
    assert 16384 <= int(t["kws_default_threshold"][0]) <= 31129
    assert list(t["kws_verify"]) == [13107, 24575], t["kws_verify"]  # 0.4 and 0.75, the defaults
    assert 0 <= int(t["kws_verify_narrowband"][0]) <= 16384, t["kws_verify_narrowband"]
    assert "kws_verify_narrowband" in open(f"{tmp}/{name}.md").read()
    weight, offset = (int(v) for v in t["kws_verify_run"])
    assert weight in range(0, 2001, 100) and -100000 <= offset <= 100000, t["kws_verify_run"]
    assert "kws_verify_run" in open(f"{tmp}/{name}.md").read()
    phones = "".join(chr(c) for c in t["kws_verify_phones"])
    assert phones == {"hey_snowboy": "HH EY S N OW B OY", "kitchen_light": "K IH CH AH N L AY T"}[name], phones
    q = vad_export.mlp_from_tensors(t)
    rows = vad_input.stack_context(kws_input.frame_inputs(mel, tuple(t["kws_transform"])), q["context"])
    want = vad_export.run_int(q, rows)
    got = np.array([round(float(line.split("\t")[2]) * 32767) for line in open(f"{tmp}/{name}.tsv")])
    assert len(got) == len(want) and (got == want).all(), (name, np.abs(got - want).max())
# The narrowband penalty: the median gap of the K-th highest confidences, never negative.
import wakeword_narrowband as nb
full = np.linspace(0.9, 0.5, 60)
assert abs(nb.penalty(full, full + 0.04) - 0.04) < 1e-9
assert nb.penalty(full, full - 0.04) == 0.0 and nb.penalty(full[:4], full[:4] + 0.1) == 0.0
# The run weight: the least missed (the nearest the default 0.4 among equals), unless the default
# is within one standard error of it; the offset keeps the negatives' highest evidence where the
# default weight put it.
import wakeword_run as wr
negatives = [(-30.0 + 0.1 * i, 8) for i in range(60)]  # higher scores, short runs
long_runs = {i: [(-40.0, 45)] for i in range(20)}
weight, offset, shares = wr.choose(long_runs, negatives)
assert weight == 0.5 and abs(offset - 0.8) < 1e-9, (weight, offset, shares)
assert shares[0.4] == 1.0 and shares[2.0] == 0.0, shares
assert wr.choose({i: [(-20.0, 8)] for i in range(20)}, negatives)[:2] == (0.4, 0.0)
# One clip of 22 caught by a heavier weight, two never: within the noise of 22 renditions.
noisy = {i: [(-20.0, 8)] for i in range(19)}
noisy.update({19: [(-40.0, 45)], 20: [(-100.0, 0)], 21: [(-100.0, 0)]})
weight, offset, shares = wr.choose(noisy, negatives)
assert (weight, offset) == (0.4, 0.0) and shares[2.0] < shares[0.4], (weight, shares)
from augment import holds
assert holds("Hey, Snowboy!", ["hey", "snowboy"]) and not holds("hey snow boy", ["hey", "snowboy"])
assert not holds("any words", [])  # a model without a phrase excludes no transcript
a, b = files.values()
for l in range(3):  # the trunk: the same bytes in both
    for part in ("weight", "bias", "mult", "shift", "conv"):
        assert np.array_equal(a[f"l{l}.{part}"], b[f"l{l}.{part}"]), (l, part)
assert not np.array_equal(a["l3.weight"], b["l3.weight"])  # the heads: their own
PY
# A model trained before is calibrated in place (one speaker: a quick check of the script), its
# card with it; setting its second stage again keeps the penalty and its line in the card.
cp "$tmp/hey_snowboy.eshm" "$tmp/again.eshm"
grep -v "^  On audio with an empty band\|^  (.kws_verify_narrowband\|^  tools/train/wakeword_narrowband" \
  "$tmp/hey_snowboy.md" > "$tmp/again.md"
if grep -q kws_verify_narrowband "$tmp/again.md"; then echo "again.md: not stripped" >&2; exit 1; fi
/usr/bin/python3 "$train/wakeword_narrowband.py" "${common[@]}" --speakers 1 "$tmp/again.eshm" |
  grep -q "again.eshm: narrowband penalty [0-9.]*$"
grep -q "^  (.kws_verify_narrowband., calibrated on real negatives" "$tmp/again.md"
/usr/bin/python3 "$train/wakeword_verify.py" "$tmp/again.eshm" --threshold 0.75 \
  --earshot "$earshot" >/dev/null
grep -q "0.5 at a verified confidence of 0.75" "$tmp/again.md"
grep -q "^  (.kws_verify_narrowband., calibrated on real negatives" "$tmp/again.md"
expect_error "no second stage" /usr/bin/python3 "$train/wakeword_narrowband.py" "${common[@]}" \
  "$src/models/kws/computer.eshm"
expect_error "README.md: not an earshot model file" /usr/bin/python3 "$train/wakeword_verify.py" \
  "$src/README.md" --earshot "$earshot"
# Forced alignment (align_words.py, `earshot transcribe --words` under the transcript's grammar):
# the words in order, in time, inside the recording.
/usr/bin/python3 - "$train" "$earshot" "$data" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import align_words
earshot, data = sys.argv[2:]
utt, text = open(os.path.join(data, "speech", "transcripts.tsv")).readline().rstrip("\n").split("\t")
path = os.path.join(data, "speech", utt + ".flac")
words = text.split()
got = align_words.align(earshot, path, words)
assert got and [w for w, _, _ in got] == words, got
times = [t for _, a, b in got for t in (a, b)]
assert times == sorted(times) and times[0] >= 0 and times[-1] - times[0] > 0.2 * len(words), got
PY
echo "wake word from text: trained, loaded, bit exact, trunk shared; alignment checked"
