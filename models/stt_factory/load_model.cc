#include "models/stt_factory/load_model.h"

#include <algorithm>
#include <string>
#include <vector>

#include "models/commands/command_fusion.h"
#include "models/commands/command_model.h"
#include "models/commands/command_sequence.h"
#include "models/pocketsphinx/jsgf_check.h"
#include "models/pocketsphinx/pocketsphinx_backend.h"
#include "models/stt/command_decoder.h"

namespace earshot::stt_factory {
namespace {

std::vector<std::string> Sorted(std::vector<std::string> words) {
  std::sort(words.begin(), words.end());
  return words;
}

// The one-word vocabulary decoded: stt.words, or the words of a grammar that only says one of
// them (jsgf_check.h); empty for a language model or any other grammar. The grammar was checked
// when the decoder loaded it.
std::string CommandWords(const stt::SttConfig& c) {
  if (!c.command_sets.empty())
    return stt::JoinWords(stt::CommandGrammar(c.command_sets).OneWordSentences());
  if (!c.words.empty() || c.grammar.empty()) return c.words;
  Result<std::string> text = pocketsphinx::ReadGrammarFile(c.grammar);
  if (!text.ok()) return "";
  std::optional<std::vector<std::string>> words = pocketsphinx::JsgfWordList(*text);
  return words ? stt::JoinWords(*words) : "";
}

// The decoder with the command classifier the config asks for joined to it (command_fusion.h, with
// `words_alone` for its rescue; or command_sequence.h for `grammar`'s words said apart), or the
// decoder alone when none applies.
Result<std::shared_ptr<const stt::SttModel>> WithClassifier(
    std::shared_ptr<const stt::SttModel> decoder, std::shared_ptr<const stt::SttModel> words_alone,
    const stt::SttConfig& c, const std::shared_ptr<const stt::CommandGrammar>& grammar) {
  if (c.command_model == "none") return decoder;
  const std::string words = CommandWords(c);
  // The sets' words said apart (command_apart), where the fusion does not apply.
  const bool apart = !c.command_sets.empty() && c.command_apart < 1.0;
  if (words.empty() && !apart) {
    if (!c.command_model_named) return decoder;
    return Error{"stt.command_model '" + c.command_model +
                 "' needs its command words: stt.words, or a grammar of them alone"};
  }
  auto model = commands::CommandModel::Load(c.command_model, c.embedding_model);
  if (!model.ok()) return model.error();
  if (!words.empty() && Sorted((*model)->words()) == Sorted(stt::SplitWords(words))) {
    return std::shared_ptr<const stt::SttModel>(std::make_shared<commands::CommandFusionModel>(
        decoder, *model, c.command_bonus, c.command_rescue, std::move(words_alone)));
  }
  if (apart) {
    const std::optional<std::string> unknown = commands::UnknownWord(**model, *grammar);
    if (!unknown) {
      return std::shared_ptr<const stt::SttModel>(std::make_shared<commands::CommandSequenceModel>(
          decoder, *model, grammar, c.command_apart));
    }
    if (!c.command_model_named) return decoder;
    return Error{c.command_model + " does not know the word '" + *unknown +
                 "' of the command sets said apart (digits one at a time)"};
  }
  if (!c.command_model_named) return decoder;
  return Error{c.command_model + ": its words (" + stt::JoinWords((*model)->words()) +
               ") are not the decoder's (" + words + ")"};
}

}  // namespace

Result<std::shared_ptr<const stt::SttModel>> LoadModel(const stt::SttConfig& config,
                                                       const CancelFlag* cancel) {
  auto model = pocketsphinx::PocketsphinxModel::Load(config, cancel);
  if (!model.ok()) return model.error();
  std::shared_ptr<const stt::SttModel> words_alone = (*model)->WordsAlone();
  std::shared_ptr<const stt::SttModel> decoder = std::move(model).value();
  const auto grammar = std::make_shared<const stt::CommandGrammar>(config.command_sets);
  auto classified = WithClassifier(decoder, std::move(words_alone), config, grammar);
  if (!classified.ok()) return classified.error();
  decoder = std::move(classified).value();
  if (config.command_sets.empty()) return decoder;
  // A cancel during the last step (pocketsphinx's search of a large set: seconds) drops its work.
  if (Cancelled(cancel)) return Error{kCancelledMessage};
  std::shared_ptr<const stt::SttModel> open;
  if (config.command_open_transcript) {
    stt::SttConfig open_config = config;
    open_config.command_sets.clear();
    auto open_model = pocketsphinx::PocketsphinxModel::Load(open_config, cancel);
    if (!open_model.ok()) return open_model.error();
    open = std::move(open_model).value();
  }
  return std::shared_ptr<const stt::SttModel>(
      std::make_shared<stt::CommandSetsModel>(decoder, grammar, std::move(open)));
}

}  // namespace earshot::stt_factory
