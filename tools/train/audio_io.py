"""Audio and feature I/O shared by the training scripts.

Audio is decoded with sox (16 kHz mono int16); features come from the device's own front end through
`earshot features`, so training sees exactly the integers the device computes (no train/serve skew).
"""
import argparse
import os
import subprocess
import tempfile
import wave

import numpy as np

SR = 16000
HOP = 160
AUDIO = (".flac", ".wav")  # the recordings' file names end so
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class _Parser(argparse.ArgumentParser):
    def parse_args(self, *a, **kw):
        args = super().parse_args(*a, **kw)
        check_paths(self, args, self.needs)
        return args


def parser(doc, needs=None):
    """A script's argument parser: its description the first line of doc, with --data (the shared
    recordings) and --earshot (the CLI whose front end makes the features) defaulting to the
    repository's neighbours; parse_args() checks any --out and, for a script that reads --data
    (`needs`: the paths it reads there, () for the folder alone), --data (check_paths). The
    evaluation scripts pass none: given their recordings' folders, they never read --data."""
    p = _Parser(description=doc.split("\n")[0])
    p.needs = needs
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    p.add_argument("--earshot", default=os.path.join(ROOT, "build", "tools", "earshot"))
    return p


def check_paths(p, args, needs=None):
    """Before any work, usage errors (exit 2) naming the path: --data (when `needs` is not None)
    not a folder or without one of `needs`; --out a directory, or in a folder that cannot be made
    or written (found before, as a traceback, or only when the model was written after the
    training)."""
    if needs is not None and not os.path.isdir(args.data):
        p.error(f"--data {args.data}: not a folder (the shared recordings, ../shared/data)")
    for sub in needs or ():
        if not os.path.exists(os.path.join(args.data, sub)):
            p.error(f"--data {args.data}: no {sub} (the shared recordings, ../shared/data)")
    out = getattr(args, "out", None)
    if not out:
        return
    if os.path.isdir(out):
        p.error(f"--out {out}: a directory (name the model's file, e.g. {out}/model.eshm)")
    out_dir = os.path.dirname(os.path.abspath(out))
    try:
        os.makedirs(out_dir, exist_ok=True)
        tempfile.TemporaryFile(dir=out_dir).close()
    except OSError as e:
        p.error(f"--out {out}: cannot write in {out_dir} ({e.strerror})")


def read_audio(path):
    """int16 samples of any file sox reads, converted to 16 kHz mono."""
    raw = subprocess.run(["sox", path, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1",
                          "-r", str(SR), "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.int16)


def write_wav(path, samples):
    x = np.clip(np.round(samples), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(x.tobytes())


def logmel(earshot, samples, extra_args=()):
    """The fixed-point log-mel frames (int16, dB Q8) of `samples`, one row per 10 ms hop."""
    return features(earshot, samples, "logmel", 40, extra_args)


def features(earshot, samples, kind, width, extra_args=()):
    """`earshot features --kind KIND` of `samples`: int16 rows of `width` values, one per hop."""
    out = run_features(earshot, samples, kind, extra_args)
    return np.array(out.split(), dtype=np.int32).reshape(-1, width).astype(np.int16)


def run_features(earshot, samples, kind, extra_args=()):
    """What `earshot features --kind KIND` prints for `samples`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.wav")
        write_wav(path, samples)
        return subprocess.run([earshot, "features", "--kind", kind, *extra_args, path],
                              check=True, capture_output=True).stdout


def frame_power(x):
    n = len(x) // HOP
    f = x[:n * HOP].astype(np.float64).reshape(n, HOP)
    return (f * f).mean(axis=1)


def speech_labels(x, drop_db=40.0, fill_frames=20):
    """10 ms labels of one clean utterance, as the eval protocol defines them: frames within 40 dB of
    the utterance's loudest frame, interior gaps of fewer than 20 frames (200 ms) filled."""
    n = (len(x) + HOP - 1) // HOP
    xp = np.zeros(n * HOP)
    xp[:len(x)] = x
    p = frame_power(xp)
    lab = p > p.max() * 10 ** (-drop_db / 10) if p.max() > 0 else np.zeros(n, bool)
    idx = np.flatnonzero(lab)
    for a, b in zip(idx[:-1], idx[1:]):
        if 1 < b - a <= fill_frames:
            lab[a:b] = True
    return lab
