#include "wyoming/event_reader.h"

#include <algorithm>

namespace earshot::wyoming {
namespace {

using nlohmann::json;

// A header's data_length or payload_length: absent or null is 0; else a whole number of bytes
// from 0 to `max`.
Result<size_t> LengthField(const json& header, const char* name, size_t max) {
  auto it = header.find(name);
  if (it == header.end() || it->is_null()) return size_t{0};
  if (it->is_number_unsigned() && it->get<uint64_t>() <= max) return it->get<size_t>();
  const std::string shown = it->dump(-1, ' ', false, json::error_handler_t::replace);
  if (it->is_number_unsigned()) {
    return Error{std::string(name) + " " + shown + " over the limit of " + std::to_string(max) +
                 " bytes"};
  }
  return Error{std::string(name) + " " + shown.substr(0, 40) +
               ": expected a whole number of bytes"};
}

// The JSON object in `text`, or an error naming `what`.
Result<json> ParseObject(std::string_view text, const char* what) {
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Error{std::string(what) + " is not valid JSON (UTF-8)"};
  if (!value.is_object()) return Error{std::string(what) + " is not a JSON object"};
  return value;
}

}  // namespace

Result<size_t> EventReader::Feed(std::string_view bytes, std::optional<Event>* event) {
  event->reset();
  size_t used = 0;
  while (used < bytes.size() && !event->has_value()) {
    const std::string_view rest = bytes.substr(used);
    if (stage_ == Stage::kHeader) {
      const size_t newline = rest.find('\n');
      const size_t take = newline == std::string_view::npos ? rest.size() : newline + 1;
      if (buffer_.size() + take > limits_.max_header_bytes) {
        return Error{"header line over " + std::to_string(limits_.max_header_bytes) + " bytes"};
      }
      buffer_.append(rest.substr(0, take));
      used += take;
      if (newline == std::string_view::npos) break;
      buffer_.pop_back();  // the '\n'
      if (Status s = ParseHeader(); !s.ok()) return s.error();
    } else if (stage_ == Stage::kData) {
      const size_t take = std::min(rest.size(), data_length_ - buffer_.size());
      buffer_.append(rest.substr(0, take));
      used += take;
      if (buffer_.size() < data_length_) break;
      if (Status s = MergeData(); !s.ok()) return s.error();
    } else {
      const size_t take = std::min(rest.size(), payload_length_ - event_.payload.size());
      event_.payload.insert(event_.payload.end(), rest.begin(), rest.begin() + take);
      used += take;
    }
    if (stage_ == Stage::kPayload && event_.payload.size() == payload_length_) Complete(event);
  }
  return used;
}

Status EventReader::ParseHeader() {
  Result<json> header = ParseObject(buffer_, "header line");
  buffer_.clear();
  if (!header.ok()) return header.error();
  auto type = header->find("type");
  if (type == header->end() || !type->is_string() || type->get<std::string>().empty()) {
    return Error{"header line without a type (a non-empty string)"};
  }
  event_ = Event{};
  event_.type = type->get<std::string>();
  auto data = header->find("data");
  if (data != header->end() && !data->is_null()) {
    if (!data->is_object()) return Error{"event " + event_.type + ": data is not a JSON object"};
    event_.data = std::move(*data);
  }
  Result<size_t> data_length = LengthField(*header, "data_length", limits_.max_data_bytes);
  if (!data_length.ok()) return Error{"event " + event_.type + ": " + data_length.error().message};
  Result<size_t> payload_length = LengthField(*header, "payload_length", limits_.max_payload_bytes);
  if (!payload_length.ok()) {
    return Error{"event " + event_.type + ": " + payload_length.error().message};
  }
  data_length_ = *data_length;
  payload_length_ = *payload_length;
  event_.payload.reserve(payload_length_);
  stage_ = data_length_ > 0 ? Stage::kData : Stage::kPayload;
  return OkStatus();
}

Status EventReader::MergeData() {
  Result<json> extra = ParseObject(buffer_, "data section");
  buffer_.clear();
  if (!extra.ok()) return Error{"event " + event_.type + ": " + extra.error().message};
  event_.data.update(*extra);  // "merged on top of header data"
  stage_ = Stage::kPayload;
  return OkStatus();
}

void EventReader::Complete(std::optional<Event>* event) {
  *event = std::move(event_);
  event_ = Event{};
  stage_ = Stage::kHeader;
  data_length_ = payload_length_ = 0;
}

}  // namespace earshot::wyoming
