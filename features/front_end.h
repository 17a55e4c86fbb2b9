// FrontEnd: the fixed-point log-mel / MFCC front end every model reads (on the device and in
// training). It only chains the stages; each stage file documents its Q-formats and headroom.
//
//   int16 hop (10 ms) -> DcPreEmphasis (Q8) -> frame history (window_ms) -> Window + block scaling
//   -> RealFft -> MelFilterbank (power, Q15 weights) -> LogScale (dB Q8) -> NoiseSuppression
//   (optional) -> Dct (+lifter) (Q8) -> RunningMeanNorm (optional)
//
// One frame per hop: frame k is the window that ends with hop k (the stream starts from zeros).
// The config chooses the mel scale, the band normalisation, the dB reference and whether DC is
// removed; EmbeddingFrontEndConfig() is the speech embedding's log-mel on these same stages.
// Create allocates; Process never does. Integer arithmetic only on the per-frame path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "base/result.h"
#include "features/dc_preemphasis.h"
#include "features/dct.h"
#include "features/front_end_config.h"
#include "features/log_scale.h"
#include "features/mean_norm.h"
#include "features/mel_filterbank.h"
#include "features/noise_suppression.h"
#include "features/real_fft.h"
#include "features/window.h"

namespace earshot::features {

class FrontEnd {
 public:
  static Result<std::unique_ptr<FrontEnd>> Create(const FrontEndConfig& config);

  // One hop of config.hop_samples() int16 samples; updates logmel_db_q8() and mfcc_q8().
  void Process(std::span<const int16_t> hop);
  void Reset();

  // dB re config().log_reference (full scale by default), Q8
  std::span<const int16_t> logmel_db_q8() const { return logmel_db_q8_; }
  // dB units, Q8. Without mean normalisation the DCT runs here, on the first call after a frame,
  // not in Process: the daemon's models read only the log-mel, and an idle stream would spend a
  // tenth of its front end on cepstra nobody reads. Same values either way; like Process, not
  // for two threads at once.
  std::span<const int32_t> mfcc_q8() const;
  const FrontEndConfig& config() const { return config_; }

 private:
  explicit FrontEnd(const FrontEndConfig& config);

  FrontEndConfig config_;
  DcPreEmphasis emphasis_;
  RealFft fft_;
  Window window_;
  MelFilterbank mel_;
  LogScale log_;
  Dct dct_;
  std::optional<NoiseSuppression> noise_;
  std::optional<RunningMeanNorm> mean_norm_;

  std::vector<int32_t> history_q8_;  // the last window_samples of pre-emphasised audio
  std::vector<int32_t> fft_in_;
  std::vector<ComplexInt32> spectrum_;
  std::vector<uint64_t> mel_energy_;
  std::vector<int16_t> logmel_db_q8_;
  mutable std::vector<int32_t> mfcc_q8_;
  mutable bool mfcc_current_ = true;  // mfcc_q8_ is the DCT of logmel_db_q8_ (or never computed)
  int exponent_ = Window::kSilent;
};

}  // namespace earshot::features
