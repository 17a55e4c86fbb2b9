#!/usr/bin/env bash
# The bundled command classifier, models/commands/commands.eshm: a head on the speech embedding
# (models/embedding/speech_embedding.eshm) over kws/train's 35 words, FSDD train's digits
# (train_commands.py's --more), the wake-word recordings as classes of their own, read speech and
# noise; first cross-validated by speaker in 5 folds against the decoder's own words on kws/train
# (the log's figures; each fold's head and held-out clips in OUT_DIR/folds for
# tools/eval/command_reject.py), then the head of the model. About 5 minutes on 2 cores.
# Usage: tools/recipes/commands.sh [OUT_DIR]   (writes OUT_DIR/commands.eshm, its log, vectors)
source "$(dirname "$0")/common.sh"
words='yes|no|up|down|left|right|on|off|stop|go'
"$root/tools/eval/cmd_list.sh" "$data/kws/train" "$out/cmd_train"
"$root/tools/eval/cmd_eval.sh" "$out/cmd_train/cmd.list" "$out/cmd_train/refs.tsv" \
  "$out/cmd_train" alone --set "stt.words=$words" --set stt.command_model=none
"$py" "$root/tools/train/train_commands.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --folds 5 --ps-hyps "$out/cmd_train/alone.hyp.tsv" --fold-models "$out/folds" \
  --out "$out/commands.eshm" --log "$out/commands_train.log" --vectors "$out/command_vectors.txt"
compare "$out/commands.eshm" "$root/models/commands/commands.eshm"
