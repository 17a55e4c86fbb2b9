#!/usr/bin/python3
"""Two runs of kws_eval.sh over the same audio side by side, peak by peak: how far each keyword
clip's peak score falls from the first run to the second, and the first run's highest background
peaks (one per second of audio) with the second run's peak within 0.3 s of each.

usage: tools/eval/kws_peaks.py FIRST_DIR SECOND_DIR [--top 5]
(each DIR: kws_eval.sh's output, pos/ and bg/ of `earshot kws` lines: time, keyword, score)
"""
import argparse
import glob
import os

import numpy as np


def scores(path):
    """(times, scores) of one `earshot kws` output."""
    rows = np.loadtxt(path, usecols=(0, 2), ndmin=2)
    return rows[:, 0], rows[:, 1]


def clip_drops(first, second):
    """Each keyword clip's peak in first minus its peak in second."""
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(first, "pos", "*.tsv")))
    return np.array([scores(os.path.join(first, "pos", n))[1].max() -
                     scores(os.path.join(second, "pos", n))[1].max() for n in names])


def top_peaks(run, top):
    """The run's highest background scores, at most one per second of each file: (score, name, t)."""
    candidates = []
    for path in glob.glob(os.path.join(run, "bg", "*.tsv")):
        t, s = scores(path)
        for i in np.argsort(s)[-10 * top:]:
            candidates.append((s[i], os.path.basename(path), t[i]))
    peaks = []
    for score, name, t in sorted(candidates, reverse=True):
        if all(name != n or abs(t - u) >= 1.0 for _, n, u in peaks):
            peaks.append((score, name, t))
        if len(peaks) == top:
            break
    return peaks


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--top", type=int, default=5)
    args = p.parse_args()
    drops = clip_drops(args.first, args.second)
    print(f"keyword clips ({len(drops)}): peak falls by {np.median(drops):.3f} in the median, "
          f"{np.percentile(drops, 10):.3f} to {np.percentile(drops, 90):.3f} (10th-90th percentile), "
          f"{drops.max():.3f} at most")
    for score, name, t in top_peaks(args.first, args.top):
        t2, s2 = scores(os.path.join(args.second, "bg", name))
        near = s2[np.abs(t2 - t) <= 0.3]
        print(f"background {name} {t:.2f} s: {score:.3f} -> {near.max() if len(near) else float('nan'):.3f}")
    print("second run's highest background peaks: " +
          ", ".join(f"{s:.3f} ({n} {t:.2f} s)" for s, n, t in top_peaks(args.second, 3)))


if __name__ == "__main__":
    main()
