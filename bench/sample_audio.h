// The bundled sample for the benchmarks: its samples, and its log-mel under a front end's
// configuration, hop after hop; and the per-hop counter the benchmarks report.
#pragma once

#include <benchmark/benchmark.h>

#include <span>
#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"

namespace earshot::bench {

inline std::vector<int16_t> SampleAudio() {
  return audio::ReadFile(std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac")
      .value_or({});
}

// The sample's log-mel, config.mel_bands per hop, one hop after the other.
inline std::vector<int16_t> SampleLogMel(const features::FrontEndConfig& config) {
  auto fe = features::FrontEnd::Create(config);
  const auto x = SampleAudio();
  std::vector<int16_t> logmel;
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    logmel.insert(logmel.end(), (*fe)->logmel_db_q8().begin(), (*fe)->logmel_db_q8().end());
  }
  return logmel;
}

// Counter `cpu_per_audio` of a benchmark whose iteration is one 10 ms hop: CPU seconds per second
// of audio.
inline void SetPerSecond(benchmark::State& state) {
  state.counters["cpu_per_audio"] =
      benchmark::Counter(static_cast<double>(state.iterations()) / 100.0,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace earshot::bench
