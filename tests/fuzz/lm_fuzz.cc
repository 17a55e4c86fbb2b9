// Fuzz target: a pocketsphinx binary language model as CheckTrieLanguageModel reads it
// (models/pocketsphinx/language_model_check.h), before libsphinxbase would (seeds/lm/tiny_unigram.lm.bin:
// the header, order 1, two words, 16 bytes standing for the trie, and the vocabulary, by hand).
#include <cstdint>
#include <span>

#include "models/pocketsphinx/language_model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)earshot::pocketsphinx::CheckTrieLanguageModel(std::span<const uint8_t>(data, size),
                                                      "fuzz.lm.bin");
  return 0;
}
