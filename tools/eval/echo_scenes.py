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

usage: tools/eval/echo_scenes.py --speech DIR --playback DIR [--playback DIR ...] --rir DIR
                                 --out DIR [--scenes N] [--seed S] [--ser 0,-5,-10]
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


def scene(k, args, rng, speech, playback, rirs):
    n = int(SECONDS * SR)
    play_path, played = stretch(playback, rng, n)
    person_path = speech[rng.integers(len(speech))]
    person = read(person_path)[:int((SECONDS - PERSON_AT) * SR)]
    speaker_rir, person_rir = rng.choice(len(rirs), 2, replace=len(rirs) < 2)
    h_speaker, h_person = speaker_path(rirs[speaker_rir], rng), impulse(rirs[person_rir])
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
            f"{play_path}\t{delay}")


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
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    speech = audio_files(args.speech)
    playback = [p for folder in args.playback for p in audio_files(folder)]
    rirs = audio_files(args.rir)
    os.makedirs(args.out, exist_ok=True)
    rows = [scene(k, args, rng, speech, playback, rirs) for k in range(args.scenes)]
    with open(os.path.join(args.out, "scenes.tsv"), "w") as f:
        f.write("scene\tperson\tstart_s\tend_s\tplayback\tdelay_ms\n")
        f.write("\n".join(rows) + "\n")
    print(f"echo_scenes.py: {len(rows)} scenes in {args.out}")


if __name__ == "__main__":
    main()
