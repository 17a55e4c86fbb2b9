#!/usr/bin/python3
"""Trains earshot's keyword spotter for "computer": an int8 MLP over one second of the device's
log-mel frames (the integer transform of kws_input.py), scored every 10 ms hop.

usage: tools/train/train_kws.py [--data ../shared/data] [--earshot build/tools/earshot]
                                [--out models/kws/computer.eshm] [--hidden 64,32] [--streams 280]

Positives: wakeword/computer/train (a tenth kept for validation; computer/dev is the evaluation's),
each placed at a random offset, with gain, noise at 0-20 dB SNR (a quarter clean) and rir/
reverberation. Negatives: speech/ (LibriSpeech), kws/train, the other wake words (snowboy,
view_glass) and kws_aux/fsdd, mixed the same way. Targets: 1 on the hops from 30 ms before to
120 ms after the keyword's last voiced frame, ignored on the rest of the keyword, 0 elsewhere.
Seeded: the same data give the same model.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import kws_input  # noqa: E402
import vad_export  # noqa: E402
from augment import NoiseBank, active_power, is_dev, list_audio, read_rirs, reverberate  # noqa: E402
from mlp_train import auc, float_weights, open_log, train_mlp  # noqa: E402

SEED = 20261123
INPUT_SCALE = 1.0 / 32
KEYWORD = "computer"


def keyword_span(x):
    """First and last voiced 10 ms frame of a keyword clip (the eval protocol's 40 dB rule)."""
    lab = audio_io.speech_labels(x)
    idx = np.flatnonzero(lab)
    return (idx[0], idx[-1]) if len(idx) else (0, len(lab) - 1)


def build_stream(rng, positives, negatives, rirs, noise, cache, n_pos, n_neg):
    pieces, targets = [], []
    items = [True] * n_pos + [False] * n_neg
    rng.shuffle(items)
    for positive in items:
        gap = int(rng.uniform(0.1, 0.8) * 100) * audio_io.HOP
        pieces.append(np.zeros(gap))
        targets.append(np.zeros(gap // audio_io.HOP))
        pool = positives if positive else negatives
        path = pool[rng.integers(0, len(pool))]
        if path not in cache:
            cache[path] = audio_io.read_audio(path).astype(np.float64)
        x = cache[path] * 10 ** (rng.uniform(-12, 6) / 20)
        span = keyword_span(x) if positive else None
        if rirs and rng.uniform() < 0.25:
            x = reverberate(x, rirs[rng.integers(0, len(rirs))])
        n = (len(x) + audio_io.HOP - 1) // audio_io.HOP * audio_io.HOP
        xp = np.zeros(n)
        xp[:len(x)] = x
        t = np.zeros(n // audio_io.HOP)
        if positive:
            first, last = span
            t[first:min(len(t), last + 30)] = -1          # partial keyword: not scored
            t[max(0, last - 3):min(len(t), last + 13)] = 1
        pieces.append(xp)
        targets.append(t)
    s = np.concatenate(pieces)
    y = np.concatenate(targets)
    if rng.uniform() < 0.75 and active_power(s) > 0:
        snr = rng.uniform(0, 20)
        s = s + noise.sample(len(s)) * np.sqrt(active_power(s) / 10 ** (snr / 10))
    return s, y


def make_set(args, rng, positives, negatives, rirs, noise, n_streams, log):
    xs, ys = [], []
    cache = {}
    t0 = time.time()
    for _ in range(n_streams):
        s, y = build_stream(rng, positives, negatives, rirs, noise, cache, 3, 5)
        mel = audio_io.logmel(args.earshot, s)
        xs.append(kws_input.stack_context(kws_input.frame_inputs(mel)))
        ys.append(y[:len(mel)])
    x, y = np.concatenate(xs), np.concatenate(ys).astype(np.float32)
    log(f"  {n_streams} streams, {len(y) / 100 / 60:.1f} min, {int((y > 0).sum())} positive hops, "
        f"built in {time.time() - t0:.0f} s")
    return x, y


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.path.join(root, "..", "shared", "data"))
    p.add_argument("--earshot", default=os.path.join(root, "build", "tools", "earshot"))
    p.add_argument("--out", default=os.path.join(root, "models", "kws", "computer.eshm"))
    p.add_argument("--log", default=os.path.join(root, "models", "kws", "computer_train.log"))
    p.add_argument("--hidden", default="64,32")
    p.add_argument("--streams", type=int, default=280)
    p.add_argument("--epochs", type=int, default=10)
    args = p.parse_args()
    hidden = tuple(int(v) for v in args.hidden.split(","))
    torch.set_num_threads(1)
    log = open_log(args.log)

    rng = np.random.default_rng(SEED)
    positives = list_audio(args.data, "wakeword/computer/train")
    negatives = []
    for sub in ("speech", "kws/train", "wakeword/snowboy", "wakeword/view_glass", "kws_aux/fsdd/train"):
        negatives += list_audio(args.data, sub)
    rirs = read_rirs(args.data)
    noise = NoiseBank(args.data, rng)
    split = lambda files, dev: [f for f in files if is_dev(f) == dev]  # noqa: E731
    log(f"KWS '{KEYWORD}' training, seed {SEED}: {len(split(positives, False))} train / "
        f"{len(split(positives, True))} dev keyword clips, {len(negatives)} negative files")
    x, y = make_set(args, rng, split(positives, False), split(negatives, False), rirs, noise,
                    args.streams, log)
    xd, yd = make_set(args, rng, split(positives, True), split(negatives, True), rirs, noise,
                      max(2, args.streams // 10), log)
    log(f"model: {len(kws_input.CONTEXT)} frames x {kws_input.POOLED} bands, hidden {hidden}")
    # About 1 hop in 100 is a keyword end: weigh those 20 to 1.
    model = train_mlp(x, y, xd, yd, hidden, args.epochs, seed=SEED, lr=1e-3, input_scale=INPUT_SCALE,
                      log=log, pos_weight=20.0, metric="dev hop AUC")
    weights = float_weights(model)
    q = vad_export.quantize(weights, INPUT_SCALE, x[y >= 0][::11], kws_input.CONTEXT)
    dkeep = yd >= 0
    log(f"int8 model: dev hop AUC {auc(vad_export.run_int(q, xd[dkeep]).astype(np.float64), yd[dkeep]):.4f}, "
        f"{sum(w.size for w, _ in weights)} weights")
    items = [("context", np.array(kws_input.CONTEXT, np.int32)),
             ("kws_transform", np.array(kws_input.TRANSFORM, np.int32))] + vad_export.mlp_tensors(q)
    vad_export.write_tensors(args.out, "kws-mlp", items)
    log(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
