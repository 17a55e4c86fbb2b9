// Audio-in costs: resampling 48 kHz stereo to 16 kHz mono with libsoxr (earshot's choice) beside
// libsamplerate measured in the same run, and the whole file path (decode + convert + framing).
// Counters: `x_realtime` = seconds of audio processed per CPU second.
#include <benchmark/benchmark.h>
#include <samplerate.h>
#include <sndfile.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <vector>

#include "audio/converter.h"
#include "audio/frame_source.h"

namespace earshot::audio {
namespace {

constexpr int kInputRate = 48000;
constexpr int kChannels = 2;
constexpr size_t kChunkFrames = kInputRate / 10;  // 100 ms, as audio.read_chunk_ms

// 100 ms of interleaved 48 kHz stereo: a chirp plus noise, so no resampler sees a trivial signal.
std::vector<float> TestChunk() {
  std::vector<float> x(kChunkFrames * kChannels);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  for (size_t i = 0; i < kChunkFrames; ++i) {
    const double t = static_cast<double>(i) / kInputRate;
    const auto s = static_cast<float>(0.4 * std::sin(2 * std::numbers::pi * (200 + 3000 * t) * t));
    x[2 * i] = s + noise(rng);
    x[2 * i + 1] = s + noise(rng);
  }
  return x;
}

void SetRealtimeCounter(benchmark::State& state, double audio_seconds_per_iteration) {
  state.counters["x_realtime"] = benchmark::Counter(
      audio_seconds_per_iteration * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_Convert_Soxr(benchmark::State& state, const char* quality) {
  const std::vector<float> chunk = TestChunk();
  auto converter = Converter::Create(kInputRate, kChannels, quality, kChunkFrames);
  for (auto _ : state) {
    auto out = (*converter)->Process(chunk);
    benchmark::DoNotOptimize(out->data());
  }
  SetRealtimeCounter(state, 0.1);
}
BENCHMARK_CAPTURE(BM_Convert_Soxr, high, "high");
BENCHMARK_CAPTURE(BM_Convert_Soxr, very_high, "very_high");
BENCHMARK_CAPTURE(BM_Convert_Soxr, quick, "quick");

// Reference: libsamplerate on the same downmixed input (downmix + SRC + int16, as Converter does).
void BM_Convert_Libsamplerate(benchmark::State& state) {
  const std::vector<float> chunk = TestChunk();
  std::vector<float> mono(kChunkFrames), out(kChunkFrames);
  std::vector<int16_t> out16(kChunkFrames);
  int err = 0;
  SRC_STATE* src = src_new(static_cast<int>(state.range(0)), 1, &err);
  for (auto _ : state) {
    for (size_t i = 0; i < kChunkFrames; ++i) mono[i] = 0.5f * (chunk[2 * i] + chunk[2 * i + 1]);
    SRC_DATA d{};
    d.data_in = mono.data();
    d.input_frames = kChunkFrames;
    d.data_out = out.data();
    d.output_frames = static_cast<long>(out.size());
    d.src_ratio = 1.0 / 3.0;
    src_process(src, &d);
    FloatToInt16({out.data(), static_cast<size_t>(d.output_frames_gen)}, out16);
    benchmark::DoNotOptimize(out16.data());
  }
  src_delete(src);
  SetRealtimeCounter(state, 0.1);
}
BENCHMARK(BM_Convert_Libsamplerate)->Arg(SRC_SINC_BEST_QUALITY)->Arg(SRC_SINC_MEDIUM_QUALITY)
    ->Arg(SRC_SINC_FASTEST);

// The whole path on a 60 s 48 kHz stereo WAV: libsndfile decode, downmix, libsoxr, 10 ms frames.
void BM_FileSource_48kStereo(benchmark::State& state) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "earshot_bench_48k_stereo.wav").string();
  const std::vector<float> chunk = TestChunk();
  SF_INFO info{};
  info.samplerate = kInputRate;
  info.channels = kChannels;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  for (int i = 0; i < 600; ++i) sf_writef_float(f, chunk.data(), kChunkFrames);
  sf_close(f);
  for (auto _ : state) {
    auto source = FileSource::Open(path, FileSourceOptions{});
    Frame frame;
    while (*(*source)->Next(frame)) benchmark::DoNotOptimize(frame.data());
  }
  std::filesystem::remove(path);
  SetRealtimeCounter(state, 60.0);
}
BENCHMARK(BM_FileSource_48kStereo)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace earshot::audio

BENCHMARK_MAIN();
