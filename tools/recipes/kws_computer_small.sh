#!/usr/bin/env bash
# The bundled small "computer" keyword model, models/kws/computer_small.eshm: the large one's shape
# at 40 channels and 40 hidden units (39k weights), trained from scratch. An earlier large model
# (one convolution of 56 channels, the repository's models/kws/computer.eshm at commit 45af586;
# docs/research/kws.md tells its story) mines six rounds of hard negatives to start from; then 12
# epochs on fresh streams and 4 rounds of mining the small model's own false accepts. It took 46 min.
# Needs the repository's history (not a shallow clone) for that large model.
# Usage: tools/recipes/kws_computer_small.sh [OUT_DIR]   (writes OUT_DIR/computer_small.eshm, log)
source "$(dirname "$0")/common.sh"
git -C "$root" show 45af586:models/kws/computer.eshm > "$out/mining_large.eshm" || {
  echo "kws_computer_small.sh: needs models/kws/computer.eshm of commit 45af586 (a shallow clone" \
    "lacks it: git fetch --unshallow)" >&2
  exit 1
}
"$py" "$root/tools/train/train_kws.py" --data "$data" --earshot "$root/build/tools/earshot" \
  --large-from "$out/mining_large.eshm" --small-channels 40 --small-conv2 5,2,40 \
  --small-hidden 40 --small-fresh --small-mine-rounds 4 \
  --small-out "$out/computer_small.eshm" --log "$out/computer_small_train.log"
compare "$out/computer_small.eshm" "$root/models/kws/computer_small.eshm"
