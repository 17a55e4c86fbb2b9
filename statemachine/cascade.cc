#include "statemachine/cascade.h"

namespace earshot::statemachine {

State Next(State state, Input input, bool speech) {
  if (input == Input::kMute) return State::kMuted;
  if (state == State::kMuted) return input == Input::kUnmute ? State::kIdle : State::kMuted;
  switch (state) {
    case State::kIdle:
      return input == Input::kSpeechStart ? State::kVoice : State::kIdle;
    case State::kVoice:
      if (input == Input::kSpeechEnd) return State::kIdle;
      if (input == Input::kWake) return State::kCommand;
      return State::kVoice;
    case State::kCommand:
      if (input == Input::kEndpoint) return speech ? State::kVoice : State::kIdle;
      return State::kCommand;
    case State::kMuted:
      break;
  }
  return state;
}

std::string_view StateName(State state) {
  switch (state) {
    case State::kIdle: return "idle";
    case State::kVoice: return "voice";
    case State::kCommand: return "command";
    case State::kMuted: return "muted";
  }
  return "unknown";
}

std::optional<State> StateFromName(std::string_view name) {
  for (State state : {State::kIdle, State::kVoice, State::kCommand, State::kMuted}) {
    if (StateName(state) == name) return state;
  }
  return std::nullopt;
}

}  // namespace earshot::statemachine
