#!/usr/bin/python3
"""Trains earshot's VAD: an int8 MLP over the fixed-point front end's log-mel frames.

usage: tools/train/train_vad.py [--data ../shared/data] [--earshot build/tools/earshot]
                                [--out models/vad/vad.eshm] [--log models/vad/vad_train.log]

Data (all from --data, read in place):
  speech: speech/ (LibriSpeech), kws/train (Speech Commands), wakeword/{computer/train,snowboy,
          view_glass}, kws_aux/fsdd/train. stt/ and kws/dev are left out: the shared VAD evaluation
          protocol is built from them, so it stays a fair test of this model.
  noise:  noise/ recordings, and synthetic white, pink and brown noise, tones, mains hum and
          music-like chords; rir/ reverberation on a quarter of the utterances.
Streams alternate gaps and utterances as the evaluation protocol does, mixed at random SNRs from
-5 to 25 dB (a fifth left clean) and random levels; labels come from the clean speech with the
protocol's rule. Features come from `earshot features` (the device's integers), then the integer
VAD input transform of vad_input.py. Everything is seeded: the same data give the same model.
"""
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
from augment import NoiseBank, active_power, is_dev, list_audio, read_rirs, reverberate  # noqa: E402
import vad_input  # noqa: E402
import vad_export  # noqa: E402
from mlp_train import auc, float_weights, open_log, train_mlp  # noqa: E402

SEED = 20261122
INPUT_SCALE = 1.0 / 64  # the float model reads int8 inputs times this


def build_stream(rng, speech, rirs, noise, n_utts):
    pieces, labels = [], []

    def gap():
        n = int(rng.uniform(0.3, 3.0) * 100) * audio_io.HOP
        pieces.append(np.zeros(n))
        labels.append(np.zeros(n // audio_io.HOP, bool))

    gap()
    for _ in range(n_utts):
        x = audio_io.read_audio(speech[rng.integers(0, len(speech))]).astype(np.float64)
        if rirs and rng.uniform() < 0.25:
            x = reverberate(x, rirs[rng.integers(0, len(rirs))])
        n = (len(x) + audio_io.HOP - 1) // audio_io.HOP * audio_io.HOP
        xp = np.zeros(n)
        xp[:len(x)] = x
        pieces.append(xp)
        labels.append(audio_io.speech_labels(xp))
        gap()
    s = np.concatenate(pieces)
    lab = np.concatenate(labels)
    if active_power(s) > 0:
        s *= 10 ** (rng.uniform(-38, -14) / 20) * 32768 / np.sqrt(active_power(s))
    if rng.uniform() < 0.8:
        snr = rng.uniform(-5, 25)
        s = s + noise.sample(len(s)) * np.sqrt(active_power(s) / 10 ** (snr / 10))
    return s, lab


def build_noise_stream(rng, noise):
    n = int(rng.uniform(5, 15) * 100) * audio_io.HOP
    return noise.sample(n) * 32768 * 10 ** (rng.uniform(-65, -8) / 20), np.zeros(n // audio_io.HOP, bool)


def make_set(args, rng, speech, rirs, noise, n_streams, n_noise, log):
    xs, ys = [], []
    t0 = time.time()
    for i in range(n_streams + n_noise):
        if i < n_streams:
            s, lab = build_stream(rng, speech, rirs, noise, int(rng.integers(3, 8)))
        else:
            s, lab = build_noise_stream(rng, noise)
        mel = audio_io.logmel(args.earshot, s)
        assert len(mel) == len(lab), (len(mel), len(lab))
        xs.append(vad_input.stack_context(vad_input.frame_inputs(mel), args.context))
        ys.append(lab)
    log(f"  {n_streams} speech + {n_noise} noise streams, {sum(len(y) for y in ys) / 100 / 60:.1f} min, "
        f"speech {np.concatenate(ys).mean():.3f}, built in {time.time() - t0:.0f} s")
    return np.concatenate(xs), np.concatenate(ys).astype(np.float32)


def main():
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("--out", default=os.path.join(root, "models", "vad", "vad.eshm"))
    p.add_argument("--log", default=os.path.join(root, "models", "vad", "vad_train.log"))
    p.add_argument("--vectors", default=os.path.join(root, "tests", "data", "vad_vectors.txt"))
    p.add_argument("--streams", type=int, default=2880,
                   help="speech streams, and an eighth as many of noise alone (bundled: 2880)")
    p.add_argument("--hidden", default="32,16", help="hidden layer widths")
    p.add_argument("--context", default=",".join(map(str, vad_input.CONTEXT)),
                   help="frame offsets the model reads around the scored frame, ascending")
    p.add_argument("--epochs", type=int, default=12)
    args = p.parse_args()
    args.context = tuple(int(v) for v in args.context.split(","))
    hidden = tuple(int(v) for v in args.hidden.split(","))
    torch.set_num_threads(1)
    log = open_log(args.log)

    rng = np.random.default_rng(SEED)
    speech = []
    for sub in ("speech", "kws/train", "wakeword/computer/train", "wakeword/snowboy",
                "wakeword/view_glass", "kws_aux/fsdd/train"):
        speech += list_audio(args.data, sub)
    train_speech = [f for f in speech if not is_dev(f)]
    dev_speech = [f for f in speech if is_dev(f)]
    rirs = read_rirs(args.data)
    noise = NoiseBank(args.data, rng)
    log(f"VAD training, seed {SEED}: {len(train_speech)} train / {len(dev_speech)} dev speech files")
    x, y = make_set(args, rng, train_speech, rirs, noise, args.streams, args.streams // 8, log)
    xd, yd = make_set(args, rng, dev_speech, rirs, noise, args.streams // 8, args.streams // 64, log)
    log(f"model: context {args.context}, hidden {hidden}, {args.epochs} epochs")
    model = train_mlp(x, y, xd, yd, hidden, args.epochs, seed=SEED, lr=2e-3, input_scale=INPUT_SCALE,
                      log=log)
    weights = float_weights(model)
    qmodel = vad_export.quantize(weights, INPUT_SCALE, x[::7], args.context)
    dev_int = vad_export.run_int(qmodel, xd)
    log(f"int8 model: dev AUC {auc(dev_int.astype(np.float64), yd):.4f} (float above), "
        f"{sum(w.size for w, _ in weights)} weights")
    vad_export.write_model(args.out, qmodel)
    s, _ = build_stream(np.random.default_rng(SEED + 1), dev_speech, rirs, noise, 2)
    vad_export.write_vectors(args.vectors, qmodel, audio_io.logmel(args.earshot, s))
    log(f"wrote {args.out} ({os.path.getsize(args.out)} bytes) and {args.vectors}")


if __name__ == "__main__":
    main()
