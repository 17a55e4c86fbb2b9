#include "audio/pcm_stream.h"

#include <algorithm>

namespace earshot::audio {
namespace {

// One little-endian signed sample of `width` bytes as a float in [-1, 1): the integer over
// 2^(8 width - 1). 8-bit samples are signed too, as Python's audioop (the Wyoming library's
// converter) reads them.
float SampleToFloat(const uint8_t* p, int width) {
  uint32_t u = 0;
  for (int i = 0; i < width; ++i) u |= static_cast<uint32_t>(p[i]) << (8 * i);
  const int bits = 8 * width;
  // Sign-extend from `bits`: shift the sign bit to bit 31, then back as a signed value.
  const auto value = static_cast<int32_t>(u << (32 - bits)) >> (32 - bits);
  return static_cast<float>(static_cast<double>(value) / static_cast<double>(1u << (bits - 1)));
}

}  // namespace

Status PcmFormat::Check() const {
  if (rate < kMinRate || rate > kMaxRate) {
    return Error{"rate " + std::to_string(rate) + " Hz: expected " + std::to_string(kMinRate) +
                 " to " + std::to_string(kMaxRate)};
  }
  if (width < 1 || width > 4) {
    return Error{"width " + std::to_string(width) + " bytes: expected 1, 2, 3 or 4"};
  }
  if (channels < 1 || channels > kMaxChannels) {
    return Error{"channels " + std::to_string(channels) + ": expected 1 to " +
                 std::to_string(kMaxChannels)};
  }
  return OkStatus();
}

Result<std::unique_ptr<PcmStream>> PcmStream::Create(const PcmFormat& format,
                                                     const std::string& quality) {
  if (Status s = format.Check(); !s.ok()) return s.error();
  auto converter = Converter::Create(format.rate, format.channels, quality, kBlockFrames);
  if (!converter.ok()) return converter.error();
  return std::unique_ptr<PcmStream>(new PcmStream(format, std::move(converter).value()));
}

PcmStream::PcmStream(const PcmFormat& format, std::unique_ptr<Converter> converter)
    : format_(format), converter_(std::move(converter)) {
  partial_.reserve(static_cast<size_t>(format.frame_bytes()));
  floats_.resize(kBlockFrames * static_cast<size_t>(format.channels));
}

Status PcmStream::Push(std::span<const uint8_t> bytes, const FrameFn& on_frame) {
  const auto frame_bytes = static_cast<size_t>(format_.frame_bytes());
  if (!partial_.empty()) {  // complete the sample frame a previous chunk began
    const size_t take = std::min(frame_bytes - partial_.size(), bytes.size());
    partial_.insert(partial_.end(), bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    if (partial_.size() < frame_bytes) return OkStatus();
    if (Status s = Convert(partial_, on_frame); !s.ok()) return s;
    partial_.clear();
  }
  const size_t whole = bytes.size() / frame_bytes * frame_bytes;
  if (Status s = Convert(bytes.first(whole), on_frame); !s.ok()) return s;
  partial_.assign(bytes.begin() + static_cast<ptrdiff_t>(whole), bytes.end());
  return OkStatus();
}

Status PcmStream::Convert(std::span<const uint8_t> whole_frames, const FrameFn& on_frame) {
  const auto frame_bytes = static_cast<size_t>(format_.frame_bytes());
  const size_t block_bytes = kBlockFrames * frame_bytes;
  for (size_t at = 0; at < whole_frames.size(); at += block_bytes) {
    const size_t n = std::min(block_bytes, whole_frames.size() - at);
    const size_t samples = n / static_cast<size_t>(format_.width);
    for (size_t i = 0; i < samples; ++i) {
      floats_[i] = SampleToFloat(whole_frames.data() + at + i * format_.width, format_.width);
    }
    Result<std::span<const int16_t>> out = converter_->Process({floats_.data(), samples});
    if (!out.ok()) return out.error();
    Deliver(*out, on_frame);
  }
  return OkStatus();
}

void PcmStream::Deliver(std::span<const int16_t> samples, const FrameFn& on_frame) {
  for (const int16_t s : samples) {
    frame_[frame_fill_++] = s;
    if (frame_fill_ == frame_.size()) {
      on_frame(frame_);
      frame_fill_ = 0;
    }
  }
}

Status PcmStream::Finish(const FrameFn& on_frame) {
  partial_.clear();
  for (;;) {
    Result<std::span<const int16_t>> out = converter_->Flush();
    if (!out.ok()) return out.error();
    if (out->empty()) break;
    Deliver(*out, on_frame);
  }
  if (frame_fill_ > 0) {
    std::fill(frame_.begin() + static_cast<ptrdiff_t>(frame_fill_), frame_.end(), int16_t{0});
    on_frame(frame_);
    frame_fill_ = 0;
  }
  return OkStatus();
}

}  // namespace earshot::audio
