#!/usr/bin/python3
"""Scripted sessions through `earshot run`, built from ../shared/data with sox.

Each positive session is: noise, "computer" (wakeword/computer/dev), a pause of 0, 0.3 or 0.6 s,
a LibriSpeech utterance (stt/), noise; the whole under a noise bed about 20 dB below the speech.
A negative session is the same without the keyword. The test checks the event order of each
positive session (speech_start, state voice, wake, state command, final transcript, speech_end,
state idle), that no request is empty (cut in the pause before its words), that negatives give no
wake and no transcript (at most MAX_FALSE_WAKES of them may), and reports the transcripts' WER.
The mixes are made without sox's random dither (-R), so every run is the same.

Usage: cascade_sessions_test.py EARSHOT DATA_DIR [earshot run options...]
(exit 77: data absent, skipped)
"""
import json
import os
import subprocess
import sys
import tempfile

POSITIVES = 12
NEGATIVES = 6
MIN_DETECTED = 9          # of POSITIVES with the whole event sequence
# The keyword model makes ~2 false accepts per hour of nearly clean speech at the default
# threshold (the protocol's clean condition; issue 5 is open): one wake among the negatives'
# minute of speech is within that rate, two are not.
MAX_FALSE_WAKES = 1
MAX_UTTERANCE_S = 8.0     # within stt.max_utterance_ms with room for the endpoint
PAUSES_S = (0.0, 0.3, 0.6)
# Under qemu-user (the aarch64 suite, EARSHOT_EMULATOR set) the first third of each kind, the same
# sessions as natively: its run was 270 s for the 18, nearly all pocketsphinx's float decoding in
# software floating point. The keyword spotter's and the VAD's decisions are the same integers on
# both architectures (their golden tests); what is aarch64's own here is the decoder, which the
# four requests still run through the cascade. MIN_DETECTED scales with the positives.
EMULATED = (4, 2)


def sox(*args):
    # -R: no random dither, the same mixes every run.
    subprocess.run(["sox", "-R", *args], check=True, stderr=subprocess.DEVNULL)


def duration(path):
    return float(subprocess.run(["soxi", "-D", path], check=True, capture_output=True,
                                text=True).stdout)


def pick(items, count):
    """Every len/count-th item: deterministic and spread over the set."""
    step = max(1, len(items) // count)
    return items[::step][:count]


def build_session(out, tmp, keyword, pause, utterance, noise, offset):
    parts = [os.path.join(tmp, "lead.wav")]
    sox("-n", "-r", "16000", "-b", "16", "-c", "1", parts[0], "trim", "0", "1.5")
    if keyword:
        parts += [keyword]
        if pause > 0:
            gap = os.path.join(tmp, "gap.wav")
            sox("-n", "-r", "16000", "-b", "16", "-c", "1", gap, "trim", "0", str(pause))
            parts.append(gap)
    parts += [utterance, os.path.join(tmp, "tail.wav")]
    sox("-n", "-r", "16000", "-b", "16", "-c", "1", parts[-1], "trim", "0", "2")
    speech = os.path.join(tmp, "speech.wav")
    sox(*parts, "-r", "16000", "-c", "1", "-b", "16", speech, "norm", "-3")
    bed = os.path.join(tmp, "bed.wav")
    sox(noise, "-r", "16000", "-c", "1", bed, "trim", str(offset), str(duration(speech)),
        "norm", "-23")
    sox("-m", "-v", "1", speech, "-v", "1", bed, out)


def load_references(data):
    refs = {}
    with open(os.path.join(data, "stt", "transcripts.tsv")) as f:
        for line in f:
            key, text = line.rstrip("\n").split("\t", 1)
            refs[key] = text.split()
    return refs


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def events_per_file(output):
    files, current = {}, None
    for line in output.splitlines():
        event = json.loads(line)
        if event["event"] == "audio":
            current = files.setdefault(os.path.basename(event["file"]), [])
        elif current is not None:
            current.append(event)
    return files


def sequence(events):
    """The events that matter for the order, partial transcripts left out."""
    out = []
    for e in events:
        if e["event"] == "state":
            out.append("state " + e["state"])
        elif e["event"] == "transcript":
            if e["final"]:
                out.append("final")
        else:
            out.append(e["event"])
    return out


def positive_ok(seq):
    """One wake, reached from speech in `voice`, followed at once by the request and its final
    transcript; the stream ends idle (noise after the request may start and end speech again)."""
    if seq.count("wake") != 1 or seq.count("final") != 1:
        return False
    w = seq.index("wake")
    return (seq[w - 2:w] == ["speech_start", "state voice"]
            and seq[w + 1:w + 3] == ["state command", "final"] and seq[-1] == "state idle")


def main():
    earshot = sys.argv[1]
    data = sys.argv[2]
    keyword_dir = os.path.join(data, "wakeword", "computer", "dev")
    if not os.path.isdir(keyword_dir):
        print(f"skipped: no data at {data}")
        return 77
    keywords = pick(sorted(os.path.join(keyword_dir, f) for f in os.listdir(keyword_dir)), POSITIVES)
    stt_dir = os.path.join(data, "stt")
    utterances = [os.path.join(stt_dir, f) for f in sorted(os.listdir(stt_dir)) if f.endswith(".flac")]
    utterances = pick([u for u in utterances if duration(u) <= MAX_UTTERANCE_S],
                      POSITIVES + NEGATIVES)
    noise_dir = os.path.join(data, "noise")
    noises = sorted(os.path.join(noise_dir, f) for f in os.listdir(noise_dir))
    refs = load_references(data)

    emulated = bool(os.environ.get("EARSHOT_EMULATOR"))
    positives, negatives = EMULATED if emulated else (POSITIVES, NEGATIVES)
    chosen = set(range(positives)) | set(range(POSITIVES, POSITIVES + negatives))
    keep = os.environ.get("EARSHOT_KEEP_SESSIONS")  # a directory to keep the sessions in
    with tempfile.TemporaryDirectory() as tmp:
        if keep:
            os.makedirs(keep, exist_ok=True)
            tmp = keep
        sessions = []
        for i, utterance in enumerate(utterances):
            if i not in chosen:
                continue
            keyword = keywords[i] if i < POSITIVES else None
            name = f"{'pos' if keyword else 'neg'}{i:02d}.wav"
            build_session(os.path.join(tmp, name), tmp, keyword, PAUSES_S[i % len(PAUSES_S)],
                          utterance, noises[i % len(noises)], 5.0 * i % 20)
            sessions.append((name, utterance))
        run = subprocess.run([earshot, "run", *sys.argv[3:], *[os.path.join(tmp, n) for n, _ in sessions]],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr)
            return 1
    per_file = events_per_file(run.stdout)

    detected, errors, words, false_wakes, empty = 0, 0, 0, 0, 0
    for name, utterance in sessions:
        events = per_file.get(name, [])
        seq = sequence(events)
        times = [e["t"] for e in events]
        assert times == sorted(times), f"{name}: times out of order"
        if name.startswith("neg"):
            if "wake" in seq or "final" in seq:
                false_wakes += 1
                print(f"{name}: FALSE WAKE {seq}")
            continue
        ref = refs[os.path.basename(utterance)[:-5]]
        if not positive_ok(seq):
            print(f"{name}: MISSED {seq}")
            continue
        detected += 1
        text = next(e["text"] for e in events if e["event"] == "transcript" and e["final"])
        errors += edit_distance(text.split(), ref)
        words += len(ref)
        # An empty request: the endpointer took the keyword's VAD trail for it and ended it in the
        # pause before the words.
        empty += not text
        print(f"{name}: {'EMPTY' if not text else 'ok'}  hyp '{text}'  ref '{' '.join(ref)}'")

    wer = 100.0 * errors / max(1, words)
    print(f"positives with the whole sequence: {detected}/{positives}; "
          f"negatives with a wake: {false_wakes}/{negatives}; WER of their transcripts {wer:.1f}%; "
          f"empty requests: {empty}")
    ok = (detected >= MIN_DETECTED * positives // POSITIVES and false_wakes <= MAX_FALSE_WAKES
          and empty == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
