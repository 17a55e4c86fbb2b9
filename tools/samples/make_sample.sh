#!/usr/bin/env bash
# Assembles the bundled sample tools/samples/computer_request.flac from ../shared/data:
# the wake word "computer" (Picovoice wake-word-benchmark, Apache-2.0), 0.3 s of silence, then the
# request "she's going to put the ironing things away" (LibriSpeech test-clean 2094-142345-0026,
# CC BY 4.0; from speech/, not the speech-to-text evaluation set stt/). See NOTICE.
# Usage: tools/samples/make_sample.sh [DATA_DIR]   (default ../shared/data beside the project)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${1:-$here/../../../shared/data}
keyword=$data/wakeword/computer/train/0386da81-9db7-499c-b4f8-910beec53c23.flac
request=$data/speech/2094-142345-0026.flac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Trim the keyword clip's long leading and trailing silence, keep 0.25 s around the word.
sox "$keyword" "$tmp/kw.wav" silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse pad 0.25 0.3
sox "$tmp/kw.wav" "$request" -r 16000 -b 16 -c 1 "$here/computer_request.flac" pad 0 0.5
soxi -D "$here/computer_request.flac"
