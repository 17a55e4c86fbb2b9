#!/usr/bin/python3
"""Echo scenes (issue 80): a person across the room says the wake word while the device plays music
or speech through its own loudspeaker, a few centimetres from its microphone. Seeded; any folders.

Each scene: 8 s of playback (a random stretch of a random file of --playback, sox-readable: OGG,
MP3, FLAC, WAV), the reference as the player sent it; the loudspeaker's output mildly non-linear
(tanh soft clipping) reaching the microphone after a delay of 20-300 ms, directly and through the
room (one impulse response of --rir, 6-14 dB below the direct sound); the person's clip (a random
file of --speech, through another impulse response) starting at 4 s, scaled to each --ser (dB of the
person against the echo over the clip's voiced frames); a noise floor at -70 dBFS. Written per
scene: `ref.wav` (what was played), `mic_<ser>.wav` for each ratio, `clean.wav` (the person alone,
as without playback), `echo.wav` (the playback alone); `scenes.tsv` lists them (scene, person's
file, its start and end in s, playback file, delay ms).

With --request DIR (read speech: audio files and a `transcripts.tsv` of `id<TAB>text`, the shared
data's `speech/`), the person goes on after the wake word, 0.3 s later, with a request: an
utterance of DIR of at most --request-max-s, its text in the output's `requests.tsv` (scene, text);
the scene lasts until 1.5 s after it (echo_requests.py scores the transcripts). The person is then
nearer: the direct sound with the room 6-14 dB below it, as the loudspeaker's path.

usage: tools/eval/echo_scenes.py --speech DIR --playback DIR [--playback DIR ...] --rir DIR
                                 --out DIR [--scenes N] [--seed S] [--ser 0,-5,-10]
                                 [--request DIR [--request-max-s 6]]
"""
import argparse
import functools
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from audio_io import SR, read_audio, write_wav  # noqa: E402
SECONDS = 8.0
PERSON_AT = 4.0
REQUEST_GAP_S = 0.3  # between the wake word and the request
REQUEST_TAIL_S = 1.5  # the scene after the request


def scenes_parser(doc):
    """The arguments of every scorer of the scenes: EARSHOT SCENES_DIR [--keyword K]."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("earshot")
    parser.add_argument("scenes")
    parser.add_argument("--keyword", default="computer")
    return parser


def parse_with_extra(parser, argv):
    """`parser`'s arguments before a `--`, and the `earshot run` arguments after it."""
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    return parser.parse_args(argv), extra


def read_scenes(folder):
    """scenes.tsv's rows, and the signal-to-echo ratios of the scenes' mixes, loudest first."""
    with open(os.path.join(folder, "scenes.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    sers = sorted({name[4:-4] for name in os.listdir(os.path.join(folder, rows[0][0]))
                   if name.startswith("mic_")}, key=float, reverse=True)
    return rows, sers


def read(path):
    """`path` as 16 kHz mono float in [-1, 1) (audio_io's sox reader)."""
    return read_audio(path).astype(np.float64) / 32768.0


def write(path, x):
    write_wav(path, x * 32768.0)


def audio_files(folder):
    found = sorted(p for ext in ("ogg", "mp3", "flac", "wav")
                   for p in glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True))
    if not found:
        sys.exit(f"echo_scenes.py: no audio file (ogg, mp3, flac, wav) under {folder}")
    return found


def rms(x):
    return float(np.sqrt(np.mean(x * x) + 1e-20))


def voiced(x):
    """The samples of `x`'s 10 ms frames within 30 dB of its loudest frame."""
    n = len(x) // 160 * 160
    frames = x[:n].reshape(-1, 160)
    energy = (frames ** 2).mean(axis=1) + 1e-20
    return frames[energy > energy.max() * 1e-3].ravel()


@functools.lru_cache(maxsize=None)
def read_cached(path):
    return read(path).astype(np.float32)


def impulse(path, max_s=1.0):
    """An impulse response from its direct path on, at most `max_s`, unit energy."""
    h = read_cached(path).astype(np.float64)
    h = h[int(np.argmax(np.abs(h))):][:int(max_s * SR)]
    return h / np.sqrt(np.sum(h * h))


def speaker_path(path, rng):
    """The loudspeaker-to-microphone path of a device: the direct sound, a few centimetres, and the
    room's response (`path`'s after its direct sound) 6-14 dB below it."""
    room = impulse(path)
    room[:40] = 0.0  # the room's own direct sound and first 2.5 ms: the device's path has its own
    room /= np.sqrt(np.sum(room * room))
    h = room * 10 ** (-float(rng.uniform(6, 14)) / 20)
    h[0] += 1.0
    return h


def stretch(files, rng, n):
    """A random stretch of `n` samples of a random file (silence skipped), at -20 dBFS RMS."""
    for _ in range(100):
        path = files[rng.integers(len(files))]
        x = read_cached(path)
        if len(x) < n + SR:
            continue
        start = int(rng.integers(0, len(x) - n))
        seg = x[start:start + n]
        if rms(seg) > 1e-3:
            return path, seg.astype(np.float64) / rms(seg) * 0.1
    sys.exit("echo_scenes.py: no playback file holds a long enough stretch of sound")


def requests(folder, max_s):
    """The utterances of `folder`'s transcripts.tsv at most `max_s` long: (path, text) pairs."""
    table = os.path.join(folder, "transcripts.tsv")
    if not os.path.exists(table):
        sys.exit(f"echo_scenes.py: --request {folder}: no transcripts.tsv")
    by_id = {os.path.splitext(os.path.basename(p))[0]: p for p in audio_files(folder)}
    found = []
    with open(table) as f:
        for line in f:
            uid, _, text = line.rstrip("\n").partition("\t")
            if uid in by_id and len(read_cached(by_id[uid])) <= max_s * SR:
                found.append((by_id[uid], text))
    if not found:
        sys.exit(f"echo_scenes.py: --request {folder}: no utterance of at most {max_s:g} s")
    return found


def person_audio(args, rng, speech, asked):
    """The wake word, and after it the request when --request is given: the audio, its source and
    the request's text (or None)."""
    person_path = speech[rng.integers(len(speech))]
    person = read(person_path)
    if not asked:
        return person[:int((SECONDS - PERSON_AT) * SR)], person_path, None
    request_path, text = asked[rng.integers(len(asked))]
    gap = np.zeros(int(REQUEST_GAP_S * SR))
    request = read(request_path)  # at the wake word's level
    request *= rms(voiced(person)) / rms(voiced(request))
    return np.concatenate([person, gap, request]), person_path, text


def scene(k, args, rng, speech, playback, rirs, asked):
    if asked is None:  # the playback drawn first (the scenes of the seeds on record)
        n = int(SECONDS * SR)
        play_path, played = stretch(playback, rng, n)
        person, person_path, text = person_audio(args, rng, speech, asked)
    else:
        person, person_path, text = person_audio(args, rng, speech, asked)
        n = int((PERSON_AT + len(person) / SR + REQUEST_TAIL_S) * SR)
        play_path, played = stretch(playback, rng, n)
    speaker_rir, person_rir = rng.choice(len(rirs), 2, replace=len(rirs) < 2)
    h_speaker = speaker_path(rirs[speaker_rir], rng)
    # With a request the person is nearer, in a furnished room: the direct sound with the room
    # below it, as the loudspeaker's path (a hall's whole tail leaves read speech unrecognisable
    # to the decoder even without playback).
    h_person = speaker_path(rirs[person_rir], rng) if asked else impulse(rirs[person_rir])
    delay = int(rng.integers(20, 301))
    drive = float(rng.uniform(1.0, 2.0))  # the loudspeaker's soft clipping
    out = np.tanh(drive * played) / drive
    echo = np.zeros(n)
    e = np.convolve(out, h_speaker)[:n - delay * SR // 1000]
    echo[delay * SR // 1000:] = e
    voice = np.zeros(n)
    p = np.convolve(person, h_person)[:n - int(PERSON_AT * SR)]
    at = int(PERSON_AT * SR)
    voice[at:at + len(p)] = p
    span = slice(at, at + len(person))
    voice_level = rms(voiced(voice[span]))
    echo_level = rms(echo[span])
    floor = rng.standard_normal(n) * 10 ** (-70 / 20)
    folder = os.path.join(args.out, f"scene_{k:03d}")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "ref.wav"), played)
    mixes = {f"mic_{ser:g}": voice / voice_level * echo_level * 10 ** (ser / 20) + echo
             for ser in args.ser}
    peak = max(np.max(np.abs(m)) for m in mixes.values()) / 0.9
    scale = min(1.0, 1.0 / peak)
    for name, mix in mixes.items():
        write(os.path.join(folder, name + ".wav"), mix * scale + floor)
    # The person as heard without playback, at the level of the loudest-person mix.
    loudest = max(args.ser)
    write(os.path.join(folder, "clean.wav"),
          voice / voice_level * echo_level * 10 ** (loudest / 20) * scale + floor)
    write(os.path.join(folder, "echo.wav"), echo * scale + floor)
    return (f"scene_{k:03d}\t{person_path}\t{PERSON_AT:.2f}\t{PERSON_AT + len(person) / SR:.2f}\t"
            f"{play_path}\t{delay}"), text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speech", required=True)
    parser.add_argument("--playback", required=True, action="append")
    parser.add_argument("--rir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--scenes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ser", default="0,-5,-10",
                        type=lambda s: [float(v) for v in s.split(",")])
    parser.add_argument("--request")
    parser.add_argument("--request-max-s", type=float, default=6.0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    speech = audio_files(args.speech)
    playback = [p for folder in args.playback for p in audio_files(folder)]
    rirs = audio_files(args.rir)
    os.makedirs(args.out, exist_ok=True)
    asked = requests(args.request, args.request_max_s) if args.request else None
    rows = [scene(k, args, rng, speech, playback, rirs, asked) for k in range(args.scenes)]
    with open(os.path.join(args.out, "scenes.tsv"), "w") as f:
        f.write("scene\tperson\tstart_s\tend_s\tplayback\tdelay_ms\n")
        f.write("\n".join(row for row, _ in rows) + "\n")
    if asked:
        with open(os.path.join(args.out, "requests.tsv"), "w") as f:
            f.writelines(f"scene_{k:03d}\t{text}\n" for k, (_, text) in enumerate(rows))
    print(f"echo_scenes.py: {len(rows)} scenes in {args.out}")


if __name__ == "__main__":
    main()
