// The fuzz targets' driver where libFuzzer is not built in (gcc; EARSHOT_FUZZ=OFF): runs the
// target on every seed file, then on deterministic mutations of each (bit flips, bytes set to
// edge values, 32-bit fields overwritten, truncation, chunks erased, repeated or inserted), so
// that ctest and the sanitizer build exercise the parsers' error paths on every change. A finding
// is a crash or a sanitizer report; the exit status is 0 when every input ran.
// Usage: TARGET [--mutations N] [--seed S] FILE|DIR...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

Bytes ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t Pick(std::mt19937_64& rng, size_t n) { return n == 0 ? 0 : rng() % n; }

// One random edit of `b`.
void MutateOnce(Bytes& b, std::mt19937_64& rng) {
  static constexpr uint32_t kEdgeWords[] = {0,          1,      0x7f,   0x80,       0xff,
                                            0x7fff,     0x8000, 0xffff, 0x7fffffff, 0x80000000,
                                            0xffffffff, 16000,  44100};
  static constexpr uint8_t kEdgeBytes[] = {0, 1, 0x7f, 0x80, 0xff};
  switch (rng() % 7) {
    case 0:
      if (!b.empty()) b[Pick(rng, b.size())] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    case 1:
      if (!b.empty()) b[Pick(rng, b.size())] = kEdgeBytes[Pick(rng, std::size(kEdgeBytes))];
      break;
    case 2:
      if (b.size() >= 4) {
        const uint32_t w = kEdgeWords[Pick(rng, std::size(kEdgeWords))];
        const size_t at = Pick(rng, b.size() - 3);
        for (int i = 0; i < 4; ++i)
          b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(w >> (8 * i));
      }
      break;
    case 3:
      b.resize(Pick(rng, b.size() + 1));
      break;
    case 4: {
      const size_t at = Pick(rng, b.size() + 1);
      const size_t n = std::min(b.size() - at, Pick(rng, 64) + 1);
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
              b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 5: {
      const size_t at = Pick(rng, b.size() + 1);
      const size_t n = std::min(b.size() - at, Pick(rng, 64) + 1);
      const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(at),
                        b.begin() + static_cast<std::ptrdiff_t>(at + n));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(Pick(rng, b.size() + 1)), chunk.begin(),
               chunk.end());
      break;
    }
    default: {
      Bytes noise(Pick(rng, 16) + 1);
      for (uint8_t& x : noise) x = static_cast<uint8_t>(rng());
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(Pick(rng, b.size() + 1)), noise.begin(),
               noise.end());
      break;
    }
  }
}

bool ParseCount(const char* text, unsigned long& out) {
  char* end = nullptr;
  out = std::strtoul(text, &end, 10);
  return end != text && *end == '\0';
}

int Usage() {
  std::fprintf(stderr, "usage: fuzz_target [--mutations N] [--seed S] FILE|DIR...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long mutations = 0;
  unsigned long seed = 1;
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--mutations" || arg == "--seed") && i + 1 < argc) {
      if (!ParseCount(argv[++i], arg == "--mutations" ? mutations : seed)) return Usage();
    } else if (arg.starts_with("--")) {
      return Usage();
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        inputs.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such seed file or directory\n", arg.c_str());
      return 1;
    }
  }
  if (inputs.empty()) return Usage();
  std::sort(inputs.begin(), inputs.end());
  long runs = 0;
  for (size_t f = 0; f < inputs.size(); ++f) {
    const Bytes seed_bytes = ReadFile(inputs[f]);
    LLVMFuzzerTestOneInput(seed_bytes.data(), seed_bytes.size());
    ++runs;
    std::mt19937_64 rng(seed * 1000003u + f);
    for (unsigned long m = 0; m < mutations; ++m) {
      Bytes b = seed_bytes;
      for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) MutateOnce(b, rng);
      LLVMFuzzerTestOneInput(b.data(), b.size());
      ++runs;
    }
  }
  std::printf("%ld inputs from %zu seeds ran\n", runs, inputs.size());
  return 0;
}
