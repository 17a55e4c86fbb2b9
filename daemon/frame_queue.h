// FrameQueue: the bounded queue between capture (the event loop's thread) and the pipeline (its
// worker thread), so that a slow stage (the STT's final decode) never makes capture wait: capture
// only stops reading when the queue is full (then the device's own ring takes over, and an overrun
// there is counted as an xrun). Frames live in a ring allocated once; nothing allocates per frame.
//
// Commands (mute, unmute, model swap, a keyword's sensitivity, push-to-talk, cancel, finish) travel
// in order with the audio: each applies before the first frame captured after it was sent, so
// Mute() silences exactly the audio that follows the call, however far behind the pipeline is.
//
// Thread-safe: one producer, one consumer.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "audio/format.h"
#include "statemachine/pipeline.h"

namespace earshot::daemon {

struct QueuedFrame {
  audio::Frame samples;
  uint64_t captured_usec = 0;  // CLOCK_MONOTONIC when the frame was captured
};

struct Command {
  enum class Kind {
    kMute,
    kUnmute,
    kSwapModels,
    kSetSensitivity,
    kStartRequest,
    kCancelRequest,
    kFinish
  };
  Kind kind;
  statemachine::PipelineModels models = {};  // for kSwapModels
  int64_t before_frame = 0;             // applies before frame number `before_frame` is pushed
  std::string keyword = {};             // for kSetSensitivity: the keyword's name
  double sensitivity = 0;               // and its sensitivity, 0 .. 1
  uint64_t request = 0;                 // for kStartRequest: its id
};

struct QueueStats {
  int64_t capacity = 0;    // frames
  int64_t high_water = 0;  // the most frames ever waiting
  int64_t pushed = 0;
};

class FrameQueue {
 public:
  explicit FrameQueue(size_t capacity_frames);

  // Producer. False when full (the frame is not queued).
  bool Push(const audio::Frame& frame, uint64_t captured_usec);
  void Send(Command::Kind kind, statemachine::PipelineModels models = {});
  void Send(Command command);  // its before_frame is set here
  bool full() const;
  // Wakes a Pop waiting on an empty queue for good (the worker stops).
  void Close();

  // Consumer: waits for the next command due or frame; nullopt once closed and drained.
  // Exactly one of `command` and `frame` is set in what is returned.
  struct Item {
    std::optional<Command> command;
    const QueuedFrame* frame = nullptr;  // valid until the next Pop
  };
  std::optional<Item> Pop();
  size_t size() const;
  QueueStats stats() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<QueuedFrame> ring_;
  size_t head_ = 0;     // next to pop
  size_t count_ = 0;    // frames waiting
  int64_t pushed_ = 0;  // frames pushed so far
  int64_t popped_ = 0;
  int64_t high_water_ = 0;
  std::deque<Command> commands_;
  QueuedFrame current_;  // the frame handed out by the last Pop
  bool closed_ = false;
};

}  // namespace earshot::daemon
