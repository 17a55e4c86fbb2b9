// Whether this test runs under an emulator: the aarch64 suite under qemu-user, where CTest gives
// every test EARSHOT_EMULATOR (the top-level CMakeLists.txt; empty natively, on a device too).
// qemu-user runs floating point in software, tens of times slower than the integer paths: a test
// whose cost is float arithmetic of code that is the same on every architecture (pocketsphinx's
// decoder, the float reference front end) skips there, or takes a shorter input, saying why.
#pragma once

#include <cstdlib>

namespace earshot::testing_util {

inline bool UnderEmulation() {
  const char* emulator = std::getenv("EARSHOT_EMULATOR");
  return emulator != nullptr && *emulator != '\0';
}

}  // namespace earshot::testing_util
