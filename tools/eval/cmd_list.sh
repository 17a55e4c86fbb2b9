#!/usr/bin/env bash
# Lists the clips of the ten command words in one split of the shared Speech Commands clips, in the
# layout of build_eval_audio.py's cmd/ (which takes kws/dev): tuning uses kws/train, so the protocol's
# kws/dev clips stay unseen.
# Usage: tools/eval/cmd_list.sh KWS_SPLIT_DIR OUT_DIR   (e.g. ../shared/data/kws/train out/cmd_train)
#   writes OUT_DIR/cmd.list (`id<TAB>path`) and OUT_DIR/refs.tsv (`id<TAB>word`)
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 2 "$@"
split=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
printf 'id\ttext\n' > "$out/refs.tsv"
: > "$out/cmd.list"
for w in yes no up down left right on off stop go; do
  [ -d "$split/$w" ] || continue
  for f in $(cd "$split/$w" && ls -- *.flac | LC_ALL=C sort); do
    printf '%s_%s\t%s\n' "$w" "${f%.flac}" "$split/$w/$f" >> "$out/cmd.list"
    printf '%s_%s\t%s\n' "$w" "${f%.flac}" "$w" >> "$out/refs.tsv"
  done
done
