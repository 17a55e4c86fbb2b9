#!/usr/bin/python3
"""A wake-word DET curve (ww_score.py's PREFIX.det.tsv) read at one threshold: the miss rate and
the false accepts per hour there; the threshold is a number, or a keyword model file whose
kws_default_threshold (the threshold of sensitivity 0.5) it reads (0.8 when the file has none);
with --verified (the curve of `earshot kws --verified`'s scores), the threshold of the verified
confidence at sensitivity 0.5 of a model with a second stage (kws_verify).

usage: tools/eval/kws_at_threshold.py DET_TSV THRESHOLD|MODEL [--verified]
  (prints miss_rate<TAB>fa_per_hour<TAB>threshold)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))


def threshold_of(arg, verified):
    try:
        return float(arg)
    except ValueError:
        import vad_export
        t = vad_export.read_tensors(arg)
        if verified and "kws_verify" in t:
            return int(t["kws_verify"][1]) / 32767
        return int(t["kws_default_threshold"][0]) / 32767 if "kws_default_threshold" in t else 0.8


def main():
    verified = "--verified" in sys.argv[3:]
    if len(sys.argv) != 3 + verified or (verified and sys.argv[3] != "--verified"):
        print(__doc__, file=sys.stdout if "--help" in sys.argv or "-h" in sys.argv else sys.stderr)
        sys.exit(0 if "--help" in sys.argv or "-h" in sys.argv else 2)
    th = threshold_of(sys.argv[2], verified)
    rows = [line.split("\t") for line in open(sys.argv[1]) if line[0].isdigit()]
    # A threshold between two of the curve's acts as the next one up (the scores are its rows).
    above = [r for r in rows if float(r[0]) >= th]
    miss, fa_h = (float(above[0][1]), float(above[0][3])) if above else (1.0, 0.0)
    print(f"{miss:.4f}\t{fa_h:.4f}\t{th:.4f}")


if __name__ == "__main__":
    main()
