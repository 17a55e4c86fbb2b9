// alsa:DEVICE as the reference: an ALSA capture PCM that carries what the device plays (an ALSA
// loopback, snd-aloop, or a PipeWire/PulseAudio monitor through their ALSA plugins), read by the
// Reference's thread through audio::AlsaSource (any rate, channels and sample format, converted).
// The PCM's descriptors are watched with epoll; a PCM whose descriptors epoll refuses (ALSA's file
// and null plugins) is read at the pace of real time instead, as the microphone's input is
// (input_alsa.cc). A lost device is closed and reopened, the wait doubling from
// daemon.reopen_min_ms to daemon.reopen_max_ms; meanwhile the microphone passes unchanged.
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "audio/alsa_source.h"
#include "daemon/input.h"
#include "daemon/log.h"
#include "daemon/reference.h"

namespace earshot::daemon {
namespace {

constexpr int kMaxFrames = 1 << 16;  // a read takes whatever the device holds

class AlsaReference final : public ReferenceSource {
 public:
  AlsaReference(const ReferenceSpec& spec, const config::Config& config)
      : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
        options_(AlsaCaptureOptions(spec.path, config)),
        waits_(ReopenWaits::FromConfig(config)) {}
  ~AlsaReference() override {
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  Status Start() {
    if (epoll_fd_ < 0)
      return Error{"--reference alsa:" + options_.device + ": epoll: " + std::strerror(errno)};
    auto source = audio::AlsaSource::Open(options_);
    if (!source.ok())
      return Error{"--reference alsa:" + options_.device + ": " + source.error().message};
    description_ = "alsa:" + options_.device + " (" + (*source)->description() + ")";
    Attach(std::move(source).value());
    return OkStatus();
  }

  void ReadSome(std::vector<audio::Frame>& frames) override {
    if (!source_) return Reopen();
    if (paced_) return ReadPaced(frames);
    std::array<epoll_event, 8> events{};
    const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), kPollMs);
    bool ready = false;
    for (int k = 0; k < n; ++k) {
      ready |= source_->Ready(events[k].data.fd, static_cast<short>(events[k].events));
    }
    if (ready) ReadAvailable(kMaxFrames, frames);
  }

  std::string description() const override { return description_; }

 private:
  void Attach(std::unique_ptr<audio::AlsaSource> source) {
    source_ = std::move(source);
    paced_ = false;
    for (const pollfd& p : source_->poll_fds()) {
      epoll_event e{};
      e.events = static_cast<uint32_t>(p.events) & (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLPRI);
      e.data.fd = p.fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, p.fd, &e) != 0) paced_ = true;  // EPERM: a file
    }
    paced_since_usec_ = MonotonicUsec();
    paced_frames_ = 0;
  }

  void Detach() {
    for (const pollfd& p : source_->poll_fds()) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, p.fd, nullptr);
    source_.reset();
  }

  // A PCM epoll cannot watch is always ready: read what real time has made due, every period.
  void ReadPaced(std::vector<audio::Frame>& frames) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.period_ms));
    const auto due =
        static_cast<int64_t>((MonotonicUsec() - paced_since_usec_) / (audio::kFrameMs * 1000));
    if (due > paced_frames_)
      paced_frames_ += ReadAvailable(static_cast<int>(due - paced_frames_), frames);
  }

  int ReadAvailable(int limit, std::vector<audio::Frame>& frames) {
    Result<int> got =
        source_->Read(limit, [&frames](const audio::Frame& f) { frames.push_back(f); });
    if (got.ok()) return *got;
    Log(LOG_WARNING, "reference %s; reopening", got.error().message.c_str());
    Detach();
    wait_usec_ = waits_.min_usec;
    retry_usec_ = MonotonicUsec() + wait_usec_;
    return 0;
  }

  void Reopen() {
    const uint64_t now = MonotonicUsec();
    if (now < retry_usec_) {
      const uint64_t wait = std::min<uint64_t>(retry_usec_ - now, kPollMs * 1000);
      std::this_thread::sleep_for(std::chrono::microseconds(wait));
      return;
    }
    auto source = audio::AlsaSource::Open(options_);
    if (!source.ok()) {
      wait_usec_ = std::min(std::max(wait_usec_ * 2, waits_.min_usec), waits_.max_usec);
      retry_usec_ = now + wait_usec_;
      Log(LOG_INFO, "reference %s; next try in %llu ms", source.error().message.c_str(),
          static_cast<unsigned long long>(wait_usec_ / 1000));
      return;
    }
    Attach(std::move(source).value());
    Log(LOG_NOTICE, "reference reopened: %s", source_->description().c_str());
  }

  int epoll_fd_;
  audio::AlsaOptions options_;
  std::string description_;
  std::unique_ptr<audio::AlsaSource> source_;
  bool paced_ = false;
  uint64_t paced_since_usec_ = 0;
  int64_t paced_frames_ = 0;
  ReopenWaits waits_;
  uint64_t wait_usec_ = 0, retry_usec_ = 0;
};

}  // namespace

Result<std::unique_ptr<ReferenceSource>> OpenAlsaSource(const ReferenceSpec& spec,
                                                        const config::Config& config) {
  auto reference = std::make_unique<AlsaReference>(spec, config);
  if (Status s = reference->Start(); !s.ok()) return s.error();
  return std::unique_ptr<ReferenceSource>(std::move(reference));
}

}  // namespace earshot::daemon
