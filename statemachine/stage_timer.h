// What the Pipeline's two files (pipeline.cc, pipeline_keywords.cc) share: stream times of frames
// and the timer of a stage's counter.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "audio/format.h"
#include "statemachine/pipeline.h"

namespace earshot::statemachine {

inline double StartTime(int64_t k) { return audio::FramesToSeconds(k); }    // frame k's start
inline double EndTime(int64_t k) { return audio::FramesToSeconds(k + 1); }  // frame k's end

// Adds the time from construction to destruction, and one frame unless `frames` is 0 (more work
// on a frame already counted), to a stage's counter; and keeps the longest such time in
// `*longest_ns` if given.
class StageTimer {
 public:
  explicit StageTimer(StageCounter& counter, int frames = 1, int64_t* longest_ns = nullptr)
      : counter_(counter),
        frames_(frames),
        longest_ns_(longest_ns),
        start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start_)
                           .count();
    counter_.nanoseconds += ns;
    counter_.frames += frames_;
    if (longest_ns_ != nullptr) *longest_ns_ = std::max(*longest_ns_, ns);
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  StageCounter& counter_;
  int frames_;
  int64_t* longest_ns_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace earshot::statemachine
