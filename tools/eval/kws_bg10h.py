#!/usr/bin/python3
"""Ten hours of wake-word background for the shared protocol (the issue's "loop it with different
noises, SNRs and gains to reach 10 hours"): the protocol's own 10 dB background (bg_noisy, about
1.1 h) and 8 more passes over its clean speech (bg_clean), each with its own level, SNR and place
in the protocol's noise loop, mixed by the protocol's recipe (build_eval_audio.py: active power
over each utterance's frames within 30 dB of its loudest, y = clip(round(s + g * noise))).
Deterministic: no randomness.

usage: tools/eval/kws_bg10h.py EVAL_DIR OUT_DIR   (writes OUT_DIR/loop*_part*.wav and OUT_DIR/bg10h.list)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL_CODE = os.environ.get("EARSHOT_EVAL_DIR", os.path.join(HERE, "..", "..", "..", "shared", "eval"))
sys.path.insert(0, EVAL_CODE)
import build_eval_audio as protocol  # noqa: E402

# (speech level change in dB, SNR in dB, noise loop offset in s) per extra pass
LOOPS = [(-10, 10, 600), (0, 5, 1200), (-20, 15, 1800), (0, 20, 2400),
         (4, 10, 3000), (-6, 0, 3600), (-30, 10, 4200), (-3, 7, 4800)]


def utterance_active_power(x, starts_ends):
    act = [protocol.active_frames(x[int(round(a * protocol.SR)):int(round(b * protocol.SR))])
           for a, b in starts_ends]
    return np.concatenate(act).mean()


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    eval_dir, out = sys.argv[1], sys.argv[2]
    ww = os.path.join(eval_dir, "ww")
    noise = protocol.Noise(os.path.join(EVAL_CODE, "..", "data"), protocol.LAYOUTS["shared"]["noise"])
    spans = {}
    for r in protocol_rows(os.path.join(ww, "bg_index.tsv")):
        spans.setdefault(r[0], []).append((float(r[2]), float(r[3])))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bg10h.list"), "w") as lst:
        for pid, path in protocol_rows(os.path.join(ww, "bg_noisy.list")):
            lst.write(f"loop0_{pid}\t{path}\n")
        clean = protocol_rows(os.path.join(ww, "bg_clean.list"))
        for k, (level_db, snr_db, offset_s) in enumerate(LOOPS, start=1):
            t0 = 0
            for pid, path in clean:
                s = protocol.read(path) * 10 ** (level_db / 20)
                g = protocol.gain(utterance_active_power(s, spans[pid]), snr_db)
                y = s + g * noise.seg(int(offset_s * protocol.SR) + t0, len(s))
                t0 += len(s)
                wav = os.path.join(out, f"loop{k}_{pid}.wav")
                clipped = protocol.write(wav, y)
                lst.write(f"loop{k}_{pid}\t{wav}\n")
                print(f"loop{k} {pid}: level {level_db:+d} dB, SNR {snr_db} dB, {len(s) / 16000:.0f} s, "
                      f"{clipped} samples clipped", flush=True)


def protocol_rows(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("part\t")]


if __name__ == "__main__":
    main()
