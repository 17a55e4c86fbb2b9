"""Phone targets for the shared keyword trunk (train_kws_trunk.py --target phones): at every 4th hop
the trunk's outputs say which phones it has heard, learnt with CTC over the 39 phones of the
pocketsphinx dictionary from every recording whose words are known (read speech with its
transcripts, speech/ and speech_l2/; Speech Commands words; spoken digits) and from the same kinds
of text said by espeak-ng and flite voices. A phone trunk does not need a keyword among its classes:
any phrase is a sequence of the phones it learnt, in a person's voice as in a synthetic one, which
is what a head trained on synthetic speech alone must rely on."""
import time

import numpy as np
import torch

import audio_io
import kws_input
import kws_trunk
import pronounce
import vad_input
from kws_data import noise_and_channel, place

BLANK = 0
STRIDE = 4  # a CTC position every 4th hop (40 ms; phones last 50-150 ms)


def phone_names(words):
    """The dictionary's phones, sorted (class i + 1; 0 is CTC's blank)."""
    return sorted({p for prons in words.values() for pron in prons for p in pron})


def labelled(items, words, phones):
    """[(path, phone ids)] of the (path, text) items whose words the dictionary pronounces."""
    index = {p: i + 1 for i, p in enumerate(phones)}
    out = []
    for path, text in items:
        try:
            _, said = pronounce.pronounce(text, words)
        except pronounce.PronunciationError:
            continue
        out.append((path, [index[p] for p in said]))
    return out


class Corpus:
    """Labelled clips in groups ({name: [(path, phone ids)]}), a group drawn by its share."""

    def __init__(self, groups, shares):
        self.groups = {k: v for k, v in groups.items() if v}
        self.names = list(self.groups)
        w = np.array([shares[k] for k in self.names], np.float64)
        self.p = w / w.sum()
        self.cache = {}

    def draw(self, rng):
        group = self.groups[self.names[rng.choice(len(self.names), p=self.p)]]
        path, phones = group[rng.integers(0, len(group))]
        if path not in self.cache:
            self.cache[path] = audio_io.read_audio(path).astype(np.float64)
        return self.cache[path], phones

    def describe(self):
        return ", ".join(f"{k} {len(v)} ({100 * p:.0f}%)" for (k, v), p in zip(self.groups.items(), self.p))


def stream(rng, corpus, rirs, noise, channel, seconds):
    """Clips drawn until `seconds` are filled, 0.1-0.6 s apart, each augmented as the keyword
    spotter's negatives are (kws_data.place: gain, speed, reverberation), then noise and a device
    channel (kws_data.noise_and_channel); and the phones said, in order."""
    pieces, phones, n = [], [], 0
    while n < seconds * audio_io.SR:
        x, said = corpus.draw(rng)
        gap = np.zeros(int(rng.uniform(0.1, 0.6) * 100) * audio_io.HOP)
        xp, _ = place(rng, x, 0, rirs, neg_speed=True)
        pieces += [gap, xp]
        phones += said
        n += len(gap) + len(xp)
    return noise_and_channel(rng, np.concatenate(pieces), noise, channel), phones


def make_streams(earshot, rng, corpus, rirs, noise, n, context, channel, log, seconds=8.0):
    """[(int8 trunk inputs at every STRIDE-th hop, phone ids)] of n streams, the inputs computed by
    the device's front end and kws_input's transform."""
    out, t0 = [], time.time()
    for _ in range(n):
        s, phones = stream(rng, corpus, rirs, noise, channel, seconds)
        frames = kws_input.frame_inputs(audio_io.logmel(earshot, s))
        rows = vad_input.stack_context(frames, context)[STRIDE - 1::STRIDE]
        out.append((rows, np.array(phones, np.int64)))
    log(f"  {n} streams, {sum(len(r) for r, _ in out) * STRIDE / 6000:.0f} min, "
        f"{sum(len(p) for _, p in out)} phones, built in {time.time() - t0:.0f} s")
    return out


def log_probs(model, head, items):
    """(T, B, classes) log-probabilities of a batch of streams, and their lengths."""
    x = torch.from_numpy(np.concatenate([r for r, _ in items])).float() * kws_trunk.INPUT_SCALE
    z = head(model(x)).log_softmax(-1)
    lengths = [len(r) for r, _ in items]
    parts = torch.split(z, lengths)
    return torch.nn.utils.rnn.pad_sequence(parts), torch.tensor(lengths)


def train(model, head, streams, dev, epochs, log, seed, refresh, batch=4, passes=4, lr=2e-3):
    """CTC training of trunk and head: each epoch `passes` times over a fresh draw of streams
    (refresh; the first epoch's are given) in batches of `batch` streams."""
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    ctc = torch.nn.CTCLoss(blank=BLANK, zero_infinity=True)
    gen = np.random.default_rng(seed)
    for epoch in range(epochs):
        if epoch > 0:
            streams = refresh()
        model.train()
        head.train()
        order = np.concatenate([gen.permutation(len(streams)) for _ in range(passes)])
        total, t0 = 0.0, time.time()
        for i in range(0, len(order), batch):
            items = [streams[j] for j in order[i:i + batch]]
            z, lengths = log_probs(model, head, items)
            targets = torch.from_numpy(np.concatenate([p for _, p in items]))
            loss = ctc(z, targets, lengths, torch.tensor([len(p) for _, p in items]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(items)
        sched.step()
        log(f"  epoch {epoch + 1}: CTC loss {total / len(order):.3f} ({time.time() - t0:.0f} s), "
            f"dev phone error rate {100 * phone_error_rate(model, head, dev):.1f}%")


def greedy(z):
    """The phone ids of CTC's best path (repeats merged, blanks dropped)."""
    best = z.argmax(-1).tolist()
    return [p for i, p in enumerate(best) if p != BLANK and (i == 0 or p != best[i - 1])]


def phone_error_rate(model, head, streams):
    model.eval()
    head.eval()
    errors = total = 0
    with torch.no_grad():
        for item in streams:
            z, _ = log_probs(model, head, [item])
            errors += pronounce.edit_distance(greedy(z[:, 0]), item[1].tolist())
            total += len(item[1])
    return errors / max(total, 1)
