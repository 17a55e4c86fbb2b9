// The delay from a playback reference to the microphone that hears it, in whole 10 ms frames:
// the lag at which the frames' energy changes over the last few seconds correlate best.
#pragma once

#include <cstdint>
#include <vector>

#include "audio/format.h"

namespace earshot::echo {

struct DelayEstimatorConfig {
  int max_delay_frames = 30;  // lags 0 .. this (300 ms) are searched
  int window_frames = 150;    // the last 1.5 s of both signals
  int update_frames = 10;     // a search every 100 ms
  // A lag is taken when its normalised correlation reaches this, and replaces the one in use when
  // it beats that lag's own correlation by `switch_margin`.
  float min_correlation = 0.5f;
  float switch_margin = 0.1f;
};

class DelayEstimator {
 public:
  explicit DelayEstimator(const DelayEstimatorConfig& config);

  // One frame of each: the reference as played, the microphone as heard. True when the delay in
  // use changed with this frame.
  bool Push(const audio::Frame& reference, const audio::Frame& microphone);
  int delay_frames() const { return delay_frames_; }
  bool found() const { return found_; }
  void Reset();

 private:
  // The normalised correlation of the microphone's last window with the reference `lag` frames
  // earlier.
  float Correlation(int lag) const;
  void Search();

  DelayEstimatorConfig config_;
  // Rings of the frames' log-energy changes (dB), newest at pos_ - 1.
  std::vector<float> reference_;
  std::vector<float> microphone_;
  float last_reference_db_ = 0.0f;
  float last_microphone_db_ = 0.0f;
  int64_t pos_ = 0;
  int delay_frames_ = 0;
  bool found_ = false;
};

// A frame's energy in dB (full scale 0), floored at -100.
float FrameDb(const audio::Frame& frame);

}  // namespace earshot::echo
