#!/usr/bin/python3
"""Digit strings (issue 49): sequences of 2 to 4 digits, each sequence from one speaker's Free
Spoken Digit Dataset clips joined with 150-500 ms pauses (seeded), decoded by `earshot transcribe`
with the digits command set (tools/samples/commands/digits.commands). Reports string accuracy (the
whole sequence right, not rejected) and word accuracy (1 - word edit distance / words said; a
rejected sequence counts every digit as missed).
Usage: tools/eval/digit_strings.py [--data DIR] [--earshot BIN] [--fsdd DIR] [--split dev]
       [--count 200] [--seed 49] [--set stt.KEY=V]...
The clips: FSDD/SPLIT/<digit word>/<speaker>_<take>.flac (the shared data's kws_aux/fsdd), or
FSDD's own layout, FSDD/SPLIT/<digit>_<speaker>_<take>.wav (--fsdd free-spoken-digit-dataset
--split recordings); any sample rate (read through sox at 16 kHz)."""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from audio_io import AUDIO, ROOT, SR, parser, read_audio, write_wav  # noqa: E402
from augment import list_audio  # noqa: E402
from pronounce import edit_distance  # noqa: E402

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
SET = os.path.join(ROOT, "tools", "samples", "commands", "digits.commands")
DIGIT_NUMBERS = [str(n) for n in range(10)]


def by_speaker(split_dir):
    """{speaker: {digit: [files]}} of the speakers with clips of all ten digits: from
    <digit word>/<speaker>_<take>.flac|wav (the shared data's layout) or, where there is no such
    folder, from <digit>_<speaker>_<take>.wav|flac (FSDD's own recordings/)."""
    found = []  # (speaker, digit word, file)
    names = sorted(os.listdir(split_dir)) if os.path.isdir(split_dir) else []
    if any(d in names for d in DIGITS):
        for d in DIGITS:
            for path in list_audio(split_dir, d):
                found.append((os.path.basename(path).rsplit("_", 1)[0], d, path))
    else:
        for f in names:
            parts = os.path.splitext(f)[0].split("_")
            if f.endswith(AUDIO) and len(parts) == 3 and parts[0] in DIGIT_NUMBERS:
                found.append((parts[1], DIGITS[int(parts[0])], os.path.join(split_dir, f)))
    out = {}
    for speaker, digit, path in found:
        out.setdefault(speaker, {}).setdefault(digit, []).append(path)
    return {s: v for s, v in out.items() if len(v) == len(DIGITS)}


def pause(rng, ms):
    """ms of near-silence (dither of a few LSB: a digital zero is no room)."""
    return rng.normal(0, 2, int(SR * ms / 1000)).astype(np.int16)


def build(rng, clips, n):
    """n sequences: (digit words, samples)."""
    speakers = sorted(clips)
    out = []
    for _ in range(n):
        spk = clips[rng.choice(speakers)]
        words = [rng.choice(DIGITS) for _ in range(rng.randint(2, 4))]
        nrng = np.random.default_rng(rng.randrange(1 << 30))
        parts = [pause(nrng, 300)]
        for i, w in enumerate(words):
            parts.append(read_audio(rng.choice(spk[w])))
            parts.append(pause(nrng, rng.uniform(150, 500) if i + 1 < len(words) else 300))
        out.append((words, np.concatenate(parts)))
    return out


def main():
    p = parser(__doc__)
    p.add_argument("--fsdd")
    p.add_argument("--split", default="dev")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=49)
    p.add_argument("--set", action="append", default=[], dest="options")
    a = p.parse_args()
    split_dir = os.path.join(a.fsdd or os.path.join(a.data, "kws_aux", "fsdd"), a.split)
    clips = by_speaker(split_dir)
    if not clips:
        sys.exit(f"digit_strings: {split_dir}: no speaker with clips of all ten digits")
    sequences = build(random.Random(a.seed), clips, a.count)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, (_, samples) in enumerate(sequences):
            files.append(os.path.join(tmp, f"{i:04d}.wav"))
            write_wav(files[-1], samples)
        options = [x for o in a.options for x in ("--set", o)]
        run = subprocess.run([a.earshot, "transcribe", "--set", "stt.commands=" + SET] + options +
                             files, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"digit_strings: earshot transcribe failed: {run.stderr.strip()}")
    heard = {}
    for line in run.stdout.splitlines():
        path, text, command = line.split("\t")
        heard[os.path.basename(path)] = [] if command == "rejected" else text.split()
    right = errors = said = rejected = 0
    for i, (words, _) in enumerate(sequences):
        got = heard[f"{i:04d}.wav"]
        rejected += not got
        right += got == words
        errors += edit_distance(words, got)
        said += len(words)
    summary = {"sequences": len(sequences), "speakers": sorted(clips), "seed": a.seed,
               "string_accuracy": right / len(sequences), "word_accuracy": 1 - errors / said,
               "rejected": rejected}
    print(f"strings right: {right}/{len(sequences)} ({100 * right / len(sequences):.1f}%); "
          f"word accuracy {100 * (1 - errors / said):.1f}%; rejected {rejected}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
