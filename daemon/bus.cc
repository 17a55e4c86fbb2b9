// One vtable: the properties (each announced with PropertiesChanged), the methods (arguments
// checked, failures as D-Bus errors) and the signals of io.earshot.Pipeline1. Who may call what
// is the bus policy's job (config/io.earshot.Pipeline1.conf), so every method is flagged
// UNPRIVILEGED: sd-bus would otherwise ask for CAP_SYS_ADMIN on top of the policy.
#include "daemon/bus.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <type_traits>

#include "daemon/log.h"
#include "daemon/manager.h"

namespace earshot::daemon {
namespace {

Manager& ManagerOf(void* userdata) { return *static_cast<Manager*>(userdata); }

int GetState(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
             sd_bus_error*) {
  const std::string state(statemachine::StateName(ManagerOf(userdata).state()));
  return sd_bus_message_append(reply, "s", state.c_str());
}

int GetProfile(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
               void* userdata, sd_bus_error*) {
  return sd_bus_message_append(reply, "s", ManagerOf(userdata).profile().c_str());
}

int GetMuted(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
             sd_bus_error*) {
  return sd_bus_message_append(reply, "b", static_cast<int>(ManagerOf(userdata).muted()));
}

int GetBattery(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
               void* userdata, sd_bus_error*) {
  return sd_bus_message_append(reply, "i", ManagerOf(userdata).battery_percent());
}

int GetTemperature(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
                   void* userdata, sd_bus_error*) {
  return sd_bus_message_append(reply, "i", ManagerOf(userdata).temperature_millicelsius());
}

int GetXruns(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
             sd_bus_error*) {
  return sd_bus_message_append(reply, "t", ManagerOf(userdata).xruns());
}

// a(ssddss): name, phrase, sensitivity, threshold, model file, size.
int GetKeywords(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
                void* userdata, sd_bus_error*) {
  int r = sd_bus_message_open_container(reply, 'a', "(ssddss)");
  for (const KeywordState& k : ManagerOf(userdata).keywords()) {
    if (r >= 0) {
      r = sd_bus_message_append(reply, "(ssddss)", k.name.c_str(), k.phrase.c_str(),
                                k.sensitivity, k.threshold, k.model.c_str(), k.size.c_str());
    }
  }
  if (r >= 0) r = sd_bus_message_close_container(reply);
  return r;
}

int GetCommandSets(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
                   void* userdata, sd_bus_error*) {
  int r = sd_bus_message_open_container(reply, 'a', "s");
  for (const std::string& name : ManagerOf(userdata).command_sets()) {
    if (r >= 0) r = sd_bus_message_append(reply, "s", name.c_str());
  }
  if (r >= 0) r = sd_bus_message_close_container(reply);
  return r;
}

int MethodMute(sd_bus_message* m, void* userdata, sd_bus_error*) {
  ManagerOf(userdata).Mute();
  return sd_bus_reply_method_return(m, "");
}

int MethodUnmute(sd_bus_message* m, void* userdata, sd_bus_error*) {
  ManagerOf(userdata).Unmute();
  return sd_bus_reply_method_return(m, "");
}

int MethodSetProfile(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  const char* profile = nullptr;
  int r = sd_bus_message_read(m, "s", &profile);
  if (r < 0) return r;
  if (ManagerOf(userdata).SetProfile(profile) < 0) {
    return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                             "unknown profile '%s': expected performance, balanced, saver, "
                             "critical or auto",
                             profile);
  }
  return sd_bus_reply_method_return(m, "");
}

int MethodSetSensitivity(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  const char* keyword = nullptr;
  double sensitivity = 0;
  int r = sd_bus_message_read(m, "sd", &keyword, &sensitivity);
  if (r < 0) return r;
  r = ManagerOf(userdata).SetSensitivity(keyword, sensitivity);
  if (r == -ENOENT) {
    return sd_bus_error_setf(error, kErrorUnknownKeyword,
                             "no keyword '%s' is loaded (see Keywords)", keyword);
  }
  if (r == -ERANGE) {
    return sd_bus_error_setf(error, kErrorSensitivityOutOfRange,
                             "sensitivity %g is outside [0, 1]", sensitivity);
  }
  if (r < 0) return r;
  return sd_bus_reply_method_return(m, "");
}

int MethodReload(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  const int r = ManagerOf(userdata).Reload();
  if (r < 0) {
    return sd_bus_error_set(error, kErrorBadConfig,
                            "the configuration cannot be read (see the error event)");
  }
  return sd_bus_reply_method_return(m, "");
}

// Answered by the manager once the set is compiled (1: no reply here), or refused at once.
int MethodRegisterCommands(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  const char* name = nullptr;
  const char* text = nullptr;
  int r = sd_bus_message_read(m, "ss", &name, &text);
  if (r < 0) return r;
  std::string why;
  r = ManagerOf(userdata).RegisterCommands(m, name, text, &why);
  if (r == -EINVAL) return sd_bus_error_set(error, kErrorBadCommandSet, why.c_str());
  if (r == -EEXIST) return sd_bus_error_set(error, kErrorNameTaken, why.c_str());
  if (r == -EDQUOT || r == -ENOSPC) {
    return sd_bus_error_set(error, kErrorLimitExceeded, why.c_str());
  }
  if (r < 0) return sd_bus_error_set_errnof(error, r, "%s", why.c_str());
  return 1;
}

int MethodUnregisterCommands(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  const char* handle = nullptr;
  int r = sd_bus_message_read(m, "o", &handle);
  if (r < 0) return r;
  const char* sender = sd_bus_message_get_sender(m);
  r = ManagerOf(userdata).UnregisterCommands(sender ? sender : "", handle);
  if (r == -ENOENT) {
    return sd_bus_error_setf(error, kErrorNotFound, "no command set %s is registered", handle);
  }
  if (r == -EPERM) {
    return sd_bus_error_setf(error, kErrorNotOwner, "command set %s is another connection's",
                             handle);
  }
  if (r < 0) return r;
  return sd_bus_reply_method_return(m, "");
}

int MethodStartRequest(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  uint64_t id = 0;
  if (ManagerOf(userdata).StartRequest(&id) < 0) {
    return sd_bus_error_set(error, kErrorMuted, "muted: Unmute first");
  }
  return sd_bus_reply_method_return(m, "t", id);
}

int MethodOpenRequestAudio(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  int fd = -1;
  int r = ManagerOf(userdata).OpenRequestAudio(&fd);
  if (r < 0) return sd_bus_error_set_errnof(error, r, "cannot make a pipe: %s", strerror(-r));
  r = sd_bus_reply_method_return(m, "h", fd);  // sends a duplicate
  close(fd);
  return r;
}

int MethodCancelRequest(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  if (ManagerOf(userdata).CancelRequest() < 0) {
    return sd_bus_error_set(error, kErrorNoRequest, "no request is in progress");
  }
  return sd_bus_reply_method_return(m, "");
}

// Appends one {sv} entry of type `type` ("x", "t", "b", "s", "d").
template <typename T>
int AppendEntry(sd_bus_message* reply, const char* key, const char* type, T value) {
  int r = sd_bus_message_open_container(reply, 'e', "sv");
  if (r >= 0) r = sd_bus_message_append(reply, "s", key);
  if (r >= 0) r = sd_bus_message_open_container(reply, 'v', type);
  if (r >= 0) {
    if constexpr (std::is_same_v<T, const char*>) {
      r = sd_bus_message_append_basic(reply, type[0], value);  // a string is passed itself
    } else {
      r = sd_bus_message_append_basic(reply, type[0], &value);
    }
  }
  if (r >= 0) r = sd_bus_message_close_container(reply);
  if (r >= 0) r = sd_bus_message_close_container(reply);
  return r;
}

int AppendStage(sd_bus_message* reply, const std::string& name,
                const statemachine::StageCounter& c) {
  int r = AppendEntry<int64_t>(reply, (name + "_frames").c_str(), "x", c.frames);
  if (r >= 0) r = AppendEntry<int64_t>(reply, (name + "_nanoseconds").c_str(), "x", c.nanoseconds);
  return r;
}

// The echo canceller's part: whether the reference sounds now, and what it has done.
int AppendPlayback(sd_bus_message* reply, const DaemonStats& s) {
  const echo::EchoStats& p = s.playback.echo;
  int r = AppendEntry<const char*>(reply, "reference", "s", s.reference.c_str());
  if (r >= 0) r = AppendEntry<int>(reply, "playback", "b", p.active ? 1 : 0);
  if (r >= 0) r = AppendEntry<int>(reply, "echo_delay_ms", "i", p.delay_ms);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "echo_frames", "x", p.active_frames);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "reference_gaps", "x", p.reference_gaps);
  if (r >= 0) {
    r = AppendEntry<uint64_t>(reply, "reference_dropped", "t", s.playback.reference_dropped);
  }
  if (r >= 0) r = AppendEntry<int64_t>(reply, "self_wakes", "x", s.pipeline.self_wakes);
  return r;
}

int AppendStats(sd_bus_message* reply, const DaemonStats& s) {
  const statemachine::PipelineStats& p = s.pipeline;
  int r = AppendEntry<int64_t>(reply, "frames", "x", p.frames);
  if (r >= 0) r = AppendStage(reply, "front_end", p.front_end);
  if (r >= 0) r = AppendStage(reply, "vad", p.vad);
  if (r >= 0) r = AppendStage(reply, "kws", p.kws);
  if (r >= 0) r = AppendStage(reply, "stt", p.stt);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "wakes", "x", p.wakes);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "requests", "x", p.requests);
  if (r >= 0)
    r = AppendEntry<int64_t>(reply, "stt_end_nanoseconds_max", "x", p.stt_end_nanoseconds_max);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "queue_capacity_frames", "x", s.queue.capacity);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "queue_high_water_frames", "x", s.queue.high_water);
  if (r >= 0) r = AppendEntry<int64_t>(reply, "input_frames", "x", s.queue.pushed);
  if (r >= 0) r = AppendEntry<uint64_t>(reply, "xruns", "t", s.xruns);
  if (r >= 0) r = AppendEntry<uint64_t>(reply, "reopens", "t", s.reopens);
  if (r >= 0) r = AppendEntry<int>(reply, "capturing", "b", s.capturing ? 1 : 0);
  if (r >= 0) r = AppendEntry<const char*>(reply, "input", "s", s.input.c_str());
  if (r >= 0) {
    r = AppendEntry<uint64_t>(reply, "request_audio_readers", "t", s.request_audio_readers);
  }
  if (r >= 0) {
    r = AppendEntry<uint64_t>(reply, "request_audio_dropped", "t", s.request_audio_dropped);
  }
  return r >= 0 ? AppendPlayback(reply, s) : r;
}

int MethodGetStats(sd_bus_message* m, void* userdata, sd_bus_error*) {
  sd_bus_message* reply = nullptr;
  int r = sd_bus_message_new_method_return(m, &reply);
  if (r < 0) return r;
  r = sd_bus_message_open_container(reply, 'a', "{sv}");
  if (r >= 0) r = AppendStats(reply, ManagerOf(userdata).stats());
  if (r >= 0) r = sd_bus_message_close_container(reply);
  if (r >= 0) r = sd_bus_send(nullptr, reply, nullptr);
  sd_bus_message_unref(reply);
  return r;
}

constexpr uint64_t kChange = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
constexpr uint64_t kOpen = SD_BUS_VTABLE_UNPRIVILEGED;

const sd_bus_vtable kVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("State", "s", GetState, 0, kChange),
    SD_BUS_PROPERTY("Profile", "s", GetProfile, 0, kChange),
    SD_BUS_PROPERTY("Muted", "b", GetMuted, 0, kChange),
    SD_BUS_PROPERTY("BatteryPercent", "i", GetBattery, 0, kChange),
    SD_BUS_PROPERTY("TemperatureMilliCelsius", "i", GetTemperature, 0, kChange),
    SD_BUS_PROPERTY("Xruns", "t", GetXruns, 0, kChange),
    SD_BUS_PROPERTY("Keywords", "a(ssddss)", GetKeywords, 0, kChange),
    SD_BUS_PROPERTY("CommandSets", "as", GetCommandSets, 0, kChange),
    SD_BUS_METHOD("Mute", "", "", MethodMute, kOpen),
    SD_BUS_METHOD("Unmute", "", "", MethodUnmute, kOpen),
    SD_BUS_METHOD_WITH_NAMES("SetProfile", "s", SD_BUS_PARAM(profile), "", , MethodSetProfile,
                             kOpen),
    SD_BUS_METHOD_WITH_NAMES("SetSensitivity", "sd",
                             SD_BUS_PARAM(keyword) SD_BUS_PARAM(sensitivity), "", ,
                             MethodSetSensitivity, kOpen),
    SD_BUS_METHOD("Reload", "", "", MethodReload, kOpen),
    SD_BUS_METHOD_WITH_NAMES("GetStats", "", , "a{sv}", SD_BUS_PARAM(stats), MethodGetStats, kOpen),
    SD_BUS_METHOD_WITH_NAMES("StartRequest", "", , "t", SD_BUS_PARAM(request), MethodStartRequest,
                             kOpen),
    SD_BUS_METHOD("CancelRequest", "", "", MethodCancelRequest, kOpen),
    SD_BUS_METHOD_WITH_NAMES("OpenRequestAudio", "", , "h", SD_BUS_PARAM(fd),
                             MethodOpenRequestAudio, kOpen),
    SD_BUS_METHOD_WITH_NAMES("RegisterCommands", "ss", SD_BUS_PARAM(name) SD_BUS_PARAM(text), "o",
                             SD_BUS_PARAM(handle), MethodRegisterCommands, kOpen),
    SD_BUS_METHOD_WITH_NAMES("UnregisterCommands", "o", SD_BUS_PARAM(handle), "", ,
                             MethodUnregisterCommands, kOpen),
    SD_BUS_SIGNAL_WITH_NAMES("SpeechStarted", "t", SD_BUS_PARAM(monotonic_usec), 0),
    SD_BUS_SIGNAL_WITH_NAMES("SpeechEnded", "t", SD_BUS_PARAM(monotonic_usec), 0),
    SD_BUS_SIGNAL_WITH_NAMES("WakeWord", "sdtt",
                             SD_BUS_PARAM(keyword) SD_BUS_PARAM(score) SD_BUS_PARAM(monotonic_usec)
                                 SD_BUS_PARAM(request),
                             0),
    SD_BUS_SIGNAL_WITH_NAMES("Transcript", "sbdtb",
                             SD_BUS_PARAM(text) SD_BUS_PARAM(final) SD_BUS_PARAM(confidence)
                                 SD_BUS_PARAM(request) SD_BUS_PARAM(cancelled),
                             0),
    SD_BUS_SIGNAL_WITH_NAMES("Command", "ssa{ss}sdt",
                             SD_BUS_PARAM(set) SD_BUS_PARAM(intent) SD_BUS_PARAM(slots)
                                 SD_BUS_PARAM(text) SD_BUS_PARAM(confidence) SD_BUS_PARAM(request),
                             0),
    SD_BUS_SIGNAL_WITH_NAMES("Error", "ss", SD_BUS_PARAM(stage) SD_BUS_PARAM(message), 0),
    SD_BUS_SIGNAL_WITH_NAMES("ProfileChanged", "ss", SD_BUS_PARAM(profile) SD_BUS_PARAM(reason), 0),
    SD_BUS_SIGNAL_WITH_NAMES("StateChanged", "s", SD_BUS_PARAM(state), 0),
    SD_BUS_VTABLE_END};

int Emit(sd_bus* bus, const char* member, const char* types, auto... args) {
  int r = sd_bus_emit_signal(bus, kObjectPath, kInterface, member, types, args...);
  if (r < 0) Log(LOG_WARNING, "cannot emit %s: %s", member, strerror(-r));
  return r;
}

// Command(s set, s intent, a{ss} slots, s text, d confidence, t request).
void EmitCommand(sd_bus* bus, const statemachine::CommandEvent& command) {
  sd_bus_message* m = nullptr;
  int r = sd_bus_message_new_signal(bus, &m, kObjectPath, kInterface, "Command");
  if (r >= 0) r = sd_bus_message_append(m, "ss", command.set.c_str(), command.intent.c_str());
  if (r >= 0) r = sd_bus_message_open_container(m, 'a', "{ss}");
  for (const auto& [name, value] : command.slots) {
    if (r >= 0) r = sd_bus_message_append(m, "{ss}", name.c_str(), value.c_str());
  }
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r >= 0) {
    r = sd_bus_message_append(m, "sdt", command.text.c_str(), command.confidence, command.request);
  }
  if (r >= 0) r = sd_bus_send(bus, m, nullptr);
  if (r < 0) Log(LOG_WARNING, "cannot emit Command: %s", strerror(-r));
  sd_bus_message_unref(m);
}

}  // namespace

int BusOpen(const std::string& which, sd_bus** bus) {
  if (which == "system") return sd_bus_open_system(bus);
  if (which == "session") return sd_bus_open_user(bus);
  return -EINVAL;
}

int BusRegister(Manager* manager, sd_bus* bus) {
  int r = sd_bus_add_object_vtable(bus, nullptr, kObjectPath, kInterface, kVtable, manager);
  if (r < 0) return r;
  return sd_bus_request_name(bus, kBusName, 0);
}

void BusEmitEvent(sd_bus* bus, const statemachine::Event& event, uint64_t usec) {
  if (std::get_if<statemachine::SpeechStartEvent>(&event)) {
    Emit(bus, "SpeechStarted", "t", usec);
  } else if (std::get_if<statemachine::SpeechEndEvent>(&event)) {
    Emit(bus, "SpeechEnded", "t", usec);
  } else if (const auto* wake = std::get_if<statemachine::WakeEvent>(&event)) {
    Emit(bus, "WakeWord", "sdtt", wake->keyword.c_str(), wake->score, usec, wake->request);
  } else if (const auto* tr = std::get_if<statemachine::TranscriptEvent>(&event)) {
    Emit(bus, "Transcript", "sbdtb", tr->text.c_str(), static_cast<int>(tr->final), tr->confidence,
         tr->request, static_cast<int>(tr->cancelled));
  } else if (const auto* command = std::get_if<statemachine::CommandEvent>(&event)) {
    EmitCommand(bus, *command);
  } else if (const auto* error = std::get_if<statemachine::ErrorEvent>(&event)) {
    Emit(bus, "Error", "ss", error->stage.c_str(), error->message.c_str());
  } else if (const auto* profile = std::get_if<statemachine::ProfileEvent>(&event)) {
    Emit(bus, "ProfileChanged", "ss", profile->profile.c_str(), profile->reason.c_str());
  } else if (const auto* state = std::get_if<statemachine::StateEvent>(&event)) {
    Emit(bus, "StateChanged", "s", state->state.c_str());
  }
}

void BusPropertyChanged(sd_bus* bus, const char* property) {
  int r = sd_bus_emit_properties_changed(bus, kObjectPath, kInterface, property, nullptr);
  if (r < 0) Log(LOG_WARNING, "cannot announce %s: %s", property, strerror(-r));
}

}  // namespace earshot::daemon
