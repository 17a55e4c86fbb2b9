#!/usr/bin/env bash
# The bundled VAD, models/vad/vad.eshm: an int8 MLP (287 -> 32 -> 16 -> 1) on 2880 speech and
# 360 noise streams built from the shared speech and noise (22 h), 12 epochs. It took 14 min and
# 15 GB of memory on 2 cores. It was trained on Debian's reference BLAS: for the same bytes, select
# it first (update-alternatives --config libblas.so.3-x86_64-linux-gnu, and liblapack.so.3-...).
# Usage: tools/recipes/vad.sh [OUT_DIR]   (writes OUT_DIR/vad.eshm, vad_train.log, vad_vectors.txt)
source "$(dirname "$0")/common.sh"
"$py" "$root/tools/train/train_vad.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --streams 2880 --hidden 32,16 --epochs 12 \
  --out "$out/vad.eshm" --log "$out/vad_train.log" --vectors "$out/vad_vectors.txt"
compare "$out/vad.eshm" "$root/models/vad/vad.eshm"
