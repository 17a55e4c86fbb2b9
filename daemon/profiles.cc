// The Manager's profiles (manager.h): the governor's driver fed from an sd-event timer and D-Bus
// SetProfile, its model loads (a profile's, a reload's) on the loader thread, swapped in by the
// pipeline at its next idle moment; the keywords of those models and their sensitivities.
#include <fcntl.h>
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "base/q15.h"
#include "daemon/bus.h"
#include "daemon/log.h"
#include "daemon/manager.h"
#include "daemon/wakeup.h"
#include "features/front_end.h"
#include "models/kws/keywords.h"
#include "options/stage_options.h"

namespace earshot::daemon {
namespace {

int64_t MonotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::atomic<bool> load_abandoned{false};

// What a load's thread shares with its loader, which may be gone (SIGTERM) before the load is
// done: the result, its flag, and a duplicate of the loop's eventfd (the loop's own is closed).
struct LoadSlot {
  explicit LoadSlot(int fd) : done_fd(fcntl(fd, F_DUPFD_CLOEXEC, 0)) {}
  ~LoadSlot() {
    if (done_fd >= 0) close(done_fd);
  }
  LoadSlot(const LoadSlot&) = delete;
  LoadSlot& operator=(const LoadSlot&) = delete;
  int done_fd;
  std::atomic<bool> done{false};
  CancelFlag cancel;
  std::optional<Result<statemachine::PipelineModels>> result;
};

// Loads on a thread of its own, one load at a time, and signals `done_fd` (an eventfd the loop
// watches) when it is done. The thread writes the result before `done` and its signal, and is
// joined before the result is read. A load still under way when the loader is destroyed (the
// daemon stopping) is left to run on, detached, and LoadAbandoned() says so: a compile cannot
// hold up SIGTERM (issue 78), and nothing waits for its result.
class ThreadLoader : public governor::ModelLoader {
 public:
  explicit ThreadLoader(int done_fd) : done_fd_(done_fd) {}
  ~ThreadLoader() override {
    if (!thread_.joinable()) return;
    if (slot_->done.load(std::memory_order_acquire)) {
      thread_.join();
      return;
    }
    Log(LOG_INFO, "a model load under way is left unfinished");
    slot_->cancel.Raise();  // it stops at its next step
    load_abandoned.store(true);
    thread_.detach();
  }
  void Start(std::shared_ptr<statemachine::ModelLibrary> library,
             statemachine::ProfileModels sizes) override {
    slot_ = std::make_shared<LoadSlot>(done_fd_);
    thread_ = std::thread([slot = slot_, library = std::move(library), sizes] {
      // Models freed since the last load (swapped out at an idle moment) go back to the system
      // before more are loaded: malloc keeps freed memory otherwise, in this thread's arena too.
      malloc_trim(0);
      slot->result.emplace(library->For(sizes, &slot->cancel));
      slot->done.store(true, std::memory_order_release);
      SignalWakeup(slot->done_fd);
    });
  }
  void Cancel() override {
    if (slot_) slot_->cancel.Raise();
  }
  std::optional<Result<statemachine::PipelineModels>> Take() override {
    if (!thread_.joinable() || !slot_->done.load(std::memory_order_acquire)) return std::nullopt;
    thread_.join();
    std::optional<Result<statemachine::PipelineModels>> out = std::move(slot_->result);
    slot_.reset();
    return out;
  }

 private:
  int done_fd_;
  std::thread thread_;
  std::shared_ptr<LoadSlot> slot_;
};

}  // namespace

bool LoadAbandoned() { return load_abandoned.load(); }

Result<std::shared_ptr<statemachine::ModelLibrary>> Manager::MakeLibrary(
    const config::Config& config) {
  return std::make_shared<statemachine::ModelLibrary>(config, statemachine::StageSet{});
}

// The governor and its first decision's models, loaded here (start-up loads before READY=1).
Result<statemachine::PipelineModels> Manager::SetUpGovernor() {
  auto gov_config = governor::GovernorConfig::FromConfig(config_);
  if (!gov_config.ok()) return gov_config.error();
  sensors_ = std::make_unique<governor::SensorPoller>(gov_config->sysfs_root,
                                                      [fd = sensors_fd_] { SignalWakeup(fd); });
  auto library = MakeLibrary(config_);
  if (!library.ok()) return library.error();
  const statemachine::ProfileModels sizes =
      gov_config->Models(gov_config->manual.value_or(governor::Profile::kPerformance));
  Result<statemachine::PipelineModels> models = (*library)->For(sizes);
  loader_ = std::make_unique<ThreadLoader>(reload_fd_);
  governor::GovernorHost* host = this;  // a private base: converted here, in a member
  driver_.emplace(*gov_config, std::move(library).value(), sizes, host, loader_.get());
  return models;
}

Status Manager::StartPolling() {
  sd_event_source* s = nullptr;
  const uint64_t poll_usec = static_cast<uint64_t>(driver_->governor().config().poll_ms) * 1000;
  int r = sd_event_add_time_relative(event_.get(), &s, CLOCK_MONOTONIC, poll_usec, 0, OnPollTimer,
                                     this);
  if (r < 0) return Error{"cannot start the governor's timer: " + std::string(strerror(-r))};
  sources_.emplace_back(s);  // one-shot, re-armed by OnPollTimer
  // The first decision announces the profile: on readings, waited for (start-up only).
  ApplySample(sensors_->Read());
  return OkStatus();
}

// A poll begins a read on the poller's thread; OnSensors applies it when it is done. Take() here
// gives what a read given up on left to report.
int Manager::OnPollTimer(sd_event_source* s, uint64_t usec, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  self->sensors_->Start();
  if (std::optional<governor::SensorSample> sample = self->sensors_->Take())
    self->ApplySample(*sample);
  const auto poll_ms = static_cast<uint64_t>(self->driver_->governor().config().poll_ms);
  sd_event_source_set_time(s, usec + poll_ms * 1000);
  sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  return 0;
}

int Manager::OnSensors(sd_event_source*, int fd, uint32_t, void* userdata) {
  DrainWakeup(fd);
  auto* self = static_cast<Manager*>(userdata);
  if (std::optional<governor::SensorSample> sample = self->sensors_->Take())
    self->ApplySample(*sample);
  return 0;
}

void Manager::ApplySample(const governor::SensorSample& sample) {
  const governor::SensorReadings before = known();
  driver_->ApplySample(sample, MonotonicMs());
  if (bus_ && known().battery_percent != before.battery_percent) {
    BusPropertyChanged(bus_.get(), "BatteryPercent");
  }
  if (bus_ && known().temp_milli_c != before.temp_milli_c) {
    BusPropertyChanged(bus_.get(), "TemperatureMilliCelsius");
  }
}

int Manager::SetProfile(const std::string& requested) {
  Result<std::optional<governor::Profile>> parsed = governor::ParseProfileSetting(requested);
  if (!parsed.ok()) return -EINVAL;
  driver_->SetProfile(*parsed, MonotonicMs());
  return 0;
}

// After the driver's profile event: the log and the property.
void Manager::Decided(const governor::Decision& decision) {
  profile_name_ = std::string(governor::ProfileName(decision.profile));
  Log(LOG_INFO, "profile %s (%s)", profile_name_.c_str(), decision.reason.c_str());
  if (bus_) BusPropertyChanged(bus_.get(), "Profile");
}

void Manager::SetKeywords(const statemachine::PipelineModels& models) {
  keywords_ = models.kws;
  sensitivities_ = models.sensitivities;
  if (keywords_) sensitivities_.resize(keywords_->keywords().size(), kws::kDefaultSensitivity);
  if (bus_) BusPropertyChanged(bus_.get(), "Keywords");
}

std::vector<KeywordState> Manager::keywords() const {
  std::vector<KeywordState> states;
  if (!keywords_) return states;
  for (size_t k = 0; k < keywords_->keywords().size(); ++k) {
    const kws::Keyword& keyword = keywords_->keywords()[k];
    const int32_t threshold_q15 =
        kws::ThresholdQ15(sensitivities_[k], keyword.model->default_threshold_q15());
    states.push_back(KeywordState{keyword.name, keyword.model->phrase(), sensitivities_[k],
                                  FromQ15(threshold_q15), keyword.path,
                                  keyword.small ? "small" : "large"});
  }
  return states;
}

int Manager::SetSensitivity(const std::string& keyword, double sensitivity) {
  const std::optional<size_t> k = keywords_ ? keywords_->Find(keyword) : std::nullopt;
  if (!k) return -ENOENT;
  if (!std::isfinite(sensitivity) || sensitivity < 0 || sensitivity > 1) return -ERANGE;
  sensitivities_[*k] = sensitivity;
  Log(LOG_INFO, "keyword %s: sensitivity %.3f", keyword.c_str(), sensitivity);
  Command command{Command::Kind::kSetSensitivity};
  command.keyword = keyword;
  command.sensitivity = sensitivity;
  queue_->Send(std::move(command));
  if (bus_) BusPropertyChanged(bus_.get(), "Keywords");
  return 0;
}

int Manager::Reload() {
  Result<config::Config> cfg = config::Config::FromFileOrDefaults(options_.config_path);
  auto library = cfg.ok() ? MakeLibrary(*cfg)
                          : Result<std::shared_ptr<statemachine::ModelLibrary>>(cfg.error());
  if (!library.ok()) {
    Publish(statemachine::ErrorEvent{EventTime(), "reload", library.error().message},
            MonotonicUsec());
    return -EINVAL;
  }
  // The same configuration and model files: the loaded models again (For() loads nothing), so
  // a reload costs no memory. Compared only while no load runs, which would write the library.
  const bool same = driver_->loading() == nullptr && driver_->library()->Serves(*cfg);
  if (same) Log(LOG_INFO, "reload: configuration and model files unchanged; keeping the models");
  // Off the loop and the audio path; after a load in progress, if any.
  driver_->Load(governor::ModelLoad::Kind::kReload, 0, same ? nullptr : std::move(library).value());
  return 0;
}

int Manager::OnReload(sd_event_source*, int fd, uint32_t, void* userdata) {
  DrainWakeup(fd);
  static_cast<Manager*>(userdata)->driver_->Poll();
  return 0;
}

// A load is done (the driver holds its library and sizes now, if it succeeded).
void Manager::Loaded(Result<statemachine::PipelineModels> models, const governor::ModelLoad& load) {
  using Kind = governor::ModelLoad::Kind;
  const bool reload = load.kind == Kind::kReload;
  const char* stage = reload ? "reload" : load.kind == Kind::kCommands ? "commands" : "governor";
  // A registration's error is its caller's, not an event.
  if (load.registering != 0) FinishRegistrations(models);
  if (!models.ok()) {
    const std::string message = models.error().message + " (keeping the current models)";
    if (load.registering == 0) {
      Publish(statemachine::ErrorEvent{EventTime(), stage, message}, MonotonicUsec());
    }
  } else {
    Log(LOG_INFO, "models %s; they take over at the next idle moment",
        reload ? "reloaded" : "loaded");
    if (!reload && models->kws && keywords_) {
      // Another profile's models: a sensitivity set over D-Bus stays with its keyword.
      for (size_t k = 0; k < models->kws->keywords().size(); ++k) {
        const auto kept = keywords_->Find(models->kws->keywords()[k].name);
        if (kept) models->sensitivities[k] = sensitivities_[*kept];
      }
    }
    SetKeywords(*models);
    queue_->Send(Command::Kind::kSwapModels, std::move(models).value());
  }
}

}  // namespace earshot::daemon
