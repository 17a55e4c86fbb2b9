#include "governor/sensor_timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

#include "base/read_file.h"

namespace earshot::governor {
namespace {

constexpr double kMinTempC = -40;  // as SensorReader: outside this a sensor is broken
constexpr double kMaxTempC = 150;

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (true) {
    i = line.find_first_not_of(" \t\r", i);
    if (i == std::string_view::npos) break;
    const size_t end = std::min(line.find_first_of(" \t\r", i), line.size());
    fields.push_back(line.substr(i, end - i));
    i = end;
  }
  return fields;
}

template <typename T>
bool ParseWhole(std::string_view text, T* value) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && p == end;
}

// One line's fields -> an entry, or the cause it is wrong (without the file and line).
Result<SensorTimeline::Entry> ParseEntry(const std::vector<std::string_view>& f,
                                         double previous_t_s) {
  if (f.size() != 4) {
    return Error{"expected 4 fields (t battery_percent charging temp_c), found " +
                 std::to_string(f.size())};
  }
  SensorTimeline::Entry e;
  if (!ParseWhole(f[0], &e.t_s) || !std::isfinite(e.t_s) || e.t_s < 0) {
    return Error{"t '" + std::string(f[0]) + "' is not a time >= 0 s"};
  }
  if (e.t_s < previous_t_s) {
    char previous[32];
    std::snprintf(previous, sizeof previous, "%g", previous_t_s);
    return Error{"t " + std::string(f[0]) + " s is before the previous line's " + previous + " s"};
  }
  int percent = 0;
  if (f[1] != "-") {
    if (!ParseWhole(f[1], &percent) || percent < 0 || percent > 100) {
      return Error{"battery_percent '" + std::string(f[1]) +
                   "' is not an integer in [0, 100] or '-'"};
    }
    e.readings.battery_percent = percent;
  }
  if (f[2] == "0" || f[2] == "1") {
    e.readings.charging = f[2] == "1";
  } else if (f[2] != "-") {
    return Error{"charging '" + std::string(f[2]) + "' is not 0, 1 or '-'"};
  }
  double temp_c = 0;
  if (f[3] != "-") {
    if (!ParseWhole(f[3], &temp_c) || !(temp_c >= kMinTempC && temp_c <= kMaxTempC)) {
      return Error{"temp_c '" + std::string(f[3]) +
                   "' is not a temperature in [-40, 150] C or '-'"};
    }
    e.readings.temp_milli_c = static_cast<int>(std::lround(temp_c * 1000));
  }
  return e;
}

}  // namespace

Result<SensorTimeline> SensorTimeline::Parse(std::string_view text, std::string_view name) {
  SensorTimeline timeline;
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t newline = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(std::min(newline + 1, text.size()));
    line = line.substr(0, line.find('#'));
    const std::vector<std::string_view> fields = Fields(line);
    if (fields.empty()) continue;
    const double previous = timeline.entries_.empty() ? 0 : timeline.entries_.back().t_s;
    Result<Entry> entry = ParseEntry(fields, previous);
    if (!entry.ok()) {
      return Error{std::string(name) + ":" + std::to_string(line_number) + ": " +
                   entry.error().message};
    }
    timeline.entries_.push_back(*entry);
  }
  return timeline;
}

Result<SensorTimeline> SensorTimeline::Load(const std::filesystem::path& path) {
  // A line per reading: a week of readings every second is some 12 MB.
  Result<std::string> text = ReadWholeFile(path.string(), size_t{64} << 20, "a sensor timeline");
  if (!text.ok()) return text.error();
  return Parse(*text, path.string());
}

SensorReadings SensorTimeline::At(double t_s) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), t_s,
                                [](double t, const Entry& e) { return t < e.t_s; });
  if (after == entries_.begin()) return SensorReadings{};
  return std::prev(after)->readings;
}

}  // namespace earshot::governor
