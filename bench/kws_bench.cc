// Keyword spotter cost per 10 ms hop, apart from the shared front end and with it. Counter
// `cpu_per_audio`: CPU seconds per second of audio ("30u" = 30 us/s = 0.003% of a core), the unit
// of the peers' timing.json (openWakeWord runs beside it in tools/eval, on the same audio).
#include <benchmark/benchmark.h>

#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "models/kws/kws.h"

namespace earshot::kws {
namespace {

const std::string kModel = std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer.eshm";

std::vector<int16_t> Audio() {
  std::vector<int16_t> x;
  auto source = audio::FileSource::Open(
      std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac", {});
  audio::Frame frame;
  while (source.ok() && *(*source)->Next(frame)) x.insert(x.end(), frame.begin(), frame.end());
  return x;
}

void SetPerSecond(benchmark::State& state) {
  state.counters["cpu_per_audio"] = benchmark::Counter(
      static_cast<double>(state.iterations()) / 100.0,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Kws_Only(benchmark::State& state) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  const auto x = Audio();
  std::vector<int16_t> logmel;
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    logmel.insert(logmel.end(), (*fe)->logmel_db_q8().begin(), (*fe)->logmel_db_q8().end());
  }
  KwsSession session(*KwsModel::Load(kModel, features::FrontEndConfig{}));
  const size_t frames = logmel.size() / 40;
  size_t frame = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(session.Process(std::span<const int16_t>(logmel).subspan(frame * 40, 40)));
    frame = frame + 1 < frames ? frame + 1 : 0;
  }
  SetPerSecond(state);
}
BENCHMARK(BM_Kws_Only);

void BM_FrontEndPlusKws(benchmark::State& state) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  KwsSession session(*KwsModel::Load(kModel, features::FrontEndConfig{}));
  const auto x = Audio();
  size_t pos = 0;
  for (auto _ : state) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(pos, 160));
    benchmark::DoNotOptimize(session.Process((*fe)->logmel_db_q8()));
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
  }
  SetPerSecond(state);
}
BENCHMARK(BM_FrontEndPlusKws);

}  // namespace
}  // namespace earshot::kws

BENCHMARK_MAIN();
