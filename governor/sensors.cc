#include "governor/sensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "base/result.h"

namespace earshot::governor {
namespace {

namespace fs = std::filesystem;
using Problems = std::vector<std::string>;

constexpr int kMinTempMilliC = -40000;  // colder or hotter than a device survives: a bad sensor
constexpr int kMaxTempMilliC = 150000;

// The hook of the SensorReader::Read() running on this thread, if it has one (set for the call:
// the helpers below are free functions).
thread_local const SensorReader::BeforeRead* before_read_now = nullptr;

// The text of a sysfs attribute without its trailing newline, or the cause it could not be read.
// (POSIX read, not iostreams, to keep errno: sysfs reports a failing sensor as EIO or ENODATA.)
// Only a regular file is read, opened without blocking and read once into a bounded buffer: a
// FIFO or a device in its place (a fake tree, a mistake) would block the caller's loop for good.
// One the hook skips is an error without a message, which is no problem to report.
Result<std::string> ReadAttribute(const fs::path& path) {
  if (before_read_now != nullptr && !(*before_read_now)(path)) return Error{""};
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error{path.string() + ": " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path.string() + ": " +
                 (S_ISDIR(st.st_mode) ? std::strerror(EISDIR)
                                      : "not a regular file (a FIFO or a device?): skipped")};
  }
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) return Error{path.string() + ": " + std::strerror(read_errno)};
  std::string text(buf, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// An integer attribute within [min, max]; anything else is a problem and nullopt.
std::optional<int> ReadInt(const fs::path& path, int min, int max, Problems* problems) {
  Result<std::string> text = ReadAttribute(path);
  if (!text.ok()) {
    problems->push_back(text.error().message);
    return std::nullopt;
  }
  int v = 0;
  const char* end = text->data() + text->size();
  auto [p, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || p != end || v < min || v > max) {
    problems->push_back(path.string() + ": '" + *text + "' is not an integer in [" +
                        std::to_string(min) + ", " + std::to_string(max) + "]");
    return std::nullopt;
  }
  return v;
}

// The entries of `dir` whose names start with `prefix`, sorted (a missing directory has none).
std::vector<fs::path> Entries(const fs::path& dir, std::string_view prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What the power supplies say, summed over them.
struct SupplyTally {
  int battery_percent_sum = 0;
  int batteries = 0;
  bool external_online = false;
  bool external_offline = false;
  bool battery_charging = false;     // Charging or Full
  bool battery_discharging = false;  // Discharging or Not charging
};

void ReadBattery(const fs::path& dir, SupplyTally* tally, Problems* problems) {
  if (std::optional<int> capacity = ReadInt(dir / "capacity", 0, 100, problems)) {
    tally->battery_percent_sum += *capacity;
    ++tally->batteries;
  }
  Result<std::string> status = ReadAttribute(dir / "status");
  if (!status.ok()) {
    problems->push_back(status.error().message);
  } else if (*status == "Charging" || *status == "Full") {
    tally->battery_charging = true;
  } else if (*status == "Discharging" || *status == "Not charging") {
    tally->battery_discharging = true;
  } else if (*status != "Unknown") {
    problems->push_back((dir / "status").string() + ": unknown status '" + *status + "'");
  }
}

// The kernel names every supply's `type`; a tree without it (the governor's contract lists only
// capacity, status and online) is read by what it has: a supply with a capacity is a battery.
bool IsBattery(const fs::path& dir) {
  Result<std::string> type = ReadAttribute(dir / "type");
  if (type.ok()) return *type == "Battery";
  std::error_code ec;
  return fs::exists(dir / "capacity", ec);
}

void ReadSupply(const fs::path& dir, SupplyTally* tally, Problems* problems) {
  Result<std::string> scope = ReadAttribute(dir / "scope");  // optional attribute: absent = System
  if (scope.ok() && *scope == "Device") return;
  if (IsBattery(dir)) {
    ReadBattery(dir, tally, problems);
    return;
  }
  // online: 0 offline, 1 online (USB supplies may also say 2: online, programmable).
  if (std::optional<int> online = ReadInt(dir / "online", 0, 2, problems)) {
    (*online > 0 ? tally->external_online : tally->external_offline) = true;
  }
}

std::optional<bool> Charging(const SupplyTally& t) {
  if (t.external_online || t.battery_charging) return true;
  if (t.battery_discharging || t.external_offline) return false;
  return std::nullopt;
}

std::optional<int> HottestZone(const fs::path& thermal_dir, Problems* problems) {
  std::optional<int> hottest;
  for (const fs::path& zone : Entries(thermal_dir, "thermal_zone")) {
    std::optional<int> t = ReadInt(zone / "temp", kMinTempMilliC, kMaxTempMilliC, problems);
    if (t && (!hottest || *t > *hottest)) hottest = t;
  }
  return hottest;
}

}  // namespace

SensorSample SensorReader::Read() {
  before_read_now = before_read_ ? &before_read_ : nullptr;
  Problems problems;
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) {
    problems.push_back("sysfs root " + root_.string() + ": not a directory");
  }
  SupplyTally tally;
  for (const fs::path& supply : Entries(root_ / "class" / "power_supply", "")) {
    ReadSupply(supply, &tally, &problems);
  }
  SensorSample sample;
  if (tally.batteries > 0) {
    // Mean of the batteries, rounded: a laptop drains one of two batteries first.
    sample.readings.battery_percent =
        (tally.battery_percent_sum + tally.batteries / 2) / tally.batteries;
  }
  sample.readings.charging = Charging(tally);
  sample.readings.temp_milli_c = HottestZone(root_ / "class" / "thermal", &problems);
  before_read_now = nullptr;
  for (std::string& p : problems) {
    if (!p.empty() && reported_.insert(p).second) sample.warnings.push_back(std::move(p));
  }
  return sample;
}

}  // namespace earshot::governor
