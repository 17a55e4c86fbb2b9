// The keywords' second stage per candidate (models/pocketsphinx/keyphrase_verifier.h) on a 1.8 s
// window (snowboy's, in the bundled three-keyword sample): a full-band window, searched as it is
// and in the telephone band, beside the same window in the telephone band alone (an empty high
// band: one search, with the floor), and the parts: the check of the band, run on every window,
// the low-pass and the floor. Ratios: the full-band window against the one search, and the parts
// against it, in the same run.
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
    constexpr size_t kLength =
        (pocketsphinx::kVerifyFramesBefore + pocketsphinx::kVerifyFramesAfter + 1) * 160;
    if (samples->size() < kFrom + kLength) return std::vector<int16_t>();
    return std::vector<int16_t>(samples->begin() + kFrom, samples->begin() + kFrom + kLength);
  }();
  return window;
}

void BM_Verifier_Score(benchmark::State& state) {
  const SttConfig debian;  // the Debian package's model files
  auto verifier = pocketsphinx::KeyphraseVerifier::Load(debian.acoustic_model, debian.dictionary,
                                                        {"S N OW B OY"});
  if (!verifier.ok()) return state.SkipWithError(verifier.error().message.c_str());
  if (Window().empty()) return state.SkipWithError("no sample window");
  for (auto _ : state) benchmark::DoNotOptimize((*verifier)->Score(0, Window()));
}
BENCHMARK(BM_Verifier_Score)->Unit(benchmark::kMillisecond);

void BM_Verifier_ScoreNarrowband(benchmark::State& state) {
  const SttConfig debian;
  auto verifier = pocketsphinx::KeyphraseVerifier::Load(debian.acoustic_model, debian.dictionary,
                                                        {"S N OW B OY"});
  if (!verifier.ok()) return state.SkipWithError(verifier.error().message.c_str());
  if (Window().empty()) return state.SkipWithError("no sample window");
  std::vector<int16_t> low;
  pocketsphinx::TelephoneBand(Window(), low);
  for (auto _ : state) benchmark::DoNotOptimize((*verifier)->Score(0, low));
}
BENCHMARK(BM_Verifier_ScoreNarrowband)->Unit(benchmark::kMillisecond);

void BM_Verifier_TelephoneBand(benchmark::State& state) {
  if (Window().empty()) return state.SkipWithError("no sample window");
  std::vector<int16_t> low;
  for (auto _ : state) {
    pocketsphinx::TelephoneBand(Window(), low);
    benchmark::DoNotOptimize(low.data());
  }
}
BENCHMARK(BM_Verifier_TelephoneBand)->Unit(benchmark::kMillisecond);

void BM_Verifier_HighBandCheck(benchmark::State& state) {
  if (Window().empty()) return state.SkipWithError("no sample window");
  for (auto _ : state) benchmark::DoNotOptimize(pocketsphinx::HighBandIsEmpty(Window()));
}
BENCHMARK(BM_Verifier_HighBandCheck)->Unit(benchmark::kMillisecond);

void BM_Verifier_HighBandFloor(benchmark::State& state) {
  if (Window().empty()) return state.SkipWithError("no sample window");
  std::vector<int16_t> copy;
  for (auto _ : state) {
    copy = Window();
    pocketsphinx::AddHighBandFloor(copy);
    benchmark::DoNotOptimize(copy.data());
  }
}
BENCHMARK(BM_Verifier_HighBandFloor)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace earshot::stt

BENCHMARK_MAIN();
