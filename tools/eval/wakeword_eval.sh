#!/usr/bin/env bash
# A keyword model on the shared wake-word protocol and on the device channel (the issue's "robust
# to the device's own microphone"): its clips at 10 dB SNR against the 10.2 h background
# (kws_bg10h.py), then both low-passed at 3.4 kHz, then both with 50 Hz hum at -40 dBFS
# (kws_channel.py). Prints, per condition, the miss rate at 0 false accepts and at <= 1 FA/h (the
# DET curve's TSV and PNG under OUT_DIR), and the miss rate and FA/h at the model's default
# sensitivity.
# Usage: tools/eval/wakeword_eval.sh EVAL_DIR BG10H_DIR OUT_DIR CLIP_PREFIX MODEL [earshot kws options...]
#   CLIP_PREFIX: the keyword's clip ids in the lists (computer_, snowboy_, view_glass_);
#   the model's keyword name is the one `earshot kws` prints for it.
# Environment: KWS_CHANNEL_DIR keeps the channel audio between runs (default OUT_DIR/channel).
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 5 "$@"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
eval_dir=$1 bg_dir=$2 out=$3 prefix=$4 model=$5; shift 5
earshot=${EARSHOT_BIN:-$root/build/tools/earshot}
channel=${KWS_CHANNEL_DIR:-$out/channel}
mkdir -p "$out" "$channel"
pos=$eval_dir/ww/pos_noisy.list bg=$bg_dir/bg10h.list
for mode in lowpass hum; do
  [ -s "$channel/pos_$mode.list" ] ||
    "$here/kws_channel.py" "$mode" "$pos" "$channel/$mode" > "$channel/pos_$mode.list"
  [ -s "$channel/bg_$mode.list" ] ||
    "$here/kws_channel.py" "$mode" "$bg" "$channel/$mode" > "$channel/bg_$mode.list"
done
"$earshot" kws --model "$model" "$@" "$root/tools/samples/computer_request.flac" > "$out/name.tsv"
keyword=$(head -1 "$out/name.tsv" | cut -f2)
printf 'condition\tmiss_0fa\tmiss_1fa_h\tmiss_default\tfa_h_default\tthreshold\n'
for cond in full lowpass hum; do
  if [ "$cond" = full ]; then p=$pos b=$bg; else p=$channel/pos_$cond.list b=$channel/bg_$cond.list; fi
  KWS_POS_LIST=$p KWS_BG_LIST=$b KWS_KEYWORD=$keyword KWS_PREFIX=$prefix KWS_NAME="$keyword $cond" \
    "$here/kws_eval.sh" "$eval_dir" "$out/$cond" noisy -- --model "$model" "$@" > "$out/$cond.score.txt"
  det=$out/$cond/${prefix}noisy.det.tsv
  m0=$(tail -1 "$out/$cond.score.txt" | cut -f6) m1=$(tail -1 "$out/$cond.score.txt" | cut -f8)
  printf '%s\t%s\t%s\t%s\n' "$cond" "$m0" "$m1" "$("$here/kws_at_threshold.py" "$det" "$model")"
done
