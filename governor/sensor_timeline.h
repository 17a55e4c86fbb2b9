// SensorTimeline: scripted sensor readings for the offline harness (`earshot run --sensors FILE`)
// and the tests, so a recording can be replayed against a day of battery and temperature.
//
// File format, one reading per line, fields separated by blanks, '#' starts a comment:
//   # t  battery_percent  charging  temp_c
//   0    80               0         45.5
//   600  19               0         -
//   900  -                1         81.2
// t: seconds of stream time, >= 0 and non-decreasing (of equal times, the later line wins);
// battery_percent: integer 0-100; charging: 0 or 1; temp_c: degrees Celsius (decimals allowed).
// '-' is an unknown value (no battery, no sensor, a failed read). A line's readings are in force
// from its t until the next line's t; before the first line every value is unknown.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "governor/sensors.h"

namespace earshot::governor {

class SensorTimeline {
 public:
  struct Entry {
    double t_s = 0;
    SensorReadings readings;
  };

  // Reads a timeline file; errors name the file, the line and the cause.
  static Result<SensorTimeline> Load(const std::filesystem::path& path);
  // Parses a timeline's text; `name` stands for the file in error messages.
  static Result<SensorTimeline> Parse(std::string_view text, std::string_view name);

  // The readings in force at stream time `t_s` (seconds).
  SensorReadings At(double t_s) const;
  std::span<const Entry> entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;  // t_s non-decreasing
};

}  // namespace earshot::governor
