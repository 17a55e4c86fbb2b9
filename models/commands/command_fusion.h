// CommandFusionModel: speech-to-text of short commands (a one-word vocabulary) with a second
// opinion. The decoder (any SttModel) decodes as it would alone; the session also keeps the
// utterance's audio, and at End the command classifier (command_model.h) scores it: the word said
// is the one with the highest classifier log-probability plus `bonus` if it is the decoder's word.
// When that is one of the other words the classifier knows (CommandModel::others: "dog" where the
// decoder heard "go"), the utterance is rejected: empty, `rejected`. When the decoder heard no
// command word (silence, noise, a word outside the list), its result stands: the classifier always
// names some word, so alone it would invent commands; except where the decoder rejected the
// utterance (its out-of-grammar path won: command sets) and `rescue` < 1: a voiced span that fits
// the classifier's window whose most probable class is a command word at `rescue` or more is that
// word (Rescue); so is one at half of `rescue` or more that `words_decoder` (the command words
// alone, no out-of-grammar path: a forced choice) hears as that word too, two opinions agreeing
// (docs/research/stt.md).
// On the 138 kws/train command clips, cross-validated by speaker (README): pocketsphinx alone
// 87.0%, fused at the default bonus better (the training log, models/commands/commands_train.log).
#pragma once

#include <memory>

#include "models/commands/command_model.h"
#include "models/stt/stt.h"

namespace earshot::commands {

class CommandFusionModel final : public stt::SttModel {
 public:
  CommandFusionModel(std::shared_ptr<const stt::SttModel> decoder,
                     std::shared_ptr<const CommandModel> classifier, double bonus,
                     double rescue = 1.0,
                     std::shared_ptr<const stt::SttModel> words_decoder = nullptr)
      : decoder_(std::move(decoder)),
        classifier_(std::move(classifier)),
        bonus_(bonus),
        rescue_(rescue),
        words_decoder_(std::move(words_decoder)) {}
  std::unique_ptr<stt::SttSession> NewSession() const override;

 private:
  std::shared_ptr<const stt::SttModel> decoder_;
  std::shared_ptr<const CommandModel> classifier_;
  double bonus_;
  double rescue_;
  std::shared_ptr<const stt::SttModel> words_decoder_;  // null: the classifier's rescue alone
};

// The word the fusion chooses among `words` (see above) and its probability after the bonus; index
// -1 when `heard` is not one of them, or when the choice is another word (`other`: log_probs holds
// the other words' after the command words').
struct FusedWord {
  int index = -1;
  double probability = 0;
  bool other = false;
};
FusedWord FuseCommand(const std::vector<std::string>& words, const std::vector<float>& log_probs,
                      const std::string& heard, double bonus);
// The command word of a rejected utterance (see above): none unless the most probable class of
// `log_probs` (words' then the other words') is one of `words` at `rescue` or more.
FusedWord Rescue(const std::vector<std::string>& words, const std::vector<float>& log_probs,
                 double rescue);

}  // namespace earshot::commands
