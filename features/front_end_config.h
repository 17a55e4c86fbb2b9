// FrontEndConfig: the parameters of the log-mel / MFCC front end, shared by the fixed-point path,
// the float reference and every model file (a model states the config it was trained on).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace earshot::features {

enum class MeanNorm { kNone, kRunning };
// The mel scale the band edges are equally spaced on: HTK's (2595 log10(1 + f / 700)) or Slaney's
// (Auditory Toolbox, librosa's default: linear below 1000 Hz, logarithmic above).
enum class MelScale { kHtk, kSlaney };
// The triangles' height: peak weight 1, or area-normalised (weights times 2 / (right - left) Hz,
// librosa's norm="slaney"), which LogScale applies as a per-band dB offset.
enum class MelNorm { kPeak, kArea };
// What 0 dB is: the band energy of a full-scale sine at a bin centre under a weight of 1, or a
// power of 1 in int16 units (|X|^2 of the unnormalised DFT of int16-valued samples times the
// window).
enum class LogReference { kFullScale, kInt16Power };

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
  int log_floor_db = -100;     // log-mel floor in dB re log_reference (-127 dBFS: near int16's
                               // last bit)
  MelScale mel_scale = MelScale::kHtk;
  MelNorm mel_norm = MelNorm::kPeak;
  LogReference log_reference = LogReference::kFullScale;
  bool dc_removal = true;  // false: no high-pass (DcPreEmphasis only scales to Q8)
  // NoiseSuppression on the log-mel: speech-to-text's cepstra, `earshot features
  // --noise-suppression` (keyword models trained on it apply it in their own session).
  bool noise_suppression = false;

  int window_samples() const { return sample_rate_hz * window_ms / 1000; }
  int hop_samples() const { return sample_rate_hz * hop_ms / 1000; }

  // Explains the first impossible setting, with its unit.
  Status Validate() const;
};

// `config` with the settings of `settings`, "KEY=VALUE[,KEY=VALUE...]" (keys: window_ms, fft_size,
// mel_bands, mel_low_hz, mel_high_hz, mfcc_count and lifter, integers; mean_norm, none|running),
// validated: the front ends a model might be trained on (`earshot features --front-end`). The
// device runs the defaults above, which every bundled model states.
Result<FrontEndConfig> WithSettings(FrontEndConfig config, std::string_view settings);

// The log-mel of Google's speech embedding (openWakeWord's melspectrogram.onnx, which the
// embedding model reads): 32 Slaney bands over 60-3800 Hz, area-normalised, 10 log10 of the power
// of int16-valued samples under a 400-sample periodic Hann window (512-point FFT), no DC removal,
// no pre-emphasis. One difference: the graph floors each chunk at its max - 80 dB; a stream has no
// chunk, so this floors at a fixed 0 dB instead (a power of 1 in int16 units; real audio, even
// a quiet room, stays above ~20 dB, so only digital silence and near-silence reach it).
FrontEndConfig EmbeddingFrontEndConfig();

}  // namespace earshot::features
