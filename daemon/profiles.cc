// The Manager's profiles (manager.h): the governor polled from an sd-event timer, D-Bus
// SetProfile, and model loads for a profile or a reload on the loader thread, swapped in by the
// pipeline at its next idle moment; the keywords of those models and their sensitivities.
#include <malloc.h>
#include <time.h>

#include <cmath>
#include <cstring>

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

}  // namespace

Result<std::shared_ptr<statemachine::ModelLibrary>> Manager::MakeLibrary(
    const config::Config& config) {
  auto front_end = options::BindFrontEnd(config);
  if (!front_end.ok()) return front_end.error();
  return std::make_shared<statemachine::ModelLibrary>(config, *front_end, statemachine::StageSet{});
}

// The governor and its first decision's models, loaded here (start-up loads before READY=1).
Result<statemachine::PipelineModels> Manager::SetUpGovernor() {
  auto gov_config = GovernorConfig::FromConfig(config_);
  if (!gov_config.ok()) return gov_config.error();
  governor_.emplace(*gov_config);
  sensors_ = std::make_unique<SensorPoller>(gov_config->sysfs_root,
                                            [fd = sensors_fd_] { SignalWakeup(fd); });
  auto library = MakeLibrary(config_);
  if (!library.ok()) return library.error();
  library_ = std::move(library).value();
  active_sizes_ = gov_config->Models(gov_config->manual.value_or(Profile::kPerformance));
  wanted_sizes_ = active_sizes_;
  return library_->For(active_sizes_);
}

Status Manager::StartPolling() {
  sd_event_source* s = nullptr;
  const uint64_t poll_usec = static_cast<uint64_t>(governor_->config().poll_ms) * 1000;
  int r = sd_event_add_time_relative(event_, &s, CLOCK_MONOTONIC, poll_usec, 0, OnPollTimer, this);
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
  if (std::optional<SensorSample> sample = self->sensors_->Take()) self->ApplySample(*sample);
  sd_event_source_set_time(s,
                           usec + static_cast<uint64_t>(self->governor_->config().poll_ms) * 1000);
  sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  return 0;
}

int Manager::OnSensors(sd_event_source*, int fd, uint32_t, void* userdata) {
  DrainWakeup(fd);
  auto* self = static_cast<Manager*>(userdata);
  if (std::optional<SensorSample> sample = self->sensors_->Take()) self->ApplySample(*sample);
  return 0;
}

void Manager::ApplySample(const SensorSample& sample) {
  for (const std::string& warning : sample.warnings) {
    Publish(ErrorEvent{EventTime(), "governor", warning}, MonotonicUsec());
  }
  const SensorReadings before = governor_->known();
  ApplyDecision(governor_->Update(sample.readings, MonotonicMs()));
  if (bus_ && governor_->known().battery_percent != before.battery_percent) {
    BusPropertyChanged(bus_, "BatteryPercent");
  }
  if (bus_ && governor_->known().temp_milli_c != before.temp_milli_c) {
    BusPropertyChanged(bus_, "TemperatureMilliCelsius");
  }
}

int Manager::SetProfile(const std::string& requested) {
  Result<std::optional<Profile>> parsed = ParseProfileSetting(requested);
  if (!parsed.ok()) return -EINVAL;
  ApplyDecision(governor_->SetOverride(*parsed, MonotonicMs()));
  return 0;
}

// The one place a profile takes effect: the event, the property, and the profile's models.
void Manager::ApplyDecision(const Decision& decision) {
  if (!decision.changed) return;
  profile_name_ = std::string(ProfileName(decision.profile));
  Log(LOG_INFO, "profile %s (%s)", std::string(ProfileName(decision.profile)).c_str(),
      decision.reason.c_str());
  Publish(MakeProfileEvent(decision, EventTime()), MonotonicUsec());
  if (bus_) BusPropertyChanged(bus_, "Profile");
  const ProfileModels sizes = governor_->config().Models(decision.profile);
  if (sizes == wanted_sizes_) return;  // in use, or being loaded
  wanted_sizes_ = sizes;
  StartLoad({library_, sizes, false});
}

// Loads on the loader thread (one load at a time: a later one waits for the current one and
// replaces any other waiting).
void Manager::StartLoad(ModelLoad load) {
  if (loader_.joinable()) {
    // A load for the command sets alone adds nothing to one waiting: each load compiles the sets
    // registered when it starts.
    if (!load.commands || !pending_load_) pending_load_ = std::move(load);
    return;
  }
  auto [sets, key] = AppSetsFor(load.registering);
  if (load.library->command_sets_key() != key) {
    load.library = load.library->WithCommandSets(std::move(sets), std::move(key));
  }
  loading_ = std::move(load);
  loader_ = std::thread([this, library = loading_.library, sizes = loading_.sizes] {
    // Models freed since the last load (swapped out at an idle moment) go back to the system
    // before more are loaded: malloc keeps freed memory otherwise, in this thread's arena too.
    malloc_trim(0);
    loaded_.emplace(library->For(sizes));
    SignalWakeup(reload_fd_);
  });
}

void Manager::SetKeywords(const statemachine::PipelineModels& models) {
  keywords_ = models.kws;
  sensitivities_ = models.sensitivities;
  if (keywords_) sensitivities_.resize(keywords_->keywords().size(), kws::kDefaultSensitivity);
  if (bus_) BusPropertyChanged(bus_, "Keywords");
}

std::vector<KeywordState> Manager::keywords() const {
  std::vector<KeywordState> states;
  if (!keywords_) return states;
  for (size_t k = 0; k < keywords_->keywords().size(); ++k) {
    const kws::Keyword& keyword = keywords_->keywords()[k];
    const int32_t threshold_q15 =
        kws::ThresholdQ15(sensitivities_[k], keyword.model->default_threshold_q15());
    states.push_back(KeywordState{keyword.name, keyword.model->phrase(), sensitivities_[k],
                                  threshold_q15 / 32768.0, keyword.path,
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
  if (bus_) BusPropertyChanged(bus_, "Keywords");
  return 0;
}

int Manager::Reload() {
  Result<config::Config> cfg = config::Config::FromFileOrDefaults(options_.config_path);
  auto library = cfg.ok() ? MakeLibrary(*cfg)
                          : Result<std::shared_ptr<statemachine::ModelLibrary>>(cfg.error());
  if (!library.ok()) {
    Publish(ErrorEvent{EventTime(), "reload", library.error().message}, MonotonicUsec());
    return -EINVAL;
  }
  // The same configuration and model files: the loaded models again (For() loads nothing), so
  // a reload costs no memory. Compared only while no load runs, which would write the library.
  const bool same = !loader_.joinable() && library_->Serves(*cfg);
  if (same) Log(LOG_INFO, "reload: configuration and model files unchanged; keeping the models");
  // Off the loop and the audio path; after a load in progress, if any.
  StartLoad({same ? library_ : std::move(library).value(), wanted_sizes_, true});
  return 0;
}

int Manager::OnReload(sd_event_source*, int fd, uint32_t, void* userdata) {
  DrainWakeup(fd);
  static_cast<Manager*>(userdata)->OnLoadDone();
  return 0;
}

// The loader thread has written loaded_ before its eventfd write, and is joined here before
// loaded_ is read.
void Manager::OnLoadDone() {
  if (!loader_.joinable()) return;
  loader_.join();
  Result<statemachine::PipelineModels> models = std::move(*loaded_);
  loaded_.reset();
  const char* stage = loading_.reload ? "reload" : loading_.commands ? "commands" : "governor";
  // A registration's error is its caller's, not an event.
  if (loading_.registering != 0) (void)FinishRegistration(models);
  if (!models.ok()) {
    const std::string message = models.error().message + " (keeping the current models)";
    if (loading_.registering == 0) {
      Publish(ErrorEvent{EventTime(), stage, message}, MonotonicUsec());
    }
    if (!pending_load_) wanted_sizes_ = active_sizes_;
  } else {
    library_ = loading_.library;
    active_sizes_ = loading_.sizes;
    Log(LOG_INFO, "models %s; they take over at the next idle moment",
        loading_.reload ? "reloaded" : "loaded");
    if (!loading_.reload && models->kws && keywords_) {
      // Another profile's models: a sensitivity set over D-Bus stays with its keyword.
      for (size_t k = 0; k < models->kws->keywords().size(); ++k) {
        const auto kept = keywords_->Find(models->kws->keywords()[k].name);
        if (kept) models->sensitivities[k] = sensitivities_[*kept];
      }
    }
    SetKeywords(*models);
    queue_->Send(Command::Kind::kSwapModels, std::move(models).value());
  }
  StartNextLoad();
}

}  // namespace earshot::daemon
