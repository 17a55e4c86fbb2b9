#!/usr/bin/env bash
# The echo protocols' scripts (tools/eval/echo_scenes.py, echo_eval.py, echo_requests.py) run on
# folders of any layout: two scenes of the shared wake words over the shared noise as the
# playback, with a request of two read-speech utterances; the tables come out whole, each scene's
# files are there, and a request folder without transcripts is an error naming it.
# Usage: tests/echo_protocols_test.sh PATH/TO/earshot
set -euo pipefail
earshot=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
data=${EARSHOT_DATA_DIR:-$src/../shared/data}
[ -d "$data/wakeword/computer/dev" ] && [ -d "$data/speech" ] && [ -d "$data/rir" ] ||
  { echo "SKIP: no shared data at $data"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/requests/nested"  # two short utterances, one in a subfolder, and their text
shortest=($(ls -Sr "$data/speech/"*.flac))  # no head in a pipe: its SIGPIPE fails pipefail
ids=($(basename "${shortest[0]}" .flac) $(basename "${shortest[1]}" .flac))
cp "$data/speech/${ids[0]}.flac" "$tmp/requests/"
cp "$data/speech/${ids[1]}.flac" "$tmp/requests/nested/"
grep -E "^(${ids[0]}|${ids[1]})	" "$data/speech/transcripts.tsv" > "$tmp/requests/transcripts.tsv"
$py "$src/tools/eval/echo_scenes.py" --speech "$data/wakeword/computer/dev" \
  --playback "$data/noise" --rir "$data/rir" --out "$tmp/scenes" --scenes 2 --seed 3 \
  --ser 0,-5 --request "$tmp/requests" > /dev/null
for f in ref mic_0 mic_-5 clean echo; do
  [ -s "$tmp/scenes/scene_001/$f.wav" ] || fail "scene_001/$f.wav missing"
done
[ "$(wc -l < "$tmp/scenes/requests.tsv")" = 2 ] || fail "requests.tsv: not 2 lines"
cut -f2 "$tmp/scenes/requests.tsv" | while read -r text; do
  grep -qF "	$text" "$tmp/requests/transcripts.tsv" || fail "request '$text' not one of the folder's"
done

$py "$src/tools/eval/echo_eval.py" "$earshot" "$tmp/scenes" > "$tmp/wakes.txt"
grep -q "^2 scenes; ERLE after 2 s: median" "$tmp/wakes.txt" || fail "echo_eval: $(cat "$tmp/wakes.txt")"
grep -qE "^\| -5 dB \| [0-2] of 2 .* \| [0-2] of 2 " "$tmp/wakes.txt" || fail "echo_eval's -5 dB row"
$py "$src/tools/eval/echo_requests.py" "$earshot" "$tmp/scenes" --out "$tmp/hyp" > "$tmp/wer.txt"
grep -qE "^2 requests; WER without playback: [0-9.]+% \([0-2] of 2 woke\)" "$tmp/wer.txt" ||
  fail "echo_requests: $(cat "$tmp/wer.txt")"
grep -qE "^\| 0 dB \| [0-9.]+% \([0-2] of 2 woke\) \| [0-9.]+% " "$tmp/wer.txt" || fail "its 0 dB row"
[ -s "$tmp/hyp/ser_0_with.hyp.tsv" ] || fail "no hypotheses written"

rm "$tmp/requests/transcripts.tsv"
if $py "$src/tools/eval/echo_scenes.py" --speech "$data/wakeword/computer/dev" \
    --playback "$data/noise" --rir "$data/rir" --out "$tmp/bad" --scenes 1 \
    --request "$tmp/requests" > /dev/null 2> "$tmp/err.txt"; then
  fail "a request folder without transcripts was accepted"
fi
grep -qF -- "--request $tmp/requests: no transcripts.tsv" "$tmp/err.txt" || fail "error: $(cat "$tmp/err.txt")"
echo "echo_protocols_test: every check passed"
