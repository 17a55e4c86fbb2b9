#include "daemon/reference.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include "daemon/input.h"
#include "daemon/log.h"

namespace earshot::daemon {
namespace {

constexpr size_t kChunkBytes = 16384;  // read from the FIFO at a time
constexpr int kPollMs = 100;           // the reader sees a stop this often

std::optional<int> Number(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<ReferenceSpec> ParseReferenceSpec(std::string_view spec) {
  const std::string named = "--reference " + std::string(spec);
  if (!spec.starts_with("pipe:") || spec.size() == 5) {
    return Error{named + ": expected pipe:PATH[:RATE[:CHANNELS]]"};
  }
  std::string_view rest = spec.substr(5);
  std::vector<int> numbers;  // from the right: CHANNELS then RATE, or RATE
  for (int k = 0; k < 2; ++k) {
    const size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) break;
    const std::optional<int> n = Number(rest.substr(colon + 1));
    if (!n) break;
    numbers.insert(numbers.begin(), *n);
    rest = rest.substr(0, colon);
  }
  ReferenceSpec out;
  out.path = std::string(rest);
  if (!numbers.empty()) out.format.rate = numbers[0];
  if (numbers.size() > 1) out.format.channels = numbers[1];
  if (out.path.empty()) return Error{named + ": no PATH"};
  if (Status s = out.format.Check(); !s.ok()) return Error{named + ": " + s.error().message};
  return out;
}

Result<std::unique_ptr<PipeReference>> PipeReference::Open(const ReferenceSpec& spec,
                                                           const config::Config& config,
                                                           size_t backlog_frames) {
  const std::string& path = spec.path;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT || mkfifo(path.c_str(), 0660) != 0) {
      return Error{"--reference '" + path + "': cannot create the FIFO: " + std::strerror(errno)};
    }
  } else if (!S_ISFIFO(st.st_mode)) {
    return Error{"--reference '" + path + "': not a FIFO (mkfifo it, or name a new path)"};
  }
  // Read and write: opening never waits for a player, and a player that closes is no end.
  const int fd = open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{"--reference '" + path + "': " + std::strerror(errno)};
  auto pcm = audio::PcmStream::Create(spec.format, config.String("audio.resampler_quality"));
  if (!pcm.ok()) {
    close(fd);
    return Error{"--reference '" + path + "': " + pcm.error().message};
  }
  auto reference = std::unique_ptr<PipeReference>(
      new PipeReference(fd, spec, std::move(pcm).value(), backlog_frames + kLeadFrames));
  reference->reader_ = std::thread(&PipeReference::Read, reference.get());
  return reference;
}

PipeReference::PipeReference(int fd, const ReferenceSpec& spec,
                             std::unique_ptr<audio::PcmStream> pcm, size_t capacity)
    : fd_(fd),
      spec_(spec),
      pcm_(std::move(pcm)),
      description_("pipe:" + spec.path + " (" + std::to_string(spec.format.rate) + " Hz, " +
                   std::to_string(spec.format.channels) + " channel" +
                   (spec.format.channels > 1 ? "s" : "") + ", 16-bit)"),
      capacity_(capacity) {
  read_frames_.reserve(128);  // a read's frames: 16 KiB of 8 kHz mono is 103
}

PipeReference::~PipeReference() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  if (reader_.joinable()) reader_.join();  // it polls every kPollMs
  close(fd_);
}

std::optional<audio::Frame> PipeReference::Pop(uint64_t captured_usec) {
  const uint64_t slot = captured_usec - std::min(captured_usec, kLagUsec);
  std::lock_guard lock(mutex_);
  while (!ring_.empty() && ring_.front().played_usec + kHalfFrameUsec < slot) {
    ring_.pop_front();
    ++dropped_;
  }
  if (ring_.empty() || ring_.front().played_usec > slot + kHalfFrameUsec) return std::nullopt;
  audio::Frame frame = ring_.front().frame;
  ring_.pop_front();
  return frame;
}

uint64_t PipeReference::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void PipeReference::Keep(std::span<const audio::Frame> frames, uint64_t now_usec) {
  // A player that fell behind (or starts): this read's frames were played up to now.
  constexpr uint64_t kFrameUsec = audio::kFrameMs * 1000;
  if (next_usec_ + kAnchorUsec < now_usec) next_usec_ = now_usec - frames.size() * kFrameUsec;
  std::lock_guard lock(mutex_);
  for (const audio::Frame& frame : frames) {
    if (ring_.size() == capacity_) {
      ring_.pop_front();
      ++dropped_;
    }
    ring_.push_back({frame, next_usec_});
    next_usec_ += kFrameUsec;
  }
}

void PipeReference::Read() {
  std::vector<uint8_t> bytes(kChunkBytes);
  bool failed = false;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    const ssize_t got = read(fd_, bytes.data(), bytes.size());
    if (got <= 0) {
      if (got < 0 && errno != EAGAIN && errno != EINTR && !failed) {
        Log(LOG_ERR, "reference %s: read: %s", spec_.path.c_str(), std::strerror(errno));
        failed = true;  // said once; the microphone passes unchanged meanwhile
      }
      continue;
    }
    read_frames_.clear();
    (void)pcm_->Push(std::span<const uint8_t>(bytes.data(), static_cast<size_t>(got)),
                     [this](const audio::Frame& f) { read_frames_.push_back(f); });
    Keep(read_frames_, MonotonicUsec());
  }
}

}  // namespace earshot::daemon
