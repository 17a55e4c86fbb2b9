#!/usr/bin/python3
"""Operating points of a DET curve written by ww_score.py (threshold, miss_rate, fa_count,
fa_per_hour, thresholds ascending): the miss rate at <= N false accepts per hour for a few N, and
the false accepts per hour and miss rate at a given threshold.

The DET's rows are every keyword clip's peak score plus a grid, so the miss rate at a threshold is
exact but its false accepts only lie between two rows' counts. With --scores (kws_eval.sh's output
directory: pos/ and bg/ of per-hop scores) they are counted at the threshold itself, by the
scorer's own rule (ww_score.count_runs).

usage: tools/eval/kws_points.py DET.tsv [--threshold 0.8] [--scores DIR]
Environment: EARSHOT_EVAL_DIR, the shared scorer's directory (default ../shared/eval).
"""
import argparse
import os
import sys

import numpy as np


def false_accepts_at(scores_dir, keyword, threshold, refractory):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sys.path.insert(0, os.environ.get("EARSHOT_EVAL_DIR", os.path.join(root, "..", "shared", "eval")))
    import ww_score  # noqa: E402  (the shared protocol's scorer)
    background = ww_score.load_scores(os.path.join(scores_dir, "bg"), keyword)
    return sum(ww_score.count_runs(t, s >= threshold, refractory) for t, s in background.values())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("det")
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--scores", help="the per-hop scores behind the DET: exact false accepts at --threshold")
    a = p.parse_args()
    # ww_score.py's first line: "# NAME keyword=K kind=scores n_pos=N bg_hours=H refractory_s=R"
    header = dict(field.split("=", 1) for field in open(a.det).readline().split() if "=" in field)
    hours, refractory = float(header["bg_hours"]), float(header["refractory_s"])
    rows = np.array([[float(v) for v in line.split("\t")[:4]] for line in open(a.det)
                     if line.strip() and not line.startswith(("#", "threshold"))])
    th, miss, count, per_h = rows.T
    out = [f"background {hours:.2f} h"]
    for limit in (0.1, 0.5, 1, 2, 5, 10):
        ok = per_h <= limit + 1e-9
        out.append(f"miss at <= {limit:g} FA/h: {100 * miss[ok].min():.1f}%" if ok.any() else
                   f"miss at <= {limit:g} FA/h: -")
    at = np.searchsorted(th, a.threshold)  # the first row >= the threshold: its miss rate is exact
    if at < len(th):
        if a.scores:
            fa = f"{false_accepts_at(a.scores, header['keyword'], a.threshold, refractory) / hours:.2f} FA/h"
        elif th[at] == a.threshold or at == 0:
            fa = f"{per_h[at]:.2f} FA/h"
        else:
            fa = f"{per_h[at]:.2f}-{per_h[at - 1]:.2f} FA/h"
        out.append(f"threshold {a.threshold:g}: {fa}, miss {100 * miss[at]:.1f}%")
    print("; ".join(out))


if __name__ == "__main__":
    main()
