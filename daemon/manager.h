// Manager: earshotd's one owner (after systemd's timesyncd): the sd-event loop, the sd-bus
// connection (bus.cc holds its vtable), every event source (signals, watchdog, the input, the
// worker's notifications, the model loader), the frame queue, the pipeline's worker thread and
// the governor's driver (governor/governor_driver.h), whose host it is.
//
// Threads: everything here runs on the loop's thread except the pipeline (worker.h), a model
// reload in progress (a loader thread that only loads files) and the sensor reads
// (governor/sensor_poller.h). They talk through the FrameQueue (audio and commands, in
// capture order) and eventfds watched by the loop.
//
// Profiles (profiles.cc): the governor reads sysfs every governor.poll_ms from a timer, on the
// sensor poller's thread (a sensor that does not answer never holds the loop; only the first
// reading, before READY=1, is waited for: a second at most per stuck attribute); its samples and
// D-Bus SetProfile go to the driver, where a profile takes effect: the `profile` event, the
// property (Decided), and the profile's models, loaded on the loader thread (as a reload's are)
// and swapped by the pipeline at its next idle moment.
//
// Command sets (commands.cc): apps register sets over D-Bus; each is compiled with every other set
// by a load on the loader thread (the speech-to-text model with them all), the caller answered
// when it is done; a set goes with its owner's bus connection.
//
// Keywords (profiles.cc): the manager keeps the keywords of the models it last handed to the
// pipeline and their sensitivities (the property Keywords). SetSensitivity changes one at once
// (a command in the queue, as Mute is); the governor's model swaps keep the sensitivities set so,
// and a reload takes the config's again.
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "daemon/frame_queue.h"
#include "daemon/input.h"
#include "daemon/request_audio.h"
#include "daemon/worker.h"
#include "governor/governor.h"
#include "governor/governor_driver.h"
#include "governor/sensor_poller.h"
#include "models/stt/command_set.h"
#include "statemachine/cascade.h"
#include "statemachine/json_sink.h"
#include "statemachine/model_library.h"

namespace earshot::daemon {

// earshotd's command line (DESIGN.md).
struct DaemonOptions {
  std::string config_path;
  std::string input;           // empty: daemon.input
  std::string reference;       // empty: none; pipe:PATH[:RATE[:CHANNELS]]
  std::string bus = "system";  // system | session | none
  std::string events;          // empty: none; "-": stdout
  std::string sysfs_root;      // empty: governor.sysfs_root
  std::vector<std::string> sets;  // --set KEY=VALUE, in order
};

// The configuration the daemon runs with: the defaults, then --config, then each --set, then
// --input as daemon.input and --sysfs-root (which must be a directory) as governor.sysfs_root.
Result<config::Config> EffectiveConfig(const DaemonOptions& options);

// True once a Manager was destroyed with a model load (a command set's compile) still running on
// its thread, left to run on so that SIGTERM is served at once: the process must then end with
// _Exit, without static destructors under that thread.
bool LoadAbandoned();

// A keyword as D-Bus lists it (property Keywords).
struct KeywordState {
  std::string name;
  std::string phrase;      // its model's kws_phrase; "" when the file states none
  double sensitivity = 0;  // 0 .. 1
  double threshold = 0;    // the sensitivity's score threshold: Q15 / 32768, 0 .. 1 (1: never)
  std::string model;       // the model file in use
  std::string size;        // "large" or "small": which of the keyword's models that is
};

struct DaemonStats {
  statemachine::PipelineStats pipeline;
  QueueStats queue;
  uint64_t xruns = 0;
  uint64_t reopens = 0;
  bool capturing = false;
  std::string input;
  uint64_t request_audio_readers = 0;  // OpenRequestAudio's pipes open
  uint64_t request_audio_dropped = 0;  // frames a full pipe did not take
  PlaybackStats playback;
  std::string reference;  // what --reference reads, or ""
};

// The loop and the bus connection, owned.
struct EventLoopDeleter {
  void operator()(sd_event* event) const { sd_event_unref(event); }
};
struct BusDeleter {
  void operator()(sd_bus* bus) const { sd_bus_flush_close_unref(bus); }
};
using EventLoopPtr = std::unique_ptr<sd_event, EventLoopDeleter>;
using BusPtr = std::unique_ptr<sd_bus, BusDeleter>;

class Manager : private governor::GovernorHost {
 public:
  // Loads the config and the models, opens the input and the bus; errors name the cause.
  static Result<std::unique_ptr<Manager>> Create(const DaemonOptions& options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Runs the loop until SIGTERM/SIGINT (or the end of a wav input); the exit status.
  int Run();

  // The D-Bus surface (bus.cc). Negative errno on failure.
  statemachine::State state() const { return state_; }
  bool muted() const { return muted_; }
  const std::string& profile() const { return profile_name_; }
  int battery_percent() const { return known().battery_percent.value_or(-1); }
  int temperature_millicelsius() const { return known().temp_milli_c.value_or(-1); }
  uint64_t xruns() const { return input_ ? input_->xruns() : xruns_at_stop_; }
  void Mute();
  void Unmute();
  int SetProfile(const std::string& requested);  // -EINVAL for an unknown profile
  std::vector<KeywordState> keywords() const;
  // -ENOENT for a keyword that is not loaded, -ERANGE for a sensitivity outside [0, 1].
  int SetSensitivity(const std::string& keyword, double sensitivity);
  int Reload();  // loads after a load in progress; the models swap at the next idle moment
  // Push-to-talk: a request from the audio captured now on, its id in `id`; -EPERM when muted.
  int StartRequest(uint64_t* id);
  // Ends the request in progress (cancelled); -ENOENT when there is none.
  int CancelRequest();
  // A pipe on which each request's audio arrives (request_audio.h); its read end in `fd`, the
  // caller's to close. Negative errno.
  int OpenRequestAudio(int* fd) { return request_audio_.Open(fd); }
  DaemonStats stats() const;
  sd_bus* bus() const { return bus_.get(); }
  // Command sets (commands.cc). RegisterCommands answers `call` itself once the set is compiled
  // (0), or fails at once with the reason in `why`: -EINVAL (does not parse, or passes a set's
  // limits), -EEXIST (a set of that name is registered), -EDQUOT (the caller's connection has
  // daemon.command_sets_per_client sets), -ENOSPC (daemon.command_sets_max sets, or the sets'
  // words would pass daemon.command_words_max).
  int RegisterCommands(sd_bus_message* call, const std::string& name, const std::string& text,
                       std::string* why);
  // -ENOENT: no such handle; -EPERM: `sender` did not register it.
  int UnregisterCommands(const std::string& sender, const std::string& handle);
  // The sets decoded: stt.commands' and the registered ones, by name.
  std::vector<std::string> command_sets() const;

 private:
  explicit Manager(DaemonOptions options);
  Status Init();
  Status SetUpEvents();
  Status SetUpBus();
  Status OpenEventsOutput();
  Status StartInput();
  Status StartReference();
  // profiles.cc
  // A command set an app registered; `call` is its RegisterCommands call until answered.
  struct AppCommandSet {
    uint64_t id = 0;
    std::string handle;  // its object path
    std::string owner;   // the caller's unique bus name
    stt::CommandSet set;
    sd_bus_message* call = nullptr;
    bool gone = false;   // its owner left (or unregistered it) while it compiled
    bool alone = false;  // compiled with others, the load failed: compiled alone next
    AppCommandSet() = default;
    AppCommandSet(const AppCommandSet&) = delete;
    AppCommandSet& operator=(const AppCommandSet&) = delete;
    ~AppCommandSet();
  };
  struct TrackDeleter {
    void operator()(sd_bus_track* track) const { sd_bus_track_unref(track); }
  };
  using TrackPtr = std::unique_ptr<sd_bus_track, TrackDeleter>;
  using AppSets = std::map<uint64_t, std::unique_ptr<AppCommandSet>>;
  static int OnCommandsOwnerGone(sd_bus_track* track, void* userdata);
  int CheckCommandLimits(const std::string& owner, size_t words, std::string* why) const;
  int TrackOwner(sd_bus_message* call, const std::string& owner);
  bool command_set_named(const std::string& name) const;
  void DropCommandSet(AppSets::iterator it);
  std::pair<std::vector<stt::CommandSet>, std::string> AppSetsFor() const;
  void FinishRegistrations(const Result<statemachine::PipelineModels>& models);
  static Result<std::shared_ptr<statemachine::ModelLibrary>> MakeLibrary(
      const config::Config& config);
  Result<statemachine::PipelineModels> SetUpGovernor();
  Status StartPolling();
  void ApplySample(const governor::SensorSample& sample);
  const governor::SensorReadings& known() const { return driver_->governor().known(); }
  void SetKeywords(const statemachine::PipelineModels& models);
  // The driver's host (governor::GovernorHost): its events published, its decisions logged
  // and announced, its loads given the registered command sets, their models sent to the
  // pipeline; when the loader is idle, the oldest registration waiting is compiled.
  void Emit(const statemachine::Event& event) override { Publish(event, MonotonicUsec()); }
  void Decided(const governor::Decision& decision) override;
  void Prepare(governor::ModelLoad& load) override;
  void Loaded(Result<statemachine::PipelineModels> models,
              const governor::ModelLoad& load) override;
  void Idle() override;
  static int OnPollTimer(sd_event_source* s, uint64_t usec, void* userdata);
  void Publish(const statemachine::Event& event, uint64_t monotonic_usec);
  void OnWorkerNotified();
  void Shutdown(const char* why, bool stop_input);
  void NotifyStatus();
  // The time of an event of the manager's own (profile, error): the pipeline's events sent so far
  // are published first, and it is at or after them and before any the pipeline sends later, so
  // `t` never decreases.
  double EventTime() override;

  static int OnSignal(sd_event_source* s, const struct signalfd_siginfo* si, void* userdata);
  static int OnWorker(sd_event_source* s, int fd, uint32_t revents, void* userdata);
  static int OnReload(sd_event_source* s, int fd, uint32_t revents, void* userdata);
  static int OnSensors(sd_event_source* s, int fd, uint32_t revents, void* userdata);

  DaemonOptions options_;
  config::Config config_;
  EventLoopPtr event_;
  BusPtr bus_;
  std::unique_ptr<FrameQueue> queue_;
  RequestAudioPipes request_audio_;  // written by the worker: outlives it
  int worker_fd_ = -1;  // eventfd: the worker has something for the loop
  int reload_fd_ = -1;  // eventfd: the loader thread is done
  int sensors_fd_ = -1;  // eventfd: the sensor poller has a sample
  std::unique_ptr<PipelineWorker> worker_;
  std::unique_ptr<Input> input_;
  std::string reference_description_;  // "" without --reference
  std::vector<EventSourcePtr> sources_;
  std::FILE* events_file_ = nullptr;
  std::optional<statemachine::JsonLinesSink> json_;

  std::unique_ptr<governor::SensorPoller> sensors_;
  std::unique_ptr<governor::ModelLoader> loader_;  // on a thread; signals reload_fd_
  std::optional<governor::GovernorDriver> driver_;
  // The keywords of the models last handed to the pipeline, and their sensitivities.
  std::shared_ptr<const kws::KeywordSet> keywords_;
  std::vector<double> sensitivities_;
  AppSets app_sets_;  // by id
  uint64_t last_app_set_id_ = 0;
  std::map<std::string, TrackPtr> owner_tracks_;  // by the owner's unique name: one each
  std::set<uint64_t> compiling_;  // the sets the load under way registers
  bool compile_cancelled_ = false;  // that load was cancelled: one of its sets' owner left

  double last_event_t_ = 0;  // of the newest event published
  statemachine::State state_ = statemachine::State::kIdle;
  std::string profile_name_;  // of the decision in force
  bool muted_ = false;
  // The id of a StartRequest sent whose request has not yet shown itself (its command state, its
  // final transcript) nor been refused by a mute; 0: none. Only those events clear it: a state
  // event of the audio before the start may still be on its way.
  uint64_t start_pending_ = 0;
  bool input_paused_ = false;
  bool stopping_ = false;
  bool input_failed_ = false;  // the wav input ended on a decoding error: exit status 1
  uint64_t xruns_at_stop_ = 0;
};

}  // namespace earshot::daemon
