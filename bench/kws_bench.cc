// Keyword spotter cost per 10 ms hop, apart from the shared front end and with it; and several
// keywords on one shared trunk (BM_Keywords). Counter `cpu_per_audio`: CPU seconds per second of
// audio ("30u" = 30 us/s = 0.003% of a core), the unit of the peers' timing.json (openWakeWord
// runs beside it in tools/eval, on the same audio).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "audio/frame_source.h"
#include "bench/sample_audio.h"
#include "features/front_end.h"
#include "models/context_stack.h"
#include "models/int8_dot.h"
#include "models/kws/keyword_set.h"
#include "models/kws/kws.h"
#include "tests/trunk_models.h"

namespace earshot::kws {
namespace {

const std::string kLarge = std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer.eshm";
const std::string kSmall = std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer_small.eshm";

using bench::SetPerSecond;
std::vector<int16_t> Audio() { return bench::SampleAudio(); }
// The sample's log-mel, 40 bands per hop, one hop after the other.
std::vector<int16_t> LogMel() { return bench::SampleLogMel(features::FrontEndConfig{}); }

void BM_Kws_Only(benchmark::State& state, const std::string& model_path) {
  const std::vector<int16_t> logmel = LogMel();
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

// Keyword models of one trunk (tests/trunk_models.h, the shape of tools/train/kws_trunk.py: three
// convolutions of 64 channels over the 77 context frames, then 448 -> 16 -> 1 per keyword),
// written once into a scratch directory that is removed at exit.
class TrunkModels {
 public:
  static const TrunkModels& Get() {
    static const TrunkModels models;
    return models;
  }
  // Keyword k's model: the trunk of seed 1, the head of seed 10 + k.
  std::shared_ptr<const KwsModel> Model(int k) const { return models_[static_cast<size_t>(k)]; }
  ~TrunkModels() { std::filesystem::remove_all(dir_); }

 private:
  TrunkModels()
      : dir_(std::filesystem::temp_directory_path() /
             ("earshot_kws_bench_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    for (uint32_t k = 0; k < 5; ++k) {
      const std::string path = (dir_ / ("keyword" + std::to_string(k) + ".eshm")).string();
      testing_util::WriteModelFile(path, "kws-mlp", testing_util::TrunkModelTensors(1, 10 + k));
      models_.push_back(KwsModel::Load(path, features::FrontEndConfig{}).value_or(nullptr));
    }
  }
  std::filesystem::path dir_;
  std::vector<std::shared_ptr<const KwsModel>> models_;
};

// A set of `count` trunk keywords sharing the trunk (count 0: the bundled large model alone).
Result<std::shared_ptr<const KeywordSet>> KeywordsOfOneTrunk(int count) {
  std::vector<Keyword> keywords;
  if (count == 0) {
    auto computer = KwsModel::Load(kLarge, features::FrontEndConfig{});
    if (!computer.ok()) return computer.error();
    keywords.push_back(Keyword{"computer", *computer, kLarge});
  }
  for (int k = 0; k < count; ++k) {
    std::shared_ptr<const KwsModel> model = TrunkModels::Get().Model(k);
    if (model == nullptr) return Error{"the trunk models could not be written or loaded"};
    keywords.push_back(Keyword{"keyword" + std::to_string(k), model, ""});
  }
  return KeywordSet::Create(std::move(keywords));
}

// One hop of every keyword of a set, as the cascade runs it (KeywordSetSession): `count` trunk
// keywords sharing the trunk, or with `alone` each in a set of its own (what sharing saves: a
// keyword of another trunk costs the same); count 0: the bundled large model, the reference.
void BM_Keywords(benchmark::State& state, bool alone) {
  const int count = static_cast<int>(state.range(0));
  auto set = KeywordsOfOneTrunk(count);
  if (!set.ok()) {
    state.SkipWithError(set.error().message.c_str());
    return;
  }
  const std::vector<int16_t> logmel = LogMel();
  const size_t frames = logmel.size() / 40;
  std::vector<KeywordSetSession> sessions;
  if (alone) {
    for (const Keyword& k : (*set)->keywords()) {
      sessions.emplace_back(*KeywordSet::Create({k}), KwsConfig{});
    }
  } else {
    sessions.emplace_back(*set, KwsConfig{});
  }
  size_t frame = 0;
  for (auto _ : state) {
    for (KeywordSetSession& session : sessions) {
      session.Process(std::span<const int16_t>(logmel).subspan(frame * 40, 40));
      benchmark::DoNotOptimize(session.scores().data());
    }
    frame = frame + 1 < frames ? frame + 1 : 0;
  }
  SetPerSecond(state);
  state.counters["groups"] = static_cast<double>(alone ? count : (*set)->groups().size());
}
BENCHMARK_CAPTURE(BM_Keywords, shared_trunk, false)->Arg(0)->Arg(1)->Arg(2)->Arg(5);
BENCHMARK_CAPTURE(BM_Keywords, each_alone, true)->Arg(2)->Arg(5);

// The cost requirement measured head to head: one keyword and `count` keywords on one trunk, run
// in turns (the whole recording, 455 hops, each) so that both see the same machine, timed by the
// thread's CPU clock. Counters: ns per hop of each, and `extra_ratio` = the cost each further
// keyword adds / one keyword's cost: (t_count - t_1) / ((count - 1) * t_1), at most 0.25 wanted.
double ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void BM_Keywords_ExtraCost(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  auto one = KeywordsOfOneTrunk(1), many = KeywordsOfOneTrunk(count);
  if (!one.ok() || !many.ok()) {
    state.SkipWithError("the trunk models could not be written or loaded");
    return;
  }
  const std::vector<int16_t> logmel = LogMel();
  const size_t frames = logmel.size() / 40;
  KeywordSetSession sessions[2] = {KeywordSetSession(*one, KwsConfig{}),
                                   KeywordSetSession(*many, KwsConfig{})};
  double ns[2] = {0, 0};
  for (auto _ : state) {
    for (int s = 0; s < 2; ++s) {
      const double start = ThreadCpuNs();
      for (size_t frame = 0; frame < frames; ++frame) {
        sessions[s].Process(std::span<const int16_t>(logmel).subspan(frame * 40, 40));
        benchmark::DoNotOptimize(sessions[s].scores().data());
      }
      ns[s] += ThreadCpuNs() - start;
    }
  }
  const double hops = static_cast<double>(state.iterations()) * static_cast<double>(frames);
  state.counters["ns_per_hop_1"] = ns[0] / hops;
  state.counters["ns_per_hop_n"] = ns[1] / hops;
  state.counters["extra_ratio"] = (ns[1] - ns[0]) / ((count - 1) * ns[0]);
}
BENCHMARK(BM_Keywords_ExtraCost)->Arg(2)->Arg(5);

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
