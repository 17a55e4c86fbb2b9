// FrontEndConfig: the parameters of the log-mel / MFCC front end, shared by the fixed-point path,
// the float reference and every model file (a model states the config it was trained on).
#pragma once

#include <string>

#include "base/result.h"

namespace earshot::features {

enum class MeanNorm { kNone, kRunning };

struct FrontEndConfig {
  int sample_rate_hz = 16000;
  int window_ms = 25;          // analysis window (Hann)
  int hop_ms = 10;             // one frame per hop
  int fft_size = 512;
  int mel_bands = 40;
  int mel_low_hz = 20;
  int mel_high_hz = 7600;
  int mfcc_count = 13;
  int lifter = 0;              // cepstral liftering coefficient L (0: off; 22 is usual)
  int dc_pole_q15 = 32604;     // DC-removal pole 0.995 in Q15
  int preemphasis_q15 = 31785; // pre-emphasis 0.97 in Q15 (0: off)
  MeanNorm mean_norm = MeanNorm::kNone;  // cepstral mean normalisation of the MFCCs
  int mean_norm_shift = 7;     // running mean's time constant 2^shift frames (7: 1.28 s)
  int log_floor_db = -100;     // log-mel floor, dB re full scale (-127: near int16's last bit)
  // NoiseSuppression on the log-mel: speech-to-text's cepstra, `earshot features
  // --noise-suppression` (keyword models trained on it apply it in their own session).
  bool noise_suppression = false;

  int window_samples() const { return sample_rate_hz * window_ms / 1000; }
  int hop_samples() const { return sample_rate_hz * hop_ms / 1000; }

  // Explains the first impossible setting, with its unit. (The options table's [features] section
  // binds it: options/stage_options.h.)
  Status Validate() const;
};

}  // namespace earshot::features
