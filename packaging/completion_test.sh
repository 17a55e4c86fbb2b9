#!/usr/bin/env bash
# The bash completions (packaging/gen_completion.py), sourced and asked as bash asks them: the
# commands of earshot, then for each command and each program every option its --help names.
# Usage: packaging/completion_test.sh COMPLETIONS_DIR EARSHOT EARSHOTD EARSHOT_WYOMING
dir=$(realpath "$1"); earshot=$(realpath "$2"); earshotd=$(realpath "$3"); wyoming=$(realpath "$4")
source "$(dirname "$0")/../tests/cli_lib.sh"
# complete FILE FUNCTION WORD...: the completions of the last word, sorted, on one line.
complete_words() {
  local file=$1 function=$2; shift 2
  bash -c 'source "$1"; shift; f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$f"
           printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$function" "$@" | sort | tr '\n' ' '
}
# The options a --help text names: its usage lines' and its option lines', and --help.
help_options() {
  { sed '/^$/q' help.txt | grep -oE -- '--[a-z][a-z-]*'
    grep -oE -- '^ {2,}--[a-z][a-z-]*' help.txt | tr -d ' '; echo --help; } | sort -u | tr '\n' ' '
}
for program in earshot earshotd earshot-wyoming; do
  check "$program: bash reads it" bash -n "$dir/$program"
done
"$earshot" --help >help.txt
commands=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' help.txt | sort | tr '\n' ' ')
check "earshot: its commands" test "$(complete_words "$dir/earshot" _earshot earshot '' | tr ' ' '\n' |
  grep -v '^--' | sort | tr '\n' ' ' | sed 's/^ //')" = "$commands"
for command in $commands; do
  "$earshot" "$command" --help >help.txt
  check "earshot $command: every option" test \
    "$(complete_words "$dir/earshot" _earshot earshot "$command" --)" = "$(help_options)"
done
"$earshotd" --help >help.txt
check "earshotd: every option" test "$(complete_words "$dir/earshotd" _earshotd earshotd --)" = "$(help_options)"
"$wyoming" --help >help.txt
check "earshot-wyoming: every option" test \
  "$(complete_words "$dir/earshot-wyoming" _earshot_wyoming earshot-wyoming --)" = "$(help_options)"
check "a file name completes as one" test "$(complete_words "$dir/earshotd" _earshotd earshotd help.t)" = "help.txt "
finish
