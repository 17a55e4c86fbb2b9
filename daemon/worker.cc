#include "daemon/worker.h"

#include <malloc.h>

#include "daemon/log.h"
#include "daemon/wakeup.h"

namespace earshot::daemon {

PipelineWorker::PipelineWorker(FrameQueue* queue, int notify_fd)
    : queue_(queue), notify_fd_(notify_fd) {}

PipelineWorker::~PipelineWorker() {
  queue_->Close();
  if (thread_.joinable()) thread_.join();
}

void PipelineWorker::Start(std::unique_ptr<statemachine::Pipeline> pipeline) {
  pipeline_ = std::move(pipeline);
  thread_ = std::thread([this] { Loop(); });
}

void PipelineWorker::SetReference(std::unique_ptr<Reference> reference,
                                  std::unique_ptr<echo::EchoCanceller> canceller) {
  reference_ = std::move(reference);
  canceller_ = std::move(canceller);
}

void PipelineWorker::CancelEcho(audio::Frame& samples, uint64_t captured_usec) {
  const bool was_active = canceller_->stats().active;
  if (std::optional<audio::Frame> played = reference_->Pop(captured_usec)) {
    missing_frames_ = 0;
    canceller_->Process(*played, samples);
    if (canceller_->stats().active) pipeline_->PushReference(*played);
  } else if (++missing_frames_ <= kLateFrames && was_active) {
    canceller_->Process(audio::Frame{}, samples);
    pipeline_->PushReference(audio::Frame{});  // the spotter's frames stay in step
  } else {
    canceller_->ProcessWithoutReference();
  }
  const echo::EchoStats& e = canceller_->stats();
  if (e.active != was_active) {
    if (e.active) {
      Log(LOG_INFO, "playback: cancelling its echo");
    } else {
      Log(LOG_INFO, "playback: stopped (the echo %d ms late, %lld changes of it); the microphone "
          "passes unchanged", e.delay_ms, static_cast<long long>(e.delay_changes));
    }
  }
  pipeline_->SetPlayback(e.active, e.delay_ms / audio::kFrameMs);
  std::lock_guard lock(mutex_);
  playback_ = {e, reference_->dropped()};
}

PlaybackStats PipelineWorker::playback() const {
  std::lock_guard lock(mutex_);
  return playback_;
}

void PipelineWorker::Loop() {
  while (std::optional<FrameQueue::Item> item = queue_->Pop()) {
    if (item->command) {
      Apply(*item->command);
      if (finished_) return;
      continue;
    }
    last_captured_usec_ = item->frame->captured_usec;
    if (reference_) {
      audio::Frame samples = item->frame->samples;
      CancelEcho(samples, item->frame->captured_usec);
      pipeline_->Push(samples);
    } else {
      pipeline_->Push(item->frame->samples);
    }
    {
      std::lock_guard lock(mutex_);
      stats_ = pipeline_->stats();
      event_time_ = pipeline_->event_time();
    }
    if (space_wanted_ && queue_->size() * 2 <= static_cast<size_t>(queue_->stats().capacity)) {
      space_wanted_ = false;
      Notify();
    }
  }
}

void PipelineWorker::Apply(Command& command) {
  switch (command.kind) {
    case Command::Kind::kMute:
      pipeline_->Mute();
      break;
    case Command::Kind::kUnmute:
      pipeline_->Unmute();
      break;
    case Command::Kind::kSwapModels:
      pipeline_->SwapModels(std::move(command.models));
      // The models swapped out (a command set's decoder) are freed by now, unless the pipeline
      // was busy (then the next load's trim returns them): their pages go back to the system.
      malloc_trim(0);
      break;
    case Command::Kind::kSetSensitivity:
      // A keyword of models reloaded meanwhile may be gone: the manager's list said it was there.
      (void)pipeline_->SetSensitivity(command.keyword, command.sensitivity);
      break;
    case Command::Kind::kStartRequest:
      (void)pipeline_->StartRequest(command.request);  // muted meanwhile: nothing
      break;
    case Command::Kind::kCancelRequest:
      (void)pipeline_->CancelRequest();  // ended meanwhile: nothing
      break;
    case Command::Kind::kFinish:
      pipeline_->Finish();
      {
        std::lock_guard lock(mutex_);
        stats_ = pipeline_->stats();
        event_time_ = pipeline_->event_time();
      }
      finished_ = true;
      Notify();
      break;
  }
}

// Events carry stream time; the pipeline has read up to the newest frame, captured at
// last_captured_usec_, so an event at stream time t happened (time() - t) seconds before it.
void PipelineWorker::Emit(const statemachine::Event& event) {
  const double t = std::visit([](const auto& e) { return e.t; }, event);
  const double behind_s = pipeline_->time() - t;
  const auto behind_usec = static_cast<int64_t>(behind_s * 1e6);
  const auto now = static_cast<int64_t>(last_captured_usec_);
  const uint64_t at = static_cast<uint64_t>(std::max<int64_t>(0, now - behind_usec));
  {
    std::lock_guard lock(mutex_);
    stats_ = pipeline_->stats();  // whoever sees the event sees the counters that include it
    outbox_.push_back(Outgoing{event, at});
  }
  Notify();
}

void PipelineWorker::Notify() { SignalWakeup(notify_fd_); }

std::vector<Outgoing> PipelineWorker::TakeEvents() {
  std::vector<Outgoing> events;
  std::lock_guard lock(mutex_);
  events.swap(outbox_);
  return events;
}

statemachine::PipelineStats PipelineWorker::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

double PipelineWorker::event_time() const {
  std::lock_guard lock(mutex_);
  return event_time_;
}

}  // namespace earshot::daemon
