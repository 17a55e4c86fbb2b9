#!/usr/bin/python3
"""Test vectors for the keyword spotter: reads a model file, runs the integer reference of
kws_input.py and vad_export.run_int on the log-mel of a keyword clip in noise, and writes, per hop,
the 40 log-mel values | the 20 inputs | the score (tests/kws_test.cc checks the C++ against them).

usage: tools/train/make_kws_vectors.py [--model models/kws/computer.eshm] [--out tests/data/kws_vectors.txt]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio_io  # noqa: E402
import kws_input  # noqa: E402
import vad_export  # noqa: E402
import vad_input  # noqa: E402


def main():
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=os.path.join(root, "models", "kws", "computer.eshm"))
    p.add_argument("--out", default=os.path.join(root, "tests", "data", "kws_vectors.txt"))
    p.add_argument("--earshot", default=os.path.join(root, "build", "tools", "earshot"))
    args = p.parse_args()
    tensors = vad_export.read_tensors(args.model)
    q = vad_export.mlp_from_tensors(tensors)
    # The bundled sample (the keyword, then a request) with deterministic noise: 4.5 s, 455 hops.
    x = audio_io.read_audio(os.path.join(root, "tools", "samples", "computer_request.flac")).astype(float)
    x = x + np.random.default_rng(7).normal(0, 30, len(x))
    mel = audio_io.logmel(args.earshot, x)  # what the C++ keyword spotter is fed
    suppressed = "kws_noise_suppression" in tensors and int(tensors["kws_noise_suppression"][0])
    model_mel = audio_io.logmel(args.earshot, x, kws_input.mel_args(suppressed)) if suppressed else mel
    inputs = kws_input.frame_inputs(model_mel, tuple(int(v) for v in tensors["kws_transform"]))
    scores = vad_export.run_int(q, vad_input.stack_context(inputs, q["context"]))
    with open(args.out, "w") as f:
        f.write("# earshot KWS test vectors (tools/train/make_kws_vectors.py): "
                "logmel[40] | inputs[20] | score_q15\n")
        for t in range(len(mel)):
            f.write(" ".join(map(str, mel[t])) + " | " + " ".join(map(str, inputs[t])) + " | " +
                    str(int(scores[t])) + "\n")
    print(f"wrote {args.out}: {len(mel)} hops, max score {scores.max() / 32767:.3f}")


if __name__ == "__main__":
    main()
