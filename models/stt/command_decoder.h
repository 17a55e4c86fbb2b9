// CommandSetsModel: speech-to-text of commands from registered sets (stt.commands, RegisterCommands),
// the last layer over the decoder (and the command classifier where it applies). An utterance is
// a command when the decoder did not take its out-of-grammar path (SttResult::rejected) and its
// words match a set's template (command_grammar.h); any other utterance is rejected, never forced
// onto the nearest command. With an open decoder (stt.command_open_transcript: the language model),
// a rejected utterance's words are the open transcript: its audio is kept and decoded again after
// the endpoint, so the common path (a command) costs nothing more.
#pragma once

#include <memory>

#include "models/stt/command_grammar.h"
#include "models/stt/stt.h"

namespace earshot::stt {

class CommandSetsModel final : public SttModel {
 public:
  CommandSetsModel(std::shared_ptr<const SttModel> decoder,
                   std::shared_ptr<const CommandGrammar> grammar,
                   std::shared_ptr<const SttModel> open = nullptr)
      : decoder_(std::move(decoder)), grammar_(std::move(grammar)), open_(std::move(open)) {}
  std::unique_ptr<SttSession> NewSession() const override;

 private:
  std::shared_ptr<const SttModel> decoder_;
  std::shared_ptr<const CommandGrammar> grammar_;
  std::shared_ptr<const SttModel> open_;  // null: a rejected utterance keeps the decoder's words
};

// Accepts or rejects a decoded utterance (see above): sets result.command or result.rejected.
void JudgeCommand(const CommandGrammar& grammar, SttResult& result);

// The decoder's words for the phone loop (the out-of-grammar path) start with this; set words
// cannot (command_set.h).
inline constexpr const char* kPhoneWordPrefix = "_phone_";

}  // namespace earshot::stt
