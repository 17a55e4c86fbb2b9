#!/usr/bin/env bash
# The manual pages (packaging/gen_manpages.py) against the programs: each renders without a groff
# or man warning (as lintian renders them), names every option its program's --help lists, and
# earshot.toml(5) every option of --print-config with its default.
# Usage: packaging/manpages_test.sh MAN_DIR EARSHOT EARSHOTD EARSHOT_WYOMING
man_dir=$(realpath "$1"); earshot=$(realpath "$2"); earshotd=$(realpath "$3"); wyoming=$(realpath "$4")
source "$(dirname "$0")/../tests/cli_lib.sh"
# render PAGE: page.txt, the text (lines wide enough that no word is hyphenated); fails on a
# warning of groff or man (lintian's way: man --warnings -Z).
render() {
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$1" 2>warnings.txt >/dev/null
  LC_ALL=C.UTF-8 MANWIDTH=1000 man -E UTF-8 -l "$1" 2>/dev/null | LC_ALL=C.UTF-8 col -b >page.txt
  cat warnings.txt; [ ! -s warnings.txt ] && [ -s page.txt ]
}
# Every --option of the help text in page.txt.
options_named() {
  local missing=0
  for option in $(grep -oE -- '--[a-z][a-z-]*' help.txt | sort -u); do
    grep -qF -- "$option" page.txt || { echo "missing $option"; missing=1; }
  done
  return $missing
}

for page in earshot.1 earshotd.8 earshot-wyoming.1 earshot.toml.5; do
  check "$page renders without warnings" render "$man_dir/$page.gz"
done
render "$man_dir/earshot.1.gz"
"$earshot" --help >help.txt
for command in $(sed -n 's/^  \([a-z]*\)  .*/\1/p' help.txt); do "$earshot" "$command" --help >>help.txt; done
check "earshot(1) names every option of every command" options_named
check "earshot(1) has every command's section" test "$(grep -c '^   earshot [a-z]*$' page.txt)" -eq \
  "$("$earshot" --help | grep -c '^  [a-z]*  ')"
render "$man_dir/earshotd.8.gz"; "$earshotd" --help >help.txt
check "earshotd(8) names every option" options_named
render "$man_dir/earshot-wyoming.1.gz"; "$wyoming" --help >help.txt
check "earshot-wyoming(1) names every option" options_named
render "$man_dir/earshot.toml.5.gz"
"$earshot" run --print-config >config.txt
every_key_with_default() {
  local missing=0
  while IFS= read -r line; do
    grep -qF -- "$line" page.txt || { echo "missing: $line"; missing=1; }
  done < <(grep -E '^[a-z_]+ = ' config.txt)
  return $missing
}
check "earshot.toml(5) has every option with its default" every_key_with_default
check "earshot.toml(5) has every section" test "$(grep -c '^   \[[a-z]*\]$' page.txt)" -eq "$(grep -c '^\[' config.txt)"
finish
