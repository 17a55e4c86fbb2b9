#include "governor/governor_driver.h"

#include <utility>

namespace earshot::governor {

void PipelineHost::Loaded(Result<statemachine::PipelineModels> models, const ModelLoad&) {
  if (!models.ok()) {
    sink_->Emit(statemachine::ErrorEvent{EventTime(), "governor", models.error().message});
    return;
  }
  pipeline_->SwapModels(std::move(models).value());
}

GovernorDriver::GovernorDriver(GovernorConfig config,
                               std::shared_ptr<statemachine::ModelLibrary> library,
                               statemachine::ProfileModels sizes, GovernorHost* host,
                               ModelLoader* loader, ReadFn read)
    : governor_(std::move(config)),
      library_(std::move(library)),
      active_(sizes),
      wanted_(sizes),
      host_(host),
      loader_(loader),
      read_(std::move(read)) {}

void GovernorDriver::Tick(int64_t now_ms) {
  if (next_poll_ms_ && now_ms < *next_poll_ms_) return;
  next_poll_ms_ = now_ms + governor_.config().poll_ms;
  ApplySample(read_(now_ms), now_ms);
}

void GovernorDriver::ApplySample(const SensorSample& sample, int64_t now_ms) {
  for (const std::string& warning : sample.warnings) {
    host_->Emit(statemachine::ErrorEvent{host_->EventTime(), "governor", warning});
  }
  ApplyDecision(governor_.Update(sample.readings, now_ms));
}

void GovernorDriver::SetProfile(std::optional<Profile> manual, int64_t now_ms) {
  ApplyDecision(governor_.SetOverride(manual, now_ms));
}

// The one place a profile takes effect: the event, the host's word, and the profile's models.
void GovernorDriver::ApplyDecision(const Decision& decision) {
  if (!decision.changed) return;
  host_->Emit(MakeProfileEvent(decision, host_->EventTime()));
  host_->Decided(decision);
  const statemachine::ProfileModels sizes = governor_.config().Models(decision.profile);
  if (sizes == wanted_) return;  // in use, or being loaded
  wanted_ = sizes;
  Load(ModelLoad::Kind::kGovernor);
}

// One load at a time: a later one waits for the current one and replaces any other waiting (a
// load for command sets alone adds nothing to one waiting: each load compiles the sets the host
// has when it begins).
void GovernorDriver::Load(ModelLoad::Kind kind, uint64_t registering,
                          std::shared_ptr<statemachine::ModelLibrary> library) {
  ModelLoad load{library ? std::move(library) : library_, wanted_, kind, registering};
  if (loading_) {
    if (kind != ModelLoad::Kind::kCommands || !pending_) pending_ = std::move(load);
    return;
  }
  Start(std::move(load));
}

void GovernorDriver::Start(ModelLoad load) {
  host_->Prepare(load);
  loading_ = std::move(load);
  loader_->Start(loading_->library, loading_->sizes);
  Poll();  // a synchronous loader is done already
}

bool GovernorDriver::CancelCommandsLoad() {
  if (!loading_ || loading_->kind != ModelLoad::Kind::kCommands) return false;
  loader_->Cancel();
  return true;
}

void GovernorDriver::Poll() {
  if (!loading_) return;
  std::optional<Result<statemachine::PipelineModels>> models = loader_->Take();
  if (!models) return;
  const bool ok = models->ok();
  if (ok) {
    library_ = loading_->library;
    active_ = loading_->sizes;
  }
  // Loads the host asks for meanwhile wait for this one's end.
  host_->Loaded(std::move(*models), *loading_);
  loading_.reset();
  if (!ok && !pending_) wanted_ = active_;
  if (pending_) {
    ModelLoad next = std::move(*pending_);
    pending_.reset();
    Start(std::move(next));
    return;
  }
  host_->Idle();
}

}  // namespace earshot::governor
