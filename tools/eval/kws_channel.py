#!/usr/bin/python3
"""The wake-word protocol's audio as a device's own channel delivers it (issue: robust to the
device's microphone): every file of a list (`id<TAB>path`, as build_eval_audio.py and kws_bg10h.py
write them) low-passed at 3.4 kHz with nothing added above (`sox IN -b 16 OUT sinc -3400`, an 8 kHz
codec's band; with -R, its dither repeatable), or with mains hum added (50 Hz and its harmonics up
to 350 Hz, 1/k in amplitude, together at -40 dBFS RMS, fixed phases: deterministic).

usage: tools/eval/kws_channel.py lowpass|hum LIST OUT_DIR   (writes OUT_DIR/<id>.wav and prints
       the new list on stdout)
"""
import os
import subprocess
import sys
import wave

import numpy as np

SR = 16000


def hum(n):
    t = np.arange(n) / SR
    x = sum(np.sin(2 * np.pi * 50 * k * t + 0.7 * k) / k for k in range(1, 8))
    return x / np.sqrt(np.mean(x * x)) * 32768 * 10 ** (-40 / 20)


def add_hum(src, dst):
    raw = subprocess.run(["sox", src, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", str(SR), "-"],
                         check=True, capture_output=True).stdout
    x = np.frombuffer(raw, np.int16).astype(np.float64)
    y = np.clip(np.round(x + hum(len(x))), -32768, 32767).astype("<i2")
    with wave.open(dst, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(y.tobytes())


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("lowpass", "hum"):
        print(__doc__, file=sys.stderr if len(sys.argv) > 1 and sys.argv[1] not in ("-h", "--help") else sys.stdout)
        sys.exit(0 if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help") else 2)
    mode, listing, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    with open(listing) as f:
        for line in f:
            ident, path = line.rstrip("\n").split("\t")[:2]
            dst = os.path.join(out, ident + ".wav")
            if not os.path.exists(dst):
                if mode == "lowpass":
                    subprocess.run(["sox", "-R", "-V1", path, "-b", "16", dst, "sinc", "-3400"], check=True)
                else:
                    add_hum(path, dst)
            print(f"{ident}\t{os.path.abspath(dst)}")


if __name__ == "__main__":
    main()
