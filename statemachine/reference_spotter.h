// ReferenceSpotter: the keywords said by the device's own playback. A podcast or the device's own
// answer that says the wake word reaches the microphone too, and what the echo canceller leaves
// of it can still wake the device; the same keyword spotter over the reference (what was played,
// clean) hears it there first or at once, so a wake the playback also said within a short window
// is the playback's, not a person's. Runs on every reference frame while something plays; holds
// nothing of the microphone.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "audio/format.h"
#include "features/front_end.h"
#include "models/kws/detector.h"
#include "models/kws/keyword_set.h"

namespace earshot::statemachine {

class ReferenceSpotter {
 public:
  // A wake ending at stream frame f, the echo `delay` frames behind what was played, is the
  // playback's when the playback held that keyword over its threshold at a frame in
  // [f - delay - kBeforeFrames, f - delay + kAfterFrames]: where its copy of the word ended.
  static constexpr int64_t kBeforeFrames = 50;
  static constexpr int64_t kAfterFrames = 10;
  static constexpr int32_t kThresholdPercent = 75;

  ReferenceSpotter(std::unique_ptr<features::FrontEnd> front_end,
                   std::shared_ptr<const kws::KeywordSet> keywords, const kws::KwsConfig& config);

  // The reference frame played with stream frame `frame` (frames ascend; after a gap the spotter
  // starts afresh); `mic_detectors`: each keyword's on the microphone, of whose threshold
  // the playback's copy needs kThresholdPercent (the loudspeaker and the room change a word: its
  // clean copy can score lower than its echo; music's clean copy reaches half).
  void Push(int64_t frame, const audio::Frame& played,
            std::span<const kws::WakeDetector> mic_detectors);
  // Whether the playback said keyword `k` where a wake ending at stream frame `frame` came from.
  bool Said(size_t k, int64_t frame, int delay_frames) const;

 private:
  // A fresh start: the spotter's history filled with silence first. An empty history reads as
  // loud (0 dB log-mel) to the keyword model, whose scores are then off for its first second.
  void Restart();
  static constexpr int kWarmFrames = 100;

  std::unique_ptr<features::FrontEnd> front_end_;
  kws::KeywordSetSession session_;
  int64_t next_frame_ = -1;  // the frame Push expects; another one restarts
  // Per keyword, a ring of the frames at or over its threshold: over_[k][frame % kHistory].
  static constexpr int64_t kHistory = 256;  // the pre-roll a late spotter reads, and more
  std::vector<std::vector<int64_t>> over_;
};

}  // namespace earshot::statemachine
