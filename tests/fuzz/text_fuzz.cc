// Fuzz target: the small text formats earshot parses: a sensor timeline (`earshot run --sensors`),
// an acoustic model's feat.params (front_end = "earshot"), whose front end is then built and
// run over a second of audio, a JSGF grammar (stt.grammar): its statements and its word list, and
// front-end settings (`earshot features --front-end`): what they accept must build and run.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "features/front_end.h"
#include "features/front_end_config.h"
#include "governor/sensor_timeline.h"
#include "models/pocketsphinx/jsgf_check.h"
#include "models/pocketsphinx/sphinx_cepstra.h"
#include "tests/fuzz/mem_file.h"

namespace {

void RunTimeline(std::string_view text) {
  auto timeline = earshot::governor::SensorTimeline::Parse(text, "fuzz");
  if (!timeline.ok()) return;
  for (double t : {-1.0, 0.0, 0.5, 1e9}) (void)timeline.value().At(t);
}

void RunFeatParams(const std::string& path) {
  auto cepstra = earshot::pocketsphinx::SphinxCepstra::FromFeatParams(path);
  if (!cepstra.ok()) return;
  std::vector<int16_t> samples(16000);
  for (size_t i = 0; i < samples.size(); ++i)
    samples[i] = static_cast<int16_t>((i * 2654435761u) >> 16);
  std::vector<float> out;
  cepstra.value().Process(samples, out);
}

void RunFrontEndSettings(std::string_view text) {
  auto config = earshot::features::WithSettings({}, text);
  if (!config.ok()) return;
  auto front_end = earshot::features::FrontEnd::Create(config.value());
  if (!front_end.ok()) return;
  std::vector<int16_t> hop(static_cast<size_t>(config.value().hop_samples()));
  for (int t = 0; t < 20; ++t) {
    for (size_t i = 0; i < hop.size(); ++i)
      hop[i] = static_cast<int16_t>((i * 2654435761u + t) >> 16);
    front_end.value()->Process(hop);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  RunTimeline(text);
  RunFrontEndSettings(text);
  (void)earshot::pocketsphinx::CheckJsgfStatements(text);
  (void)earshot::pocketsphinx::JsgfWordList(text);
  const earshot::fuzz::MemFile file(data, size);
  RunFeatParams(file.path());
  return 0;
}
