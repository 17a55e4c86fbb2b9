#include "audio/ring_buffer.h"

#include <algorithm>
#include <cassert>

namespace earshot::audio {

FrameRing::FrameRing(int capacity_frames, int row_width)
    : capacity_(std::max(1, capacity_frames)),
      row_width_(row_width),
      samples_(static_cast<size_t>(capacity_) * kFrameSamples),
      rows_(static_cast<size_t>(capacity_) * static_cast<size_t>(row_width)) {}

void FrameRing::Push(const Frame& samples, std::span<const int16_t> row) {
  assert(static_cast<int>(row.size()) == row_width_);
  const size_t slot = Slot(end_);
  std::copy(samples.begin(), samples.end(), samples_.begin() + static_cast<ptrdiff_t>(slot * kFrameSamples));
  std::copy(row.begin(), row.end(), rows_.begin() + static_cast<ptrdiff_t>(slot * row_width_));
  ++end_;
  size_ = std::min<int64_t>(size_ + 1, capacity_);
}

std::span<const int16_t> FrameRing::Samples(int64_t index) const {
  assert(Holds(index));
  return std::span<const int16_t>(samples_).subspan(Slot(index) * kFrameSamples, kFrameSamples);
}

std::span<const int16_t> FrameRing::Row(int64_t index) const {
  assert(Holds(index));
  return std::span<const int16_t>(rows_).subspan(Slot(index) * static_cast<size_t>(row_width_),
                                                 static_cast<size_t>(row_width_));
}

void FrameRing::Reset(int64_t next_index) {
  end_ = next_index;
  size_ = 0;
}

}  // namespace earshot::audio
