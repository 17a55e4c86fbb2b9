// Converter: any channel count and sample rate -> 16 kHz mono int16, streaming, in bounded memory.
// Channels are averaged; the rate is changed by libsoxr (chosen over libsamplerate for its
// quality at equal speed: see bench/audio_bench.cc). 16 kHz input bypasses the resampler, so
// 16 kHz int16 files come through bit-exact.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

struct soxr;

namespace earshot::audio {

// Audio stored below kSampleRate (an 8 kHz telephone recording) holds nothing above half its
// rate, where the models, trained on 16 kHz audio, expect energy: a warning naming `source`, or ""
// when the rate is kSampleRate or more.
std::string BandLimitWarning(std::string_view source, int rate);

class Converter {
 public:
  static constexpr int kMinInputRate = 4000;  // a quarter of kSampleRate
  // `max_input_frames`: the largest chunk Process will be given (frames per channel). The output
  // buffers hold what such a chunk gives: `input_rate` must be at least kMinInputRate, so that
  // they are bounded by the chunk (at most 4 times it and the filter's delay), not by the ratio.
  // `quality`: a libsoxr recipe name (quick, low, medium, high, very_high).
  static Result<std::unique_ptr<Converter>> Create(int input_rate, int channels,
                                                   std::string_view quality,
                                                   size_t max_input_frames);
  ~Converter();
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;

  // Converts one interleaved chunk; the view stays valid until the next call.
  Result<std::span<const int16_t>> Process(std::span<const float> interleaved);
  // Drains the resampler's delay line at the end of the stream: call until it returns an empty view.
  Result<std::span<const int16_t>> Flush();

 private:
  Converter(int channels, soxr* resampler, size_t max_input_frames, size_t max_output_frames);
  Result<std::span<const int16_t>> Resample(const float* mono, size_t frames);

  int channels_;
  soxr* resampler_;  // null when the input is already 16 kHz
  std::vector<float> mono_;
  std::vector<float> resampled_;
  std::vector<int16_t> out_;
};

// Rounds [-1, 1) floats to int16, saturating (shared by every path that makes int16).
void FloatToInt16(std::span<const float> in, std::span<int16_t> out);

}  // namespace earshot::audio
