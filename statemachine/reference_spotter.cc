#include "statemachine/reference_spotter.h"

#include <algorithm>

namespace earshot::statemachine {

ReferenceSpotter::ReferenceSpotter(std::unique_ptr<features::FrontEnd> front_end,
                                   std::shared_ptr<const kws::KeywordSet> keywords,
                                   const kws::KwsConfig& config)
    : front_end_(std::move(front_end)),
      session_(keywords, config),
      over_(keywords->keywords().size(), std::vector<int64_t>(kHistory, -1)) {}

void ReferenceSpotter::Restart() {
  front_end_->Reset();
  session_.Reset();
  const audio::Frame silence{};
  for (int i = 0; i < kWarmFrames; ++i) {
    front_end_->Process(silence);
    session_.Process(front_end_->logmel_db_q8());
  }
}

void ReferenceSpotter::Push(int64_t frame, const audio::Frame& played,
                            std::span<const kws::WakeDetector> mic_detectors) {
  if (frame != next_frame_) Restart();
  next_frame_ = frame + 1;
  front_end_->Process(played);
  session_.Process(front_end_->logmel_db_q8());
  const std::span<const uint16_t> scores = session_.scores();
  for (size_t k = 0; k < over_.size() && k < mic_detectors.size(); ++k) {
    const bool over = scores[k] * 100 >= mic_detectors[k].threshold_q15() * kThresholdPercent;
    over_[k][static_cast<size_t>(frame % kHistory)] = over ? frame : -1;
  }
}

bool ReferenceSpotter::Said(size_t k, int64_t frame, int delay_frames) const {
  if (k >= over_.size()) return false;
  const int64_t end = frame - delay_frames;
  for (int64_t f = std::max<int64_t>(0, end - kBeforeFrames); f <= end + kAfterFrames; ++f) {
    if (over_[k][static_cast<size_t>(f % kHistory)] == f) return true;
  }
  return false;
}

}  // namespace earshot::statemachine
