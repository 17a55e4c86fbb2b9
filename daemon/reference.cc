#include "daemon/reference.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "daemon/input.h"

namespace earshot::daemon {
namespace {

constexpr std::string_view kExpected = "expected pipe:PATH[:RATE[:CHANNELS]] or alsa:DEVICE";

std::optional<int> Number(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Result<ReferenceSpec> ParsePipeSpec(std::string_view rest, const std::string& named) {
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

}  // namespace

Result<ReferenceSpec> ParseReferenceSpec(std::string_view spec) {
  const std::string named = "--reference " + std::string(spec);
  if (spec.starts_with("pipe:") && spec.size() > 5) return ParsePipeSpec(spec.substr(5), named);
  if (spec.starts_with("alsa:") && spec.size() > 5) {
    ReferenceSpec out;
    out.kind = ReferenceSpec::Kind::kAlsa;
    out.path = std::string(spec.substr(5));
    return out;
  }
  return Error{named + ": " + std::string(kExpected)};
}

Result<std::unique_ptr<Reference>> Reference::Open(const ReferenceSpec& spec,
                                                   const config::Config& config,
                                                   size_t backlog_frames) {
  Result<std::unique_ptr<ReferenceSource>> source = spec.kind == ReferenceSpec::Kind::kAlsa
                                                        ? OpenAlsaSource(spec, config)
                                                        : OpenPipeSource(spec, config);
  if (!source.ok()) return source.error();
  std::string description = (*source)->description();
  auto reference = std::unique_ptr<Reference>(new Reference(
      std::move(source).value(), std::move(description), backlog_frames + kLeadFrames));
  reference->reader_ = std::thread(&Reference::Read, reference.get());
  return reference;
}

Reference::Reference(std::unique_ptr<ReferenceSource> source, std::string description,
                     size_t capacity)
    : source_(std::move(source)), description_(std::move(description)), capacity_(capacity) {
  read_frames_.reserve(128);  // a read's frames: 16 KiB of 8 kHz mono is 103
}

Reference::~Reference() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  if (reader_.joinable()) reader_.join();  // a read waits at most kPollMs
}

std::optional<audio::Frame> Reference::Pop(uint64_t captured_usec) {
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

uint64_t Reference::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void Reference::Keep(std::span<const audio::Frame> frames, uint64_t now_usec) {
  // A source that fell behind (or starts): this read's frames were played up to now.
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

void Reference::Read() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
    }
    read_frames_.clear();
    source_->ReadSome(read_frames_);
    if (!read_frames_.empty()) Keep(read_frames_, MonotonicUsec());
  }
}

}  // namespace earshot::daemon
