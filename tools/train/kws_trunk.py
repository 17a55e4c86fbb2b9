"""The shared keyword trunk: three convolutions over time that every keyword model trained from text
reuses byte for byte (train_kws_trunk.py trains it once on real words; train_wakeword.py puts a small
keyword head on it). The device runs the trunk once per hop for all the keywords that share it
(models/kws/kws.h) and each keyword's head after it, so an extra keyword costs only its head.

Shape: 77 context frames (every 2nd hop, 1.5 s) x 20 pooled bands (kws_input.py) -> a convolution
over 5 frames every 2 (37 positions x 64 channels) -> over 5 positions every 2 (17 x 64) -> over 5
positions every 2 (7 x 64): 448 int8 outputs per hop, the heads' input.

The trunk file (kind "kws-trunk", vad_export.write_tensors) holds the int8 layers l0..l2 as
models/int8_mlp.h reads them, the context, the input transform, the real value of one step of its
int8 outputs (`out_scale`, float32) and the names of the words it was trained on (`words`, code
points, words separated by 0)."""
import numpy as np
import torch

import vad_export

FRAMES = 77
CONVS = ((5, 2, 64), (5, 2, 64), (5, 2, 64))  # (kernel, stride, channels) per convolution
INPUT_SCALE = 1.0 / 32


def positions(frames, kernel, stride):
    return (frames - kernel) // stride + 1


def geometry(width, frames=FRAMES, convs=CONVS):
    """[(kernel, stride, frame_width)] of each convolution (vad_export's conv tensors) and the
    trunk's outputs per row."""
    out, p, w = [], frames, width
    for k, s, c in convs:
        out.append((k, s, w))
        p, w = positions(p, k, s), c
    return out, p * w


class Trunk(torch.nn.Module):
    """The convolutions in float (ReLU after each), position-major outputs (n, P * C)."""

    def __init__(self, width, frames=FRAMES, convs=CONVS):
        super().__init__()
        self.geom, self.outputs = geometry(width, frames, convs)
        self.linears = torch.nn.ModuleList(
            torch.nn.Linear(k * w, c) for (k, _, w), (_, _, c) in zip(self.geom, convs))

    def forward(self, x):
        h = x
        for lin, (k, s, w) in zip(self.linears, self.geom):
            win = h.reshape(len(h), -1, w).unfold(1, k, s).permute(0, 1, 3, 2)
            h = torch.relu(lin(win.reshape(len(h), win.shape[1], k * w))).reshape(len(h), -1)
        return h

    def weights(self):
        return [(m.weight.detach().numpy().astype(np.float64), m.bias.detach().numpy().astype(np.float64),
                 conv) for m, conv in zip(self.linears, self.geom)]


def quantize(trunk, calibration):
    """The int8 layers of the float trunk (vad_export's arithmetic) and the real value of one step
    of its outputs."""
    return vad_export.quantize_hidden(trunk.weights(), INPUT_SCALE, calibration)


def hidden_int(layers, x, batch=4096):
    """The int8 outputs (n, P * C) of the int8 layers on int8 rows x, as the device computes them."""
    parts = [vad_export.hidden_int(layers, x[i:i + batch]) for i in range(0, len(x), batch)]
    return np.concatenate(parts).astype(np.int8) if parts else np.zeros((0, 0), np.int8)


def encode_words(words):
    codes = []
    for w in words:
        codes += [ord(ch) for ch in w] + [0]
    return np.array(codes, np.int32)


def decode_words(codes):
    return "".join(chr(c) if c else "\n" for c in codes).split("\n")[:-1]


def write(path, layers, out_scale, context, transform, words):
    items = [("context", np.array(context, np.int32)), ("kws_transform", np.array(transform, np.int32)),
             ("out_scale", np.array([out_scale], np.float32)), ("words", encode_words(words))]
    for i, layer in enumerate(layers):
        items += [(f"l{i}.{name}", layer[name]) for name in ("weight", "bias", "mult", "shift", "conv")]
    vad_export.write_tensors(path, "kws-trunk", items)


def read(path):
    """(layers, out_scale, context, transform, words) of a trunk file; SystemExit naming the file
    and the cause if it is not one."""
    try:
        t = vad_export.read_tensors(path)
        layers = []
        while f"l{len(layers)}.weight" in t:
            i = len(layers)
            layers.append({n: t[f"l{i}.{n}"] for n in ("weight", "bias", "mult", "shift", "conv")})
        if not layers:
            raise ValueError("no layers")
        return (layers, float(t["out_scale"][0]), tuple(int(v) for v in t["context"]),
                tuple(int(v) for v in t["kws_transform"]), decode_words(t["words"]))
    except (OSError, AssertionError, KeyError, ValueError) as e:
        raise SystemExit(f"{path}: not a keyword trunk file ({type(e).__name__}: {e})")


def tail(layers, cut, width):
    """A float Trunk of the int8 layers from `cut` on, reading the layer cut - 1's int8 outputs (or
    the int8 inputs, cut 0) in integer units and writing its own outputs in integer units: weights
    and biases are the int8 ones times each channel's requantisation (mult / 2^shift), so before
    rounding and clamping it computes the int8 layers' outputs (a start for fine-tuning them)."""
    frames, w = FRAMES, width
    for k, s, c in CONVS[:cut]:
        frames, w = positions(frames, k, s), c
    net = Trunk(w, frames, CONVS[cut:])
    with torch.no_grad():
        for lin, layer in zip(net.linears, layers[cut:]):
            m = layer["mult"].astype(np.float64) / 2.0 ** layer["shift"].astype(np.float64)
            lin.weight.copy_(torch.from_numpy(layer["weight"].astype(np.float64) * m[:, None]))
            lin.bias.copy_(torch.from_numpy(layer["bias"].astype(np.float64) * m))
    return net


def started_from(layers, width):
    """A float Trunk computing what int8 `layers` compute, reading inputs scaled by INPUT_SCALE (as
    Trunk does) and writing outputs in units of 32 int8 steps: a start for training another
    trunk (train_kws_trunk.py --init)."""
    net = Trunk(width)
    net.load_state_dict(tail(layers, 0, width).state_dict())
    with torch.no_grad():
        net.linears[0].weight.mul_(1 / INPUT_SCALE)
        net.linears[-1].weight.mul_(INPUT_SCALE)
        net.linears[-1].bias.mul_(INPUT_SCALE)
    return net
