// The events of DESIGN.md, one struct each; JSON lines and D-Bus carry the same facts.
// `t` is seconds of stream time (offline) or since start (daemon).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace earshot::statemachine {

struct SpeechStartEvent { double t = 0; };
struct SpeechEndEvent { double t = 0; };
// `request`: the id of the request the event belongs to (1, 2, ... in the order requests start;
// a pipeline's own count, or the daemon's StartRequest's). Every wake, transcript and command of
// one request carries the same id.
struct WakeEvent {
  double t = 0;
  std::string keyword;
  double score = 0;
  uint64_t request = 0;  // the request this wake started, or was heard in
  bool playback = false;  // heard while the device's own playback was cancelled (JSON: if true)
};
struct TranscriptEvent {
  double t = 0;
  std::string text;
  bool final = false;
  double confidence = 0;
  double start = 0;
  double end = 0;
  // A final transcript of a request that ended before its endpoint (a mute, a decoder error): no
  // words, but the one final event every request ends with. In JSON only when true.
  bool cancelled = false;
  uint64_t request = 0;
};
// A request decoded with command sets (stt.commands, RegisterCommands): its set, intent and slots,
// or rejected (no command of any set said; set, intent and slots empty). After the request's final
// transcript; none for a cancelled request.
struct CommandEvent {
  double t = 0;
  uint64_t request = 0;
  std::string set;
  std::string intent;
  std::map<std::string, std::string> slots;
  std::string text;  // the words decoded
  double confidence = 0;
  bool rejected = false;
};
struct ProfileEvent { double t = 0; std::string profile; std::string reason; };
struct StateEvent { double t = 0; std::string state; };
struct ErrorEvent { double t = 0; std::string stage; std::string message; };
// What a file held before conversion (offline only).
struct AudioEvent { double t = 0; std::string file; double duration = 0; int rate = 0; int channels = 0; };

using Event = std::variant<SpeechStartEvent, SpeechEndEvent, WakeEvent, TranscriptEvent,
                           ProfileEvent, StateEvent, ErrorEvent, AudioEvent, CommandEvent>;

// One JSON object, without the newline: {"event": "wake", "t": 12.34, ...}.
std::string ToJson(const Event& event);

// Where events go: the pipeline knows nothing else of them.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void Emit(const Event& event) = 0;
};

}  // namespace earshot::statemachine
