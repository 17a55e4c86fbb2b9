#include "features/front_end_config.h"

#include <array>
#include <bit>
#include <charconv>
#include <utility>

#include "base/q15.h"

namespace earshot::features {

Status FrontEndConfig::Validate() const {
  auto fail = [](const std::string& what) { return Status(Error{"front end: " + what}); };
  if (sample_rate_hz != 16000) return fail("sample rate must be 16000 Hz");
  if (hop_ms != 10) return fail("hop must be 10 ms (one frame per pipeline frame)");
  if (!std::has_single_bit(static_cast<unsigned>(fft_size)) || fft_size < 64 || fft_size > 1024) {
    return fail("fft_size " + std::to_string(fft_size) + " must be a power of two in [64, 1024]");
  }
  // At most 64 ms (the largest FFT) before window_samples() is computed, which could overflow.
  if (window_ms < hop_ms || window_ms > 64 || window_samples() > fft_size) {
    return fail("window " + std::to_string(window_ms) + " ms must be >= the hop and fit in the " +
                std::to_string(fft_size) + "-point FFT (" + std::to_string(fft_size * 1000 / 16000) +
                " ms)");
  }
  if (mel_low_hz < 0 || mel_high_hz > sample_rate_hz / 2 || mel_low_hz >= mel_high_hz) {
    return fail("mel range " + std::to_string(mel_low_hz) + "-" + std::to_string(mel_high_hz) +
                " Hz must lie within 0-8000 Hz, low below high");
  }
  if (mel_bands < 1 || mel_bands > 128) return fail("mel_bands must be in [1, 128]");
  if (mfcc_count < 1 || mfcc_count > mel_bands) return fail("mfcc_count must be in [1, mel_bands]");
  if (lifter < 0 || lifter > 100) return fail("lifter must be in [0, 100]");
  if (log_reference == LogReference::kFullScale && (log_floor_db < -127 || log_floor_db > -40)) {
    return fail("log_floor_db must be in [-127, -40] dB re full scale");
  }
  // int16 power: 0 dB is one LSB squared (full scale ~130 dB); -100 is the graph's 1e-10.
  if (log_reference == LogReference::kInt16Power && (log_floor_db < -100 || log_floor_db > 60)) {
    return fail("log_floor_db must be in [-100, 60] dB re int16 power");
  }
  if (mean_norm_shift < 1 || mean_norm_shift > 15) return fail("mean_norm_shift must be in [1, 15]");
  if (preemphasis_q15 < 0 || preemphasis_q15 > kQ15Max) {
    return fail("pre-emphasis " + std::to_string(preemphasis_q15) + " / 32768 must be in [0, 1)");
  }
  if (dc_pole_q15 < 0 || dc_pole_q15 > kQ15Max) {
    return fail("DC-removal pole " + std::to_string(dc_pole_q15) + " / 32768 must be in [0, 1)");
  }
  return OkStatus();
}

namespace {

// The integer fields WithSettings sets, by key.
constexpr std::array<std::pair<std::string_view, int FrontEndConfig::*>, 7> kIntSettings = {{
    {"window_ms", &FrontEndConfig::window_ms},
    {"fft_size", &FrontEndConfig::fft_size},
    {"mel_bands", &FrontEndConfig::mel_bands},
    {"mel_low_hz", &FrontEndConfig::mel_low_hz},
    {"mel_high_hz", &FrontEndConfig::mel_high_hz},
    {"mfcc_count", &FrontEndConfig::mfcc_count},
    {"lifter", &FrontEndConfig::lifter},
}};

Status Set(FrontEndConfig& config, std::string_view key, std::string_view value) {
  auto fail = [&](const std::string& why) {
    return Status(
        Error{"front-end setting '" + std::string(key) + "=" + std::string(value) + "': " + why});
  };
  if (key == "mean_norm") {
    if (value != "none" && value != "running") return fail("mean_norm is none or running");
    config.mean_norm = value == "running" ? MeanNorm::kRunning : MeanNorm::kNone;
    return OkStatus();
  }
  for (const auto& [name, field] : kIntSettings) {
    if (key != name) continue;
    int parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size()) return fail("not an integer");
    config.*field = parsed;
    return OkStatus();
  }
  return fail(
      "no such key (window_ms, fft_size, mel_bands, mel_low_hz, mel_high_hz, "
      "mfcc_count, lifter, mean_norm)");
}

}  // namespace

Result<FrontEndConfig> WithSettings(FrontEndConfig config, std::string_view settings) {
  while (!settings.empty()) {
    const size_t comma = settings.find(',');
    const std::string_view item = settings.substr(0, comma);
    settings = comma == std::string_view::npos ? std::string_view() : settings.substr(comma + 1);
    const size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      return Error{"front-end setting '" + std::string(item) + "': expected KEY=VALUE"};
    }
    if (Status s = Set(config, item.substr(0, equals), item.substr(equals + 1)); !s.ok()) {
      return s.error();
    }
  }
  if (Status s = config.Validate(); !s.ok()) return s.error();
  return config;
}

FrontEndConfig EmbeddingFrontEndConfig() {
  FrontEndConfig c;
  c.window_ms = 25;  // 400 samples
  c.hop_ms = 10;
  c.fft_size = 512;
  c.mel_bands = 32;
  c.mel_low_hz = 60;
  c.mel_high_hz = 3800;
  c.mel_scale = MelScale::kSlaney;
  c.mel_norm = MelNorm::kArea;
  c.log_reference = LogReference::kInt16Power;
  c.dc_removal = false;
  c.preemphasis_q15 = 0;
  c.log_floor_db = 0;  // fixed absolute floor in place of the graph's per-chunk max - 80 dB
  c.noise_suppression = false;
  c.mean_norm = MeanNorm::kNone;
  return c;
}

}  // namespace earshot::features
