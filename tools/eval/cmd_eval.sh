#!/usr/bin/env bash
# Command-word accuracy of `earshot transcribe` with the shared scorer (../shared/eval/cmd_score.py).
# Usage: tools/eval/cmd_eval.sh LIST REFS.tsv OUT_DIR NAME [earshot transcribe options...]
#   LIST: `id<TAB>path` (build_eval_audio.py's cmd/cmd.list, or cmd_list.sh's); REFS.tsv: `id<TAB>word`.
#   Without options the ten Speech Commands words are decoded with stt.words.
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 4 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$1 ref=$2 out=$3 name=$4; shift 4
[ $# -gt 0 ] || set -- --set 'stt.words=yes|no|up|down|left|right|on|off|stop|go'
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/cmd_score.py
"$root/tools/eval/transcribe_list.sh" "$list" "$out" "$name" "$@"
/usr/bin/python3 "$scorer" --ref "$ref" --hyp "$out/$name.hyp.tsv" --name "$name" \
  --per-clip "$out/$name.clips.tsv" --summary-tsv "$out/summary.tsv" | tail -1
