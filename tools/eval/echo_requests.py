#!/usr/bin/python3
"""The request after the wake word over the device's own playback (issue 80): the word error rate
of the request's final transcript on echo scenes made with `echo_scenes.py --request DIR`, heard
without any playback (`clean.wav`), and at each signal-to-echo ratio without the canceller
(`earshot run` on the microphone) and with it (`run --reference`). A scene whose wake word is
missed counts its request as all deletions, as a user hears it: nothing done. Scored with the
shared scorer (stt_score.py, sclite's costs).

usage: tools/eval/echo_requests.py EARSHOT SCENES_DIR [--keyword computer] [--out DIR]
       [-- EXTRA_RUN_ARGS...]      (a table; the hypotheses in DIR, a temporary folder by default)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from echo_scenes import parse_with_extra, read_scenes, scenes_parser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCORER = os.path.join(os.environ.get("EARSHOT_EVAL_DIR", os.path.join(ROOT, "..", "shared", "eval")),
                      "stt_score.py")


def request_text(earshot, mic, keyword, start, extra, reference=None):
    """The final transcript of the request that `keyword`'s first wake after `start` began, or
    None when it did not wake."""
    cmd = [earshot, "run"] + extra + (["--reference", reference] if reference else [])
    out = subprocess.run(cmd + [mic], check=True, capture_output=True, text=True).stdout
    request = None
    for line in out.splitlines():
        e = json.loads(line)
        if request is None and e.get("event") == "wake" and e.get("keyword") == keyword and \
                e["t"] >= start and e.get("request"):
            request = e["request"]
        elif request is not None and e.get("event") == "transcript" and e.get("final") and \
                e.get("request") == request:
            return e.get("text", "")
    return None


def score(ref, hyps, out, name):
    """WER (%) of `hyps` (scene -> text or None) against `ref`, by the shared scorer."""
    hyp = os.path.join(out, f"{name}.hyp.tsv")
    with open(hyp, "w") as f:
        f.write("id\thyp\n")
        f.writelines(f"{scene}\t{text}\n" for scene, text in hyps.items() if text is not None)
    done = subprocess.run(["/usr/bin/python3", SCORER, "--ref", ref, "--hyp", hyp, f"--name={name}"],
                          check=True, capture_output=True, text=True)
    header, row = (line.split("\t") for line in done.stdout.strip().splitlines()[-2:])
    return float(row[header.index("wer")])


def main():
    parser = scenes_parser(__doc__)
    parser.add_argument("--out")
    args, extra = parse_with_extra(parser, sys.argv[1:])
    ref = os.path.join(args.scenes, "requests.tsv")
    if not os.path.exists(ref):
        sys.exit(f"echo_requests.py: {ref}: missing (make the scenes with echo_scenes.py "
                 "--request DIR)")
    rows, sers = read_scenes(args.scenes)
    conditions = ["clean"] + [f"{s} {how}" for s in sers for how in ("without", "with")]
    hyps = {c: {} for c in conditions}
    for scene, _, start, _, _, _ in rows:
        folder = os.path.join(args.scenes, scene)
        start = float(start)
        played = os.path.join(folder, "ref.wav")
        hyps["clean"][scene] = request_text(args.earshot, os.path.join(folder, "clean.wav"),
                                            args.keyword, start, extra)
        for s in sers:
            mic = os.path.join(folder, f"mic_{s}.wav")
            hyps[f"{s} without"][scene] = request_text(args.earshot, mic, args.keyword, start,
                                                       extra)
            hyps[f"{s} with"][scene] = request_text(args.earshot, mic, args.keyword, start, extra,
                                                    played)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or tmp
        os.makedirs(out, exist_ok=True)
        wer = {c: score(ref, hyps[c], out, "ser_" + c.replace(" ", "_")) for c in conditions}
    n = len(rows)

    def cell(c):
        woke = sum(1 for t in hyps[c].values() if t is not None)
        return f"{wer[c]:.1f}% ({woke} of {n} woke)"
    print(f"{n} requests; WER without playback: {cell('clean')}")
    print("| signal-to-echo | WER without the canceller | WER with it |")
    print("|---|---|---|")
    for s in sers:
        print(f"| {s} dB | {cell(f'{s} without')} | {cell(f'{s} with')} |")


if __name__ == "__main__":
    main()
