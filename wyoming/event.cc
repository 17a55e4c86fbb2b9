#include "wyoming/event.h"

namespace earshot::wyoming {

std::string Encode(const Event& event) {
  nlohmann::json header = {{"type", event.type}};
  if (!event.data.empty()) header["data"] = event.data;
  if (!event.payload.empty()) header["payload_length"] = event.payload.size();
  std::string bytes = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  bytes += '\n';
  bytes.append(event.payload.begin(), event.payload.end());
  return bytes;
}

}  // namespace earshot::wyoming
