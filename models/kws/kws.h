// The keyword spotter: an int8 network (models/int8_mlp.h: dense layers, the hidden ones possibly
// convolutions over time) over the front end's log-mel of the context frames its file states (the
// bundled ones: 1.5 s), after an integer transform (optionally the front end's noise
// suppression, features/noise_suppression.h; then bands pooled in pairs, minus a running mean,
// 0.5 dB steps, clamped; the model file states the constants and whether it was trained on
// suppressed noise), scored at every 10 ms hop.
// Trained by tools/train/train_kws.py; kws_input.py there specifies the transform this file
// implements. KwsModel is immutable and shared; KwsSession is one stream's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/result.h"
#include "features/front_end_config.h"
#include "features/noise_suppression.h"
#include "models/context_stack.h"
#include "models/int8_mlp.h"
#include "models/kws/conv_stream.h"

namespace earshot::kws {

struct KwsTransform {
  int32_t mean_shift;  // running band mean: mean += (pooled - mean) >> mean_shift
  int32_t step_shift;  // input = clamp((pooled - mean) >> step_shift, min, max)
  int32_t min, max;
};

class KwsModel {
 public:
  static Result<std::shared_ptr<const KwsModel>> Load(const std::string& path,
                                                      const features::FrontEndConfig& front_end);
  int pooled_bands() const { return pooled_bands_; }
  std::span<const int32_t> context() const { return context_; }
  const KwsTransform& transform() const { return transform_; }
  // The model's inputs are computed from the log-mel after NoiseSuppression (optional tensor
  // `kws_noise_suppression`, int32[1], 1; absent or 0: the log-mel as it is).
  bool noise_suppression() const { return noise_suppression_; }
  int16_t log_floor_db_q8() const { return log_floor_db_q8_; }
  const models::Int8Mlp& mlp() const { return mlp_; }

 private:
  KwsModel(models::Int8Mlp mlp, std::vector<int32_t> context, KwsTransform t, int pooled,
           bool noise_suppression, int16_t log_floor_db_q8)
      : mlp_(std::move(mlp)),
        context_(std::move(context)),
        transform_(t),
        pooled_bands_(pooled),
        noise_suppression_(noise_suppression),
        log_floor_db_q8_(log_floor_db_q8) {}
  models::Int8Mlp mlp_;
  std::vector<int32_t> context_;  // ascending offsets, the last one 0 (no lookahead)
  KwsTransform transform_;
  int pooled_bands_;
  bool noise_suppression_;
  int16_t log_floor_db_q8_;  // the front end's floor, which NoiseSuppression keeps
};

struct KwsConfig {
  std::string keyword = "computer";
  int32_t threshold_q15 = 26214;  // 0.8
  int refractory_frames = 100;    // no second wake within 1 s
  int max_hold_frames = 50;       // a wake at the latest this long after the score crossed
  int gap_frames = 10;            // a dip under the threshold this long does not end the run
  // The score is the mean of the network's last smooth_frames scores (1: none, the raw scores the
  // tests compare; FromConfig reads kws.smooth_ms, by default 50 ms: 5 hops).
  int smooth_frames = 1;
  static Result<KwsConfig> FromConfig(const config::Config& config);
};

struct Wake {
  int64_t frame;  // the hop where the keyword ended
  uint16_t score_q15;
};

class KwsSession {
 public:
  // Only config.smooth_frames matters to a session; detection is WakeDetector's (detector.h).
  KwsSession(std::shared_ptr<const KwsModel> model, const KwsConfig& config);

  // Feeds one frame's log-mel (dB Q8); returns that hop's score (Q15): the mean of the network's
  // scores over the last smooth_frames hops (posterior smoothing), rounded.
  uint16_t Process(std::span<const int16_t> logmel_db_q8);
  uint16_t last_network_score() const;  // the newest hop's score before smoothing
  void Reset();
  std::span<const int8_t> last_inputs() const { return stack_.Newest(); }

 private:
  std::shared_ptr<const KwsModel> model_;
  models::Int8Mlp::Scratch scratch_;
  std::vector<int32_t> mean_q8_;
  bool primed_ = false;
  std::optional<features::NoiseSuppression> noise_;  // if the model says so
  std::vector<int16_t> denoised_q8_;                 // this hop's log-mel after it
  models::ContextStack stack_;
  std::optional<ConvStream> stream_;  // leading convolutions are streamed (conv_stream.h)
  std::vector<uint16_t> recent_q15_;  // the network's last smooth_frames scores, a ring
  int32_t recent_sum_q15_ = 0;
};

}  // namespace earshot::kws
