// Session: one Wyoming connection's protocol, apart from its socket (the server reads and writes;
// tests and the fuzz target drive it directly). Each audio stream (audio-start .. audio-stop) runs
// a pipeline of its own (statemachine/pipeline.h: VAD, then the keyword spotter while there is
// voice) over the shared models, and answers:
//   describe                  -> info
//   detect {names}            the next stream reports only these wake words
//   transcribe {name, language}  the next stream is also decoded whole: transcript at its end
//   audio-start {rate, width, channels, timestamp}, audio-chunk (PCM), audio-stop
//                             -> voice-started / voice-stopped {timestamp}, detection {name,
//                                timestamp}, then not-detected (no detection) and transcript
//   ping                      -> pong
// Timestamps are milliseconds: audio-start's timestamp (0 if none) plus the stream's audio time.
// Other event types are ignored, as the protocol asks. A stream that is only transcribed (a
// transcribe and no detect) reports no wake words.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "audio/pcm_stream.h"
#include "base/result.h"
#include "statemachine/pipeline.h"
#include "wyoming/event.h"
#include "wyoming/service.h"

namespace earshot::wyoming {

class Session {
 public:
  // Sends an event to the client; false when it cannot take it (gone, or not reading).
  using SendFn = std::function<bool(const Event&)>;
  // A line for the service's log about this connection.
  using LogFn = std::function<void(const std::string&)>;

  Session(const Service& service, SendFn send, LogFn log);
  ~Session();

  // One event from the client. An error ends the connection: it names the cause, and the client
  // has been sent an `error` event saying so where it could be.
  Status Handle(const Event& event);

 private:
  struct Stream;
  class Sink;

  Status OnDetect(const nlohmann::json& data);
  Status OnTranscribe(const nlohmann::json& data);
  Status OnAudioStart(const nlohmann::json& data);
  Status OnAudioChunk(const Event& event);
  Status OnAudioStop();
  void PushFrame(const audio::Frame& frame);  // to the stream's pipeline and transcribe buffer
  Status SendPipelineEvents();
  Status Send(Event event);
  Status Fail(const std::string& code, const std::string& message);

  const Service& service_;
  SendFn send_;
  LogFn log_;
  // Requested for the next stream.
  bool detect_ = false;
  std::optional<std::set<std::string>> names_;
  DecoderPool* transcribe_ = nullptr;
  std::unique_ptr<Stream> stream_;
  std::set<std::string> ignored_types_;  // logged once each
};

}  // namespace earshot::wyoming
