// PipelineWorker: the thread that owns the Pipeline and runs it over the FrameQueue. It never
// touches the bus or the event loop: events, "the queue has room again" and "finished" are handed
// to the loop's thread through an outbox and an eventfd (`notify_fd`), which the manager watches.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/frame_queue.h"
#include "daemon/reference.h"
#include "echo/echo_canceller.h"
#include "statemachine/event.h"
#include "statemachine/pipeline.h"

namespace earshot::daemon {

// The echo canceller's state, for GetStats.
struct PlaybackStats {
  echo::EchoStats echo;
  uint64_t reference_dropped = 0;  // reference frames let go, not taken in time
};

struct Outgoing {
  statemachine::Event event;
  uint64_t monotonic_usec = 0;  // CLOCK_MONOTONIC of the event's stream time `t`
};

class PipelineWorker final : private statemachine::EventSink {
 public:
  // `queue` must outlive the worker; `notify_fd` is an eventfd owned by the caller.
  PipelineWorker(FrameQueue* queue, int notify_fd);
  ~PipelineWorker();  // closes the queue and joins the thread
  PipelineWorker(const PipelineWorker&) = delete;
  PipelineWorker& operator=(const PipelineWorker&) = delete;

  statemachine::EventSink* sink() { return this; }
  // Any thread, once started: an id for a request (Pipeline::NewRequestId).
  uint64_t NewRequestId() { return pipeline_->NewRequestId(); }
  // Before Start: cancel the echo of `reference` from every frame (earshotd --reference).
  void SetReference(std::unique_ptr<Reference> reference,
                    std::unique_ptr<echo::EchoCanceller> canceller);
  // Starts the thread on `pipeline` (created with sink() as its sink).
  void Start(std::unique_ptr<statemachine::Pipeline> pipeline);
  PlaybackStats playback() const;

  // Loop thread: the events since the last call, in order.
  std::vector<Outgoing> TakeEvents();
  // Loop thread: asks for a notification once the queue is at most half full.
  void WantSpace() { space_wanted_ = true; }
  statemachine::PipelineStats stats() const;
  // Loop thread: the stream time up to which the pipeline had decided its events after its newest
  // frame (Pipeline::event_time); every event it emits later is at that time or after it.
  double event_time() const;
  // True once a kFinish command has been handled (the pipeline's last events are in the outbox).
  bool finished() const { return finished_; }

 private:
  void Emit(const statemachine::Event& event) override;
  void Loop();
  void Apply(Command& command);
  void Notify();
  // `samples` (captured at `captured_usec`) less the reference's echo; while the reference
  // sounds, up to kLateFrames frames with none due are cancelled against silence, then the
  // microphone passes unchanged (worker thread).
  void CancelEcho(audio::Frame& samples, uint64_t captured_usec);
  static constexpr int kLateFrames = 20;

  FrameQueue* queue_;
  int notify_fd_;
  std::unique_ptr<statemachine::Pipeline> pipeline_;
  std::thread thread_;
  mutable std::mutex mutex_;  // guards outbox_, stats_, event_time_ and playback_
  std::vector<Outgoing> outbox_;
  statemachine::PipelineStats stats_;
  double event_time_ = 0;
  uint64_t last_captured_usec_ = 0;  // worker thread only
  std::unique_ptr<Reference> reference_;
  std::unique_ptr<echo::EchoCanceller> canceller_;
  int missing_frames_ = 0;  // worker thread only: reference frames missing in a row
  PlaybackStats playback_;  // guarded by mutex_
  std::atomic<bool> space_wanted_{false};
  std::atomic<bool> finished_{false};
};

}  // namespace earshot::daemon
