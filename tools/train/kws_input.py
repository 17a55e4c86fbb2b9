"""The keyword spotter's input transform, in integer arithmetic, exactly as models/kws/kws.cc
computes it (tests/kws_test.cc checks the C++ side against vectors this file produced).

Per frame, from the front end's log-mel x[b] (int16, dB Q8, 40 bands), with the model's transform
(MEAN_SHIFT, STEP_SHIFT, MIN, MAX) = TRANSFORM by default, the model file's kws_transform:
  pooled[p] = (x[2p] + x[2p+1]) >> 1                       (20 bands)
  mean[p]  (Q8) tracks pooled: mean += (pooled - mean) >> MEAN_SHIFT, from the first frame
  input[p] = clamp((pooled - mean) >> STEP_SHIFT, MIN, MAX)
The default, 6, 7, -24, 63: a mean over about 0.64 s, 0.5 dB steps, from 12 dB under it (the
floor hides the noise between the words) to 32 dB over it. The models before it used 8, 7, -64,
63 (a mean over about 2.6 s, +-32 dB).
The model reads the 20 inputs of the frames at its file's context offsets (stacked by
vad_input.stack_context).
A model trained with noise suppression (its file's kws_noise_suppression tensor) reads the log-mel
after the front end's NoiseSuppression (features/noise_suppression.h): `earshot features
--noise-suppression` computes it, as the C++ keyword spotter does before pooling.
"""
import numpy as np

POOLED = 20
MEAN_SHIFT = 6
STEP_SHIFT = 7
TRANSFORM = [MEAN_SHIFT, STEP_SHIFT, -24, 63]


def mel_args(noise_suppression):
    """The options of `earshot features` that give the log-mel such a model reads."""
    return ("--noise-suppression",) if noise_suppression else ()


def frame_inputs(logmel, transform=TRANSFORM):
    mean_shift, step_shift, lo, hi = transform
    x = logmel.astype(np.int64)
    pooled = (x[:, 0::2] + x[:, 1::2]) >> 1
    out = np.zeros((len(x), POOLED), dtype=np.int8)
    mean = pooled[0].copy() if len(x) else None
    for t in range(len(x)):
        mean = mean + ((pooled[t] - mean) >> mean_shift)
        out[t] = np.clip((pooled[t] - mean) >> step_shift, lo, hi)
    return out
