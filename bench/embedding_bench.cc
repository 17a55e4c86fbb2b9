// The speech embedding's cost (models/embedding): its front end per 10 ms hop, the stream per hop
// (one embedding every 8 hops), one 2 s window computed afresh (16 embeddings: the case of a second
// stage run on a keyword's candidate), and, as the reference in the same run, the bundled keyword
// spotter per hop. Counter `cpu_per_audio`: CPU seconds per second of audio, as kws_bench's.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/sample_audio.h"
#include "features/front_end.h"
#include "models/embedding/speech_embedding.h"
#include "models/kws/kws.h"

namespace earshot::embedding {
namespace {

const std::string kSource = EARSHOT_SOURCE_DIR;
const std::string kModel = kSource + "/models/embedding/speech_embedding.eshm";
constexpr int kBands = SpeechEmbedding::kBands;
constexpr int kSecondStageFrames = 76 + 15 * 8;  // 16 embeddings: 1.96 s

using bench::SampleAudio;
using bench::SampleLogMel;

void BM_EmbeddingFrontEnd(benchmark::State& state) {
  auto fe = features::FrontEnd::Create(features::EmbeddingFrontEndConfig());
  const auto x = SampleAudio();
  size_t pos = 0;
  for (auto _ : state) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(pos, 160));
    benchmark::DoNotOptimize((*fe)->logmel_db_q8().data());
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
  }
  bench::SetPerSecond(state);
}
BENCHMARK(BM_EmbeddingFrontEnd);

// One hop of the stream: an embedding every 8th.
void BM_EmbeddingStream(benchmark::State& state, bool simd) {
  const auto model = SpeechEmbedding::Load(kModel, features::EmbeddingFrontEndConfig());
  const std::vector<int16_t> mel = SampleLogMel(features::EmbeddingFrontEndConfig());
  EmbeddingStream stream(*model, simd);
  const size_t frames = mel.size() / kBands;
  size_t frame = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(stream.Push(std::span(mel).subspan(frame * kBands, kBands)));
    frame = frame + 1 < frames ? frame + 1 : 0;
  }
  bench::SetPerSecond(state);
  state.counters["weight_bytes"] = static_cast<double>(model->weight_bytes());
  state.counters["state_bytes"] = static_cast<double>(stream.state_bytes());
}
BENCHMARK_CAPTURE(BM_EmbeddingStream, simd, true);
BENCHMARK_CAPTURE(BM_EmbeddingStream, plain, false);

// A 1.96 s window afresh (a fresh stream fed its 196 frames): 16 embeddings.
void BM_EmbeddingWindow(benchmark::State& state) {
  const auto model = SpeechEmbedding::Load(kModel, features::EmbeddingFrontEndConfig());
  const std::vector<int16_t> mel = SampleLogMel(features::EmbeddingFrontEndConfig());
  EmbeddingStream stream(*model);
  for (auto _ : state) {
    stream.Reset();
    for (int t = 0; t < kSecondStageFrames; ++t) {
      benchmark::DoNotOptimize(stream.Push(std::span(mel).subspan(size_t(t) * kBands, kBands)));
    }
  }
}
BENCHMARK(BM_EmbeddingWindow);

// The reference: the bundled keyword spotter (its trunk and head) per hop.
void BM_KwsPerHop(benchmark::State& state) {
  const std::vector<int16_t> logmel = SampleLogMel(features::FrontEndConfig{});
  kws::KwsSession session(
      *kws::KwsModel::Load(kSource + "/models/kws/computer.eshm", features::FrontEndConfig{}),
      kws::KwsConfig{});
  const size_t frames = logmel.size() / 40;
  size_t frame = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(session.Process(std::span(logmel).subspan(frame * 40, 40)));
    frame = frame + 1 < frames ? frame + 1 : 0;
  }
  bench::SetPerSecond(state);
}
BENCHMARK(BM_KwsPerHop);

}  // namespace
}  // namespace earshot::embedding

BENCHMARK_MAIN();
