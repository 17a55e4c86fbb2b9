// Fuzz target: a pocketsphinx acoustic model's binary files as CheckAcousticModel reads them
// (models/pocketsphinx/acoustic_model_check.h), before libpocketsphinx would. The input is a 32-bit
// little-endian length, that many bytes of `mdef`, and the rest as `sendump`, written into a
// directory of this process (seeds/acoustic/tiny_ptm.bin: a 3-phone model, made by hand).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/pocketsphinx/acoustic_model_check.h"

namespace {

// The directory, made on the first input and removed at exit (its name in a char array, which no
// destructor clears before the exit handler runs).
char model_dir[] = "/tmp/earshot-acoustic-fuzz-XXXXXX";

const char* ModelDir() {
  static const bool made = [] {
    if (mkdtemp(model_dir) == nullptr) std::abort();  // the harness itself failed: not a finding
    std::atexit([] { std::filesystem::remove_all(model_dir); });
    return true;
  }();
  (void)made;
  return model_dir;
}

void Write(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t mdef_size;
  std::memcpy(&mdef_size, data, 4);
  const size_t mdef = std::min<size_t>(mdef_size, size - 4);
  const std::string dir = ModelDir();
  Write(dir + "/mdef", data + 4, mdef);
  Write(dir + "/sendump", data + 4 + mdef, size - 4 - mdef);
  (void)earshot::pocketsphinx::CheckAcousticModel(dir);
  return 0;
}
