#include "models/pocketsphinx/load_model.h"

#include <algorithm>
#include <string>
#include <vector>

#include "models/commands/command_fusion.h"
#include "models/commands/command_model.h"
#include "models/pocketsphinx/jsgf_check.h"
#include "models/pocketsphinx/pocketsphinx_backend.h"
#include "models/stt/command_decoder.h"

namespace earshot::stt {
namespace {

std::vector<std::string> Sorted(std::vector<std::string> words) {
  std::sort(words.begin(), words.end());
  return words;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

// The one-word vocabulary decoded: stt.words, or the words of a grammar that only says one of
// them (jsgf_check.h); empty for a language model or any other grammar. The grammar was checked
// when the decoder loaded it.
std::string CommandWords(const SttConfig& c) {
  if (!c.command_sets.empty()) return Joined(CommandGrammar(c.command_sets).OneWordSentences());
  if (!c.words.empty() || c.grammar.empty()) return c.words;
  Result<std::string> text = ReadGrammarFile(c.grammar);
  if (!text.ok()) return "";
  std::optional<std::vector<std::string>> words = JsgfWordList(*text);
  return words ? Joined(*words) : "";
}

// The command classifier the config asks for, or nullptr when none applies.
Result<std::shared_ptr<const CommandModel>> CommandClassifier(const SttConfig& c) {
  if (c.command_model == "none") return std::shared_ptr<const CommandModel>();
  const std::string words = CommandWords(c);
  if (words.empty()) {
    if (!c.command_model_named) return std::shared_ptr<const CommandModel>();
    return Error{"stt.command_model '" + c.command_model +
                 "' needs its command words: stt.words, or a grammar of them alone"};
  }
  auto model = CommandModel::Load(c.command_model, c.features);
  if (!model.ok()) return model.error();
  if (Sorted((*model)->words()) == Sorted(SplitWords(words))) return model;
  if (!c.command_model_named) return std::shared_ptr<const CommandModel>();
  return Error{c.command_model + ": its words (" + Joined((*model)->words()) +
               ") are not the decoder's (" + words + ")"};
}

}  // namespace

Result<std::shared_ptr<const SttModel>> LoadModel(const SttConfig& config) {
  auto model = PocketsphinxModel::Load(config);
  if (!model.ok()) return model.error();
  std::shared_ptr<const SttModel> decoder = std::move(model).value();
  auto classifier = CommandClassifier(config);
  if (!classifier.ok()) return classifier.error();
  if (*classifier != nullptr) {
    decoder = std::make_shared<CommandFusionModel>(decoder, *classifier, config.command_bonus,
                                                   config.command_rescue);
  }
  if (config.command_sets.empty()) return decoder;
  std::shared_ptr<const SttModel> open;
  if (config.command_open_transcript) {
    SttConfig open_config = config;
    open_config.command_sets.clear();
    auto open_model = PocketsphinxModel::Load(open_config);
    if (!open_model.ok()) return open_model.error();
    open = std::move(open_model).value();
  }
  return std::shared_ptr<const SttModel>(std::make_shared<CommandSetsModel>(
      decoder, std::make_shared<const CommandGrammar>(config.command_sets), std::move(open)));
}

}  // namespace earshot::stt
