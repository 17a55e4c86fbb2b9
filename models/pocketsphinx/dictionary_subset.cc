#include "models/pocketsphinx/dictionary_subset.h"

#include <string_view>

#include "base/read_file.h"
#include "base/text.h"

namespace earshot::pocketsphinx {
namespace {

constexpr size_t kMaxDictionaryBytes = size_t{64} << 20;

// "read(2)" -> "read"; a word without an alternate's number is itself.
std::string_view BaseWord(std::string_view word) {
  const size_t open = word.find('(');
  return open != std::string_view::npos && open > 0 && word.back() == ')' ? word.substr(0, open)
                                                                          : word;
}

}  // namespace

Result<std::vector<DictionaryEntry>> ReadDictionaryEntries(const std::string& path,
                                                           const std::set<std::string>& words) {
  Result<std::string> text = ReadWholeFile(path, kMaxDictionaryBytes, "a dictionary");
  if (!text.ok()) return text.error();
  std::vector<DictionaryEntry> entries;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = TrimSpace(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const size_t gap = line.find_first_of(" \t");
    if (gap == std::string_view::npos) continue;  // no phones: pocketsphinx ignores it too
    const std::string_view word = line.substr(0, gap);
    if (words.count(std::string(BaseWord(word))) == 0) continue;
    entries.push_back({std::string(word), std::string(TrimSpace(line.substr(gap)))});
  }
  return entries;
}

}  // namespace earshot::pocketsphinx
