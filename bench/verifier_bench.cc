// The keywords' second stage per candidate (models/pocketsphinx/keyphrase_verifier.h):
// pocketsphinx's keyphrase search over a 1.8 s window (snowboy's, in the bundled three-keyword
// sample: full band, so no floor), beside what an empty high band adds to it: the check of the
// band, run on every window, and the floor, on the windows whose band is empty (the same window
// low-passed at 3.4 kHz would be one). Ratios: the check and the floor against the search, in the
// same run.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "models/pocketsphinx/keyphrase_verifier.h"
#include "models/stt/stt.h"

namespace earshot::stt {
namespace {

const std::vector<int16_t>& Window() {
  static const std::vector<int16_t> window = [] {
    auto samples =
        audio::ReadFile(std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/three_keywords.flac");
    if (!samples.ok()) return std::vector<int16_t>();
    constexpr size_t kFrom = 4800 * 16;  // 4.8 s (16 samples a ms): snowboy's window
    constexpr size_t kLength = (kVerifyFramesBefore + kVerifyFramesAfter + 1) * 160;
    if (samples->size() < kFrom + kLength) return std::vector<int16_t>();
    return std::vector<int16_t>(samples->begin() + kFrom, samples->begin() + kFrom + kLength);
  }();
  return window;
}

void BM_Verifier_Score(benchmark::State& state) {
  const SttConfig debian;  // the Debian package's model files
  auto verifier =
      KeyphraseVerifier::Load(debian.acoustic_model, debian.dictionary, {"S N OW B OY"});
  if (!verifier.ok()) return state.SkipWithError(verifier.error().message.c_str());
  if (Window().empty()) return state.SkipWithError("no sample window");
  for (auto _ : state) benchmark::DoNotOptimize((*verifier)->Score(0, Window()));
}
BENCHMARK(BM_Verifier_Score)->Unit(benchmark::kMillisecond);

void BM_Verifier_HighBandCheck(benchmark::State& state) {
  if (Window().empty()) return state.SkipWithError("no sample window");
  for (auto _ : state) benchmark::DoNotOptimize(HighBandIsEmpty(Window()));
}
BENCHMARK(BM_Verifier_HighBandCheck)->Unit(benchmark::kMillisecond);

void BM_Verifier_HighBandFloor(benchmark::State& state) {
  if (Window().empty()) return state.SkipWithError("no sample window");
  std::vector<int16_t> copy;
  for (auto _ : state) {
    copy = Window();
    AddHighBandFloor(copy);
    benchmark::DoNotOptimize(copy.data());
  }
}
BENCHMARK(BM_Verifier_HighBandFloor)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace earshot::stt

BENCHMARK_MAIN();
