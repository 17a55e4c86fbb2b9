#!/usr/bin/env bash
# Assembles tools/samples/three_keywords.flac, the recording of the three-keyword golden
# (tests/cli_test.sh): the bundled sample ("computer", then a request; see make_sample.sh and
# NOTICE), then "snowboy, what time is it" and "view glass, play some music" said by espeak-ng (its
# output is not covered by its GPL-3.0), each request followed by 1.5 s of silence so that it ends
# before the next keyword. A functional check that each keyword wakes under its own name, not a
# measure of accuracy (docs/wakeword.md measures that on people's recordings).
# Usage: tools/samples/make_three_keywords.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
say() {  # TEXT OUT PAD_AFTER_S
  espeak-ng -v en-us -s 150 -w "$tmp/raw.wav" "$1"
  sox "$tmp/raw.wav" -r 16000 -b 16 -c 1 "$2" norm -6 pad 0 "$3"
}
sox "$here/computer_request.flac" "$tmp/1.wav" pad 0 1
say snowboy "$tmp/2.wav" 0.3
say "what time is it" "$tmp/3.wav" 1.5
say "view glass" "$tmp/4.wav" 0.3
say "play some music" "$tmp/5.wav" 1.5
sox "$tmp"/[1-5].wav "$here/three_keywords.flac"
soxi -D "$here/three_keywords.flac"
