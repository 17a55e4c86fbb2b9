#include "statemachine/governor_driver.h"

namespace earshot::statemachine {

void GovernorDriver::Tick(int64_t now_ms) {
  if (next_poll_ms_ && now_ms < *next_poll_ms_) return;
  next_poll_ms_ = now_ms + governor_.config().poll_ms;
  SensorSample sample = read_(now_ms);
  for (const std::string& warning : sample.warnings) {
    sink_->Emit(ErrorEvent{pipeline_->event_time(), "governor", warning});
  }
  Apply(governor_.Update(sample.readings, now_ms));
}

void GovernorDriver::Apply(const Decision& decision) {
  if (!decision.changed) return;
  const double t = pipeline_->event_time();
  sink_->Emit(MakeProfileEvent(decision, t));
  Result<PipelineModels> models = library_->For(governor_.config().Models(decision.profile));
  if (!models.ok()) {
    sink_->Emit(ErrorEvent{t, "governor", models.error().message});
    return;
  }
  pipeline_->SwapModels(std::move(models).value());
}

}  // namespace earshot::statemachine
