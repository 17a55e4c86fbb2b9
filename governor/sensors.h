// The governor's inputs: battery and thermal readings from Linux sysfs (Documentation/ABI/testing/
// sysfs-class-power and sysfs-class-thermal), under a configurable root so tests read fake trees.
//
// Every value is optional: a device without a battery (a mains-powered speaker) reads no battery,
// and a missing, unreadable or garbage file reads as unknown, with a warning reported once. Nothing
// here is fatal and nothing prints; the caller logs the warnings it is given.
//
// Threading: a SensorReader is used by one thread at a time. Its reads block while an attribute
// does not answer (a sysfs read runs the driver, which may wait on an EC or an I2C bus):
// SensorPoller (sensor_poller.h) reads off the caller's thread, with a deadline.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace earshot::governor {

struct SensorReadings {
  std::optional<int> battery_percent;  // 0-100: the mean over the system's batteries
  std::optional<bool> charging;        // external power present, or a battery Charging/Full
  std::optional<int> temp_milli_c;     // the hottest thermal zone, in millidegrees Celsius

  bool operator==(const SensorReadings&) const = default;
};

// One poll: the readings, and the problems met that were not reported by an earlier poll.
struct SensorSample {
  SensorReadings readings;
  std::vector<std::string> warnings;  // each names the file and the cause
};

class SensorReader {
 public:
  // `sysfs_root` stands for /sys: batteries are read from sysfs_root/class/power_supply/*, zones
  // from sysfs_root/class/thermal/thermal_zone*.
  explicit SensorReader(std::filesystem::path sysfs_root) : root_(std::move(sysfs_root)) {}

  // Reads every supply and zone now (a few small files; no caching, so call it at the poll rate).
  //
  // Power supplies: supplies of scope "Device" (a wireless mouse's battery) are ignored. A
  // "Battery" gives `capacity` (0-100) and `status`; any other type (Mains, USB, Wireless...) gives
  // `online`; without a `type`, a supply with a `capacity` is a battery. charging = true if a
  // non-battery supply is online or a battery is Charging or Full; false if a battery is
  // Discharging or Not charging, or an external supply is offline; unknown otherwise. Thermal
  // zones: `temp` in millidegrees; values outside [-40, 150] C are garbage.
  SensorSample Read();

  // Called before each attribute is opened; one it returns false for is not read and counts as
  // unknown, with no warning (SensorPoller: the attribute being read, and those it gave up on).
  using BeforeRead = std::function<bool(const std::filesystem::path& attribute)>;
  void set_before_read(BeforeRead before_read) { before_read_ = std::move(before_read); }

 private:
  std::filesystem::path root_;
  BeforeRead before_read_;
  std::set<std::string> reported_;  // every warning already given, so each is given once
};

}  // namespace earshot::governor
