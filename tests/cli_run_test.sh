#!/usr/bin/env bash
# `earshot run` on what users hand it (issue 47): audio on standard input, band-limited audio, a
# long request's transcript times, a fixed governor profile without sensors.
# Usage: tests/cli_run_test.sh PATH/TO/earshot
earshot=$(realpath "$1")
source "$(dirname "$0")/cli_lib.sh"
final() { grep '"final": true' out.txt; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"; }
cp "$src/tools/samples/computer_request.flac" sample.flac

# Standard input: a WAV or AU stream from a pipe (arecord, sox -t wav -), read to its end.
sox sample.flac -t wav - | status_is 0 "$earshot" run --stages vad,kws -
check "stdin wav" test $? -eq 0
check "stdin wav wakes" grep -q '"event": "wake"' out.txt
check "stdin wav names it" grep -qF '"file": "-"' out.txt
sox sample.flac -t au - | status_is 0 "$earshot" run --stages vad,kws -
check "stdin au" test $? -eq 0
check "stdin au wakes" grep -q '"event": "wake"' out.txt
echo "not audio" | status_is 1 "$earshot" run -
check "stdin not audio" test $? -eq 0
check "stdin not audio named" grep -qF "earshot: standard input: not a readable audio file" err.txt

# A file name that is not UTF-8: the events are JSON all the same (the byte replaced).
cp sample.flac "$(printf 'bad\xffname.flac')"
check "non-UTF-8 name" status_is 0 "$earshot" run --stages vad "$(printf 'bad\xffname.flac')"
check "non-UTF-8 name: JSON lines" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]' out.txt

# Band-limited: an 8 kHz recording is warned about once, on stderr and as an error event.
sox sample.flac -r 8000 r8k.wav
check "8 kHz runs" status_is 0 "$earshot" run --stages vad,kws r8k.wav
check "8 kHz warned on stderr once" test "$(grep -c 'warning: r8k.wav: 8000 Hz audio' err.txt)" -eq 1
check "8 kHz warned as an event once" test \
  "$(grep -c '"event": "error", "t": 0, "stage": "audio", "message": "r8k.wav: 8000 Hz' out.txt)" -eq 1
check "16 kHz not warned" status_is 0 "$earshot" run --stages vad,kws sample.flac
check "16 kHz no warning" test ! -s err.txt

# A long request (the sample twice: 9.1 s, the request from about 1.4 to 8 s): its final
# transcript's times lie within the request, not past the end of the file.
sox sample.flac rep2.wav repeat 1
check "long request" status_is 0 "$earshot" run rep2.wav
start=$(final | json_field start) end=$(final | json_field end) t=$(final | json_field t)
echo "long request: final transcript start $start, end $end, at $t"
check "long request starts after the wake" python3 -c "import sys; sys.exit(not 1.0 < $start < 2.0)"
check "long request ends before the endpoint" python3 -c "import sys; sys.exit(not 7.0 < $end <= $t)"

# governor.profile fixes the models offline, without --sensors or --sysfs-root.
check "profile critical" status_is 0 "$earshot" run --set governor.profile=critical sample.flac
check "profile critical announced" grep -qF '"profile": "critical", "reason": "manual"' out.txt
check "profile critical: no STT" test "$(grep -c '"transcript"' out.txt)" -eq 0
check "profile saver" status_is 0 "$earshot" run --stages vad,kws --set governor.profile=saver \
  sample.flac
check "profile saver announced" grep -qF '"profile": "saver", "reason": "manual"' out.txt
check "profile auto: no profile event" status_is 0 "$earshot" run --stages vad,kws sample.flac
check "profile auto: none" test "$(grep -c '"profile"' out.txt)" -eq 0

finish
