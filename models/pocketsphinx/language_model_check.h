// A pocketsphinx binary language model ("Trie Language Model", what Debian ships as en-us.lm.bin),
// checked before pocketsphinx reads it. libsphinxbase reads the file's word list without checking
// that its fread()s were whole: a file cut short (`head -c 20000 en-us.lm.bin`) made it run strlen()
// past its buffer (AddressSanitizer: heap-buffer-overflow in ngram_model_trie_read_bin), where it
// must be an error naming the file at start-up.
//
// Layout (sphinxbase ngram_model_trie.c): the header text, the order (1 byte), one uint32 n-gram
// count per order, the trie (sized by the counts), then the vocabulary at the very end: a uint32
// byte count k and k bytes holding the counts[0] words, each ending in '\0'. The check finds that
// vocabulary from the end of the file and requires its byte count to say exactly its length. Text
// (ARPA) models are left to pocketsphinx, whose line reader checks what it reads.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.h"

namespace earshot::pocketsphinx {

inline constexpr std::string_view kTrieHeader = "Trie Language Model";

// `bytes` is the whole file; `name` is what errors call it. A file without the trie header is not
// checked (OkStatus).
Status CheckTrieLanguageModel(std::span<const uint8_t> bytes, const std::string& name);

// The file at `path`, mapped read-only for the check. Errors name the file and the cause.
Status CheckLanguageModel(const std::string& path);

}  // namespace earshot::pocketsphinx
