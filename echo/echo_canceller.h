// Acoustic echo cancellation: the microphone's frames with what the device itself played removed,
// given that playback as a reference. speexdsp's adaptive filter (MDF) and its residual-echo
// suppressor do the work; this class delays the reference by the estimated loudspeaker-to-
// microphone delay (delay_estimator.h) and runs them only while the reference carries sound, so
// that a device playing nothing pays nothing and hears its microphone unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "audio/format.h"
#include "base/result.h"
#include "echo/delay_estimator.h"

struct SpeexEchoState_;
struct SpeexPreprocessState_;

namespace earshot::echo {

struct EchoCancellerConfig {
  int filter_ms = 150;      // the echo's tail the adaptive filter spans, from its start
  int lead_frames = 2;      // the filter starts this many frames before the estimated delay
  float sound_db = -60.0f;  // a reference frame above this (dB full scale) carries sound
  int suppress_db = -40;    // residual echo attenuation (speexdsp's; -15 during double talk)
  DelayEstimatorConfig delay;
};

struct EchoStats {
  int64_t frames = 0;          // microphone frames seen
  int64_t active_frames = 0;   // of them, cancelled against a sounding reference
  int64_t delay_changes = 0;   // the estimated delay changed (the filter restarts each time)
  int64_t reference_gaps = 0;  // times the reference was missing while it had been playing
  int delay_ms = 0;            // the delay in use
  bool active = false;         // the last frame was cancelled
};

class EchoCanceller {
 public:
  static Result<std::unique_ptr<EchoCanceller>> Create(const EchoCancellerConfig& config);
  ~EchoCanceller();
  EchoCanceller(const EchoCanceller&) = delete;
  EchoCanceller& operator=(const EchoCanceller&) = delete;

  // The next frame of both: `microphone` becomes the microphone less the echo of `reference`.
  void Process(const audio::Frame& reference, audio::Frame& microphone);
  // The next frame had no reference (a player that stalled or ended): the microphone passes
  // unchanged, and the reference's history is let go.
  void ProcessWithoutReference();
  const EchoStats& stats() const { return stats_; }

 private:
  EchoCanceller(const EchoCancellerConfig& config, SpeexEchoState_* echo,
                SpeexPreprocessState_* preprocess);
  // The reference `lag` frames before the newest one pushed (silence before the first).
  const audio::Frame& Delayed(int lag) const;
  int FilterLag() const;

  EchoCancellerConfig config_;
  SpeexEchoState_* echo_;
  SpeexPreprocessState_* preprocess_;
  DelayEstimator estimator_;
  std::vector<audio::Frame> history_;  // the reference's last frames, a ring
  int64_t pushed_ = 0;
  int64_t last_sound_ = -1;  // index of the newest reference frame with sound; -1: none yet
  int hold_frames_;          // active this long after the reference's last sound
  EchoStats stats_;
};

}  // namespace earshot::echo
