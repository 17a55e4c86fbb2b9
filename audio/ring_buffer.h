// FrameRing: the last N frames of the stream (default 1.5 s of pre-roll plus the VAD's delay), each
// a 10 ms hop of samples with a fixed-width row of int16 values computed from it (the front end's
// log-mel). A stage that wakes up late (the keyword spotter when the VAD has decided that speech
// began, or the STT after the wake word) reads the frames it did not see by their stream index.
// Fixed capacity, allocated once; Push and the accessors never allocate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "audio/format.h"

namespace earshot::audio {

class FrameRing {
 public:
  // `capacity_frames` frames of kFrameSamples samples and `row_width` values each.
  FrameRing(int capacity_frames, int row_width);

  // Appends the stream's next frame; it gets index `end() - 1`.
  void Push(const Frame& samples, std::span<const int16_t> row);
  // Frames [begin(), end()) are held; begin() = max(0, end() - capacity).
  int64_t begin() const { return end_ - size_; }
  int64_t end() const { return end_; }
  bool Holds(int64_t index) const { return index >= begin() && index < end_; }
  // The frame `index`, which must be held.
  std::span<const int16_t> Samples(int64_t index) const;
  std::span<const int16_t> Row(int64_t index) const;
  // Forgets the frames; the next Push gets index `next_index`.
  void Reset(int64_t next_index = 0);

  int capacity() const { return capacity_; }

 private:
  size_t Slot(int64_t index) const { return static_cast<size_t>(index % capacity_); }
  int capacity_;
  int row_width_;
  std::vector<int16_t> samples_;  // capacity x kFrameSamples
  std::vector<int16_t> rows_;     // capacity x row_width
  int64_t end_ = 0;
  int64_t size_ = 0;
};

}  // namespace earshot::audio
