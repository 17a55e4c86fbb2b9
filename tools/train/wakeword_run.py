#!/usr/bin/python3
"""A wake word model's run weight (kws_verify_run, models/kws/kws.h): how much each hop of the
spotter's run adds to the second stage's score in the verified confidence, 1 + (score + weight x
hops - offset) / 100 (models/pocketsphinx/keyphrase_verifier.h). A keyword holds the spotter over
its candidate threshold for most of the detector's hold, other speech for a few hops; how far the
run's length parts them beside the acoustic score differs from phrase to phrase (on the shared
protocol view glass's spotter turns its near misses down, computer's does not:
docs/research/wakeword.md), so the trainer chooses it for each phrase.

The keyword's side: fresh synthetic renditions of the phrase (a seed the training's own never
uses), reverberated on half of them, at 10 dB SNR in the shared noise recordings, each after a
second of that noise. The other side: speech_l2/'s real negatives, the streams of
wakeword_narrowband.py (full band). `earshot kws --candidates` runs the model over both. The share
missed of each weight of WEIGHTS is the mean over the thresholds that let 1, 2, 3 and 4 of the
negatives' candidates through; the weight stays the default 0.4 unless the least share p is lower
than the default's by more than one standard error (sqrt(p (1 - p) / n), n renditions), and is
otherwise the one with the least share (the one nearest 0.4 among equals): a weight moves only
where the renditions say more than their sampling noise (computer from text took 0.7 over 0.4 by 5
renditions of 300 and lost on the real clips; docs/research/wakeword.md); the offset is the median,
over K = 1 .. 10, of how far the negatives' K-th highest evidence (score + weight x hops) lies
above the default weight's, so that the real negatives' highest confidences stay where the default
put them, and with them the rate of false accepts at the default threshold (which sits in that
tail: a few an hour at most). A heavier weight widens the tail; aligned further down it (K = 5 ..
40), two phrases never tuned on gave about 1 false accept an hour at the default on the protocol's
background, aligned at its top 0.2-0.3 (docs/research/wakeword.md).

train_wakeword.py chooses it for every model it writes with a second stage (before the narrowband
penalty, which is calibrated on the confidence); run as a script, this chooses it for a model
trained before and writes it into the model (and its card); calibrate its narrowband penalty
again after (wakeword_narrowband.py):
  /usr/bin/python3 tools/train/wakeword_run.py MODEL.eshm [--data DIR] [--earshot BIN]
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import kws_synth  # noqa: E402
import wakeword_narrowband  # noqa: E402
import wakeword_verify  # noqa: E402
from augment import NoiseBank, active_power, read_rirs, reverberate  # noqa: E402
from kws_constants import RUN_WEIGHT  # noqa: E402

TENSOR = "kws_verify_run"
DEFAULT_WEIGHT = RUN_WEIGHT
WEIGHTS = [round(0.1 * i, 1) for i in range(21)]  # 0 .. 2
RENDITIONS = 300
SEED = kws_synth.SEED + 7  # not the training's own renditions
SNR_DB = 10
LEAD_S, TAIL_S = 1.0, 0.6
ADMITTED = (1, 2, 3, 4)  # the negatives' candidates let through at the thresholds compared
TAIL = range(1, 11)  # the K-th highest evidence compared for the offset: the default's tail


def renditions(phrase, n, data, out_dir, cache):
    """WAV paths in out_dir: n fresh synthetic renditions of `phrase` as the docstring says."""
    synth = kws_synth.generate(cache, jobs=[("pos", phrase)] * n, seed=SEED, log=lambda *_: None)
    rng = np.random.default_rng(SEED)
    noise, rirs = NoiseBank(data, rng).recordings, read_rirs(data)
    paths = []
    for i, path in enumerate(kws_synth.read_index(synth)["pos"]):
        x = audio_io.read_audio(path).astype(np.float64)
        if rng.uniform() < 0.5:
            x = reverberate(x, rirs[rng.integers(0, len(rirs))])
        x = np.concatenate([np.zeros(int(LEAD_S * audio_io.SR)), x,
                            np.zeros(int(TAIL_S * audio_io.SR))])
        rec = noise[rng.integers(0, len(noise))]
        start = rng.integers(0, len(rec))
        x = x + np.sqrt(active_power(x) / 10 ** (SNR_DB / 10)) * np.take(
            rec, np.arange(start, start + len(x)), mode="wrap")
        x *= min(1.0, 0.5 * 32767 / np.abs(x).max())
        paths.append(os.path.join(out_dir, f"{i:04d}.wav"))
        audio_io.write_wav(paths[-1], x)
    return paths


def scored(earshot, model, paths):
    """{path: [(score, hops)]} of `model`'s candidates with a score in each of `paths`."""
    found = wakeword_verify.candidates(earshot, model, paths)
    return {p: [(score, hops) for _, score, hops in rows if score is not None]
            for p, rows in found.items()}


def evidence(found, weight):
    return np.array([score + weight * hops for score, hops in found])


def missed(keywords, negatives, weight):
    """The mean share of `keywords` ({clip: candidates}) missed at the thresholds that let
    ADMITTED of `negatives` (all their candidates) through."""
    neg = np.sort(evidence(negatives, weight))[::-1]
    best = np.array([evidence(c, weight).max() if c else -np.inf for c in keywords.values()])
    shares = [np.mean(best <= (neg[k] if k < len(neg) else -np.inf)) for k in ADMITTED]
    return float(np.mean(shares))


def offset(negatives, weight):
    """How far the negatives' K-th highest evidence under `weight` lies above the default
    weight's (the median over TAIL; 0 without candidates)."""
    at = np.sort(evidence(negatives, weight))[::-1]
    default = np.sort(evidence(negatives, DEFAULT_WEIGHT))[::-1]
    ks = [k for k in TAIL if k <= len(at)]
    return float(np.median([at[k - 1] - default[k - 1] for k in ks])) if ks else 0.0


def choose(keywords, negatives):
    """(weight, offset, {weight: share missed}) as the docstring says."""
    shares = {w: missed(keywords, negatives, w) for w in WEIGHTS}
    least = min(shares.values())
    noise = np.sqrt(least * (1 - least) / max(1, len(keywords)))
    if shares[DEFAULT_WEIGHT] <= least + noise + 1e-9:
        weight = DEFAULT_WEIGHT
    else:
        weight = min((w for w in WEIGHTS if shares[w] <= least + 1e-9),
                     key=lambda w: abs(w - DEFAULT_WEIGHT))
    return weight, offset(negatives, weight), shares


def calibrate(model, earshot, data, phrase, streams, log=print, tiny=False):
    """(weight, offset) of `model` against the full-band negative streams `streams`
    (wakeword_narrowband.negative_streams; the scores and runs compared do not depend on the terms
    the model may hold already); `tiny`: a few renditions (a smoke test, not a calibration)."""
    with tempfile.TemporaryDirectory() as tmp:
        pos = renditions(phrase, 12 if tiny else RENDITIONS, data, tmp,
                         kws_synth.default_cache("wakeword_synth"))
        keywords = scored(earshot, model, pos)
        negatives = [c for found in scored(earshot, model, streams).values() for c in found]
    weight, off, shares = choose(keywords, negatives)
    log(f"run weight {weight:.1f} per hop, offset {off:.2f}: of {len(pos)} synthetic renditions at "
        f"{SNR_DB} dB SNR missed against {len(negatives)} candidates of {len(streams)} streams of "
        f"real negatives " + ", ".join(f"{w:.1f}: {100 * s:.1f}%" for w, s in shares.items()))
    return weight, off


def tensors(weight, off):
    """[(name, array)] of the run's terms, for vad_export.write_tensors."""
    return [(TENSOR, np.array([round(1000 * weight), round(1000 * off)], np.int32))]


def main():
    p = audio_io.parser(__doc__, needs=("speech_l2/transcripts.tsv", "noise", "rir"))
    p.add_argument("model")
    a = p.parse_args()
    t, phrase = wakeword_verify.read_model(p, a.model)
    with tempfile.TemporaryDirectory() as tmp:
        streams = wakeword_narrowband.negative_streams(a.data, phrase, tmp, lowpass=False)
        weight, off = calibrate(a.model, a.earshot, a.data, phrase, [f for f, _ in streams])
    wakeword_verify.rewrite(a.model, [(k, v) for k, v in t.items() if k != TENSOR] +
                            tensors(weight, off))
    print(f"{a.model}: run weight {weight:.1f}, offset {off:.2f}")


if __name__ == "__main__":
    main()
