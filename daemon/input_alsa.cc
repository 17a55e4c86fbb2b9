// alsa:DEVICE: AlsaSource under sd-event. A lost device is closed and reopened from a timer, the
// wait doubling from daemon.reopen_min_ms to daemon.reopen_max_ms; the loop keeps serving D-Bus
// meanwhile. The ALSA ring (daemon.alsa_buffer_ms) and the FrameQueue together absorb a stalled
// pipeline; beyond that the device overruns, which is counted as an xrun and recovered, once per
// wake-up. A device that overruns on every read (kStormReads wake-ups in a row without a frame) is
// closed and reopened like a lost one, the wait doubling while the storm goes on.
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "audio/alsa_source.h"
#include "daemon/input.h"
#include "daemon/log.h"

namespace earshot::daemon {
namespace {

class AlsaInput final : public Input {
 public:
  AlsaInput(std::string device, const config::Config& config, sd_event* event, InputHooks hooks)
      : event_(event),
        hooks_(std::move(hooks)),
        options_(AlsaCaptureOptions(std::move(device), config)) {
    const ReopenWaits waits = ReopenWaits::FromConfig(config);
    reopen_min_usec_ = waits.min_usec;
    reopen_max_usec_ = waits.max_usec;
  }

  Status Start() override {
    auto source = audio::AlsaSource::Open(options_);
    if (!source.ok()) return source.error();
    int r = Attach(std::move(source).value());
    if (r < 0)
      return Error{"ALSA device " + options_.device + ": cannot watch it: " + strerror(-r)};
    Log(LOG_INFO, "capturing from %s", source_->description().c_str());
    return OkStatus();
  }

  void Resume() override {
    paused_ = false;
    if (!source_) return;
    if (pace_timer_) {
      sd_event_source_set_enabled(pace_timer_.get(), SD_EVENT_ON);
    } else {
      Drain(kNoLimit);
    }
  }
  uint64_t xruns() const override { return xruns_before_ + (source_ ? source_->xruns() : 0); }
  uint64_t reopens() const override { return reopens_; }
  bool capturing() const override { return source_ != nullptr; }
  std::string description() const override {
    return source_ ? source_->description() : options_.device + " (lost, reopening)";
  }

 private:
  static constexpr int kNoLimit = 1 << 30;
  static constexpr int kStormReads = 16;
  int Attach(std::unique_ptr<audio::AlsaSource> source);
  int AttachTimer();
  void Detach();
  int Drain(int limit);
  void Lost(const Error& error, uint64_t wait_usec);
  void CountXruns(uint64_t xruns_seen, int queued);
  void ScheduleReopen();
  static int OnIo(sd_event_source* s, int fd, uint32_t revents, void* userdata);
  static int OnReopen(sd_event_source* s, uint64_t usec, void* userdata);
  static int OnPace(sd_event_source* s, uint64_t usec, void* userdata);

  sd_event* event_;
  InputHooks hooks_;
  audio::AlsaOptions options_;
  std::unique_ptr<audio::AlsaSource> source_;
  std::vector<EventSourcePtr> io_;
  EventSourcePtr pace_timer_;  // for PCMs whose descriptors epoll cannot watch
  uint64_t paced_since_usec_ = 0;
  int64_t paced_frames_ = 0;
  EventSourcePtr reopen_timer_;
  uint64_t reopen_min_usec_ = 0, reopen_max_usec_ = 0, reopen_wait_usec_ = 0;
  uint64_t xruns_before_ = 0;  // xruns of the sources closed so far
  uint64_t reopens_ = 0;
  int storm_reads_ = 0;           // wake-ups in a row that recovered an overrun and read nothing
  uint64_t storm_wait_usec_ = 0;  // the wait before reopening after the last storm (0: none)
  bool paused_ = false;
};

int AlsaInput::Attach(std::unique_ptr<audio::AlsaSource> source) {
  source_ = std::move(source);
  for (const pollfd& p : source_->poll_fds()) {
    sd_event_source* s = nullptr;
    // ALSA's events can include POLLNVAL, which epoll neither takes nor needs.
    const uint32_t events =
        static_cast<uint32_t>(p.events) & (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLPRI);
    int r = sd_event_add_io(event_, &s, p.fd, events, OnIo, this);
    if (r == -EPERM) return AttachTimer();
    if (r < 0) {
      Detach();
      return r;
    }
    io_.emplace_back(s);
  }
  return 0;
}

// A descriptor that epoll refuses (a plain file or /dev/null, as ALSA's null and file plugins
// give) is always ready by poll(2)'s rules: such a PCM is read at the pace of real time instead,
// from a timer that fires every period.
int AlsaInput::AttachTimer() {
  io_.clear();
  paced_since_usec_ = MonotonicUsec();
  paced_frames_ = 0;
  sd_event_source* s = nullptr;
  const uint64_t period_usec = static_cast<uint64_t>(options_.period_ms) * 1000;
  int r = sd_event_add_time_relative(event_, &s, CLOCK_MONOTONIC, period_usec, 1000, OnPace, this);
  if (r < 0) {
    Detach();
    return r;
  }
  pace_timer_.reset(s);
  sd_event_source_set_enabled(s, SD_EVENT_ON);
  return 0;
}

int AlsaInput::OnPace(sd_event_source* s, uint64_t, void* userdata) {
  auto* self = static_cast<AlsaInput*>(userdata);
  const uint64_t now = MonotonicUsec();
  const auto due = static_cast<int64_t>((now - self->paced_since_usec_) / (audio::kFrameMs * 1000));
  sd_event_source_set_time(s, now + static_cast<uint64_t>(self->options_.period_ms) * 1000);
  if (!self->source_ || self->paused_) return 0;
  self->paced_frames_ += self->Drain(static_cast<int>(due - self->paced_frames_));
  return 0;
}

void AlsaInput::Detach() {
  io_.clear();
  pace_timer_.reset();
  if (source_) xruns_before_ += source_->xruns();
  source_.reset();
}

int AlsaInput::OnIo(sd_event_source*, int fd, uint32_t revents, void* userdata) {
  auto* self = static_cast<AlsaInput*>(userdata);
  if (!self->source_ || self->paused_) return 0;
  if (self->source_->Ready(fd, static_cast<short>(revents))) self->Drain(kNoLimit);
  return 0;
}

// Reads what the device has (at most `limit` frames) into the queue; pauses (sources off) while
// the queue is full. Returns the frames queued.
int AlsaInput::Drain(int limit) {
  const uint64_t xruns_seen = xruns();
  FrameQueue& queue = *hooks_.queue;
  const auto capacity = static_cast<int>(queue.stats().capacity);
  int queued = 0;
  while (queued < limit) {
    const int room = std::min(capacity - static_cast<int>(queue.size()), limit - queued);
    if (room <= 0) {
      paused_ = true;
      for (EventSourcePtr& s : io_) sd_event_source_set_enabled(s.get(), SD_EVENT_OFF);
      if (pace_timer_) sd_event_source_set_enabled(pace_timer_.get(), SD_EVENT_OFF);
      hooks_.want_space();
      break;
    }
    const uint64_t now = MonotonicUsec();
    Result<int> got = source_->Read(room, [&](const audio::Frame& f) { queue.Push(f, now); });
    if (!got.ok()) {
      Lost(got.error(), reopen_min_usec_);
      return queued;
    }
    queued += *got;
    if (*got < room) break;  // the device has nothing more now
  }
  if (!paused_) {
    for (EventSourcePtr& s : io_) sd_event_source_set_enabled(s.get(), SD_EVENT_ON);
  }
  CountXruns(xruns_seen, queued);
  return queued;
}

// After a Drain: logs the first overrun of a run, and reopens the device when overruns alone keep
// coming (storm_reads_), with a longer wait each time the storm outlasts a reopen.
void AlsaInput::CountXruns(uint64_t xruns_seen, int queued) {
  if (queued > 0) {
    storm_reads_ = 0;
    storm_wait_usec_ = 0;
  }
  if (xruns() == xruns_seen) return;
  if (queued == 0 && ++storm_reads_ >= kStormReads) {
    storm_reads_ = 0;
    storm_wait_usec_ = std::min(std::max(storm_wait_usec_ * 2, reopen_min_usec_), reopen_max_usec_);
    Lost(Error{"ALSA device " + options_.device + ": an overrun on every read (" +
               std::to_string(kStormReads) + " in a row, " + std::to_string(xruns()) + " so far)"},
         storm_wait_usec_);
    return;
  }
  if (storm_reads_ <= 1) {
    Log(LOG_WARNING, "%s: overrun recovered (%llu so far)", options_.device.c_str(),
        static_cast<unsigned long long>(xruns()));
  }
  hooks_.on_change();
}

void AlsaInput::Lost(const Error& error, uint64_t wait_usec) {
  Log(LOG_WARNING, "%s; reopening", error.message.c_str());
  Detach();
  paused_ = false;
  reopen_wait_usec_ = wait_usec;
  ScheduleReopen();
  hooks_.on_change();
}

void AlsaInput::ScheduleReopen() {
  const uint64_t when = MonotonicUsec() + reopen_wait_usec_;
  if (reopen_timer_) {
    sd_event_source_set_time(reopen_timer_.get(), when);
    sd_event_source_set_enabled(reopen_timer_.get(), SD_EVENT_ONESHOT);
    return;
  }
  sd_event_source* s = nullptr;
  int r = sd_event_add_time(event_, &s, CLOCK_MONOTONIC, when, 10000, OnReopen, this);
  if (r < 0) {
    Log(LOG_ERR, "cannot schedule reopening %s: %s", options_.device.c_str(), strerror(-r));
    return;
  }
  reopen_timer_.reset(s);
}

int AlsaInput::OnReopen(sd_event_source*, uint64_t, void* userdata) {
  auto* self = static_cast<AlsaInput*>(userdata);
  auto source = audio::AlsaSource::Open(self->options_);
  if (!source.ok()) {
    self->reopen_wait_usec_ = std::min(self->reopen_wait_usec_ * 2, self->reopen_max_usec_);
    Log(LOG_INFO, "%s; next try in %llu ms", source.error().message.c_str(),
        static_cast<unsigned long long>(self->reopen_wait_usec_ / 1000));
    self->ScheduleReopen();
    return 0;
  }
  int r = self->Attach(std::move(source).value());
  if (r < 0) {
    Log(LOG_WARNING, "cannot watch %s: %s", self->options_.device.c_str(), strerror(-r));
    self->ScheduleReopen();
    return 0;
  }
  ++self->reopens_;
  Log(LOG_NOTICE, "capture reopened: %s", self->source_->description().c_str());
  self->hooks_.on_change();
  if (!self->pace_timer_) self->Drain(kNoLimit);
  return 0;
}

}  // namespace

audio::AlsaOptions AlsaCaptureOptions(std::string device, const config::Config& config) {
  audio::AlsaOptions options;
  options.device = std::move(device);
  options.buffer_ms = static_cast<int>(config.Int("daemon.alsa_buffer_ms"));
  options.period_ms = static_cast<int>(config.Int("daemon.alsa_period_ms"));
  options.resampler_quality = config.String("audio.resampler_quality");
  return options;
}

ReopenWaits ReopenWaits::FromConfig(const config::Config& config) {
  ReopenWaits waits;
  waits.min_usec = static_cast<uint64_t>(config.Int("daemon.reopen_min_ms")) * 1000;
  waits.max_usec =
      std::max(waits.min_usec, static_cast<uint64_t>(config.Int("daemon.reopen_max_ms")) * 1000);
  return waits;
}

std::unique_ptr<Input> MakeAlsaInput(std::string device, const config::Config& config,
                                     sd_event* event, InputHooks hooks) {
  return std::make_unique<AlsaInput>(std::move(device), config, event, std::move(hooks));
}

}  // namespace earshot::daemon
