#!/usr/bin/env bash
# CLI tests of `earshot`: exit statuses, golden output, every kind of bad input, a 2-hour file.
# Usage: tests/cli_test.sh PATH/TO/earshot
earshot=$(realpath "$1")
source "$(dirname "$0")/cli_lib.sh"
valid_json_lines() { python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$1"; }
one_error_line_naming() { [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "$1" err.txt; }
# The stages of the runs that check the audio reader (formats, bad files, the default sample):
# all of them natively; under qemu-user (the aarch64 suite) no speech-to-text, whose model load
# (pocketsphinx's, 2 to 3 CPU seconds there per run) those runs would only repeat: none of them
# has a request, and the runs below that decode load it, on the same library.
reader_stages=()
[ -z "${EARSHOT_EMULATOR:-}" ] || reader_stages=(--stages vad,kws)

# Commands and usage.
check "help" status_is 0 "$earshot" --help
check "help lists run" grep -q "^  run " out.txt
check "version" status_is 0 "$earshot" --version
check "version printed" grep -qE '^earshot [0-9]+\.[0-9]+\.[0-9]+$' out.txt
check "no command" status_is 2 "$earshot"
check "unknown command" status_is 2 "$earshot" frobnicate
check "run --help" status_is 0 "$earshot" run --help
check "unknown option" status_is 2 "$earshot" run --bogus x.wav
check "unknown option named" grep -q -- "--bogus" err.txt
check "unknown option: one program name, one wording" \
  grep -qxF -- "earshot: unknown option --bogus (see earshot run --help)" err.txt
check "-- ends the options" status_is 1 "$earshot" run -- --not-an-option.wav
check "-- ends the options: the file named" grep -qF -- "--not-an-option.wav" err.txt
check "--set unknown key" status_is 2 "$earshot" run --set audio.nope=1
check "--set names key" grep -q "audio.nope" err.txt
check "--set out of range" status_is 2 "$earshot" run --set audio.preroll_ms=99999
check "--set names range" grep -qF "[0, 10000] ms" err.txt
check "--print-config" status_is 0 "$earshot" run --print-config
check "--print-config is the shipped default" cmp -s out.txt "$src/config/earshot.toml"
check "--print-config with --set" status_is 0 "$earshot" run --set audio.preroll_ms=700 --print-config
check "--print-config shows --set" grep -q "^preroll_ms = 700" out.txt
printf '[audio]\nprerol_ms = 3\n' >bad.toml
check "--config unknown key" status_is 1 "$earshot" run --config bad.toml
check "--config error names file and key" grep -q "bad.toml: unknown option audio.prerol_ms" err.txt
mkdir -p adir
check "--config a directory" status_is 1 "$earshot" run --config adir
check "--config a directory named" one_error_line_naming "adir: is a directory, not a config"
check "model a directory" status_is 1 "$earshot" kws --model adir x.wav
check "model a directory named" one_error_line_naming "adir: is a directory, not a model file"
check "--sysfs-root missing" status_is 1 "$earshot" run --sysfs-root /nonexistent x.wav
check "--sysfs-root missing named" one_error_line_naming "'/nonexistent': not a directory"
check "--sensors and --sysfs-root" status_is 2 "$earshot" run --sensors day.txt --sysfs-root / x.wav
check "--sensors and --sysfs-root named" one_error_line_naming "give one"

# Pronunciations of words the dictionary lacks: espeak-ng's, in the acoustic model's phones.
check "pronounce no word" status_is 2 "$earshot" pronounce
check "pronounce not a word" status_is 1 "$earshot" pronounce "a b"
check "pronounce not a word named" one_error_line_naming "'a b' is not a word"
mkdir -p no-espeak  # a PATH without espeak-ng (under qemu-user, with the emulator the wrapper execs)
[ -z "${EARSHOT_EMULATOR:-}" ] || ln -sf "$(command -v "${EARSHOT_EMULATOR%% *}")" no-espeak/
check "pronounce without espeak-ng" status_is 1 env PATH="$PWD/no-espeak" "$earshot" pronounce nabu
check "pronounce without espeak-ng named" one_error_line_naming "'nabu': espeak-ng could not be run"
if command -v espeak-ng >/dev/null; then  # tools/setup.sh --training installs it
  check "pronounce" status_is 0 "$earshot" pronounce nabu rhasspy
  check "pronounce golden" diff <(printf 'nabu\tN AA B UW\nrhasspy\tR AE S P IY\n') out.txt
fi

# Golden output on the bundled sample.
cp "$src/tools/samples/computer_request.flac" sample.flac
check "run sample" status_is 0 "$earshot" run --stages vad,kws sample.flac
check "run sample golden" diff -u "$src/tests/golden/run_sample.jsonl" out.txt
check "run sample json" valid_json_lines out.txt
# Two more goldens: two requests 2 s apart, and 3 s of pink noise then a tone (no speech).
sox sample.flac -p pad 0 2 | sox - sample.flac two.flac
sox -R -n -r 16000 -b 16 noise.wav synth 3 pinknoise vol 0.05 : synth 1 sine 1000 vol 0.3
for f in two noise; do
  ext=flac; [ $f = noise ] && ext=wav
  check "run $f" status_is 0 "$earshot" run --stages vad,kws $f.$ext
  check "run $f golden" diff -u "$src/tests/golden/run_$f.jsonl" out.txt
done
# Three keywords at once (tools/samples/make_three_keywords.sh: "computer", "snowboy" and "view
# glass", each with a request): a wake event for each, naming its keyword, the two from text with
# their second stage's verified confidence; at sensitivity 0.1 that stage rejects them.
cp "$src/tools/samples/three_keywords.flac" three.flac
three="computer,snowboy,view glass"  # the bundled keywords, by name
check "run three keywords" status_is 0 "$earshot" run --stages vad,kws --set kws.models="$three" \
  three.flac
check "run three keywords golden" diff -u "$src/tests/golden/run_three.jsonl" out.txt
check "run three keywords, two rejected" status_is 0 "$earshot" run --stages vad,kws \
  --set kws.models="$three" --set kws.sensitivities=0.5,0.1,0.1 three.flac
check "run three keywords, two rejected: computer alone" \
  test "$(grep -c '"wake"' out.txt)-$(grep -c '"computer"' out.txt)" = 1-1
# Its own playback (issue 80): the sample reversed and repeated, played from 3 s before the
# person speaks, its echo 120 ms late and as loud as the person: missed without the reference,
# heard with it, at the person's time; a reference that cannot be read, or one for two files.
sox -D sample.flac -r 16000 played.wav reverse repeat 1
sox -D played.wav echo.wav pad 0.12 0
sox -D sample.flac person.wav pad 3 0
sox -D -m -v 0.5 person.wav -v 0.5 echo.wav playing.wav trim 0 7.5
check "run over playback" status_is 0 "$earshot" run --stages vad,kws playing.wav
check "run over playback: missed" test "$(grep -c '"wake"' out.txt)" = 0
check "run --reference" status_is 0 "$earshot" run --stages vad,kws --reference played.wav \
  playing.wav
check "run --reference: heard" python3 -c 'import json, sys
wakes = [e["t"] for e in map(json.loads, open("out.txt")) if e["event"] == "wake"]
sys.exit(not (len(wakes) == 1 and 3.5 < wakes[0] < 4.5))'
check "run --reference missing" status_is 1 "$earshot" run --reference nope.wav playing.wav
check "run --reference missing named" one_error_line_naming "nope.wav"
check "run --reference two files" status_is 2 "$earshot" run --reference played.wav a.wav b.wav
# A podcast that says the wake word: its echo wakes the device three times without the
# reference; with it, the playback's own keywords are the playback's, and nothing wakes.
sox -D sample.flac podcast.wav repeat 2
sox -D podcast.wav podcast_echo.wav pad 0.12 0 vol 0.8
sox -D podcast_echo.wav hearing_podcast.wav trim 0 13.6
check "run over a podcast" status_is 0 "$earshot" run --stages vad,kws hearing_podcast.wav
check "run over a podcast: it wakes itself" test "$(grep -c '"wake"' out.txt)" = 3
check "run --reference podcast" status_is 0 "$earshot" run --stages vad,kws \
  --reference podcast.wav hearing_podcast.wav
check "run --reference podcast: no self-wake" test "$(grep -c '"wake"' out.txt)" = 0
check "cancel-echo" status_is 0 "$earshot" cancel-echo --reference played.wav playing.wav clean.wav
check "cancel-echo: the delay found" grep -q '"delay_ms": 120' out.txt
check "cancel-echo: what it wrote" test "$(soxi -s clean.wav)" = 120000
check "cancel-echo usage" status_is 2 "$earshot" cancel-echo playing.wav clean.wav
# With the STT: the cascade's events in order, the request's final transcript among them.
check "run sample all stages" status_is 0 "$earshot" run sample.flac
check "run sample all json" valid_json_lines out.txt
event_sequence >sequence.txt
check "run sample sequence" test "$(cat sequence.txt)" = \
  "state audio speech_start state wake state final speech_end state "
check "--stages vad stops early" status_is 0 "$earshot" run --stages vad sample.flac
check "--stages vad: no wake" test "$(grep -c '"wake"' out.txt)" -eq 0
check "--stages bad" status_is 2 "$earshot" run --stages kws sample.flac
check "--stages bad named" grep -q -- "--stages" err.txt
# A command set that does not say the request: rejected, with its open transcript when asked.
printf '%s\n' 'set lights' 'slot device = kitchen light | fan' 'intent light' \
  '  turn (on | off){state} [the] {device}' > lights.commands
check "run commands" status_is 0 "$earshot" run --set stt.commands=lights.commands sample.flac
check "run commands: rejected, no words" \
  grep -qF '"text": "", "confidence": 0, "rejected": true' out.txt
check "run commands, open transcript" status_is 0 "$earshot" run \
  --set stt.commands=lights.commands --set stt.command_open_transcript=true sample.flac
check "run commands, open transcript: rejected, the request's words" grep -qE \
  '"command".*"text": "she.s going to put the ironing things away".*"rejected": true' out.txt
check "run default sample" status_is 0 "$earshot" run "${reader_stages[@]}"
check "default sample is the bundled one" grep -q '"duration": 4.547625' out.txt

# Features: the device's integers, bit-exact (golden digests), one line per 10 ms frame.
check "features logmel" status_is 0 "$earshot" features --kind logmel sample.flac
check "features logmel frames" test "$(wc -l <out.txt)" -eq 455
check "features logmel 40 bands" test "$(awk '{print NF}' out.txt | sort -u)" = 40
check "features logmel golden" test "$(sha256sum <out.txt | cut -c1-64)" = \
  5b2dd9da8e899fb4c340f758d8cf389922a4f231bd97129d3e4ec9699882493c
check "features mfcc lifter cmn" status_is 0 "$earshot" features --kind mfcc \
  --front-end lifter=22,mean_norm=running sample.flac
check "features mfcc golden" test "$(sha256sum <out.txt | cut -c1-64)" = \
  ec46ac7cecebf5dbfc4b59fac4fa5ae95ac5a4e53ba4c7d1e06a61c037f1231d
check "features cepstra" status_is 0 "$earshot" features --kind cepstra sample.flac
check "features cepstra frames" test "$(wc -l <out.txt)" -eq 455
check "features cepstra 13 coefficients" test "$(awk '{print NF}' out.txt | sort -u)" = 13
check "features cepstra c0 follows the level" awk '{ lo = NR == 1 || $1 < lo ? $1 : lo; hi = NR == 1 || $1 > hi ? $1 : hi }
  END { exit !(hi - lo > 50) }' out.txt
check "features cepstra --noise-suppression" status_is 2 "$earshot" features --kind cepstra \
  --noise-suppression sample.flac
check "features cepstra --noise-suppression named" one_error_line_naming "for logmel and mfcc"
check "features cepstra no acoustic model" status_is 1 "$earshot" features --kind cepstra \
  --set stt.acoustic_model=nomodel sample.flac
check "features cepstra no acoustic model named" one_error_line_naming "nomodel/feat.params: cannot open"
check "features embedding-mel" status_is 0 "$earshot" features --kind embedding-mel sample.flac
check "features embedding-mel frames" test "$(wc -l <out.txt)" -eq 455
check "features embedding-mel 32 bands" test "$(awk '{print NF}' out.txt | sort -u)" = 32
check "features embedding-mel golden" test "$(sha256sum <out.txt | cut -c1-64)" = \
  b8c0992aa8e8a3a2d56b01dc967e0edf38d3ddd2fb8e702072ca597c7e5b1cb4
check "features embedding-mel --front-end" status_is 2 "$earshot" features \
  --kind embedding-mel --front-end mel_bands=20 sample.flac
check "features embedding-mel --front-end named" one_error_line_naming "front-end is for logmel and mfcc"
check "features --front-end unknown key" status_is 2 "$earshot" features --kind logmel \
  --front-end mel_bands=20,hop_ms=5 sample.flac
check "features --front-end unknown key named" one_error_line_naming "'hop_ms=5': no such key"
check "features the [features] options are gone" status_is 2 "$earshot" features --kind logmel \
  --set features.mel_bands=20 sample.flac
check "features embedding-mel --noise-suppression" status_is 2 "$earshot" features \
  --kind embedding-mel --noise-suppression sample.flac
check "features bad kind" status_is 2 "$earshot" features --kind mel sample.flac
check "features no file" status_is 2 "$earshot" features --kind mfcc
check "features missing file" status_is 1 "$earshot" features --kind mfcc missing.flac
check "features missing file named" one_error_line_naming missing.flac
check "features impossible window" status_is 2 "$earshot" features --kind mfcc \
  --front-end window_ms=32,fft_size=256 sample.flac
check "features impossible window explained" grep -q "must be >= the hop and fit in the 256-point FFT" err.txt

# VAD: one line per 10 ms frame, t<TAB>score<TAB>speech; golden digest on the bundled sample.
check "vad" status_is 0 "$earshot" vad sample.flac
check "vad frames" test "$(wc -l <out.txt)" -eq 455
check "vad format" awk -F'\t' 'NF != 3 || $2 < 0 || $2 > 1 || ($3 != 0 && $3 != 1) { exit 1 }' out.txt
check "vad finds the speech" test "$(awk -F'\t' '$3 == 1' out.txt | wc -l)" -gt 200
check "vad golden" test "$(sha256sum <out.txt | cut -c1-64)" = "$(cat "$src/tests/golden/vad_sample.sha256")"
check "vad missing model" status_is 1 "$earshot" vad --set vad.model=nomodel.eshm sample.flac
check "vad missing model named" one_error_line_naming nomodel.eshm
echo "not a model" >bad.eshm
check "vad bad model" status_is 1 "$earshot" vad --set vad.model=bad.eshm sample.flac
check "vad bad model explained" grep -q "bad.eshm: not an earshot model" err.txt
check "vad threshold out of range" status_is 2 "$earshot" vad --set vad.threshold=1.5 sample.flac
check "vad no file" status_is 2 "$earshot" vad

# Keyword spotter: one line per hop, the keyword peaks in the bundled sample.
check "kws" status_is 0 "$earshot" kws sample.flac
check "kws hops" test "$(wc -l <out.txt)" -eq 455
check "kws format" awk -F'\t' 'NF != 3 || $2 != "computer" || $3 < 0 || $3 > 1 { exit 1 }' out.txt
check "kws finds computer in the first second" awk -F'\t' '$1 < 1.3 && $3 > 0.9 { found = 1 } END { exit !found }' out.txt
check "kws wrong model kind" status_is 1 "$earshot" kws --model "$src/models/vad/vad.eshm" sample.flac
check "kws wrong model explained" grep -q "is a 'vad-mlp' model, expected 'kws-mlp'" err.txt
"$earshot" kws sample.flac | cut -f3 >single.txt
check "kws two models" status_is 0 "$earshot" kws --model "$src/models/kws/computer.eshm" \
  --model "$src/models/kws/computer_small.eshm" sample.flac
check "kws two models: a line per keyword per hop" test "$(wc -l <out.txt)" -eq 910
check "kws two models: named, in order" test "$(head -2 out.txt | cut -f2 | tr '\n' ' ')" = \
  "computer computer_small "
check "kws two models: the first one's scores alone" cmp -s single.txt <(awk -F'\t' 'NR % 2' out.txt | cut -f3)
check "kws no keyword" status_is 2 "$earshot" kws --set kws.models= sample.flac
check "kws no keyword named" one_error_line_naming "option kws.models is empty"
# --candidates: a line per candidate of a keyword with a second stage, its confidence the one
# --verified prints on that hop.
check "kws candidates" status_is 0 "$earshot" kws --model "$src/models/kws/snowboy.eshm" \
  --candidates three.flac
mv out.txt candidates.txt
check "kws candidates format" awk -F'\t' 'NF != 6 || $2 != "snowboy" || $3 < 0 || $3 > 1 ||
  ($4 != "none" && $4 > 0) || $5 < 1 || ($6 != 0 && $6 != 1) { exit 1 }' candidates.txt
check "kws candidates: snowboy at 6.4-6.7 s" \
  awk -F'\t' '$1 > 6.4 && $1 < 6.7 && $3 >= 0.75 { found = 1 } END { exit !found }' candidates.txt
check "kws verified" status_is 0 "$earshot" kws --model "$src/models/kws/snowboy.eshm" --verified \
  three.flac
check "kws candidates: the verified hops" cmp -s <(awk -F'\t' '$3 > 0' candidates.txt | cut -f1-3) \
  <(awk -F'\t' '$3 > 0' out.txt)
check "kws candidates without a second stage" status_is 2 "$earshot" kws --candidates sample.flac
check "kws candidates without a second stage named" \
  one_error_line_naming "no keyword has a second stage"

# Several keywords in the cascade; the lists beside kws.models are checked as a whole.
check "run two keywords" status_is 0 "$earshot" run --stages vad,kws \
  --set kws.models="computer,$src/models/kws/computer_small.eshm" --set kws.names=,small sample.flac
check "a wake each" test "$(grep -o '"keyword": "[a-z]*"' out.txt | tr '\n' ' ')" = \
  '"keyword": "computer" "keyword": "small" '
check "lists of other lengths" status_is 2 "$earshot" run --set kws.models=computer,computer \
  --set kws.sensitivities=0.5 sample.flac
check "lists of other lengths named" one_error_line_naming \
  "option kws.sensitivities has 1 entry and kws.models 2"
check "sensitivity out of range" status_is 2 "$earshot" run --set kws.sensitivities=1.5 sample.flac
check "sensitivity out of range named" one_error_line_naming \
  "kws.sensitivities = 1.5 is out of range: expected [0, 1]"
check "a name twice" status_is 2 "$earshot" run --set kws.models=computer,computer \
  --set kws.names=a,a sample.flac
check "a name twice named" one_error_line_naming "option kws.names names 'a' twice"
check "names alike from the files" status_is 1 "$earshot" run \
  --set kws.models="computer,$src/models/kws/computer.eshm" sample.flac
check "names alike from the files named" one_error_line_naming "are both named 'computer'"
printf '[kws]\nmodels = ["computer", "computer"]\nsensitivities = [0.5]\n' >lists.toml
check "config lists of other lengths" status_is 1 "$earshot" run --config lists.toml sample.flac
check "config lists of other lengths named" one_error_line_naming \
  "lists.toml: option kws.sensitivities has 1 entry and kws.models 2"

# Speech-to-text: FILE<TAB>text; bad profile and missing model files are clear errors.
check "transcribe" status_is 0 "$earshot" transcribe sample.flac
check "transcribe format" grep -qP '^sample\.flac\t\S' out.txt
check "transcribe small" status_is 0 "$earshot" transcribe --profile small --stats sample.flac
check "transcribe stats" grep -q '"final_latency_ms"' err.txt
cp out.txt small.txt
check "transcribe a governor profile" status_is 0 "$earshot" transcribe --profile saver sample.flac
check "saver decodes with small" cmp -s out.txt small.txt
check "transcribe a profile without STT" status_is 1 "$earshot" transcribe --profile critical \
  sample.flac
check "profile without STT named" one_error_line_naming "governor.critical_stt is off"
check "transcribe words" status_is 0 "$earshot" transcribe --set 'stt.words=computer|ironing' sample.flac
check "transcribe bad profile" status_is 2 "$earshot" transcribe --profile huge sample.flac
check "transcribe bad profile named" one_error_line_naming "profile huge: expected large, small"
check "transcribe missing model" status_is 1 "$earshot" transcribe --set stt.acoustic_model=nohmm sample.flac
check "transcribe missing model named" one_error_line_naming nohmm
check "transcribe missing file" status_is 1 "$earshot" transcribe missing.wav
check "transcribe missing file named" one_error_line_naming missing.wav

# The governor on a sensor timeline: a profile event at the start and one when the battery drops.
printf '# t battery_percent charging temp_c\n0 50 0 40\n2 15 0 -\n' >day.txt
check "run --sensors" status_is 0 "$earshot" run --stages vad,kws --sensors day.txt \
  --set governor.min_dwell_ms=1000 --set governor.poll_ms=100 \
  --set kws.small_models="$src/models/kws/computer.eshm" sample.flac
check "run --sensors json" valid_json_lines out.txt
check "profile events" test "$(grep -o '"profile": "[a-z]*"' out.txt | tr '\n' ' ')" = \
  '"profile": "performance" "profile": "saver" '
check "profile reason" grep -qF '"reason": "battery 15% discharging"' out.txt
printf '0 fifty 0 40\n' >bad_day.txt
check "run --sensors bad line" status_is 1 "$earshot" run --sensors bad_day.txt sample.flac
check "bad timeline named" one_error_line_naming bad_day.txt
check "run --sensors missing" status_is 1 "$earshot" run --sensors missing_day.txt sample.flac
check "missing timeline named" one_error_line_naming missing_day.txt

# Bench: per-stage counters; gated stages do no work on silence.
check "bench" status_is 0 "$earshot" bench --stages vad,kws sample.flac
check "bench lists the stages" test "$(cut -f1 out.txt | head -6 | tr '\n' ' ')" = "stage front_end vad kws stt total "
check "bench: kws ran on the voice only" awk -F'\t' '$1=="kws" {k=$2} $1=="vad" {v=$2} END {exit !(k > 0 && k < v)}' out.txt
sox -n -r 16000 -b 16 silence.wav trim 0 5
check "bench silence" status_is 0 "$earshot" bench --repeat 2 silence.wav
check "bench silence: kws and stt asleep" awk -F'\t' '$1=="kws" || $1=="stt" {s+=$2} $1=="vad" {v=$2} END {exit !(s == 0 && v == 1000)}' out.txt
check "bench bad repeat" status_is 2 "$earshot" bench --repeat 0
check "bench repeat with a unit" status_is 2 "$earshot" bench --repeat 3x
check "bench repeat beyond int" status_is 2 "$earshot" bench --repeat 99999999999

# Formats that work: each gives an audio line with what was read.
sox -n -r 16000 -b 8 -e unsigned-integer u8.wav synth 1 sine 440 vol 0.5
sox -n -r 16000 -b 32 -e floating-point f32.wav synth 1 sine 440 vol 0.5
sox -n -r 8000 -b 16 r8k.wav synth 1 sine 440 vol 0.5
sox -n -r 48000 -b 16 r48k.flac synth 1 sine 440 vol 0.5
sox -n -r 48000 -b 16 -c 2 stereo.wav synth 1 sine 440 sine 660 vol 0.5
sox -n -r 44100 -b 24 -c 6 six.wav synth 1 sine 440 vol 0.5
for f in u8.wav f32.wav r8k.wav r48k.flac stereo.wav six.wav; do
  check "$f works" status_is 0 "$earshot" run "${reader_stages[@]}" "$f"
  check "$f json" valid_json_lines out.txt
done
check "six.wav reported" grep -qF '"file": "six.wav", "duration": 1, "rate": 44100, "channels": 6' out.txt

# Bad input: one clear line naming the file, exit 1, no partial JSON on stdout.
: >empty.wav
echo "not audio at all" >text.wav
head -c 20000 f32.wav >cut.wav
head -c 6000 r48k.flac >cut.flac
for f in missing.wav empty.wav text.wav cut.wav cut.flac; do
  check "$f fails" status_is 1 "$earshot" run "${reader_stages[@]}" "$f"
  check "$f error names the file" one_error_line_naming "$f"
  check "$f only the state line" test "$(cat out.txt)" = '{"event": "state", "t": 0, "state": "idle"}'
done
check "good files still run beside a bad one" status_is 1 "$earshot" run "${reader_stages[@]}" \
  u8.wav missing.wav f32.wav
check "two audio lines" test "$(grep -c '"audio"' out.txt)" -eq 2

# A 2-hour file streams in flat memory (8 kHz 8-bit: 58 MB on disk, 230 MB once converted): its
# peak RSS is measured against a 3-second file's in the same run, as the base differs between
# builds and machines (release 11 MB; under the sanitizers 58 MB for the short file here). Under
# qemu-user (the aarch64 suite) 30 minutes, a quarter of the time the emulator takes for 2 hours:
# 58 MB once converted still stands well above the 32 MiB a whole-file buffer would break.
long_s=7200
[ -z "${EARSHOT_EMULATOR:-}" ] || long_s=1800
sox -n -r 8000 -b 8 -e unsigned-integer long.wav synth $long_s sine 440 vol 0.5
sox long.wav short.wav trim 0 3
check "3-second file" status_is 0 /usr/bin/time -f "%M" -o rss_short.txt "$earshot" run --stages vad short.wav
check "$long_s-second file" status_is 0 /usr/bin/time -f "%M" -o rss.txt "$earshot" run --stages vad long.wav
check "$long_s-second duration" grep -qF "\"duration\": $long_s" out.txt
rss_kib=$(tail -1 rss.txt) short_kib=$(tail -1 rss_short.txt)
echo "$long_s-second file: peak RSS ${rss_kib} KiB, 3-second file ${short_kib} KiB"
check "$long_s-second peak RSS within 32 MiB of the 3-second file's" \
  test $((rss_kib - short_kib)) -lt 32768

# The evaluation scripts: --help prints the usage, too few arguments are a usage error; neither
# becomes a directory.
check "eval script --help" status_is 0 "$src/tools/eval/kws_eval.sh" --help
check "eval script usage printed" grep -q "^Usage: tools/eval/kws_eval.sh EVAL_DIR" out.txt
check "eval script without arguments" status_is 2 "$src/tools/eval/cmd_eval.sh" list refs
check "eval script usage on stderr" grep -q "^Usage: tools/eval/cmd_eval.sh LIST" err.txt
check "no --help directory" test ! -e --help -a ! -e out/kws_eval
check "wakeword_eval.sh without a model" status_is 2 "$src/tools/eval/wakeword_eval.sh" e b out/ww
check "wakeword_eval.sh: a model not given as PREFIX=MODEL" status_is 2 \
  "$src/tools/eval/wakeword_eval.sh" e b out/ww model.eshm
check "wakeword_eval.sh names what it expected" grep -q "expected PREFIX=MODEL, got 'model.eshm'" err.txt
check "kws_channel.py without a mode" status_is 2 /usr/bin/python3 "$src/tools/eval/kws_channel.py" list

finish
