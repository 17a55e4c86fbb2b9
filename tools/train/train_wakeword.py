#!/usr/bin/python3
"""Trains a wake-word model from text alone: no recording of the phrase is read.

usage: tools/train/train_wakeword.py PHRASE --out FILE [--trunk models/kws/trunk.eshm]
           [--data ../shared/data] [--earshot build/tools/earshot] [--log FILE]
           [--positives 800] [--near 60] [--streams 200] [--epochs 6] [--mine-rounds 3]
           [--hidden 16] [--channel 0.5] [--seed N] [--synth cache|DIR] [--tiny]
           [--verify-candidate 0.4] [--verify-threshold 0.75] [--no-verify]
e.g.   /usr/bin/python3 tools/train/train_wakeword.py "hey snowboy" --out models/kws/hey_snowboy.eshm

1. The phrase's pronunciation from the pocketsphinx dictionary (pronounce.py; a word it does not
   know and cannot split into words it knows takes espeak-ng's pronunciation as the device derives
   it, `earshot pronounce`; a word with none of the three is an error naming the word, exit 2),
   and the phrases that sound like it: dictionary words and word pairs a few phone edits away, and
   each word of a several-word phrase alone.
2. Synthetic speech (kws_synth.py): the phrase said by every English voice of espeak-ng (accents
   and voice variants) and flite, at many rates and pitches, with pauses of 0-150 ms between the
   words; its near misses and plain sentences in the same voices (negatives).
3. Training streams as the bundled keyword spotter's (kws_data.py: gain, speed, rir/ reverberation,
   noise at 0-20 dB), a share through a device's microphone and codec (augment.device_channel:
   band limits of 3-8 kHz with nothing above, hum, AGC, clipping, codec noise). Positives: the
   synthetic phrase only. Negatives: real read speech (speech/, speech_l2/: adults and children,
   non-native; utterances whose transcript holds the phrase left out), the Speech Commands words and
   spoken digits (a folder named as the phrase left out), the computer recordings of
   wakeword/computer/train unless the phrase is "computer"; never wakeword/snowboy or view_glass,
   nor stt/ (the evaluation's material).
4. The features: the shared trunk (train_kws_trunk.py: three convolutions learnt once on real
   words, the same bytes in every model), run in int8 exactly as the device runs it; only the head
   (448 -> --hidden -> 1) is trained here: --epochs epochs, each on a fresh draw of --streams
   streams, then --mine-rounds rounds of the head's false accepts on fresh negative streams.
5. The model file: the trunk's layers and the head, the phrase (kws_phrase) and the threshold
   that sensitivity 0.5 gives (kws_default_threshold: the lowest score that a fresh draw of
   streams of real negatives, no synthetic speech, reaches at most once in ten hours of them (at
   most 0 times in fewer hours), within 0.5-0.95); unless --no-verify, the second stage
   (wakeword_verify.py: the phrase's phones, checked on the device by pocketsphinx's acoustic
   model whenever the spotter's score passes --verify-candidate; the sensitivity is then that
   check's, 0.5 at a verified confidence of --verify-threshold).
6. Unless --no-verify, the weight of the spotter's run in the verified confidence (wakeword_run.py:
   chosen for the phrase on fresh synthetic renditions of it in noise against speech_l2/'s real
   negatives), then the second stage's narrowband penalty (wakeword_narrowband.py: what the
   verified confidence loses on audio with an empty band above 4 kHz, so that the phrase's false
   accepts on speech_l2/'s real negatives are no more likely low-passed at 3.4 kHz than on full
   band), written into the model.
--tiny: a few streams and clips (the smoke test: a model in well under a minute, not a good one).
"""
import os
import re
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import kws_input  # noqa: E402
import kws_model  # noqa: E402
import kws_synth  # noqa: E402
import kws_trunk  # noqa: E402
import pronounce  # noqa: E402
import vad_export  # noqa: E402
import wakeword_narrowband  # noqa: E402
import wakeword_run  # noqa: E402
import wakeword_verify  # noqa: E402
from augment import NoiseBank, is_dev, list_audio, read_rirs, read_speech  # noqa: E402
from kws_constants import LOGIT_Q, MINE_PROB, POS_WEIGHT, TEMPERATURE  # noqa: E402
from kws_data import Sources, make_set  # noqa: E402
from mlp_train import open_log  # noqa: E402

SEED = 20261127
SENTENCES = kws_synth.SENTENCES


def negatives(data, phrase_words):
    """(read speech, other real negatives) as the module's docstring says."""
    speech = read_speech(data, "speech", phrase_words) + read_speech(data, "speech_l2", phrase_words)
    others = []
    for sub in ("kws/train", "kws_aux/fsdd/train"):
        others += [f for f in list_audio(data, sub)
                   if os.path.basename(os.path.dirname(f)).split() != phrase_words]
    if phrase_words != ["computer"]:
        others += list_audio(data, "wakeword/computer/train")
    return speech, others


def split(files, dev):
    return [f for f in files if is_dev(f) == dev]


class Features:
    """Rows of augmented streams through the trunk's frozen (shared) convolutions, int8 as the
    device computes them, and the targets."""

    def __init__(self, args, trunk, rng, log):
        self.args, self.layers, self.context, self.transform = args, trunk[0], trunk[2], trunk[3]
        self.cut = len(self.layers) - args.tune  # the convolutions before it are shared
        self.rng, self.log = rng, log
        self.rirs, self.noise = read_rirs(args.data), NoiseBank(args.data, rng)

    def rows(self, sources, n, **kw):
        x, y = make_set(self.args.earshot, self.rng, sources, self.rirs, self.noise, n, self.context,
                        self.log, transform=self.transform, channel=self.args.channel, **kw)
        return kws_trunk.hidden_int(self.layers[:self.cut], x) if self.cut else x, y


def keyword_net(trunk, cut, hidden):
    """The float network trained here, reading the shared convolutions' int8 outputs in integer
    units: the trunk's convolutions from `cut` on (started from their int8 weights), then the head
    (448 -> hidden -> 1)."""
    convs = kws_trunk.tail(trunk[0], cut, kws_input.POOLED)
    return torch.nn.Sequential(convs, kws_model.make_mlp((convs.outputs, hidden, 1), dropout=0.1))


def float_layers(net):
    """[(W, b[, conv])] of keyword_net's layers, for quantisation."""
    head = [(m.weight.detach().numpy().astype(np.float64), m.bias.detach().numpy().astype(np.float64))
            for m in net[1] if isinstance(m, torch.nn.Linear)]
    return net[0].weights() + head


def calibrated_threshold(q, feats, y, hops_per_hour=360000, merge_hops=100):
    """The lowest score (Q15) at which the negative rows' hops reach at most one false accept per
    ten hours (runs merged within 1 s), within 0.5-0.95."""
    neg = np.flatnonzero(y == 0)
    scores = vad_export.run_int(q, feats[neg])
    hours = len(neg) * 3 / hops_per_hour  # rows keep one negative hop in 3 (make_set)
    allowed = int(hours / 10)
    for th in range(int(0.5 * 32767), int(0.95 * 32767), 16):
        hits = neg[scores >= th]
        fa = 0 if len(hits) == 0 else 1 + int((np.diff(hits) > merge_hops // 3).sum())
        if fa <= allowed:
            return th
    return int(0.95 * 32767)


def export(path, trunk, cut, q, phrase, threshold_q15, verify):
    """The model file: the trunk's shared int8 convolutions (before `cut`), then the quantised
    layers q (quantised(): they score rows of Features), the phrase and its default threshold, and
    `verify`, the second stage's tensors (wakeword_verify.tensors; [] for none)."""
    layers, _, context, transform, _ = trunk
    full = dict(layers=list(layers[:cut]) + q["layers"], sigmoid=q["sigmoid"], context=context)
    items = [("context", np.array(context, np.int32)), ("kws_transform", np.array(transform, np.int32)),
             ("kws_phrase", np.array([ord(c) for c in phrase], np.int32)),
             ("kws_default_threshold", np.array([threshold_q15], np.int32))]
    vad_export.write_tensors(path, "kws-mlp", items + verify + vad_export.mlp_tensors(full))


def quantised(net, calibration, context):
    """net's layers in int8, sized on the calibration rows (the shared part's int8 outputs)."""
    return vad_export.quantize(float_layers(net), 1.0, calibration, context, logit_q=LOGIT_Q,
                               temperature=TEMPERATURE)


def parse_args():
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=("speech/transcripts.tsv", "speech_l2/transcripts.tsv",
                                         "kws/train", "noise", "rir"))
    p.add_argument("phrase")
    p.add_argument("--out", required=True)
    p.add_argument("--trunk", default=os.path.join(root, "models", "kws", "trunk.eshm"))
    p.add_argument("--log", help="the training log (default: beside --out, _train.log)")
    p.add_argument("--positives", type=int, default=800, help="synthetic renditions of the phrase")
    p.add_argument("--near", type=int, default=60, help="near-miss phrases, each said 6 times")
    p.add_argument("--streams", type=int, default=200, help="augmented streams per epoch")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--mine-rounds", type=int, default=3)
    p.add_argument("--hidden", type=int, default=16, help="the head's hidden units")
    p.add_argument("--tune", type=int, default=0, choices=(0, 1, 2, 3),
                   help="the trunk's last TUNE convolutions are trained with the head (started from "
                        "the trunk's weights) instead of shared: 0 (default) shares all three, so an "
                        "extra keyword costs only its head")
    p.add_argument("--channel", type=float, default=0.5, help="share of streams through a device channel")
    p.add_argument("--near-frac", type=float, default=0.25, help="share of synthetic negatives")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--synth", default="cache", help="the synthetic speech cache dir ('cache': the default)")
    p.add_argument("--verify-candidate", type=float, default=wakeword_verify.CANDIDATE,
                   help="the second stage: the spotter's threshold for a candidate")
    p.add_argument("--verify-threshold", type=float, default=wakeword_verify.THRESHOLD,
                   help="the second stage: the verified confidence's threshold at sensitivity 0.5")
    p.add_argument("--no-verify", action="store_true",
                   help="no second stage: the spotter alone decides, at its calibrated threshold")
    p.add_argument("--tiny", action="store_true", help="a few streams and clips (smoke test)")
    args = p.parse_args()
    if args.tiny:
        args.positives, args.near, args.streams, args.epochs, args.mine_rounds = 12, 4, 4, 2, 1
    if args.log is None:
        args.log = os.path.splitext(args.out)[0] + "_train.log"
    return args


def main():
    args = parse_args()
    t_start = time.time()
    words = pronounce.load()
    try:
        spoken, phones = pronounce.pronounce(args.phrase, words, pronounce.espeak(args.earshot))
    except pronounce.PronunciationError as e:
        print(f"train_wakeword.py: {e}", file=sys.stderr)
        sys.exit(2)
    trunk = kws_trunk.read(args.trunk)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    log = open_log(args.log)
    phrase = " ".join(pronounce.normalise(args.phrase))
    near = pronounce.confusables(spoken, phones, words, args.near, common_words(args.data))
    spoken = pronounce.described(spoken, words)
    log(f"wake word '{phrase}': {' '.join(spoken)} = {' '.join(phones)}; {len(near)} near misses: "
        f"{', '.join(near[:12])}{', ...' if len(near) > 12 else ''}")
    cache = kws_synth.default_cache("wakeword_synth") if args.synth == "cache" else args.synth
    sentences = SENTENCES if not args.tiny else SENTENCES[:2]
    jobs = kws_synth.phrase_plan(phrase, near, sentences, args.positives, 6 if not args.tiny else 1,
                                 3 if not args.tiny else 1)
    synth = kws_synth.read_index(kws_synth.generate(cache, jobs=jobs, log=log))
    log(f"synthetic speech: {len(synth['pos'])} of the phrase, {len(synth['near'])} near misses, "
        f"{len(synth['other'])} sentences ({time.time() - t_start:.0f} s)")
    speech, others = negatives(args.data, phrase.split())
    near_clips = synth["near"] + synth["other"]
    train_src = Sources(split(synth["pos"], False), split(speech, False), split(others, False),
                        near=split(near_clips, False), near_frac=args.near_frac)
    # Dev: held-out synthetic renditions among real negatives only (the near misses, said by the
    # same voices, would make its 0-FA point a measure of them alone).
    dev_src = Sources(split(synth["pos"], True) or synth["pos"][:1], split(speech, True),
                      split(others, True))
    log(f"negatives: {len(speech)} read-speech files, {len(others)} words and digits; trunk "
        f"{args.trunk} ({len(trunk[0])} convolutions, trained on {len(trunk[4])} words)")
    rng = np.random.default_rng(args.seed)
    feats = Features(args, trunk, rng, log)
    rows = feats.rows(train_src, args.streams)
    xd, yd = feats.rows(dev_src, max(2, args.streams // 8), neg_stride=1)
    net = keyword_net(trunk, feats.cut, args.hidden)
    dev = lambda m: describe(kws_model.logits(m, xd, 1.0), yd)  # noqa: E731
    fit = dict(input_scale=1.0, pos_weight=POS_WEIGHT, log=log, evaluate=dev)
    log(f"{args.tune} of the trunk's convolutions trained, then the head {net[0].outputs} -> "
        f"{args.hidden} -> 1: {args.epochs} epochs of {args.streams} fresh streams")
    kws_model.train(net, *rows, args.epochs, seed=args.seed, lr=2e-3 if not args.tune else 1e-3,
                    refresh=lambda: feats.rows(train_src, args.streams), **fit)
    mined = rows[0][:0], rows[1][:0]
    mining_src = train_src.with_shares(speech_frac=0.8)
    for r in range(args.mine_rounds):
        xm, ym = feats.rows(mining_src, args.streams, n_pos=0, n_neg=8)
        xh, yh = kws_model.mine_hard_negatives(net, xm, ym, 1.0, MINE_PROB)
        log(f"hard negatives, round {r + 1}: {len(yh)} of {int((ym == 0).sum())} hops; training on "
            f"({time.time() - t_start:.0f} s)")
        del xm, ym
        mined = np.concatenate([mined[0], xh]), np.concatenate([mined[1], yh])
        fresh = feats.rows(train_src, args.streams)
        rows = np.concatenate([fresh[0], mined[0]]), np.concatenate([fresh[1], mined[1]])
        kws_model.train(net, *rows, 2, seed=args.seed + 1 + r, lr=5e-4 if not args.tune else 3e-4, **fit)
    calibration = rows[0][rows[1] >= 0][::11]
    log("fresh streams of real negatives for the default threshold:")
    q = quantised(net, calibration, trunk[2])
    threshold = calibrated_threshold(q, *feats.rows(mining_src.with_shares(near_frac=0.0), args.streams,
                                                    n_pos=0, n_neg=8))
    verify = [] if args.no_verify else wakeword_verify.tensors(
        phones, args.verify_candidate, args.verify_threshold)
    export(args.out, trunk, feats.cut, q, phrase, threshold, verify)
    narrowband = run = None
    if not args.no_verify:
        with tempfile.TemporaryDirectory() as tmp:  # the real negatives, for both calibrations
            streams = wakeword_narrowband.negative_streams(args.data, phrase, tmp,
                                                           speakers=2 if args.tiny else None)
            log(f"the second stage's run weight, synthetic renditions against real negatives "
                f"({time.time() - t_start:.0f} s):")
            run = wakeword_run.calibrate(args.out, args.earshot, args.data, phrase,
                                         [f for f, _ in streams], log, tiny=args.tiny)
            verify += wakeword_run.tensors(*run)
            export(args.out, trunk, feats.cut, q, phrase, threshold, verify)
            log(f"the second stage, full band against low-passed ({time.time() - t_start:.0f} s):")
            narrowband = wakeword_narrowband.calibrate(args.out, args.earshot, streams, log)
        export(args.out, trunk, feats.cut, q, phrase, threshold,
               verify + wakeword_narrowband.tensors(narrowband))
    dev_int = describe(vad_export.run_int(q, xd) / 32767.0, yd, logits=False)
    log(f"int8: {dev_int}; default threshold {threshold / 32767:.3f}; wrote {args.out} "
        f"({os.path.getsize(args.out)} bytes) in {time.time() - t_start:.0f} s")
    write_card(args, phrase, spoken, phones, near, trunk, len(synth["pos"]), dev_int, threshold,
               "" if args.no_verify else wakeword_verify.card_text(
                   phones, args.verify_candidate, args.verify_threshold, narrowband, run))


def write_card(args, phrase, spoken, phones, near, trunk, n_pos, dev_int, threshold_q15, verify):
    """The model card beside the model (FILE.md): what it is, how it was made, what it expects."""
    rest, skip = [], False
    for a in sys.argv[2:]:  # the machine's own paths (--data, --earshot) left out
        if not skip and not a.startswith(("--data", "--earshot")):
            rest.append(a)
        skip = a in ("--data", "--earshot")
    command = " ".join(["tools/train/train_wakeword.py", f'"{args.phrase}"'] + rest)
    source = "; espeak-ng's for a word it lacks" if any("(espeak-ng)" in w for w in spoken) else ""
    text = f"""# Wake-word model: "{phrase}"

- File: `{os.path.basename(args.out)}` (earshot model format, kind `kws-mlp`), trained from text
  only by `tools/train/train_wakeword.py`: no recording of the phrase was read.
- Pronunciation (pocketsphinx en-us dictionary{source}): {' + '.join(spoken)} = `{' '.join(phones)}`.
- Input: the device's fixed-point log-mel (40 bands, 25 ms windows, 10 ms hops, 20-7600 Hz), bands
  pooled in pairs, minus a running mean (`kws_transform` {list(trunk[3])}), 77 frames every 2nd
  hop (1.5 s); the loader checks the front end the file states.
- Network: the shared trunk `{os.path.basename(args.trunk)}` (three int8 convolutions learnt on
  {len(trunk[4])} real and synthetic words; the same bytes in every keyword model, run once per hop
  for all of them), then this phrase's head: 448 -> {args.hidden} -> 1 (int8).
- Default threshold (sensitivity 0.5): {threshold_q15 / 32767:.3f}, the lowest score that a fresh
  draw of streams of real negatives (no synthetic speech) reached at most once in ten hours.
{verify}
## Training data
- Positives: {n_pos} renditions of the phrase by espeak-ng (every English accent and voice variant)
  and flite voices, rates, pitches and pauses varied, augmented (gain, speed, room reverberation,
  noise at 0-20 dB SNR) and {100 * args.channel:.0f}% of the streams through a device channel
  (band limits of 3-8 kHz, hum, AGC, clipping, codec noise).
- Negatives: real read speech (LibriSpeech, non-native adults and children of speechocean762),
  Speech Commands words, spoken digits and the other real negatives of `../shared/data`; {len(near)}
  near misses made from the phrase's phones, said by the same voices ({', '.join(near[:8])}, ...).
- Training's own check, not a measure on real voices: {dev_int}.

## Recipe
`/usr/bin/python3 {command}` (seeded).

## Limitations
Trained on synthetic voices only: measure it on recordings of real speakers before shipping it
(`tools/eval/wakeword_eval.sh`); accents and voices far from espeak-ng's and flite's may be missed
more often. English only.
"""
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(text)


def describe(z, y, logits=True):
    scores = 1 / (1 + np.exp(-z / TEMPERATURE)) if logits else z
    miss0, miss1 = kws_model.detection(scores, y, 360000)
    return f"dev (held-out synthetic renditions, real negatives) miss {100 * miss0:.1f}% at 0 FA, {100 * miss1:.1f}% at <= 1 FA/h"


def common_words(data):
    found = set()
    for sub in ("speech", "speech_l2"):
        path = os.path.join(data, sub, "transcripts.tsv")
        if os.path.exists(path):
            with open(path) as f:
                found.update(w for line in f for w in re.findall(r"[a-z']+", line.split("\t", 1)[1].lower()))
    return frozenset(found)


if __name__ == "__main__":
    main()
