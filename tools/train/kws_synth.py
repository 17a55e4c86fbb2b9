#!/usr/bin/python3
"""Synthetic speech for the keyword spotter, from Debian's text-to-speech engines (espeak-ng, flite):
"computer" said by many voices, speeds and pitches (positives), words and phrases that sound like
it (near misses: commuter, compute, cucumber, "come pewter", ...) and a few plain sentences (so a
synthetic voice alone does not mean "keyword"). Written once to a cache directory outside the
repository as 16 kHz mono WAV; the same list and seed give the same files.

usage: tools/train/kws_synth.py [--cache DIR] [--scale 1]
  DIR defaults to $EARSHOT_CACHE/kws_synth (EARSHOT_CACHE: ~/.cache/earshot); the set goes to a
  subdirectory named after its version and a digest of its clip list, so sets never mix.
Writes DIR/pos/*.wav, DIR/near/*.wav, DIR/other/*.wav and DIR/index.tsv (kind, file, engine, voice,
speed, pitch, text). Needs espeak-ng and flite (tools/setup.sh --training).
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402

SEED = 20261122
VERSION = 3  # bump when the lists or the recipe change: a new cache directory is made

KEYWORD = "computer"
# Words and phrases that share sounds with "computer" (never the word itself, nor a word it is
# the start of, such as "computers": those end with the keyword's last frames).
NEAR = [
    "commuter", "commute", "commuting", "compute", "computed", "computing", "computation",
    "competent", "compete", "competing", "competitor", "cucumber", "come pewter", "company",
    "comfort her", "compuserve", "complete", "completer", "composer", "compost", "compiler",
    "compressor", "compulsory", "computational", "commentator", "campus", "compromise", "copper",
    "pewter", "peter", "tutor", "scooter", "router", "recruiter", "dispute her", "come to her",
    "come put her", "computed her", "amputee", "amputate", "could you", "come here", "commander",
    "commodore", "comedy", "cumbersome", "complain", "compote", "compass",
    "compactor", "commuter train", "computing power", "repute",
    "reputed", "deputy", "tempter", "temper", "cantor", "counter", "quarter", "commuter rail",
    "computes", "commune", "community", "commuted", "impute", "input", "output", "computable",
    "come pew", "come on put her", "computation time", "can you turn", "hamper", "jumper",
    "bumper", "pumper", "plumper", "thumper", "camper",
]
SENTENCES = [
    "the weather is nice today", "please turn off the lights in the kitchen",
    "what time is it", "set a timer for ten minutes", "play some music",
    "i will meet you at the station", "the company reported strong results",
    "she bought a new bicycle", "he put the cup on the table", "we went to the market on sunday",
    "could you open the window please", "the committee will decide tomorrow",
    "my mother called this morning", "a cold wind blew across the field",
    "the commuters waited for the late train", "turn the volume down a little",
    "they competed in the final round", "the tutor explained the lesson",
    "a cucumber salad with fresh herbs", "remember to buy some milk",
]
ESPEAK_VOICES = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp",
                 "en-gb-x-gbcwmd", "en-029", "en-us-nyc"]
FLITE_VOICES = ["kal", "kal16", "awb", "rms", "slt"]


def espeak_variants():
    out = subprocess.run(["espeak-ng", "--voices=variant"], check=True, capture_output=True,
                         text=True).stdout.splitlines()[1:]
    return sorted(line.split()[4].split("/")[-1] for line in out if line.split())


def render(rng, variants, engine, text, path):
    """One utterance of text to a 16 kHz WAV; returns (voice, speed, pitch) as used."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "x.wav")
        if engine == "espeak":
            voice = ESPEAK_VOICES[rng.integers(0, len(ESPEAK_VOICES))]
            if rng.uniform() < 0.8:
                voice += "+" + variants[rng.integers(0, len(variants))]
            speed, pitch = int(rng.integers(110, 220)), int(rng.integers(15, 90))
            cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch),
                   "-a", "120", "-w", raw, text]
            if " " in text:  # a pause of 0-150 ms between the words
                cmd[1:1] = ["-g", str(int(rng.integers(0, 16)))]
        else:
            voice = FLITE_VOICES[rng.integers(0, len(FLITE_VOICES))]
            stretch = round(float(rng.uniform(0.75, 1.4)), 2)
            mean = int(rng.integers(80, 220))
            speed, pitch = stretch, mean
            cmd = ["flite", "-voice", voice, "-set", f"duration_stretch={stretch}",
                   "-set", f"int_f0_target_mean={mean}", "-t", text, "-o", raw]
        subprocess.run(cmd, check=True, capture_output=True)
        # To 16 kHz without dither (-D): sox dithers a resampled 16-bit output from a time-seeded
        # generator, which would make every set different.
        pcm = subprocess.run(["sox", "-D", raw, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1",
                              "-r", str(audio_io.SR), "-"], check=True, capture_output=True).stdout
        x = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
    peak = np.abs(x).max()
    if peak > 0:
        x *= 10 ** (-6 / 20) * 32767 / peak  # -6 dBFS peak: augmentation sets the level
    audio_io.write_wav(path, x)
    return voice, speed, pitch


def default_cache(name="kws_synth"):
    base = os.environ.get("EARSHOT_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "earshot"))
    return os.path.join(base, name)


def plan(scale):
    """(kind, text) of every clip: at scale 1, 800 keywords, 12 of each near miss and 6 of each
    sentence; below 1 (smoke tests), fewer of each and a share `scale` of the lists (at least 2)."""
    cut = lambda items: items if scale >= 1 else items[:max(2, int(len(items) * scale))]  # noqa: E731
    jobs = [("pos", KEYWORD)] * max(1, round(800 * scale))
    jobs += [("near", w) for w in cut(NEAR) for _ in range(max(1, round(12 * scale)))]
    jobs += [("other", s) for s in cut(SENTENCES) for _ in range(max(1, round(6 * scale)))]
    return jobs


def fingerprint(jobs, seed=SEED):
    h = hashlib.sha1(f"{VERSION} {seed}".encode())
    for kind, text in jobs:
        h.update(f"{kind}\t{text}\n".encode())
    return h.hexdigest()[:10]


def phrase_plan(phrase, near, sentences, n_pos, per_near, per_sentence):
    """(kind, text) of a wake word's set (train_wakeword.py): the phrase n_pos times (kind pos),
    each near miss per_near times (near) and each sentence per_sentence times (other)."""
    return ([("pos", phrase)] * n_pos + [("near", w) for w in near for _ in range(per_near)] +
            [("other", s) for s in sentences for _ in range(per_sentence)])


def word_plan(words, per_word):
    """(kind, text) of every clip of a word list: each word said per_word times, its kind itself
    (train_kws_trunk.py's words, train_commands.py's --from-text)."""
    return [(w, w) for w in words for _ in range(per_word)]


def generate(cache, scale=1.0, log=print, jobs=None, seed=SEED):
    """The synthetic set's directory (made if missing) for `jobs` (kind, text) (default: the keyword
    set's plan(scale)), voices and their settings drawn from `seed`. Three quarters espeak-ng, a
    quarter flite."""
    jobs = plan(scale) if jobs is None else jobs
    out = os.path.join(cache, f"v{VERSION}_{fingerprint(jobs, seed)}")
    index = os.path.join(out, "index.tsv")
    if os.path.exists(index):
        return out
    rng = np.random.default_rng(seed)
    variants = espeak_variants()
    rows = []
    for i, (kind, text) in enumerate(jobs):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        engine = "espeak" if rng.uniform() < 0.75 else "flite"
        name = os.path.join(kind, f"{i:05d}.wav")
        voice, speed, pitch = render(rng, variants, engine, text, os.path.join(out, name))
        rows.append(f"{kind}\t{name}\t{engine}\t{voice}\t{speed}\t{pitch}\t{text}\n")
    with open(index + ".tmp", "w") as f:
        f.writelines(rows)
    os.replace(index + ".tmp", index)
    log(f"synthetic speech: {len(rows)} clips in {out}")
    return out


def read_rows(out):
    """[(kind, wav path, text said)] of a generated set, in its index's order."""
    with open(os.path.join(out, "index.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [(r[0], os.path.join(out, r[1]), r[6]) for r in rows]


def read_index(out):
    """{kind: [wav paths]} of a generated set."""
    files = {}
    for kind, path, _ in read_rows(out):
        files.setdefault(kind, []).append(path)
    return files


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cache", default=default_cache())
    p.add_argument("--scale", type=float, default=1.0, help="below 1: a smaller set (smoke tests)")
    args = p.parse_args()
    out = generate(args.cache, args.scale)
    print({k: len(v) for k, v in read_index(out).items()}, out)


if __name__ == "__main__":
    main()
