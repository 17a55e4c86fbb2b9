#!/usr/bin/python3
"""Trains the shared keyword trunk (kws_trunk.py) once, on real words: every keyword model that
train_wakeword.py makes from text reuses it, with only a small head of its own.

usage: tools/train/train_kws_trunk.py [--data ../shared/data] [--earshot build/tools/earshot]
           [--out models/kws/trunk.eshm] [--log models/kws/trunk_train.log] [--streams 250]
           [--epochs 14] [--synth-per-word 12] [--vocabulary 120] [--channel 0.5] [--seed N]
           [--synth cache|DIR] [--aligned] [--target words|phones] [--init TRUNK]
The defaults give the bundled trunk (log: models/kws/trunk_train.log, 33 min here beside other
work).

The trunk learns, at every 10 ms hop, which word (if any) has just ended: a classifier over the
Speech Commands words of kws/train (35, real recordings) and the spoken digits of kws_aux/fsdd
(their own classes: 8 kHz recordings, a band-limited channel), plus a vocabulary of the read
speech's most frequent words of four or more phones (a rule, no word chosen by hand; with --aligned,
their own instances cut from the read speech by forced alignment join them). Every word is
also said by espeak-ng and flite voices (kws_synth.py), in the same class as its recordings, so that
the trunk's features of a synthetic voice and of a person agree: the keyword heads are trained on
synthetic speech and must carry to real voices. Negatives: read speech (speech/, LibriSpeech;
speech_l2/, non-native adults and children; never stt/, the evaluation's background) and noise.
Streams are augmented as the keyword spotter's (gain, speed, rir/, noise at 0-20 dB) and a share
through a device's microphone and codec (augment.device_channel). The wake-word recordings
(computer, snowboy, view glass) are never read: keywords are measured on them.
The classifier's own layers (448 -> 128 -> classes) are dropped; the three convolutions are
quantised to int8 and written with the words they learnt.
"""
import argparse
import collections
import os
import re
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import align_words  # noqa: E402
import kws_input  # noqa: E402
import kws_phones  # noqa: E402
import kws_synth  # noqa: E402
import kws_trunk  # noqa: E402
import pronounce  # noqa: E402
from augment import NoiseBank, is_dev, list_audio, read_rirs  # noqa: E402
from kws_data import Sources, make_set  # noqa: E402
from mlp_train import open_log  # noqa: E402

SEED = 20261127
WORD_WEIGHT = 4.0  # a word's end hops against the background's (about 1 hop in 30 is a word end)


def context():
    return tuple(range(-2 * (kws_trunk.FRAMES - 1), 1, 2))


def vocabulary(data, count, exclude, words):
    """The `count` most frequent words of the read speech's transcripts (speech/, speech_l2/) with
    four or more phones in the dictionary, most frequent first (ties alphabetical)."""
    counts = collections.Counter()
    for sub in ("speech", "speech_l2"):
        with open(os.path.join(data, sub, "transcripts.tsv")) as f:
            for line in f:
                counts.update(re.findall(r"[a-z']+", line.split("\t", 1)[1].lower()))
    ok = [w for w in counts if w in words and len(words[w][0]) >= 4 and w not in exclude]
    return sorted(ok, key=lambda w: (-counts[w], w))[:count]


class WordSources(Sources):
    """Word clips by class (1 .. n; 0 is no word's end): each class's recordings and synthetic
    renditions, one of them at random, a class drawn uniformly. A clip named FILE|START|END is
    that span of FILE (a word cut from read speech by its alignment)."""

    def read(self, path):
        if "|" not in path:
            return super().read(path)
        if path not in self.cache:
            name, start, end = path.split("|")
            x = super().read(name)
            self.cache[path] = x[int(float(start) * 16000):int(float(end) * 16000)]
        return self.cache[path]

    def __init__(self, classes, speech, names):
        super().__init__([None], speech, speech, speech_frac=1.0)
        self.classes = [(w, f) for w, f in classes if f]  # [(name, [files])]
        self.labels = [names.index(w) + 1 for w, _ in self.classes]  # the label of names' word

    def pick_labelled(self, rng, kind):
        if kind not in ("pos", "spos"):
            return super().pick_labelled(rng, kind)
        k = int(rng.integers(0, len(self.classes)))
        files = self.classes[k][1]
        return self.read(files[rng.integers(0, len(files))]), self.labels[k]


def word_classes(data, synth, dev, cuts=None):
    """[(word, files)] of the real words (kws/train, kws_aux/fsdd/train, and the words of `cuts`,
    {word: [FILE|START|END]}, cut from read speech; dev=True: their validation tenth) and the
    synthetic ones (training only)."""
    real = collections.defaultdict(list)
    for sub in ("kws/train", "kws_aux/fsdd/train"):
        for f in list_audio(data, sub):
            if is_dev(f) == dev:
                word = os.path.basename(os.path.dirname(f))
                real[word if sub == "kws/train" else f"{word} (8 kHz)"].append(f)
    for word, clips in (cuts or {}).items():
        if word in synth or word in real:
            real[word] += [c for c in clips if is_dev(c.split("|")[0]) == dev]
    names = sorted(set(real) | (set() if dev else set(synth)))  # synth: the vocabulary's words
    return [(w, real.get(w, []) + ([] if dev else synth.get(w, []))) for w in names
            if real.get(w) or (not dev and synth.get(w))]


def word_cuts(data, earshot, log):
    """{word: [FILE|START|END]} of every word of the read speech (speech/, speech_l2/), by forced
    alignment (align_words.py), each with 30 ms before and 60 ms after it."""
    cuts = collections.defaultdict(list)
    for sub in ("speech", "speech_l2"):
        files = {os.path.splitext(os.path.basename(f))[0]: f for f in list_audio(data, sub)}
        for utt, words in align_words.aligned(data, sub, earshot, log).items():
            for w, a, b in words:
                cuts[w].append(f"{files[utt]}|{max(0.0, a - 0.03):.2f}|{b + 0.06:.2f}")
    return cuts


def transcribed(data, sub):
    """[(file, transcript)] of a read-speech folder."""
    files = {os.path.splitext(os.path.basename(f))[0]: f for f in list_audio(data, sub)}
    with open(os.path.join(data, sub, "transcripts.tsv")) as f:
        items = [line.rstrip("\n").split("\t", 1) for line in f]
    return [(files[utt], text) for utt, text in items if utt in files]


def phone_corpora(args, words, synth_words, log):
    """(train, dev) kws_phones.Corpus: read speech with its transcripts, Speech Commands words and
    digits (their folder's name said), the synthetic words and the read speech's training
    transcripts said by synthetic voices; dev: the real recordings' validation tenth."""
    phones = kws_phones.phone_names(words)
    speech = [i for sub in ("speech", "speech_l2") for i in transcribed(args.data, sub)]
    said = [(f, os.path.basename(os.path.dirname(f))) for sub in ("kws/train", "kws_aux/fsdd/train")
            for f in list_audio(args.data, sub)]
    cache = kws_synth.default_cache("trunk_synth") if args.synth == "cache" else args.synth
    jobs = [("sentence", text) for path, text in speech if not is_dev(path)]
    sentences = [(path, text) for _, path, text in
                 kws_synth.read_rows(kws_synth.generate(cache, jobs=jobs, log=log))]
    label = lambda items, dev: kws_phones.labelled(  # noqa: E731
        [i for i in items if is_dev(i[0]) == dev], words, phones)
    train_src = kws_phones.Corpus(
        {"read speech": label(speech, False), "words": label(said, False),
         "synthetic words": label(synth_words, False), "synthetic sentences": label(sentences, False)},
        {"read speech": 0.4, "words": 0.15, "synthetic words": 0.15, "synthetic sentences": 0.3})
    dev_src = kws_phones.Corpus({"read speech": label(speech, True), "words": label(said, True)},
                                {"read speech": 0.7, "words": 0.3})
    log(f"phones: {len(phones)} + blank; train {train_src.describe()}; dev {dev_src.describe()}")
    return phones, train_src, dev_src


def train_phones(args, log, rng, words, synth_words, rirs, noise):
    """The trunk trained with CTC on phones (kws_phones.py); (trunk, calibration rows, phones)."""
    phones, train_src, dev_src = phone_corpora(args, words, synth_words, log)

    def streams(sources, n):
        return kws_phones.make_streams(args.earshot, rng, sources, rirs, noise, n, context(),
                                       args.channel, log)

    data = streams(train_src, args.streams)
    dev = streams(dev_src, max(2, args.streams // 8))
    model = kws_trunk.Trunk(kws_input.POOLED) if not args.init else \
        kws_trunk.started_from(kws_trunk.read(args.init)[0], kws_input.POOLED)
    head = torch.nn.Linear(model.outputs, len(phones) + 1)
    log(f"trunk: {kws_trunk.FRAMES} frames x {kws_input.POOLED} bands, convolutions {kws_trunk.CONVS} "
        f"-> {model.outputs} outputs; CTC over phones every {kws_phones.STRIDE} hops")
    kws_phones.train(model, head, data, dev, args.epochs, log, args.seed,
                     lambda: streams(train_src, args.streams))
    return model, np.concatenate([r for r, _ in data])[::7], phones


def train(model, head, rows, dev, epochs, log, seed, refresh):
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=2e-3, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        if epoch > 0:
            rows = refresh()
        x, y = rows
        keep = torch.from_numpy(np.flatnonzero(y >= 0))
        xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
        weight = torch.full((head[-1].out_features,), WORD_WEIGHT)
        weight[0] = 1.0
        model.train()
        head.train()
        perm = keep[torch.randperm(len(keep), generator=gen)]
        total, t0 = 0.0, time.time()
        for i in range(0, len(perm), 512):
            idx = perm[i:i + 512]
            z = head(model(xt[idx].float() * kws_trunk.INPUT_SCALE))
            loss = torch.nn.functional.cross_entropy(z, yt[idx], weight=weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        log(f"  epoch {epoch + 1}: train loss {total / len(perm):.4f} ({time.time() - t0:.0f} s), "
            f"{describe(model, head, *dev)}")


def describe(model, head, x, y):
    """Dev: of the words said, the share whose end the classifier names (its top class at the
    word's end hops, by the most-voted class over them), and the background hops called a word."""
    model.eval()
    head.eval()
    with torch.no_grad():
        pred = np.concatenate([head(model(torch.from_numpy(x[i:i + 8192]).float() *
                                          kws_trunk.INPUT_SCALE)).argmax(1).numpy()
                               for i in range(0, len(x), 8192)])
    ends = y > 0
    word_ok = (pred[ends] == y[ends]).mean() if ends.any() else 0.0
    false = (pred[y == 0] != 0).mean()
    return f"dev: word-end hops named right {100 * word_ok:.1f}%, background hops called a word {100 * false:.2f}%"


def parse_args():
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("--out", default=os.path.join(root, "models", "kws", "trunk.eshm"))
    p.add_argument("--log", default=None, help="the training log (default: beside --out, _train.log)")
    p.add_argument("--streams", type=int, default=250, help="augmented streams per epoch")
    p.add_argument("--epochs", type=int, default=14)
    p.add_argument("--synth", default="cache", help="the synthetic speech cache dir ('cache': the default)")
    p.add_argument("--synth-per-word", type=int, default=12)
    p.add_argument("--vocabulary", type=int, default=120, help="words of the read speech added")
    p.add_argument("--channel", type=float, default=0.5, help="share of streams through a device channel")
    p.add_argument("--aligned", action=argparse.BooleanOptionalAction, default=False,
                   help="add the vocabulary's words cut from the read speech by forced alignment "
                        "(align_words.py) to their classes (off: the bundled trunk; measured no better, "
                        "docs/research/wakeword.md)")
    p.add_argument("--target", choices=("words", "phones"), default="words",
                   help="what the trunk learns: which word has just ended (a classifier), or the "
                        "phones heard (CTC, kws_phones.py)")
    p.add_argument("--init", help="a trunk file to start from (--target phones; CTC from scratch "
                                  "stays on its plateau of blanks far longer)")
    p.add_argument("--seed", type=int, default=SEED)
    args = p.parse_args()
    if args.log is None:
        args.log = os.path.splitext(args.out)[0] + "_train.log"
    return args


def train_words(args, log, rng, sc_words, vocab, synth, rirs, noise):
    """The trunk trained as a classifier of which word has just ended; (trunk, calibration rows,
    the words)."""
    speech = [f for sub in ("speech", "speech_l2") for f in list_audio(args.data, sub)]
    cuts = word_cuts(args.data, args.earshot, log) if args.aligned else {}
    classes = word_classes(args.data, synth, False, cuts)
    names = [w for w, _ in classes]
    train_src = WordSources(classes, [f for f in speech if not is_dev(f)], names)
    dev_src = WordSources(word_classes(args.data, synth, True, cuts), [f for f in speech if is_dev(f)],
                          names)
    log(f"trunk, seed {args.seed}: {len(names)} word classes ({len(sc_words)} Speech Commands, "
        f"{sum('(8 kHz)' in w for w in names)} digits at 8 kHz, {len(vocab)} read-speech words), "
        f"{len(synth.get(sc_words[0], []))} synthetic clips of each Speech Commands word, "
        f"{sum(len(f) for w, f in classes if w in cuts)} words cut from the read speech; "
        f"{len(train_src.speech)} read-speech files")

    def streams(sources, n, **kw):
        return make_set(args.earshot, rng, sources, rirs, noise, n, context(), log, n_pos=12, n_neg=2,
                        transform=kws_input.TRANSFORM, channel=args.channel, **kw)

    rows = streams(train_src, args.streams)
    xd, yd = streams(dev_src, max(2, args.streams // 8), neg_stride=1)
    model = kws_trunk.Trunk(kws_input.POOLED)
    head = torch.nn.Sequential(torch.nn.Linear(model.outputs, 128), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                               torch.nn.Linear(128, len(names) + 1))
    log(f"trunk: {kws_trunk.FRAMES} frames x {kws_input.POOLED} bands, convolutions {kws_trunk.CONVS} "
        f"-> {model.outputs} outputs; classifier 128 -> {len(names) + 1}")
    train(model, head, rows, (xd, yd), args.epochs, log, args.seed, lambda: streams(train_src, args.streams))
    x, y = rows
    return model, x[y >= 0][::23], names


def main():
    args = parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    log = open_log(args.log, "")
    rng = np.random.default_rng(args.seed)
    words = pronounce.load()
    sc_words = sorted(os.path.basename(d) for d in os.listdir(os.path.join(args.data, "kws", "train")))
    vocab = vocabulary(args.data, args.vocabulary, set(sc_words), words)
    cache = kws_synth.default_cache("trunk_synth") if args.synth == "cache" else args.synth
    jobs = kws_synth.word_plan(sc_words, args.synth_per_word) + \
        kws_synth.word_plan(vocab, max(1, args.synth_per_word // 2))
    synth = kws_synth.generate(cache, jobs=jobs, log=log)
    rirs, noise = read_rirs(args.data), NoiseBank(args.data, rng)
    if args.target == "phones":
        synth_words = [(path, text) for _, path, text in kws_synth.read_rows(synth)]
        model, calibration, names = train_phones(args, log, rng, words, synth_words, rirs, noise)
    else:
        model, calibration, names = train_words(args, log, rng, sc_words, vocab,
                                                kws_synth.read_index(synth), rirs, noise)
    layers, out_scale = kws_trunk.quantize(model, calibration)
    kws_trunk.write(args.out, layers, out_scale, context(), kws_input.TRANSFORM, names)
    log(f"wrote {args.out} ({os.path.getsize(args.out)} bytes): {len(layers)} int8 convolutions, "
        f"output step {out_scale:.5f}")


if __name__ == "__main__":
    main()
