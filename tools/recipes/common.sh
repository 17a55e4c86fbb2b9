# Shared by the recipes (sourced): the repository root, the output folder (argument 1, default
# out/recipes), the data and the earshot binary the training scripts read.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(realpath -m "${1:-$root/out/recipes}")
data=${EARSHOT_DATA_DIR:-$root/../shared/data}
py=/usr/bin/python3
mkdir -p "$out"
[ -x "$root/build/tools/earshot" ] || { echo "build first: tools/setup.sh --training" >&2; exit 1; }
[ -d "$data" ] || { echo "no shared data at $data (set EARSHOT_DATA_DIR)" >&2; exit 1; }
# Tells whether the model made is the bundled one, byte for byte.
compare() {
  if cmp -s "$1" "$2"; then echo "$1: the same bytes as $2"
  else echo "$1: differs from $2 (another BLAS or library version rounds differently)"; fi
}
