"""Data helpers shared by the training scripts: file lists, a seeded dev split, noise (recorded and
synthetic), room impulse responses."""
import hashlib
import os
import re

import numpy as np

import audio_io


def list_audio(root, sub):
    out = []
    for dirpath, _, files in os.walk(os.path.join(root, sub)):
        out += [os.path.join(dirpath, f) for f in files if f.endswith(audio_io.AUDIO)]
    return sorted(out)


def holds(text, phrase_words):
    """Whether `text` says the words `phrase_words` in a row (never for no words)."""
    words = re.findall(r"[a-z']+", text.lower())
    n = len(phrase_words)
    return n > 0 and any(words[i:i + n] == phrase_words for i in range(len(words) - n + 1))


def read_speech(data, sub, phrase_words):
    """The files of a read-speech folder whose transcript does not hold the phrase."""
    skip = set()
    with open(os.path.join(data, sub, "transcripts.tsv")) as f:
        for line in f:
            utt, text = line.rstrip("\n").split("\t", 1)
            if holds(text, phrase_words):
                skip.add(utt)
    return [f for f in list_audio(data, sub) if os.path.splitext(os.path.basename(f))[0] not in skip]


def is_dev(path):
    """About one file in ten, by a hash of its name: the training script's own validation split."""
    return int(hashlib.sha1(os.path.basename(path).encode()).hexdigest()[:8], 16) % 10 == 0


def unit_rms(x):
    return x / (np.sqrt(np.mean(x * x)) + 1e-9)


class NoiseBank:
    """Unit-RMS noise signals: the shared recordings and synthetic kinds a device meets; a
    `transient_share` of them synthetic clatter (_transients)."""

    def __init__(self, data, rng, transient_share=0.0):
        self.rng = rng
        self.transient_share = transient_share
        self.recordings = []
        for path in list_audio(data, "noise"):
            x = audio_io.read_audio(path).astype(np.float64)
            self.recordings.append(unit_rms(x))

    def _colored(self, n, exponent):
        spec = np.fft.rfft(self.rng.standard_normal(n))
        f = np.arange(len(spec))
        spec[1:] /= f[1:] ** (exponent / 2)
        spec[0] = 0
        return np.fft.irfft(spec, n)

    def _tones(self, n, base_hz, harmonics):
        t = np.arange(n) / audio_io.SR
        return sum(self.rng.uniform(0.2, 1) * np.sin(2 * np.pi * base_hz * k * t + self.rng.uniform(0, 6))
                   for k in range(1, harmonics + 1))

    def _music(self, n):
        x = np.zeros(n)
        pos = 0
        while pos < n:
            length = int(self.rng.uniform(0.15, 0.8) * audio_io.SR)
            seg = np.zeros(length)
            for _ in range(self.rng.integers(1, 4)):
                note = 55 * 2 ** (self.rng.integers(12, 60) / 12)
                seg += self._tones(length, note, int(self.rng.integers(1, 6)))
            seg *= np.exp(-np.arange(length) / (length / self.rng.uniform(1, 4)))
            x[pos:pos + length] += seg[:n - pos]
            pos += length
        return x

    def _transients(self, n):
        """Clatter, knocks and ringing (dishes, cutlery, doors, keys): decaying bursts at random
        times, 20 dB apart at most, over a noise floor 5-25 dB under them."""
        x = unit_rms(self._colored(n, self.rng.choice([0.0, 1.0]))) * 10 ** (self.rng.uniform(-25, -5) / 20)
        rate = self.rng.uniform(1, 12)  # bursts per second
        start = 0
        while True:
            start += int(self.rng.exponential(audio_io.SR / rate))
            if start >= n:
                return x
            m = min(n - start, int(self.rng.uniform(0.02, 0.4) * audio_io.SR))
            t = np.arange(m) / audio_io.SR
            if self.rng.uniform() < 0.5:  # a knock: a noise burst
                burst = unit_rms(self._colored(m, self.rng.choice([0.0, 1.0]))) * np.sqrt(2)
            else:  # a ring: a few inharmonic partials
                burst = sum(np.sin(2 * np.pi * self.rng.uniform(500, 7000) * t + self.rng.uniform(0, 6))
                            for _ in range(self.rng.integers(2, 6)))
            decay = np.exp(-t / self.rng.uniform(0.003, 0.1))
            x[start:start + m] += burst * decay * 10 ** (self.rng.uniform(-20, 0) / 20)

    def sample(self, n):
        if self.transient_share and self.rng.uniform() < self.transient_share:
            return unit_rms(self._transients(n))
        kind = self.rng.integers(0, 8)
        if kind <= 2:
            rec = self.recordings[self.rng.integers(0, len(self.recordings))]
            start = self.rng.integers(0, len(rec))
            x = np.take(rec, np.arange(start, start + n), mode="wrap")
        elif kind == 3:
            x = self._colored(n, self.rng.choice([0.0, 1.0, 2.0]))  # white, pink, brown
        elif kind == 4:
            x = self._colored(n, 1.0) + self._colored(n, 0.0) * 0.3
        elif kind == 5:
            x = self._tones(n, self.rng.uniform(100, 2000), int(self.rng.integers(1, 4)))
        elif kind == 6:
            x = self._tones(n, self.rng.choice([50.0, 60.0]), 8)  # mains hum
        else:
            x = self._music(n)
        return unit_rms(x)


def active_power(x):
    p = audio_io.frame_power(x)
    return p[p > p.max() * 1e-3].mean() if p.max() > 0 else 0.0


def read_rirs(data):
    """The rir/ impulse responses, each scaled to unit energy."""
    rirs = []
    for path in list_audio(data, "rir"):
        h = audio_io.read_audio(path).astype(np.float64)
        rirs.append(h / np.sqrt(np.sum(h * h)))
    return rirs


def microphone(x, rng):
    """x through a random microphone and channel: a Butterworth-shaped low-pass (cutoff 1-6 kHz,
    log-uniform; order 1-4) and high-pass (50-400 Hz; order 1-2), zero phase (FFT magnitudes):
    muffled, small or distant microphones that cut the consonants' band."""
    spec = np.fft.rfft(x)
    f = np.maximum(np.fft.rfftfreq(len(x), 1 / audio_io.SR), 1e-3)
    low = np.exp(rng.uniform(np.log(1000), np.log(6000)))
    high = np.exp(rng.uniform(np.log(50), np.log(400)))
    gain = 1 / np.sqrt(1 + (f / low) ** (2 * rng.integers(1, 5)))
    gain /= np.sqrt(1 + (high / f) ** (2 * rng.integers(1, 3)))
    return np.fft.irfft(spec * gain, len(x))


def reverberate(x, h):
    """x convolved with the impulse response h (FFT), keeping a quarter of the tail."""
    n_fft = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    return np.fft.irfft(np.fft.rfft(x, n_fft) * np.fft.rfft(h, n_fft), n_fft)[:len(x) + len(h) // 4]


def device_channel(x, rng):
    """x as a device's own microphone and codec deliver it, each part on its own share of the calls:
    a band limit (a steep low-pass at 3-8 kHz with nothing above, as an 8 kHz codec or a cheap
    MEMS microphone's anti-aliasing gives; 70%), mains hum (50 or 60 Hz and its harmonics, 45-25 dB
    under the signal; 35%), automatic gain control (slow level changes of up to +-8 dB; 35%),
    clipping (the peaks 0-6 dB over full scale; 15%) and codec noise (8-bit mu-law; 20%)."""
    x = x.copy()
    if rng.uniform() < 0.7:
        spec = np.fft.rfft(x)
        f = np.fft.rfftfreq(len(x), 1 / audio_io.SR)
        cut = rng.uniform(3000, 8000)
        spec *= np.clip((cut - f) / 150 + 0.5, 0, 1)  # 150 Hz transition, then nothing
        x = np.fft.irfft(spec, len(x))
    rms = np.sqrt(np.mean(x * x)) + 1e-9
    if rng.uniform() < 0.35:
        t = np.arange(len(x)) / audio_io.SR
        base = rng.choice([50.0, 60.0])
        hum = sum(rng.uniform(0.1, 1) / k * np.sin(2 * np.pi * base * k * t + rng.uniform(0, 6))
                  for k in range(1, 8))
        x = x + unit_rms(hum) * rms * 10 ** (-rng.uniform(25, 45) / 20)
    if rng.uniform() < 0.35:
        knots = rng.uniform(-8, 8, size=max(2, int(len(x) / audio_io.SR / rng.uniform(0.3, 2)) + 2))
        gain_db = np.interp(np.arange(len(x)), np.linspace(0, len(x), len(knots)), knots)
        x = x * 10 ** (gain_db / 20)
    if rng.uniform() < 0.15:
        peak = np.abs(x).max() + 1e-9
        x = np.clip(x * 32767 * 10 ** (rng.uniform(0, 6) / 20) / peak, -32767, 32767)
    if rng.uniform() < 0.2:
        peak = np.abs(x).max() + 1e-9
        y = np.sign(x) * np.log1p(255 * np.abs(x) / peak) / np.log(256)  # mu-law, 8 bits
        y = np.round(y * 127) / 127
        x = np.sign(y) * (256 ** np.abs(y) - 1) / 255 * peak
    return x
