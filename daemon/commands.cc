// The Manager's command sets registered over D-Bus (manager.h): RegisterCommands parses the text at
// once (a parse error, a limit passed, is the caller's at once), then compiles the set with every
// other one on the loader thread (its words' pronunciations, the grammar, a pocketsphinx decoder:
// about as long as a model load; the registrations waiting meanwhile compile together in the next
// load), and replies when that is done: the handle, or the error that names the line and the
// word. The set lives as long as its owner's bus connection (one sd_bus_track per connection), or
// until UnregisterCommands; either starts a load without it. Limits (docs/dbus.md): a set's own
// (command_set.h), sets per connection, sets and words in all.
#include <cerrno>
#include <cstring>
#include <set>

#include "daemon/bus.h"
#include "daemon/log.h"
#include "daemon/manager.h"

namespace earshot::daemon {
namespace {

constexpr const char* kHandlePrefix = "/io/earshot/Pipeline1/commands/";

}  // namespace

Manager::AppCommandSet::~AppCommandSet() {
  if (call) sd_bus_message_unref(call);
}

// Room for one more set of `words` from `owner`: 0, -EDQUOT (the owner's cap), -ENOSPC (the
// daemon's caps: sets, words), with the reason in `why`.
int Manager::CheckCommandLimits(const std::string& owner, size_t words, std::string* why) const {
  int64_t owned = 0, sets = 0;
  size_t total_words = words;
  for (const auto& [id, entry] : app_sets_) {
    if (entry->gone) continue;
    ++sets;
    owned += entry->owner == owner ? 1 : 0;
    total_words += entry->set.grammar_words;
  }
  const int64_t per_client = config_.Int("daemon.command_sets_per_client");
  if (owned >= per_client) {
    *why = "this connection has registered " + std::to_string(owned) + " command sets, the most " +
           "one may (daemon.command_sets_per_client)";
    return -EDQUOT;
  }
  if (sets >= config_.Int("daemon.command_sets_max")) {
    *why = std::to_string(sets) + " command sets are registered, the most the daemon takes " +
           "(daemon.command_sets_max)";
    return -ENOSPC;
  }
  if (total_words > static_cast<size_t>(config_.Int("daemon.command_words_max"))) {
    *why = "the registered sets would have " + std::to_string(total_words) + " words, over " +
           "daemon.command_words_max";
    return -ENOSPC;
  }
  return 0;
}

// The owner's track: one per connection, whatever its number of sets (each track is a match rule
// on the daemon's connection, and the system bus allows 512 of them).
int Manager::TrackOwner(sd_bus_message* call, const std::string& owner) {
  if (owner_tracks_.count(owner) != 0) return 0;
  sd_bus_track* track = nullptr;
  int r = sd_bus_track_new(bus_.get(), &track, OnCommandsOwnerGone, this);
  if (r < 0) return r;
  TrackPtr owned(track);
  r = sd_bus_track_add_sender(track, call);
  if (r < 0) return r;
  owner_tracks_.emplace(owner, std::move(owned));
  return 0;
}

int Manager::RegisterCommands(sd_bus_message* call, const std::string& name,
                              const std::string& text, std::string* why) {
  // Before the name goes into every message: a megabyte's name is refused, not copied.
  if (Status s = stt::CheckName(name, "a set name"); !s.ok()) {
    *why = "RegisterCommands: " + s.error().message;
    return -EINVAL;
  }
  Result<stt::CommandSet> set = stt::ParseCommandSet(name, text, "RegisterCommands " + name);
  if (!set.ok()) {
    *why = set.error().message;
    return -EINVAL;
  }
  if (command_set_named(set->name)) {
    *why = "a command set named '" + set->name + "' is registered already";
    return -EEXIST;
  }
  const std::string owner = sd_bus_message_get_sender(call) ? sd_bus_message_get_sender(call) : "";
  if (int r = CheckCommandLimits(owner, set->grammar_words, why); r < 0) return r;
  if (int r = TrackOwner(call, owner); r < 0) {
    *why = std::string("cannot track the caller: ") + strerror(-r);
    return r;
  }
  auto entry = std::make_unique<AppCommandSet>();
  entry->id = ++last_app_set_id_;
  entry->handle = kHandlePrefix + std::to_string(entry->id);
  entry->owner = owner;
  entry->set = std::move(set).value();
  entry->call = sd_bus_message_ref(call);
  Log(LOG_INFO, "command set %s registered by %s: compiling", entry->set.name.c_str(),
      entry->owner.c_str());
  app_sets_.emplace(entry->id, std::move(entry));
  if (driver_->loading() == nullptr) Idle();  // else compiled once the loader is idle
  return 0;
}

bool Manager::command_set_named(const std::string& name) const {
  for (const std::string& taken : command_sets()) {
    if (taken == name) return true;
  }
  for (const auto& [id, entry] : app_sets_) {
    if (!entry->gone && entry->set.name == name) return true;  // compiling
  }
  return false;
}

int Manager::UnregisterCommands(const std::string& sender, const std::string& handle) {
  for (auto it = app_sets_.begin(); it != app_sets_.end(); ++it) {
    if (it->second->handle != handle || it->second->call) continue;  // pending: not yet a handle
    if (it->second->gone) continue;
    if (it->second->owner != sender) return -EPERM;
    Log(LOG_INFO, "command set %s unregistered", it->second->set.name.c_str());
    DropCommandSet(it);
    return 0;
  }
  return -ENOENT;
}

// Removes a set: the compile of one being registered is cancelled (it ends at its next step, and
// the others it registered wait for the next), the set dropped when it ends; a decoded one starts
// a load without it.
void Manager::DropCommandSet(AppSets::iterator it) {
  if (compiling_.count(it->first) != 0) {
    it->second->gone = true;  // its load drops it when it is done
    if (!compile_cancelled_ && driver_->CancelCommandsLoad()) {
      compile_cancelled_ = true;
      Log(LOG_INFO, "command set %s: its compile cancelled", it->second->set.name.c_str());
    }
    return;
  }
  const bool active = it->second->call == nullptr;
  app_sets_.erase(it);
  if (active) {
    driver_->Load(governor::ModelLoad::Kind::kCommands);
    BusPropertyChanged(bus_.get(), "CommandSets");
  }
}

// The owner's connection closed: all its sets go, and its track.
int Manager::OnCommandsOwnerGone(sd_bus_track* track, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  auto owner = self->owner_tracks_.begin();
  while (owner != self->owner_tracks_.end() && owner->second.get() != track) ++owner;
  if (owner == self->owner_tracks_.end()) return 0;
  const std::string name = owner->first;
  self->owner_tracks_.erase(owner);  // sd-bus holds the track while its handler runs
  Log(LOG_INFO, "command sets of %s: their owner left", name.c_str());
  for (auto it = self->app_sets_.begin(); it != self->app_sets_.end();) {
    auto next = std::next(it);
    if (it->second->owner == name && !it->second->gone) self->DropCommandSet(it);
    it = next;
  }
  return 0;
}

// The sets a load compiles: every registered set, and those it registers (compiling_).
std::pair<std::vector<stt::CommandSet>, std::string> Manager::AppSetsFor() const {
  std::vector<stt::CommandSet> sets;
  std::string key;
  for (const auto& [id, entry] : app_sets_) {
    if (entry->gone || (entry->call && compiling_.count(id) == 0)) continue;
    sets.push_back(entry->set);
    key += std::to_string(id) + ",";
  }
  return {std::move(sets), std::move(key)};
}

// The loader is idle and no load waits: every registration waiting compiles in one load (a
// thousand registrations are not a thousand compiles of every set), or, after such a load
// failed, the oldest alone (so that the error is its own).
void Manager::Idle() {
  for (const auto& [id, entry] : app_sets_) {
    if (!entry->call || entry->gone) continue;
    driver_->Load(governor::ModelLoad::Kind::kCommands, id);
    return;
  }
}

// Each load compiles the registered sets, and those it registers: a library with them all (one
// the load was given already, when they are the same).
void Manager::Prepare(governor::ModelLoad& load) {
  compiling_.clear();
  compile_cancelled_ = false;
  if (load.registering != 0) {
    const bool alone = app_sets_.count(load.registering) != 0 && app_sets_[load.registering]->alone;
    for (const auto& [id, entry] : app_sets_) {
      const bool waiting = entry->call && !entry->gone && !entry->alone;
      if (id == load.registering || (!alone && waiting)) compiling_.insert(id);
    }
  }
  auto [sets, key] = AppSetsFor();
  if (load.library->command_sets_key() != key) {
    load.library = load.library->WithCommandSets(std::move(sets), std::move(key));
  }
}

// A registration's load is done: the handles, or the error (its models are not used). A failed
// load of several registrations is tried again one at a time.
void Manager::FinishRegistrations(const Result<statemachine::PipelineModels>& models) {
  const std::set<uint64_t> batch = std::move(compiling_);
  compiling_.clear();
  if (!models.ok() && compile_cancelled_) {  // those whose owner is here wait for the next load
    for (uint64_t id : batch) {
      if (app_sets_.at(id)->gone) app_sets_.erase(id);
    }
    return;
  }
  if (!models.ok() && batch.size() > 1) {
    for (uint64_t id : batch) {
      auto it = app_sets_.find(id);
      it->second->alone = true;  // Idle() compiles each alone
      if (it->second->gone) app_sets_.erase(it);  // unanswered: its caller left
    }
    return;
  }
  bool dropped = false, added = false;
  for (uint64_t id : batch) {
    auto it = app_sets_.find(id);
    AppCommandSet& entry = *it->second;
    sd_bus_message* call = entry.call;
    entry.call = nullptr;
    if (models.ok()) {
      Log(LOG_INFO, "command set %s compiled: %s", entry.set.name.c_str(), entry.handle.c_str());
      if (!entry.gone) sd_bus_reply_method_return(call, "o", entry.handle.c_str());
    } else {
      Log(LOG_INFO, "command set %s refused: %s", entry.set.name.c_str(),
          models.error().message.c_str());
      if (!entry.gone) {
        sd_bus_reply_method_errorf(call, kErrorBadCommandSet, "%s",
                                   models.error().message.c_str());
      }
    }
    sd_bus_message_unref(call);
    added = added || (models.ok() && !entry.gone);
    dropped = dropped || (models.ok() && entry.gone);
    if (!models.ok() || entry.gone) app_sets_.erase(it);
  }
  if (dropped) driver_->Load(governor::ModelLoad::Kind::kCommands);  // after this, without
  if (added) BusPropertyChanged(bus_.get(), "CommandSets");
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
