#!/usr/bin/python3
"""One DET figure (miss rate against false accepts per hour, log scale) from several DET TSVs
written by ww_score.py; each curve is named by its file's header (`# NAME keyword=...`).

usage: tools/eval/kws_det_plot.py OUT.png DET.tsv...
"""
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


BOLD = ("large", "small")  # the bundled models' curves


def read(path):
    name, rows = path, []
    for line in open(path):
        if line.startswith("#"):
            name = line[1:].split()[0]
        elif line.strip() and not line.startswith("threshold"):
            rows.append([float(v) for v in line.split("\t")[:4]])
    return name, np.array(rows)


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    plt.figure(figsize=(6, 4.5))
    colors = plt.get_cmap("tab20").colors  # distinct colours for up to 20 curves
    for i, path in enumerate(sys.argv[2:]):
        name, r = read(path)
        hours = r[r[:, 2] > 0, 2][0] / r[r[:, 2] > 0, 3][0] if (r[:, 2] > 0).any() else 1.0
        floor = 0.5 / hours  # zero false accepts drawn at half of one false accept
        r = r[np.lexsort((-r[:, 1], r[:, 3]))]  # false accepts ascending
        # Between two operating points only the one with fewer false accepts is reachable: steps.
        plt.step(np.maximum(r[:, 3], floor), 100 * r[:, 1], where="post", marker="." if len(r) < 10 else None,
                 color=colors[i % len(colors)], lw=2.5 if name in BOLD else 1.2,
                 label=f"{name} ({hours:.1f} h)")
    plt.xscale("log")
    plt.xlabel("false accepts per hour (0 drawn at half of one)")
    plt.ylabel("miss rate %")
    plt.title('"computer" at 10 dB SNR, LibriSpeech background')
    plt.axvline(0.1, color="gray", ls=":")
    plt.axvline(1.0, color="gray", ls=":")
    plt.grid(True, which="both", alpha=0.3)
    plt.legend(fontsize=8)
    plt.tight_layout()
    plt.savefig(sys.argv[1], dpi=90)


if __name__ == "__main__":
    main()
