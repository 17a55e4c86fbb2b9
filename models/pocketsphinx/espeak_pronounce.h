// Pronunciations for words the dictionary lacks: espeak-ng's phonemes for the word (Debian's
// espeak-ng, `-x --sep=_`, its en-us voice), each mapped to the CMU phones of pocketsphinx's en-us
// model. A word with a phoneme outside the table gets no pronunciation: the caller reports the
// word. Measured on 400 random words of cmudict-en-us (against their dictionary pronunciations):
// 11.9% phone errors, 55.7% exactly right; most errors are unstressed vowels (AH for IH).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace earshot::pocketsphinx {

// espeak-ng's phoneme names in `-x --sep=_` output ("k_'I_tS_@_n") -> CMU phones
// ("K IH CH AH N"); an error naming the first phoneme with no mapping.
Result<std::string> MapEspeakPhonemes(const std::string& espeak);

// Runs espeak-ng on `word` (letters, digits, ' - _ . only) and maps its phonemes; errors name the
// word and say why (espeak-ng missing, a phoneme without a mapping).
Result<std::string> EspeakPronunciation(const std::string& word);

}  // namespace earshot::pocketsphinx
