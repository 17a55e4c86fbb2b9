# Shared by the CLI test scripts (sourced): a scratch directory to run in, pass/fail counting, and
# the checks they have in common.
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
passed=0; failed=0
check() {  # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}
status_is() { local want=$1; shift; "$@" >out.txt 2>err.txt; [ $? -eq "$want" ]; }
# The kinds of the events in out.txt on one line, a final transcript as "final", partial ones left
# out: "state audio speech_start ...".
event_sequence() {
  sed -e 's/.*"final": true.*/final/' -e 's/^{"event": "\([a-z_]*\)".*/\1/' out.txt |
    grep -v '^transcript$' | tr '\n' ' '
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; }
