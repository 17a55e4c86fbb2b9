#!/usr/bin/env bash
# The bundled command classifier, models/commands/commands.eshm: three small convolutional networks over
# one second of log-mel, on kws/train's 35 words, FSDD train's digits (train_commands.py's --more),
# 6000 synthetic command words (espeak-ng, flite; cached in $EARSHOT_CACHE, default
# ~/.cache/earshot) and the wake-word recordings as classes of their own; first cross-validated by
# speaker in 5 folds against the decoder's own words on kws/train (the log's figures), then the 3
# networks of the model. It took 108 min on 2 cores (2026-11-29, other jobs beside it for about 45
# of them; 30 computing features).
# Usage: tools/recipes/commands.sh [OUT_DIR]   (writes OUT_DIR/commands.eshm, its log, vectors)
source "$(dirname "$0")/common.sh"
words='yes|no|up|down|left|right|on|off|stop|go'
"$root/tools/eval/cmd_list.sh" "$data/kws/train" "$out/cmd_train"
"$root/tools/eval/cmd_eval.sh" "$out/cmd_train/cmd.list" "$out/cmd_train/refs.tsv" \
  "$out/cmd_train" alone --set "stt.words=$words" --set stt.command_model=none
"$py" "$root/tools/train/train_commands.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --folds 5 --members 3 --ps-hyps "$out/cmd_train/alone.hyp.tsv" \
  --extra wakeword/computer/train,wakeword/snowboy,wakeword/view_glass \
  --out "$out/commands.eshm" --log "$out/commands_train.log" --vectors "$out/command_vectors.txt"
compare "$out/commands.eshm" "$root/models/commands/commands.eshm"
