#include "governor/sensor_poller.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace earshot::governor {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStuck = std::chrono::milliseconds(SensorPoller::kStuckMs);
constexpr int kMaxWaits = 8;  // Read(): a tree of stuck attributes costs at most 8 s

}  // namespace

struct SensorPoller::Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool requested = false;  // a read is wanted
  bool busy = false;       // a read runs, since `began`
  bool abandoned = false;  // given up, or the poller is gone: no `done`, no sample
  Clock::time_point began;
  std::string attribute;  // the one being read; "" before the read's first
  std::optional<SensorSample> sample;
};

SensorPoller::SensorPoller(std::filesystem::path sysfs_root, std::function<void()> done)
    : root_(std::move(sysfs_root)), done_(std::move(done)) {
  Spawn();
}

SensorPoller::~SensorPoller() {
  if (!shared_) return;
  bool busy = false;
  {
    std::lock_guard lock(shared_->mu);
    shared_->abandoned = true;
    busy = shared_->busy;
    shared_->cv.notify_all();
  }
  // A read in progress may never return; the thread ends by itself when it does.
  if (busy) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void SensorPoller::Spawn() {
  shared_ = std::make_shared<Shared>();
  thread_ = std::thread([shared = shared_, root = root_, skipped = skipped_, done = done_] {
    SensorReader reader(root);
    reader.set_before_read([&](const std::filesystem::path& attribute) {
      if (skipped.contains(attribute.string())) return false;
      std::lock_guard lock(shared->mu);
      shared->attribute = attribute.string();
      return true;
    });
    std::unique_lock lock(shared->mu);
    for (;;) {
      shared->cv.wait(lock, [&] { return shared->requested || shared->abandoned; });
      if (shared->abandoned) return;
      shared->requested = false;
      shared->busy = true;
      shared->began = Clock::now();
      shared->attribute.clear();
      lock.unlock();
      SensorSample sample = reader.Read();
      lock.lock();
      shared->busy = false;
      if (shared->abandoned) return;
      shared->sample = std::move(sample);
      shared->cv.notify_all();
      if (done) done();  // under the lock: the poller cannot abandon (and be gone) meanwhile
    }
  });
}

void SensorPoller::Start() {
  if (!shared_) return;
  std::string stuck;
  {
    std::lock_guard lock(shared_->mu);
    if (!shared_->busy) {
      shared_->requested = true;
      shared_->cv.notify_all();
      return;
    }
    if (Clock::now() - shared_->began < kStuck) return;
    shared_->abandoned = true;
    stuck = shared_->attribute;
  }
  GiveUp(stuck);
  Start();
}

// The current thread is stuck reading `attribute`: it is left there, and the reads go on
// without that attribute on a new thread.
void SensorPoller::GiveUp(const std::string& attribute) {
  thread_.detach();
  const std::string late = " did not answer in " + std::to_string(kStuckMs) + " ms";
  if (attribute.empty()) {
    warnings_.push_back("sensors under " + root_.string() + late + ": not read again");
    shared_.reset();
    return;
  }
  warnings_.push_back(attribute + late + " (a stuck sensor?): unknown from now on, not read again");
  skipped_.insert(attribute);
  Spawn();
}

std::optional<SensorSample> SensorPoller::Take() {
  std::optional<SensorSample> sample;
  if (shared_) {
    std::lock_guard lock(shared_->mu);
    sample.swap(shared_->sample);
  }
  if (!sample && warnings_.empty()) return std::nullopt;
  if (!sample) sample.emplace();
  std::vector<std::string> warnings = std::move(warnings_);
  warnings_.clear();
  for (std::string& w : sample->warnings) warnings.push_back(std::move(w));
  sample->warnings.clear();
  for (std::string& w : warnings) {
    if (reported_.insert(w).second) sample->warnings.push_back(std::move(w));
  }
  return sample;
}

SensorSample SensorPoller::Read() {
  Start();
  for (int waits = 0; shared_ && waits < kMaxWaits; ++waits) {
    {
      std::unique_lock lock(shared_->mu);
      // Until the read is kStuckMs old (it may not have begun yet: then a whole kStuckMs).
      const Clock::time_point until = (shared_->busy ? shared_->began : Clock::now()) + kStuck;
      if (shared_->cv.wait_until(lock, until, [&] { return shared_->sample.has_value(); })) break;
    }
    Start();  // gives up the stuck read and begins another
  }
  return Take().value_or(SensorSample{});
}

}  // namespace earshot::governor
