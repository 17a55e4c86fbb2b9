// GovernorDriver: runs the governor beside a pipeline. Every governor.poll_ms of the caller's
// clock it reads the sensors (sysfs, or a replayed timeline), feeds the governor, and on a change
// emits a `profile` event and hands the profile's models to the pipeline, which swaps them the
// next time it is idle. A model that fails to load leaves the old ones in place and emits an
// `error` event; sensor problems are reported once each as `error` events, never fatal.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "statemachine/governor.h"
#include "statemachine/model_library.h"
#include "statemachine/pipeline.h"
#include "statemachine/sensors.h"

namespace earshot::statemachine {

class GovernorDriver {
 public:
  // The sensors' readings at the caller's time `now_ms`.
  using ReadFn = std::function<SensorSample(int64_t now_ms)>;

  // `library`, `pipeline` and `sink` are not owned and must outlive the driver.
  GovernorDriver(GovernorConfig config, ReadFn read, ModelLibrary* library, Pipeline* pipeline,
                 EventSink* sink)
      : governor_(std::move(config)), read_(std::move(read)), library_(library),
        pipeline_(pipeline), sink_(sink) {}

  // Call as time goes by (per frame offline, from a timer in the daemon); polls when one is due.
  void Tick(int64_t now_ms);

  const Governor& governor() const { return governor_; }

 private:
  void Apply(const Decision& decision);

  Governor governor_;
  ReadFn read_;
  ModelLibrary* library_;
  Pipeline* pipeline_;
  EventSink* sink_;
  std::optional<int64_t> next_poll_ms_;
};

}  // namespace earshot::statemachine
