// The governor: a pure policy from sensor readings to the profiles of DESIGN.md (performance,
// balanced, saver, critical) and from a profile to model sizes. It reads no clock and no file: the
// caller polls a SensorReader (or replays a SensorTimeline) every `poll_ms`, passes the readings
// and its own monotonic time to Update(), emits a ProfileEvent when the decision says `changed`,
// and swaps models only while the cascade is idle.
//
// Policy, per input, each with its own level and hysteresis; the profile is the thriftier of the
// two:
// - battery: charging (or mains power, no battery) is plenty of power: performance. Discharging,
//   below balanced_below_percent -> balanced, below saver_below_percent -> saver, below
//   critical_below_percent -> critical; a level is left only when the charge is back at its
//   threshold + hysteresis_percent.
// - temperature (the hottest zone): above balanced_above_milli_c -> balanced, above
//   saver_above_milli_c -> saver, above critical_above_milli_c -> critical; a level is left only
//   when the temperature is back at its threshold - hysteresis_milli_c. Hot beats charging.
// - an unknown reading changes nothing: the last known value of that input stays in force (a
//   battery that vanishes keeps its last level; a device that never had one is on mains power).
// - min_dwell_ms: after a change the profile is kept at least this long (automatic changes only).
// - a manual profile (SetOverride, or governor.profile in the config) beats every reading and
//   applies at once; SetOverride(nullopt), i.e. "auto", gives control back to the readings at once.
//
// Threading: a Governor is used by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/config.h"
#include "governor/sensors.h"
#include "statemachine/event.h"
#include "statemachine/model_sizes.h"

namespace earshot::governor {

// In ascending order of thrift: a later profile uses less power (and compares greater).
enum class Profile { kPerformance = 0, kBalanced = 1, kSaver = 2, kCritical = 3 };
inline constexpr int kProfileCount = 4;

std::string_view ProfileName(Profile profile);  // "performance", "balanced", "saver", "critical"
// The text of governor.profile or D-Bus SetProfile(s): "auto" -> nullopt (the governor decides),
// a profile's name -> that profile; anything else is an error naming the text and the choices.
Result<std::optional<Profile>> ParseProfileSetting(std::string_view text);

// The [governor] section of the options table, which holds every default: Defaults() is the table's
// defaults bound, and a value-initialised config (no thresholds, no dwell, no models) is only a
// blank to fill in.
struct GovernorConfig {
  std::optional<Profile> manual;   // governor.profile: nullopt = auto
  int balanced_below_percent = 0;  // battery thresholds, discharging
  int saver_below_percent = 0;
  int critical_below_percent = 0;
  int hysteresis_percent = 0;
  int balanced_above_milli_c = 0;  // temperature thresholds, hottest zone
  int saver_above_milli_c = 0;
  int critical_above_milli_c = 0;
  int hysteresis_milli_c = 0;
  int64_t min_dwell_ms = 0;
  int64_t poll_ms = 0;     // for the caller: how often to read the sensors
  std::string sysfs_root;  // for the caller: SensorReader's root
  // Indexed by Profile: performance, balanced, saver, critical.
  std::array<statemachine::ProfileModels, kProfileCount> models{};

  const statemachine::ProfileModels& Models(Profile profile) const {
    return models[static_cast<int>(profile)];
  }
  // Explains the first impossible setting (thresholds out of order), with the options' names and
  // units.
  Status Validate() const;
  // From the [governor] section of the options table.
  static Result<GovernorConfig> FromConfig(const config::Config& config);
  // The options table's defaults, bound.
  static GovernorConfig Defaults();
};

struct Decision {
  Profile profile = Profile::kPerformance;
  std::string reason;    // why this profile was entered: "battery 14% discharging", "manual", ...
  bool manual = false;   // set by SetOverride / governor.profile, not by the readings
  bool changed = false;  // this call changed the profile or manual/auto: emit a ProfileEvent
};

// The event of a decision at stream time `t_s` (seconds).
statemachine::ProfileEvent MakeProfileEvent(const Decision& decision, double t_s);

// The level one input asks for: `current` unless the value crossed a threshold towards thrift, or
// came back past a threshold by the hysteresis. Pure; exposed for tests.
Profile BatteryLevel(const GovernorConfig& config, Profile current, int battery_percent);
Profile ThermalLevel(const GovernorConfig& config, Profile current, int temp_milli_c);

class Governor {
 public:
  // `config` must pass Validate() (FromConfig guarantees it).
  explicit Governor(GovernorConfig config);

  // Feeds one poll's readings at the caller's monotonic time `now_ms` (non-decreasing) and returns
  // the decision in force. The first call reports `changed`, so the caller announces the profile
  // it starts with.
  Decision Update(const SensorReadings& readings, int64_t now_ms);
  // A manual profile, or nullopt (auto) to give control back to the readings; applies at once.
  Decision SetOverride(std::optional<Profile> manual, int64_t now_ms);

  // The decision in force (before any Update: the manual profile, or performance).
  const Decision& decision() const { return decision_; }
  const GovernorConfig& config() const { return config_; }
  // The last known value of each input (for D-Bus BatteryPercent, TemperatureMilliCelsius).
  const SensorReadings& known() const { return known_; }

 private:
  // The profile and reason the readings ask for, ignoring the dwell.
  Decision Automatic() const;
  Decision Apply(Decision next, int64_t now_ms);

  GovernorConfig config_;
  SensorReadings known_;  // the last known value of each input
  Profile battery_level_ = Profile::kPerformance;
  Profile thermal_level_ = Profile::kPerformance;
  std::optional<Profile> manual_;
  std::optional<int64_t> changed_at_ms_;  // unset until the first decision
  Decision decision_;
};

}  // namespace earshot::governor
