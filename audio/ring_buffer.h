// PreRollBuffer: the last N samples of the stream (default 1.5 s), so a later stage that wakes up
// (the keyword spotter when the VAD fires) can look back at audio it did not see. Fixed capacity,
// allocated once; Push and Latest never allocate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::audio {

class PreRollBuffer {
 public:
  explicit PreRollBuffer(size_t capacity_samples);

  void Push(std::span<const int16_t> samples);
  // Copies the newest out.size() samples, oldest first; returns how many were available
  // (min(out.size(), size())), written to the start of `out`.
  size_t Latest(std::span<int16_t> out) const;
  void Reset();

  size_t capacity() const { return data_.size(); }
  size_t size() const { return size_; }
  int64_t total_pushed() const { return total_; }  // stream position of the newest sample + 1

 private:
  std::vector<int16_t> data_;
  size_t head_ = 0;  // where the next sample goes
  size_t size_ = 0;
  int64_t total_ = 0;
};

}  // namespace earshot::audio
