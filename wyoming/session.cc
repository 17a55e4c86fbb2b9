#include "wyoming/session.h"

#include <cmath>
#include <limits>
#include <utility>
#include <variant>

namespace earshot::wyoming {
namespace {

using nlohmann::json;

// An optional integer field of an event's data: absent or null is `fallback`.
Result<int64_t> IntField(const json& data, const char* name, int64_t fallback) {
  auto it = data.find(name);
  if (it == data.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return Error{std::string(name) + " is not an integer"};
  return it->get<int64_t>();
}

// rate, width and channels of audio-start (all required) or of audio-chunk (each may be absent:
// the stream's, in `fallback`).
Result<audio::PcmFormat> FormatField(const json& data, const audio::PcmFormat* fallback) {
  audio::PcmFormat format = fallback != nullptr ? *fallback : audio::PcmFormat{};
  for (auto [name, field] : {std::pair{"rate", &format.rate}, std::pair{"width", &format.width},
                             std::pair{"channels", &format.channels}}) {
    auto it = data.find(name);
    if (it == data.end() || it->is_null()) {
      if (fallback == nullptr) return Error{std::string("no ") + name};
      continue;
    }
    if (!it->is_number_integer()) return Error{std::string(name) + " is not an integer"};
    const int64_t value = it->get<int64_t>();
    if (value < 0 || value > std::numeric_limits<int>::max()) {
      return Error{std::string(name) + " " + std::to_string(value) + ": out of range"};
    }
    *field = static_cast<int>(value);
  }
  if (Status s = format.Check(); !s.ok()) return s.error();
  return format;
}

}  // namespace

struct Session::Stream {
  std::unique_ptr<audio::PcmStream> pcm;
  std::unique_ptr<Sink> sink;
  std::unique_ptr<statemachine::Pipeline> pipeline;
  int64_t start_ms = 0;
  bool wake = true;  // wake words are reported
  std::optional<std::set<std::string>> names;
  bool detected = false;
  DecoderPool* transcribe = nullptr;
  std::vector<int16_t> samples;  // kept for `transcribe`, up to max_samples
  size_t max_samples = 0;
  std::vector<Event> pending;  // the pipeline's events, to send
};

// The pipeline's events as Wyoming events, in the stream's pending list.
class Session::Sink final : public statemachine::EventSink {
 public:
  explicit Sink(Stream* stream) : stream_(stream) {}
  void Emit(const earshot::statemachine::Event& event) override {
    std::visit([this](const auto& e) { On(e); }, event);
  }

 private:
  int64_t Ms(double t) const { return stream_->start_ms + std::llround(t * 1000.0); }
  void On(const statemachine::SpeechStartEvent& e) {
    Add("voice-started", {{"timestamp", Ms(e.t)}});
  }
  void On(const statemachine::SpeechEndEvent& e) { Add("voice-stopped", {{"timestamp", Ms(e.t)}}); }
  void On(const statemachine::WakeEvent& e) {
    if (!stream_->wake || (stream_->names && !stream_->names->contains(e.keyword))) return;
    stream_->detected = true;
    Add("detection", {{"name", e.keyword}, {"timestamp", Ms(e.t)}});
  }
  template <typename Other>
  void On(const Other&) {}  // states, partial transcripts: not Wyoming's
  void Add(const char* type, json data) { stream_->pending.push_back({type, std::move(data), {}}); }
  Stream* stream_;
};

Session::Session(const Service& service, SendFn send, LogFn log)
    : service_(service), send_(std::move(send)), log_(std::move(log)) {}

Session::~Session() = default;

Status Session::Send(Event event) {
  if (!send_(event)) return Error{"the client does not take events (gone, or not reading)"};
  return OkStatus();
}

Status Session::Fail(const std::string& code, const std::string& message) {
  send_(Event{"error", {{"text", message}, {"code", code}}, {}});
  return Error{message};
}

Status Session::Handle(const Event& event) {
  const std::string& type = event.type;
  if (type == "describe") return Send({"info", service_.info(), {}});
  if (type == "ping") return Send({"pong", {{"text", event.data.value("text", json())}}, {}});
  if (type == "detect") return OnDetect(event.data);
  if (type == "transcribe") return OnTranscribe(event.data);
  if (type == "audio-start") return OnAudioStart(event.data);
  if (type == "audio-chunk") return OnAudioChunk(event);
  if (type == "audio-stop") return OnAudioStop();
  if (ignored_types_.size() < 16 && ignored_types_.insert(type).second) {
    log_("ignored an event of unknown type '" + type.substr(0, 64) + "'");
  }
  return OkStatus();
}

Status Session::OnDetect(const json& data) {
  std::set<std::string> names;
  auto it = data.find("names");
  if (it != data.end() && !it->is_null()) {
    if (!it->is_array()) return Fail("bad-detect", "detect: names is not a list");
    for (const json& n : *it) {
      if (!n.is_string()) return Fail("bad-detect", "detect: a name is not a string");
      names.insert(n.get<std::string>());
    }
  }
  bool any = names.empty();
  if (const auto& set = service_.wake_models().kws; set != nullptr) {
    for (const kws::Keyword& k : set->keywords()) any |= names.contains(k.name);
  }
  if (!any) log_("detect: none of the names asked for is a loaded wake word");
  names_ = names.empty() ? std::nullopt : std::optional(std::move(names));
  detect_ = true;
  return OkStatus();
}

Status Session::OnTranscribe(const json& data) {
  const json name = data.value("name", json());
  const json language = data.value("language", json());
  if (!(name.is_null() || name.is_string()) || !(language.is_null() || language.is_string())) {
    return Fail("bad-transcribe", "transcribe: name and language must be strings");
  }
  const std::string lang = language.is_string() ? language.get<std::string>() : "en";
  if (!(lang == "en" || lang.starts_with("en-") || lang.starts_with("en_"))) {
    return Fail("unsupported-language",
                "transcribe: language '" + lang.substr(0, 32) + "' (earshot-wyoming speaks en)");
  }
  const std::string model = name.is_string() ? name.get<std::string>() : "";
  transcribe_ = service_.Decoders(model);
  if (transcribe_ == nullptr) {
    return Fail("unknown-model",
                "transcribe: no speech-to-text model '" + model.substr(0, 64) + "'");
  }
  return OkStatus();
}

Status Session::OnAudioStart(const json& data) {
  if (stream_ != nullptr) {  // a new stream ends the one in progress
    if (Status s = OnAudioStop(); !s.ok()) return s;
  }
  Result<audio::PcmFormat> format = FormatField(data, nullptr);
  if (!format.ok()) return Fail("bad-audio-start", "audio-start: " + format.error().message);
  Result<int64_t> start_ms = IntField(data, "timestamp", 0);
  if (!start_ms.ok()) return Fail("bad-audio-start", "audio-start: " + start_ms.error().message);
  auto stream = std::make_unique<Stream>();
  auto pcm = audio::PcmStream::Create(*format, service_.config().String("audio.resampler_quality"));
  if (!pcm.ok()) return Fail("bad-audio-start", "audio-start: " + pcm.error().message);
  stream->pcm = std::move(pcm).value();
  stream->sink = std::make_unique<Sink>(stream.get());
  auto pipeline =
      statemachine::Pipeline::Create(service_.config(), service_.wake_models(), stream->sink.get());
  if (!pipeline.ok()) return Fail("internal", pipeline.error().message);
  stream->pipeline = std::move(pipeline).value();
  stream->start_ms = *start_ms;
  stream->names = std::move(names_);
  stream->transcribe = transcribe_;
  stream->wake = transcribe_ == nullptr || detect_;
  stream->max_samples =
      static_cast<size_t>(service_.options().max_transcribe_s) * audio::kSampleRate;
  names_.reset();
  detect_ = false;
  transcribe_ = nullptr;
  stream_ = std::move(stream);
  return OkStatus();
}

Status Session::OnAudioChunk(const Event& event) {
  if (stream_ == nullptr) return Fail("no-audio-start", "audio-chunk before audio-start");
  const audio::PcmFormat& format = stream_->pcm->format();
  Result<audio::PcmFormat> chunk = FormatField(event.data, &format);
  if (!chunk.ok()) return Fail("bad-audio-chunk", "audio-chunk: " + chunk.error().message);
  if (!(*chunk == format)) {
    return Fail("bad-audio-chunk",
                "audio-chunk: its rate, width or channels differ from "
                "audio-start's");
  }
  Status converted =
      stream_->pcm->Push(event.payload, [this](const audio::Frame& f) { PushFrame(f); });
  if (!converted.ok()) return Fail("internal", converted.error().message);
  return SendPipelineEvents();
}

Status Session::OnAudioStop() {
  if (stream_ == nullptr) {
    log_("audio-stop without audio-start: ignored");
    return OkStatus();
  }
  Stream& s = *stream_;
  Status finished = s.pcm->Finish([this](const audio::Frame& f) { PushFrame(f); });
  if (!finished.ok()) return Fail("internal", finished.error().message);
  s.pipeline->Finish();
  if (Status sent = SendPipelineEvents(); !sent.ok()) return sent;
  if (s.wake && !s.detected) {
    if (Status sent = Send({"not-detected", json::object(), {}}); !sent.ok()) return sent;
  }
  std::unique_ptr<Stream> done = std::move(stream_);
  if (done->transcribe == nullptr) return OkStatus();
  if (done->samples.size() >= done->max_samples) {
    log_("transcribe: audio over " + std::to_string(service_.options().max_transcribe_s) +
         " s, the rest not decoded");
  }
  Result<stt::SttResult> result = done->transcribe->Decode(done->samples);
  if (!result.ok()) return Fail("stt", "transcribe: " + result.error().message);
  return Send({"transcript", {{"text", result->text}, {"language", "en"}}, {}});
}

void Session::PushFrame(const audio::Frame& frame) {
  Stream& s = *stream_;
  s.pipeline->Push(frame);
  if (s.transcribe != nullptr && s.samples.size() < s.max_samples) {
    s.samples.insert(s.samples.end(), frame.begin(), frame.end());
  }
}

Status Session::SendPipelineEvents() {
  std::vector<Event> pending = std::move(stream_->pending);
  stream_->pending.clear();
  for (Event& e : pending) {
    if (e.type == "detection") log_("detection " + e.data["name"].get<std::string>());
    if (Status s = Send(std::move(e)); !s.ok()) return s;
  }
  return OkStatus();
}

}  // namespace earshot::wyoming
