// Endpointer: when a request after the wake word is over, from the VAD's per-frame decisions.
// It ends after endpoint_silence_ms of silence once speech was heard, at max_utterance_ms in any
// case, and after no_speech_timeout_ms if no speech came at all. Pure: frames in, a verdict out.
#pragma once

#include <cstdint>

#include "config/config.h"

namespace earshot::statemachine {

// From the options table's stt.endpoint_silence_ms, stt.max_utterance_ms and
// stt.no_speech_timeout_ms (FromConfig), which hold the defaults.
struct EndpointConfig {
  int endpoint_silence_frames = 0;
  int max_utterance_frames = 0;
  int no_speech_timeout_frames = 0;
  // Speech in the first frames after the start is the keyword's trail (the VAD model's look back,
  // its smoothing and its hangover), not the request: it counts only if it goes on past them.
  int trail_frames = 0;
  static EndpointConfig FromConfig(const config::Config& config);
};

enum class EndReason { kNone, kSilence, kMaxLength, kNoSpeech };

class Endpointer {
 public:
  explicit Endpointer(const EndpointConfig& config) : config_(config) {}

  void Start();                 // at the wake word
  EndReason Push(bool speech);  // one 10 ms frame's VAD decision
  int64_t frames() const { return frames_; }
  bool heard_speech() const { return heard_speech_; }

 private:
  EndpointConfig config_;
  int64_t frames_ = 0;
  int silence_run_ = 0;
  bool heard_speech_ = false;
};

}  // namespace earshot::statemachine
