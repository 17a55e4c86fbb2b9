// Keyword spotter cost per 10 ms hop, apart from the shared front end and with it. Counter
// `cpu_per_audio`: CPU seconds per second of audio ("30u" = 30 us/s = 0.003% of a core), the unit
// of the peers' timing.json (openWakeWord runs beside it in tools/eval, on the same audio).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "models/context_stack.h"
#include "models/int8_dot.h"
#include "models/kws/kws.h"

namespace earshot::kws {
namespace {

const std::string kLarge = std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer.eshm";
const std::string kSmall = std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer_small.eshm";

std::vector<int16_t> Audio() {
  return audio::ReadFile(std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac")
      .value_or({});
}

void SetPerSecond(benchmark::State& state) {
  state.counters["cpu_per_audio"] =
      benchmark::Counter(static_cast<double>(state.iterations()) / 100.0,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Kws_Only(benchmark::State& state, const std::string& model_path) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  const auto x = Audio();
  std::vector<int16_t> logmel;
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    logmel.insert(logmel.end(), (*fe)->logmel_db_q8().begin(), (*fe)->logmel_db_q8().end());
  }
  KwsSession session(*KwsModel::Load(model_path, features::FrontEndConfig{}), KwsConfig{});
  const size_t frames = logmel.size() / 40;
  size_t frame = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        session.Process(std::span<const int16_t>(logmel).subspan(frame * 40, 40)));
    frame = frame + 1 < frames ? frame + 1 : 0;
  }
  SetPerSecond(state);
}
BENCHMARK_CAPTURE(BM_Kws_Only, large, kLarge);
BENCHMARK_CAPTURE(BM_Kws_Only, small, kSmall);

// The reference for the streamed convolutions (conv_stream.h): the whole network on each hop's
// stacked inputs, every position of each convolution recomputed.
void BM_Kws_WholeNetwork(benchmark::State& state, const std::string& model_path) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  auto model = *KwsModel::Load(model_path, features::FrontEndConfig{});
  KwsSession session(model, KwsConfig{});
  models::ContextStack stack(model->pooled_bands(), std::vector<int32_t>(model->context().begin(),
                                                                         model->context().end()));
  std::vector<std::vector<int8_t>> stacked;
  const auto x = Audio();
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    session.Process((*fe)->logmel_db_q8());
    std::ranges::copy(session.last_inputs(), stack.Next().begin());
    stack.Commit();
    const auto in = stack.Stack(stack.committed() - 1);
    stacked.emplace_back(in.begin(), in.end());
  }
  auto scratch = model->mlp().MakeScratch();
  size_t hop = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->mlp().Run(stacked[hop], scratch));
    hop = hop + 1 < stacked.size() ? hop + 1 : 0;
  }
  SetPerSecond(state);
}
BENCHMARK_CAPTURE(BM_Kws_WholeNetwork, large, kLarge);
BENCHMARK_CAPTURE(BM_Kws_WholeNetwork, small, kSmall);

void BM_FrontEndPlusKws(benchmark::State& state, const std::string& model_path) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  KwsSession session(*KwsModel::Load(model_path, features::FrontEndConfig{}), KwsConfig{});
  const auto x = Audio();
  size_t pos = 0;
  for (auto _ : state) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(pos, 160));
    benchmark::DoNotOptimize(session.Process((*fe)->logmel_db_q8()));
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
  }
  SetPerSecond(state);
}
BENCHMARK_CAPTURE(BM_FrontEndPlusKws, large, kLarge);
BENCHMARK_CAPTURE(BM_FrontEndPlusKws, small, kSmall);

// The int8 engine's dot products (models/int8_dot.h) on the large model's own layers, plain loop
// against AVX2 in the same run: one hop's window of its first convolution (any int8 inputs), of its
// second (ReLU outputs of the first) or its hidden dense layer over every position of the layer
// before (ReLU outputs). `layer_index` counts from the first; -1 is the hidden dense layer.
void BM_DotRows(benchmark::State& state, int layer_index, bool avx2) {
  if (avx2 && !models::Avx2Available()) {
    state.SkipWithError("no AVX2 on this CPU");
    return;
  }
  const auto model = *KwsModel::Load(kLarge, features::FrontEndConfig{});
  const size_t layer =
      layer_index < 0 ? model->mlp().layers().size() - 2 : static_cast<size_t>(layer_index);
  const models::Int8Dense& l = model->mlp().layers()[layer];
  const auto k = static_cast<size_t>(l.inputs), rows = static_cast<size_t>(l.outputs);
  const auto kind = layer == 0 ? models::Int8Inputs::kAny : models::Int8Inputs::kNonNegative;
  std::vector<int8_t> in(k);
  for (size_t i = 0; i < k; ++i) {  // the model inputs' range -24 .. 63, or ReLU outputs 0 .. 127
    const int v = static_cast<int>(i % 128);
    in[i] = static_cast<int8_t>(layer == 0 ? v % 88 - 24 : v);
  }
  std::vector<int32_t> out(rows);
  for (auto _ : state) {
    if (avx2) {
      models::DotRowsAvx2(l.weight.data(), rows, k, in.data(), kind, out.data());
    } else {
      models::DotRowsPlain(l.weight.data(), rows, k, in.data(), out.data());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["macs"] = static_cast<double>(rows * k);
}
BENCHMARK_CAPTURE(BM_DotRows, large_conv_plain, 0, false);
BENCHMARK_CAPTURE(BM_DotRows, large_conv_avx2, 0, true);
BENCHMARK_CAPTURE(BM_DotRows, large_conv2_plain, 1, false);
BENCHMARK_CAPTURE(BM_DotRows, large_conv2_avx2, 1, true);
BENCHMARK_CAPTURE(BM_DotRows, large_dense_plain, -1, false);
BENCHMARK_CAPTURE(BM_DotRows, large_dense_avx2, -1, true);

}  // namespace
}  // namespace earshot::kws

BENCHMARK_MAIN();
