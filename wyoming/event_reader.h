// EventReader: Wyoming events out of a byte stream that arrives in pieces of any size, in bounded
// memory. Feed it what the socket gave; it returns each event once its header line, data and
// payload are all in. Anything the description (event.h) does not allow, or over a limit, is an
// error naming it; the connection ends there (the stream cannot be resynchronised).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "wyoming/event.h"

namespace earshot::wyoming {

struct ReaderLimits {
  size_t max_header_bytes = 16 * 1024;    // the header line, '\n' included
  size_t max_data_bytes = 16 * 1024;      // data_length
  size_t max_payload_bytes = 512 * 1024;  // payload_length: 1 s of 32-bit stereo at 64 kHz
};

class EventReader {
 public:
  explicit EventReader(const ReaderLimits& limits = {}) : limits_(limits) {}

  // Takes bytes from the front of `bytes` until one event is complete (set in `*event`) or the
  // bytes run out; returns how many it took. Call again with the rest.
  Result<size_t> Feed(std::string_view bytes, std::optional<Event>* event);

  // True between events: nothing of a next event has arrived (a client may leave here).
  bool idle() const { return stage_ == Stage::kHeader && buffer_.empty(); }

 private:
  enum class Stage { kHeader, kData, kPayload };
  Status ParseHeader();
  Status MergeData();
  void Complete(std::optional<Event>* event);

  ReaderLimits limits_;
  Stage stage_ = Stage::kHeader;
  std::string buffer_;  // the header line or the data section, as far as it has come
  Event event_;
  size_t data_length_ = 0;
  size_t payload_length_ = 0;
};

}  // namespace earshot::wyoming
