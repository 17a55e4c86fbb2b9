#!/usr/bin/python3
"""The echo scenes of echo_scenes.py through earshot (issue 80): for each signal-to-echo ratio, the
wake word's misses without the canceller (`earshot run` on the microphone), with it (`run
--reference`) and without any playback (the person alone); and the echo return loss
enhancement, ERLE: the playback alone (`echo.wav`) against what `earshot cancel-echo` leaves of it,
in dB over the scene from --settle-s on.

With --canceller CMD, another canceller stands for earshot's: `CMD PLAYED FILE OUT` writes FILE
less PLAYED's echo to OUT, which `earshot run` then hears without a reference (build/bench/
echo_compare webrtc-aec, say).

usage: tools/eval/echo_eval.py EARSHOT SCENES_DIR [--keyword computer] [--settle-s 2]
       [--canceller CMD] [-- EXTRA_RUN_ARGS...]   (a table; a JSON line per scene with --verbose)
"""
import json
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from echo_scenes import parse_with_extra, read_scenes, scenes_parser  # noqa: E402


def samples(path):
    with wave.open(path, "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float64)


def cancel(args, played, mic, out):
    """`mic` less the echo of `played`, written to `out`: earshot's canceller or --canceller's."""
    cmd = args.canceller.split() + [played, mic, out] if args.canceller else \
        [args.earshot, "cancel-echo", "--reference", played, mic, out]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def woke(earshot, mic, keyword, start, end, extra, reference=None):
    """Whether `keyword` woke between the person's start and 1 s after the clip's end."""
    cmd = [earshot, "run", "--stages", "vad,kws"] + extra
    if reference:
        cmd += ["--reference", reference]
    out = subprocess.run(cmd + [mic], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        e = json.loads(line)
        if e.get("event") == "wake" and e.get("keyword") == keyword and start <= e["t"] <= end + 1:
            return True
    return False


def erle(args, folder, tmp):
    settle_s = args.settle_s
    out = cancel(args, os.path.join(folder, "ref.wav"), os.path.join(folder, "echo.wav"),
                 os.path.join(tmp, "cancelled.wav"))
    a = samples(os.path.join(folder, "echo.wav"))[int(settle_s * 16000):]
    b = samples(out)[int(settle_s * 16000):len(a) + int(settle_s * 16000)]
    return 10 * np.log10(np.sum(a * a) / max(np.sum(b * b), 1.0))


def main():
    parser = scenes_parser(__doc__)
    parser.add_argument("--settle-s", type=float, default=2.0)
    parser.add_argument("--canceller")
    parser.add_argument("--verbose", action="store_true")
    args, extra = parse_with_extra(parser, sys.argv[1:])
    rows, sers = read_scenes(args.scenes)
    counts = {"clean": 0, **{f"{s} {how}": 0 for s in sers for how in ("without", "with")}}
    gains = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene, _, start, end, _, delay in rows:
            folder = os.path.join(args.scenes, scene)
            start, end = float(start), float(end)
            got = {"scene": scene, "delay_ms": int(delay)}
            got["clean"] = woke(args.earshot, os.path.join(folder, "clean.wav"), args.keyword,
                                start, end, extra)
            for s in sers:
                mic = os.path.join(folder, f"mic_{s}.wav")
                got[f"{s} without"] = woke(args.earshot, mic, args.keyword, start, end, extra)
                played = os.path.join(folder, "ref.wav")
                if args.canceller:
                    cleaned = cancel(args, played, mic, os.path.join(tmp, "mic.wav"))
                    got[f"{s} with"] = woke(args.earshot, cleaned, args.keyword, start, end, extra)
                else:  # the product's path: the canceller and the playback's own keywords
                    got[f"{s} with"] = woke(args.earshot, mic, args.keyword, start, end, extra,
                                            played)
            got["erle_db"] = round(erle(args, folder, tmp), 2)
            gains.append(got["erle_db"])
            for k in counts:
                counts[k] += 0 if got[k] else 1
            if args.verbose:
                print(json.dumps(got), flush=True)
    n = len(rows)
    print(f"{n} scenes; ERLE after {args.settle_s:g} s: median {np.median(gains):.1f} dB, "
          f"10th percentile {np.percentile(gains, 10):.1f} dB")
    print(f"missed without playback: {counts['clean']} of {n} ({100 * counts['clean'] / n:.1f}%)")
    print("| signal-to-echo | missed without the canceller | missed with it |")
    print("|---|---|---|")
    for s in sers:
        a, b = counts[f"{s} without"], counts[f"{s} with"]
        print(f"| {s} dB | {a} of {n} ({100 * a / n:.1f}%) | {b} of {n} ({100 * b / n:.1f}%) |")


if __name__ == "__main__":
    main()
