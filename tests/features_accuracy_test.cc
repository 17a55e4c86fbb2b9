// The fixed-point front end against the float reference (fftw3), on real speech from the shared
// data and on sines, white noise and silence from -70 to 0 dBFS: log-mel within 0.2 dB for every
// band above -60 dBFS, MFCCs within 1% of the reference's dynamic range. Prints the figures.
#include <gtest/gtest.h>

#include <algorithm>
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

struct Errors {
  double logmel_max = 0, logmel_sum = 0;
  int64_t logmel_count = 0;
  std::vector<double> mfcc_max_err, mfcc_min, mfcc_max;
  int64_t frames = 0;

  explicit Errors(int coefficients)
      : mfcc_max_err(coefficients), mfcc_min(coefficients, 1e9), mfcc_max(coefficients, -1e9) {}

  // The largest MFCC error over the reference's dynamic range (its max - min over all coefficients
  // and frames of the signal set).
  double MfccShareOfRange() const {
    const double range = *std::max_element(mfcc_max.begin(), mfcc_max.end()) -
                         *std::min_element(mfcc_min.begin(), mfcc_min.end());
    return *std::max_element(mfcc_max_err.begin(), mfcc_max_err.end()) / std::max(1e-9, range);
  }
  // Stricter: each coefficient's error over that coefficient's own range, worst coefficient.
  double MfccShareOfOwnRange() const {
    double worst = 0;
    for (size_t i = 0; i < mfcc_max_err.size(); ++i) {
      worst = std::max(worst, mfcc_max_err[i] / std::max(1e-9, mfcc_max[i] - mfcc_min[i]));
    }
    return worst;
  }
};

// Runs both front ends over `samples` and accumulates their differences.
void Compare(const std::vector<int16_t>& samples, const FrontEndConfig& config, Errors& errors) {
  auto fixed = FrontEnd::Create(config);
  auto reference = ReferenceFrontEnd::Create(config);
  ASSERT_TRUE(fixed.ok() && reference.ok());
  const size_t hop = static_cast<size_t>(config.hop_samples());
  for (size_t start = 0; start + hop <= samples.size(); start += hop) {
    std::span<const int16_t> frame(samples.data() + start, hop);
    (*fixed)->Process(frame);
    (*reference)->Process(frame);
    ++errors.frames;
    const auto logmel = (*fixed)->logmel_db_q8();
    const auto ref_logmel = (*reference)->logmel_db();
    for (size_t b = 0; b < logmel.size(); ++b) {
      if (ref_logmel[b] <= -60.0f) continue;  // the criterion covers bands above -60 dBFS
      const double err = std::abs(logmel[b] / 256.0 - ref_logmel[b]);
      errors.logmel_max = std::max(errors.logmel_max, err);
      errors.logmel_sum += err;
      ++errors.logmel_count;
    }
    const auto mfcc = (*fixed)->mfcc_q8();
    const auto ref_mfcc = (*reference)->mfcc();
    for (size_t i = 0; i < mfcc.size(); ++i) {
      errors.mfcc_max_err[i] = std::max(errors.mfcc_max_err[i], std::abs(mfcc[i] / 256.0 - ref_mfcc[i]));
      errors.mfcc_min[i] = std::min<double>(errors.mfcc_min[i], ref_mfcc[i]);
      errors.mfcc_max[i] = std::max<double>(errors.mfcc_max[i], ref_mfcc[i]);
    }
  }
}

void Report(const char* what, const Errors& e) {
  std::printf("%-26s frames %6lld  log-mel error (bands > -60 dBFS): max %.4f dB, mean %.4f dB;"
              "  MFCC max error %.3f%% of the range (%.2f%% of the worst coefficient's own)\n",
              what, static_cast<long long>(e.frames), e.logmel_max,
              e.logmel_count ? e.logmel_sum / static_cast<double>(e.logmel_count) : 0.0,
              100 * e.MfccShareOfRange(), 100 * e.MfccShareOfOwnRange());
}

std::vector<int16_t> Sine(double dbfs, double hz, double seconds) {
  const double amplitude = 32767.0 * std::pow(10.0, dbfs / 20.0);
  std::vector<int16_t> x(static_cast<size_t>(seconds * 16000));
  for (size_t n = 0; n < x.size(); ++n) {
    x[n] = static_cast<int16_t>(std::lround(amplitude * std::sin(2 * std::numbers::pi * hz * static_cast<double>(n) / 16000)));
  }
  return x;
}

std::vector<int16_t> WhiteNoise(double dbfs, double seconds, unsigned seed) {
  const double rms = 32767.0 * std::pow(10.0, dbfs / 20.0);
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(0.0, rms);
  std::vector<int16_t> x(static_cast<size_t>(seconds * 16000));
  for (auto& v : x) v = static_cast<int16_t>(std::clamp(std::lround(dist(rng)), -32768L, 32767L));
  return x;
}

TEST(FrontEndAccuracy, SinesAndNoiseFromMinus70To0Dbfs) {
  const FrontEndConfig config;
  Errors sines(config.mfcc_count), noise(config.mfcc_count);
  for (double dbfs = -70; dbfs <= 0; dbfs += 10) {
    for (double hz : {100.0, 440.0, 1000.0, 3125.0, 7000.0}) Compare(Sine(dbfs, hz, 0.5), config, sines);
    Compare(WhiteNoise(dbfs - 3, 0.5, static_cast<unsigned>(-dbfs)), config, noise);
  }
  Report("sines -70..0 dBFS", sines);
  Report("white noise -73..-3 dBFS", noise);
  EXPECT_LT(sines.logmel_max, 0.2);
  EXPECT_LT(noise.logmel_max, 0.2);
  EXPECT_LT(sines.MfccShareOfRange(), 0.01);
  EXPECT_LT(noise.MfccShareOfRange(), 0.01);
  // Pure tones near full scale: bands ~100 dB below the tone differ by up to ~0.7 dB, set by the Q15
  // window's quantisation floor (-96 dB); real speech never spans that much within a frame (below).
  EXPECT_LT(sines.MfccShareOfOwnRange(), 0.03);
  EXPECT_LT(noise.MfccShareOfOwnRange(), 0.01);
}

TEST(FrontEndAccuracy, RealSpeech) {
  const std::filesystem::path dir = std::filesystem::path(EARSHOT_DATA_DIR) / "stt";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared data at " << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".flac") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  files.resize(std::min<size_t>(files.size(), 12));  // ~2 minutes of speech, 14 speakers' first
  for (const FrontEndConfig& config : {FrontEndConfig{}, [] {
         FrontEndConfig c;
         c.lifter = 22;
         c.mean_norm = MeanNorm::kRunning;
         return c;
       }()}) {
    Errors errors(config.mfcc_count);
    for (const auto& path : files) {
      auto samples = audio::ReadFile(path.string());
      ASSERT_TRUE(samples.ok()) << samples.error().message;
      Compare(*samples, config, errors);
    }
    Report(config.lifter ? "speech, lifter 22 + CMN" : "speech (stt/, 12 files)", errors);
    EXPECT_LT(errors.logmel_max, 0.2);
    EXPECT_LT(errors.MfccShareOfRange(), 0.01);
    EXPECT_LT(errors.MfccShareOfOwnRange(), 0.01);
  }
}

TEST(FrontEndSaturation, SilenceGivesTheFloorEverywhere) {
  auto fixed = FrontEnd::Create(FrontEndConfig{});
  std::vector<int16_t> zeros(160, 0);
  for (int i = 0; i < 10; ++i) (*fixed)->Process(zeros);
  for (int16_t v : (*fixed)->logmel_db_q8()) EXPECT_EQ(v, LogScale::kFloorDbQ8);
  const int32_t c0 = (*fixed)->mfcc_q8()[0];
  EXPECT_NEAR(c0 / 256.0, -100.0 * std::sqrt(40.0), 0.01);  // DCT of a flat -100 dB floor
}

TEST(FrontEndSaturation, FullScaleSquareWaveDoesNotOverflow) {
  const FrontEndConfig config;
  for (int period : {2, 8, 37, 160}) {
    std::vector<int16_t> square(16000);
    for (size_t n = 0; n < square.size(); ++n) {
      square[n] = (n / static_cast<size_t>(period / 2 == 0 ? 1 : period / 2)) % 2 ? -32768 : 32767;
    }
    Errors errors(config.mfcc_count);
    Compare(square, config, errors);
    EXPECT_LT(errors.logmel_max, 0.2) << "period " << period;
    auto fixed = FrontEnd::Create(config);
    for (size_t i = 0; i + 160 <= square.size(); i += 160) {
      (*fixed)->Process(std::span<const int16_t>(square).subspan(i, 160));
      for (int16_t v : (*fixed)->logmel_db_q8()) {
        ASSERT_GE(v, LogScale::kFloorDbQ8);
        ASSERT_LT(v, 20 * 256) << "a full-scale square wave cannot exceed +20 dB in a band";
      }
    }
  }
}

TEST(FrontEndDeterminism, SameInputSameBits) {
  const std::vector<int16_t> x = WhiteNoise(-20, 1.0, 9);
  std::vector<int16_t> first, second;
  for (auto* out : {&first, &second}) {
    auto fixed = FrontEnd::Create(FrontEndConfig{});
    for (size_t i = 0; i + 160 <= x.size(); i += 160) {
      (*fixed)->Process(std::span<const int16_t>(x).subspan(i, 160));
      out->insert(out->end(), (*fixed)->logmel_db_q8().begin(), (*fixed)->logmel_db_q8().end());
    }
  }
  EXPECT_EQ(first, second);
}

TEST(FrontEndGolden, TinyConfiguration) {
  FrontEndConfig c;
  c.fft_size = 256;
  c.window_ms = 10;
  c.mel_bands = 4;
  c.mel_low_hz = 100;
  c.mel_high_hz = 4000;
  c.mfcc_count = 3;
  auto fixed = FrontEnd::Create(c);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  std::vector<int16_t> hop(160);
  std::vector<int16_t> logmel;
  std::vector<int32_t> mfcc;
  for (int frame = 0; frame < 3; ++frame) {
    for (size_t n = 0; n < hop.size(); ++n) {
      hop[n] = static_cast<int16_t>(((n * 7919 + static_cast<size_t>(frame) * 104729) % 20001) - 10000);
    }
    (*fixed)->Process(hop);
    logmel.insert(logmel.end(), (*fixed)->logmel_db_q8().begin(), (*fixed)->logmel_db_q8().end());
    mfcc.insert(mfcc.end(), (*fixed)->mfcc_q8().begin(), (*fixed)->mfcc_q8().end());
  }
  EXPECT_EQ(logmel, (std::vector<int16_t>{-10439, -9762, -8385, -4009, -10437, -9760, -8384, -4010,
                                           -10564, -9846, -8487, -3997}));
  EXPECT_EQ(mfcc, (std::vector<int32_t>{-16297, -4573, 1850, -16295, -4571, 1849, -16447, -4658, 1886}));
}

TEST(FrontEndConfigTest, ValidateExplainsWithUnits) {
  FrontEndConfig c;
  c.window_ms = 40;
  Status s = c.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("40 ms"), std::string::npos) << s.error().message;
  c = FrontEndConfig{};
  c.fft_size = 500;
  EXPECT_FALSE(c.Validate().ok());
  c = FrontEndConfig{};
  c.mel_high_hz = 9000;
  EXPECT_FALSE(c.Validate().ok());
  EXPECT_FALSE(FrontEnd::Create(c).ok());
  c = FrontEndConfig{};
  c.window_ms = 8025000;  // found by text_fuzz: its samples overflowed an int before the check
  EXPECT_FALSE(c.Validate().ok());
  c = FrontEndConfig{};
  c.preemphasis_q15 = 163840;  // -alpha 5
  EXPECT_NE(c.Validate().error().message.find("pre-emphasis"), std::string::npos);
}

}  // namespace
}  // namespace earshot::features
