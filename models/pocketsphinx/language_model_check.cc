#include "models/pocketsphinx/language_model_check.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace earshot::pocketsphinx {
namespace {

constexpr int kMaxOrder = 9;  // more than any n-gram model has; beyond it, a damaged header

uint32_t ReadU32(std::span<const uint8_t> bytes, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + at, sizeof v);  // little-endian, as the file's writer
  return v;
}

Error Cut(const std::string& name, const std::string& what) {
  return Error{name + ": not a whole pocketsphinx binary language model (" + what +
               "): a file cut short or damaged"};
}

}  // namespace

Status CheckTrieLanguageModel(std::span<const uint8_t> bytes, const std::string& name) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!text.starts_with(kTrieHeader)) return OkStatus();
  const size_t order_at = kTrieHeader.size();
  if (bytes.size() <= order_at) return Cut(name, "no order after the header");
  const int order = bytes[order_at];
  if (order < 1 || order > kMaxOrder) {
    return Cut(name, "order " + std::to_string(order) + ", expected 1 to " +
                         std::to_string(kMaxOrder));
  }
  const size_t trie_at = order_at + 1 + sizeof(uint32_t) * static_cast<size_t>(order);
  if (bytes.size() < trie_at + sizeof(uint32_t)) return Cut(name, "the n-gram counts cut");
  const uint32_t words = ReadU32(bytes, order_at + 1);
  if (words == 0) return Cut(name, "no words");
  // The vocabulary from the end: `words` words, each ending in '\0', the last at the last byte.
  if (bytes.back() != 0) return Cut(name, "no vocabulary at its end");
  // One backward pass over the bytes (a memrchr per word would have the sanitizers check the
  // whole rest of the file on each call: minutes for a 27 MB model under ASan).
  size_t first_end = bytes.size() - 1;  // the '\0' that ends the first word, once found
  uint32_t found = 1;
  for (size_t at = first_end; found < words && at > trie_at;) {
    if (bytes[--at] == 0) {
      first_end = at;
      ++found;
    }
  }
  if (found < words) return Cut(name, "fewer words than its " + std::to_string(words));
  // The first word starts right after the byte count k, which must say the vocabulary's length.
  for (size_t start = first_end; start >= trie_at + sizeof(uint32_t); --start) {
    if (start < first_end && bytes[start] == 0) break;  // past the word: no count matched
    if (ReadU32(bytes, start - sizeof(uint32_t)) == bytes.size() - start) return OkStatus();
  }
  return Cut(name, "its vocabulary's length does not match its " + std::to_string(words) + " words");
}

Status CheckLanguageModel(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Error{path + ": not a regular file, not a language model"};
  }
  if (st.st_size == 0) {
    close(fd);
    return Error{path + ": empty file (0 bytes), not a language model"};
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return Error{path + ": cannot map: " + std::strerror(errno)};
  Status checked = CheckTrieLanguageModel({static_cast<const uint8_t*>(map), size}, path);
  munmap(map, size);
  return checked;
}

}  // namespace earshot::pocketsphinx
