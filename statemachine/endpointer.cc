#include "statemachine/endpointer.h"

#include "audio/format.h"

namespace earshot::statemachine {

EndpointConfig EndpointConfig::FromConfig(const config::Config& config) {
  EndpointConfig c;
  c.endpoint_silence_frames = audio::MsToFrames(config.Int("stt.endpoint_silence_ms"));
  c.max_utterance_frames = audio::MsToFrames(config.Int("stt.max_utterance_ms"));
  c.no_speech_timeout_frames = audio::MsToFrames(config.Int("stt.no_speech_timeout_ms"));
  return c;
}

void Endpointer::Start() {
  frames_ = 0;
  silence_run_ = 0;
  heard_speech_ = false;
}

EndReason Endpointer::Push(bool speech) {
  ++frames_;
  if (speech && frames_ > config_.trail_frames) {
    heard_speech_ = true;
    silence_run_ = 0;
  } else if (!speech) {
    ++silence_run_;
  }
  if (heard_speech_ && silence_run_ >= config_.endpoint_silence_frames) return EndReason::kSilence;
  if (frames_ >= config_.max_utterance_frames) return EndReason::kMaxLength;
  if (!heard_speech_ && frames_ >= config_.no_speech_timeout_frames) return EndReason::kNoSpeech;
  return EndReason::kNone;
}

}  // namespace earshot::statemachine
