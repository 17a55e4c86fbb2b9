"""Pronunciations from the pocketsphinx dictionary (Debian's pocketsphinx-en-us, the one the device's
speech-to-text reads), and the phrases that sound like a wake word: dictionary words and word pairs
whose phones differ from the phrase's by a few edits (insertions, deletions, substitutions), the
near misses a keyword model must learn to reject ("snow buoy", "so boy", "snowboard" for
"snowboy"). A word missing from the dictionary is split into two or three dictionary words where it
can be ("snowboy" = "snow" + "boy"), else it takes espeak-ng's pronunciation as the device derives
it for such words (`earshot pronounce`: espeak-ng's phonemes mapped to the acoustic model's phones;
"nabu" = N AA B UW), else it is an error naming the word."""
import hashlib
import os
import re
import subprocess

DICTIONARY = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"


class PronunciationError(ValueError):
    pass


def load(path=DICTIONARY):
    """{word: [phones tuple, ...]} (the first variant first)."""
    if not os.path.exists(path):
        raise PronunciationError(f"{path}: no pronunciation dictionary (install pocketsphinx-en-us)")
    words = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            word = re.sub(r"\(\d+\)$", "", parts[0])
            words.setdefault(word, []).append(tuple(parts[1:]))
    return words


def split_compound(word, words, most=3):
    """The dictionary words (at least 2 letters each) that spell `word` together, fewest first, the
    longest first part among equals; None if there are none."""
    best = None
    for i in range(len(word) - 2, 1, -1):
        head, tail = word[:i], word[i:]
        if head not in words:
            continue
        rest = [tail] if tail in words and len(tail) >= 2 else (
            split_compound(tail, words, most - 1) if most > 2 else None)
        if rest and (best is None or 1 + len(rest) < len(best)):
            best = [head] + rest
    return best


def normalise(phrase):
    """The phrase's words, lower case, letters, digits and apostrophes only ("R2-D2" is "r2" and
    "d2": words the dictionary lacks, which espeak-ng says)."""
    return re.findall(r"[a-z0-9']+", phrase.lower())


def espeak(earshot):
    """A `derive` for pronounce(): the word's phones from `earshot pronounce WORD` (espeak-ng's, as
    the device derives them for words its dictionary lacks), or PronunciationError saying why not."""
    def derive(word):
        try:
            r = subprocess.run([earshot, "pronounce", word], capture_output=True, text=True)
        except OSError as e:
            raise PronunciationError(f"'{word}': {earshot} could not be run ({e.strerror})") from e
        if r.returncode != 0:
            why = r.stderr.strip().removeprefix("earshot: pronounce: ")
            raise PronunciationError(why or f"'{word}': {earshot} pronounce failed")
        return tuple(r.stdout.split("\t", 1)[1].split())
    return derive


def pronounce(phrase, words, derive=None):
    """(the phrase's spoken words, their phones): each word as the dictionary has it, or split
    into dictionary words, or else as `derive` gives it (espeak(): espeak-ng's); PronunciationError
    naming the first word with none."""
    spoken, phones = [], []
    for w in re.findall(r"[^\W_]+", phrase.lower()):
        if not re.fullmatch(r"[a-z0-9]+", w):  # normalise() would drop the letter: "élan" as "lan"
            raise PronunciationError(f"'{w}': a letter outside a-z, which {DICTIONARY} does not "
                                     "spell in (write the word as it is said, 'cafe' for 'café')")
    if not normalise(phrase):
        raise PronunciationError(f"'{phrase}': no words to pronounce")
    for w in normalise(phrase):
        parts = [w] if w in words else split_compound(w, words)
        if parts:
            spoken += parts
            for p in parts:
                phones += list(words[p][0])
            continue
        hint = "spell it as words the dictionary knows, e.g. 'snow boy'"
        if derive is None:
            raise PronunciationError(
                f"'{w}': no pronunciation in {DICTIONARY}, nor a split into dictionary words ({hint})")
        try:
            phones += list(derive(w))
        except PronunciationError as e:
            raise PronunciationError(
                f"'{w}': no pronunciation in {DICTIONARY}, nor a split into dictionary words, nor "
                f"from espeak-ng ({e}; {hint})") from e
        spoken.append(w)
    return spoken, tuple(phones)


def described(spoken, words):
    """The spoken words for a log or a model card: a word the dictionary lacks (its pronunciation
    espeak-ng's) marked so."""
    return [w if w in words else f"{w} (espeak-ng)" for w in spoken]


def edit_distance(a, b, limit=None):
    """Levenshtein distance of two phone sequences, or limit + 1 once it must exceed limit (no
    limit: the distance)."""
    limit = len(a) + len(b) if limit is None else limit
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def contains(seq, part):
    n = len(part)
    return any(tuple(seq[i:i + n]) == tuple(part) for i in range(len(seq) - n + 1))


def _close(target, by_length, limit):
    """[(distance, word)] of the dictionary words within `limit` edits of the phone sequence."""
    out = []
    for n in range(max(1, len(target) - limit), len(target) + limit + 1):
        for word, phones in by_length.get(n, ()):
            d = edit_distance(target, phones, limit)
            if d <= limit:
                out.append((d, word))
    return out


def confusables(spoken, target, words, count=60, common=frozenset()):
    """Phrases that sound like the phrase but are not it: single words and word pairs of the
    dictionary within a third of its phones' length in edits (at least 1, at most 3), and each
    word of a several-word phrase alone; never a sequence that holds all of the phrase's phones,
    and one spelling per sequence of phones. Nearest first; among equals, those made of `common`
    words (e.g. the read speech's vocabulary) first, then in a fixed pseudo-random order (a hash
    of the text), so that one first word does not fill the list. At most `count`. `spoken`,
    `target`: the phrase's words and phones, as pronounce() gives them."""
    limit = min(3, max(1, len(target) // 3))
    plain = [w for w in words if re.fullmatch(r"[a-z]+", w)]
    by_length = {}
    for w in plain:
        by_length.setdefault(len(words[w][0]), []).append((w, words[w][0]))
    found, seen = {}, set()

    def add(d, text, phones):
        if 0 < d and not contains(phones, target) and phones not in seen:
            seen.add(phones)
            found[text] = d

    for d, w in _close(target, by_length, limit):
        add(d, w, words[w][0])
    for i in range(2, len(target) - 1):  # word pairs: each half within one edit
        heads = _close(target[:i], by_length, 1)
        tails = _close(target[i:], by_length, 1)
        for dh, h in heads:
            for dt, t in tails:
                add(dh + dt, f"{h} {t}", words[h][0] + words[t][0])
    alone = [w for w in dict.fromkeys(spoken) if len(spoken) > 1]  # "snow", "boy": always

    def rank(item):
        text, d = item
        rare = sum(w not in common for w in text.split())
        return d, rare, hashlib.sha1(text.encode()).hexdigest()
    ranked = [text for text, _ in sorted(found.items(), key=rank) if text not in alone]
    return (alone + ranked)[:count]
