# Sourced by the benchmark scripts after tools/eval/usage.sh. EARSHOT_BENCH_SECONDS=N (whole
# seconds, at least 3) makes a run a smoke run (tests/bench_scripts_test.sh): each case's audio cut
# to N seconds or less, and a script whose data or tools are missing skips, saying so on stderr,
# with exit 0. Unset: the full measurement, where anything missing is an error (exit 1).
bench_name=$(basename "$0" .sh)
bench_seconds=${EARSHOT_BENCH_SECONDS:-}
if [ -n "$bench_seconds" ] &&
    { [[ ! $bench_seconds =~ ^[1-9][0-9]*$ ]] || [ "$bench_seconds" -lt 3 ]; }; then
  echo "$bench_name: EARSHOT_BENCH_SECONDS is whole seconds, at least 3, not '$bench_seconds'" >&2
  exit 2
fi

# bench_missing WHAT: skip the script (a smoke run) or fail, naming WHAT.
bench_missing() {
  if [ -n "$bench_seconds" ]; then
    echo "$bench_name: skipped: $1" >&2
    exit 0
  fi
  echo "$bench_name: $1" >&2
  exit 1
}

# bench_need THING...: each a program on the PATH (a bare name) or a file or folder (a path).
bench_need() {
  local thing
  for thing; do
    if [[ $thing == */* ]]; then
      [ -e "$thing" ] || bench_missing "no $thing"
    else
      command -v "$thing" >/dev/null || bench_missing "$thing not installed"
    fi
  done
}

# bench_logged LOG COMMAND...: COMMAND's output in LOG, shown on stderr where COMMAND fails.
bench_logged() {
  local log=$1 rc=0
  shift
  "$@" >"$log" 2>&1 || rc=$?
  [ $rc = 0 ] || { echo "$bench_name: $* failed ($rc):" >&2; tail -20 "$log" >&2; }
  return $rc
}

# bench_peers DIR: whether the peers in DIR run. They do not under EARSHOT_NO_PEERS=1, nor where
# DIR has no node_modules or node is not installed (said on stderr): their columns are left empty.
bench_peers() {
  [ "${EARSHOT_NO_PEERS:-0}" != 1 ] || return 1
  if [ ! -d "$1/node_modules" ]; then
    echo "$bench_name: peers skipped: $1 has no node_modules (npm ci there)" >&2
    return 1
  fi
  if ! command -v node >/dev/null; then
    echo "$bench_name: peers skipped: node not installed" >&2
    return 1
  fi
}
