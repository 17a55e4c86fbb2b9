// WakeDetector: turns the keyword spotter's per-hop scores into wake words. The model's score rises
// while the keyword is still being said (it was trained on the keyword's end, and the hops before
// it were left unscored), so the first hop over the threshold is too early to start the request:
// the detector waits for the run of hops at or above the threshold to end (or for max_hold_frames)
// and reports the run's last hop as the keyword's end, with the run's peak score and its hops over
// the threshold (a second stage weighs how long the spotter held the keyword). A dip under the
// threshold of at most gap_frames does not end the run (the score can waver inside the keyword).
// After a wake, none for refractory_frames. Frames are stream indices, so the refractory period
// holds across the cascade's gating of the keyword spotter.
#pragma once

#include <cstdint>
#include <optional>

#include "models/kws/kws.h"

namespace earshot::kws {

class WakeDetector {
 public:
  explicit WakeDetector(const KwsConfig& config) : config_(config) {}

  // The score (Q15) of stream frame `frame`; frames ascend.
  std::optional<Wake> Push(int64_t frame, uint16_t score_q15);
  // The run in progress, as if its score had fallen now (the speech ended); none if there is none.
  std::optional<Wake> Flush();
  // The first hop of the run over the threshold in progress (Push has not ended it yet), -1: none.
  int64_t run_start() const { return run_start_; }
  // The last wake was none after all (a second stage rejected it): no refractory period after it.
  void Rejected() { last_wake_ = previous_wake_; }
  // A new threshold (a sensitivity set at run time) from the next Push on; a run in progress
  // goes on under it.
  void set_threshold_q15(int32_t threshold_q15) { config_.threshold_q15 = threshold_q15; }
  int32_t threshold_q15() const { return config_.threshold_q15; }

 private:
  Wake EndRun();
  KwsConfig config_;
  int64_t run_start_ = -1;  // first hop of the run over the threshold, -1: none
  int64_t run_last_ = -1;
  uint16_t peak_q15_ = 0;
  int run_hops_ = 0;
  int64_t last_wake_ = INT64_MIN / 2;
  int64_t previous_wake_ = INT64_MIN / 2;  // last_wake_ before the last wake
};

}  // namespace earshot::kws
