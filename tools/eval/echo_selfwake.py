#!/usr/bin/python3
"""Self-wakes (issue 80): the device plays a long stretch and nobody speaks; every wake is the
playback's. Seeded; any folders. The playback is --minutes of --playback's files end to end (read
speech as a podcast, or music), with, when --wake-every-s is given, a clip of --wake (the wake
word) mixed in every that many seconds; it reaches the microphone as echo_scenes.py's echo does
(soft clipping, 20-300 ms, the direct sound and a room of --rir), over a -70 dBFS noise floor.
`earshot run --stages vad,kws` hears the microphone without the reference and with it; printed:
the wakes in each, per hour, and the wake words mixed in.

usage: tools/eval/echo_selfwake.py EARSHOT --playback DIR --rir DIR --out DIR [--minutes 20]
       [--wake DIR --wake-every-s 60] [--seed 1] [--keyword computer]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from echo_scenes import SR, audio_files, read_cached, rms, speaker_path, write  # noqa: E402


def playback(args, rng):
    files = audio_files(args.playback)
    n = int(args.minutes * 60 * SR)
    out, at = np.zeros(n), 0
    while at < n:
        x = read_cached(files[rng.integers(len(files))]).astype(np.float64)
        x = x[:n - at]
        if rms(x) > 1e-3:
            out[at:at + len(x)] = x / rms(x) * 0.1
        at += len(x)
    said = 0
    if args.wake:
        wakes = audio_files(args.wake)
        for t in np.arange(args.wake_every_s / 2, args.minutes * 60 - 3, args.wake_every_s):
            w = read_cached(wakes[rng.integers(len(wakes))]).astype(np.float64)
            w = w / rms(w) * 0.1
            i = int(t * SR)
            out[i:i + len(w)] += w[:n - i]
            said += 1
    return out, said


def wakes(earshot, keyword, mic, reference=None):
    cmd = [earshot, "run", "--stages", "vad,kws"]
    cmd += ["--reference", reference] if reference else []
    out = subprocess.run(cmd + [mic], check=True, capture_output=True, text=True).stdout
    events = [json.loads(line) for line in out.splitlines()]
    return sum(1 for e in events if e.get("event") == "wake" and e["keyword"] == keyword)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("earshot")
    parser.add_argument("--playback", required=True)
    parser.add_argument("--rir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--wake")
    parser.add_argument("--wake-every-s", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keyword", default="computer")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    played, said = playback(args, rng)
    rirs = audio_files(args.rir)
    h = speaker_path(rirs[rng.integers(len(rirs))], rng)
    delay = int(rng.integers(20, 301)) * SR // 1000
    drive = float(rng.uniform(1.0, 2.0))
    echo = np.zeros(len(played))
    echo[delay:] = np.convolve(np.tanh(drive * played) / drive, h)[:len(played) - delay]
    os.makedirs(args.out, exist_ok=True)
    ref, mic = os.path.join(args.out, "played.wav"), os.path.join(args.out, "mic.wav")
    write(ref, played)
    write(mic, echo + rng.standard_normal(len(echo)) * 10 ** (-70 / 20))
    hours = args.minutes / 60
    without = wakes(args.earshot, args.keyword, mic)
    with_ref = wakes(args.earshot, args.keyword, mic, ref)
    print(f"{args.minutes:g} min of playback, {said} wake words in it, "
          f"delay {delay * 1000 // SR} ms")
    print(f"wakes without the reference: {without} ({without / hours:.1f}/h); "
          f"with it: {with_ref} ({with_ref / hours:.1f}/h)")


if __name__ == "__main__":
    main()
