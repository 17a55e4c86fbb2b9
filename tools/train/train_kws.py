#!/usr/bin/python3
"""Trains earshot's keyword spotters for "computer": a large int8 network over 1.5 s of the device's
log-mel frames (the integer transform of kws_input.py), and a small one trained on the rows and
hard negatives of the large one's training. Both are scored every 10 ms hop.

usage: tools/train/train_kws.py [--data ../shared/data] [--earshot build/tools/earshot]
           [--out models/kws/computer.eshm] [--small-out models/kws/computer_small.eshm]
           [--frames 77] [--conv 5,2,64] [--conv2 5,2,64|none] [--hidden 96]
           [--small-channels 32] [--small-stride N] [--small-conv2 K,S,C] [--small-hidden 32]
           [--seed 20261123] [--streams 300] [--epochs 12]
           [--mine-rounds 6] [--mine-streams 300] [--mine-speech-frac 0.8]
           [--small-fresh] [--small-mine-rounds 2] [--spec-mask FRAMES,BANDS]
           [--transform 6,7,-24,63] [--noise-suppression] [--start-cut 0] [--transients 0]
           [--neg-speed]
           [--synth none|cache|DIR] [--synth-pos-frac 0.4] [--near-frac 0.15] [--checkpoint FILE]
           [--large-from FILE] [--log FILE]
The defaults give the bundled large model; tools/recipes/kws_computer.sh and kws_computer_small.sh
rebuild the bundled two. The other options are the variants of docs/research/kws.md that are
still measured against them (more rounds of mining, speech-heavier mining streams, kws_synth.py's
synthetic speech, streams that start inside a clip, synthetic clatter, negatives at other speeds,
other contexts and shapes); the retired models' options (an MLP large model, epochs over the same
streams, pruned and distilled small models, training on from a model file) went with them.

Positives: wakeword/computer/train (a tenth kept for validation; computer/dev is the evaluation's),
each placed at a random offset, with gain, speed 0.88-1.12, rir/ reverberation and noise at 0-20 dB
SNR. Negatives: speech/ (LibriSpeech, half the negative clips), kws/train, the other wake words
(snowboy, view_glass) and kws_aux/fsdd, mixed the same way; stt/ is left out (the evaluation's
background). With --synth, synthetic keywords (espeak-ng, flite) join the positives and synthetic
near misses ("commuter", "cucumber", ...) the negatives, training split only.
Targets: 1 on the hops from 30 ms before to 120 ms after the keyword's last voiced
frame, ignored on the rest of the keyword, 0 elsewhere.
Large: 77 frames (every 2nd of the last 1.5 s: the keyword and the pause before it) x 20 bands; a
convolution over time (one linear map to 64 channels, ReLU, applied to every window of 5 frames,
every 2nd frame: 37 positions), a second one over its positions (every window of 5, every 2nd: 17
positions x 64 channels, ReLU), then 1088 -> 96 -> 1; dropout 0.2, 12 epochs, each after the first
on a new draw of 300 augmented streams (4.4 h: with 208 keyword clips, epochs over the same streams
only memorise them); then, six times, its false accepts on 300 fresh negative streams (5.3 h, 80%
of their clips read speech, where the false accepts come from) are mined, and 2 more epochs (new
streams again, plus every mined hop so far) follow.
Small: --small-channels channels and --small-hidden hidden units, trained from scratch for
--epochs on the large one's last rows (its mined hard negatives included): better on the 10.2 h
evaluation (docs/research/kws.md) than pruned weights fine-tuned with the large one as teacher.
--small-fresh trains it the way the large one was (new draws each epoch, then two rounds of mining
its own false accepts): better from 1 FA/h up, worse at 1 in 10 h (docs/research/kws.md's variants).
--large-from FILE trains the small model alone, from a large model file instead of the large
model's training: FILE (int8, as the device runs it) mines --mine-rounds rounds of fresh negative
streams for the hard negatives the small model starts from (in place of the rows mined while the
large model trained); with --small-fresh, then the small model's own rounds.
--small-stride N gives the small model a window every N frames instead of the large one's (the
bundled small model: every 3rd, 44 channels), trained from scratch; --conv2 K,S,C is the large
model's second convolution, over K of the first one's positions every S, to C channels (none: a
single convolution; --small-conv2, a second convolution in the small one).
Outputs: Q4 logits, score = sigmoid(logit / 4).
Seeded: the same data give the same models. A run of hours can keep its state after each stage of
the large model (--checkpoint FILE: the first epochs, then each mining round) and, stopped, go on
from there with the same command: its models are the bytes of a run never stopped.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import checkpoint  # noqa: E402
import kws_input  # noqa: E402
import kws_model  # noqa: E402
import kws_synth  # noqa: E402
import vad_export  # noqa: E402
from augment import NoiseBank, is_dev, list_audio, read_rirs  # noqa: E402
from kws_constants import LOGIT_Q, MINE_PROB, POS_WEIGHT, TEMPERATURE  # noqa: E402
from kws_data import Sources, make_set  # noqa: E402
from mlp_train import open_log  # noqa: E402

SEED = 20261123
INPUT_SCALE = 1.0 / 32
KEYWORD = "computer"
LARGE_FRAMES = 77  # the large model reads every 2nd frame of the last 1.5 s
DROPOUT = 0.2  # the large model (only 208 keyword clips to learn from): less overfitting


def large_context(frames):
    """The large model's context offsets: `frames` frames, every 2nd hop, the newest the hop's own."""
    return tuple(range(-2 * (frames - 1), 1, 2))


def split_sources(data, dev, synth=None, synth_pos_frac=0.0, near_frac=0.0):
    """The training (dev=False) or validation sources; synthetic clips ({kind: files} of
    kws_synth.py) go to training only: the validation split is real recordings."""
    keep = lambda files: [f for f in files if is_dev(f) == dev]  # noqa: E731
    others = []
    for sub in ("kws/train", "wakeword/snowboy", "wakeword/view_glass", "kws_aux/fsdd/train"):
        others += list_audio(data, sub)
    synth = synth if synth and not dev else {}
    return Sources(keep(list_audio(data, "wakeword/computer/train")), keep(list_audio(data, "speech")),
                   keep(others), synth.get("pos", ()), synth.get("near", []) + synth.get("other", []),
                   synth_pos_frac, near_frac)


class Dev:
    """The dev streams and the metrics logged while training."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def float_scores(self, model):
        return 1 / (1 + np.exp(-kws_model.logits(model, self.x, INPUT_SCALE) / TEMPERATURE))

    def float_metrics(self, model):
        return self.describe(self.float_scores(model))

    def int_metrics(self, q):
        return self.describe(vad_export.run_int(q, self.x).astype(np.float64))

    def describe(self, scores):
        miss0, miss1 = kws_model.detection(scores, self.y, 360000)
        return f"dev miss {100 * miss0:.1f}% at 0 FA, {100 * miss1:.1f}% at <= 1 FA/h"


def export(path, model, context, args, calibration, log, dev, what):
    q = vad_export.quantize(kws_model.weights(model), INPUT_SCALE, calibration, context,
                            logit_q=LOGIT_Q, temperature=TEMPERATURE)
    items = [("context", np.array(context, np.int32)),
             ("kws_transform", np.array(args.transform, np.int32))]
    if args.noise_suppression:  # absent: the log-mel as it is (every model before the option)
        items.append(("kws_noise_suppression", np.array([1], np.int32)))
    items += vad_export.mlp_tensors(q)
    vad_export.write_tensors(path, "kws-mlp", items)
    n = sum(layer[0].size for layer in kws_model.weights(model))
    log(f"{what}: int8 {dev.int_metrics(q)}; {n} weights, wrote {path} ({os.path.getsize(path)} bytes)")


def ints(text):
    return tuple(int(v) for v in text.split(","))


def make_large(args, log):
    """The large model before training: a ConvMlp (--conv kernel,stride,channels)."""
    hidden = ints(args.hidden)
    torch.manual_seed(args.seed)
    kernel, stride, channels = ints(args.conv)
    mix = None if args.conv2 == "none" else ints(args.conv2)
    model = kws_model.ConvMlp(args.frames, kws_input.POOLED, kernel, stride, channels, hidden,
                              dropout=DROPOUT, mix=mix)
    conv = kws_model.describe_conv(args.frames, kernel, stride, channels, mix)
    log(f"large: {args.frames} frames x {kws_input.POOLED} bands, {conv}, MLP hidden {hidden}")
    return model


def train_mined(args, model, x, y, rounds, make_train_set, make_mining_set, mined, dev, log, done=0,
                finished=lambda stage, mined, rows: None):
    """args.epochs of model on the rows x, y, then per mining round (rounds) its false accepts on
    fresh negative streams (make_mining_set) join the rows and args.mine_epochs more. Each epoch
    after the first draws new training streams (make_train_set), every mined row kept (mined: the
    rows mined before, a pair). Stages: 1, the first epochs; 1 + r, mining round r. done: the
    stages a resumed run has finished (x, y, mined and model as they left them); finished(stage,
    mined, rows) is called after each. Returns every row mined and the model's last training rows."""
    rows = x, y  # what the last epoch trained on

    def refresh():
        nonlocal rows
        xf, yf = make_train_set()
        rows = np.concatenate([xf, mined[0]]), np.concatenate([yf, mined[1]])
        return rows

    fit = dict(input_scale=INPUT_SCALE, pos_weight=POS_WEIGHT, log=log, evaluate=dev.float_metrics,
               refresh=refresh, mask=args.spec_mask, ema=args.ema)
    if done < 1:
        kws_model.train(model, x, y, args.epochs, seed=args.seed, lr=1e-3, **fit)
        finished(1, mined, rows)
    for r in range(max(done - 1, 0), rounds):
        xm, ym = make_mining_set()
        xh, yh = kws_model.mine_hard_negatives(model, xm, ym, INPUT_SCALE, MINE_PROB)
        log(f"hard negatives, round {r + 1}: {len(yh)} of {int((ym == 0).sum())} mined hops score >= {MINE_PROB}; "
            "training on")
        del xm, ym
        mined = np.concatenate([mined[0], xh]), np.concatenate([mined[1], yh])
        rows = np.concatenate([rows[0], xh]), np.concatenate([rows[1], yh])
        kws_model.train(model, *rows, args.mine_epochs, seed=args.seed + 1 + r, lr=3e-4, **fit)
        finished(2 + r, mined, rows)
    return mined, rows


def read_large(path, args):
    """The int8 large model in path (--large-from), checked against this run's input."""
    try:
        t = vad_export.read_tensors(path)
        q = vad_export.mlp_from_tensors(t)
    except (OSError, AssertionError, KeyError, ValueError) as e:
        sys.exit(f"{path}: not a keyword model file ({type(e).__name__}: {e})")
    expected = {"context": large_context(args.frames), "kws_transform": tuple(args.transform),
                "kws_noise_suppression": (1,) if args.noise_suppression else None}
    for name, want in expected.items():
        have = tuple(int(v) for v in t[name]) if name in t else None
        if have != want:
            sys.exit(f"{path}: its {name} is {have}, this run's is {want}")
    return q


def mine_with(q, path, args, mining_set, log):
    """The hard negatives of --mine-rounds fresh mining streams that the int8 model q of the file
    path (as the device runs it) scores at or above mine_hard_negatives' threshold, as (rows,
    targets)."""
    logit = np.log(MINE_PROB / (1 - MINE_PROB))  # the float logit's threshold, on the Q15 score
    min_q15 = int(np.ceil(32767 / (1 + np.exp(-logit / TEMPERATURE))))
    mined = []
    for r in range(args.mine_rounds):
        xm, ym = mining_set()
        hard = (ym == 0) & (vad_export.run_int(q, xm) >= min_q15)
        log(f"hard negatives of {os.path.basename(path)}, round {r + 1}: {int(hard.sum())} of "
            f"{int((ym == 0).sum())} mined hops score >= {min_q15 / 32767:.3f}")
        mined.append((xm[hard], ym[hard]))
    return np.concatenate([m[0] for m in mined]), np.concatenate([m[1] for m in mined])


def start_from_file(q, path, x, y, args, mining_set, log):
    """--large-from: the hard negatives the model file path (q) mines (mine_with), and the first
    training rows x, y with them. Returns (mined, (x, y))."""
    mined = mine_with(q, path, args, mining_set, log)
    return mined, (np.concatenate([x, mined[0]]), np.concatenate([y, mined[1]]))


def small_shape(args, log):
    """A maker of the untrained small model: --conv's kernel, --small-stride (default: the large
    model's), --small-channels, --small-conv2 and --small-hidden."""
    hidden = ints(args.small_hidden)
    kernel, large_stride, _ = ints(args.conv)
    stride, channels = args.small_stride or large_stride, int(args.small_channels)
    mix = ints(args.small_conv2) if args.small_conv2 else None
    log(f"small: {kws_model.describe_conv(args.frames, kernel, stride, channels, mix)}, "
        f"MLP hidden {hidden}")
    return lambda: kws_model.ConvMlp(args.frames, kws_input.POOLED, kernel, stride, channels,
                                     hidden, mix=mix)


def train_small(args, x, y, mined, make_train_set, mining_set, dev, log):
    """The small model, trained from scratch on the large one's last rows for args.epochs (with
    --small-fresh: the way the large one was, from its last rows and every hop mined for it, then
    args.small_mine_rounds of mining its own false accepts)."""
    make = small_shape(args, log)
    log("  from scratch, hard targets:")
    torch.manual_seed(args.seed)
    model = make()
    if not args.small_fresh:
        return kws_model.train(model, x, y, args.epochs, seed=args.seed, lr=1e-3,
                               input_scale=INPUT_SCALE, pos_weight=POS_WEIGHT, log=log,
                               evaluate=dev.float_metrics, mask=args.spec_mask, ema=args.ema)
    train_mined(args, model, x, y, args.small_mine_rounds, make_train_set, mining_set, mined, dev,
                log)
    return model


def large_run_args(args):
    """The options the large model's stages depend on: a resumed run must have the same."""
    elsewhere = {"out", "log", "earshot", "checkpoint", "large_from"}  # and every small_* one
    return {k: v for k, v in vars(args).items() if k not in elsewhere and not k.startswith("small_")}


def parse_args():
    """The command line, its combinations checked, the log's default path filled in."""
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("--out", default=os.path.join(root, "models", "kws", "computer.eshm"))
    p.add_argument("--small-out", default=os.path.join(root, "models", "kws", "computer_small.eshm"))
    p.add_argument("--log", help="the training log (default: models/kws/computer_train.log; with "
                                 "--large-from, computer_small_train.log)")
    p.add_argument("--large-from", metavar="FILE",
                   help="train only the small model: the large model in FILE (one this script wrote, "
                        "e.g. the bundled one) mines the hard negatives it starts from, --mine-rounds "
                        "rounds of fresh mining streams (no --checkpoint: it keeps the large "
                        "model's stages)")
    p.add_argument("--conv", default="5,2,64", metavar="K,S,C",
                   help="the large model's convolution over time: kernel,stride,channels (in input "
                        "frames)")
    p.add_argument("--conv2", metavar="K,S,C", default="5,2,64",
                   help="the large model's second convolution, over K of the first one's positions "
                        "every S, to C channels; 'none': a single convolution (the models before)")
    p.add_argument("--frames", type=int, default=LARGE_FRAMES,
                   help="the large model's context: this many frames, every 2nd hop (77: 1.5 s)")
    p.add_argument("--hidden", default="96", help="the MLP's hidden layers")
    p.add_argument("--small-channels", default="32", help="channels the small model keeps (conv)")
    p.add_argument("--small-stride", type=int,
                   help="the small model's window step in frames (default: the large model's)")
    p.add_argument("--small-conv2", metavar="K,S,C",
                   help="a second convolution in the small model, as --conv2")
    p.add_argument("--small-hidden", default="32", help="the small model's hidden units")
    p.add_argument("--seed", type=int, default=SEED,
                   help="seeds every draw and the initial weights (the bundled models: the default)")
    p.add_argument("--streams", type=int, default=300)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--mine-epochs", type=int, default=2)
    p.add_argument("--ema", type=float, default=0.0,
                   help="end each training call with the moving average of the weights, this decay "
                        "per batch of 512 (0.999: about the last 1000 batches, one epoch); 0: the last "
                        "batch's weights")
    p.add_argument("--mine-rounds", type=int, default=6, help="rounds of hard-negative mining")
    p.add_argument("--transform", type=ints, default=tuple(kws_input.TRANSFORM),
                   metavar="MEAN_SHIFT,STEP_SHIFT,MIN,MAX",
                   help="the input transform of kws_input.py, written to the model files")
    p.add_argument("--noise-suppression", action=argparse.BooleanOptionalAction, default=False,
                   help="the models read the log-mel after the front end's noise suppression "
                        "(features/noise_suppression.h; written to the model files)")
    p.add_argument("--spec-mask", type=ints, default=None, metavar="FRAMES,BANDS",
                   help="SpecAugment while training: hide up to FRAMES input frames and BANDS bands "
                        "of each row (the large model's 77 x 20)")
    p.add_argument("--small-fresh", action=argparse.BooleanOptionalAction, default=False,
                   help="train the small model the way the large one is: a new draw of streams "
                        "each epoch after the first, then --small-mine-rounds of mining its own false "
                        "accepts (default: --epochs on the large one's last rows)")
    p.add_argument("--small-mine-rounds", type=int, default=2,
                   help="rounds of mining the small model's own false accepts (with --small-fresh)")
    p.add_argument("--mine-streams", type=int, default=300, help="negative streams per mining round")
    p.add_argument("--mine-speech-frac", type=float, default=0.8,
                   help="share of read speech among the mining streams' negatives")
    p.add_argument("--start-cut", type=float, default=0.0, metavar="SHARE",
                   help="this share of the training and mining streams starts 0-2 s later, possibly "
                        "inside a clip: stream starts as recordings have them (0: the bundled models)")
    p.add_argument("--neg-speed", action="store_true",
                   help="the training and mining streams' negatives change speed (0.88-1.12) as the "
                        "keywords do (off: the bundled models)")
    p.add_argument("--transients", type=float, default=0.0, metavar="SHARE",
                   help="this share of the streams' noise is synthetic clatter, knocks and ringing "
                        "(augment.NoiseBank._transients) instead of the other kinds (0: the bundled models)")
    p.add_argument("--channel", type=float, default=0.0, metavar="SHARE",
                   help="this share of the training and mining streams goes through a device's "
                        "microphone and codec (augment.device_channel: band limits of 3-8 kHz with "
                        "nothing above, hum, AGC, clipping, codec noise; 0: the models before it)")
    p.add_argument("--synth", default="none",
                   help="add kws_synth.py's synthetic speech from this cache dir ('cache': its default "
                        "dir); 'none' (default): the bundled models were trained without it")
    p.add_argument("--synth-scale", type=float, default=1.0,
                   help="below 1: fewer synthetic clips (smoke test)")
    p.add_argument("--synth-pos-frac", type=float, default=0.4, help="share of synthetic positives")
    p.add_argument("--near-frac", type=float, default=0.15, help="share of synthetic near-miss negatives")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="keep the run's state here after each stage of the large model (over 1 GB); "
                        "a run given an existing FILE goes on after its last stage, to the same bytes "
                        "as a run never stopped (the small model's options may differ)")
    args = p.parse_args()
    if args.large_from and args.checkpoint:
        p.error("--large-from trains the small model alone: no --checkpoint")
    if args.log is None:
        name = "computer_small_train.log" if args.large_from else "computer_train.log"
        args.log = os.path.join(root, "models", "kws", name)
    return args


def main():
    args = parse_args()
    # Every output's directory now, not after hours of training.
    for d in [os.path.dirname(os.path.abspath(f)) for f in (args.out, args.small_out, args.log)]:
        os.makedirs(d, exist_ok=True)
    torch.set_num_threads(1)
    # Model files are refused now, not after the first draws.
    miner = read_large(args.large_from, args) if args.large_from else None
    run_state = checkpoint.Checkpoint(args.checkpoint, large_run_args(args))
    log = open_log(args.log, run_state.log_text)
    setup_log = log if not run_state.stage else lambda _: None  # a resumed log has these lines
    rng = np.random.default_rng(args.seed)
    synth = None
    if args.synth != "none":
        cache = kws_synth.default_cache() if args.synth == "cache" else args.synth
        synth = kws_synth.read_index(kws_synth.generate(cache, args.synth_scale, log=setup_log))
        setup_log(f"synthetic clips: {len(synth['pos'])} keyword "
                  f"({100 * args.synth_pos_frac:.0f}% of the positives), "
                  f"{len(synth['near'])} near misses + {len(synth['other'])} sentences "
                  f"({100 * args.near_frac:.0f}% of the negatives)")
    train_src = split_sources(args.data, False, synth, args.synth_pos_frac, args.near_frac)
    dev_src = split_sources(args.data, True)
    rirs, noise = read_rirs(args.data), NoiseBank(args.data, rng, args.transients)
    setup_log(f"KWS '{KEYWORD}' training, seed {args.seed}: {len(train_src.positives)} train / "
              f"{len(dev_src.positives)} dev keyword clips, {len(train_src.speech)} + "
              f"{len(train_src.others)} negative files")

    context = large_context(args.frames)  # the large model's and the small one's

    def streams(sources, n, **kw):  # model rows of n augmented streams, one shared rng
        return make_set(args.earshot, rng, sources, rirs, noise, n, context, log,
                        transform=args.transform, mel_args=kws_input.mel_args(args.noise_suppression),
                        **kw)

    def train_set():  # a draw of augmented training streams
        return streams(train_src, args.streams, start_cut=args.start_cut, neg_speed=args.neg_speed,
                       channel=args.channel)

    if run_state.stage:
        log(f"resumed from {args.checkpoint}: {run_state.stage} stage(s) of the large model done")
        saved = run_state.take_arrays()
        (x, y), (xd, yd), mined = saved["rows"], saved["dev"], saved["mined"]
    else:
        x, y = train_set()
        xd, yd = streams(dev_src, max(2, args.streams // 8), neg_stride=1)
        mined = x[:0], y[:0]
    mine_streams = min(args.mine_streams, max(2, args.streams))  # no more than the training streams

    def mining_set():
        log("negative streams to mine:")
        return streams(train_src.with_shares(args.mine_speech_frac), mine_streams, n_pos=0, n_neg=8,
                       start_cut=args.start_cut, neg_speed=args.neg_speed, channel=args.channel)
    dev = Dev(xd, yd)
    if args.large_from:
        mined, (x, y) = start_from_file(miner, args.large_from, x, y, args, mining_set, log)
        small = train_small(args, x, y, mined, train_set, mining_set, dev, log)
        export(args.small_out, small, context, args, x[y >= 0][::11], log, dev, "small")
        return
    large = make_large(args, setup_log)
    if run_state.stage:
        run_state.restore(large, rng)

    def finished(stage, mined, rows):
        with open(args.log) as f:
            run_state.save(stage, large, rng, f.read(), rows=rows, dev=(xd, yd), mined=mined)
    mined, (x, y) = train_mined(args, large, x, y, args.mine_rounds, train_set, mining_set, mined,
                                dev, log, done=run_state.stage, finished=finished)
    calibration = x[y >= 0][::11]
    export(args.out, large, context, args, calibration, log, dev, "large")
    small = train_small(args, x, y, mined, train_set, mining_set, dev, log)
    export(args.small_out, small, context, args, calibration, log, dev, "small")


if __name__ == "__main__":
    main()
