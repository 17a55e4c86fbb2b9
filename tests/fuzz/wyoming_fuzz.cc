// Fuzz target: earshot-wyoming's event reader (wyoming/event_reader.h) over a byte stream: header
// lines, data sections and payloads of any length, the limits. Properties checked besides the
// sanitizers': the stream read whole and read in pieces of 1 to 37 bytes gives the same events
// and the same error; each event read, encoded again (wyoming/event.h) and read back is the same
// event; an audio-chunk's payload in its own format goes through audio::PcmStream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "audio/pcm_stream.h"
#include "wyoming/event_reader.h"

namespace {

using earshot::wyoming::Event;
using earshot::wyoming::EventReader;

constexpr earshot::wyoming::ReaderLimits kLimits{4096, 1024, 65536};

struct Outcome {
  std::vector<Event> events;
  std::string error;
};

// Reads `bytes` in pieces of `piece` bytes (0: all at once).
Outcome ReadAll(std::string_view bytes, size_t piece) {
  Outcome out;
  EventReader reader(kLimits);
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = piece == 0 ? bytes.size() - at : std::min(piece, bytes.size() - at);
    std::string_view rest = bytes.substr(at, n);
    at += n;
    while (!rest.empty()) {
      std::optional<Event> event;
      auto used = reader.Feed(rest, &event);
      if (!used.ok()) {
        out.error = used.error().message;
        return out;
      }
      rest.remove_prefix(*used);
      if (event) out.events.push_back(std::move(*event));
    }
  }
  return out;
}

bool Same(const Event& a, const Event& b) {
  // Compared as JSON text: a number JSON cannot hold (1e400) reads as infinity and writes as null.
  auto text = [](const Event& e) {
    return e.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  return a.type == b.type && text(a) == text(b) && a.payload == b.payload;
}

void Check(bool condition) {
  if (!condition) std::abort();
}

void RunAudio(const Event& event) {
  if (event.type != "audio-chunk") return;
  earshot::audio::PcmFormat format;
  for (auto [name, field] : {std::pair{"rate", &format.rate}, std::pair{"width", &format.width},
                             std::pair{"channels", &format.channels}}) {
    auto it = event.data.find(name);
    if (it == event.data.end() || !it->is_number_integer()) return;
    const int64_t v = it->get<int64_t>();
    if (v < -1 || v > 1000000) return;
    *field = static_cast<int>(v);
  }
  auto stream = earshot::audio::PcmStream::Create(format, "quick");
  if (!stream.ok()) return;
  size_t frames = 0;
  auto count = [&frames](const earshot::audio::Frame&) { ++frames; };
  Check((*stream)->Push(event.payload, count).ok());
  Check((*stream)->Finish(count).ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Outcome whole = ReadAll(bytes, 0);
  const Outcome pieces = ReadAll(bytes, 1 + size % 37);
  Check(whole.error == pieces.error && whole.events.size() == pieces.events.size());
  for (size_t i = 0; i < whole.events.size(); ++i) {
    Check(Same(whole.events[i], pieces.events[i]));
    const std::string encoded = earshot::wyoming::Encode(whole.events[i]);
    const Outcome again = ReadAll(encoded, 0);
    // Encoding may grow a header past the limit (strings re-escaped); else it reads back the same.
    Check(!again.error.empty() ||
          (again.events.size() == 1 && Same(again.events[0], whole.events[i])));
    RunAudio(whole.events[i]);
  }
  return 0;
}
