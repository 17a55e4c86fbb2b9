// The cascade's states and its pure transition function. The pipeline (pipeline.h) owns the stages
// and applies what a transition means for them; this file only says which state follows which.
//
//   idle    --speech starts-->  voice     (the keyword spotter starts, on the pre-roll first)
//   voice   --speech ends---->  idle      (the keyword spotter stops)
//   voice   --wake word------>  command   (the STT starts on the audio after the keyword)
//   command --endpoint------->  voice if the VAD still hears speech, else idle
//   any     --mute----------->  muted     (audio is dropped; a request in progress is abandoned)
//   muted   --unmute--------->  idle
// Every other (state, input) pair leaves the state as it is.
#pragma once

#include <optional>
#include <string_view>

namespace earshot::statemachine {

enum class State { kIdle, kVoice, kCommand, kMuted };

enum class Input { kSpeechStart, kSpeechEnd, kWake, kEndpoint, kMute, kUnmute };

// The state after `input` in `state`; `speech` is the VAD's decision for the current frame.
State Next(State state, Input input, bool speech);

// "idle", "voice", "command", "muted" (the `state` event and the D-Bus State property).
std::string_view StateName(State state);
// The state of a name StateName gives; nullopt for any other text.
std::optional<State> StateFromName(std::string_view name);

}  // namespace earshot::statemachine
