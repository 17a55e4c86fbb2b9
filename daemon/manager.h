// Manager: earshotd's one owner (after systemd's timesyncd): the sd-event loop, the sd-bus
// connection (bus.cc holds its vtable), every event source (signals, watchdog, the input, the
// worker's notifications, the reload loader), the frame queue and the pipeline's worker thread.
//
// Threads: everything here runs on the loop's thread except the pipeline (worker.h) and a model
// reload in progress (a loader thread that only loads files). They talk through the FrameQueue
// (audio and commands, in capture order) and eventfds watched by the loop.
//
// Profiles: ApplyProfile() is the one place a profile takes effect; SetProfile() (D-Bus) and, once
// it lands, the governor (statemachine/governor.*) call it. Until then `auto` means
// "performance" and the battery and temperature read -1 (unknown).
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "config/config.h"
#include "config/result.h"
#include "daemon/frame_queue.h"
#include "daemon/input.h"
#include "daemon/worker.h"
#include "statemachine/json_sink.h"

namespace earshot::daemon {

// earshotd's command line (DESIGN.md).
struct DaemonOptions {
  std::string config_path;
  std::string input;           // empty: daemon.input
  std::string bus = "system";  // system | session | none
  std::string events;          // empty: none; "-": stdout
  std::string sysfs_root;      // empty: governor.sysfs_root
};

struct DaemonStats {
  statemachine::PipelineStats pipeline;
  QueueStats queue;
  uint64_t xruns = 0;
  uint64_t reopens = 0;
  bool capturing = false;
  std::string input;
};

class Manager {
 public:
  // Loads the config and the models, opens the input and the bus; errors name the cause.
  static Result<std::unique_ptr<Manager>> Create(const DaemonOptions& options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Runs the loop until SIGTERM/SIGINT (or the end of a wav input); the exit status.
  int Run();

  // The D-Bus surface (bus.cc). Negative errno on failure.
  const std::string& state() const { return state_; }
  const std::string& profile() const { return profile_; }
  bool muted() const { return muted_; }
  int battery_percent() const { return -1; }
  int temperature_millicelsius() const { return -1; }
  uint64_t xruns() const { return input_ ? input_->xruns() : xruns_at_stop_; }
  void Mute();
  void Unmute();
  int SetProfile(const std::string& requested);  // -EINVAL for an unknown profile
  int Reload();                                  // -EBUSY while a reload runs
  DaemonStats stats() const;
  sd_bus* bus() const { return bus_; }

 private:
  explicit Manager(DaemonOptions options);
  Status Init();
  Status SetUpEvents();
  Status SetUpBus();
  Status OpenEventsOutput();
  Status StartInput();
  void ApplyProfile(const std::string& profile, const std::string& reason);
  void Publish(const Event& event, uint64_t monotonic_usec);
  void OnWorkerNotified();
  void OnReloadDone();
  void Shutdown(const char* why, bool stop_input);
  void NotifyStatus();
  double Now() const;

  static int OnSignal(sd_event_source* s, const struct signalfd_siginfo* si, void* userdata);
  static int OnWorker(sd_event_source* s, int fd, uint32_t revents, void* userdata);
  static int OnReload(sd_event_source* s, int fd, uint32_t revents, void* userdata);

  DaemonOptions options_;
  config::Config config_;
  sd_event* event_ = nullptr;
  sd_bus* bus_ = nullptr;
  std::unique_ptr<FrameQueue> queue_;
  int worker_fd_ = -1;  // eventfd: the worker has something for the loop
  int reload_fd_ = -1;  // eventfd: the loader thread is done
  std::unique_ptr<PipelineWorker> worker_;
  std::unique_ptr<Input> input_;
  std::vector<EventSourcePtr> sources_;
  std::FILE* events_file_ = nullptr;
  std::optional<JsonLinesSink> json_;

  std::thread loader_;
  std::optional<Result<statemachine::PipelineModels>> loaded_;  // written by the loader thread

  std::string state_ = "idle";
  std::string requested_profile_ = "auto";
  std::string profile_ = "performance";
  bool muted_ = false;
  bool input_paused_ = false;
  bool stopping_ = false;
  uint64_t xruns_at_stop_ = 0;
};

}  // namespace earshot::daemon
