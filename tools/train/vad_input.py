"""The VAD's input transform, in integer arithmetic, exactly as models/vad/vad_input.cc computes it.
Keep the two in step: tests/vad_test.cc checks the C++ side against vectors this file produced.

Per frame, from the front end's log-mel x[b] (int16, dB Q8):
  noise floor per band (Q8): falls fast toward x (d >> 2), rises slowly (min(d, 32) >> 3: at most
  4/256 dB per frame, 1.6 dB/s), started at the first frame;
  snr[b] = clamp(x[b] - floor[b], 0, 40 dB) >> 7       (0.5 dB units, 0..80)
  energy = clamp((sum_b x[b] * 205 >> 13) >> 8 + 100, 0, 100)   (mean band level, 1 dB units
           above -100 dBFS; 205 / 2^13 = 1/40 within 0.1%)
The model reads the 41 values of the frames at CONTEXT offsets around the scored frame.
"""
import numpy as np

BANDS = 40
WIDTH = BANDS + 1
CONTEXT = (-12, -8, -4, -2, 0, 2, 4)  # frames; the score of frame t is known at frame t + 4



def frame_inputs(logmel):
    """(n, 40) int16 log-mel -> (n, 41) int8 per-frame VAD inputs."""
    x = logmel.astype(np.int64)
    n = len(x)
    out = np.zeros((n, WIDTH), dtype=np.int8)
    floor = x[0].copy() if n else None
    for t in range(n):
        d = x[t] - floor
        floor = floor + np.where(d < 0, d >> 2, np.minimum(d, 32) >> 3)
        snr = np.clip(x[t] - floor, 0, 40 * 256) >> 7
        energy = np.clip(((x[t].sum() * 205) >> 13 >> 8) + 100, 0, 100)
        out[t, :BANDS] = snr
        out[t, BANDS] = energy
    return out


def stack_context(inputs, context=CONTEXT):
    """(n, width) per-frame inputs -> (n, width * len(context)) model inputs, the frames at the
    context offsets of each; frames outside the stream read as zeros (as the device does before
    the first frame and after the last). The keyword spotter's rows (kws_input) are stacked here too."""
    n, width = inputs.shape
    before, after = max(-min(context), 0), max(max(context), 0)
    padded = np.zeros((before + n + after, width), dtype=np.int8)
    padded[before:before + n] = inputs
    return np.concatenate([padded[before + off:before + off + n] for off in context], axis=1)
