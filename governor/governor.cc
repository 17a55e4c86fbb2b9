#include "governor/governor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace earshot::governor {
namespace {

constexpr std::array<std::string_view, kProfileCount> kProfileNames = {"performance", "balanced",
                                                                       "saver", "critical"};

Profile Thriftier(Profile a, Profile b) { return std::max(a, b); }

// The battery level of `percent` with every threshold raised by `offset_percent`.
Profile PlainBatteryLevel(const GovernorConfig& c, int percent, int offset_percent) {
  if (percent < c.critical_below_percent + offset_percent) return Profile::kCritical;
  if (percent < c.saver_below_percent + offset_percent) return Profile::kSaver;
  if (percent < c.balanced_below_percent + offset_percent) return Profile::kBalanced;
  return Profile::kPerformance;
}

// The thermal level of `milli_c` with every threshold lowered by `offset_milli_c`.
Profile PlainThermalLevel(const GovernorConfig& c, int milli_c, int offset_milli_c) {
  if (milli_c > c.critical_above_milli_c - offset_milli_c) return Profile::kCritical;
  if (milli_c > c.saver_above_milli_c - offset_milli_c) return Profile::kSaver;
  if (milli_c > c.balanced_above_milli_c - offset_milli_c) return Profile::kBalanced;
  return Profile::kPerformance;
}

// Thrift is entered as soon as the value crosses a threshold (`plain`), and left only as far as
// the thresholds moved by the hysteresis allow (`sticky`, never less thrifty than `plain`).
Profile WithHysteresis(Profile current, Profile plain, Profile sticky) {
  if (plain >= current) return plain;
  return std::min(current, sticky);
}

// In tenths of a degree, by integers (printf's "%.1f" would follow the locale's decimal point).
std::string TemperatureText(int milli_c) {
  const long tenths = std::lround(milli_c / 100.0);
  const long magnitude = std::labs(tenths);
  return "temperature " + std::string(tenths < 0 ? "-" : "") + std::to_string(magnitude / 10) +
         "." + std::to_string(magnitude % 10) + " C";
}

// The battery side of a reason: what the power supply says.
std::string PowerText(const SensorReadings& known) {
  if (known.charging == true) return known.battery_percent ? "charging" : "mains power";
  if (!known.battery_percent) {
    return known.charging == false ? "discharging, charge unknown" : "mains power";
  }
  std::string text = "battery " + std::to_string(*known.battery_percent) + "%";
  if (known.charging == false) text += " discharging";
  return text;
}

Decision ManualDecision(Profile profile) { return Decision{profile, "manual", true, false}; }

Status OrderError(std::string_view low, int low_value, std::string_view high, int high_value,
                  std::string_view unit) {
  return Error{"governor." + std::string(low) + " (" + std::to_string(low_value) + " " +
               std::string(unit) + ") must not exceed governor." + std::string(high) + " (" +
               std::to_string(high_value) + " " + std::string(unit) + ")"};
}

template <typename Enum, size_t N>
Result<Enum> ParseName(std::string_view option, std::string_view text,
                       const std::array<std::string_view, N>& names) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<Enum>(i);
  }
  std::string choices;
  for (std::string_view n : names) choices += (choices.empty() ? "" : "|") + std::string(n);
  return Error{std::string(option) + " = " + std::string(text) + ": expected one of " + choices};
}

}  // namespace

std::string_view ProfileName(Profile profile) { return kProfileNames[static_cast<int>(profile)]; }

Result<std::optional<Profile>> ParseProfileSetting(std::string_view text) {
  if (text == "auto") return std::optional<Profile>();
  Result<Profile> p = ParseName<Profile>("profile", text, kProfileNames);
  if (!p.ok()) return Error{p.error().message + " or auto"};
  return std::optional<Profile>(*p);
}

statemachine::ProfileEvent MakeProfileEvent(const Decision& decision, double t_s) {
  return statemachine::ProfileEvent{t_s, std::string(ProfileName(decision.profile)),
                                    decision.reason};
}

Profile BatteryLevel(const GovernorConfig& config, Profile current, int battery_percent) {
  return WithHysteresis(current, PlainBatteryLevel(config, battery_percent, 0),
                        PlainBatteryLevel(config, battery_percent, config.hysteresis_percent));
}

Profile ThermalLevel(const GovernorConfig& config, Profile current, int temp_milli_c) {
  return WithHysteresis(current, PlainThermalLevel(config, temp_milli_c, 0),
                        PlainThermalLevel(config, temp_milli_c, config.hysteresis_milli_c));
}

Status GovernorConfig::Validate() const {
  if (critical_below_percent < 0 || balanced_below_percent > 100) {
    return Error{"governor: battery thresholds must lie within [0, 100] %"};
  }
  if (critical_below_percent > saver_below_percent) {
    return OrderError("critical_below_percent", critical_below_percent, "saver_below_percent",
                      saver_below_percent, "%");
  }
  if (saver_below_percent > balanced_below_percent) {
    return OrderError("saver_below_percent", saver_below_percent, "balanced_below_percent",
                      balanced_below_percent, "%");
  }
  if (balanced_above_milli_c > saver_above_milli_c) {
    return OrderError("balanced_above_milli_c", balanced_above_milli_c, "saver_above_milli_c",
                      saver_above_milli_c, "millidegrees C");
  }
  if (saver_above_milli_c > critical_above_milli_c) {
    return OrderError("saver_above_milli_c", saver_above_milli_c, "critical_above_milli_c",
                      critical_above_milli_c, "millidegrees C");
  }
  if (hysteresis_percent < 0 || hysteresis_milli_c < 0 || min_dwell_ms < 0 || poll_ms <= 0) {
    return Error{"governor: hysteresis and dwell must be >= 0, poll_ms > 0 ms"};
  }
  return OkStatus();
}

Result<GovernorConfig> GovernorConfig::FromConfig(const config::Config& config) {
  GovernorConfig c;
  Result<std::optional<Profile>> manual = ParseProfileSetting(config.String("governor.profile"));
  if (!manual.ok()) return Error{"governor." + manual.error().message};
  c.manual = *manual;
  auto get = [&](std::string_view key) { return static_cast<int>(config.Int(key)); };
  c.balanced_below_percent = get("governor.balanced_below_percent");
  c.saver_below_percent = get("governor.saver_below_percent");
  c.critical_below_percent = get("governor.critical_below_percent");
  c.hysteresis_percent = get("governor.hysteresis_percent");
  c.balanced_above_milli_c = get("governor.balanced_above_milli_c");
  c.saver_above_milli_c = get("governor.saver_above_milli_c");
  c.critical_above_milli_c = get("governor.critical_above_milli_c");
  c.hysteresis_milli_c = get("governor.hysteresis_milli_c");
  c.min_dwell_ms = config.Int("governor.min_dwell_ms");
  c.poll_ms = config.Int("governor.poll_ms");
  c.sysfs_root = config.String("governor.sysfs_root");
  for (int p = 0; p < kProfileCount; ++p) {
    const std::string prefix = "governor." + std::string(kProfileNames[p]);
    Result<statemachine::KwsSize> kws = ParseName<statemachine::KwsSize>(
        prefix + "_kws", config.String(prefix + "_kws"), statemachine::kKwsSizeNames);
    if (!kws.ok()) return kws.error();
    Result<statemachine::SttSize> stt = ParseName<statemachine::SttSize>(
        prefix + "_stt", config.String(prefix + "_stt"), statemachine::kSttSizeNames);
    if (!stt.ok()) return stt.error();
    c.models[p] = statemachine::ProfileModels{*kws, *stt};
  }
  Status s = c.Validate();
  if (!s.ok()) return s.error();
  return c;
}

GovernorConfig GovernorConfig::Defaults() {
  Result<GovernorConfig> c = FromConfig(config::Config::Defaults());
  if (!c.ok()) std::abort();  // the table's defaults are checked by its tests
  return *c;
}

Governor::Governor(GovernorConfig config) : config_(std::move(config)), manual_(config_.manual) {
  decision_ = manual_ ? ManualDecision(*manual_) : Automatic();
}

Decision Governor::Automatic() const {
  const Profile profile = Thriftier(battery_level_, thermal_level_);
  const bool hot = thermal_level_ > Profile::kPerformance && thermal_level_ >= battery_level_;
  return Decision{profile, hot ? TemperatureText(*known_.temp_milli_c) : PowerText(known_), false,
                  false};
}

Decision Governor::Apply(Decision next, int64_t now_ms) {
  next.changed = true;
  decision_ = std::move(next);
  changed_at_ms_ = now_ms;
  return decision_;
}

Decision Governor::Update(const SensorReadings& readings, int64_t now_ms) {
  if (readings.battery_percent) known_.battery_percent = readings.battery_percent;
  if (readings.charging) known_.charging = readings.charging;
  if (readings.temp_milli_c) known_.temp_milli_c = readings.temp_milli_c;
  if (known_.charging == true) {
    battery_level_ = Profile::kPerformance;
  } else if (known_.battery_percent) {
    battery_level_ = BatteryLevel(config_, battery_level_, *known_.battery_percent);
  }
  if (known_.temp_milli_c) {
    thermal_level_ = ThermalLevel(config_, thermal_level_, *known_.temp_milli_c);
  }

  if (!changed_at_ms_) return Apply(manual_ ? ManualDecision(*manual_) : Automatic(), now_ms);
  decision_.changed = false;
  if (manual_) return decision_;
  Decision next = Automatic();
  if (next.profile == decision_.profile || now_ms - *changed_at_ms_ < config_.min_dwell_ms) {
    return decision_;
  }
  return Apply(std::move(next), now_ms);
}

Decision Governor::SetOverride(std::optional<Profile> manual, int64_t now_ms) {
  const bool was_manual = manual_.has_value();
  const bool same = manual ? (was_manual && decision_.profile == *manual) : !was_manual;
  manual_ = manual;
  decision_.changed = false;
  if (same) return decision_;
  return Apply(manual ? ManualDecision(*manual) : Automatic(), now_ms);
}

}  // namespace earshot::governor
