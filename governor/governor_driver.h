// GovernorDriver: runs the governor beside a pipeline, offline (earshot run) and in earshotd alike.
// It feeds the governor the sensors' samples (Tick reads them every governor.poll_ms of the
// caller's clock; earshotd hands over those its poller thread read), and on a change emits a
// `profile` event and loads the profile's models, which its host hands to the pipeline; the
// pipeline swaps them the next time it is idle. A decision whose models are in use, or being
// loaded, loads nothing. A model that fails to load leaves the old ones in place and the host
// reports it; sensor problems are reported once each as `error` events, never fatal.
//
// Loads go through an injected ModelLoader: synchronous offline (the frame loop waits), on a
// thread of its own in earshotd (the loop goes on; Poll() takes the models when the loader says
// it is done). One load runs at a time: a later one waits for it, replacing any other waiting.
// Besides the governor's, the host may ask for loads of its own (a reload, command sets).
//
// Threading: every method runs on the host's one thread; only the loader may use another.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "base/result.h"
#include "governor/governor.h"
#include "governor/sensors.h"
#include "statemachine/model_library.h"
#include "statemachine/pipeline.h"

namespace earshot::governor {

// Loads a library's models at some sizes.
class ModelLoader {
 public:
  virtual ~ModelLoader() = default;
  // Begins a load; none runs (Take() has given the last one's result).
  virtual void Start(std::shared_ptr<statemachine::ModelLibrary> library,
                     statemachine::ProfileModels sizes) = 0;
  // The result of the load begun, once it is done; nullopt while it runs or when none was begun.
  virtual std::optional<Result<statemachine::PipelineModels>> Take() = 0;
  // Asks the load under way to stop at its next step (its result is then an error).
  virtual void Cancel() {}
};

// Loads in Start(), on the caller's thread.
class SynchronousLoader : public ModelLoader {
 public:
  void Start(std::shared_ptr<statemachine::ModelLibrary> library,
             statemachine::ProfileModels sizes) override {
    result_.emplace(library->For(sizes));
  }
  std::optional<Result<statemachine::PipelineModels>> Take() override {
    std::optional<Result<statemachine::PipelineModels>> out = std::move(result_);
    result_.reset();
    return out;
  }

 private:
  std::optional<Result<statemachine::PipelineModels>> result_;
};

// A load: the library's models at some sizes.
struct ModelLoad {
  enum class Kind { kGovernor, kReload, kCommands };  // the governor's, or the host's
  std::shared_ptr<statemachine::ModelLibrary> library;
  statemachine::ProfileModels sizes;
  Kind kind = Kind::kGovernor;
  uint64_t registering = 0;  // the host's tag (earshotd: the command set it compiles), or 0
};

// What the driver's host does with its outcomes.
class GovernorHost {
 public:
  virtual ~GovernorHost() = default;
  // The stream time of the driver's events (profile, sensor errors), and their way out.
  virtual double EventTime() = 0;
  virtual void Emit(const statemachine::Event& event) = 0;
  // After a decision's profile event (earshotd: the log and the D-Bus property).
  virtual void Decided(const Decision&) {}
  // Before a load begins: the host may give it another library (earshotd: its command sets).
  virtual void Prepare(ModelLoad&) {}
  // A load is done: the models for the pipeline, or the error (the old models stay).
  virtual void Loaded(Result<statemachine::PipelineModels> models, const ModelLoad& load) = 0;
  // The loader is idle and no load waits: the host may start one of its own.
  virtual void Idle() {}
};

// The host offline (earshot run, tests): events to `sink`, models to `pipeline`, which swaps them
// at its next idle moment; a load's error is a `governor` error event.
class PipelineHost : public GovernorHost {
 public:
  // Not owned; they must outlive the host.
  PipelineHost(statemachine::Pipeline* pipeline, statemachine::EventSink* sink)
      : pipeline_(pipeline), sink_(sink) {}
  double EventTime() override { return pipeline_->event_time(); }
  void Emit(const statemachine::Event& event) override { sink_->Emit(event); }
  void Loaded(Result<statemachine::PipelineModels> models, const ModelLoad& load) override;

 private:
  statemachine::Pipeline* pipeline_;
  statemachine::EventSink* sink_;
};

class GovernorDriver {
 public:
  // The sensors' readings at the caller's time `now_ms` (for Tick).
  using ReadFn = std::function<SensorSample(int64_t now_ms)>;

  // The pipeline starts with `library`'s models at `sizes`. `host` and `loader` are not owned
  // and must outlive the driver.
  GovernorDriver(GovernorConfig config, std::shared_ptr<statemachine::ModelLibrary> library,
                 statemachine::ProfileModels sizes, GovernorHost* host, ModelLoader* loader,
                 ReadFn read = {});

  // Call as time goes by (per frame offline): reads the sensors when a poll is due.
  void Tick(int64_t now_ms);
  // One poll's sample at `now_ms`: its warnings as events, its readings to the governor.
  void ApplySample(const SensorSample& sample, int64_t now_ms);
  // A manual profile, or nullopt (auto); applies at once.
  void SetProfile(std::optional<Profile> manual, int64_t now_ms);

  // A load of the host's (`kind` other than the governor's), of the models the decision in force
  // wants, from `library` (null: the library in use).
  void Load(ModelLoad::Kind kind, uint64_t registering = 0,
            std::shared_ptr<statemachine::ModelLibrary> library = nullptr);
  // Cancels the load under way when it is one of the host's for command sets (kCommands): it
  // ends as a failed load (the host's Loaded), soon; false when there was none to cancel.
  bool CancelCommandsLoad();
  // Takes a finished load's models to the host, then begins the next load. Offline loads finish
  // within Load; earshotd calls this when its loader thread says it is done.
  void Poll();

  const Governor& governor() const { return governor_; }
  const std::shared_ptr<statemachine::ModelLibrary>& library() const { return library_; }
  // The load under way, or null.
  const ModelLoad* loading() const { return loading_ ? &*loading_ : nullptr; }

 private:
  void ApplyDecision(const Decision& decision);
  void Start(ModelLoad load);

  Governor governor_;
  std::shared_ptr<statemachine::ModelLibrary> library_;  // the models in use come from it
  // Of the models the pipeline has (or gets at its next idle moment).
  statemachine::ProfileModels active_;
  statemachine::ProfileModels wanted_;  // of the decision in force: active, or being loaded
  GovernorHost* host_;
  ModelLoader* loader_;
  ReadFn read_;
  std::optional<int64_t> next_poll_ms_;
  std::optional<ModelLoad> loading_;  // what loader_ loads
  std::optional<ModelLoad> pending_;  // the next load, once loader_ is done
};

}  // namespace earshot::governor
