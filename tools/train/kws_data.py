"""Training streams for the keyword spotter: keyword clips and negatives in gaps, augmented (gain,
speed, reverberation, noise), their per-hop targets, and the model inputs computed by the device's
own front end (`earshot features`) and kws_input's integer transform."""
import copy
import time

import numpy as np

import audio_io
import kws_input
import vad_input
from augment import active_power, device_channel, reverberate


def keyword_span(x):
    """First and last voiced 10 ms frame of a keyword clip (the eval protocol's 40 dB rule)."""
    lab = audio_io.speech_labels(x)
    idx = np.flatnonzero(lab)
    return (idx[0], idx[-1]) if len(idx) else (0, len(lab) - 1)


def change_speed(x, factor):
    """x played `factor` times faster (tempo and pitch together, as sox's `speed`), by linear
    interpolation."""
    n = int(len(x) / factor)
    return np.interp(np.arange(n) * factor, np.arange(len(x)), x)


class Sources:
    """The clips a stream draws from: keyword clips, LibriSpeech read speech (the background the
    device hears most) and the other negatives (command words, other wake words, digits); and,
    optionally, synthetic keyword clips (`synth_pos`, a `synth_pos_frac` share of the positives) and
    synthetic near misses (`near`, a `near_frac` share of the negatives: words that sound like the
    keyword, and plain sentences in the same voices)."""

    def __init__(self, positives, speech, others, synth_pos=(), near=(), synth_pos_frac=0.0,
                 near_frac=0.0, speech_frac=0.5):
        self.positives, self.speech, self.others = positives, speech, others
        self.speech_frac = speech_frac
        self.synth_pos, self.near = list(synth_pos), list(near)
        self.synth_pos_frac = synth_pos_frac if self.synth_pos else 0.0
        self.near_frac = near_frac if self.near else 0.0
        self.cache = {}

    def with_shares(self, speech_frac=None, near_frac=None):
        """The same clips (and decoded cache) with another share of read speech among the
        non-synthetic negatives, or of synthetic ones among all negatives."""
        other = copy.copy(self)
        other.speech_frac = self.speech_frac if speech_frac is None else speech_frac
        other.near_frac = self.near_frac if near_frac is None else near_frac
        return other

    def read(self, path):
        if path not in self.cache:
            self.cache[path] = audio_io.read_audio(path).astype(np.float64)
        return self.cache[path]

    def pick(self, rng, kind):
        pool = {"pos": self.positives, "speech": self.speech, "other": self.others,
                "spos": self.synth_pos, "near": self.near}[kind]
        return self.read(pool[rng.integers(0, len(pool))])

    def pick_labelled(self, rng, kind):
        """A clip of `kind` and its label: 1 for a keyword, 0 for a negative (the shared trunk's
        word sources label each word with its class: train_kws_trunk.py)."""
        return self.pick(rng, kind), int(kind in ("pos", "spos"))


def place(rng, x, positive, rirs, neg_speed=False):
    """One clip, augmented, padded to whole hops, and its targets: `positive` (1, or a word's class)
    on the hops from 30 ms before to 120 ms after the keyword's last voiced frame, -1 (not scored)
    on the rest of the keyword; 0 everywhere for a negative (positive 0 or False). Keywords change
    speed; with neg_speed, negatives too."""
    x = x * 10 ** (rng.uniform(-12, 6) / 20)
    if positive or neg_speed:
        x = change_speed(x, rng.uniform(0.88, 1.12))
    if positive:
        first, last = keyword_span(x)
    if rirs and rng.uniform() < 0.3:
        x = reverberate(x, rirs[rng.integers(0, len(rirs))])
    n = (len(x) + audio_io.HOP - 1) // audio_io.HOP * audio_io.HOP
    xp = np.zeros(n)
    xp[:len(x)] = x
    t = np.zeros(n // audio_io.HOP)
    if positive:
        t[first:min(len(t), last + 30)] = -1
        t[max(0, last - 3):min(len(t), last + 13)] = positive
    return xp, t


def negative_kind(rng, sources):
    if sources.near_frac and rng.uniform() < sources.near_frac:
        return "near"
    return "speech" if rng.uniform() < sources.speech_frac else "other"


def positive_kind(rng, sources):
    return "spos" if sources.synth_pos_frac and rng.uniform() < sources.synth_pos_frac else "pos"


def build_stream(rng, sources, rirs, noise, n_pos, n_neg, start_cut=0.0, neg_speed=False, channel=0.0):
    """Clips in random order with 0.1-0.8 s gaps; speech negatives half the time (of those not
    synthetic; `sources.speech_frac`); noise at 0-20 dB SNR on 80% of the streams. With start_cut,
    that share of the streams starts 0-2 s later (cut_start); neg_speed: see place; with channel,
    that share of the streams goes through a device's microphone and codec (augment.device_channel)."""
    kinds = ([positive_kind(rng, sources) for _ in range(n_pos)] +
             [negative_kind(rng, sources) for _ in range(n_neg)])
    rng.shuffle(kinds)
    pieces, targets = [], []
    for kind in kinds:
        gap = int(rng.uniform(0.1, 0.8) * 100) * audio_io.HOP
        pieces.append(np.zeros(gap))
        targets.append(np.zeros(gap // audio_io.HOP))
        xp, t = place(rng, *sources.pick_labelled(rng, kind), rirs, neg_speed)
        pieces.append(xp)
        targets.append(t)
    s, y = np.concatenate(pieces), np.concatenate(targets)
    s = noise_and_channel(rng, s, noise, channel)
    if start_cut and rng.uniform() < start_cut:
        s, y = cut_start(s, y, int(rng.uniform(0, 2) * 100))
    return s, y


def noise_and_channel(rng, s, noise, channel):
    """A stream with noise at 0-20 dB SNR (80% of streams) and, a `channel` share of the time,
    through a device's microphone and codec (augment.device_channel)."""
    if rng.uniform() < 0.8 and active_power(s) > 0:
        snr = rng.uniform(0, 20)
        s = s + noise.sample(len(s)) * np.sqrt(active_power(s) / 10 ** (snr / 10))
    if channel and rng.uniform() < channel:
        s = device_channel(s, rng)
    return s


def cut_start(s, y, hops):
    """The stream from `hops` on, so that it may begin inside a clip, as a recording or the
    device's first audio does (the network's window then reaches back before the first frame).
    A keyword cut into is not scored: what is left of it is no keyword."""
    s, y = s[hops * audio_io.HOP:], y[hops:].copy()
    rest = np.flatnonzero(y == 0)
    y[:rest[0] if len(rest) else len(y)] = -1
    return s, y


def make_set(earshot, rng, sources, rirs, noise, n_streams, context, log, n_pos=3, n_neg=6,
             neg_stride=3, transform=kws_input.TRANSFORM, mel_args=(), start_cut=0.0, neg_speed=False,
             channel=0.0):
    """Model inputs (int8 rows) and targets of n_streams streams (build_stream's). Negative hops far
    from a keyword are kept one in `neg_stride` (neighbouring hops are nearly the same input).
    mel_args: options of `earshot features` (kws_input.mel_args: the model's noise suppression)."""
    xs, ys = [], []
    t0 = time.time()
    for _ in range(n_streams):
        s, y = build_stream(rng, sources, rirs, noise, n_pos, n_neg, start_cut, neg_speed, channel)
        mel = audio_io.logmel(earshot, s, mel_args)
        y = y[:len(mel)]
        keep = (y != 0) | (np.arange(len(y)) % neg_stride == 0)
        xs.append(vad_input.stack_context(kws_input.frame_inputs(mel, transform), context)[keep])
        ys.append(y[keep])
    x, y = np.concatenate(xs), np.concatenate(ys).astype(np.float32)
    log(f"  {n_streams} streams, {len(y) / 100 / 60 * neg_stride:.0f} min, {len(y)} rows, "
        f"{int((y > 0).sum())} positive hops, built in {time.time() - t0:.0f} s")
    return x, y
