#!/usr/bin/python3
"""Imports Google's speech embedding (openWakeWord's embedding_model.onnx) into earshot's model
format as an int8 network, calibrated on the shared real speech (post-training quantisation), and
measures it against the float graph on real speech never used for calibration.

  tools/train/fetch_embedding.sh            # once: the pinned ONNX files (tools/setup.sh --training)
  /usr/bin/python3 tools/train/embedding_import.py [--out models/embedding/speech_embedding.eshm]

The integer arithmetic written here is the specification models/embedding implements:
  input   u = logmel_db_q8 + 5120: the front end's absolute dB (Q8) as the graph's x / 10 + 2,
          in steps of 1 / 2560 (int32; EmbeddingFrontEndConfig's features)
  layer l weights W_q int8 [C_out][k_t][k_w][C_in] (per output channel, symmetric), bias int32:
          acc = sum W_q a + bias over the window of k_t rows (frames) x k_w mel positions, the mel
          axis padded with zeros (pad_w each side), time unpadded
          z = (acc * mult + 2^(shift-1)) >> shift, saturated to int32  (the output's int8 step)
          act: z < 0 -> (z * 13107 + 2^15) >> 16 (leaky ReLU, slope 0.2 in Q16), then
               z = max(z, floor) (the graph clips at -0.4: floor = round(-0.4 / step))
          out = clamp(z, -128, 127); then a max-pool of pool_t x pool_w (stride = size), if any
  the last layer has no activation: its int8 outputs times out_scale are the 96 embedding values.
"""
import glob
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import onnx_graph  # noqa: E402
import vad_export  # noqa: E402

KIND = "speech-embedding"
BANDS = 32
WINDOW = 76         # frames per embedding
STEP = 8            # frames between two embeddings
IN_OFFSET_Q8 = 20 * 256  # u = dB_q8 + 5120 = (x / 10 + 2) * 2560
IN_STEPS = 2560.0
LEAK_Q16 = 13107    # 0.2
CLIP = -0.4
# The graph's frame t covers samples 160 t + 56 .. 160 t + 455 of its input; the front end's frame
# k covers 160 k - 240 .. 160 k + 159 (it ends with hop k, the stream starting from zeros). With
# 296 zeros before the audio, the graph's frame t is the front end's frame t.
GRAPH_DELAY = 296
SAMPLE = os.path.join(audio_io.ROOT, "tools", "samples", "computer_request.flac")
VECTORS = os.path.join(audio_io.ROOT, "tests", "data", "embedding_vectors.txt")


def graph_layers(graph):
    """The convolutions of the embedding graph in order: weight [C_out][C_in][k_t][k_w], bias,
    pad_w, whether a clipped leaky ReLU follows, and the max-pool after it ((1, 1) for none)."""
    layers = []
    for node in graph.graph.node:
        attrs = {a.name: a for a in node.attribute}
        if node.op_type == "Conv":
            w = np.array(graph.initializer(node.input[1]))
            b = np.array(graph.initializer(node.input[2])) if len(node.input) > 2 else \
                np.zeros(len(w), np.float32)
            pads = list(attrs["pads"].ints) if "pads" in attrs else [0, 0, 0, 0]
            assert pads[0] == pads[2] == 0 and pads[1] == pads[3], pads
            layers.append(dict(w=w, b=b, pad_w=pads[1], act=False, pool=(1, 1)))
        elif node.op_type == "LeakyRelu":
            assert abs(attrs["alpha"].f - 0.2) < 1e-6
            layers[-1]["act"] = True
        elif node.op_type == "MaxPool":
            k = tuple(attrs["kernel_shape"].ints)
            assert tuple(attrs["strides"].ints) == k
            layers[-1]["pool"] = k
    assert len(layers) == 20 and not layers[-1]["act"], "not the speech embedding's graph"
    return layers


def float_forward(layers, v, peaks=None):
    """The graph's network in float on windows v [N][T][32] (x / 10 + 2): [N][T'][96]; `peaks`,
    when given, takes each layer's largest |activation| so far (calibration)."""
    a = torch.from_numpy(np.ascontiguousarray(v, np.float32))[:, None]
    for i, layer in enumerate(layers):
        a = F.conv2d(F.pad(a, (layer["pad_w"],) * 2), torch.from_numpy(layer["w"]),
                     torch.from_numpy(layer["b"]))
        if layer["act"]:
            a = torch.clamp(F.leaky_relu(a, 0.2), min=CLIP)
        if peaks is not None:
            peaks[i] = max(peaks[i], float(a.abs().max()))
        if layer["pool"] != (1, 1):
            a = F.max_pool2d(a, layer["pool"])
    return a[:, :, :, 0].transpose(1, 2).numpy()


def quantize(layers, calibration):
    """The int8 layers (PTQ): per-channel weights, each layer's output step from its largest
    activation on the calibration windows (u, int)."""
    peaks = [0.0] * len(layers)
    with torch.no_grad():
        for i in range(0, len(calibration), 256):
            float_forward(layers, calibration[i:i + 256] / IN_STEPS, peaks)
    q, s_in = [], 1 / IN_STEPS
    for layer, peak in zip(layers, peaks):
        w = layer["w"].transpose(0, 2, 3, 1).reshape(len(layer["w"]), -1)  # [C_out][k_t][k_w][C_in]
        s_w = np.maximum(np.abs(w).max(axis=1), 1e-3 * np.abs(w).max()) / 127
        s_out = peak / 127
        mults, shifts = zip(*(vad_export.multiplier(s * s_in / s_out) for s in s_w))
        q.append(dict(
            weight=np.clip(np.round(w / s_w[:, None]), -127, 127).astype(np.int8),
            bias=np.round(layer["b"] / (s_w * s_in)).astype(np.int32),
            mult=np.array(mults, np.int32), shift=np.array(shifts, np.int32),
            geometry=np.array([layer["w"].shape[2], layer["w"].shape[3], layer["w"].shape[1],
                               layer["pad_w"], *layer["pool"]], np.int32),
            activation=np.array([LEAK_Q16, round(CLIP / s_out)] if layer["act"] else [0, -128],
                                np.int32),
            step=s_out))
        s_in = s_out
    return q


def int_forward(q, u):
    """The specification's integers: windows u [N][T][32] -> int8 embeddings [N][T'][96]."""
    a = torch.from_numpy(np.asarray(u, np.float64))[:, None]
    for layer in q:
        k_t, k_w, c_in, pad_w, pool_t, pool_w = (int(v) for v in layer["geometry"])
        w = torch.from_numpy(layer["weight"].astype(np.float64).reshape(-1, k_t, k_w, c_in))
        acc = F.conv2d(F.pad(a, (pad_w, pad_w)), w.permute(0, 3, 1, 2))  # exact: sums < 2^53
        acc = acc.numpy().astype(np.int64) + layer["bias"][None, :, None, None]
        assert np.abs(acc).max() < 2 ** 31, "int32 accumulator overflow"
        z = vad_export.requantize(acc, layer["mult"][None, :, None, None].astype(np.int64),
                                  layer["shift"][None, :, None, None].astype(np.int64))
        z = np.clip(z, -2 ** 31, 2 ** 31 - 1)  # as the engine: z * slope stays inside int64
        slope, floor = (int(v) for v in layer["activation"])
        if slope:
            z = np.maximum(np.where(z < 0, (z * slope + (1 << 15)) >> 16, z), floor)
        a = torch.from_numpy(np.clip(z, -128, 127).astype(np.float64))
        if (pool_t, pool_w) != (1, 1):
            a = F.max_pool2d(a, (pool_t, pool_w))
    return a[:, :, :, 0].transpose(1, 2).numpy().astype(np.int8)


def tensors(q):
    t = [("input", np.array([IN_OFFSET_Q8, WINDOW, STEP], np.int32))]
    for i, layer in enumerate(q):
        for name in ("weight", "bias", "mult", "shift", "geometry", "activation"):
            t.append((f"l{i}.{name}", layer[name]))
    t.append(("out_scale", np.array([q[-1]["step"]], np.float32)))
    return t


def windows(frames, step=STEP):
    """Every window of WINDOW frames starting every `step` frames: [N][WINDOW][32]."""
    starts = range(0, len(frames) - WINDOW + 1, step)
    return np.stack([frames[s:s + WINDOW] for s in starts]) if len(starts) else \
        np.zeros((0, WINDOW, BANDS), frames.dtype)


def device_mel(earshot, samples):
    """The front end's absolute log-mel (dB Q8) of `samples`, from the device's own code."""
    return audio_io.features(earshot, samples, "embedding-mel", BANDS)


def graph_mel(mel_graph, samples):
    """The float graph's log-mel (dB), framed as the front end frames it, as openWakeWord streams
    it: its floor at the chunk's maximum - 80 dB left out (a streaming front end has no chunk; the
    device floors at 0 dB)."""
    y = np.concatenate([np.zeros(GRAPH_DELAY, np.float32), samples.astype(np.float32)])
    _, kept = mel_graph.run(y[None], keep=("onnx::ReduceMax_31",))
    return np.maximum(kept["onnx::ReduceMax_31"].reshape(-1, BANDS), 0.0)


def cosine(a, b):
    a, b = a.reshape(-1, a.shape[-1]).astype(np.float64), b.reshape(-1, b.shape[-1]).astype(np.float64)
    return (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)


def compare(earshot, mel_graph, layers, q, paths):
    """Per file: the device's mel against the graph's (dB), and the int8 embeddings against the
    float graph's on the graph's own mel: (mel errors [frames][32], cosines)."""
    errors, cosines = [], []
    for path in paths:
        x = audio_io.read_audio(path)
        ours = device_mel(earshot, x)
        ref = graph_mel(mel_graph, x)
        n = min(len(ours), len(ref))
        if n < WINDOW:
            continue
        ours, ref = ours[:n], ref[:n]
        errors.append(ours / 256.0 - ref)
        emb_q = int_forward(q, windows(ours.astype(np.int64) + IN_OFFSET_Q8))
        with torch.no_grad():
            emb_f = float_forward(layers, windows(ref / 10 + 2))
        cosines.append(cosine(emb_q * q[-1]["step"], emb_f))
    return np.concatenate(errors), np.concatenate(cosines)


def calibration_windows(earshot, paths, step):
    return np.concatenate([windows(device_mel(earshot, audio_io.read_audio(p)).astype(np.int64)
                                   + IN_OFFSET_Q8, step) for p in paths])


def main():
    p = audio_io.parser(__doc__, needs=("speech", "speech_l2"))
    p.add_argument("--source", default=os.path.join(
        os.environ.get("EARSHOT_CACHE", os.path.expanduser("~/.cache/earshot")), "speech_embedding"),
        help="the folder tools/train/fetch_embedding.sh fills")
    p.add_argument("--out", default=os.path.join(audio_io.ROOT, "models", "embedding",
                                                 "speech_embedding.eshm"))
    p.add_argument("--vectors", default=VECTORS, help="the C++ tests' reference vectors")
    p.add_argument("--calibration-step", type=int, default=32,
                   help="frames between two calibration windows")
    args = p.parse_args()
    for name in ("embedding_model.onnx", "melspectrogram.onnx"):
        if not os.path.isfile(os.path.join(args.source, name)):
            p.error(f"--source {args.source}: no {name} (run tools/train/fetch_embedding.sh)")
    torch.manual_seed(0)
    layers = graph_layers(onnx_graph.Graph(os.path.join(args.source, "embedding_model.onnx")))
    mel_graph = onnx_graph.Graph(os.path.join(args.source, "melspectrogram.onnx"))
    split = speech_split(args.data)
    print(f"calibration: {len(split['calibration'])} files; held out: {len(split['held_out'])}",
          flush=True)
    calibration = calibration_windows(args.earshot, split["calibration"], args.calibration_step)
    print(f"calibration windows: {len(calibration)}", flush=True)
    q = quantize(layers, calibration)
    vad_export.write_tensors(args.out, KIND, tensors(q), vad_export.EMBEDDING_FEATURE_SPEC)
    write_vectors(args.earshot, mel_graph, layers, q, args.vectors)
    errors, cosines = compare(args.earshot, mel_graph, layers, q, split["held_out"])
    report(errors, cosines)


def write_vectors(earshot, mel_graph, layers, q, path=VECTORS):
    """The C++ tests' reference on the bundled sample: the float graph's log-mel and embeddings
    (windows starting at frames 0, 8, ... of the front end's frames, as the stream gives them) and
    this specification's int8 embeddings of the device's log-mel."""
    x = audio_io.read_audio(SAMPLE)
    ref = graph_mel(mel_graph, x)
    ours = device_mel(earshot, x)
    n = min(len(ref), len(ours))
    ref, ours = ref[:n], ours[:n]
    with torch.no_grad():
        emb_f = float_forward(layers, windows(ref / 10 + 2))[:, 0]
    emb_q = int_forward(q, windows(ours.astype(np.int64) + IN_OFFSET_Q8))[:, 0]
    with open(path, "w") as f:
        f.write("# earshot speech embedding test vectors (tools/train/embedding_import.py) of "
                "tools/samples/computer_request.flac:\n# mel FRAME dB[32] (the float graph); "
                "float LAST_FRAME [96] (the float graph's embedding); int8 LAST_FRAME [96]\n")
        for t, row in enumerate(ref):
            f.write(f"mel {t} " + " ".join(f"{v:.3f}" for v in row) + "\n")
        for i, (e_f, e_q) in enumerate(zip(emb_f, emb_q)):
            last = i * STEP + WINDOW - 1
            f.write(f"float {last} " + " ".join(f"{v:.5g}" for v in e_f) + "\n")
            f.write(f"int8 {last} " + " ".join(str(int(v)) for v in e_q) + "\n")


def speech_split(data):
    """Calibration: the read speech (speech/) and speech_l2's adults; held out: speech_l2's
    children, never used for calibration."""
    speakers = {}
    with open(os.path.join(data, "speech_l2", "speakers.tsv")) as f:
        next(f)
        for line in f:
            spk, _, age, _ = line.rstrip("\n").split("\t")
            speakers[spk] = int(age)
    l2 = sorted(glob.glob(os.path.join(data, "speech_l2", "*", "*.flac")))
    child = [p for p in l2 if speakers[os.path.basename(os.path.dirname(p))] < 16]
    adult = [p for p in l2 if p not in set(child)]
    return dict(calibration=sorted(glob.glob(os.path.join(data, "speech", "*.flac"))) + adult,
                held_out=child)


def report(errors, cosines):
    per_band = np.abs(errors).mean(axis=0)
    print(f"mel, device vs graph, dB: mean |error| per band max {per_band.max():.3f} "
          f"(band {per_band.argmax()}), 99th percentile {np.percentile(np.abs(errors), 99):.3f}, "
          f"max {np.abs(errors).max():.3f} over {len(errors)} frames")
    print(f"embedding cosine int8 vs float: mean {cosines.mean():.4f}, "
          f"1st percentile {np.percentile(cosines, 1):.4f}, min {cosines.min():.4f} "
          f"over {len(cosines)} embeddings")


if __name__ == "__main__":
    main()
