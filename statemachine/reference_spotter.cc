#include "statemachine/reference_spotter.h"

#include <limits>

namespace earshot::statemachine {

ReferenceSpotter::ReferenceSpotter(std::unique_ptr<features::FrontEnd> front_end,
                                   std::shared_ptr<const kws::KeywordSet> keywords,
                                   const kws::KwsConfig& config)
    : front_end_(std::move(front_end)),
      session_(keywords, config),
      last_over_(keywords->keywords().size(), std::numeric_limits<int64_t>::min() / 2) {}

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
                            std::span<const int32_t> thresholds_q15) {
  if (frame != next_frame_) Restart();
  next_frame_ = frame + 1;
  front_end_->Process(played);
  session_.Process(front_end_->logmel_db_q8());
  const std::span<const uint16_t> scores = session_.scores();
  for (size_t k = 0; k < last_over_.size() && k < thresholds_q15.size(); ++k) {
    if (scores[k] >= thresholds_q15[k]) last_over_[k] = frame;
  }
}

bool ReferenceSpotter::Said(size_t k, int64_t frame) const {
  return k < last_over_.size() && last_over_[k] >= frame - kBeforeFrames &&
         last_over_[k] <= frame + kAfterFrames;
}

}  // namespace earshot::statemachine
