// `earshot pronounce`: the pronunciation earshot derives for a word its dictionary lacks (a command
// set's word, a wake word's): espeak-ng's phonemes mapped to the acoustic model's CMU phones.
#include <cstdio>

#include "models/pocketsphinx/espeak_pronounce.h"
#include "tools/commands.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot pronounce WORD...\n"
    "\n"
    "Prints word<TAB>phones for each WORD: espeak-ng's en-us phonemes mapped to the CMU phones of\n"
    "pocketsphinx's en-us acoustic model, the pronunciation earshot gives a word that its\n"
    "dictionary (stt.dictionary) lacks, in a command set or a wake word trained from text\n"
    "(tools/train/train_wakeword.py). A word is letters, digits and ' - _ . only. A word with no\n"
    "such pronunciation is an error naming it (exit 1), after the words before it.\n";

int Pronounce(const cli::Args& args) {
  int status = cli::kExitOk;
  if (!SetUp(args, &status)) return status;
  if (args.positional.empty()) {
    PrintError("pronounce: expected one WORD or more (see earshot pronounce --help)");
    return cli::kExitUsage;
  }
  for (const std::string& word : args.positional) {
    Result<std::string> phones = pocketsphinx::EspeakPronunciation(word);
    if (!phones.ok()) {
      PrintError("pronounce: " + phones.error().message);
      return cli::kExitRuntime;
    }
    std::printf("%s\t%s\n", word.c_str(), phones->c_str());
  }
  return std::fflush(stdout) == 0 ? cli::kExitOk : cli::kExitRuntime;
}

}  // namespace

const cli::Command kPronounceCommand{
    "pronounce", "print the phones espeak-ng gives words the dictionary lacks", kUsage, {}, {},
    Pronounce};

}  // namespace earshot::tools
