#!/usr/bin/env bash
# Keyword models on the shared wake-word protocol and on the device channel (robust to the device's
# own microphone): each keyword's clips at 10 dB SNR against the 10.2 h background
# (kws_bg10h.py); then clips and background low-passed at 3.4 kHz; then both with 50 Hz hum at
# -40 dBFS (kws_channel.py). All the models run together, as the device runs them (one pass of
# `earshot kws` with every --model). Prints a row per keyword and condition: the miss rate at 0
# false accepts and at <= 1 FA/h (DET curves as OUT_DIR/COND/NAME.det.tsv and .png), and the miss
# rate and FA/h at the model's default sensitivity (its kws_default_threshold; with `-- --verified`,
# the scores of `earshot kws --verified` and a second stage's kws_verify threshold).
# Usage: tools/eval/wakeword_eval.sh EVAL_DIR BG10H_DIR OUT_DIR PREFIX=MODEL... [-- earshot kws options]
#   PREFIX: the keyword's clip ids in the lists (computer_, snowboy_, view_glass_)
# Environment: KWS_CHANNEL_DIR keeps the channel audio between runs (default OUT_DIR/channel);
#   KWS_CONDITIONS the conditions (default "full lowpass hum"); EARSHOT_BIN the earshot binary.
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 4 "$@"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
eval_dir=$1 bg_dir=$2 out=$3; shift 3
prefixes=() models=() options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; options=("$@"); break ;;
    *=*) prefixes+=("${1%%=*}"); models+=("${1#*=}"); shift ;;
    *) echo "wakeword_eval.sh: expected PREFIX=MODEL, got '$1'" >&2; exit 2 ;;
  esac
done
[ ${#models[@]} -gt 0 ] || { echo "wakeword_eval.sh: no PREFIX=MODEL given" >&2; exit 2; }
earshot=${EARSHOT_BIN:-$root/build/tools/earshot}
scorer=${EARSHOT_EVAL_DIR:-$root/../shared/eval}/ww_score.py
channel=${KWS_CHANNEL_DIR:-$out/channel}
mkdir -p "$out" "$channel"
model_args=()
for m in "${models[@]}"; do model_args+=(--model "$m"); done
verified=
for o in "${options[@]}"; do if [ "$o" = --verified ]; then verified=1; fi; done
# The keywords' names, as earshot prints them (kws.names, the phrase, or the file's name).
"$earshot" kws "${model_args[@]}" "${options[@]}" "$root/tools/samples/computer_request.flac" \
  > "$out/names.tsv"
mapfile -t names < <(head -n ${#models[@]} "$out/names.tsv" | cut -f2)
pattern=$(printf '^%s\\|' "${prefixes[@]}"); pattern=${pattern%\\|}
grep "$pattern" "$eval_dir/ww/pos_noisy.list" > "$out/pos_full.list"
cp "$bg_dir/bg10h.list" "$out/bg_full.list"
printf 'keyword\tcondition\tmiss_0fa\tmiss_1fa_h\tmiss_default\tfa_h_default\tthreshold\n'
for cond in ${KWS_CONDITIONS:-full lowpass hum}; do
  if [ "$cond" != full ]; then
    "$here/kws_channel.py" "$cond" "$out/pos_full.list" "$channel/$cond" > "$out/pos_$cond.list"
    "$here/kws_channel.py" "$cond" "$out/bg_full.list" "$channel/$cond" > "$out/bg_$cond.list"
  fi
  # One pass of every model over the audio; each keyword's lines to its own directory.
  for name in "${names[@]}"; do mkdir -p "$out/$cond/scores/${name// /_}"; done
  cat "$out/pos_$cond.list" "$out/bg_$cond.list" | while IFS=$'\t' read -r id path; do
    "$earshot" kws "${model_args[@]}" "${options[@]}" "$path" |
      awk -F'\t' -v dir="$out/$cond/scores" -v id="$id" \
        '{ k = $2; gsub(/ /, "_", k); print > (dir "/" k "/" id ".tsv") }'
  done
  for i in "${!models[@]}"; do  # the scorers, two at a time
    prefix=${prefixes[$i]} name=${names[$i]}
    /usr/bin/python3 "$scorer" --keyword "$name" --pos-prefix "$prefix" \
      --pos-list "$out/pos_$cond.list" --bg-list "$out/bg_$cond.list" \
      --pos-scores "$out/$cond/scores/${name// /_}" --bg-scores "$out/$cond/scores/${name// /_}" \
      --name "$name ($cond)" --plot --out-prefix "$out/$cond/${name// /_}" \
      > "$out/$cond/${name// /_}.score.txt" &
    [ $((i % 2)) -eq 1 ] && wait
  done
  wait
  for i in "${!models[@]}"; do
    name=${names[$i]// /_}
    row=$(tail -1 "$out/$cond/$name.score.txt")
    printf '%s\t%s\t%s\t%s\t%s\n' "${names[$i]}" "$cond" "$(cut -f6 <<< "$row")" "$(cut -f8 <<< "$row")" \
      "$("$here/kws_at_threshold.py" "$out/$cond/$name.det.tsv" "${models[$i]}" ${verified:+--verified})"
  done
done
