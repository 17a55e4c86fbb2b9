#!/usr/bin/python3
"""Trains earshot's command classifier: a second opinion on a short spoken command for the
speech-to-text's command words (stt.words; models/commands/command_model.h runs it, command_fusion.h
joins it to pocketsphinx's word), a small head on Google's speech embedding.

usage: tools/train/train_commands.py [--data ../shared/data] [--earshot build/tools/earshot]
           [--out models/commands/commands.eshm] [--log OUT_train.log]
           [--words W|W...] [--from-text [--synth DIR] [--synth-per-word 200]]
           [--copies 8] [--extra DIR,...|none] [--more DIR,...|none] [--channel 0.3]
           [--hidden 64] [--epochs 300]
           [--folds 5 [--ps-hyps HYP.tsv] [--fold-models DIR]]
           [--vectors FILE]
       tools/train/train_commands.py --vectors-of MODEL --vectors FILE   (vectors only)

Input (command_model.h implements it): the one-second window of the command's audio that
command_window() picks, with PAD_FRAMES hops of silence before and after it, through the speech
embedding (`earshot features --kind embedding`: the device's own front end and int8 network, one
embedding of 96 int8 values every 80 ms); of those embeddings, the maximum of each value, then
their mean rounded half up: 192 int8 values.
Head: one hidden layer of --hidden ReLU units (dropout 0.3 while training), then a logit per class;
the inputs' standardisation is folded into the first layer; int8 weights (vad_export.quantize_layers),
logits in Q(LOGIT_Q). Full-batch Adam for --epochs epochs, each class weighted 1 (a command word) or
OTHER_WEIGHT (any other).
Classes: the command words (--words, by default the ten Speech Commands words), then every other
word of kws/train (25 besides the ten), then one per --extra folder
(named by the folder), then _speech (one-second windows of the read speech of speech/) and _noise
(of noise/); the file keeps every class, so that a word the classifier knows is not a command can
reject what the decoder took for one (command_fusion.h).
Data (from --data, read in place): kws/train's clips (kws/dev is the evaluation protocol's), each
as it is and in --copies augmented copies (speed 0.9-1.1, reverberation on half, a shift of up to
0.15 s, noise at 5-30 dB, gain; --channel of them through a random microphone); the clips of each
--more folder (<word>/<clip>; by default FSDD train's digits: MORE) in their word's class and the
recordings of each --extra folder (by default the wake-word recordings: EXTRA), with the same
copies. Seeded: the same data give the same model.
--from-text learns the command words from text alone (an app's words, say): no recording of them
is read (kws/train's and --more's clips of them are left out); their classes learn from
--synth-per-word synthetic renditions of each (kws_synth.py: espeak-ng and flite voices, made
once into --synth) with --copies copies; everything else as above.
--folds K cross-validates by speaker on kws/train first (K heads, each trained without one fold's
speakers; the clips of each fold scored by the head that did not see them): the classifier's
accuracy, and with --ps-hyps (`id<TAB>word` of the decoder alone on the same clips:
tools/eval/cmd_eval.sh's NAME.hyp.tsv) the fusion's for each bonus (command_fusion.h);
--fold-models DIR also writes each fold's head (DIR/fold<k>.eshm) and its held-out clips
(DIR/fold<k>/<word>/<clip>, links), for tools/eval/command_reject.py to run on them.
--vectors-of writes the test vectors of an exported model, without training (after a new sample).
"""
import os
import sys
import time
from multiprocessing import Pool

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import augment  # noqa: E402
import kws_data  # noqa: E402
import kws_synth  # noqa: E402
import vad_export  # noqa: E402
from mlp_train import open_log  # noqa: E402

SEED = 20261202
COMMANDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
FRAMES = 100  # the command window: one second
PAD_FRAMES = 30  # silence either side of it: the embedding's 76-frame windows see all of it
LOGIT_Q = 5  # logits in Q5: +-32 nats in steps of 1/32
OTHER_WEIGHT = 0.3
DIMS = 96  # the embedding's values
EMBEDDING = os.path.join(audio_io.ROOT, "models", "embedding", "speech_embedding.eshm")
# --extra by default: real recordings of other words by other speakers (the wake-word recordings:
# 1029 clips, more than 50 speakers), a class each, for more voices and microphones.
EXTRA = ("wakeword/computer/train", "wakeword/snowboy", "wakeword/view_glass")
# Folders of <word>/<clip> whose clips join their word's class: FSDD train's digits, three more
# speakers of words the digit strings are made of (FSDD dev is tools/eval/digit_strings.py's).
MORE = ("kws_aux/fsdd/train",)
BONUSES = (0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 1000.0)


def command_window(x, rng=None, max_shift=0):
    """One second of x: a clip of at most a second stays where it is (zeros after it); a longer one
    is cut around its voiced span (the protocol's 40 dB rule, audio_io.speech_labels), centred. With
    rng, the span moves by up to max_shift samples either way (training)."""
    n = FRAMES * audio_io.HOP
    a, b = kws_data.keyword_span(x)
    a, b = a * audio_io.HOP, min(len(x), (b + 1) * audio_io.HOP)
    span = b - a
    if span >= n:
        start = (a + b) // 2 - n // 2
        seg = x[max(0, start):max(0, start) + n]
        return np.pad(seg, (0, n - len(seg)))
    base = a if len(x) <= n else (n - span) // 2
    shift = int(rng.integers(-max_shift, max_shift + 1)) if rng is not None else 0
    p = int(np.clip(base + shift, 0, n - span))
    out = np.zeros(n)
    src = a - p  # out[i] = x[i + src]
    lo, hi = max(0, -src), min(n, len(x) - src)
    out[lo:hi] = x[lo + src:hi + src]
    return out


class Augmenter:
    def __init__(self, data, channel):
        self.channel = channel  # the share of copies through augment.microphone
        self.noises = [audio_io.read_audio(f).astype(np.float64)
                       for f in augment.list_audio(data, "noise")]
        self.rirs = augment.read_rirs(data)

    def __call__(self, x, rng):
        x = kws_data.change_speed(x, rng.uniform(0.9, 1.1))
        if rng.uniform() < 0.5:
            y = augment.reverberate(x, self.rirs[rng.integers(len(self.rirs))])
            x = y * np.sqrt(augment.active_power(x) / max(augment.active_power(y), 1e-9))
        x = command_window(x, rng, 2400)
        if rng.uniform() < 0.85:
            noise = self.noises[rng.integers(len(self.noises))]
            start = rng.integers(0, len(noise) - len(x))
            n = noise[start:start + len(x)]
            snr = rng.uniform(5, 30)
            x = x + n * np.sqrt(augment.active_power(x) / (np.mean(n * n) + 1e-9) * 10 ** (-snr / 10))
        if self.channel and rng.uniform() < self.channel:
            x = augment.microphone(x, rng)
        x = x * 10 ** (rng.uniform(-25, 5) / 20)
        peak = np.abs(x).max()
        return x * (32000 / peak) if peak > 32000 else x


def out_scale(embedding):
    return float(vad_export.read_tensors(embedding)["out_scale"][0])


def pooled(earshot, window, scale):
    """The head's 192 int8 inputs of a one-second window (command_model.h): its padded stream's
    embeddings (int8: `earshot features` prints them times the scale), their maximum and mean."""
    pad = np.zeros(PAD_FRAMES * audio_io.HOP)
    out = audio_io.run_features(earshot, np.concatenate([pad, window, pad]), "embedding")
    e = np.round(np.array(out.split(), dtype=np.float64).reshape(-1, DIMS) / scale).astype(np.int64)
    n = len(e)
    mean = (2 * e.sum(axis=0) + n) // (2 * n)  # rounded half up
    return np.concatenate([e.max(axis=0), mean]).astype(np.int8)


WORKER = None  # each feature worker's (augmenter, earshot, scale)


def start_worker(data, channel, earshot, scale):
    global WORKER
    WORKER = (Augmenter(data, channel), earshot, scale)


def clip_features(job):
    """(1 + copies, 192) int8 of a clip: as it is, then augmented copies."""
    path, copies, seed, kind = job
    augmenter, earshot, scale = WORKER
    rng = np.random.default_rng(seed)
    x = audio_io.read_audio(path).astype(np.float64)
    if kind == "noise":  # a random second of a long recording
        start = rng.integers(0, max(1, len(x) - FRAMES * audio_io.HOP))
        x = x[start:start + FRAMES * audio_io.HOP]
    elif kind == "speech":  # a random second of an utterance
        start = rng.integers(0, max(1, len(x) - FRAMES * audio_io.HOP))
        x = x[start:start + FRAMES * audio_io.HOP]
        x = x * 10 ** (rng.uniform(-25, 5) / 20)
    out = [pooled(earshot, command_window(x), scale)]
    out += [pooled(earshot, augmenter(x, rng), scale) for _ in range(copies)]
    return np.stack(out)


def features(args, jobs, seed, log, what):
    t = time.time()
    jobs = [(path, copies, seed + i, kind) for i, (path, copies, kind) in enumerate(jobs)]
    with Pool(2, initializer=start_worker,
              initargs=(args.data, args.channel, args.earshot, args.scale)) as pool:
        x = pool.map(clip_features, jobs, chunksize=8)
    log(f"{what}: {len(jobs)} clips, {sum(len(v) for v in x)} embedding windows "
        f"({time.time() - t:.0f} s)")
    return x


def train_head(x, y, weights, args, seed):
    """The float head on (n, 192) int8 inputs: (W1, b1, W2, b2), standardisation folded in."""
    torch.manual_seed(seed)
    xf = x.astype(np.float64)
    mu, sd = xf.mean(axis=0), xf.std(axis=0) + 1e-6
    xt = torch.tensor((xf - mu) / sd, dtype=torch.float32)
    yt = torch.tensor(y)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], args.hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(0.3), torch.nn.Linear(args.hidden, len(weights)))
    opt = torch.optim.Adam(net.parameters(), 3e-3)
    loss = torch.nn.CrossEntropyLoss(weight=torch.tensor(weights, dtype=torch.float32))
    for _ in range(args.epochs):
        opt.zero_grad()
        loss(net(xt), yt).backward()
        opt.step()
    w1, b1 = [p.detach().double().numpy() for p in net[0].parameters()]
    w2, b2 = [p.detach().double().numpy() for p in net[3].parameters()]
    w1 = w1 / sd
    return [(w1, b1 - w1 @ mu), (w2, b2)]


def quantize(weights, calibration):
    layers, _ = vad_export.quantize_layers(weights, 1.0, calibration, LOGIT_Q)
    return layers


def log_probs(layers, x):
    """command_model.cc's log-probabilities: the integer logits' log-softmax."""
    z = vad_export.layer_int(layers[-1], vad_export.hidden_int(layers[:-1], x.astype(np.int64)))
    z = np.clip(z[:, 0, :], -vad_export.LOGIT_HALF_RANGE, vad_export.LOGIT_HALF_RANGE - 1)
    z = z / 2.0 ** LOGIT_Q
    top = z.max(axis=1, keepdims=True)
    return z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))


def fit(x, y, weights, args, seed):
    return quantize(train_head(x, y, weights, args, seed), x)


def fused(lp, hyps, bonus, names, commands):
    """command_fusion.h's choice: the class of the highest log-probability plus `bonus` for the
    decoder's word; no word when the decoder heard none or that class is no command word."""
    out = []
    for row, h in zip(lp, hyps):
        score = row + bonus * np.array([w == h for w in names])
        best = names[int(score.argmax())]
        out.append(best if h and best in commands else "")
    return out


def speaker_folds(paths, k):
    speakers = [os.path.basename(q).split("_nohash_")[0] for q in paths]
    rng = np.random.default_rng(SEED)
    spk = sorted(set(speakers))
    rng.shuffle(spk)
    fold_of = {s: i % k for i, s in enumerate(spk)}
    return np.array([fold_of[s] for s in speakers])


def cross_validate(args, real, paths, words, classes_of, others, names, weights, log):
    fold = speaker_folds(paths, args.folds)
    lp = np.zeros((len(words), len(names)))
    ox, oy = others
    for k in range(args.folds):
        train = np.flatnonzero(fold != k)
        x = np.concatenate([np.concatenate([real[i] for i in train]), ox])
        y = np.concatenate([np.concatenate([[classes_of[i]] * len(real[i]) for i in train]), oy])
        layers = fit(x, y, weights, args, SEED + k)
        held = np.flatnonzero(fold == k)
        lp[held] = log_probs(layers, np.stack([real[i][0] for i in held]))
        if args.fold_models:
            write_fold(args, k, layers, names, [paths[i] for i in held])
    commands = names[:args.n_commands]
    is_cmd = np.array([w in commands for w in words])
    cmd = np.flatnonzero(is_cmd)
    right = sum(commands[int(lp[i, :len(commands)].argmax())] == words[i] for i in cmd)
    log(f"cross-validation ({args.folds} speaker folds): classifier alone {right}/{len(cmd)} "
        f"({100 * right / len(cmd):.1f}%) of the command clips (the most probable command word)")
    other = np.flatnonzero(~is_cmd)
    known = sum(names[int(lp[i].argmax())] not in commands for i in other)
    log(f"  the other words' clips whose most probable class is no command word: {known}/"
        f"{len(other)} ({100 * known / max(1, len(other)):.1f}%)")
    if args.ps_hyps:
        hyp = dict((line.rstrip("\n").split("\t") + [""])[:2] for line in open(args.ps_hyps))
        ids = [clip_id(paths[i]) for i in cmd]
        missing = [i for i in ids if i not in hyp]
        if missing:
            sys.exit(f"{args.ps_hyps}: no hypothesis for {len(missing)} clips (e.g. {missing[0]})")
        alone = sum(hyp[i].strip() == words[c] for i, c in zip(ids, cmd))
        log(f"  decoder alone ({args.ps_hyps}): {alone}/{len(cmd)} ({100 * alone / len(cmd):.1f}%)")
        for bonus in BONUSES:
            got = fused(lp[cmd], [hyp[i].strip() for i in ids], bonus, names, commands)
            right = sum(g == words[c] for g, c in zip(got, cmd))
            log(f"  fused, bonus {bonus:g}: {right}/{len(cmd)} ({100 * right / len(cmd):.1f}%)")


def write_fold(args, k, layers, names, held):
    """Fold k's head and links to its held-out clips, <word>/<clip> (command_reject.py's layout)."""
    export(os.path.join(args.fold_models, f"fold{k}.eshm"), layers, names, args.n_commands,
           lambda _: None)
    for q in held:
        d = os.path.join(args.fold_models, f"fold{k}", os.path.basename(os.path.dirname(q)))
        os.makedirs(d, exist_ok=True)
        link = os.path.join(d, os.path.basename(q))
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(q), link)


def export(path, layers, names, n_commands, log):
    """The file command_model.cc reads: the class names (the first n_commands the command
    words'), the input, the int8 MLP."""
    def text(words):
        return np.frombuffer("|".join(words).encode(), np.int8)
    items = [("words", text(names[:n_commands]))]
    if len(names) > n_commands:
        items.append(("other_words", text(names[n_commands:])))
    items.append(("command_input", np.array([FRAMES, PAD_FRAMES, LOGIT_Q], np.int32)))
    for i, layer in enumerate(layers):
        items += [(f"l{i}.{k}", layer[k]) for k in ("weight", "bias", "mult", "shift")]
    vad_export.write_tensors(path, "command-embed", items, vad_export.EMBEDDING_FEATURE_SPEC)
    log(f"wrote {path} ({os.path.getsize(path)} bytes)")


def import_model(path):
    t = vad_export.read_tensors(path)
    layers = []
    while f"l{len(layers)}.weight" in t:
        i = len(layers)
        layers.append({k: t[f"l{i}.{k}"] for k in ("weight", "bias", "mult", "shift")})
    return layers


def write_vectors(path, earshot, layers, sample):
    """Test vectors for tests/command_model_test.cc: log-probabilities of windows of the bundled
    sample (the whole recording, longer than a second, and its first 0.8 s, shorter)."""
    x = audio_io.read_audio(sample).astype(np.float64)
    scale = out_scale(EMBEDDING)
    with open(path, "w") as f:
        f.write("# earshot command model test vectors (tools/train/train_commands.py): "
                "first_sample sample_count | log-probabilities of the model's words\n")
        for start, count in ((0, len(x)), (0, 12800)):
            lp = log_probs(layers, pooled(earshot, command_window(x[start:start + count]), scale)[None])
            f.write(f"{start} {count} | " + " ".join(f"{v:.6f}" for v in lp[0]) + "\n")


def folder_jobs(args, folders, copies, vocab, what):
    """(path, copies, kind) of each clip of `folders` and its class: the folder's own (vocab is
    None: --extra, numbered after `what` classes) or its word's (<word>/<clip>: --more)."""
    jobs, labels = [], []
    for k, folder in enumerate(folders):
        found = augment.list_audio(args.data, folder)
        if not found:
            sys.exit(f"{os.path.join(args.data, folder)}: no recordings ({what})")
        for q in found:
            if vocab is not None:
                word = os.path.basename(os.path.dirname(q))
                if word not in vocab:
                    sys.exit(f"{os.path.dirname(q)}: '{word}' is not a word of kws/train ({what})")
            jobs.append((q, copies, "clip"))
            labels.append(vocab.index(word) if vocab is not None else k)
    return jobs, labels


def clip_id(path):
    return os.path.basename(os.path.dirname(path)) + "_" + os.path.basename(path).rsplit(".", 1)[0]


def parse_args():
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("--out", default=os.path.join(root, "models", "commands", "commands.eshm"))
    p.add_argument("--log", help="the training log (default: --out's name, _train.log)")
    p.add_argument("--vectors", help="also write test vectors of the bundled sample here")
    p.add_argument("--vectors-of", metavar="MODEL",
                   help="only write --vectors for this exported model (no training)")
    p.add_argument("--words", default="|".join(COMMANDS),
                   help="the command words, '|'-separated (their classes come first)")
    p.add_argument("--from-text", action="store_true",
                   help="learn the command words from synthetic renditions alone: no recording "
                        "of them (kws/train's and --more's are left out)")
    p.add_argument("--synth", default="cache",
                   help="with --from-text: the synthetic words' folder ('cache': kws_synth's "
                        "default place for command_synth)")
    p.add_argument("--synth-per-word", type=int, default=200, help="with --from-text")
    p.add_argument("--copies", type=int, default=8, help="augmented copies of each clip")
    p.add_argument("--extra", default=",".join(EXTRA),
                   help="folders of --data whose recordings train as classes of their own, "
                        "comma-separated ('none': without)")
    p.add_argument("--more", default=",".join(MORE),
                   help="folders of --data laid out as <word>/<clip> whose clips join their "
                        "word's class, comma-separated ('none': without)")
    p.add_argument("--channel", type=float, default=0.3,
                   help="share of augmented copies through a random microphone")
    p.add_argument("--hidden", type=int, default=64, help="the head's hidden units")
    p.add_argument("--epochs", type=int, default=300, help="full-batch epochs")
    p.add_argument("--folds", type=int, default=0, help="cross-validate by speaker first (0: no)")
    p.add_argument("--ps-hyps", help="the decoder's words on kws/train (with --folds)")
    p.add_argument("--fold-models", help="write each fold's head and held-out clips here")
    args = p.parse_args()
    if not 0 <= args.channel <= 1:
        p.error(f"--channel {args.channel}: a share, from 0 to 1")
    if args.log is None:
        args.log = os.path.splitext(args.out)[0] + "_train.log"
    if args.from_text and args.folds:
        p.error("--folds cross-validates on recordings of the command words: not with --from-text")
    words = args.words.split("|")
    if not all(words) or len(set(words)) != len(words):
        p.error(f"--words {args.words}: distinct words separated by '|'")
    return args


def folders(value):
    return [d for d in value.split(",") if d] if value != "none" else []


def word_of(path):
    return os.path.basename(os.path.dirname(path))


def synthetic(args, commands, log):
    """--from-text: kws_synth's renditions of the command words (espeak-ng and flite voices,
    --synth-per-word of each), as jobs with --copies copies, and their classes."""
    cache = kws_synth.default_cache("command_synth") if args.synth == "cache" else args.synth
    out = kws_synth.generate(cache, log=log,
                             jobs=kws_synth.word_plan(commands, args.synth_per_word))
    files = kws_synth.read_index(out)
    jobs = [(q, args.copies, "clip") for w in commands for q in files[w]]
    return jobs, [commands.index(w) for w in commands for _ in files[w]]


def dev_check(args, layers, commands, log):
    """The classifier alone on kws/dev's clips of the command words."""
    dev = [q for q in augment.list_audio(args.data, "kws/dev") if word_of(q) in commands]
    if dev:
        got = features(args, [(q, 0, "clip") for q in dev], SEED, log, "kws/dev commands")
        lp = log_probs(layers, np.stack([v[0] for v in got]))
        right = sum(commands[int(r[:len(commands)].argmax())] == word_of(q)
                    for r, q in zip(lp, dev))
        log(f"kws/dev command clips, classifier alone: {right}/{len(dev)}")


def main():
    args = parse_args()
    torch.set_num_threads(2)
    sample = os.path.join(audio_io.ROOT, "tools", "samples", "computer_request.flac")
    if args.vectors_of:
        if not args.vectors:
            sys.exit("--vectors-of needs --vectors")
        write_vectors(args.vectors, args.earshot, import_model(args.vectors_of), sample)
        return
    commands = args.words.split("|")
    args.n_commands = len(commands)
    paths = augment.list_audio(args.data, "kws/train")
    if not paths:
        sys.exit(f"{args.data}/kws/train: no clips")
    if args.from_text:  # no recording of a command word
        paths = [q for q in paths if word_of(q) not in commands]
    words = [word_of(q) for q in paths]
    missing = [w for w in commands if w not in words and not args.from_text]
    if missing:
        sys.exit(f"--words: no recording of '{missing[0]}' in {args.data}/kws/train "
                 "(--from-text learns it from its text)")
    log = open_log(args.log)
    log(f"train_commands.py {' '.join(sys.argv[1:])}")
    args.scale = out_scale(EMBEDDING)
    vocab = commands + sorted(set(words) - set(commands))
    classes_of = np.array([vocab.index(w) for w in words])
    more_jobs, more_labels = folder_jobs(args, folders(args.more), args.copies, vocab, "--more")
    if args.from_text:
        kept = [i for i, c in enumerate(more_labels) if c >= len(commands)]
        more_jobs, more_labels = [more_jobs[i] for i in kept], [more_labels[i] for i in kept]
        synth_jobs, synth_labels = synthetic(args, commands, log)
        more_jobs, more_labels = more_jobs + synth_jobs, more_labels + synth_labels
    extra = folders(args.extra)
    extra_jobs, extra_labels = folder_jobs(args, extra, 2, None, "--extra")
    names = vocab + extra + ["_speech", "_noise"]
    extra_labels = [len(vocab) + k for k in extra_labels]
    background = [(q, 0, "speech") for q in augment.list_audio(args.data, "speech")]
    background += [(q, 0, "noise") for q in augment.list_audio(args.data, "noise") for _ in range(50)]
    labels = more_labels + extra_labels + [names.index("_" + kind) for _, _, kind in background]
    real = features(args, [(q, args.copies, "clip") for q in paths], SEED, log, "kws/train")
    rest = features(args, more_jobs + extra_jobs + background, SEED + 10 ** 6, log,
                    "--more, --extra, speech/ and noise/" + (", synthetic" if args.from_text else ""))
    others = (np.concatenate(rest), np.concatenate([[c] * len(v) for c, v in zip(labels, rest)]))
    weights = np.where(np.arange(len(names)) < len(commands), 1.0, OTHER_WEIGHT)
    if args.folds:
        if args.fold_models:
            os.makedirs(args.fold_models, exist_ok=True)
        cross_validate(args, real, paths, words, classes_of, others, names, weights, log)
    x = np.concatenate([np.concatenate(real), others[0]])
    y = np.concatenate([np.concatenate([[c] * len(v) for c, v in zip(classes_of, real)]), others[1]])
    layers = fit(x, y, weights, args, SEED)
    export(args.out, layers, names, len(commands), log)
    dev_check(args, layers, commands, log)
    if args.vectors:
        write_vectors(args.vectors, args.earshot, layers, sample)


if __name__ == "__main__":
    main()
