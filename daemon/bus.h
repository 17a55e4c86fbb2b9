// The D-Bus surface of earshotd (bus.cc): one object, /io/earshot/Pipeline1, with the interface
// io.earshot.Pipeline1 of DESIGN.md (config/io.earshot.Pipeline1.xml), under the well-known name
// io.earshot.Pipeline1.
#pragma once

#include <systemd/sd-bus.h>

#include <cstdint>
#include <string>

#include "statemachine/event.h"

namespace earshot::daemon {

class Manager;

inline constexpr const char* kBusName = "io.earshot.Pipeline1";
inline constexpr const char* kObjectPath = "/io/earshot/Pipeline1";
inline constexpr const char* kInterface = "io.earshot.Pipeline1";
// Typed errors of the methods (io.earshot.Error.*).
inline constexpr const char* kErrorUnknownKeyword = "io.earshot.Error.UnknownKeyword";
inline constexpr const char* kErrorSensitivityOutOfRange = "io.earshot.Error.SensitivityOutOfRange";
inline constexpr const char* kErrorBadConfig = "io.earshot.Error.BadConfig";
inline constexpr const char* kErrorMuted = "io.earshot.Error.Muted";
inline constexpr const char* kErrorNoRequest = "io.earshot.Error.NoRequest";
inline constexpr const char* kErrorBadCommandSet = "io.earshot.Error.BadCommandSet";
inline constexpr const char* kErrorNameTaken = "io.earshot.Error.NameTaken";
inline constexpr const char* kErrorNotFound = "io.earshot.Error.NotFound";
inline constexpr const char* kErrorNotOwner = "io.earshot.Error.NotOwner";
inline constexpr const char* kErrorLimitExceeded = "io.earshot.Error.LimitExceeded";

// Connects to the system or session bus; negative errno.
int BusOpen(const std::string& which, sd_bus** bus);
// Adds the object's vtable, takes the well-known name; negative errno.
int BusRegister(Manager* manager, sd_bus* bus);
// The signal of DESIGN.md that carries `event`, if any.
void BusEmitEvent(sd_bus* bus, const statemachine::Event& event, uint64_t monotonic_usec);
// PropertiesChanged for one property of the interface.
void BusPropertyChanged(sd_bus* bus, const char* property);

}  // namespace earshot::daemon
