#!/usr/bin/env bash
# Scores `earshot vad` with the shared VAD protocol (../shared/eval): ROC-AUC and F1 per condition.
# Usage: tools/eval/vad_eval.sh EVAL_DIR [OUT_DIR] [-- earshot vad options...]
#   EVAL_DIR: the output of `build_eval_audio.py --out EVAL_DIR --only vad` (its vad/ folder is read)
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 1 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
eval_dir=$1; shift
out=${1:-out/vad_eval}; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/vad_score.py
earshot=$root/build/tools/earshot
mkdir -p "$out"
: > "$out/summary.tsv"
for cond in clean 20 10 5 0; do
  mkdir -p "$out/$cond"
  start=$(date +%s.%N)
  while IFS=$'\t' read -r id path; do
    "$earshot" vad "$@" "$path" > "$out/$cond/$id.tsv"
  done < "$eval_dir/vad/vad_$cond.list"
  end=$(date +%s.%N)
  /usr/bin/python3 "$scorer" --labels "$eval_dir/vad/labels.tsv" --frames "$out/$cond" \
    --cond "$cond" --name earshot --summary-tsv "$out/summary.tsv" | tail -1
  echo "  ($cond: $(echo "$end - $start" | bc) s wall for the set, process start-up included)"
done
