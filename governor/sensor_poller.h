// SensorPoller: the sensors (sensors.h) read on a thread of their own, so that an attribute that
// does not answer never holds the caller (earshotd's loop, which captures and serves D-Bus, or
// earshot run). A sysfs read runs the driver's show(), which may wait on an embedded controller or
// an I2C fuel gauge: a hung one holds the reading thread for seconds or for good, and O_NONBLOCK
// changes nothing for a regular file (nor for a FUSE file under a fake root).
//
// A read still running kStuckMs after it began is given up: the attribute it waits on is reported
// once (a warning in the next sample), reads as unknown and is skipped by every later read, which
// a fresh thread makes. The stuck thread is left in its read, detached, touching only its own
// state, and ends if that read ever returns: one thread per stuck attribute at most. A read stuck
// before its first attribute (a directory that does not answer) ends the polling.
//
// Threading: the methods are for one thread; `done` runs on the reading thread, after a read the
// poller has not given up.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "governor/sensors.h"

namespace earshot::governor {

class SensorPoller {
 public:
  // sysfs answers in microseconds, a slow I2C gauge in tens of milliseconds.
  static constexpr int kStuckMs = 1000;

  explicit SensorPoller(std::filesystem::path sysfs_root, std::function<void()> done = {});
  ~SensorPoller();  // joins the thread, or leaves it to a read that has not returned
  SensorPoller(const SensorPoller&) = delete;
  SensorPoller& operator=(const SensorPoller&) = delete;

  // Begins a read unless one is under way; one under way for kStuckMs is given up and a new one
  // begun. Never waits.
  void Start();
  // The last finished read's sample, once; nullopt while a read runs and no warning waits.
  std::optional<SensorSample> Take();
  // Start(), then the sample, waiting up to kStuckMs per stuck attribute: for a caller to whom a
  // poll is part of its work (earshot run's stream time) rather than something to wait for.
  SensorSample Read();

 private:
  struct Shared;  // between the caller and one reading thread
  void Spawn();
  void GiveUp(const std::string& attribute);

  std::filesystem::path root_;
  std::function<void()> done_;
  std::shared_ptr<Shared> shared_;  // the current reading thread's; null once stopped
  std::thread thread_;
  std::set<std::string> skipped_;      // attributes given up on
  std::vector<std::string> warnings_;  // of reads given up, for the next sample
  std::set<std::string> reported_;     // warnings given, across threads: each is given once
};

}  // namespace earshot::governor
