#!/usr/bin/env bash
# Scores `earshot kws` with the shared wake-word protocol (../shared/eval/ww_score.py): miss rate
# against false accepts per hour over the background speech, DET curve as TSV and PNG.
# Usage: tools/eval/kws_eval.sh EVAL_DIR [OUT_DIR] [COND] [-- earshot kws options...]
#   EVAL_DIR: the output of `build_eval_audio.py --out EVAL_DIR --only ww`; COND: noisy (default) or clean
# Environment: KWS_BG_LIST replaces the background list (e.g. the 10 hours of kws_bg10h.py);
#   EARSHOT_BIN the earshot binary (default build/tools/earshot); KWS_NAME the curve's name;
#   KWS_KEYWORD the keyword as the model names it (default computer), KWS_PREFIX its clips' id
#   prefix in the lists (default the keyword, spaces as _, then _: view_glass_); KWS_POS_LIST
#   replaces the positive list (e.g. kws_channel.py's).
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 1 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
eval_dir=$1; shift
out=${1:-out/kws_eval}; [ $# -gt 0 ] && shift
cond=${1:-noisy}; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/ww_score.py
earshot=${EARSHOT_BIN:-$root/build/tools/earshot}
bg_list=${KWS_BG_LIST:-$eval_dir/ww/bg_$cond.list}
pos_list=${KWS_POS_LIST:-$eval_dir/ww/pos_$cond.list}
keyword=${KWS_KEYWORD:-computer}
prefix=${KWS_PREFIX:-${keyword// /_}_}
mkdir -p "$out/pos" "$out/bg"
while IFS=$'\t' read -r id path; do
  "$earshot" kws "$@" "$path" > "$out/pos/$id.tsv"
done < <(grep "^$prefix" "$pos_list")
while IFS=$'\t' read -r id path; do
  "$earshot" kws "$@" "$path" > "$out/bg/$id.tsv"
done < "$bg_list"
/usr/bin/python3 "$scorer" --keyword "$keyword" --pos-prefix "$prefix" \
  --pos-list "$pos_list" --bg-list "$bg_list" \
  --pos-scores "$out/pos" --bg-scores "$out/bg" --name "${KWS_NAME:-earshot}" --plot \
  --out-prefix "$out/${prefix}$cond"
