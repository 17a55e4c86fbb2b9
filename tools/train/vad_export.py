"""int8 quantisation, integer inference and export of the VAD's MLP. The integer arithmetic here is
the specification models/vad implements; test vectors written here are checked by tests/vad_test.cc.

Layer l, input a (int8 >= 0, real value a * s_in), weights W (float, [out, in]):
  W_q = round(W / s_w[o]), s_w[o] = max |W[o]| / 127           (per output channel, symmetric)
  acc = sum_i W_q[o, i] a[i] + b_q[o], b_q = round(b / (s_w[o] s_in))          (int32)
  hidden: a'[o] = clamp((acc * mult[o] + 2^(shift[o]-1)) >> shift[o], 0, 127)  (ReLU, int8)
          with mult / 2^shift = s_w[o] s_in / s_out, mult in [2^30, 2^31)
  output: z = same requantisation to a logit in Q(logit_q), clamped to [-1024, 1023];
          score_q15 = sigmoid_q15[z + 1024],
          sigmoid_q15[k] = round(32767 / (1 + e^(-(k-1024) / 2^logit_q / temperature)))
  A hidden layer may be a convolution over time (tensor l.conv = {k, s, w}): its input is read as
  frames of w values (frame-major), and the layer above runs on each window of k frames starting
  every s frames, position p's window being a[p*s*w : (p*s + k)*w]; its output is position-major,
  a'[p*C + o]. A dense layer is the case of one window covering the whole input.
  The VAD uses Q6 logits (+-16) and temperature 1. The keyword spotter uses Q4 logits (+-64) and
  temperature 4, so that its scores near 1 stay distinguishable (a plain sigmoid reaches 32767 at
  a logit of 10.4, and hard negatives scored there could not be told from keywords).
"""
import struct
import zlib

import numpy as np

import vad_input

MAGIC = b"ESHM"
VERSION = 1
LOGIT_Q = 6
LOGIT_HALF_RANGE = 1024
DTYPES = {np.dtype(np.int8): 1, np.dtype(np.int16): 2, np.dtype(np.int32): 3, np.dtype(np.uint16): 4,
          np.dtype(np.float32): 5}
# The front end the model was trained on (features/front_end_config.h defaults, log-mel).
FEATURE_SPEC = dict(sample_rate=16000, window_ms=25, hop_ms=10, fft_size=512, mel_bands=40,
                    mel_low_hz=20, mel_high_hz=7600, kind=0, mfcc_count=13, lifter=0, mean_norm=0)
# features::EmbeddingFrontEndConfig(): the speech embedding's log-mel (models/model_file.h, kind 2)
EMBEDDING_FEATURE_SPEC = dict(sample_rate=16000, window_ms=25, hop_ms=10, fft_size=512, mel_bands=32,
                              mel_low_hz=60, mel_high_hz=3800, kind=2, mfcc_count=13, lifter=0,
                              mean_norm=0)
INPUT_TRANSFORM = [2, 32, 3, 40 * 256, 7, 205, 13, 100, 100]


def multiplier(real):
    """real = mult / 2^shift with mult in [2^30, 2^31)."""
    shift = 0
    while real * 2 ** shift < 2 ** 30:
        shift += 1
    mult = int(round(real * 2 ** shift))
    if mult == 2 ** 31:
        mult //= 2
        shift -= 1
    assert 0 < shift < 63, real
    return mult, shift


def requantize(acc, mult, shift):
    return (acc.astype(np.int64) * mult + (np.int64(1) << (shift - 1))) >> shift


def windows(a, conv):
    """(n, inputs) -> (n, positions, k * w): the windows a conv layer {k, s, w} runs on (a dense
    layer, conv None: one window, the whole input)."""
    if conv is None:
        return a[:, None, :]
    k, s, w = conv
    frames = a.shape[1] // w
    starts = np.arange(0, frames - k + 1, s) * w
    return np.stack([a[:, p:p + k * w] for p in starts], axis=1)


def layer_geometry(layer):
    """(W, b) or (W, b, conv) -> (W, b, conv or None)."""
    return (*layer, None) if len(layer) == 2 else tuple(layer)


def quantize(weights, input_scale, calibration, context, logit_q=LOGIT_Q, temperature=1.0):
    """weights: [(W, b)] or [(W, b, conv)] float per layer, conv = (k, s, w) for a convolution
    over time; calibration: int8 model inputs to size activations."""
    layers, _ = quantize_layers(weights, input_scale, calibration, logit_q)
    k = np.arange(2 * LOGIT_HALF_RANGE)
    logit = (k - LOGIT_HALF_RANGE) / 2 ** logit_q / temperature
    sigmoid = np.round(32767 / (1 + np.exp(-logit))).astype(np.uint16)
    return dict(layers=layers, sigmoid=sigmoid, context=tuple(context))


def quantize_hidden(weights, input_scale, calibration):
    """Hidden layers only (every one with ReLU and int8 outputs): (layers, the real value of one
    step of the last one's outputs)."""
    return quantize_layers(weights, input_scale, calibration, None)


def quantize_layers(weights, input_scale, calibration, logit_q):
    """The int8 layers and the last one's output scale; the last layer is the logit in
    Q(logit_q), or hidden when logit_q is None."""
    layers = []
    s_in = input_scale
    a = calibration.astype(np.float64) * input_scale
    for i, layer in enumerate(weights):
        w, b, conv = layer_geometry(layer)
        last = i == len(weights) - 1 and logit_q is not None
        # A channel whose weights all but vanished keeps a scale near the layer's, so its bias and
        # requantisation stay in range.
        s_w = np.maximum(np.abs(w).max(axis=1), 1e-3 * np.abs(w).max()) / 127
        w_q = np.clip(np.round(w / s_w[:, None]), -127, 127).astype(np.int8)
        b_q = np.round(b / (s_w * s_in)).astype(np.int64)
        assert np.abs(b_q).max() < 2 ** 31
        a = np.maximum(windows(a, conv) @ w.T + b, 0).reshape(len(a), -1)
        s_out = 1.0 / 2 ** logit_q if last else max(np.percentile(a, 99.99), 1e-6) / 127
        mults, shifts = zip(*(multiplier(s_w[o] * s_in / s_out) for o in range(len(s_w))))
        layers.append(dict(weight=w_q, bias=b_q.astype(np.int32), mult=np.array(mults, np.int32),
                           shift=np.array(shifts, np.int32)))
        if conv is not None:
            assert not last, "the output layer is dense"
            layers[-1]["conv"] = np.array(conv, np.int32)
        s_in = s_out
    return layers, s_in


def run_int(q, x, batch=4096):
    """Integer inference on (n, inputs) int8 rows -> score_q15 (n,) int32."""
    return np.concatenate([run_int_batch(q, x[i:i + batch]) for i in range(0, len(x), batch)] or
                          [np.zeros(0, np.int32)])


def run_int_batch(q, x):
    out = layer_int(q["layers"][-1], hidden_int(q["layers"][:-1], x))
    z = np.clip(out[:, 0, 0], -LOGIT_HALF_RANGE, LOGIT_HALF_RANGE - 1)
    return q["sigmoid"][z + LOGIT_HALF_RANGE].astype(np.int32)


def hidden_int(layers, x):
    """The int8 outputs (0 .. 127, as int64) of hidden layers on (n, inputs) int8 rows."""
    a = x.astype(np.int64)
    for layer in layers:
        a = np.clip(layer_int(layer, a), 0, 127).reshape(len(a), -1)
    return a


def layer_int(layer, a):
    """One layer's requantised outputs (n, positions, channels) before clamping."""
    # The products in float64 (BLAS, not numpy's integer loops): exact, for every partial sum is an
    # integer far below 2^53 (the int32 accumulator's range is asserted below).
    conv = layer.get("conv")
    products = windows(a, None if conv is None else tuple(int(v) for v in conv)).astype(np.float64) @ \
        layer["weight"].astype(np.float64).T
    acc = products.astype(np.int64) + layer["bias"].astype(np.int64)
    assert np.abs(acc).max() < 2 ** 31, "int32 accumulator overflow"
    return requantize(acc, layer["mult"].astype(np.int64), layer["shift"].astype(np.int64))


def tensors(q):
    return [("context", np.array(q["context"], np.int32)),
            ("input_transform", np.array(INPUT_TRANSFORM, np.int32))] + mlp_tensors(q)


def write_model(path, q):
    """The VAD's model file."""
    write_tensors(path, "vad-mlp", tensors(q))


def mlp_tensors(q):
    """The int8 MLP's tensors (models/int8_mlp.h reads them), for any model built on it."""
    t = []
    for i, layer in enumerate(q["layers"]):
        for name in ("weight", "bias", "mult", "shift", "conv"):
            if name in layer:
                t.append((f"l{i}.{name}", layer[name]))
    t.append(("sigmoid", q["sigmoid"]))
    return t


def write_tensors(path, kind, items, features=None):
    """An earshot model file (models/model_file.h documents the layout); `features` its feature
    spec (default FEATURE_SPEC: the main front end's log-mel)."""
    spec = [(features or FEATURE_SPEC)[k] for k in ("sample_rate", "window_ms", "hop_ms", "fft_size", "mel_bands",
                                      "mel_low_hz", "mel_high_hz", "kind", "mfcc_count", "lifter",
                                      "mean_norm")]
    header = MAGIC + struct.pack("<I16s11iI", VERSION, kind.encode(), *spec, len(items))
    table_size = 56 * len(items)
    offset = len(header) + table_size
    table, blob = b"", b""
    for name, array in items:
        offset_aligned = (offset + len(blob) + 7) // 8 * 8
        blob += b"\0" * (offset_aligned - offset - len(blob))
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        dims = list(array.shape) + [1] * (4 - array.ndim)
        table += struct.pack("<24sII4III", name.encode(), DTYPES[array.dtype], array.ndim, *dims,
                             offset_aligned, len(data))
        blob += data
    body = header + table + blob
    with open(path, "wb") as f:
        f.write(body + struct.pack("<I", zlib.crc32(body)))


def read_tensors(path):
    """The tensors of an earshot model file, by name (the inverse of write_tensors)."""
    data = open(path, "rb").read()
    assert data[:4] == MAGIC and zlib.crc32(data[:-4]) == struct.unpack("<I", data[-4:])[0], path
    count = struct.unpack_from("<I", data, 68)[0]
    types = {v: k for k, v in DTYPES.items()}
    out = {}
    for i in range(count):
        name, dtype, ndim, *rest = struct.unpack_from("<24sII4III", data, 72 + 56 * i)
        dims, offset, size = rest[:ndim], rest[4], rest[5]
        out[name.rstrip(b"\0").decode()] = np.frombuffer(data[offset:offset + size],
                                                        types[dtype].newbyteorder("<")).reshape(dims)
    return out


def mlp_from_tensors(t):
    """The quantised MLP of read_tensors() in the form run_int() takes."""
    layers = []
    while f"l{len(layers)}.weight" in t:
        i = len(layers)
        layers.append({name: t[f"l{i}.{name}"] for name in ("weight", "bias", "mult", "shift", "conv")
                       if f"l{i}.{name}" in t})
    return dict(layers=layers, sigmoid=t["sigmoid"], context=tuple(int(v) for v in t["context"]))


def write_vectors(path, q, logmel):
    """Test vectors from a stream's log-mel frames: per frame, the 40 log-mel values, the 41 inputs
    of the transform and the score of the frame `lookahead` frames earlier (-1 before the first)."""
    inputs = vad_input.frame_inputs(logmel)
    scores = run_int(q, vad_input.stack_context(inputs, q["context"]))
    with open(path, "w") as f:
        f.write("# earshot VAD test vectors (tools/train/vad_export.py): "
                "logmel[40] | inputs[41] | score_q15 of frame t - lookahead\n")
        for t in range(len(logmel)):
            k = t - max(q["context"])
            f.write(" ".join(str(int(v)) for v in logmel[t]) + " | " +
                    " ".join(str(int(v)) for v in inputs[t]) + " | " +
                    str(int(scores[k]) if k >= 0 else -1) + "\n")
