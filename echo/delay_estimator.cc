#include "echo/delay_estimator.h"

#include <algorithm>
#include <cmath>

namespace earshot::echo {

float FrameDb(const audio::Frame& frame) {
  int64_t sum = 0;
  for (int16_t s : frame) sum += static_cast<int64_t>(s) * s;
  const double mean = static_cast<double>(sum) / audio::kFrameSamples / (32768.0 * 32768.0);
  return static_cast<float>(std::max(-100.0, 10.0 * std::log10(mean + 1e-10)));
}

DelayEstimator::DelayEstimator(const DelayEstimatorConfig& config)
    : config_(config),
      reference_(static_cast<size_t>(config.window_frames + config.max_delay_frames)),
      microphone_(reference_.size()) {}

void DelayEstimator::Reset() {
  std::fill(reference_.begin(), reference_.end(), 0.0f);
  std::fill(microphone_.begin(), microphone_.end(), 0.0f);
  pos_ = 0;
  delay_frames_ = 0;
  found_ = false;
}

bool DelayEstimator::Push(const audio::Frame& reference, const audio::Frame& microphone) {
  const float ref_db = FrameDb(reference), mic_db = FrameDb(microphone);
  const size_t slot = static_cast<size_t>(pos_ % static_cast<int64_t>(reference_.size()));
  // Changes, not levels: a loud steady passage says nothing of the lag; its onsets do. Changes
  // out of silence are capped so that a start does not outweigh the rest of the window.
  reference_[slot] = std::clamp(ref_db - last_reference_db_, -20.0f, 20.0f);
  microphone_[slot] = std::clamp(mic_db - last_microphone_db_, -20.0f, 20.0f);
  last_reference_db_ = ref_db;
  last_microphone_db_ = mic_db;
  ++pos_;
  if (pos_ < static_cast<int64_t>(reference_.size()) || pos_ % config_.update_frames != 0) {
    return false;
  }
  const int before = delay_frames_;
  const bool was_found = found_;
  Search();
  return found_ != was_found || delay_frames_ != before;
}

float DelayEstimator::Correlation(int lag) const {
  const int64_t n = static_cast<int64_t>(reference_.size());
  double dot = 0.0, mic_energy = 0.0, ref_energy = 0.0;
  for (int64_t k = pos_ - config_.window_frames; k < pos_; ++k) {
    const float m = microphone_[static_cast<size_t>(k % n)];
    const float r = reference_[static_cast<size_t>((k - lag) % n)];
    dot += static_cast<double>(m) * r;
    mic_energy += static_cast<double>(m) * m;
    ref_energy += static_cast<double>(r) * r;
  }
  if (mic_energy <= 0.0 || ref_energy <= 0.0) return 0.0f;
  return static_cast<float>(dot / std::sqrt(mic_energy * ref_energy));
}

void DelayEstimator::Search() {
  int best_lag = 0;
  float best = -1.0f;
  for (int lag = 0; lag <= config_.max_delay_frames; ++lag) {
    const float c = Correlation(lag);
    if (c > best) {
      best = c;
      best_lag = lag;
    }
  }
  if (best < config_.min_correlation) return;  // keep what is in use
  if (found_ && best_lag != delay_frames_ &&
      best < Correlation(delay_frames_) + config_.switch_margin) {
    return;
  }
  delay_frames_ = best_lag;
  found_ = true;
}

}  // namespace earshot::echo
