#include "statemachine/event.h"

#include <charconv>

#include <nlohmann/json.hpp>

namespace earshot::statemachine {
namespace {

std::string Quoted(std::string_view value) {
  return nlohmann::json(std::string(value))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends JSON fields to an object under construction.
class JsonObject {
 public:
  explicit JsonObject(const char* event) { String("event", event); }

  // nlohmann-json writes the string: quotes, backslashes and control characters escaped, and
  // bytes that are not UTF-8 (a file named bad\xffname.flac, raw bytes from a sysfs file) replaced
  // by U+FFFD, so every line is JSON that any reader takes.
  JsonObject& String(const char* key, std::string_view value) {
    Key(key);
    out_ += Quoted(value);
    return *this;
  }

  JsonObject& Number(const char* key, double value) {
    Key(key);
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);  // shortest exact form
    out_.append(buf, end);
    return *this;
  }

  JsonObject& Bool(const char* key, bool value) {
    Key(key);
    out_ += value ? "true" : "false";
    return *this;
  }

  JsonObject& Unsigned(const char* key, uint64_t value) {
    Key(key);
    out_ += std::to_string(value);
    return *this;
  }

  // An object of string values: {"state": "on", "device": "kitchen light"}.
  JsonObject& StringMap(const char* key, const std::map<std::string, std::string>& values) {
    Key(key);
    out_ += "{";
    for (const auto& [name, value] : values) {
      if (out_.back() != '{') out_ += ", ";
      out_ += Quoted(name) + ": " + Quoted(value);
    }
    out_ += "}";
    return *this;
  }

  JsonObject& BoolIf(const char* key, bool value) { return value ? Bool(key, true) : *this; }

  std::string Finish() { return out_ + "}"; }

 private:
  void Key(const char* key) {
    out_ += out_.size() > 1 ? ", \"" : "\"";
    out_ += key;
    out_ += "\": ";
  }
  std::string out_ = "{";
};

struct ToJsonVisitor {
  std::string operator()(const SpeechStartEvent& e) const {
    return JsonObject("speech_start").Number("t", e.t).Finish();
  }
  std::string operator()(const SpeechEndEvent& e) const {
    return JsonObject("speech_end").Number("t", e.t).Finish();
  }
  std::string operator()(const WakeEvent& e) const {
    return JsonObject("wake").Number("t", e.t).String("keyword", e.keyword)
        .Number("score", e.score).Unsigned("request", e.request).BoolIf("playback", e.playback)
        .Finish();
  }
  std::string operator()(const TranscriptEvent& e) const {
    return JsonObject("transcript").Number("t", e.t).String("text", e.text).Bool("final", e.final)
        .Number("confidence", e.confidence).Number("start", e.start).Number("end", e.end)
        .Unsigned("request", e.request).BoolIf("cancelled", e.cancelled).Finish();
  }
  std::string operator()(const CommandEvent& e) const {
    return JsonObject("command").Number("t", e.t).Unsigned("request", e.request)
        .String("set", e.set).String("intent", e.intent).StringMap("slots", e.slots)
        .String("text", e.text).Number("confidence", e.confidence).BoolIf("rejected", e.rejected)
        .Finish();
  }
  std::string operator()(const ProfileEvent& e) const {
    return JsonObject("profile").Number("t", e.t).String("profile", e.profile)
        .String("reason", e.reason).Finish();
  }
  std::string operator()(const StateEvent& e) const {
    return JsonObject("state").Number("t", e.t).String("state", e.state).Finish();
  }
  std::string operator()(const ErrorEvent& e) const {
    return JsonObject("error").Number("t", e.t).String("stage", e.stage)
        .String("message", e.message).Finish();
  }
  std::string operator()(const AudioEvent& e) const {
    return JsonObject("audio").Number("t", e.t).String("file", e.file)
        .Number("duration", e.duration).Number("rate", e.rate).Number("channels", e.channels)
        .Finish();
  }
};

}  // namespace

std::string ToJson(const Event& event) { return std::visit(ToJsonVisitor{}, event); }

}  // namespace earshot::statemachine
