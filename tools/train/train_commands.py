#!/usr/bin/python3
"""Trains earshot's command classifier: a second opinion on a short spoken command for the
speech-to-text's command words (stt.words; models/commands/command_model.h runs it, command_fusion.h
joins it to pocketsphinx's word).

usage: tools/train/train_commands.py [--data ../shared/data] [--earshot build/tools/earshot]
           [--out models/commands/commands.eshm] [--log models/commands/commands_train.log]
           [--synth cache|DIR|none] [--extra DIR,...|none] [--more DIR,...|none] [--members 3]
           [--steps 4000] [--warp 0]
           [--channel 0]
           [--folds 5 --ps-hyps HYP.tsv]
           [--vectors FILE]
       tools/train/train_commands.py --vectors-of MODEL --vectors FILE   (vectors only)

Input (command_model.h implements it): the one-second window of the command's audio that
command_window() picks, through the device's front end (`earshot features`: 100 frames x 40 bands of
log-mel, dB Q8), then, in dB: floored at the window's loudest value minus 60, minus each band's mean
over the window, divided by 10.
Network: four convolutions over bands x frames (5x5 stride 2, 3x3 stride 2, 3x3 stride 2, 3x3; 16,
32, 64, 64 channels; batch norm folded into them when exported; ReLU), the mean over bands and
frames, one linear layer. Float32 weights: it runs once per command (about 5 M multiply-adds per
network). An ensemble of --members such networks, each trained with its own seed; its
log-probabilities are those of the members' mean probability.
Classes: every word of kws/train (35: the ten command words first), then one per --extra folder
(named by the folder); the file keeps every class, so that a word the classifier knows is not a
command can reject what the decoder took for one (command_fusion.h).
Data (from --data, read in place): kws/train's clips (kws/dev is the evaluation protocol's), each
with --copies augmented copies (speed 0.9-1.1, reverberation, shift, noise at 5-30 dB, gain), and
synthetic command words (kws_synth.py: espeak-ng and flite voices, --synth-per-word of each) with
--synth-copies copies, SYNTH_PER_BATCH (21) clips of each batch; and the recordings of each --extra
folder (by default the wake-word recordings: EXTRA) as classes of their own, with --extra-copies
copies, --extra-per-batch more clips in each batch; the clips of each --more folder (<word>/<clip>;
by default FSDD train's digits: MORE) as their word's class, with --copies copies,
--more-per-batch (16) clips of each batch; --warp W moves each training row's bands as a
vocal tract by a factor of 1 - W to 1 + W would (warp_bands; 0, the bundled model: off); --channel P
puts a share P of the augmented copies through a random microphone (augment.microphone; 0, the
bundled model: off). Seeded: the same data give the same model.
The defaults train the bundled model (models/commands/commands.eshm), as its log shows.
--folds K cross-validates by speaker on kws/train first (K ensembles; the command clips of each
fold scored by the ensemble that did not see its speakers): the classifier's accuracy, and with
--ps-hyps (`id<TAB>word` of the decoder alone on the same clips: tools/eval/cmd_eval.sh's
NAME.hyp.tsv) the accuracy of the fusion for each bonus (command_fusion.h).
--vectors-of writes the test vectors of an exported model, without training (after a new sample).
"""
import os
import sys
import time
from multiprocessing import Pool

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import augment  # noqa: E402
import kws_data  # noqa: E402
import kws_synth  # noqa: E402
import vad_export  # noqa: E402
from mlp_train import open_log  # noqa: E402

SEED = 20261126
COMMANDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
FRAMES = 100  # one second
BANDS = vad_export.FEATURE_SPEC["mel_bands"]  # the front end every model reads
RANGE_DB, STEP_DB = 60, 10  # the input normalisation (module docstring)
CHANNELS = (16, 32, 64, 64)
LAYERS = ((5, 2), (3, 2), (3, 2), (3, 1))  # (kernel, stride) per convolution; padding kernel // 2
BATCH = 64  # clips per batch, --extra-per-batch more with --extra
SYNTH_PER_BATCH = 21  # of BATCH, with --synth
# --extra by default: real recordings of other words by other speakers (the wake-word recordings:
# 1029 clips, more than 50 speakers), a class each, for more voices and microphones (docs/research/stt.md).
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


AUGMENTER = None  # each feature worker's own


def start_worker(data, channel):
    global AUGMENTER
    AUGMENTER = Augmenter(data, channel)


def clip_features(job):
    """(1 + copies, FRAMES, 40) int16 log-mel of a clip: as it is, then augmented copies."""
    earshot, path, copies, seed = job
    rng = np.random.default_rng(seed)
    x = audio_io.read_audio(path).astype(np.float64)
    out = [audio_io.logmel(earshot, command_window(x))]
    out += [audio_io.logmel(earshot, AUGMENTER(x, rng)) for _ in range(copies)]
    return np.stack(out)


def features(args, paths, copies, seed, log, what):
    t = time.time()
    jobs = [(args.earshot, p, copies, seed + i) for i, p in enumerate(paths)]
    with Pool(2, initializer=start_worker, initargs=(args.data, args.channel)) as pool:
        x = np.stack(pool.map(clip_features, jobs, chunksize=8))
    log(f"{what}: {len(paths)} clips x {1 + copies} copies of log-mel ({time.time() - t:.0f} s)")
    return x


def normalise(logmel_q8):
    """(n, FRAMES, 40) dB Q8 -> (n, 1, 40, FRAMES) float, as command_model.cc computes it."""
    x = torch.as_tensor(np.asarray(logmel_q8, dtype=np.float32)) / 256.0
    x = torch.maximum(x, x.amax(dim=(1, 2), keepdim=True) - RANGE_DB)
    x = x - x.mean(dim=1, keepdim=True)
    return (x / STEP_DB).unsqueeze(1).transpose(2, 3)


class Net(torch.nn.Module):
    def __init__(self, classes):
        super().__init__()
        blocks, c_in = [], 1
        for c, (k, s) in zip(CHANNELS, LAYERS):
            blocks += [torch.nn.Conv2d(c_in, c, k, s, padding=k // 2, bias=False),
                       torch.nn.BatchNorm2d(c), torch.nn.ReLU()]
            c_in = c
        self.convs = torch.nn.Sequential(*blocks)
        self.drop = torch.nn.Dropout(0.3)
        self.out = torch.nn.Linear(c_in, classes)

    def forward(self, x):
        return self.out(self.drop(self.convs(x).mean(dim=(2, 3))))


def spec_mask(x, rng):
    """SpecAugment (Park et al. 2019): per row, up to 6 bands and up to 14 frames set to 0."""
    for row in x:
        f, t = rng.integers(0, BANDS), rng.integers(0, FRAMES)
        row[:, f:f + rng.integers(0, 7), :] = 0
        row[:, :, t:t + rng.integers(0, 15)] = 0
    return x


def hz_to_mel(f):
    return 2595 * np.log10(1 + f / 700)  # HTK, as features/mel_filterbank.h


# Band edges equally spaced in mel (features/mel_filterbank.h); band k peaks at edge k + 1.
MEL_LOW = hz_to_mel(vad_export.FEATURE_SPEC["mel_low_hz"])
MEL_STEP = (hz_to_mel(vad_export.FEATURE_SPEC["mel_high_hz"]) - MEL_LOW) / (BANDS + 1)
CENTRE_HZ = 700 * (10 ** ((MEL_LOW + MEL_STEP * np.arange(1, BANDS + 1)) / 2595) - 1)


def warp_bands(x, factors):
    """Vocal tract length perturbation (Jaitly and Hinton 2013) on (n, 1, BANDS, FRAMES): each band
    of row r given the value at its centre frequency / factors[r] (linear between band centres; the
    end bands held), so a factor above 1 moves the spectrum up, as a shorter vocal tract would."""
    src = (hz_to_mel(CENTRE_HZ[None, :] / np.asarray(factors)[:, None]) - MEL_LOW) / MEL_STEP - 1
    src = torch.as_tensor(np.clip(src, 0, BANDS - 1), dtype=x.dtype)
    i0 = src.floor().long().clamp(max=BANDS - 2)
    t = (src - i0)[:, None, :, None]
    idx = i0[:, None, :, None].expand(-1, 1, -1, x.shape[3])
    return torch.lerp(x.gather(2, idx), x.gather(2, idx + 1), t)


def train(pools, classes, steps, seed, warp):
    """One network; pools: (features (n, copies, FRAMES, 40), labels, clips per batch) each, a
    batch drawing its clips from each pool in turn, then a random copy of each; warp: the
    half-width of warp_bands' factors (0: none)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = Net(classes)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.1)
    net.train()
    for _ in range(steps):
        xs, ys = [], []
        for x, labels, n in pools:
            i, c = rng.integers(0, len(x), n), rng.integers(0, x.shape[1], n)
            xs.append(x[i, c])
            ys.append(labels[i])
        x = normalise(np.concatenate(xs))
        if warp:
            x = warp_bands(x, rng.uniform(1 - warp, 1 + warp, len(x)))
        loss = F.cross_entropy(net(spec_mask(x, rng)),
                               torch.as_tensor(np.concatenate(ys)), label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return net.eval()


def train_members(pools, classes, args, seed):
    """The ensemble: --members networks, member m seeded with seed + 1000 m."""
    return [train(pools, classes, args.steps, seed + 1000 * m, args.warp)
            for m in range(args.members)]


def log_probs(nets, logmel_q8):
    """Log-probabilities over every class (the rows the file keeps; the command words first) of
    (n, FRAMES, 40): the log of the members' mean probability."""
    x = normalise(logmel_q8)
    with torch.no_grad():
        each = torch.stack([torch.log_softmax(net(x), dim=1) for net in nets])
        return (torch.logsumexp(each, dim=0) - np.log(len(nets))).numpy()


def fused(lp, hyps, bonus, names):
    """command_fusion.h's choice: the class of the highest log-probability plus `bonus` for the
    decoder's word; no word when the decoder heard none or that class is no command word."""
    out = []
    for row, h in zip(lp, hyps):
        score = row + bonus * np.array([w == h for w in names])
        best = names[int(score.argmax())]
        out.append(best if h and best in COMMANDS else "")
    return out


def cross_validate(args, real, paths, words, classes_of, names, n_real, others, log):
    speakers = [os.path.basename(q).split("_nohash_")[0] for q in paths]
    rng = np.random.default_rng(SEED)
    spk = sorted(set(speakers))
    rng.shuffle(spk)
    fold_of = {s: k % args.folds for k, s in enumerate(spk)}
    fold = np.array([fold_of[s] for s in speakers])
    is_cmd = np.array([w in COMMANDS for w in words])
    lp = np.zeros((len(words), len(names)))
    for k in range(args.folds):
        nets = train_members([(real[fold != k], classes_of[fold != k], n_real)] + others,
                             len(names), args, SEED + k)
        held = np.flatnonzero(fold == k)
        lp[held] = log_probs(nets, real[held, 0])
    cmd = np.flatnonzero(is_cmd)
    right = sum(COMMANDS[int(lp[i, :len(COMMANDS)].argmax())] == words[i] for i in cmd)
    log(f"cross-validation ({args.folds} speaker folds): classifier alone {right}/{len(cmd)} "
        f"({100 * right / len(cmd):.1f}%) of the command clips (the most probable command word)")
    other = np.flatnonzero(~is_cmd)
    known = sum(names[int(lp[i].argmax())] not in COMMANDS for i in other)
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
            got = fused(lp[cmd], [hyp[i].strip() for i in ids], bonus, names)
            right = sum(g == words[c] for g, c in zip(got, cmd))
            log(f"  fused, bonus {bonus:g}: {right}/{len(cmd)} ({100 * right / len(cmd):.1f}%)")


def member_prefix(m):
    """Member m's tensor names start with this (command_model.h): none for the first."""
    return f"m{m}." if m else ""


def export(path, nets, names, log):
    """The file command_model.cc reads: the class names, then per member batch norm folded into the
    convolutions and the output layer."""
    assert names[:len(COMMANDS)] == COMMANDS
    def text(words):
        return np.frombuffer("|".join(words).encode(), np.int8)
    items = [("words", text(COMMANDS))]
    if len(names) > len(COMMANDS):
        items.append(("other_words", text(names[len(COMMANDS):])))
    items.append(("command_input", np.array([FRAMES, RANGE_DB, STEP_DB], np.int32)))
    for m, net in enumerate(nets):
        pre, mods = member_prefix(m), list(net.convs)
        for layer, (conv, bn) in enumerate(zip(mods[0::3], mods[1::3])):
            scale = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
            w = conv.weight.detach() * scale[:, None, None, None]
            b = bn.bias.detach() - bn.running_mean * scale
            conv_params = np.array([conv.stride[0], conv.padding[0]], np.int32)
            items += [(f"{pre}c{layer}.weight", w.numpy().astype(np.float32)),
                      (f"{pre}c{layer}.bias", b.numpy().astype(np.float32)),
                      (f"{pre}c{layer}.conv", conv_params)]
        items += [(f"{pre}out.weight", net.out.weight.detach().numpy().astype(np.float32)),
                  (f"{pre}out.bias", net.out.bias.detach().numpy().astype(np.float32))]
    vad_export.write_tensors(path, "command-cnn", items)
    log(f"wrote {path} ({len(nets)} members, {os.path.getsize(path)} bytes)")


def import_model(path):
    """The members of an exported file (export's inverse): their folded convolutions with batch
    norm that does nothing, in eval mode."""
    t = vad_export.read_tensors(path)
    nets = []
    while f"{member_prefix(len(nets))}c0.weight" in t:
        pre = member_prefix(len(nets))
        net = Net(t[f"{pre}out.bias"].shape[0])
        mods = list(net.convs)
        with torch.no_grad():
            for layer, (conv, bn) in enumerate(zip(mods[0::3], mods[1::3])):
                conv.weight.copy_(torch.tensor(t[f"{pre}c{layer}.weight"]))
                bn.running_mean.zero_()
                bn.running_var.fill_(1 - bn.eps)
                bn.weight.fill_(1)
                bn.bias.copy_(torch.tensor(t[f"{pre}c{layer}.bias"]))
            net.out.weight.copy_(torch.tensor(t[f"{pre}out.weight"]))
            net.out.bias.copy_(torch.tensor(t[f"{pre}out.bias"]))
        nets.append(net.eval())
    return nets


def write_vectors(path, earshot, nets, sample):
    """Test vectors for tests/command_model_test.cc: log-probabilities of windows of the bundled
    sample (the whole recording, longer than a second, and its first 0.8 s, shorter)."""
    x = audio_io.read_audio(sample).astype(np.float64)
    with open(path, "w") as f:
        f.write("# earshot command model test vectors (tools/train/train_commands.py): "
                "first_sample sample_count | log-probabilities of the model's words\n")
        for start, count in ((0, len(x)), (0, 12800)):
            lp = log_probs(nets, audio_io.logmel(earshot, command_window(x[start:start + count]))[None])
            f.write(f"{start} {count} | " + " ".join(f"{v:.6f}" for v in lp[0]) + "\n")


def synthetic(args, log):
    """kws_synth's command words (--synth) and their labels, each with --synth-copies copies."""
    cache = kws_synth.default_cache("command_synth") if args.synth == "cache" else args.synth
    out = kws_synth.generate(cache, log=log, jobs=kws_synth.word_plan(COMMANDS, args.synth_per_word))
    files = kws_synth.read_index(out)
    paths = [q for w in COMMANDS for q in files[w]]
    labels = np.array([COMMANDS.index(w) for w in COMMANDS for _ in files[w]])
    return features(args, paths, args.synth_copies, SEED + 10 ** 6, log, "synthetic"), labels


def extra(args, folders, first_class, log):
    """The recordings of each --extra folder (under --data) as one more class, numbered from
    first_class, each with --extra-copies copies."""
    paths, labels = [], []
    for k, folder in enumerate(folders):
        found = augment.list_audio(args.data, folder)
        if not found:
            sys.exit(f"{os.path.join(args.data, folder)}: no recordings (--extra)")
        paths += found
        labels += [first_class + k] * len(found)
    x = features(args, paths, args.extra_copies, SEED + 2 * 10 ** 6, log, "--extra")
    return x, np.array(labels)


def more_words(args, folders, vocab):
    """The clips of each --more folder (<word>/<clip> under --data) and their word's class; a word
    kws/train does not have is an error naming its folder."""
    paths, labels = [], []
    for folder in folders:
        found = augment.list_audio(args.data, folder)
        if not found:
            sys.exit(f"{os.path.join(args.data, folder)}: no recordings (--more)")
        for q in found:
            word = os.path.basename(os.path.dirname(q))
            if word not in vocab:
                sys.exit(f"{os.path.dirname(q)}: '{word}' is not a word of kws/train (--more)")
            paths.append(q)
            labels.append(vocab.index(word))
    return paths, np.array(labels)


def clip_id(path):
    return os.path.basename(os.path.dirname(path)) + "_" + os.path.basename(path).rsplit(".", 1)[0]


def main():
    root = audio_io.ROOT
    p = audio_io.parser(__doc__, needs=())
    p.add_argument("--out", default=os.path.join(root, "models", "commands", "commands.eshm"))
    p.add_argument("--log", default=os.path.join(root, "models", "commands", "commands_train.log"))
    p.add_argument("--vectors", help="also write test vectors of the bundled sample here")
    p.add_argument("--vectors-of", metavar="MODEL",
                   help="only write --vectors for this exported model (no training)")
    p.add_argument("--copies", type=int, default=32, help="augmented copies of each real clip")
    p.add_argument("--synth", default="cache",
                   help="synthetic words from this cache dir ('cache': kws_synth's default place "
                        "for command_synth; 'none': without)")
    p.add_argument("--synth-per-word", type=int, default=600)
    p.add_argument("--synth-copies", type=int, default=6)
    p.add_argument("--extra", default=",".join(EXTRA),
                   help="folders of --data whose recordings train as classes of their own, "
                        "comma-separated ('none': without)")
    p.add_argument("--extra-copies", type=int, default=8)
    p.add_argument("--extra-per-batch", type=int, default=8)
    p.add_argument("--more", default=",".join(MORE),
                   help="folders of --data laid out as <word>/<clip> whose clips join their "
                        "word's class, comma-separated ('none': without)")
    p.add_argument("--more-per-batch", type=int, default=16, help=f"of {BATCH}, with --more")
    p.add_argument("--steps", type=int, default=4000,
                   help=f"batches of {BATCH} (+ --extra-per-batch) per network")
    p.add_argument("--warp", type=float, default=0.0,
                   help="vocal tract length perturbation: band warp factors 1 +- this (0: none)")
    p.add_argument("--channel", type=float, default=0.0,
                   help="share of augmented copies through a random microphone (0: none)")
    p.add_argument("--members", type=int, default=3, help="networks in the ensemble")
    p.add_argument("--folds", type=int, default=0, help="cross-validate by speaker first (0: no)")
    p.add_argument("--ps-hyps", help="the decoder's words on kws/train (with --folds)")
    args = p.parse_args()
    if not 0 <= args.channel <= 1:
        p.error(f"--channel {args.channel}: a share, from 0 to 1")
    torch.set_num_threads(2)
    sample = os.path.join(root, "tools", "samples", "computer_request.flac")
    if args.vectors_of:
        if not args.vectors:
            sys.exit("--vectors-of needs --vectors")
        write_vectors(args.vectors, args.earshot, import_model(args.vectors_of), sample)
        return
    log = open_log(args.log)
    log(f"train_commands.py {' '.join(sys.argv[1:])}")
    paths = augment.list_audio(args.data, "kws/train")
    if not paths:
        sys.exit(f"{args.data}/kws/train: no clips")
    words = [os.path.basename(os.path.dirname(q)) for q in paths]
    vocab = COMMANDS + sorted(set(words) - set(COMMANDS))
    classes_of = np.array([vocab.index(w) for w in words])
    more = [d for d in args.more.split(",") if d] if args.more != "none" else []
    more_paths, more_classes = more_words(args, more, vocab)
    real = features(args, paths, args.copies, SEED, log, "kws/train")
    others = []  # train()'s pools besides kws/train's
    n_real = BATCH
    if args.synth != "none":
        others.append(synthetic(args, log) + (SYNTH_PER_BATCH,))
        n_real -= SYNTH_PER_BATCH
    extra_classes = [d for d in args.extra.split(",") if d] if args.extra != "none" else []
    if extra_classes:
        others.append(extra(args, extra_classes, len(vocab), log) + (args.extra_per_batch,))
    if more_paths:
        x = features(args, more_paths, args.copies, SEED + 3 * 10 ** 6, log, "--more")
        others.append((x, more_classes, args.more_per_batch))
        n_real -= args.more_per_batch
    names = vocab + extra_classes
    if args.folds:
        cross_validate(args, real, paths, words, classes_of, names, n_real, others, log)
    nets = train_members([(real, classes_of, n_real)] + others, len(names), args, SEED)
    export(args.out, nets, names, log)
    dev = augment.list_audio(args.data, "kws/dev")
    dev = [q for q in dev if os.path.basename(os.path.dirname(q)) in COMMANDS]
    if dev:
        lp = log_probs(nets, features(args, dev, 0, SEED, log, "kws/dev commands")[:, 0])
        right = sum(COMMANDS[int(r[:len(COMMANDS)].argmax())]
                    == os.path.basename(os.path.dirname(q)) for r, q in zip(lp, dev))
        log(f"kws/dev command clips, classifier alone: {right}/{len(dev)}")
    if args.vectors:
        write_vectors(args.vectors, args.earshot, nets, sample)


if __name__ == "__main__":
    main()
