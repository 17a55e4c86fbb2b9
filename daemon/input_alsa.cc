// alsa:DEVICE: AlsaSource under sd-event. A lost device is closed and reopened from a timer, the
// wait doubling from daemon.reopen_min_ms to daemon.reopen_max_ms; the loop keeps serving D-Bus
// meanwhile. The ALSA ring (daemon.alsa_buffer_ms) and the FrameQueue together absorb a stalled
// pipeline; beyond that the device overruns, which is counted as an xrun and recovered.
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
      : event_(event), hooks_(std::move(hooks)) {
    options_.device = std::move(device);
    options_.buffer_ms = static_cast<int>(config.Int("daemon.alsa_buffer_ms"));
    options_.period_ms = static_cast<int>(config.Int("daemon.alsa_period_ms"));
    options_.resampler_quality = config.String("audio.resampler_quality");
    reopen_min_usec_ = static_cast<uint64_t>(config.Int("daemon.reopen_min_ms")) * 1000;
    reopen_max_usec_ = std::max(reopen_min_usec_,
                                static_cast<uint64_t>(config.Int("daemon.reopen_max_ms")) * 1000);
  }

  Status Start() override {
    auto source = audio::AlsaSource::Open(options_);
    if (!source.ok()) return source.error();
    int r = Attach(std::move(source).value());
    if (r < 0) return Error{"ALSA device " + options_.device + ": cannot watch it: " + strerror(-r)};
    Log(LOG_INFO, "capturing from %s", source_->description().c_str());
    return OkStatus();
  }

  void Resume() override {
    paused_ = false;
    if (source_) Drain();
  }
  uint64_t xruns() const override { return xruns_before_ + (source_ ? source_->xruns() : 0); }
  uint64_t reopens() const override { return reopens_; }
  bool capturing() const override { return source_ != nullptr; }
  std::string description() const override {
    return source_ ? source_->description() : options_.device + " (lost, reopening)";
  }

 private:
  int Attach(std::unique_ptr<audio::AlsaSource> source);
  void Detach();
  void Drain();
  void Lost(const Error& error);
  void ScheduleReopen();
  static int OnIo(sd_event_source* s, int fd, uint32_t revents, void* userdata);
  static int OnReopen(sd_event_source* s, uint64_t usec, void* userdata);

  sd_event* event_;
  InputHooks hooks_;
  audio::AlsaOptions options_;
  std::unique_ptr<audio::AlsaSource> source_;
  std::vector<EventSourcePtr> io_;
  EventSourcePtr reopen_timer_;
  uint64_t reopen_min_usec_ = 0, reopen_max_usec_ = 0, reopen_wait_usec_ = 0;
  uint64_t xruns_before_ = 0;  // xruns of the sources closed so far
  uint64_t reopens_ = 0;
  bool paused_ = false;
};

int AlsaInput::Attach(std::unique_ptr<audio::AlsaSource> source) {
  source_ = std::move(source);
  for (const pollfd& p : source_->poll_fds()) {
    sd_event_source* s = nullptr;
    int r = sd_event_add_io(event_, &s, p.fd, static_cast<uint32_t>(p.events), OnIo, this);
    if (r < 0) {
      Detach();
      return r;
    }
    io_.emplace_back(s);
  }
  return 0;
}

void AlsaInput::Detach() {
  io_.clear();
  if (source_) xruns_before_ += source_->xruns();
  source_.reset();
}

int AlsaInput::OnIo(sd_event_source*, int fd, uint32_t revents, void* userdata) {
  auto* self = static_cast<AlsaInput*>(userdata);
  if (!self->source_ || self->paused_) return 0;
  if (self->source_->Ready(fd, static_cast<short>(revents))) self->Drain();
  return 0;
}

// Reads what the device has into the queue; pauses (IO sources off) while the queue is full.
void AlsaInput::Drain() {
  const uint64_t xruns_seen = xruns();
  FrameQueue& queue = *hooks_.queue;
  const auto capacity = static_cast<int>(queue.stats().capacity);
  for (;;) {
    const int room = capacity - static_cast<int>(queue.size());
    if (room <= 0) {
      paused_ = true;
      for (EventSourcePtr& s : io_) sd_event_source_set_enabled(s.get(), SD_EVENT_OFF);
      hooks_.want_space();
      break;
    }
    const uint64_t now = MonotonicUsec();
    Result<int> got = source_->Read(room, [&](const audio::Frame& f) { queue.Push(f, now); });
    if (!got.ok()) {
      Lost(got.error());
      return;
    }
    if (*got < room) break;  // the device has nothing more now
  }
  if (!paused_) {
    for (EventSourcePtr& s : io_) sd_event_source_set_enabled(s.get(), SD_EVENT_ON);
  }
  if (xruns() != xruns_seen) hooks_.on_change();
}

void AlsaInput::Lost(const Error& error) {
  Log(LOG_WARNING, "%s; reopening", error.message.c_str());
  Detach();
  paused_ = false;
  reopen_wait_usec_ = reopen_min_usec_;
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
  self->Drain();
  return 0;
}

}  // namespace

std::unique_ptr<Input> MakeAlsaInput(std::string device, const config::Config& config,
                                     sd_event* event, InputHooks hooks) {
  return std::make_unique<AlsaInput>(std::move(device), config, event, std::move(hooks));
}

}  // namespace earshot::daemon
