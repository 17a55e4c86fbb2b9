// PcmStream: raw interleaved PCM bytes as a network stream carries them (any rate, 1 to 4 bytes a
// sample, signed little-endian, any channel count) -> 16 kHz mono int16 in 10 ms frames, through
// the Converter every other source uses. Chunks may split a sample or a frame anywhere: the
// remainder waits for the next chunk. Memory is bounded whatever a chunk's size: bytes are
// converted in blocks of kBlockFrames.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "audio/converter.h"
#include "audio/format.h"
#include "base/result.h"

namespace earshot::audio {

struct PcmFormat {
  int rate = 0;      // Hz, kMinRate .. kMaxRate
  int width = 0;     // bytes per sample: 1 (8-bit), 2 (16-bit), 3 (24-bit) or 4 (32-bit)
  int channels = 0;  // 1 .. kMaxChannels
  // Telephone to studio rates: a rate far below 16 kHz turns a small chunk into minutes of audio
  // (1 Hz: 83 minutes from 5,000 bytes, issue 78).
  static constexpr int kMinRate = 8000;
  static constexpr int kMaxRate = 192000;
  static constexpr int kMaxChannels = 32;
  // Ok, or what is wrong with it, with the unit: "rate 0 Hz: expected 8000 to 192000".
  Status Check() const;
  int frame_bytes() const { return width * channels; }
  bool operator==(const PcmFormat&) const = default;
};

class PcmStream {
 public:
  using FrameFn = std::function<void(const Frame&)>;
  static constexpr size_t kBlockFrames = 2048;  // sample frames (per channel) converted at once

  // `quality`: the libsoxr recipe (audio.resampler_quality).
  static Result<std::unique_ptr<PcmStream>> Create(const PcmFormat& format,
                                                   const std::string& quality);

  // Converts `bytes`; `on_frame` gets each complete 10 ms frame.
  Status Push(std::span<const uint8_t> bytes, const FrameFn& on_frame);
  // The end of the stream: the resampler's tail, then the last partial frame zero-padded. A
  // partial sample left over is dropped.
  Status Finish(const FrameFn& on_frame);
  const PcmFormat& format() const { return format_; }

 private:
  PcmStream(const PcmFormat& format, std::unique_ptr<Converter> converter);
  Status Convert(std::span<const uint8_t> whole_frames, const FrameFn& on_frame);
  void Deliver(std::span<const int16_t> samples, const FrameFn& on_frame);

  PcmFormat format_;
  std::unique_ptr<Converter> converter_;
  std::vector<uint8_t> partial_;  // < one sample frame of bytes, waiting for the rest
  std::vector<float> floats_;     // one block, interleaved
  Frame frame_{};
  size_t frame_fill_ = 0;
};

}  // namespace earshot::audio
