#!/usr/bin/python3
"""Word boundaries in the read speech by forced alignment with pocketsphinx: each utterance decoded
under a grammar of its own transcript (`earshot transcribe --words --set stt.grammar=G`), Debian's
en-us acoustic model and dictionary. An utterance with a word the dictionary lacks is left out.
Written once to a cache outside the repository (EARSHOT_CACHE, default ~/.cache/earshot) as
`align_<sub>.tsv`: utterance<TAB>word<TAB>start_s<TAB>end_s.

usage: tools/train/align_words.py [--data ../shared/data] [--earshot build/tools/earshot] SUB...
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import kws_synth  # noqa: E402
import pronounce  # noqa: E402


def align(earshot, path, words):
    """[(word, start_s, end_s)] of one utterance, or None if it cannot be aligned."""
    with tempfile.TemporaryDirectory() as tmp:
        gram = os.path.join(tmp, "g.gram")
        with open(gram, "w") as f:
            f.write(f"#JSGF V1.0;\ngrammar align;\npublic <s> = {' '.join(words)};\n")
        r = subprocess.run([earshot, "transcribe", "--words", "--set", f"stt.grammar={gram}", path],
                           capture_output=True, text=True)
    if r.returncode != 0:
        return None
    out = [line.split("\t")[1:] for line in r.stdout.splitlines()]
    if [w for w, _, _ in out] != words:
        return None
    return [(w, float(a), float(b)) for w, a, b in out]


def aligned(data, sub, earshot, log=print):
    """{utterance id: [(word, start_s, end_s)]} of a read-speech folder (computed once, cached)."""
    cache = os.path.join(kws_synth.default_cache("align"), f"align_{sub}.tsv")
    if not os.path.exists(cache):
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        dictionary = pronounce.load()
        rows, done, left = [], 0, 0
        with open(os.path.join(data, sub, "transcripts.tsv")) as f:
            items = [line.rstrip("\n").split("\t", 1) for line in f]
        files = {os.path.splitext(os.path.basename(p))[0]: os.path.join(dp, p)
                 for dp, _, ps in os.walk(os.path.join(data, sub)) for p in ps if p.endswith(".flac")}
        for utt, text in items:
            words = re.findall(r"[a-z']+", text.lower())
            result = None
            if utt in files and all(w in dictionary for w in words):
                result = align(earshot, files[utt], words)
            if result is None:
                left += 1
                continue
            done += 1
            rows += [f"{utt}\t{w}\t{a:.2f}\t{b:.2f}\n" for w, a, b in result]
        with open(cache + ".tmp", "w") as f:
            f.writelines(rows)
        os.replace(cache + ".tmp", cache)
        log(f"aligned {done} utterances of {sub} ({left} left out: a word not in the dictionary, "
            "or no alignment)")
    out = {}
    with open(cache) as f:
        for line in f:
            utt, w, a, b = line.rstrip("\n").split("\t")
            out.setdefault(utt, []).append((w, float(a), float(b)))
    return out


def main():
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("subs", nargs="+")
    args = p.parse_args()
    for sub in args.subs:
        a = aligned(args.data, sub, args.earshot)
        print(sub, len(a), "utterances,", sum(len(v) for v in a.values()), "words")


if __name__ == "__main__":
    main()
