#!/usr/bin/env bash
# `earshot transcribe --stats` over a list, its hypotheses keyed by the list's ids for the shared
# scorers; used by stt_eval.sh and cmd_eval.sh.
# Usage: tools/eval/transcribe_list.sh LIST OUT_DIR NAME [earshot transcribe options...]
#   LIST: `id<TAB>path` lines. Writes OUT_DIR/NAME.paths.tsv (FILE<TAB>text), NAME.stats.json (a
#   line per file, then the summary) and NAME.hyp.tsv (id<TAB>text).
#   EARSHOT_BIN: the binary (default build/tools/earshot).
set -euo pipefail
source "$(dirname "$0")/usage.sh"
usage_check 3 "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$1 out=$2 name=$3; shift 3
mkdir -p "$out"
cut -f2 "$list" | xargs "${EARSHOT_BIN:-$root/build/tools/earshot}" transcribe --stats "$@" \
  > "$out/$name.paths.tsv" 2> "$out/$name.stats.json"
# FILE -> the list's id, for the scorer.
awk -F'\t' 'NR == FNR { id[$2] = $1; next } { print id[$1] "\t" $2 }' "$list" "$out/$name.paths.tsv" \
  > "$out/$name.hyp.tsv"
