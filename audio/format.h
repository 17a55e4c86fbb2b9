// The one audio format every stage after the source sees: 16 kHz mono int16, in 10 ms frames.
#pragma once

#include <array>
#include <cstdint>

namespace earshot::audio {

inline constexpr int kSampleRate = 16000;     // Hz
inline constexpr int kFrameMs = 10;           // one hop of every stage
inline constexpr int kFrameSamples = kSampleRate * kFrameMs / 1000;  // 160
using Frame = std::array<int16_t, kFrameSamples>;

// What a source read, before conversion (the `audio` event reports it).
struct SourceInfo {
  int rate = 0;          // Hz, as stored
  int channels = 0;
  int64_t frames = 0;    // samples per channel read so far
};

}  // namespace earshot::audio
