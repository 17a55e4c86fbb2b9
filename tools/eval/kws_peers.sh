#!/usr/bin/env bash
# The wake-word peers on the shared protocol's audio: pocketsphinx keyphrase spotting ("computer",
# one run per -kws_threshold) scored like earshot, and openWakeWord's cost per hour of audio (it has
# no "computer" model, so only its cost compares). Needs ../shared/peers installed (npm ci).
# Usage: tools/eval/kws_peers.sh EVAL_DIR PEERS_DIR [OUT_DIR] [COND]
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 2 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
eval_dir=$1 peers=$2 out=${3:-out/kws_peers} cond=${4:-noisy}
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}
mkdir -p "$out"
out=$(cd "$out" && pwd)
grep '^computer_' "$eval_dir/ww/pos_$cond.list" > "$out/pos.list"
cat "$out/pos.list" "$eval_dir/ww/bg_$cond.list" > "$out/all.list"
args=()
for th in 1e-40 1e-30 1e-20 1e-10; do
  (cd "$peers" && ./kws_pocketsphinx.sh -k computer -t "$th" -l "$out/all.list" -o "$out/ps_$th" > /dev/null)
  args+=("$th" "$out/ps_$th/detections.tsv")
done
/usr/bin/python3 "$scorer/adapt_peers.py" ps_kws "${args[@]}" > "$out/ps_events.tsv"
/usr/bin/python3 "$scorer/ww_score.py" --keyword computer --pos-prefix computer_ \
  --pos-list "$eval_dir/ww/pos_$cond.list" --bg-list "$eval_dir/ww/bg_$cond.list" \
  --pos-events "$out/ps_events.tsv" --bg-events "$out/ps_events.tsv" --name pocketsphinx \
  --out-prefix "$out/pocketsphinx_$cond"
(cd "$peers" && node kws_openwakeword.mjs --models hey_jarvis --out-dir "$out/oww" \
  $(cut -f2 "$eval_dir/ww/bg_$cond.list") > /dev/null)
cat "$out/oww/timing.json"
