// A Wyoming event and its bytes on the wire, from the protocol's published description
// (github.com/rhasspy/wyoming, README "Format"): a JSON object on one line ending in '\n' with
// `type` (string, required), `data` (object, optional), `data_length` and `payload_length`
// (integers, optional); then exactly data_length bytes of a JSON object merged on top of `data`;
// then exactly payload_length bytes of payload (PCM audio for audio-chunk).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace earshot::wyoming {

struct Event {
  std::string type;
  nlohmann::json data = nlohmann::json::object();
  std::vector<uint8_t> payload;
};

// The event's bytes: the header line with `data` inline (no separate data section) and
// `payload_length` when there is a payload, then the payload. Strings that are not UTF-8 become
// U+FFFD.
std::string Encode(const Event& event);

}  // namespace earshot::wyoming
