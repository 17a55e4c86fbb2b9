#!/usr/bin/env bash
# The bundled wake words from text, models/kws/snowboy.eshm and models/kws/view_glass.eshm: each
# trained from its phrase alone by train_wakeword.py with its defaults (synthetic positives, real
# negatives, a head on the shared trunk models/kws/trunk.eshm, the second stage, its run weight
# and its narrowband penalty calibrated on real negatives; docs/wakeword.md). No recording of
# either phrase is read. It made the bundled two, byte for byte (2026-11-29: 21 and 12 min of wall
# time, niced beside test runs), before the trainer chose the run weight; the two were then given
# theirs by tools/train/wakeword_run.py and their penalties again by wakeword_narrowband.py
# (2026-11-30), the steps the trainer now takes in that order.
# Usage: tools/recipes/kws_from_text.sh [OUT_DIR]   (writes OUT_DIR/snowboy.eshm, view_glass.eshm,
#   their cards and logs)
source "$(dirname "$0")/common.sh"
for phrase in "snowboy" "view glass"; do
  file=${phrase// /_}
  "$py" "$root/tools/train/train_wakeword.py" "$phrase" --data "$data" \
    --earshot "$root/build/tools/earshot" --out "$out/$file.eshm"
  compare "$out/$file.eshm" "$root/models/kws/$file.eshm"
done
