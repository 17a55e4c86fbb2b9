// Fuzz target: an audio file (any format libsndfile reads) decoded and converted to 16 kHz mono
// frames to its end, as `earshot run` and the daemon's wav: input read a recording.
#include <cstddef>
#include <cstdint>

#include "audio/frame_source.h"
#include "tests/fuzz/mem_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const earshot::fuzz::MemFile file(data, size);
  auto source = earshot::audio::FileSource::Open(file.path(), {});
  if (!source.ok()) return 0;
  earshot::audio::Frame frame{};
  // A header may claim any length; the data end first. 10 min of frames at most in any case.
  for (int i = 0; i < 60000; ++i) {
    auto more = source.value()->Next(frame);
    if (!more.ok() || !more.value()) break;
  }
  return 0;
}
