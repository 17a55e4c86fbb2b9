# Sourced by the evaluation and benchmark scripts: `usage_check MIN "$@"` prints the script's usage
# (its header comment from "# Usage:" on) and exits: 0 for -h or --help, 2 for fewer than MIN
# arguments, so that neither is taken for a directory to write into.
usage_check() {
  local min=$1 text
  shift
  text=$(sed -n '/^# Usage:/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0")
  if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
    echo "$text"
    exit 0
  fi
  if [ $# -lt "$min" ]; then
    echo "$text" >&2
    exit 2
  fi
}
