#!/usr/bin/python3
"""Draws the evaluation's plots from the measured TSVs of docs/evaluation/ (or DIR):
  kws_det.png       wake-word DET curves, log axes, one panel per keyword (kws/*.det.tsv as
                    tools/eval/kws_eval.sh and kws_peers.sh write them: bundled models and peers)
  vad.png           ROC-AUC and F1 per SNR (vad.tsv: name, cond, auc, f1)
  cascade_cost.png  CPU per hour of the cascade beside openWakeWord + Silero VAD (cascade.tsv,
                    bench/cascade_cost.sh's columns)
  stt.png           WER and real-time factor per profile (stt.tsv: name, session, wer, rtf)

usage: tools/eval/plot_results.py [DIR]     (default docs/evaluation; writes the PNGs there)
"""
import collections
import csv
import pathlib
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SRC = pathlib.Path(__file__).resolve().parent.parent.parent
COLORS = {"earshot": "tab:blue", "large": "tab:blue", "small": "tab:cyan"}
PEER_COLORS = ["tab:orange", "tab:red", "tab:purple", "tab:brown"]


def read_tsv(path):
    lines = [line for line in open(path) if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def read_det(path):
    header, rows = {}, []
    for line in open(path):
        if line.startswith("#"):
            parts = line[1:].split()
            header = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
            header["name"] = parts[0]
        elif line.strip() and not line.startswith("threshold"):
            rows.append([float(v) for v in line.split("\t")[:4]])
    return header, np.array(rows)


def plot_det(d, out):
    by_keyword = collections.defaultdict(list)
    for path in sorted((d / "kws").glob("*.det.tsv")):
        header, rows = read_det(path)
        by_keyword[header.get("keyword", "?")].append((header, rows))
    fig, axes = plt.subplots(1, len(by_keyword), figsize=(6.4 * len(by_keyword), 4.8), squeeze=False)
    for ax, (keyword, curves) in zip(axes[0], sorted(by_keyword.items())):
        peers = 0
        for header, r in curves:
            hours = float(header["bg_hours"])
            floor = 0.5 / hours  # no false accept: drawn at half of one in the background's hours
            r = r[np.lexsort((-r[:, 1], r[:, 3]))]
            fa, miss = np.maximum(r[:, 3], floor), 100 * np.maximum(r[:, 1], 0.5 / float(header["n_pos"]))
            name = header["name"]
            color = COLORS.get(name)
            if color is None:
                color, peers = PEER_COLORS[peers % len(PEER_COLORS)], peers + 1
            label = f"earshot {name}" if name in COLORS else f"{name} (peer)"
            ax.step(fa, miss, where="post", color=color, lw=2.2 if name in COLORS else 1.5,
                    marker="o" if len(r) < 10 else None, label=f"{label}, {hours:.1f} h background")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(0.03, 1000)
        zero = 50 / float(curves[0][0]["n_pos"])  # where no miss is drawn
        ax.set_ylim(zero * 0.8, 100)
        ax.set_yticks([zero, 2, 5, 10, 20, 50, 100], ["0", "2", "5", "10", "20", "50", "100"])
        ax.set_xticks([0.1, 1, 10, 100, 1000], ["0.1", "1", "10", "100", "1000"])
        ax.axvline(0.1, color="gray", ls=":")
        ax.axvline(1.0, color="gray", ls=":")
        ax.set_xlabel("false accepts per hour (none: drawn at half of one)")
        ax.set_ylabel("missed keywords, % (0 drawn at half a clip)")
        ax.set_title(f'"{keyword}", {curves[0][0]["n_pos"]} clips at 10 dB SNR')
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(out / "kws_det.png", dpi=90)


def plot_vad(d, out):
    rows = read_tsv(d / "vad.tsv")
    conds = list(dict.fromkeys(r["cond"] for r in rows))
    names = list(dict.fromkeys(r["name"] for r in rows))
    x = np.arange(len(conds))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, metric, title in ((axes[0], "auc", "ROC-AUC"), (axes[1], "f1", "F1 at the operating point")):
        for i, name in enumerate(names):
            v = {r["cond"]: float(r[metric]) for r in rows if r["name"] == name}
            ax.plot(x, [v[c] for c in conds], marker="o", lw=2.2 if name == "earshot" else 1.5,
                    color=COLORS.get(name, PEER_COLORS[i % len(PEER_COLORS)]), label=name)
        ax.set_xticks(x, [c if c == "clean" else f"{c} dB" for c in conds])
        ax.set_xlabel("SNR")
        ax.set_title(title)
        ax.set_ylim(0.5, 1.0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=9, loc="lower left")
    fig.tight_layout()
    fig.savefig(out / "vad.png", dpi=90)


def plot_cascade(d, out):
    rows = [r for r in read_tsv(d / "cascade.tsv") if r["run"] == "1"]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(7, 4))
    ours = [float(r["earshot_us_per_s"]) * 3600 / 1e6 for r in rows]
    peers = [float(r["peers_us_per_s"]) * 3600 / 1e6 for r in rows]
    ax.bar(x - 0.2, ours, 0.4, color="tab:blue", label="earshot: VAD, keyword, STT")
    ax.bar(x + 0.2, peers, 0.4, color="tab:orange", label="openWakeWord + Silero VAD")
    for xi, a, b in zip(x, ours, peers):
        ax.text(xi - 0.2, a * 1.15, f"{a:.1f}", ha="center", fontsize=9)
        ax.text(xi + 0.2, b * 1.15, f"{b:.0f}", ha="center", fontsize=9)
    ax.set_yscale("log")
    ax.set_ylim(0.5, 400)
    ax.set_xticks(x, [{"noise": "noise", "speech": "speech, no keyword",
                       "day": "a day: 5% speech,\na tenth of it requests"}.get(r["case"], r["case"])
                      for r in rows])
    ax.set_ylabel("CPU seconds per hour of audio (one core)")
    ax.set_title("The cascade's cost, bench/cascade_cost.sh (run 1)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left")
    fig.tight_layout()
    fig.savefig(out / "cascade_cost.png", dpi=90)


def plot_stt(d, out):
    rows = read_tsv(d / "stt.tsv")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    labels = [f'{r["name"]}\n({r["session"]})' for r in rows]
    colors = ["tab:orange" if not r["name"].startswith("earshot") else
              "tab:cyan" if "small" in r["name"] else "tab:blue" for r in rows]
    y = np.arange(len(rows))
    for ax, key, title, fmt in ((axes[0], "wer", "word error rate, %", "{:.1f}"),
                                (axes[1], "rtf", "real-time factor (wall clock)", "{:.3g}")):
        v = [float(r[key]) for r in rows]
        ax.barh(y, v, color=colors)
        for yi, vi in zip(y, v):
            ax.text(vi, yi, " " + fmt.format(vi), va="center", fontsize=9)
        ax.set_yticks(y, labels if ax is axes[0] else [""] * len(rows), fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, max(v) * 1.2)
        ax.set_title(title)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Speech-to-text on the 210 utterances of stt/ (compare RTFs within a session)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "stt.png", dpi=90)


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help")):
        sys.exit(__doc__)
    d = pathlib.Path(sys.argv[1]) if len(sys.argv) == 2 else SRC / "docs/evaluation"
    plot_det(d, d)
    plot_vad(d, d)
    plot_cascade(d, d)
    plot_stt(d, d)
    print("wrote " + ", ".join(str(d / n) for n in ("kws_det.png", "vad.png", "cascade_cost.png",
                                                     "stt.png")))


if __name__ == "__main__":
    main()
