"""The keyword spotter's float model and how it is trained: an MLP, or a convolution over time
followed by an MLP (ConvMlp), over int8 rows (kept int8 in memory, converted per batch), binary
cross-entropy on the keyword-end targets, hard-negative mining, and the detection metrics followed
on the dev streams. Seeded."""
import numpy as np
import torch

BATCH = 512


def make_mlp(dims, dropout=0.0):
    """Linear layers with ReLU between them (and dropout after each ReLU while training)."""
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(torch.nn.ReLU())
            if dropout > 0:
                layers.append(torch.nn.Dropout(dropout))
    return torch.nn.Sequential(*layers)


def positions(frames, kernel, stride):
    """The windows of `kernel` frames, every `stride`, in `frames`."""
    return (frames - kernel) // stride + 1


def describe_conv(frames, kernel, stride, channels, mix=None):
    """A ConvMlp's convolutions (its arguments), as the training log states them."""
    p = positions(frames, kernel, stride)
    text = f"convolution over {kernel} frames every {stride} ({p} positions) x {channels} channels"
    if mix is not None:
        k, s, c = mix
        text += f", then over {k} positions every {s} ({positions(p, k, s)}) x {c} channels"
    return text


class ConvMlp(torch.nn.Module):
    """A convolution over time, then an MLP: one linear map (`channels` outputs, ReLU) applied to
    each window of `kernel` input frames of `width` values, every `stride` frames; the MLP reads
    all windows' outputs, position-major (vad_export's conv layer, models/int8_mlp.h). With
    mix = (kernel, stride, channels), a second convolution (ReLU) over the first one's positions
    comes between them: each window of `kernel` positions, every `stride`, to its channels."""

    def __init__(self, frames, width, kernel, stride, channels, hidden, dropout=0.0, mix=None):
        super().__init__()
        self.frames, self.width, self.kernel, self.stride = frames, width, kernel, stride
        self.positions = positions(frames, kernel, stride)
        self.patch = torch.nn.Linear(kernel * width, channels)
        self.mix_conv, self.mix = None, None
        head_inputs = self.positions * channels
        if mix is not None:
            k, s, c = mix
            self.mix_conv = (k, s, channels)
            self.mix = torch.nn.Linear(k * channels, c)
            head_inputs = positions(self.positions, k, s) * c
        self.drop = torch.nn.Dropout(dropout)
        self.head = make_mlp((head_inputs, *hidden, 1), dropout)

    def conv(self):
        return (self.kernel, self.stride, self.width)

    def convolutions(self):
        """[(linear, (kernel, stride, width))] of the convolutions, in order."""
        mixes = [(self.mix, self.mix_conv)] if self.mix is not None else []
        return [(self.patch, self.conv())] + mixes

    def windows(self, x, conv=None):
        """(n, frames * width) -> (n, positions, kernel * width), each window frame-major (conv:
        another convolution's (kernel, stride, width); default the first one's)."""
        kernel, stride, width = conv or self.conv()
        w = x.view(len(x), -1, width).unfold(1, kernel, stride)
        return w.permute(0, 1, 3, 2).reshape(len(x), w.shape[1], kernel * width)

    def channels(self, x):
        """The first convolution's outputs, (n, positions * channels), position-major."""
        return torch.relu(self.patch(self.windows(x))).reshape(len(x), -1)

    def forward(self, x):
        h = self.channels(x)
        if self.mix is not None:
            h = torch.relu(self.mix(self.windows(h, self.mix_conv))).reshape(len(x), -1)
        return self.head(self.drop(h))


def logits(model, x, input_scale, batch=8192):
    """Float logits of int8 rows x (numpy), in batches."""
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(x[i:i + batch]).float() * input_scale
            out.append(model(xb).squeeze(1).numpy())
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def spec_mask(x, frames, width, max_frames, max_bands, gen):
    """SpecAugment's masks (Park et al. 2019) on a batch of rows (n, frames * width): per row, a
    run of 0 to max_frames whole frames and one of 0 to max_bands bands set to 0, the level of the
    input's running mean (kws_input.py)."""
    n = len(x)

    def run(size, most):
        length = torch.randint(0, most + 1, (n, 1), generator=gen)
        start = (torch.rand(n, 1, generator=gen) * (size - length + 1)).floor()
        i = torch.arange(size)
        return (i >= start) & (i < start + length)
    hidden = run(frames, max_frames)[:, :, None] | run(width, max_bands)[:, None, :]
    return (x.view(n, frames, width) * ~hidden).view(n, -1)


def train(model, x, y, epochs, *, seed, lr, input_scale, pos_weight, log, evaluate=None,
          refresh=None, mask=None, ema=0.0):
    """Adam with cosine decay on rows with y >= 0. With refresh, every epoch after the first trains on
    the rows refresh() returns instead (a fresh draw of augmented streams): one learning-rate
    schedule over all of them. With mask (most frames, most bands; a ConvMlp's), each training
    row is seen through spec_mask. With ema in (0, 1), the model ends with the exponential moving
    average of its weights (Polyak averaging, torch's AveragedModel, that decay per batch), and
    each epoch's evaluation reads the average."""
    assert mask is None or isinstance(model, ConvMlp), "masks are drawn over a ConvMlp's frames and bands"
    mask_gen = torch.Generator().manual_seed(seed + 1000)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    gen = torch.Generator().manual_seed(seed)
    average = None
    if 0 < ema < 1:
        average = torch.optim.swa_utils.AveragedModel(model, avg_fn=lambda a, p, _: ema * a + (1 - ema) * p)
    for epoch in range(epochs):
        if refresh is not None and epoch > 0:
            x, y = refresh()
        keep = np.flatnonzero(y >= 0)
        xt, yt, keep_t = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(keep)
        model.train()
        perm = keep_t[torch.randperm(len(keep_t), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), BATCH):
            idx = perm[i:i + BATCH]
            xb = xt[idx].float() * input_scale
            if mask is not None:
                xb = spec_mask(xb, model.frames, model.width, *mask, mask_gen)
            z = model(xb).squeeze(1)
            target = yt[idx]
            w = torch.where(target > 0.5, pos_weight, 1.0)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(z, target, weight=w)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if average is not None:
                average.update_parameters(model)
            total += loss.item() * len(idx)
        sched.step()
        msg = f"  epoch {epoch + 1}: train loss {total / len(keep):.4f}"
        log(msg + (", " + evaluate(model if average is None else average.module) if evaluate else ""))
    if average is not None:
        model.load_state_dict(average.module.state_dict())
    return model


def mine_hard_negatives(model, x, y, input_scale, min_prob):
    """Rows of negative streams the model scores at or above min_prob (its false accepts to be)."""
    p = 1 / (1 + np.exp(-logits(model, x, input_scale)))
    hard = (y == 0) & (p >= min_prob)
    return x[hard], y[hard]


def weights(model):
    """[(W, b)] of the model's linear layers, float64, for quantisation; a ConvMlp's convolution
    comes first as (W, b, (kernel, stride, width))."""
    as_np = lambda m: (m.weight.detach().numpy().astype(np.float64),  # noqa: E731
                       m.bias.detach().numpy().astype(np.float64))
    if isinstance(model, ConvMlp):
        return [(*as_np(m), conv) for m, conv in model.convolutions()] + weights(model.head)
    return [as_np(m) for m in model if isinstance(m, torch.nn.Linear)]


def detection(scores, y, hops_per_hour, merge_hops=100):
    """Keyword instances (runs of y != 0 holding a 1) detected when their maximum score reaches a
    threshold; false accepts are runs of y == 0 hops at or above it, merged within merge_hops.
    Returns (miss rate at 0 false accepts, miss rate at <= 1 false accept per hour)."""
    inst, start = [], None
    for i, v in enumerate(np.append(y, 0)):
        if v != 0 and start is None:
            start = i
        elif v == 0 and start is not None:
            if (y[start:i] > 0).any():
                inst.append(scores[start:i].max())
            start = None
    inst = np.array(inst)
    neg = np.flatnonzero(y == 0)
    neg_scores = scores[neg]
    hours = len(neg) / hops_per_hour

    def false_accepts(th):
        hits = neg[neg_scores >= th]
        return 0 if len(hits) == 0 else 1 + int((np.diff(hits) > merge_hops).sum())

    top = neg_scores.max() if len(neg) else 0
    miss0 = float((inst <= top).mean())
    cands = np.unique(np.concatenate([inst, [top + 1e-6]]))
    miss1 = 1.0
    for th in cands:  # ascending: the first threshold within 1 FA/h has the fewest misses
        if false_accepts(th) <= hours:
            miss1 = float((inst < th).mean())
            break
    return miss0, miss1
