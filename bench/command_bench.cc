// One spoken command (the bundled recording's first second), decided three ways in the same run:
// the command classifier alone (models/commands/command_model.h: window, embedding, head), the
// decoder alone (pocketsphinx with stt.words, Begin / Feed / End), and the two joined (the default:
// command_fusion.h). The classifier's share is its cost over the decoder's.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "config/config.h"
#include "models/commands/command_model.h"
#include "models/stt/stt.h"
#include "models/stt_factory/load_model.h"
#include "options/stage_options.h"

namespace earshot::stt {
namespace {

const std::string kSource = EARSHOT_SOURCE_DIR;

const std::vector<int16_t>& Command() {
  static const std::vector<int16_t> samples =
      audio::ReadFile(kSource + "/tools/samples/computer_request.flac", 16000).value_or({});
  return samples;
}

void BM_CommandClassifier(benchmark::State& state) {
  auto model = commands::CommandModel::Load(kSource + "/models/commands/commands.eshm",
                                            kSource + "/models/embedding/speech_embedding.eshm");
  if (!model.ok()) return state.SkipWithError(model.error().message.c_str());
  for (auto _ : state) benchmark::DoNotOptimize((*model)->LogProbs(Command()));
}
BENCHMARK(BM_CommandClassifier)->Unit(benchmark::kMillisecond);

void Decode(benchmark::State& state, const char* command_model) {
  config::Config cfg = config::Config::Defaults();
  if (!cfg.Set("stt.words", "yes|no|up|down|left|right|on|off|stop|go").ok() ||
      !cfg.Set("stt.command_model", command_model).ok()) {
    return state.SkipWithError("config");
  }
  auto config = options::BindStt(cfg);
  if (!config.ok()) return state.SkipWithError(config.error().message.c_str());
  auto model = stt_factory::LoadModel(*config);
  if (!model.ok()) return state.SkipWithError(model.error().message.c_str());
  auto session = (*model)->NewSession();
  const std::vector<int16_t>& x = Command();
  for (auto _ : state) {
    if (!session->Begin().ok()) return state.SkipWithError("Begin");
    for (size_t i = 0; i + 160 <= x.size(); i += 160) {
      if (!session->Feed(std::span<const int16_t>(x).subspan(i, 160)).ok()) {
        return state.SkipWithError("Feed");
      }
    }
    benchmark::DoNotOptimize(session->End());
  }
}

void BM_CommandDecoder(benchmark::State& state) { Decode(state, "none"); }
BENCHMARK(BM_CommandDecoder)->Unit(benchmark::kMillisecond);

void BM_CommandDecoderAndClassifier(benchmark::State& state) { Decode(state, ""); }
BENCHMARK(BM_CommandDecoderAndClassifier)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace earshot::stt

BENCHMARK_MAIN();
