"""Audio and feature I/O shared by the training scripts.

Audio is decoded with sox (16 kHz mono int16); features come from the device's own front end through
`earshot features`, so training sees exactly the integers the device computes (no train/serve skew).
"""
import os
import subprocess
import tempfile
import wave

import numpy as np

SR = 16000
HOP = 160
AUDIO = (".flac", ".wav")  # the recordings' file names end so
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def parser(doc):
    """A training script's argument parser: its description the first line of doc, with --data
    (the shared recordings) and --earshot (the CLI whose front end makes the features) defaulting
    to the repository's neighbours."""
    import argparse
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    p.add_argument("--earshot", default=os.path.join(ROOT, "build", "tools", "earshot"))
    return p


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
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.wav")
        write_wav(path, samples)
        out = subprocess.run([earshot, "features", "--kind", "logmel", *extra_args, path],
                             check=True, capture_output=True).stdout
    return np.array(out.split(), dtype=np.int32).reshape(-1, 40).astype(np.int16)


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
