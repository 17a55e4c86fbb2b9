"""The keyword spotter's float model and how it is trained: an MLP, or a convolution over time
followed by an MLP (ConvMlp), over int8 rows (kept int8 in memory, converted per batch), binary cross-entropy on the keyword-end targets with an optional
teacher (knowledge distillation), hard-negative mining, structured pruning of whole input frames
and hidden units, and the detection metrics followed on the dev streams. Seeded."""
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


def train(model, x, y, epochs, *, seed, lr, input_scale, pos_weight, log, teacher_logits=None,
          kd_alpha=0.5, kd_temperature=2.0, evaluate=None, refresh=None, mask=None, ema=0.0):
    """Adam with cosine decay on rows with y >= 0. With teacher_logits, the loss mixes the hard
    targets (1 - kd_alpha) with the teacher's softened probabilities (kd_alpha, temperature T,
    scaled by T^2 as in Hinton et al. 2015). With refresh, every epoch after the first trains on
    the rows refresh() returns instead (a fresh draw of augmented streams): one learning-rate
    schedule over all of them. With mask (most frames, most bands; a ConvMlp's), each training
    row is seen through spec_mask. With ema in (0, 1), the model ends with the exponential moving
    average of its weights (Polyak averaging, torch's AveragedModel, that decay per batch), and
    each epoch's evaluation reads the average."""
    assert refresh is None or teacher_logits is None, "a teacher's logits belong to fixed rows"
    assert mask is None or isinstance(model, ConvMlp), "masks are drawn over a ConvMlp's frames and bands"
    mask_gen = torch.Generator().manual_seed(seed + 1000)
    tt = None if teacher_logits is None else torch.from_numpy(teacher_logits.astype(np.float32))
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
            if tt is not None:
                t = kd_temperature
                soft = torch.sigmoid(tt[idx] / t)
                kd = torch.nn.functional.binary_cross_entropy_with_logits(z / t, soft, weight=w)
                loss = (1 - kd_alpha) * loss + kd_alpha * t * t * kd
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


def load_int8(model, q, input_scale, logit_q):
    """Sets a ConvMlp's float weights from the int8 model q of its shape (vad_export's form): its
    weights dequantised. The file holds each layer's s_w * s_in / s_out (mult / 2^shift), not the
    hidden layers' output scales s_out; a ReLU network computes the same function when a hidden
    layer's outputs are scaled by c > 0 and the next layer's weights by 1 / c, so each s_out is
    chosen to give every layer the same weight norm (where weight decay drives a trained network).
    The float logits are then the int8 ones but for rounding."""
    layers = q["layers"]
    linears = [m for m, _ in model.convolutions()] + [m for m in model.head if isinstance(m, torch.nn.Linear)]
    assert len(linears) == len(layers) and all(
        tuple(m.weight.shape) == layer["weight"].shape for m, layer in zip(linears, layers)), \
        "the int8 model's layers differ from this model's"
    # Every hidden s_out = 1 first (the last: the logit's Q format): then layer l's weights are
    # w_q * s_w, s_w = ratio * s_out[l] / s_in[l], and its biases b_q * s_w * s_in[l].
    s_out = [1.0] * (len(layers) - 1) + [1.0 / 2 ** logit_q]
    s_in = [input_scale] + s_out[:-1]
    s_w = [layer["mult"] / 2.0 ** layer["shift"] * s_out[i] / s_in[i] for i, layer in enumerate(layers)]
    w = [layer["weight"] * s[:, None] for layer, s in zip(layers, s_w)]
    b = [layer["bias"] * s * si for layer, s, si in zip(layers, s_w, s_in)]
    # Scaling hidden layer l's outputs by c[l] scales its weights by c[l] / c[l - 1] and its biases
    # by c[l]; the last layer's c is 1 (its output scale is fixed): equal norms.
    norms = [np.linalg.norm(wl) for wl in w]
    c = np.cumprod([np.exp(np.mean(np.log(norms))) / n for n in norms])
    c[-1] = 1.0
    c_before = np.concatenate([[1.0], c[:-1]])
    with torch.no_grad():
        for m, wl, bl, cl, cb in zip(linears, w, b, c, c_before):
            m.weight.copy_(torch.from_numpy(wl * (cl / cb)))
            m.bias.copy_(torch.from_numpy(bl * cl))
    return model


def prune(model, x, input_scale, frame_keep, band_count, hidden_keep):
    """A smaller MLP cut from `model`: the input frames at positions frame_keep (whole frames of
    band_count inputs) and, per hidden layer, the hidden_keep[l] units of largest importance (mean
    activation on x times the norm of the unit's outgoing weights). Returns the model and the kept
    input columns."""
    cols = np.concatenate([np.arange(f * band_count, (f + 1) * band_count) for f in frame_keep])
    with torch.no_grad():
        a = torch.from_numpy(x[::7]).float() * input_scale
    return prune_mlp(model, a, torch.from_numpy(cols), hidden_keep), cols


def prune_conv(model, x, input_scale, channel_keep, hidden_keep):
    """A smaller ConvMlp cut from `model`: the channel_keep channels of the convolution and, per
    hidden layer of its MLP, the hidden_keep[l] units of largest importance (mean activation on x
    times the norm of the outgoing weights, over all positions for a channel)."""
    assert model.mix is None, "a second convolution is not pruned"
    model.eval()
    with torch.no_grad():
        a = model.channels(torch.from_numpy(x[::7]).float() * input_scale)
        n_ch = model.patch.out_features
        w_out = model.head[0].weight.view(-1, model.positions, n_ch)
        importance = a.view(len(a), model.positions, n_ch).mean((0, 1)) * w_out.norm(dim=(0, 1))
        keep = torch.sort(torch.argsort(importance, descending=True)[:channel_keep]).values
        small = ConvMlp(model.frames, model.width, model.kernel, model.stride, channel_keep, hidden_keep)
        small.patch.weight.copy_(model.patch.weight[keep])
        small.patch.bias.copy_(model.patch.bias[keep])
        cols = (torch.arange(model.positions)[:, None] * n_ch + keep[None, :]).reshape(-1)
    small.head = prune_mlp(model.head, a, cols, hidden_keep)
    return small


def prune_mlp(model, a, keep_in, hidden_keep):
    """The MLP `model` restricted to the input columns keep_in and, per hidden layer, the
    hidden_keep[l] units of largest importance on the inputs a (float, all columns)."""
    model.eval()
    lin = [m for m in model if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        new = []
        for li, layer in enumerate(lin):
            w, b = layer.weight[:, keep_in], layer.bias
            if li < len(lin) - 1:
                act = torch.relu(a @ layer.weight.T + layer.bias)
                importance = act.mean(0) * lin[li + 1].weight.norm(dim=0)
                keep_out = torch.sort(torch.argsort(importance, descending=True)[:hidden_keep[li]]).values
                a = act
            else:
                keep_out = torch.arange(w.shape[0])
            small = torch.nn.Linear(len(keep_in), len(keep_out))
            small.weight.copy_(w[keep_out])
            small.bias.copy_(b[keep_out])
            new.append(small)
            keep_in = keep_out
    layers = []
    for i, layer in enumerate(new):
        layers.append(layer)
        if i < len(new) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


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
