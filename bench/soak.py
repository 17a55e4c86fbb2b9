#!/usr/bin/env python3
"""Soak: hours of audio through `earshotd --bus none` (daemon.realtime = false: as fast as the
pipeline goes), its resident set, open file descriptors and counters read at every hour of audio.

The audio is built from a seed and the repository alone: requests (tools/samples/
computer_request.flac: "computer" and a request, after a second of quiet and followed by three),
chatter without the wake word (espeak-ng sentences, and the sample's speech reversed), noise
(white, and babble of four chatter clips at -30 dB) and near-silence, in a seeded random order
(about 12% of the steps a request, 33% chatter, 25% noise, 30% quiet). Written to one WAV file in
a temporary directory (230 MB an hour), read by the daemon as wav:FILE.

Checks: exit 0; requests (entries into the `command` state) = wakes = final transcripts, none
cancelled; a wake in every request put in (the other wakes, on chatter and noise, are counted);
open descriptors the same at every hour; the resident set at the last hour within --rss-slack-mb
of the first hour's.

  bench/soak.py [--hours 2] [--seed 1] [--earshotd build/daemon/earshotd] [--rss-slack-mb 16]

Run at 2 h, then at 8 h (4x) to compare; last figures in docs/research/robustness.md.
EARSHOT_BENCH_SECONDS=N: --hours defaults to N seconds (a smoke run, bench/bench_lib.sh: whole steps
until N s are written, no hourly marks); EARSHOT_BUILD_DIR: --earshotd defaults to its daemon.
"""
import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "tools", "samples", "computer_request.flac")
RATE = 16000
SENTENCES = [
    "the weather was fine all week and we walked to the river every evening",
    "she said the meeting would start late because the train was delayed",
    "put the blue box on the top shelf next to the old books",
    "I think we should paint the kitchen before the winter comes",
    "the children played in the garden until it was dark",
    "could you tell me where the nearest post office is",
    "he forgot his keys again and had to wait outside for an hour",
    "the recipe needs two eggs a cup of flour and some milk",
]


def pcm(path, *effects):
    """A file (or espeak-ng's output) as 16 kHz mono int16."""
    raw = subprocess.run(["sox", path, "-t", "raw", "-r", str(RATE), "-c", "1", "-e", "signed",
                          "-b", "16", "-", *effects], check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.int16)


def palette(tmp):
    request = pcm(SAMPLE)
    chatter = [request[::-1].copy()]
    for i, text in enumerate(SENTENCES):
        path = os.path.join(tmp, f"s{i}.wav")
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", path, text], check=True)
        chatter.append(pcm(path, "norm", "-6"))
    return request, chatter


def gain(x, db):
    return x.astype(np.float32) * (10 ** (db / 20))


def babble(rng, chatter, n):
    out = np.zeros(n, dtype=np.float32)
    for _ in range(4):
        clip = chatter[rng.integers(len(chatter))]
        reps = np.tile(clip, n // len(clip) + 2)
        start = rng.integers(len(clip))
        out += gain(reps[start:start + n], -30)
    return out


def write_audio(path, hours, seed, request, chatter):
    """The seeded schedule, written as it is drawn: each step's (start s, kind), and the requests'
    (start, end) in seconds."""
    rng = np.random.default_rng(seed)
    total = int(hours * 3600 * RATE)
    written = 0
    requests, steps = [], []
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)

        def put(x):
            nonlocal written
            x = np.clip(np.asarray(x, dtype=np.float32), -32768, 32767).astype("<i2")
            w.writeframes(x.tobytes())
            written += len(x)

        def quiet(seconds):
            put(rng.standard_normal(int(seconds * RATE)) * 32768 * 10 ** (-70 / 20))

        while written < total:
            r = rng.random()
            steps.append((written / RATE, "request" if r < 0.12 else "chatter" if r < 0.45 else
                          "noise" if r < 0.70 else "quiet"))
            if r < 0.12:
                quiet(1)
                start = written / RATE
                put(gain(request, -rng.uniform(0, 6)))
                requests.append((start, written / RATE))
                quiet(3)
            elif r < 0.45:
                for _ in range(rng.integers(1, 4)):
                    put(gain(chatter[rng.integers(len(chatter))], -rng.uniform(0, 6)))
                    quiet(rng.uniform(0.3, 1.0))
                quiet(rng.uniform(1, 2))
            elif r < 0.70:
                n = int(rng.uniform(5, 20) * RATE)
                if rng.random() < 0.5:
                    put(rng.standard_normal(n) * 32768 * 10 ** (-rng.uniform(35, 45) / 20))
                else:
                    put(babble(rng, chatter, n))
            else:
                quiet(rng.uniform(5, 30))
    return requests, steps, written / RATE


def proc_figures(pid):
    """Resident set (KiB), open descriptors, CPU seconds; None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return rss, fds, cpu
    except (OSError, StopIteration, IndexError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    seconds = os.environ.get("EARSHOT_BENCH_SECONDS")
    build = os.environ.get("EARSHOT_BUILD_DIR") or os.path.join(ROOT, "build")
    parser.add_argument("--hours", type=float, default=int(seconds) / 3600 if seconds else 2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--earshotd", default=os.path.join(build, "daemon", "earshotd"))
    parser.add_argument("--rss-slack-mb", type=float, default=16.0)
    args = parser.parse_args()
    missing = [p for p in ("sox", "espeak-ng") if not shutil.which(p)]
    missing += [] if os.access(args.earshotd, os.X_OK) else [args.earshotd]
    if seconds and missing:  # a smoke run skips where a tool is missing (a full one fails)
        print(f"soak: skipped: {', '.join(missing)} not found", file=sys.stderr)
        sys.exit(0)
    with tempfile.TemporaryDirectory() as tmp:
        request, chatter = palette(tmp)
        audio = os.path.join(tmp, "soak.wav")
        began = time.monotonic()
        put_in, steps, seconds = write_audio(audio, args.hours, args.seed, request, chatter)
        starts = [a for a, _ in steps]
        elsewhere = {}  # wakes outside the requests put in, by the kind of step they came in
        inserted = len(put_in)
        heard = set()
        print(f"audio: {seconds / 3600:.2f} h, {inserted} requests, seed {args.seed} "
              f"(written in {time.monotonic() - began:.0f} s)", flush=True)
        config = os.path.join(tmp, "soak.toml")
        with open(config, "w") as f:
            f.write("[daemon]\nrealtime = false\n")
        began = time.monotonic()
        daemon = subprocess.Popen([args.earshotd, "--config", config, "--bus", "none", "--events",
                                   "-", "--input", "wav:" + audio],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = []
        threading.Thread(target=lambda: log.extend(daemon.stderr), daemon=True).start()
        counts = {"command": 0, "wake": 0, "final": 0, "cancelled": 0, "error": 0}
        marks, next_mark, last = [], 3600.0, None
        print("audio_h\trss_kib\tfds\tcpu_s\twall_s\trequests\twakes\tfinals", flush=True)
        for line in daemon.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "state" and event.get("state") == "command":
                counts["command"] += 1
            elif kind == "wake":
                counts["wake"] += 1
                t = event.get("t", 0)
                hit = [i for i, (a, b) in enumerate(put_in) if a <= t <= b + 0.5]
                heard.update(hit)
                if not hit:
                    kind = steps[max(0, bisect.bisect_right(starts, t) - 1)][1]
                    elsewhere[kind] = elsewhere.get(kind, 0) + 1
            elif kind == "transcript" and event.get("final"):
                counts["final"] += 1
                counts["cancelled"] += bool(event.get("cancelled"))
            elif kind == "error":
                counts["error"] += 1
                print("error event:", event.get("stage"), event.get("message"), flush=True)
            figures = proc_figures(daemon.pid)
            if figures:
                last = figures
            if event.get("t", 0) >= next_mark and figures:
                rss, fds, cpu = figures
                marks.append((next_mark / 3600, rss, fds))
                print(f"{next_mark / 3600:.0f}\t{rss}\t{fds}\t{cpu:.0f}\t"
                      f"{time.monotonic() - began:.0f}\t{counts['command']}\t{counts['wake']}\t"
                      f"{counts['final']}", flush=True)
                next_mark += 3600
        status = daemon.wait()
        wall = time.monotonic() - began
    rss, fds, cpu = last or (0, 0, 0)
    print(f"end: exit {status}, {wall:.0f} s wall, {cpu:.0f} s CPU ({seconds / wall:.0f}x real "
          f"time); last seen rss {rss} KiB, {fds} fds; requests {counts['command']}, wakes "
          f"{counts['wake']}, finals {counts['final']} ({counts['cancelled']} cancelled), put in "
          f"{inserted}, {len(heard)} of them heard; wakes elsewhere {elsewhere}; error events "
          f"{counts['error']}")
    failures = []
    if status != 0:
        failures.append(f"exit {status}: " + "".join(log[-5:]))
    if not counts["command"] == counts["wake"] == counts["final"]:
        failures.append("requests, wakes and final transcripts differ")
    if len(heard) != inserted:
        failures.append(f"{inserted - len(heard)} of the requests put in not heard")
    if counts["cancelled"]:
        failures.append(f"{counts['cancelled']} requests cancelled")
    if len({m[2] for m in marks}) > 1:
        failures.append("open descriptors changed: " + str([m[2] for m in marks]))
    if len(marks) >= 2 and marks[-1][1] - marks[0][1] > args.rss_slack_mb * 1024:
        failures.append(f"resident set grew {marks[0][1]} -> {marks[-1][1]} KiB")
    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
