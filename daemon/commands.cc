// The Manager's command sets registered over D-Bus (manager.h): RegisterCommands parses the text at
// once (a parse error is the caller's at once), then compiles the set with every other one on the
// loader thread (its words' pronunciations, the grammar, a pocketsphinx decoder: about as long as
// a model load), and replies when that is done: the handle, or the error that names the line and
// the word. The set lives as long as its owner's bus connection (sd_bus_track), or until
// UnregisterCommands; either starts a load without it.
#include <cerrno>
#include <cstring>

#include "daemon/bus.h"
#include "daemon/log.h"
#include "daemon/manager.h"

namespace earshot::daemon {
namespace {

constexpr const char* kHandlePrefix = "/io/earshot/Pipeline1/commands/";

}  // namespace

Manager::AppCommandSet::~AppCommandSet() {
  if (call) sd_bus_message_unref(call);
  if (track) sd_bus_track_unref(track);
}

int Manager::RegisterCommands(sd_bus_message* call, const std::string& name,
                              const std::string& text, std::string* why) {
  Result<stt::CommandSet> set = stt::ParseCommandSet(name, text, "RegisterCommands " + name);
  if (!set.ok()) {
    *why = set.error().message;
    return -EINVAL;
  }
  Result<std::vector<stt::CommandSet>> files =
      stt::ReadCommandSets(config_.StringList("stt.commands"));
  bool taken = false;
  if (files.ok()) {
    for (const stt::CommandSet& file : *files) taken = taken || file.name == set->name;
  }
  for (const auto& [id, other] : app_sets_) taken = taken || other->set.name == set->name;
  if (taken) {
    *why = "a command set named '" + set->name + "' is registered already";
    return -EEXIST;
  }
  auto entry = std::make_unique<AppCommandSet>();
  entry->id = ++last_app_set_id_;
  entry->handle = kHandlePrefix + std::to_string(entry->id);
  entry->owner = sd_bus_message_get_sender(call) ? sd_bus_message_get_sender(call) : "";
  entry->set = std::move(set).value();
  int r = sd_bus_track_new(bus_.get(), &entry->track, OnCommandsOwnerGone, this);
  if (r >= 0) r = sd_bus_track_add_sender(entry->track, call);
  if (r < 0) {
    *why = std::string("cannot track the caller: ") + strerror(-r);
    return r;
  }
  entry->call = sd_bus_message_ref(call);
  Log(LOG_INFO, "command set %s registered by %s: compiling", entry->set.name.c_str(),
      entry->owner.c_str());
  app_sets_.emplace(entry->id, std::move(entry));
  if (driver_->loading() == nullptr) Idle();  // else compiled once the loader is idle
  return 0;
}

int Manager::UnregisterCommands(const std::string& sender, const std::string& handle) {
  for (auto it = app_sets_.begin(); it != app_sets_.end(); ++it) {
    if (it->second->handle != handle || it->second->call) continue;  // pending: not yet a handle
    if (it->second->owner != sender) return -EPERM;
    Log(LOG_INFO, "command set %s unregistered", it->second->set.name.c_str());
    app_sets_.erase(it);
    driver_->Load(statemachine::ModelLoad::Kind::kCommands);
    BusPropertyChanged(bus_.get(), "CommandSets");
    return 0;
  }
  return -ENOENT;
}

// The owner's connection closed: its sets go (one track per set).
int Manager::OnCommandsOwnerGone(sd_bus_track* track, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  for (auto it = self->app_sets_.begin(); it != self->app_sets_.end(); ++it) {
    AppCommandSet& entry = *it->second;
    if (entry.track != track) continue;
    Log(LOG_INFO, "command set %s: its owner %s left", entry.set.name.c_str(), entry.owner.c_str());
    // sd-bus holds the track while its handler runs.
    sd_bus_track_unref(entry.track);
    entry.track = nullptr;
    const statemachine::ModelLoad* loading = self->driver_->loading();
    if (loading != nullptr && loading->registering == entry.id) {
      entry.gone = true;  // compiled now: dropped when the load is done
      return 0;
    }
    const bool active = entry.call == nullptr;
    self->app_sets_.erase(it);
    if (active) {
      self->driver_->Load(statemachine::ModelLoad::Kind::kCommands);
      BusPropertyChanged(self->bus_.get(), "CommandSets");
    }
    return 0;
  }
  return 0;
}

// The sets a load compiles: every registered set, and the one being registered by it.
std::pair<std::vector<stt::CommandSet>, std::string> Manager::AppSetsFor(uint64_t registering) {
  std::vector<stt::CommandSet> sets;
  std::string key;
  for (const auto& [id, entry] : app_sets_) {
    if (entry->gone || (entry->call && id != registering)) continue;
    sets.push_back(entry->set);
    key += std::to_string(id) + ",";
  }
  return {std::move(sets), std::move(key)};
}

// The loader is idle and no load waits: the oldest registration waiting to compile.
void Manager::Idle() {
  for (const auto& [id, entry] : app_sets_) {
    if (!entry->call) continue;
    driver_->Load(statemachine::ModelLoad::Kind::kCommands, id);
    return;
  }
}

// Each load compiles the registered sets, and the one being registered by it: a library with
// them all (one the load was given already, when they are the same).
void Manager::Prepare(statemachine::ModelLoad& load) {
  auto [sets, key] = AppSetsFor(load.registering);
  if (load.library->command_sets_key() != key) {
    load.library = load.library->WithCommandSets(std::move(sets), std::move(key));
  }
}

// A registration's load is done: the handle, or the error (its models are not used).
bool Manager::FinishRegistration(const Result<statemachine::PipelineModels>& models,
                                 uint64_t registering) {
  auto it = app_sets_.find(registering);
  if (it == app_sets_.end()) return models.ok();
  AppCommandSet& entry = *it->second;
  sd_bus_message* call = entry.call;
  entry.call = nullptr;
  if (!models.ok()) {
    Log(LOG_INFO, "command set %s refused: %s", entry.set.name.c_str(),
        models.error().message.c_str());
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_error_set(&error, kErrorBadCommandSet, models.error().message.c_str());
    if (!entry.gone) sd_bus_reply_method_error(call, &error);
    sd_bus_error_free(&error);
    sd_bus_message_unref(call);
    app_sets_.erase(it);
    return false;
  }
  Log(LOG_INFO, "command set %s compiled: %s", entry.set.name.c_str(), entry.handle.c_str());
  if (!entry.gone) sd_bus_reply_method_return(call, "o", entry.handle.c_str());
  sd_bus_message_unref(call);
  if (entry.gone) {
    app_sets_.erase(it);
    driver_->Load(statemachine::ModelLoad::Kind::kCommands);  // after this one, without it
  } else {
    BusPropertyChanged(bus_.get(), "CommandSets");
  }
  return true;
}

std::vector<std::string> Manager::command_sets() const {
  std::vector<std::string> names;
  Result<std::vector<stt::CommandSet>> files =
      stt::ReadCommandSets(config_.StringList("stt.commands"));
  if (files.ok()) {
    for (const stt::CommandSet& set : *files) names.push_back(set.name);
  }
  for (const auto& [id, entry] : app_sets_) {
    if (!entry->call && !entry->gone) names.push_back(entry->set.name);
  }
  return names;
}

}  // namespace earshot::daemon
