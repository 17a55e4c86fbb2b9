#include "models/context_stack.h"

#include <algorithm>

namespace earshot::models {

ContextStack::ContextStack(int width, std::vector<int32_t> offsets)
    : width_(width),
      offsets_(std::move(offsets)),
      ring_frames_(offsets_.back() - offsets_.front() + 1),
      ring_(static_cast<size_t>(ring_frames_) * static_cast<size_t>(width)),
      stacked_(offsets_.size() * static_cast<size_t>(width)) {}

std::span<int8_t> ContextStack::Next() {
  const auto slot = static_cast<size_t>(committed_ % ring_frames_);
  return std::span<int8_t>(ring_).subspan(slot * static_cast<size_t>(width_),
                                          static_cast<size_t>(width_));
}

void ContextStack::Commit(bool real_frame) {
  if (!real_frame) std::fill(Next().begin(), Next().end(), 0);
  ++committed_;
  if (real_frame) ++real_frames_;
}

std::span<const int8_t> ContextStack::Newest() const {
  const auto slot = static_cast<size_t>((committed_ + ring_frames_ - 1) % ring_frames_);
  return std::span<const int8_t>(ring_).subspan(slot * static_cast<size_t>(width_),
                                                static_cast<size_t>(width_));
}

std::span<const int8_t> ContextStack::Stack(int64_t k) { return Stack(k, 0, offsets_.size()); }

std::span<const int8_t> ContextStack::Stack(int64_t k, size_t first, size_t count) {
  const auto width = static_cast<size_t>(width_);
  size_t pos = 0;
  for (size_t i = first; i < first + count; ++i) {
    const int64_t frame = k + offsets_[i];
    auto out = stacked_.begin() + static_cast<ptrdiff_t>(pos);
    if (frame < 0 || frame >= real_frames_) {
      std::fill_n(out, width, 0);
    } else {
      const auto slot = static_cast<size_t>(frame % ring_frames_);
      std::copy_n(ring_.begin() + static_cast<ptrdiff_t>(slot * width), width, out);
    }
    pos += width;
  }
  return std::span<const int8_t>(stacked_).first(pos);
}

void ContextStack::Reset() {
  std::fill(ring_.begin(), ring_.end(), 0);
  committed_ = real_frames_ = 0;
}

}  // namespace earshot::models
