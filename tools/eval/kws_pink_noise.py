#!/usr/bin/python3
"""The shared wake-word protocol with stationary noise: a data folder in which the protocol's four
noise recordings (dishes, exercise bike, miaowing, white) are replaced by seeded pink noise of the
same lengths, everything else linked to the shared data, and a folder of links to the shared
evaluation scripts beside it (whose `../data` is then this one). The held-out protocol mixes with
running water and pink noise (build_eval_audio.py's recipe); this measures the models on that kind
of noise without its recordings. Deterministic.

usage: tools/eval/kws_pink_noise.py OUT
then:  /usr/bin/python3 OUT/eval/build_eval_audio.py --out OUT/evalset --only ww
       EARSHOT_EVAL_DIR=OUT/eval tools/eval/kws_bg10h.py OUT/evalset OUT/bg10h
       KWS_BG_LIST=OUT/bg10h/bg10h.list tools/eval/kws_eval.sh OUT/evalset OUT/large noisy
Environment: EARSHOT_EVAL_DIR, the shared scorer's directory (default ../shared/eval).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL_CODE = os.path.abspath(os.environ.get("EARSHOT_EVAL_DIR", os.path.join(HERE, "..", "..", "..", "shared", "eval")))
sys.path.insert(0, EVAL_CODE)
import build_eval_audio as protocol  # noqa: E402

SEED = 20261124


def pink(rng, n):
    """Gaussian noise with power falling as 1/f (no DC), unit RMS."""
    spec = np.fft.rfft(rng.standard_normal(n))
    spec[1:] /= np.sqrt(np.arange(1, len(spec)))
    spec[0] = 0
    x = np.fft.irfft(spec, n)
    return x / np.sqrt(np.mean(x * x))


def link_all(src, dst, skip):
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        target = os.path.join(dst, name)
        if name not in skip and not os.path.lexists(target):
            os.symlink(os.path.join(src, name), target)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    out = os.path.abspath(sys.argv[1])
    shared_data = os.path.join(os.path.dirname(EVAL_CODE), "data")
    link_all(EVAL_CODE, os.path.join(out, "eval"), skip={"__pycache__"})
    link_all(shared_data, os.path.join(out, "data"), skip={"noise"})
    os.makedirs(os.path.join(out, "data", "noise"), exist_ok=True)
    rng = np.random.default_rng(SEED)
    for name in protocol.LAYOUTS["shared"]["noise"]:
        n = len(protocol.read(os.path.join(shared_data, "noise", name)))
        path = os.path.join(out, "data", "noise", name)
        protocol.write(path, pink(rng, n) * 3000)
        print(f"{path}: pink noise, {n / protocol.SR:.1f} s", flush=True)


if __name__ == "__main__":
    main()
