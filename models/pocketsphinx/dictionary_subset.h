// The entries of a pocketsphinx dictionary (stt.dictionary: a line per pronunciation, the word
// then its phones, alternates as "word(2)") for some words only. A command sets' decoder is given
// these alone: the whole dictionary (135k words) was a third of its memory and of its compile.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/result.h"

namespace earshot::pocketsphinx {

struct DictionaryEntry {
  std::string word;    // as in the file: "read", "read(2)"
  std::string phones;  // "R EH D"
};

// The entries of `words` in the dictionary at `path`, in the file's order; an error names the
// file when it cannot be read.
Result<std::vector<DictionaryEntry>> ReadDictionaryEntries(const std::string& path,
                                                           const std::set<std::string>& words);

}  // namespace earshot::pocketsphinx
