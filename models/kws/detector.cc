#include "models/kws/detector.h"

#include <algorithm>

namespace earshot::kws {

std::optional<Wake> WakeDetector::Push(int64_t frame, uint16_t score_q15) {
  const bool above = score_q15 >= config_.threshold_q15;
  if (run_start_ < 0) {
    if (!above || frame - last_wake_ < config_.refractory_frames) return std::nullopt;
    run_start_ = frame;
    peak_q15_ = 0;
    run_hops_ = 0;
  }
  if (above) {
    run_last_ = frame;
    peak_q15_ = std::max(peak_q15_, score_q15);
    ++run_hops_;
  }
  const bool held_long = frame - run_start_ + 1 >= config_.max_hold_frames;
  const bool dip_over = !above && frame - run_last_ > config_.gap_frames;
  if (!held_long && !dip_over) return std::nullopt;
  return EndRun();
}

std::optional<Wake> WakeDetector::Flush() {
  if (run_start_ < 0) return std::nullopt;
  return EndRun();
}

Wake WakeDetector::EndRun() {
  const int64_t start = run_start_;
  run_start_ = -1;
  previous_wake_ = last_wake_;
  last_wake_ = run_last_;
  return Wake{run_last_, peak_q15_, run_hops_, start};
}

}  // namespace earshot::kws
