#!/usr/bin/env bash
# The bundled speech embedding, models/embedding/speech_embedding.eshm: Google's speech_embedding
# (openWakeWord's embedding_model.onnx, fetched and checked by tools/train/fetch_embedding.sh)
# quantised to int8, its activations calibrated on the shared read speech and speech_l2's adults
# through the device's own front end, measured on speech_l2's children against the float graph.
# A few minutes on 2 cores.
# Usage: tools/recipes/speech_embedding.sh [OUT_DIR]   (writes OUT_DIR/speech_embedding.eshm, its
#        log speech_embedding_import.log and embedding_vectors.txt, the C++ tests' reference)
source "$(dirname "$0")/common.sh"
source_dir=$("$root/tools/train/fetch_embedding.sh")
"$py" "$root/tools/train/embedding_import.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --source "$source_dir" --out "$out/speech_embedding.eshm" --vectors "$out/embedding_vectors.txt" |
  tee "$out/speech_embedding_import.log"
compare "$out/speech_embedding.eshm" "$root/models/embedding/speech_embedding.eshm"
