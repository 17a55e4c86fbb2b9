#!/usr/bin/env bash
# The command protocols' scripts (tools/eval/command_reject.py, digit_strings.py) run unchanged on
# recordings laid out as others ship them: Speech Commands as <split>/<word>/ with a test/ split
# and as Google's <word>/ of .wav (its _background_noise_ left out); FSDD as the shared data's
# <digit word>/ and as FSDD's own recordings/<digit>_<speaker>_<take>.wav at 8 kHz. Each built
# from a few shared clips, decoded for real; a folder of neither layout is an error naming it.
# Usage: tests/eval_protocols_test.sh PATH/TO/earshot
set -euo pipefail
earshot=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
data=${EARSHOT_DATA_DIR:-$src/../shared/data}
[ -d "$data/kws/dev" ] && [ -d "$data/kws_aux/fsdd/dev" ] || { echo "SKIP: no shared data at $data"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
first() { local n=$1; shift; printf '%s\n' "${@:1:$n}"; }  # the first n of the files given
summary() { tail -1 "$1" | $py -c "import json,sys; s=json.load(sys.stdin); print($2)"; }

# Speech Commands with a held-out test/ split (the layout of the held-out set): two clips of a
# command word and of another word, two read-speech utterances (one in a subfolder).
for w in yes bird; do
  mkdir -p "$tmp/sc/test/$w" "$tmp/sc/train/$w"
  cp $(first 2 "$data/kws/dev/$w/"*.flac) "$tmp/sc/test/$w/"
  cp $(first 1 "$data/kws/train/$w/"*.flac) "$tmp/sc/train/$w/"
done
mkdir -p "$tmp/speech/1089/134686"  # the two shortest: one flat, one as LibriSpeech nests them
shortest=($(first 2 $(ls -Sr "$data/stt/"*.flac)))
cp "${shortest[0]}" "$tmp/speech/"
cp "${shortest[1]}" "$tmp/speech/1089/134686/"
# --data is not read when --kws and --speech say where the recordings are (another machine's).
$py "$src/tools/eval/command_reject.py" --earshot "$earshot" --kws "$tmp/sc" --speech "$tmp/speech" \
  --data "$tmp/none" > "$tmp/split.txt"
[ "$(summary "$tmp/split.txt" 's["held_out"]')" = "['test']" ] || fail "test/ not the held-out split"
[ "$(summary "$tmp/split.txt" 's["recognised_by_word"]["yes"][1]')" = 2 ] || fail "yes: not 2 test clips"
[ "$(summary "$tmp/split.txt" 's["rejected_by_word"]["bird"][1]')" = 3 ] || fail "bird: not 3 clips"
[ "$(summary "$tmp/split.txt" 's["read_speech_files"]')" = 2 ] || fail "read speech: not 2 files"
grep -q "^yes	recognised on test [0-2]/2$" "$tmp/split.txt" || fail "no 'recognised on test' line"

# Google's layout: <word>/*.wav, one split, and a _background_noise_ folder that is no word.
for w in left house; do
  mkdir -p "$tmp/google/$w"
  for f in $(first 2 "$data/kws/dev/$w/"*.flac); do
    sox "$f" "$tmp/google/$w/$(basename "$f" .flac).wav"
  done
done
mkdir -p "$tmp/google/_background_noise_"
sox $(first 1 "$data/noise/"*.wav) "$tmp/google/_background_noise_/noise.wav" trim 0 2
$py "$src/tools/eval/command_reject.py" --earshot "$earshot" --kws "$tmp/google" \
  --speech "$tmp/none" > "$tmp/google.txt"
[ "$(summary "$tmp/google.txt" 's["splits"]')" = "['all']" ] || fail "Google's layout not one split"
[ "$(summary "$tmp/google.txt" 'sorted(s["rejected_by_word"]) + sorted(s["recognised_by_word"])')" \
  = "['house', 'left']" ] || fail "Google's layout: words not house and left (_background_noise_ left out)"
if $py "$src/tools/eval/command_reject.py" --earshot "$earshot" --kws "$tmp/google/left" \
    > /dev/null 2> "$tmp/err.txt"; then
  fail "a folder of no word folders was accepted"
fi
grep -qF "$tmp/google/left: no <split>/<word>/ nor <word>/ folder" "$tmp/err.txt" || fail "error: $(cat "$tmp/err.txt")"

# FSDD: the shared data's layout, then FSDD's own (8 kHz .wav named <digit>_<speaker>_<take>).
digits=(zero one two three four five six seven eight nine)
for n in "${!digits[@]}"; do
  d=${digits[$n]}
  mkdir -p "$tmp/fsdd/held/$d" "$tmp/fsdd_own/recordings"
  for f in $(first 2 "$data/kws_aux/fsdd/dev/$d/"*.flac); do
    cp "$f" "$tmp/fsdd/held/$d/"
    take=$(basename "$f" .flac)
    sox "$f" -r 8000 "$tmp/fsdd_own/recordings/${n}_${take%_*}_${take##*_}.wav"
  done
done
for case in "fsdd held" "fsdd_own recordings"; do
  set -- $case
  $py "$src/tools/eval/digit_strings.py" --earshot "$earshot" --fsdd "$tmp/$1" --split "$2" \
    --count 3 --data "$tmp/none" > "$tmp/$1.txt"
  [ "$(summary "$tmp/$1.txt" '(s["sequences"], s["speakers"])')" = "(3, ['nicolas'])" ] ||
    fail "$1: not 3 strings of nicolas: $(cat "$tmp/$1.txt")"
done
if $py "$src/tools/eval/digit_strings.py" --earshot "$earshot" --fsdd "$tmp/google" --split left \
    > /dev/null 2> "$tmp/err.txt"; then
  fail "a folder of no digits was accepted"
fi
grep -qF "$tmp/google/left: no speaker with clips of all ten digits" "$tmp/err.txt" || fail "error: $(cat "$tmp/err.txt")"
echo "eval_protocols_test: every check passed"
