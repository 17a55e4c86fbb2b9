// Front-end costs per 10 ms frame: the fixed-point FrontEnd and each of its stages, beside the
// float reference on fftw3 (fftwf, FFTW_MEASURE plan) with the same parameters, in the same run.
// Input: 10 s of a shared speech recording if EARSHOT_DATA_DIR has it, else synthetic noise+tones.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "features/reference_front_end.h"

namespace earshot::features {
namespace {

const std::vector<int16_t>& Audio() {
  static const std::vector<int16_t> samples = [] {
    const auto path = std::filesystem::path(EARSHOT_DATA_DIR) / "stt" / "121-121726-0000.flac";
    std::vector<int16_t> x = audio::ReadFile(path.string(), 160000).value_or({});
    if (x.size() < 16000) {  // no shared data: noise plus tones at speech-like levels
      std::mt19937 rng(1);
      std::normal_distribution<double> noise(0, 300);
      x.resize(160000);
      for (size_t n = 0; n < x.size(); ++n) {
        const double t = static_cast<double>(n) / 16000;
        x[n] = static_cast<int16_t>(3000 * std::sin(2 * std::numbers::pi * 220 * t) + noise(rng));
      }
    }
    return x;
  }();
  return samples;
}

template <typename Fe>
void RunFrames(benchmark::State& state, Fe& fe) {
  const auto& x = Audio();
  size_t pos = 0;
  for (auto _ : state) {
    fe.Process(std::span<const int16_t>(x).subspan(pos, 160));
    pos = pos + 320 <= x.size() ? pos + 160 : 0;
    benchmark::ClobberMemory();
  }
  // Per 10 ms frame: "us/s" = microseconds of CPU per second of audio (x 100 frames).
  state.counters["frames"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_FrontEnd_Fixed(benchmark::State& state) {
  auto fe = FrontEnd::Create(FrontEndConfig{});
  RunFrames(state, **fe);
}
BENCHMARK(BM_FrontEnd_Fixed);

void BM_FrontEnd_FloatFftw(benchmark::State& state) {
  auto fe = ReferenceFrontEnd::Create(FrontEndConfig{}, ReferenceFrontEnd::FftPlanning::kMeasure);
  RunFrames(state, **fe);
}
BENCHMARK(BM_FrontEnd_FloatFftw);

// Stages, each on the data the previous one produced for a real frame.
struct StageData {
  FrontEndConfig config;
  std::vector<int32_t> frame_q8, fft_in;
  std::vector<ComplexInt32> spectrum;
  std::vector<uint64_t> mel;
  std::vector<int16_t> logmel;
  std::vector<int32_t> mfcc;
  int exponent = 0;
  StageData()
      : frame_q8(400), fft_in(512), spectrum(257), mel(40), logmel(40), mfcc(13) {
    DcPreEmphasis emphasis(config.dc_pole_q15, config.preemphasis_q15);
    const auto& x = Audio();
    emphasis.Process(std::span<const int16_t>(x).subspan(16000, 400), frame_q8);
    Window window(400, 21);
    exponent = window.Process(frame_q8, fft_in);
    RealFft(512).Process(fft_in, spectrum);
    MelFilterbank(40, 20, 7600, 512, 16000).Process(spectrum, mel);
  }
};

void BM_Stage_DcPreEmphasis(benchmark::State& state) {
  DcPreEmphasis stage(32604, 31785);
  std::vector<int32_t> out(160);
  const auto hop = std::span<const int16_t>(Audio()).subspan(16000, 160);
  for (auto _ : state) {
    stage.Process(hop, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_Stage_DcPreEmphasis);

void BM_Stage_Window(benchmark::State& state) {
  StageData d;
  Window window(400, 21);
  for (auto _ : state) benchmark::DoNotOptimize(window.Process(d.frame_q8, d.fft_in));
}
BENCHMARK(BM_Stage_Window);

void BM_Stage_RealFft512(benchmark::State& state) {
  StageData d;
  RealFft fft(512);
  for (auto _ : state) {
    fft.Process(d.fft_in, d.spectrum);
    benchmark::DoNotOptimize(d.spectrum.data());
  }
}
BENCHMARK(BM_Stage_RealFft512);

void BM_Stage_PowerAndMel(benchmark::State& state) {
  StageData d;
  MelFilterbank mel(40, 20, 7600, 512, 16000);
  for (auto _ : state) {
    mel.Process(d.spectrum, d.mel);
    benchmark::DoNotOptimize(d.mel.data());
  }
}
BENCHMARK(BM_Stage_PowerAndMel);

void BM_Stage_Log(benchmark::State& state) {
  StageData d;
  LogScale log(200.0);
  for (auto _ : state) {
    log.Process(d.mel, d.exponent, d.logmel);
    benchmark::DoNotOptimize(d.logmel.data());
  }
}
BENCHMARK(BM_Stage_Log);

void BM_Stage_Dct(benchmark::State& state) {
  StageData d;
  Dct dct(40, 13, 0);
  for (auto _ : state) {
    dct.Process(d.logmel, d.mfcc);
    benchmark::DoNotOptimize(d.mfcc.data());
  }
}
BENCHMARK(BM_Stage_Dct);

}  // namespace
}  // namespace earshot::features

BENCHMARK_MAIN();
