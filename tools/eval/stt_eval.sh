#!/usr/bin/env bash
# WER and real-time factor of `earshot transcribe` on a list of files, with the shared scorer.
# Usage: tools/eval/stt_eval.sh LIST REF.tsv OUT_DIR NAME [earshot transcribe options...]
#   LIST: `id<TAB>path` lines (build_eval_audio.py's stt/stt.list); REF.tsv: `id<TAB>text`.
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 4 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$1 ref=$2 out=$3 name=$4; shift 4
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/stt_score.py
"$root/tools/eval/transcribe_list.sh" "$list" "$out" "$name" "$@"
summary=$(tail -1 "$out/$name.stats.json")  # after a line per file
audio=$(sed -E 's/.*"audio_s": ([0-9.]+).*/\1/' <<< "$summary")
proc=$(sed -E 's/.*"proc_s": ([0-9.]+).*/\1/' <<< "$summary")
/usr/bin/python3 "$scorer" --ref "$ref" --hyp "$out/$name.hyp.tsv" --audio-s "$audio" --proc-s "$proc" \
  --name "$name" --summary-tsv "$out/summary.tsv" | tail -1
echo "$summary"
