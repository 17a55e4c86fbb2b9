#include "daemon/manager.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "daemon/bus.h"
#include "daemon/log.h"
#include "daemon/wakeup.h"
#include "features/front_end.h"

namespace earshot::daemon {
namespace {

Error Errno(const std::string& what, int negative_errno) {
  return Error{what + ": " + std::strerror(-negative_errno)};
}

const char* StateInWords(statemachine::State state) {
  switch (state) {
    case statemachine::State::kIdle: return "idle: listening for speech";
    case statemachine::State::kVoice: return "voice: listening for the wake word";
    case statemachine::State::kCommand: return "command: transcribing a request";
    case statemachine::State::kMuted: return "muted: not listening";
  }
  return "starting";
}

// The journal's line for an event, with its fields (EARSHOT_EVENT, EARSHOT_KEYWORD,
// EARSHOT_REQUEST). What was said stays with the apps on the bus: the journal, kept on disk, gets
// a transcript's shape only.
void LogToJournal(const statemachine::Event& event) {
  if (const auto* error = std::get_if<statemachine::ErrorEvent>(&event)) {
    LogEvent(LOG_ERR, {{"EARSHOT_EVENT", "error"}, {"EARSHOT_STAGE", error->stage}}, "%s: %s",
             error->stage.c_str(), error->message.c_str());
  } else if (const auto* wake = std::get_if<statemachine::WakeEvent>(&event)) {
    LogEvent(LOG_INFO,
             {{"EARSHOT_EVENT", "wake"},
              {"EARSHOT_KEYWORD", wake->keyword},
              {"EARSHOT_REQUEST", std::to_string(wake->request)},
              {"EARSHOT_PLAYBACK", wake->playback ? "1" : "0"}},
             "wake word %s (score %.2f) at %.2f s%s", wake->keyword.c_str(), wake->score, wake->t,
             wake->playback ? ", during playback" : "");
  } else if (const auto* transcript = std::get_if<statemachine::TranscriptEvent>(&event);
             transcript != nullptr && transcript->final) {
    LogEvent(LOG_INFO,
             {{"EARSHOT_EVENT", "transcript"},
              {"EARSHOT_REQUEST", std::to_string(transcript->request)}},
             "request %llu, %.2f-%.2f s: %s, confidence %.2f",
             static_cast<unsigned long long>(transcript->request), transcript->start,
             transcript->end,
             transcript->cancelled      ? "cancelled"
             : transcript->text.empty() ? "no words"
                                        : "transcribed",
             transcript->confidence);
  } else if (const auto* command = std::get_if<statemachine::CommandEvent>(&event)) {
    LogEvent(LOG_INFO,
             {{"EARSHOT_EVENT", "command"},
              {"EARSHOT_REQUEST", std::to_string(command->request)}},
             "request %llu: %s", static_cast<unsigned long long>(command->request),
             command->rejected ? "no command (rejected)" : "a command");
  }
}

}  // namespace

Result<std::unique_ptr<Manager>> Manager::Create(const DaemonOptions& options) {
  std::unique_ptr<Manager> manager(new Manager(options));
  Status s = manager->Init();
  if (!s.ok()) return s.error();
  return manager;
}

Manager::Manager(DaemonOptions options)
    : options_(std::move(options)), config_(config::Config::Defaults()) {}

Manager::~Manager() {
  input_.reset();
  worker_.reset();  // closes the queue, joins the thread
  driver_.reset();
  loader_.reset();   // joins a load done; one under way runs on, detached (LoadAbandoned)
  sensors_.reset();  // no sample is signalled after this
  sources_.clear();
  app_sets_.clear();  // their calls and tracks hold the bus
  owner_tracks_.clear();
  bus_.reset();
  event_.reset();
  if (worker_fd_ >= 0) close(worker_fd_);
  if (reload_fd_ >= 0) close(reload_fd_);
  if (sensors_fd_ >= 0) close(sensors_fd_);
  if (events_file_ && events_file_ != stdout) std::fclose(events_file_);
}

Result<config::Config> EffectiveConfig(const DaemonOptions& options) {
  Result<config::Config> cfg = config::Config::FromFileOrDefaults(options.config_path);
  if (!cfg.ok()) return cfg.error();
  for (const std::string& set : options.sets) {
    if (Status s = cfg->SetAssignment(set); !s.ok()) return Error{"--set " + s.error().message};
  }
  if (!options.sets.empty()) {  // the file alone was checked as it was read
    if (Status s = cfg->Check(); !s.ok()) return Error{"--set: " + s.error().message};
  }
  if (!options.input.empty()) {
    if (Status set = cfg->Set("daemon.input", options.input); !set.ok()) return set.error();
  }
  if (!options.reference.empty()) {
    if (Status set = cfg->Set("daemon.reference", options.reference); !set.ok()) return set.error();
  }
  if (!options.sysfs_root.empty()) {
    if (!std::filesystem::is_directory(options.sysfs_root)) {
      return Error{"--sysfs-root " + options.sysfs_root + ": not a directory"};
    }
    if (Status set = cfg->Set("governor.sysfs_root", options.sysfs_root); !set.ok()) {
      return set.error();
    }
  }
  return cfg;
}

Status Manager::Init() {
  Result<config::Config> cfg = EffectiveConfig(options_);
  if (!cfg.ok()) return cfg.error();
  config_ = std::move(cfg).value();
  options_.input = config_.String("daemon.input");
  options_.reference = config_.String("daemon.reference");
  Status s = OpenEventsOutput();
  if (s.ok()) s = SetUpEvents();  // blocks the signals before any thread starts
  if (!s.ok()) return s;
  Result<statemachine::PipelineModels> models = SetUpGovernor();
  if (!models.ok()) return models.error();
  SetKeywords(*models);
  const auto queue_frames = static_cast<size_t>(config_.Int("daemon.queue_ms") / audio::kFrameMs);
  queue_ = std::make_unique<FrameQueue>(queue_frames);
  worker_ = std::make_unique<PipelineWorker>(queue_.get(), worker_fd_);
  if (s = StartReference(); !s.ok()) return s;
  auto pipeline =
      statemachine::Pipeline::Create(config_, std::move(models).value(), worker_->sink());
  if (!pipeline.ok()) return pipeline.error();
  (*pipeline)->SetRequestAudioSink(&request_audio_);
  worker_->Start(std::move(pipeline).value());
  s = SetUpBus();
  if (s.ok()) s = StartInput();
  if (!s.ok()) return s;
  return StartPolling();
}

// --events FILE never blocks the loop, at start-up or later: a FIFO with no reader yet is opened
// for reading and writing (open for writing alone would wait for a reader), and a FIFO is written
// without blocking and unbuffered, a line per write(): one that does not fit while nobody reads is
// dropped whole (lines are shorter than PIPE_BUF, so a write is all or nothing).
Status Manager::OpenEventsOutput() {
  if (options_.events.empty()) return OkStatus();
  if (options_.events == "-") {
    events_file_ = stdout;
  } else {
    const char* path = options_.events.c_str();
    constexpr int kFlags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | kFlags, 0644);
    if (fd < 0 && errno == ENXIO) fd = open(path, O_RDWR | kFlags);  // a FIFO, no reader yet
    if (fd < 0) return Error{"--events " + options_.events + ": " + std::strerror(errno)};
    struct stat st {};
    const bool fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
    if (!fifo) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a file: all of it
    events_file_ = fdopen(fd, "w");
    if (events_file_ == nullptr) {
      close(fd);
      return Error{"--events " + options_.events + ": " + std::strerror(errno)};
    }
    if (fifo) setvbuf(events_file_, nullptr, _IONBF, 0);
  }
  json_.emplace(events_file_);
  return OkStatus();
}

Status Manager::SetUpEvents() {
  sd_event* event = nullptr;
  int r = sd_event_default(&event);
  if (r < 0) return Errno("cannot create the event loop", r);
  event_.reset(event);
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, sig);
  // A request-audio pipe whose reader is gone is EPIPE, not the end of the daemon.
  signal(SIGPIPE, SIG_IGN);
  if (pthread_sigmask(SIG_BLOCK, &mask, nullptr) != 0) return Error{"cannot block signals"};
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    sd_event_source* s = nullptr;
    r = sd_event_add_signal(event_.get(), &s, sig, OnSignal, this);
    if (r < 0) return Errno("cannot watch signal " + std::to_string(sig), r);
    sources_.emplace_back(s);
  }
  worker_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  reload_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  sensors_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (worker_fd_ < 0 || reload_fd_ < 0 || sensors_fd_ < 0) {
    return Error{"eventfd: " + std::string(strerror(errno))};
  }
  sd_event_source* s = nullptr;
  r = sd_event_add_io(event_.get(), &s, worker_fd_, EPOLLIN, OnWorker, this);
  if (r < 0) return Errno("cannot watch the pipeline thread", r);
  sources_.emplace_back(s);
  r = sd_event_add_io(event_.get(), &s, reload_fd_, EPOLLIN, OnReload, this);
  if (r < 0) return Errno("cannot watch the model loader", r);
  sources_.emplace_back(s);
  r = sd_event_add_io(event_.get(), &s, sensors_fd_, EPOLLIN, OnSensors, this);
  if (r < 0) return Errno("cannot watch the sensor poller", r);
  sources_.emplace_back(s);
  return OkStatus();
}

Status Manager::SetUpBus() {
  if (options_.bus == "none") return OkStatus();
  sd_bus* bus = nullptr;
  int r = BusOpen(options_.bus, &bus);
  if (r < 0) return Errno("cannot connect to the " + options_.bus + " bus", r);
  bus_.reset(bus);
  r = BusRegister(this, bus);
  if (r < 0)
    return Errno(std::string("cannot publish ") + kBusName + " on the " + options_.bus + " bus", r);
  // A daemon off the bus serves nobody: when the bus closes its connection (the bus restarted, a
  // limit of the bus passed), the loop ends with status 1 and systemd's Restart= brings it back.
  r = sd_bus_set_exit_on_disconnect(bus, 1);
  if (r >= 0) r = sd_bus_attach_event(bus, event_.get(), SD_EVENT_PRIORITY_NORMAL);
  if (r < 0) return Errno("cannot attach the bus to the loop", r);
  return OkStatus();
}

Status Manager::StartInput() {
  InputHooks hooks;
  hooks.queue = queue_.get();
  hooks.want_space = [this] {
    input_paused_ = true;
    worker_->WantSpace();
    SignalWakeup(worker_fd_);  // check at once too: the worker may have drained it already
  };
  hooks.on_end = [this](bool failed) {
    input_failed_ = failed;
    Shutdown(failed ? "input failed" : "end of input", false);
  };
  hooks.on_change = [this] {
    if (bus_) BusPropertyChanged(bus_.get(), "Xruns");
  };
  auto input = MakeInput(options_.input, config_, event_.get(), std::move(hooks));
  if (!input.ok()) return input.error();
  input_ = std::move(input).value();
  return input_->Start();
}

int Manager::Run() {
  sd_notify(0, "READY=1");
  NotifyStatus();
  if (config_.Bool("daemon.watchdog")) {
    // From now on the loop sends WATCHDOG=1 at half the interval systemd asks for
    // (WATCHDOG_USEC); a loop that stops turning stops the pings.
    int r = sd_event_set_watchdog(event_.get(), true);
    if (r < 0) Log(LOG_WARNING, "cannot set up the watchdog: %s", strerror(-r));
  }
  Log(LOG_INFO, "ready: input %s, bus %s", input_->description().c_str(), options_.bus.c_str());
  int r = sd_event_loop(event_.get());
  if (r < 0) {
    Log(LOG_ERR, "event loop failed: %s", strerror(-r));
    return 1;
  }
  if (bus_ && sd_bus_is_open(bus_.get()) <= 0 && !stopping_) {
    Log(LOG_ERR, "the %s bus closed the connection: exiting", options_.bus.c_str());
    return 1;
  }
  return r;
}

int Manager::OnSignal(sd_event_source*, const struct signalfd_siginfo* si, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  if (si->ssi_signo == SIGHUP) {
    Log(LOG_INFO, "SIGHUP: reloading");
    self->Reload();
    return 0;
  }
  self->Shutdown(si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT", true);
  return 0;
}

// Stops capture, lets the pipeline finish what is queued (a request in progress gets its final
// transcript), then leaves the loop once the worker says it is done.
void Manager::Shutdown(const char* why, bool stop_input) {
  if (stopping_) return;
  stopping_ = true;
  Log(LOG_INFO, "%s: finishing", why);
  sd_notify(0, "STOPPING=1\nSTATUS=stopping");
  if (stop_input) {
    xruns_at_stop_ = input_->xruns();
    input_.reset();
  }
  queue_->Send(Command::Kind::kFinish);
}

int Manager::OnWorker(sd_event_source*, int fd, uint32_t, void* userdata) {
  DrainWakeup(fd);
  static_cast<Manager*>(userdata)->OnWorkerNotified();
  return 0;
}

void Manager::OnWorkerNotified() {
  for (const Outgoing& o : worker_->TakeEvents()) Publish(o.event, o.monotonic_usec);
  if (input_paused_ && input_ &&
      queue_->size() * 2 <= static_cast<size_t>(queue_->stats().capacity)) {
    input_paused_ = false;
    input_->Resume();
  }
  if (worker_->finished()) {
    // The worker pushed its last events before it said so: take those that came since.
    for (const Outgoing& o : worker_->TakeEvents()) Publish(o.event, o.monotonic_usec);
    Log(LOG_INFO, "pipeline finished; exiting");
    sd_event_exit(event_.get(), input_failed_ ? 1 : 0);
  }
}

void Manager::Publish(const statemachine::Event& event, uint64_t monotonic_usec) {
  last_event_t_ = std::max(last_event_t_, std::visit([](const auto& e) { return e.t; }, event));
  if (json_) json_->Emit(event);
  if (const auto* state = std::get_if<statemachine::StateEvent>(&event)) {
    state_ = statemachine::StateFromName(state->state).value_or(state_);
    if (state_ == statemachine::State::kCommand || state_ == statemachine::State::kMuted) {
      start_pending_ = 0;
    }
    NotifyStatus();
    if (bus_) BusPropertyChanged(bus_.get(), "State");
  }
  if (const auto* transcript = std::get_if<statemachine::TranscriptEvent>(&event);
      transcript != nullptr && transcript->final && transcript->request == start_pending_) {
    start_pending_ = 0;  // its request over (one started in a request says no state)
  }
  LogToJournal(event);
  if (bus_) BusEmitEvent(bus_.get(), event, monotonic_usec);
}

void Manager::NotifyStatus() { sd_notifyf(0, "STATUS=%s", StateInWords(state_)); }

double Manager::EventTime() {
  // Read before taking the events: those sent in between are published, and counted in
  // last_event_t_; those sent after are at or after `decided`.
  const double decided = worker_->event_time();
  for (const Outgoing& o : worker_->TakeEvents()) Publish(o.event, o.monotonic_usec);
  return std::max(decided, last_event_t_);
}

void Manager::Mute() {
  if (muted_) return;
  muted_ = true;
  queue_->Send(Command::Kind::kMute);
  if (bus_) BusPropertyChanged(bus_.get(), "Muted");
}

void Manager::Unmute() {
  if (!muted_) return;
  muted_ = false;
  queue_->Send(Command::Kind::kUnmute);
  if (bus_) BusPropertyChanged(bus_.get(), "Muted");
}

int Manager::StartRequest(uint64_t* id) {
  if (muted_) return -EPERM;
  *id = worker_->NewRequestId();
  Command command{Command::Kind::kStartRequest};
  command.request = *id;
  queue_->Send(std::move(command));
  start_pending_ = *id;
  Log(LOG_INFO, "request %llu started without a wake word", static_cast<unsigned long long>(*id));
  return 0;
}

int Manager::CancelRequest() {
  if (state_ != statemachine::State::kCommand && start_pending_ == 0) return -ENOENT;
  queue_->Send(Command::Kind::kCancelRequest);
  return 0;
}

// --reference: the playback whose echo the worker cancels.
Status Manager::StartReference() {
  if (options_.reference.empty()) return OkStatus();
  Result<ReferenceSpec> spec = ParseReferenceSpec(options_.reference);
  if (!spec.ok()) return spec.error();
  Result<std::unique_ptr<Reference>> reference =
      Reference::Open(*spec, config_, static_cast<size_t>(queue_->stats().capacity));
  if (!reference.ok()) return reference.error();
  auto canceller = echo::EchoCanceller::Create(echo::EchoCancellerConfig{});
  if (!canceller.ok()) return canceller.error();
  reference_description_ = (*reference)->description();
  Log(LOG_INFO, "reference: %s", reference_description_.c_str());
  worker_->SetReference(std::move(reference).value(), std::move(canceller).value());
  return OkStatus();
}

DaemonStats Manager::stats() const {
  DaemonStats s;
  s.pipeline = worker_->stats();
  s.queue = queue_->stats();
  s.xruns = xruns();
  s.reopens = input_ ? input_->reopens() : 0;
  s.capturing = input_ && input_->capturing();
  s.input = options_.input;
  s.request_audio_readers = request_audio_.readers();
  s.request_audio_dropped = request_audio_.dropped_frames();
  s.playback = worker_->playback();
  s.reference = reference_description_;
  return s;
}

}  // namespace earshot::daemon
