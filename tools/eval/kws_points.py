#!/usr/bin/python3
"""Operating points of a DET curve written by ww_score.py (threshold, miss_rate, fa_count,
fa_per_hour, thresholds ascending): the miss rate at <= N false accepts per hour for a few N, and
the false accepts per hour and miss rate at a given threshold.

usage: tools/eval/kws_points.py DET.tsv [--threshold 0.8]
"""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("det")
    p.add_argument("--threshold", type=float, default=0.8)
    a = p.parse_args()
    rows = np.array([[float(v) for v in line.split("\t")[:4]] for line in open(a.det)
                     if line.strip() and not line.startswith(("#", "threshold"))])
    th, miss, count, per_h = rows.T
    hours = count[count > 0][0] / per_h[count > 0][0] if (count > 0).any() else float("nan")
    out = [f"background {hours:.2f} h"]
    for limit in (0.1, 0.5, 1, 2, 5, 10):
        ok = per_h <= limit + 1e-9
        out.append(f"miss at <= {limit:g} FA/h: {100 * miss[ok].min():.1f}%" if ok.any() else
                   f"miss at <= {limit:g} FA/h: -")
    at = np.searchsorted(th, a.threshold)  # the first threshold >= the given one
    if at < len(th):
        out.append(f"threshold {a.threshold:g}: {per_h[at]:.2f} FA/h, miss {100 * miss[at]:.1f}%")
    print("; ".join(out))


if __name__ == "__main__":
    main()
