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

#include "audio/converter.h"
#include "daemon/input.h"
#include "daemon/log.h"

namespace earshot::daemon {
namespace {

constexpr size_t kChunkFrames = 1024;  // read from the FIFO at a time, per channel
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
  if (!numbers.empty()) out.rate = numbers[0];
  if (numbers.size() > 1) out.channels = numbers[1];
  if (out.path.empty()) return Error{named + ": no PATH"};
  if (out.rate < 8000 || out.rate > 192000) {
    return Error{named + ": rate " + std::to_string(out.rate) + " Hz: expected 8000 to 192000"};
  }
  if (out.channels < 1 || out.channels > 8) {
    return Error{named + ": " + std::to_string(out.channels) + " channels: expected 1 to 8"};
  }
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
  auto reference = std::unique_ptr<PipeReference>(new PipeReference(
      fd, spec, config.String("audio.resampler_quality"), backlog_frames + kLeadFrames));
  reference->reader_ = std::thread(&PipeReference::Read, reference.get());
  return reference;
}

PipeReference::PipeReference(int fd, const ReferenceSpec& spec, std::string quality,
                             size_t capacity)
    : fd_(fd),
      spec_(spec),
      quality_(std::move(quality)),
      description_("pipe:" + spec.path + " (" + std::to_string(spec.rate) + " Hz, " +
                   std::to_string(spec.channels) + " channel" + (spec.channels > 1 ? "s" : "") +
                   ", 16-bit)"),
      capacity_(capacity) {}

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

void PipeReference::Keep(const int16_t* samples, size_t count, uint64_t now_usec) {
  // A player that fell behind (or starts): this stretch's frames were played up to now.
  const uint64_t whole = (partial_size_ + count) / audio::kFrameSamples;
  constexpr uint64_t kFrameUsec = audio::kFrameMs * 1000;
  if (next_usec_ + kAnchorUsec < now_usec) next_usec_ = now_usec - whole * kFrameUsec;
  while (count > 0) {
    const size_t take = std::min(count, audio::kFrameSamples - partial_size_);
    std::copy_n(samples, take, partial_.begin() + static_cast<std::ptrdiff_t>(partial_size_));
    partial_size_ += take;
    samples += take;
    count -= take;
    if (partial_size_ < audio::kFrameSamples) return;
    partial_size_ = 0;
    std::lock_guard lock(mutex_);
    if (ring_.size() == capacity_) {
      ring_.pop_front();
      ++dropped_;
    }
    ring_.push_back({partial_, next_usec_});
    next_usec_ += kFrameUsec;
  }
}

void PipeReference::Read() {
  auto converter = audio::Converter::Create(spec_.rate, spec_.channels, quality_, kChunkFrames);
  if (!converter.ok()) {
    Log(LOG_ERR, "reference: %s", converter.error().message.c_str());
    return;
  }
  const size_t frame_bytes = 2 * static_cast<size_t>(spec_.channels);
  std::vector<unsigned char> bytes(kChunkFrames * frame_bytes);
  std::vector<float> interleaved(kChunkFrames * static_cast<size_t>(spec_.channels));
  size_t held = 0;  // bytes of a sample frame not yet whole
  bool failed = false;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    const ssize_t got = read(fd_, bytes.data() + held, bytes.size() - held);
    if (got <= 0) {
      if (got < 0 && errno != EAGAIN && errno != EINTR && !failed) {
        Log(LOG_ERR, "reference %s: read: %s", spec_.path.c_str(), std::strerror(errno));
        failed = true;  // said once; the microphone passes unchanged meanwhile
      }
      continue;
    }
    const size_t total = held + static_cast<size_t>(got);
    const size_t frames = total / frame_bytes;
    const size_t values = frames * static_cast<size_t>(spec_.channels);
    for (size_t i = 0; i < values; ++i) {
      const auto v = static_cast<int16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));  // little-endian
      interleaved[i] = static_cast<float>(v) / 32768.0f;
    }
    if (values > 0) {
      Result<std::span<const int16_t>> out =
          (*converter)->Process(std::span<const float>(interleaved.data(), values));
      if (out.ok()) Keep(out->data(), out->size(), MonotonicUsec());
    }
    held = total - frames * frame_bytes;
    std::memmove(bytes.data(), bytes.data() + frames * frame_bytes, held);
  }
}

}  // namespace earshot::daemon
