#include "daemon/frame_queue.h"

#include <algorithm>

namespace earshot::daemon {

FrameQueue::FrameQueue(size_t capacity_frames) : ring_(std::max<size_t>(capacity_frames, 1)) {}

bool FrameQueue::Push(const audio::Frame& frame, uint64_t captured_usec) {
  {
    std::lock_guard lock(mutex_);
    if (count_ == ring_.size()) return false;
    QueuedFrame& slot = ring_[(head_ + count_) % ring_.size()];
    slot.samples = frame;
    slot.captured_usec = captured_usec;
    ++count_;
    ++pushed_;
    high_water_ = std::max(high_water_, static_cast<int64_t>(count_));
  }
  ready_.notify_one();
  return true;
}

void FrameQueue::Send(Command::Kind kind, statemachine::PipelineModels models) {
  Send(Command{kind, std::move(models)});
}

void FrameQueue::Send(Command command) {
  {
    std::lock_guard lock(mutex_);
    command.before_frame = pushed_;
    commands_.push_back(std::move(command));
  }
  ready_.notify_one();
}

bool FrameQueue::full() const {
  std::lock_guard lock(mutex_);
  return count_ == ring_.size();
}

void FrameQueue::Close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  ready_.notify_one();
}

std::optional<FrameQueue::Item> FrameQueue::Pop() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [this] {
    return count_ > 0 || closed_ ||
           (!commands_.empty() && commands_.front().before_frame <= popped_);
  });
  if (!commands_.empty() && commands_.front().before_frame <= popped_) {
    Item item;
    item.command = std::move(commands_.front());
    commands_.pop_front();
    return item;
  }
  if (count_ == 0) return std::nullopt;  // closed and drained
  current_ = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --count_;
  ++popped_;
  Item item;
  item.frame = &current_;
  return item;
}

size_t FrameQueue::size() const {
  std::lock_guard lock(mutex_);
  return count_;
}

QueueStats FrameQueue::stats() const {
  std::lock_guard lock(mutex_);
  return QueueStats{static_cast<int64_t>(ring_.size()), high_water_, pushed_};
}

}  // namespace earshot::daemon
