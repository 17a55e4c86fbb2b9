"""Training of earshot's int8 MLPs (VAD, keyword spotter): the float model, its training loop and
the ROC-AUC used to follow it. Seeded: the same data give the same weights."""
import numpy as np
import torch


def auc(scores, labels):
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    # average ranks of ties
    s_sorted = scores[order]
    i = 0
    while i < len(s_sorted):
        j = i
        while j + 1 < len(s_sorted) and s_sorted[j + 1] == s_sorted[i]:
            j += 1
        if j > i:
            ranks[order[i:j + 1]] = (i + j + 2) / 2
        i = j + 1
    pos = labels > 0.5
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def open_log(path, earlier=""):
    """A log function writing each line to stdout and to `path` (the committed training log), which
    starts with earlier (a resumed run's log so far)."""
    log_file = open(path, "w")
    log_file.write(earlier)

    def log(msg):
        print(msg, flush=True)
        log_file.write(msg + "\n")
        log_file.flush()
    return log


def train_mlp(x, y, xd, yd, hidden, epochs, *, seed, lr, input_scale, log, pos_weight=None,
              metric="dev AUC"):
    """An MLP (ReLU between layers, one logit out) on int8 rows x times input_scale, targets y in
    {0, 1} (rows with y < 0 are left out); Adam with cosine decay, batches of 512."""
    torch.manual_seed(seed)
    dims = (x.shape[1], *hidden, 1)
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    keep, dkeep = y >= 0, yd >= 0
    xt = torch.from_numpy(x[keep].astype(np.float32) * input_scale)
    yt = torch.from_numpy(y[keep])
    xdt = torch.from_numpy(xd[dkeep].astype(np.float32) * input_scale)
    weight = torch.where(yt > 0.5, pos_weight, 1.0) if pos_weight else None
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for i in range(0, len(perm), 512):
            idx = perm[i:i + 512]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model(xt[idx]).squeeze(1), yt[idx], weight=None if weight is None else weight[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        model.eval()
        with torch.no_grad():
            scores = model(xdt).squeeze(1).numpy()
        log(f"  epoch {epoch + 1}: train loss {total / len(xt):.4f}, {metric} {auc(scores, yd[dkeep]):.4f}")
    return model


def float_weights(model):
    """[(W, b)] of the model's linear layers, as float64 arrays for quantisation."""
    return [(m.weight.detach().numpy().astype(np.float64), m.bias.detach().numpy().astype(np.float64))
            for m in model if isinstance(m, torch.nn.Linear)]
