#include "models/pocketsphinx/espeak_pronounce.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <map>

extern char** environ;

namespace earshot::pocketsphinx {
namespace {

// espeak-ng's en-us phonemes (its phsource/ph_english_us, as `-x` names them) -> CMU phones.
// Reduced and regional vowel variants (I#, I2, a#, O2, aa) take the nearest CMU vowel; the flapped
// t# is T, as cmudict writes it.
const std::map<std::string, std::string>& PhonemeTable() {
  static const std::map<std::string, std::string> table = {
      {"a", "AE"},      {"aa", "AE"},     {"a#", "AH"},     {"A:", "AA"},   {"A@", "AA R"},
      {"0", "AA"},      {"O:", "AO"},     {"O2", "AO"},     {"O@", "AO R"}, {"o@", "AO R"},
      {"OI", "OY"},     {"oU", "OW"},     {"V", "AH"},      {"@", "AH"},    {"@L", "AH L"},
      {"@-", "AH"},     {"3:", "ER"},     {"3", "ER"},      {"E", "EH"},    {"e@", "EH R"},
      {"eI", "EY"},     {"e", "EH"},      {"I", "IH"},      {"I#", "IH"},   {"I2", "IH"},
      {"i", "IY"},      {"i:", "IY"},     {"i@", "IY AH"},  {"i@3", "IH R"}, {"aI", "AY"},
      {"aI3", "AY ER"}, {"aI@", "AY AH"}, {"aI@3", "AY ER"}, {"aU", "AW"},  {"U", "UH"},
      {"U@", "UH R"},   {"u:", "UW"},     {"p", "P"},       {"b", "B"},     {"t", "T"},
      {"d", "D"},       {"k", "K"},       {"g", "G"},       {"f", "F"},     {"v", "V"},
      {"T", "TH"},      {"D", "DH"},      {"s", "S"},       {"z", "Z"},     {"S", "SH"},
      {"Z", "ZH"},      {"h", "HH"},      {"m", "M"},       {"n", "N"},     {"N", "NG"},
      {"l", "L"},       {"r", "R"},       {"w", "W"},       {"j", "Y"},     {"tS", "CH"},
      {"dZ", "JH"},     {"t#", "T"},      {"t2", "T"},      {"r-", "R"},    {"n-", "AH N"},
      {"l-", "AH L"},   {"x", "K"}};
  return table;
}

bool IsWordChar(unsigned char c) {
  return std::isalnum(c) || c == '\'' || c == '-' || c == '_' || c == '.';
}

// espeak-ng's stdout for `word`, or an error.
Result<std::string> RunEspeak(const std::string& word) {
  int out[2];
  if (pipe(out) != 0) return Error{"espeak-ng: no pipe"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string program = "espeak-ng", q = "-q", x = "-x", sep = "--sep=_", v = "-v", voice = "en-us",
              dashes = "--", text = word;
  char* argv[] = {program.data(), q.data(), x.data(), sep.data(), v.data(),
                  voice.data(),   dashes.data(), text.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "espeak-ng", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string output;
  char buffer[512];
  for (ssize_t n; spawned == 0 && (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n > 0) output.append(buffer, static_cast<size_t>(n));
    if (n < 0 && errno != EINTR) break;
    if (output.size() > 4096) break;  // one word's phonemes are far shorter
  }
  close(out[0]);
  const Error missing{"espeak-ng could not be run (install Debian's espeak-ng)"};
  if (spawned != 0) return missing;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // 127: the spawned child could not exec it (where posix_spawnp cannot say so itself, as under
  // qemu-user).
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return missing;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return Error{"espeak-ng failed"};
  return output;
}

}  // namespace

Result<std::string> MapEspeakPhonemes(const std::string& espeak) {
  std::string phones;
  size_t start = 0;
  while (start <= espeak.size()) {
    size_t end = std::min(espeak.find_first_of("_ \n", start), espeak.size());
    std::string name = espeak.substr(start, end - start);
    // Stress (' ,) and syllable (;) marks carry no phone.
    name.erase(std::remove_if(name.begin(), name.end(),
                              [](char c) { return c == '\'' || c == ',' || c == ';'; }),
               name.end());
    start = end + 1;
    if (name.empty()) continue;
    const auto found = PhonemeTable().find(name);
    if (found == PhonemeTable().end()) return Error{"espeak-ng's phoneme '" + name + "' has no CMU phone"};
    phones += (phones.empty() ? "" : " ") + found->second;
  }
  if (phones.empty()) return Error{"espeak-ng gave no phonemes"};
  return phones;
}

Result<std::string> EspeakPronunciation(const std::string& word) {
  if (word.empty() || !std::all_of(word.begin(), word.end(), IsWordChar)) {
    return Error{"'" + word + "' is not a word"};
  }
  Result<std::string> espeak = RunEspeak(word);
  if (!espeak.ok()) return Error{"'" + word + "': " + espeak.error().message};
  Result<std::string> phones = MapEspeakPhonemes(*espeak);
  if (!phones.ok()) return Error{"'" + word + "': " + phones.error().message};
  return phones;
}

}  // namespace earshot::pocketsphinx
