#!/usr/bin/python3
"""A wake word model's second stage (models/pocketsphinx/keyphrase_verifier.h): the tensors that ask for it
(kws_verify: the spotter's candidate threshold and the verified confidence's threshold at
sensitivity 0.5, Q15; kws_verify_phones: the phrase's phones in the pocketsphinx dictionary's
phone set). train_wakeword.py writes them; run as a script, this sets them on a model file that
was trained without them:
  /usr/bin/python3 tools/train/wakeword_verify.py MODEL.eshm ["PHRASE"] [--candidate 0.4] [--threshold 0.75]
      [--earshot build/tools/earshot]
(the phrase defaults to the model's kws_phrase; --earshot pronounces a word the dictionary lacks). The defaults are the thresholds measured on the
shared wake-word protocol (docs/research/wakeword.md): candidates from 0.4 keep 98.5-99.5% of the
keywords; the verified confidence 0.75 (with the spotter's run in it) gave at most 0.5 false
accept per hour there, and no more on band-limited audio or with hum than on full band."""
import argparse
import concurrent.futures
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pronounce  # noqa: E402
import vad_export  # noqa: E402
from audio_io import ROOT  # noqa: E402
from kws_constants import RUN_WEIGHT  # noqa: E402

CANDIDATE = 0.4
THRESHOLD = 0.75


def q15(x):
    return int(round(x * 32767))


def tensors(phones, candidate=CANDIDATE, threshold=THRESHOLD):
    """[(name, array)] of the second stage, for vad_export.write_tensors."""
    text = " ".join(phones)
    return [("kws_verify", np.array([q15(candidate), q15(threshold)], np.int32)),
            ("kws_verify_phones", np.array([ord(c) for c in text], np.int32))]


def chars(codes):
    """A text tensor (kws_phrase, kws_verify_phones: code points) as a string."""
    return "".join(chr(c) for c in codes)


def card_of(t):
    """card_text of the second stage a model's tensors `t` state (read_tensors)."""
    narrowband, run = t.get("kws_verify_narrowband"), t.get("kws_verify_run")
    return card_text(chars(t["kws_verify_phones"]).split(), t["kws_verify"][0] / 32767,
                     t["kws_verify"][1] / 32767, None if narrowband is None else narrowband[0] / 32767,
                     None if run is None else (run[0] / 1000, run[1] / 1000))


def card_text(phones, candidate=CANDIDATE, threshold=THRESHOLD, narrowband=None, run=None):
    """The model card's bullet on the second stage (ends with a newline); `narrowband`: the
    penalty of wakeword_narrowband.py, if calibrated; `run`: (weight, offset) of wakeword_run.py,
    if chosen."""
    text = (f"- Second stage (`kws_verify`): whenever the spotter's score passes {candidate:.3g}, the\n"
            f"  device checks the last 1.8 s with pocketsphinx's en-us acoustic model (`{' '.join(phones)}`\n"
            f"  against a free phone loop, models/pocketsphinx/keyphrase_verifier.h); the sensitivity is then that\n"
            f"  check's, 0.5 at a verified confidence of {threshold:.3g}.\n")
    if run is None:
        text += f"  The confidence is 1 + (score + {RUN_WEIGHT} x the spotter's run in hops) / 100.\n"
    else:
        text += (f"  The confidence is 1 + (score + {run[0]:.1f} x the spotter's run in hops - {run[1]:.2f}) / 100\n"
                 f"  (`kws_verify_run`: the run's weight chosen for the phrase on synthetic renditions\n"
                 f"  against real negatives, tools/train/wakeword_run.py).\n")
    if narrowband is not None:
        text += (f"  On audio with an empty band above 4 kHz (an 8 kHz codec's) the confidence loses {narrowband:.3f}\n"
                 f"  (`kws_verify_narrowband`, calibrated on real negatives, full band against low-passed:\n"
                 f"  tools/train/wakeword_narrowband.py).\n")
    return text


def update_card(path, text):
    """The card beside the model (FILE.md), if there is one, its second-stage bullet now `text`:
    the old one dropped, the new one last in the first list (before "## Training data")."""
    card = os.path.splitext(path)[0] + ".md"
    if not os.path.exists(card):
        return
    lines, old = [], False
    for line in open(card).read().split("\n"):
        old = line.startswith("- Second stage") or (old and line.startswith("  "))
        if not old:
            lines.append(line)
    i = lines.index("## Training data") - 1  # the blank line that ends the first list
    lines[i:i] = text.rstrip("\n").split("\n")
    open(card, "w").write("\n".join(lines))


def candidates(earshot, model, paths):
    """{path: [(confidence, score, hops)]}: each candidate of `model` alone in each of `paths`, as
    `earshot kws --candidates` prints it (one process per core); score None where the second stage
    found no detection of the phrase."""
    def run(path):
        out = subprocess.run([earshot, "kws", "--model", model, "--candidates", path],
                             check=True, capture_output=True, text=True).stdout
        rows = [line.split("\t") for line in out.splitlines() if line]
        return [(float(r[2]), None if r[3] == "none" else float(r[3]), int(r[4])) for r in rows]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return dict(zip(paths, pool.map(run, paths)))


def read_model(parser, path, second_stage=True):
    """(tensors, phrase) of the model file `path`, which must have a second stage to calibrate
    (unless not `second_stage`); otherwise a usage error through `parser` naming the file and the
    cause."""
    try:
        t = vad_export.read_tensors(path)
    except OSError as e:
        parser.error(f"{path}: {e.strerror}")
    except (AssertionError, ValueError):
        parser.error(f"{path}: not an earshot model file (its header or checksum)")
    if second_stage and "kws_verify" not in t:
        parser.error(f"{path}: no second stage (kws_verify) to calibrate")
    return t, chars(t.get("kws_phrase", []))


def rewrite(path, items):
    """The model file `path` written with the tensors `items`, and its card's second-stage bullet
    (if it has a card) made from them."""
    vad_export.write_tensors(path, "kws-mlp", items)
    update_card(path, card_of(dict(items)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("phrase", nargs="?")
    p.add_argument("--candidate", type=float, default=CANDIDATE)
    p.add_argument("--threshold", type=float, default=THRESHOLD)
    p.add_argument("--earshot", default=os.path.join(ROOT, "build", "tools", "earshot"))
    a = p.parse_args()
    t, phrase = read_model(p, a.model, second_stage=False)
    phrase = a.phrase or phrase
    try:
        _, phones = pronounce.pronounce(phrase, pronounce.load(), pronounce.espeak(a.earshot))
    except pronounce.PronunciationError as e:
        sys.exit(f"wakeword_verify.py: {a.model}: {e}")
    items = [(k, v) for k, v in t.items() if k not in ("kws_verify", "kws_verify_phones")]
    # kws_verify_narrowband is kept: calibrated on the confidence, not on a threshold.
    items += tensors(phones, a.candidate, a.threshold)
    rewrite(a.model, items)
    print(f"{a.model}: second stage '{' '.join(phones)}', candidates from {a.candidate}, "
          f"confidence {a.threshold}")


if __name__ == "__main__":
    main()
