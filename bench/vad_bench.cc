// VAD costs per 10 ms frame: its own work (input transform + int8 MLP + decision) apart from the
// shared front end, and front end + VAD together; of the bundled model, or of the model file in
// EARSHOT_VAD_MODEL (another model measured in the same session). Counter `cpu_per_audio`: CPU
// time per second of audio ("83u" = 83 us/s = RTF 8.3e-5), as the peers' timing.json gives it for
// WebRTC VAD and Silero VAD (../shared/peers) run on the same machine.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "models/vad/vad.h"
#include "options/stage_options.h"

namespace earshot::vad {
namespace {

// The [vad] defaults of the options table, which the daemon runs.
VadConfig TableDefaults() { return *options::BindVad(config::Config::Defaults()); }

// Loaded once; its error (a bad EARSHOT_VAD_MODEL) skips each benchmark with the loader's message.
const Result<std::shared_ptr<const VadModel>>& Model() {
  const char* path = std::getenv("EARSHOT_VAD_MODEL");
  static const auto model =
      VadModel::Load(path != nullptr ? std::string(path)
                                     : std::string(EARSHOT_SOURCE_DIR) + "/models/vad/vad.eshm",
                     features::FrontEndConfig{});
  return model;
}

// 20 s of a shared speech recording (or of the bundled sample when the data are absent).
const std::vector<int16_t>& Audio() {
  static const std::vector<int16_t> samples = [] {
    std::string path = std::string(EARSHOT_DATA_DIR) + "/stt/121-121726-0000.flac";
    if (!std::filesystem::exists(path)) {
      path = std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac";
    }
    return audio::ReadFile(path).value_or({});
  }();
  return samples;
}

void SetPerSecond(benchmark::State& state) {
  // One iteration is one 10 ms frame: 100 per second of audio.
  state.counters["cpu_per_audio"] = benchmark::Counter(
      static_cast<double>(state.iterations()) / 100.0,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Vad_Only(benchmark::State& state) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  const auto& x = Audio();
  std::vector<int16_t> logmel;
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    logmel.insert(logmel.end(), (*fe)->logmel_db_q8().begin(), (*fe)->logmel_db_q8().end());
  }
  const auto& model = Model();
  if (!model.ok()) return state.SkipWithError(model.error().message.c_str());
  VadSession session(*model, TableDefaults());
  std::vector<VadFrame> out;
  out.reserve(64);
  size_t frame = 0;
  const size_t frames = logmel.size() / 40;
  for (auto _ : state) {
    out.clear();
    session.Process(std::span<const int16_t>(logmel).subspan(frame * 40, 40), out);
    frame = frame + 1 < frames ? frame + 1 : 0;
    benchmark::DoNotOptimize(out.data());
  }
  SetPerSecond(state);
}
BENCHMARK(BM_Vad_Only);

void BM_FrontEndPlusVad(benchmark::State& state) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  const auto& model = Model();
  if (!model.ok()) return state.SkipWithError(model.error().message.c_str());
  VadSession session(*model, TableDefaults());
  const auto& x = Audio();
  std::vector<VadFrame> out;
  out.reserve(64);
  size_t pos = 0;
  for (auto _ : state) {
    out.clear();
    (*fe)->Process(std::span<const int16_t>(x).subspan(pos, 160));
    session.Process((*fe)->logmel_db_q8(), out);
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
    benchmark::DoNotOptimize(out.data());
  }
  SetPerSecond(state);
}
BENCHMARK(BM_FrontEndPlusVad);

}  // namespace
}  // namespace earshot::vad

BENCHMARK_MAIN();
