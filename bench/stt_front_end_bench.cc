// The speech-to-text cepstra per 10 ms frame: earshot's fixed-point front end set to the en-us
// acoustic model's feat.params, noise suppression included (SphinxCepstra, SttConfig::front_end
// = "earshot"), beside pocketsphinx's own front end with the same parameters and its -remove_noise
// (sphinxbase fe_process_frames, float, from the same feat.params), in the same run, on 10 s of
// synthetic noise and tones.
#include <benchmark/benchmark.h>
#include <sphinxbase/fe.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "models/pocketsphinx/sphinx_cepstra.h"

namespace earshot::stt {
namespace {

constexpr const char* kFeatParams = "/usr/share/pocketsphinx/model/en-us/en-us/feat.params";

const std::vector<int16_t>& Audio() {
  static const std::vector<int16_t> samples = [] {
    std::mt19937 rng(1);
    std::normal_distribution<double> noise(0, 300);
    std::vector<int16_t> x(160000);
    for (size_t n = 0; n < x.size(); ++n) {
      const double t = static_cast<double>(n) / 16000;
      x[n] = static_cast<int16_t>(3000 * std::sin(2 * std::numbers::pi * 220 * t) + noise(rng));
    }
    return x;
  }();
  return samples;
}

void Rate(benchmark::State& state) {  // "frames" per second of CPU, inverted: seconds per frame
  state.counters["frames"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Cepstra_Earshot(benchmark::State& state) {
  auto cepstra = pocketsphinx::SphinxCepstra::FromFeatParams(kFeatParams);
  if (!cepstra.ok()) return state.SkipWithError(cepstra.error().message.c_str());
  std::vector<float> out;
  out.reserve(64);
  const auto& x = Audio();
  size_t pos = 0;
  for (auto _ : state) {
    out.clear();
    cepstra->Process(std::span<const int16_t>(x).subspan(pos, 160), out);
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
    benchmark::DoNotOptimize(out.data());
  }
  Rate(state);
}
BENCHMARK(BM_Cepstra_Earshot);

void BM_Cepstra_Pocketsphinx(benchmark::State& state) {
  // The same feat.params as earshot's side reads; noise removal on and silence kept, as there.
  static const arg_t kArgs[] = {waveform_to_cepstral_command_line_macro(),
                                {nullptr, 0, nullptr, nullptr}};
  std::vector<std::string> args = {"-remove_noise", "yes", "-remove_silence", "no"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  cmd_ln_t* cmd =
      cmd_ln_parse_r(nullptr, kArgs, static_cast<int32>(argv.size()), argv.data(), FALSE);
  if (cmd != nullptr) cmd = cmd_ln_parse_file_r(cmd, kArgs, kFeatParams, FALSE);
  fe_t* fe = cmd != nullptr ? fe_init_auto_r(cmd) : nullptr;
  if (fe == nullptr) return state.SkipWithError("pocketsphinx's front end did not start");
  fe_start_utt(fe);
  std::vector<mfcc_t> frame(static_cast<size_t>(fe_get_output_size(fe)) * 4);
  std::vector<mfcc_t*> rows = {&frame[0], &frame[frame.size() / 4], &frame[frame.size() / 2],
                               &frame[frame.size() * 3 / 4]};
  const auto& x = Audio();
  size_t pos = 0;
  for (auto _ : state) {
    const int16* in = x.data() + pos;
    size_t n = 160;
    int32 n_frames = 4;
    fe_process_frames(fe, &in, &n, rows.data(), &n_frames, nullptr);
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
    benchmark::DoNotOptimize(frame.data());
  }
  Rate(state);
  fe_free(fe);
  cmd_ln_free_r(cmd);
}
BENCHMARK(BM_Cepstra_Pocketsphinx);

}  // namespace
}  // namespace earshot::stt

BENCHMARK_MAIN();
