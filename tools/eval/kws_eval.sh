#!/usr/bin/env bash
# Scores `earshot kws` with the shared wake-word protocol (../shared/eval/ww_score.py): miss rate
# against false accepts per hour over the background speech, DET curve as TSV and PNG.
# Usage: tools/eval/kws_eval.sh EVAL_DIR [OUT_DIR] [COND] [-- earshot kws options...]
#   EVAL_DIR: the output of `build_eval_audio.py --out EVAL_DIR --only ww`; COND: noisy (default) or clean
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
eval_dir=$1; shift
out=${1:-out/kws_eval}; [ $# -gt 0 ] && shift
cond=${1:-noisy}; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/ww_score.py
earshot=$root/build/tools/earshot
for kind in pos bg; do
  mkdir -p "$out/$kind"
  while IFS=$'\t' read -r id path; do
    "$earshot" kws "$@" "$path" > "$out/$kind/$id.tsv"
  done < "$eval_dir/ww/${kind}_$cond.list"
done
/usr/bin/python3 "$scorer" --keyword computer --pos-prefix computer_ \
  --pos-list "$eval_dir/ww/pos_$cond.list" --bg-list "$eval_dir/ww/bg_$cond.list" \
  --pos-scores "$out/pos" --bg-scores "$out/bg" --name earshot --plot --out-prefix "$out/computer_$cond"
