// CommandSequenceModel: command sets whose every word the command classifier knows, said apart
// ("four ... two ... seven" to the digits set, tools/samples/commands/digits.commands). The
// decoder decodes as it would alone; the session keeps the utterance's audio, and at End splits it
// at its pauses of kMinPauseMs or more (SplitAtPauses). An utterance of one piece (one word, or
// words run together) stays the decoder's, which can reject it. Each piece is the sets' word the
// classifier finds most probable, its probability taken among the sets' words alone. When every
// piece's voice fits the classifier's window and its word is at `min_probability` or more, and
// the sets say those words in that order, they are the utterance, in place of the decoder's (its
// confidence: the product of their probabilities; each word timed by its piece's voice).
// Otherwise the decoder's result stands: words run together are the decoder's alone.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "models/commands/command_model.h"
#include "models/stt/command_grammar.h"
#include "models/stt/stt.h"

namespace earshot::commands {

// The shortest pause that parts two words said apart (a stop's closure inside a word is shorter).
inline constexpr int kMinPauseMs = 100;

class CommandSequenceModel final : public stt::SttModel {
 public:
  CommandSequenceModel(std::shared_ptr<const stt::SttModel> decoder,
                       std::shared_ptr<const CommandModel> classifier,
                       std::shared_ptr<const stt::CommandGrammar> grammar, double min_probability)
      : decoder_(std::move(decoder)),
        classifier_(std::move(classifier)),
        grammar_(std::move(grammar)),
        min_probability_(min_probability) {}
  std::unique_ptr<stt::SttSession> NewSession() const override;

 private:
  std::shared_ptr<const stt::SttModel> decoder_;
  std::shared_ptr<const CommandModel> classifier_;
  std::shared_ptr<const stt::CommandGrammar> grammar_;
  double min_probability_;
};

// The words said apart in `samples` (two pieces or more; see above), or none.
std::optional<stt::SttResult> WordsApart(const CommandModel& classifier,
                                         const stt::CommandGrammar& grammar,
                                         std::span<const int16_t> samples, double min_probability);

// The first word of `grammar` that `classifier` does not know (none: it knows them all).
std::optional<std::string> UnknownWord(const CommandModel& classifier,
                                       const stt::CommandGrammar& grammar);

}  // namespace earshot::commands
