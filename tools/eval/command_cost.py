#!/usr/bin/python3
"""The cost of command sets (issue 49): `earshot transcribe --stats` on the same clips with the ten
command words as one set, then with 20 more sets of 10 intents each (generated, seeded: templates
with alternatives, optional words and slot lists of dictionary words), beside them. Reports the
latency after the last frame (median, max; wall and CPU) and the process's peak memory (max RSS)
of each, and their ratios.
Usage: tools/eval/command_cost.py [--data DIR] [--earshot BIN] [--clips DIR] [--sets 20]
       [--intents 10] [--seed 49]   (clips: every .flac under DIR, default DATA/kws/dev)"""
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from audio_io import ROOT, parser  # noqa: E402
import pronounce  # noqa: E402

TEN = os.path.join(ROOT, "tools", "samples", "commands", "ten.commands")
VERBS = ["turn", "switch", "set", "open", "close", "start", "stop", "play", "show", "call"]


def make_set(rng, name, intents, words):
    """A set's text: `intents` intents over random dictionary words."""
    lines = [f"set {name}", "slot thing = " + " | ".join(rng.sample(words, 10)),
             "slot place = " + " | ".join(rng.sample(words, 5))]
    for i in range(intents):
        verb, noun, other = rng.choice(VERBS), rng.choice(words), rng.choice(words)
        lines += [f"intent {name}_{i}",
                  f"  {verb} [the] {{thing}} (in | on){{where}} [the] {{place}}",
                  f"  ({noun} | {other}) {{thing}} [please]"]
    return "\n".join(lines) + "\n"


def run(earshot, sets, clips):
    cmd = [earshot, "transcribe", "--stats", "--set", "stt.commands=" + ",".join(sets)] + clips
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"command_cost: earshot transcribe failed: {done.stderr.strip()[-500:]}")
    stats = json.loads(done.stderr.strip().splitlines()[-1])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    stats["max_rss_mb"] = max(peak, before) / 1024  # the largest child so far: run small first
    return stats


def main():
    p = parser(__doc__)
    p.add_argument("--clips")
    p.add_argument("--sets", type=int, default=20)
    p.add_argument("--intents", type=int, default=10)
    p.add_argument("--seed", type=int, default=49)
    a = p.parse_args()
    folder = a.clips or os.path.join(a.data, "kws", "dev")
    clips = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".flac"))
    rng = random.Random(a.seed)
    words = sorted(w for w in pronounce.load() if re.fullmatch(r"[a-z]{4,8}", w))
    with tempfile.TemporaryDirectory() as tmp:
        sets = []
        for k in range(a.sets):
            sets.append(os.path.join(tmp, f"app{k}.commands"))
            with open(sets[-1], "w") as f:
                f.write(make_set(rng, f"app{k}", a.intents, words))
        ten = run(a.earshot, [TEN], clips)
        many = run(a.earshot, [TEN] + sets, clips)
    for name, s in (("ten words", ten), (f"ten + {a.sets} sets x {a.intents} intents", many)):
        print(f"{name}: latency after the last frame median {s['final_latency_ms']['median']:.1f} "
              f"ms, max {s['final_latency_ms']['max']:.1f} ms (CPU median "
              f"{s['final_latency_cpu_ms']['median']:.1f} ms); load {s['load_s']:.2f} s; "
              f"max RSS {s['max_rss_mb']:.0f} MB")
    ratio = {k: many["final_latency_cpu_ms"][k] / max(1e-9, ten["final_latency_cpu_ms"][k])
             for k in ("median", "max")}
    print(f"ratios ({a.sets} sets / ten words): CPU latency median {ratio['median']:.2f}x, max "
          f"{ratio['max']:.2f}x; max RSS {many['max_rss_mb'] / ten['max_rss_mb']:.2f}x")
    print(json.dumps({"ten": ten, "many": many, "files": len(clips)}))


if __name__ == "__main__":
    main()
