// CommandSetsModel: speech-to-text of commands from registered sets (stt.commands, RegisterCommands),
// the last layer over the decoder (and the command classifier where it applies). An utterance is
// a command when the decoder did not take its out-of-grammar path (SttResult::rejected) and its
// words match a set's template (command_grammar.h); any other utterance is rejected, never forced
// onto the nearest command.
#pragma once

#include <memory>

#include "models/stt/command_grammar.h"
#include "models/stt/stt.h"

namespace earshot::stt {

class CommandSetsModel final : public SttModel {
 public:
  CommandSetsModel(std::shared_ptr<const SttModel> decoder,
                   std::shared_ptr<const CommandGrammar> grammar)
      : decoder_(std::move(decoder)), grammar_(std::move(grammar)) {}
  std::unique_ptr<SttSession> NewSession() const override;

 private:
  std::shared_ptr<const SttModel> decoder_;
  std::shared_ptr<const CommandGrammar> grammar_;
};

// Accepts or rejects a decoded utterance (see above): sets result.command or result.rejected.
void JudgeCommand(const CommandGrammar& grammar, SttResult& result);

// The decoder's words for the phone loop (the out-of-grammar path) start with this; set words
// cannot (command_set.h).
inline constexpr const char* kPhoneWordPrefix = "_phone_";

}  // namespace earshot::stt
