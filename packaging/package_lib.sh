# Shared by the packaging tests (sourced after tests/cli_lib.sh): what they check of an installed
# earshot's run on the sample.
# The events in out.txt have the sample's wake word and its request's final transcript.
wakes_and_transcribes() {
  grep -q '"event": "wake".*"keyword": "computer"' out.txt &&
    grep '"final": true' out.txt | grep -c "she's going to put the ironing things away" >/dev/null
}
# No file of the checkout nor of the build tree $build in the file calls strace wrote to trace.txt.
checkout_unread() { ! grep -F -e "$src/" -e "$build/" trace.txt; }
