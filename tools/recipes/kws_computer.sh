#!/usr/bin/env bash
# The bundled large "computer" keyword model, models/kws/computer.eshm: convolutions 5 frames x 20
# bands -> 64 channels and 5 positions x 64 -> 64, then 1088 -> 96 -> 1, int8; 12 epochs each on a
# fresh draw of 300 augmented streams of wakeword/computer/train among read speech, Speech
# Commands and other wake words, then 6 rounds of hard-negative mining. It took 93 min here (2 cores,
# beside three other trainings) with
# OpenBLAS (tools/setup.sh --training). The script also trains a small model beside it, which is
# not the bundled one (kws_computer_small.sh makes that).
# Usage: tools/recipes/kws_computer.sh [OUT_DIR]   (writes OUT_DIR/computer.eshm and its log)
source "$(dirname "$0")/common.sh"
"$py" "$root/tools/train/train_kws.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --conv 5,2,64 --conv2 5,2,64 --hidden 96 --streams 300 --epochs 12 --mine-rounds 6 \
  --mine-epochs 2 --out "$out/computer.eshm" --small-out "$out/computer_small_beside.eshm" \
  --log "$out/computer_train.log"
compare "$out/computer.eshm" "$root/models/kws/computer.eshm"
