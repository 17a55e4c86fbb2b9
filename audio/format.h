// The one audio format every stage after the source sees: 16 kHz mono int16, in 10 ms frames.
#pragma once

#include <array>
#include <cstdint>

namespace earshot::audio {

inline constexpr int kSampleRate = 16000;     // Hz
inline constexpr int kFrameMs = 10;           // one hop of every stage
inline constexpr int kFrameSamples = kSampleRate * kFrameMs / 1000;  // 160
inline constexpr int kFramesPerSecond = 1000 / kFrameMs;             // 100
using Frame = std::array<int16_t, kFrameSamples>;

// A count of frames as seconds of audio (frame k starts at FramesToSeconds(k)).
constexpr double FramesToSeconds(int64_t frames) {
  return static_cast<double>(frames) / kFramesPerSecond;
}
// A duration in milliseconds as whole frames, rounded down.
constexpr int MsToFrames(int64_t ms) { return static_cast<int>(ms / kFrameMs); }

// What a source read, before conversion (the `audio` event reports it).
struct SourceInfo {
  int rate = 0;          // Hz, as stored
  int channels = 0;
  int64_t frames = 0;    // samples per channel read so far
};

}  // namespace earshot::audio
