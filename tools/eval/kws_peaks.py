#!/usr/bin/python3
"""Two runs of kws_eval.sh over the same audio side by side, peak by peak: how far each keyword
clip's peak score falls from the first run to the second, and the first run's highest background
peaks (one per second of audio) with the second run's peak within 0.3 s of each.

usage: tools/eval/kws_peaks.py FIRST_DIR SECOND_DIR [--top 5] [--keyword computer]
(each DIR: kws_eval.sh's output, pos/ and bg/ of `earshot kws` lines: time, keyword, score)
Environment: EARSHOT_EVAL_DIR, the shared scorer's directory (default ../shared/eval).
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.environ.get("EARSHOT_EVAL_DIR", os.path.join(ROOT, "..", "shared", "eval")))
import ww_score  # noqa: E402  (the shared protocol's scorer reads the score files)


def top_peaks(background, top):
    """The highest scores of {file: (t, score)}, at most one per second of each file: (score, file, t)."""
    candidates = [(s[i], name, t[i]) for name, (t, s) in background.items()
                  for i in np.argsort(s)[-10 * top:]]
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
    p.add_argument("--keyword", default="computer")
    args = p.parse_args()
    runs = [{part: ww_score.load_scores(os.path.join(d, part), args.keyword) for part in ("pos", "bg")}
            for d in (args.first, args.second)]
    first, second = runs
    drops = np.array([first["pos"][c][1].max() - second["pos"][c][1].max()
                      for c in sorted(first["pos"])])
    print(f"keyword clips ({len(drops)}): peak falls by {np.median(drops):.3f} in the median, "
          f"{np.percentile(drops, 10):.3f} to {np.percentile(drops, 90):.3f} (10th-90th percentile), "
          f"{drops.max():.3f} at most")
    for score, name, t in top_peaks(first["bg"], args.top):
        t2, s2 = second["bg"][name]
        near = s2[np.abs(t2 - t) <= 0.3]
        print(f"background {name} {t:.2f} s: {score:.3f} -> {near.max() if len(near) else float('nan'):.3f}")
    print("second run's highest background peaks: " +
          ", ".join(f"{s:.3f} ({n} {t:.2f} s)" for s, n, t in top_peaks(second["bg"], 3)))


if __name__ == "__main__":
    main()
