#!/usr/bin/python3
"""A wake word model's narrowband penalty (kws_verify_narrowband, models/kws/kws.h), calibrated on
real negatives. The second stage's acoustic model never met audio with an empty band above 4 kHz
(an 8 kHz codec's, a band-limited microphone's): the verifier gives such a window a quiet floor
there (models/pocketsphinx/keyphrase_verifier.h), after which other speech may still score higher
against some phrases than it does on full band. The penalty is what the verified confidence of
such a window loses so that the phrase's false accepts are no more likely low-passed than on full
band.

The negatives: speech_l2/'s speakers (non-native adults and children; no part of the evaluation),
each speaker's utterances joined with 0.5 s pauses into one stream, clean and with the shared
noise recordings at 10 and 5 dB SNR, and each stream again low-passed at 3.4 kHz (`sox IN -b 16
OUT sinc -3400`, nothing above: an 8 kHz codec's band). `earshot kws --verified` runs the model
alone over them (one process per core); the penalty is the median, over K = 5 .. 40, of the K-th
highest confidence low-passed less the K-th highest on full band, and 0 when that is negative
(the phrase does not gain from the floor) or there are fewer than 5 of either.

train_wakeword.py calibrates every model it writes with a second stage; run as a script, this
calibrates a model trained before and writes the penalty into it (and its card):
  /usr/bin/python3 tools/train/wakeword_narrowband.py MODEL.eshm [--data DIR] [--earshot BIN]
      [--speakers N]   (the first N speakers alone, clean: a quick check, not a calibration)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import vad_export  # noqa: E402
import wakeword_verify  # noqa: E402
from augment import NoiseBank, active_power, read_speech  # noqa: E402

TENSOR = "kws_verify_narrowband"
SNRS_DB = (None, 10, 5)  # None: clean
PAUSE_S = 0.5
TAIL = range(5, 41)  # the K-th highest confidences compared


def streams(files, data, out_dir, snrs_db=SNRS_DB, lowpass=True):
    """[(full band, low-passed)] WAV paths in out_dir: `files` joined per folder (speaker), once
    per SNR, the shared noise recordings in turn (without `lowpass`, the low-passed path is
    None and not written)."""
    by_speaker = {}
    for f in sorted(files):
        by_speaker.setdefault(os.path.dirname(f), []).append(f)
    noise = np.concatenate(NoiseBank(data, np.random.default_rng(0)).recordings)
    pause = np.zeros(int(PAUSE_S * audio_io.SR))
    pairs, at = [], 0
    for s, (speaker, paths) in enumerate(sorted(by_speaker.items())):
        speech = np.concatenate([np.concatenate([audio_io.read_audio(p).astype(np.float64), pause])
                                 for p in paths])
        for snr in snrs_db:
            x = speech
            if snr is not None:
                n = np.take(noise, np.arange(at, at + len(x)), mode="wrap")
                at += len(x)
                x = x + np.sqrt(active_power(x) / 10 ** (snr / 10)) * n
            full = os.path.join(out_dir, f"{s}_{snr or 'clean'}.wav")
            low = os.path.join(out_dir, f"{s}_{snr or 'clean'}_lowpass.wav") if lowpass else None
            audio_io.write_wav(full, x)
            if lowpass:
                subprocess.run(["sox", "-R", "-V1", full, "-b", "16", low, "sinc", "-3400"],
                               check=True)
            pairs.append((full, low))
    return pairs


def confidences(earshot, model, paths):
    """Every candidate's verified confidence (> 0) of `model` alone over `paths`."""
    found = wakeword_verify.candidates(earshot, model, paths).values()
    return np.array([c for rows in found for c, _, _ in rows if c > 0])


def gap(full, low):
    """The median of (K-th highest low-passed - K-th highest full band) over TAIL; None with fewer
    than TAIL's first K of either."""
    full, low = np.sort(full)[::-1], np.sort(low)[::-1]
    ks = [k for k in TAIL if k <= min(len(full), len(low))]
    return float(np.median([low[k - 1] - full[k - 1] for k in ks])) if ks else None


def penalty(full, low):
    """The gap, at least 0 (0 without one)."""
    return max(0.0, gap(full, low) or 0.0)


def negative_streams(data, phrase, out_dir, speakers=None, lowpass=True):
    """streams() of speech_l2/'s utterances that do not hold `phrase`; `speakers`: the first N
    speakers alone, clean (a quick check, not a calibration)."""
    files = read_speech(data, "speech_l2", phrase.split())
    snrs_db = SNRS_DB
    if speakers:
        first = sorted({os.path.dirname(f) for f in files})[:speakers]
        files, snrs_db = [f for f in files if os.path.dirname(f) in first], (None,)
    return streams(files, data, out_dir, snrs_db, lowpass)


def calibrate(model, earshot, pairs, log=print):
    """The penalty of `model` (written without one) on the negative streams `pairs` (full band,
    low-passed: negative_streams)."""
    full = confidences(earshot, model, [f for f, _ in pairs])
    low = confidences(earshot, model, [lp for _, lp in pairs])
    g, p = gap(full, low), penalty(full, low)
    top = lambda c: ", ".join(f"{x:.3f}" for x in np.sort(c)[::-1][:5])  # noqa: E731
    log(f"narrowband penalty {p:.3f} (the gap {'none' if g is None else f'{g:+.3f}'}): "
        f"{len(pairs)} streams of real negatives, full band "
        f"{len(full)} candidates (highest {top(full)}), low-passed at 3.4 kHz {len(low)} "
        f"(highest {top(low)})")
    return p


def tensors(p):
    """[(name, array)] of the penalty, for vad_export.write_tensors."""
    return [(TENSOR, np.array([wakeword_verify.q15(p)], np.int32))]


def main():
    p = audio_io.parser(__doc__, needs=("speech_l2/transcripts.tsv", "noise"))
    p.add_argument("model")
    p.add_argument("--speakers", type=int, help="the first N speakers alone, clean (a quick check)")
    a = p.parse_args()
    t, phrase = wakeword_verify.read_model(p, a.model)
    items = [(k, v) for k, v in t.items() if k != TENSOR]
    with tempfile.TemporaryDirectory() as tmp:
        bare = os.path.join(tmp, "model.eshm")
        vad_export.write_tensors(bare, "kws-mlp", items)
        pen = calibrate(bare, a.earshot, negative_streams(a.data, phrase, tmp, a.speakers))
    wakeword_verify.rewrite(a.model, items + tensors(pen))
    print(f"{a.model}: narrowband penalty {pen:.3f}")


if __name__ == "__main__":
    main()
