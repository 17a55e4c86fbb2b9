#!/usr/bin/env bash
# CLI tests of `earshotd` that need no bus: usage and runtime errors, the shipped config, a whole
# recording through --bus none, and the unit file's sandboxing score.
# Usage: tests/daemon_cli_test.sh PATH/TO/earshotd
earshotd=$(realpath "$1")
source "$(dirname "$0")/cli_lib.sh"
last_error_names() { grep -qF -- "$1" err.txt; }

check "help" status_is 0 "$earshotd" --help
check "help names the options" grep -q -- "--sysfs-root DIR" out.txt
check "version" status_is 0 "$earshotd" --version
check "version printed" grep -qE '^earshotd [0-9]+\.[0-9]+\.[0-9]+$' out.txt
check "unknown option" status_is 2 "$earshotd" --bogus
check "unknown option named" last_error_names "--bogus"
check "option without value" status_is 2 "$earshotd" --input
check "option without value named" last_error_names "earshotd: --input needs a value"
check "unknown option with a value" status_is 2 "$earshotd" --bogus=1
check "unknown option: the wording of every program" \
  grep -qxF -- "earshotd: unknown option --bogus=1 (see earshotd --help)" err.txt
check "positional refused" status_is 2 "$earshotd" extra
check "--set of an unknown option" status_is 2 "$earshotd" --set kws.nope=1
check "--set of an unknown option named" last_error_names "kws.nope"
check "--set out of range" status_is 2 "$earshotd" --set kws.sensitivities=1.5
check "--set applies" status_is 0 "$earshotd" --print-config --set kws.sensitivities=0.6 \
  --set=daemon.queue_ms=800
check "--set shown by --print-config" grep -qxF "sensitivities = [0.6]" out.txt
check "--set shown by --print-config (=)" grep -qxF "queue_ms = 800" out.txt
check "bad --bus" status_is 2 "$earshotd" --bus tcp
check "bad --bus named" last_error_names "--bus tcp: expected system, session or none"
check "bad --input" status_is 2 "$earshotd" --input mic0
check "bad --input named" last_error_names "--input mic0: expected alsa:DEVICE or wav:PATH"
check "--print-config" status_is 0 "$earshotd" --print-config
check "--print-config is the shipped default" cmp -s out.txt "$src/config/earshot.toml"
check "--print-config with --input and --sysfs-root" status_is 0 "$earshotd" --print-config \
  --input wav:request.flac --sysfs-root "$tmp"
check "--print-config shows --input" grep -qxF "input = 'wav:request.flac'" out.txt
check "--print-config shows --sysfs-root" grep -qxF "sysfs_root = '$tmp'" out.txt
printf '[daemon]\nqueue_ms = 5\n' >bad.toml
check "config out of range" status_is 1 "$earshotd" --config bad.toml --bus none
check "config error names file, key and range" last_error_names "bad.toml: option daemon.queue_ms = 5 is out of range: expected [100, 60000] ms"
check "missing config" status_is 1 "$earshotd" --config missing.toml --bus none
check "missing config named" last_error_names "missing.toml"
check "missing recording" status_is 1 "$earshotd" --input wav:missing.wav --bus none
check "missing recording named" last_error_names "missing.wav"
echo "not audio" >text.wav
check "not audio" status_is 1 "$earshotd" --input wav:text.wav --bus none
check "not audio named" last_error_names "text.wav"
check "missing ALSA device" status_is 1 "$earshotd" --input alsa:no_such_pcm --bus none
check "missing ALSA device named" last_error_names "ALSA device no_such_pcm: cannot open for capture"
check "bad --sysfs-root" status_is 1 "$earshotd" --sysfs-root "$tmp/none" --bus none
check "bad --sysfs-root named" last_error_names "--sysfs-root $tmp/none: not a directory"
check "bad --events" status_is 1 "$earshotd" --events "$tmp/none/events.jsonl" --bus none
check "bad --events named" last_error_names "--events $tmp/none/events.jsonl"
printf '[kws]\nmodels = ["%s/none.eshm"]\n' "$tmp" >nomodel.toml
check "missing model" status_is 1 "$earshotd" --config nomodel.toml --input wav:text.wav --bus none
check "missing model named" last_error_names "none.eshm"

# A whole recording as fast as the pipeline takes it: the same events as `earshot run`.
printf '[daemon]\nrealtime = false\n' >fast.toml
check "wav as fast as possible" status_is 0 "$earshotd" --config fast.toml --bus none --events - \
  --input "wav:$src/tools/samples/computer_request.flac"
event_sequence >sequence.txt
check "wav sequence" test "$(cat sequence.txt)" = \
  "profile speech_start state wake state final speech_end state "
check "wake word logged" grep -q "wake word computer (score" err.txt
check "request logged" grep -q "request .* s: transcribed, confidence" err.txt
check "what was said not logged" test "$(grep -c ironing err.txt)" -eq 0
# --events on a FIFO with no reader: start-up does not wait for one, the events go to the pipe
# while it has room, and the recording is served to its end (before, it never started).
mkfifo events.fifo
check "--events FIFO without a reader" status_is 0 timeout 120 "$earshotd" --config fast.toml \
  --bus none --events events.fifo --input "wav:$src/tools/samples/computer_request.flac"
check "--events FIFO: the request logged" grep -q "request .* s: transcribed" err.txt
# wav:- : a recording on standard input, read by a thread as it comes (it was "-: cannot open").
sox "$src/tools/samples/computer_request.flac" -t wav - | status_is 0 "$earshotd" --config fast.toml \
  --bus none --events - --input wav:-
check "wav:- from a pipe" test $? -eq 0
event_sequence >sequence.txt
check "wav:- sequence" test "$(cat sequence.txt)" = \
  "profile speech_start state wake state final speech_end state "
echo "not audio" | status_is 1 "$earshotd" --bus none --input wav:-
check "wav:- not audio" test $? -eq 0
check "wav:- not audio named" last_error_names "standard input: not a readable audio file"
# A pipe whose writer writes nothing yet: the daemon is ready all the same and stops on SIGTERM.
mkfifo quiet.fifo
exec 3<>quiet.fifo
"$earshotd" --bus none --input wav:- <quiet.fifo 2>quiet.txt &
pid=$!
for _ in $(seq 1 600); do grep -q "ready:" quiet.txt && break; sleep 0.1; done
check "wav:- silent pipe: ready" grep -q "ready: input wav:- (standard input)" quiet.txt
kill -TERM $pid
for _ in $(seq 1 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
check "wav:- silent pipe: SIGTERM ends it" bash -c "! kill -0 $pid 2>/dev/null"
wait $pid
check "wav:- silent pipe: exit 0" test $? -eq 0
exec 3>&-
# Cut short, the recording fails to decode part way: what came before is served, exit status 1.
head -c 30000 "$src/tools/samples/computer_request.flac" >cut.flac
check "wav cut short" status_is 1 "$earshotd" --config fast.toml --bus none --events - --input wav:cut.flac
check "wav cut short named" grep -q "cut.flac: decoding failed" err.txt

# The governor reads sysfs: a battery at 15% discharging and a hot zone choose saver; garbage in
# the thermal zone is reported once as an error event and the daemon goes on.
mkdir -p sys/class/power_supply/BAT0 sys/class/thermal/thermal_zone0 sys/class/thermal/thermal_zone1
printf '15\n' >sys/class/power_supply/BAT0/capacity
printf 'Discharging\n' >sys/class/power_supply/BAT0/status
printf '45000\n' >sys/class/thermal/thermal_zone0/temp
printf 'hot\n' >sys/class/thermal/thermal_zone1/temp
check "wav with a battery" status_is 0 "$earshotd" --config fast.toml --bus none --events - \
  --sysfs-root sys --input "wav:$src/tools/samples/computer_request.flac"
check "saver from the battery" grep -qF '"profile": "saver", "reason": "battery 15% discharging"' out.txt
check "garbage zone reported" grep -q '"event": "error".*"stage": "governor".*thermal_zone1' out.txt
check "request still served" grep -q '"final": true' out.txt

# Profile changes while a request is heard, in real time: the governor's events come between the
# pipeline's, whose times lag the audio read (the VAD's look-ahead), and `t` never decreases.
mkdir -p hot/class/thermal/thermal_zone0
printf '[governor]\npoll_ms = 100\nmin_dwell_ms = 0\n' >often.toml
# The zone swings until the daemon is done: however long its start takes (models loading under
# qemu-user take longer than 20 swings did), the pipeline hears it swing.
(while [ ! -e daemon_done ]; do
  printf '90000\n' >hot/class/thermal/thermal_zone0/temp; sleep 0.13
  printf '40000\n' >hot/class/thermal/thermal_zone0/temp; sleep 0.13
done) &
check "wav with the profile changing" status_is 0 "$earshotd" --config often.toml --bus none \
  --events - --sysfs-root hot --input "wav:$src/tools/samples/computer_request.flac"
touch daemon_done
wait
check "profile changes seen" test "$(grep -c '"event": "profile"' out.txt)" -ge 4
check "t never decreases" awk -F'"t": ' 'NF > 1 { split($2, v, /[,}]/);
  if (v[1] + 0 < last) bad = 1; last = v[1] + 0 } END { exit bad }' out.txt

# The unit's sandboxing: systemd's own score, 2.0 or lower ("OK" or better).
if command -v systemd-analyze >/dev/null; then
  systemd-analyze security --offline=yes "$src/config/earshotd.service" >security.txt 2>&1
  score=$(sed -n 's/.*Overall exposure level for earshotd.service: \([0-9.]*\).*/\1/p' security.txt)
  echo "systemd-analyze security: ${score:-none}"
  check "unit exposure <= 2.0" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
else
  echo "SKIP: systemd-analyze not installed"
fi

finish
