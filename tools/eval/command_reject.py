#!/usr/bin/python3
"""Command rejection on Speech Commands recordings (issue 49): the ten command words as one command
set (tools/samples/commands/ten.commands), decoded by `earshot transcribe` with stt.commands.
  - the other words of the Speech Commands folder must be rejected (by word; and on its held-out
    splits alone, every split but train/, whose speakers no bundled model trained on);
  - the ten must be recognised on the held-out splits (the right word, not rejected);
  - every recording of a read-speech folder and its subfolders (LibriSpeech utterances, flat or
    in its own <speaker>/<chapter>/) must be rejected.
Runs unchanged on any Speech Commands folder: <split>/<word>/* (train/, dev/, test/, ...) or
<word>/* (Google's own layout: one split, held out), of .flac or .wav files.
Usage: tools/eval/command_reject.py [--data DIR] [--earshot BIN] [--kws DIR] [--speech DIR]
       [--set stt.KEY=V]...   (defaults: DIR/kws, DIR/stt of the shared data path)
Prints one line per word, then the three figures and a JSON summary line (its *_dev figures are
those of the held-out splits)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from audio_io import ROOT, parser  # noqa: E402
from augment import list_audio  # noqa: E402

TEN = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
SET = os.path.join(ROOT, "tools", "samples", "commands", "ten.commands")


def transcribe(earshot, files, options):
    """{file: (word or None when rejected)} from `earshot transcribe` with the ten as one set."""
    out = {}
    for i in range(0, len(files), 200):  # bounded command lines
        cmd = [earshot, "transcribe", "--set", "stt.commands=" + SET] + options + files[i:i + 200]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"command_reject: {' '.join(cmd[:4])}... failed: {run.stderr.strip()}")
        for line in run.stdout.splitlines():
            path, _text, command = line.split("\t")
            out[path] = None if command == "rejected" else command.split("word=")[-1]
    return out


def clips(split_dir):
    """{word: [files]} of one split: each folder of split_dir that holds recordings (but
    _background_noise_ and any other folder whose name starts with _)."""
    out = {}
    for w in sorted(os.listdir(split_dir)):
        if os.path.isdir(os.path.join(split_dir, w)) and not w.startswith("_"):
            files = list_audio(split_dir, w)
            if files:
                out[w] = files
    return out


def splits_of(kws):
    """{split: {word: [files]}}: each folder of kws whose own folders hold recordings; kws itself
    (as split "all") when its folders hold recordings directly."""
    if not os.path.isdir(kws):
        return {}
    out = {s: clips(os.path.join(kws, s)) for s in sorted(os.listdir(kws))
           if os.path.isdir(os.path.join(kws, s))}
    out = {s: words for s, words in out.items() if words}
    if out:
        return out
    words = clips(kws)
    return {"all": words} if words else {}


def main():
    p = parser(__doc__)
    p.add_argument("--kws", help="Speech Commands folder (<split>/<word>/ or <word>/)")
    p.add_argument("--speech", help="folder of read-speech .flac files")
    p.add_argument("--set", action="append", default=[], dest="options")
    a = p.parse_args()
    kws = a.kws or os.path.join(a.data, "kws")
    speech = a.speech or os.path.join(a.data, "stt")
    options = [x for o in a.options for x in ("--set", o)]
    splits = splits_of(kws)
    if not splits:
        sys.exit(f"command_reject: {kws}: no <split>/<word>/ nor <word>/ folder of .flac or .wav")
    held_out = [s for s in splits if s != "train"] or list(splits)
    files = [f for s in splits.values() for fs in s.values() for f in fs]
    reads = list_audio(speech, "")
    heard = transcribe(a.earshot, files + reads, options)
    summary = {"splits": sorted(splits), "held_out": held_out,
               "rejected_by_word": {}, "recognised_by_word": {}}
    names = "/".join(held_out)
    for word in sorted({w for s in splits.values() for w in s}):
        if word in TEN:
            dev = [f for s in held_out for f in splits[s].get(word, [])]
            right = sum(heard[f] == word for f in dev)
            summary["recognised_by_word"][word] = [right, len(dev)]
            print(f"{word}\trecognised on {names} {right}/{len(dev)}")
        else:
            every = [f for s in splits.values() for f in s.get(word, [])]
            rejected = sum(heard[f] is None for f in every)
            summary["rejected_by_word"][word] = [rejected, len(every)]
            print(f"{word}\trejected {rejected}/{len(every)} ({100 * rejected / len(every):.1f}%)")
    dev_others = [f for s in held_out for w, fs in splits[s].items() if w not in TEN for f in fs]
    summary["other_words_rejected_dev"] = (sum(heard[f] is None for f in dev_others)
                                           / max(1, len(dev_others)))
    summary["other_words_dev_files"] = len(dev_others)
    rej = summary["rejected_by_word"].values()
    rec = summary["recognised_by_word"].values()
    summary["worst_word_rejection"] = min(r / n for r, n in rej) if rej else None
    summary["other_words_rejected"] = sum(r for r, _ in rej) / max(1, sum(n for _, n in rej))
    summary["ten_recognised_dev"] = sum(r for r, _ in rec) / max(1, sum(n for _, n in rec))
    summary["read_speech_rejected"] = (sum(heard[f] is None for f in reads) / len(reads)
                                       if reads else None)
    summary["read_speech_files"] = len(reads)
    worst = summary["worst_word_rejection"]
    print(f"other words rejected: {100 * summary['other_words_rejected']:.1f}% (worst word "
          + (f"{100 * worst:.1f}%" if worst is not None else "n/a") + f"; {names} alone "
          f"{100 * summary['other_words_rejected_dev']:.1f}% of {len(dev_others)}); "
          f"the ten recognised on {names}: "
          f"{100 * summary['ten_recognised_dev']:.1f}%; read speech rejected: "
          + (f"{100 * summary['read_speech_rejected']:.1f}% of {len(reads)}" if reads else "n/a"))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
