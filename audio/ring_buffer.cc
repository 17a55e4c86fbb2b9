#include "audio/ring_buffer.h"

#include <algorithm>

namespace earshot::audio {

PreRollBuffer::PreRollBuffer(size_t capacity_samples) : data_(capacity_samples) {}

void PreRollBuffer::Push(std::span<const int16_t> samples) {
  total_ += static_cast<int64_t>(samples.size());
  if (data_.empty()) return;
  if (samples.size() >= data_.size()) {  // only the newest `capacity` samples survive
    samples = samples.last(data_.size());
  }
  const size_t first = std::min(samples.size(), data_.size() - head_);
  std::copy_n(samples.begin(), first, data_.begin() + static_cast<ptrdiff_t>(head_));
  std::copy(samples.begin() + static_cast<ptrdiff_t>(first), samples.end(), data_.begin());
  head_ = (head_ + samples.size()) % data_.size();
  size_ = std::min(data_.size(), size_ + samples.size());
}

size_t PreRollBuffer::Latest(std::span<int16_t> out) const {
  const size_t n = std::min(out.size(), size_);
  const size_t start = (head_ + data_.size() - n) % std::max<size_t>(1, data_.size());
  const size_t first = std::min(n, data_.size() - start);
  std::copy_n(data_.begin() + static_cast<ptrdiff_t>(start), first, out.begin());
  std::copy_n(data_.begin(), n - first, out.begin() + static_cast<ptrdiff_t>(first));
  return n;
}

void PreRollBuffer::Reset() {
  head_ = 0;
  size_ = 0;
  total_ = 0;
}

}  // namespace earshot::audio
