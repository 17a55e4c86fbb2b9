// The speech embedding's log-mel (EmbeddingFrontEndConfig): the Slaney edges and weights against
// values computed independently (Python, from the scale's definition), a few frames against a
// direct evaluation of the float graph's definition, the fixed-point path against
// ReferenceFrontEnd on real speech (per-band mean and max error printed) and at full scale, the
// pass-through of DcPreEmphasis without DC removal, and the model file's feature kind 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <numbers>
#include <random>
#include <vector>

#include "audio/frame_source.h"
#include "features/dc_preemphasis.h"
#include "features/front_end.h"
#include "features/mel_filterbank.h"
#include "features/reference_front_end.h"
#include "models/model_file.h"

namespace earshot::features {
namespace {

// The first `count` LibriSpeech files of the shared data, sorted.
std::vector<std::filesystem::path> SpeechFiles(size_t count) {
  const std::filesystem::path dir = std::filesystem::path(EARSHOT_DATA_DIR) / "speech";
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".flac") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  files.resize(std::min(files.size(), count));
  return files;
}

// Python (math module), from the Slaney definition: mel = f / (200/3) below 1000 Hz, 15 +
// ln(f / 1000) / (ln(6.4) / 27) above; 34 edges equally spaced in mel over 60-3800 Hz.
TEST(EmbeddingFrontEnd, SlaneyEdgesMatchIndependentValues) {
  const std::vector<double> edges = MelEdgesHz(32, 60, 3800, MelScale::kSlaney);
  ASSERT_EQ(edges.size(), 34u);
  const std::pair<int, double> expected[] = {{0, 60.0},
                                             {1, 127.71251579985729},
                                             {2, 195.42503159971457},
                                             {10, 737.125157998573},
                                             {13, 940.2627053981447},
                                             {14, 1008.2585749193727},
                                             {15, 1081.1821184983219},
                                             {20, 1532.9694674514283},
                                             {33, 3800.0}};
  for (const auto& [i, hz] : expected) EXPECT_NEAR(edges[i], hz, 1e-9) << "edge " << i;
}

// Weights max(0, min((f - l) / (c - l), (r - f) / (r - c))) at f = k * 31.25 Hz and the area
// normalisation 2 / (r - l), from the same Python.
TEST(EmbeddingFrontEnd, SlaneyWeightsAndAreaGainsMatchIndependentValues) {
  const auto bands = MelBands(32, 60, 3800, 512, 16000, MelScale::kSlaney);
  const auto gains = MelBandGains(32, 60, 3800, MelScale::kSlaney, MelNorm::kArea);
  ASSERT_EQ(bands.size(), 32u);
  ASSERT_EQ(gains.size(), 32u);
  struct Expected {
    int band, first_bin;
    std::vector<double> weights;  // the first ones
    double gain;
  };
  const Expected expected[] = {
      {0,
       2,
       {0.03692079625854441, 0.4984307494903495, 0.9599407027221546, 0.5785493440460403},
       0.014768318503417763},
      {5,
       13,
       {0.11353028180840065, 0.5750402350402055, 0.9634498117279897, 0.501939858496184},
       0.014768318503417767},
      {13,
       31,
       {0.4189562513493809, 0.8785429912504554, 0.6847187622508206, 0.2561877492705227},
       0.014192508725382177},
      {31,
       106,
       {0.03270725670910306, 0.16345206281579933, 0.29419686892249564, 0.4249416750291919},
       0.004037813864306329}};
  for (const Expected& e : expected) {
    const MelBand& band = bands[static_cast<size_t>(e.band)];
    EXPECT_EQ(band.first_bin, e.first_bin) << "band " << e.band;
    ASSERT_GE(band.weights.size(), e.weights.size()) << "band " << e.band;
    for (size_t i = 0; i < e.weights.size(); ++i) {
      EXPECT_NEAR(band.weights[i], e.weights[i], 1e-12) << "band " << e.band << " weight " << i;
    }
    EXPECT_NEAR(gains[static_cast<size_t>(e.band)], e.gain, 1e-15) << "band " << e.band;
  }
  for (double g : MelBandGains(32, 60, 3800, MelScale::kSlaney, MelNorm::kPeak)) EXPECT_EQ(g, 1.0);
}

TEST(EmbeddingFrontEnd, NoDcRemovalNoPreEmphasisPassesSamplesThroughInQ8) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-32768, 32767);
  std::vector<int16_t> in(4000);
  for (auto& v : in) v = static_cast<int16_t>(dist(rng));
  in[10] = -32768;
  in[11] = 32767;
  in[12] = -32768;
  DcPreEmphasis stage(32604, 0, /*dc_removal=*/false);
  std::vector<int32_t> out(in.size());
  for (size_t i = 0; i < in.size(); i += 160) {  // streaming, in hops
    stage.Process(std::span(in).subspan(i, 160), std::span(out).subspan(i, 160));
  }
  for (size_t n = 0; n < in.size(); ++n) ASSERT_EQ(out[n], int32_t{in[n]} * 256) << n;
}

// The float graph's definition, evaluated directly (double, a plain DFT) from the brief's formulas:
// the mel weights from the test's own Slaney functions, so only the samples are shared.
std::vector<double> GraphLogMel(std::span<const int16_t> window400) {
  auto hz_to_mel = [](double f) {
    return f < 1000 ? f / (200.0 / 3) : 15 + std::log(f / 1000) / (std::log(6.4) / 27);
  };
  auto mel_to_hz = [](double m) {
    return m < 15 ? m * (200.0 / 3) : 1000 * std::exp((m - 15) * std::log(6.4) / 27);
  };
  std::vector<double> power(257);
  for (int k = 0; k <= 256; ++k) {
    std::complex<double> x = 0;
    for (int n = 0; n < 400; ++n) {
      const double w = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * n / 400);
      x += window400[static_cast<size_t>(n)] * w *
           std::polar(1.0, -2 * std::numbers::pi * k * n / 512);
    }
    power[static_cast<size_t>(k)] = std::norm(x);
  }
  const double mel_low = hz_to_mel(60), mel_high = hz_to_mel(3800);
  std::vector<double> db(32);
  for (int b = 0; b < 32; ++b) {
    const double left = mel_to_hz(mel_low + b * (mel_high - mel_low) / 33);
    const double center = mel_to_hz(mel_low + (b + 1) * (mel_high - mel_low) / 33);
    const double right = mel_to_hz(mel_low + (b + 2) * (mel_high - mel_low) / 33);
    double energy = 0;
    for (int k = 0; k <= 256; ++k) {
      const double f = k * 16000.0 / 512;
      const double w =
          std::max(0.0, std::min((f - left) / (center - left), (right - f) / (right - center)));
      energy += w * 2 / (right - left) * power[static_cast<size_t>(k)];
    }
    db[static_cast<size_t>(b)] = 10 * std::log10(std::max(energy, 1e-10));
  }
  return db;
}

TEST(EmbeddingFrontEnd, FixedPointFollowsTheGraphDefinition) {
  const auto files = SpeechFiles(1);
  if (files.empty()) GTEST_SKIP() << "no shared data at " << EARSHOT_DATA_DIR << "/speech";
  auto samples = audio::ReadFile(files[0].string());
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  auto fixed = FrontEnd::Create(EmbeddingFrontEndConfig());
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  double max_err = 0;
  int compared = 0;
  for (size_t hop = 0; (hop + 1) * 160 <= samples->size() && hop < 400; ++hop) {
    (*fixed)->Process(std::span<const int16_t>(*samples).subspan(hop * 160, 160));
    if (hop < 2 || hop % 50 != 0) continue;  // frame `hop` is the 400 samples ending with it
    const auto window = std::span<const int16_t>(*samples).subspan((hop + 1) * 160 - 400, 400);
    const std::vector<double> expected = GraphLogMel(window);
    for (size_t b = 0; b < 32; ++b) {
      if (expected[b] < 1.0) continue;  // at the fixed 0 dB floor (the graph floors per chunk)
      max_err = std::max(max_err, std::abs((*fixed)->logmel_db_q8()[b] / 256.0 - expected[b]));
      ++compared;
    }
  }
  std::printf("fixed point vs the graph's definition: %d band values, max error %.4f dB\n",
              compared, max_err);
  EXPECT_GT(compared, 100);
  EXPECT_LT(max_err, 0.2);
}

TEST(EmbeddingFrontEnd, FixedPointMatchesReferenceOnRealSpeech) {
  const auto files = SpeechFiles(12);
  if (files.empty()) GTEST_SKIP() << "no shared data at " << EARSHOT_DATA_DIR << "/speech";
  const FrontEndConfig config = EmbeddingFrontEndConfig();
  std::vector<double> max_err(32), sum_err(32), ref_min(32, 1e9), ref_max(32, -1e9);
  std::vector<int64_t> count(32);
  int64_t frames = 0;
  for (const auto& path : files) {
    auto samples = audio::ReadFile(path.string());
    ASSERT_TRUE(samples.ok()) << samples.error().message;
    auto fixed = FrontEnd::Create(config);
    auto reference = ReferenceFrontEnd::Create(config);
    ASSERT_TRUE(fixed.ok() && reference.ok());
    for (size_t start = 0; start + 160 <= samples->size(); start += 160) {
      const auto hop = std::span<const int16_t>(*samples).subspan(start, 160);
      (*fixed)->Process(hop);
      (*reference)->Process(hop);
      ++frames;
      for (size_t b = 0; b < 32; ++b) {
        const double ref = (*reference)->logmel_db()[b];
        const double err = std::abs((*fixed)->logmel_db_q8()[b] / 256.0 - ref);
        max_err[b] = std::max(max_err[b], err);
        sum_err[b] += err;
        ++count[b];
        ref_min[b] = std::min(ref_min[b], ref);
        ref_max[b] = std::max(ref_max[b], ref);
      }
    }
  }
  std::printf("speech (speech/, %zu files, %lld frames): log-mel error per band, dB\n",
              files.size(), static_cast<long long>(frames));
  double worst = 0, mean_all = 0;
  for (size_t b = 0; b < 32; ++b) {
    const double mean = sum_err[b] / static_cast<double>(std::max<int64_t>(1, count[b]));
    std::printf("  band %2zu: mean %.4f  max %.4f  (reference %.1f to %.1f dB)\n", b, mean,
                max_err[b], ref_min[b], ref_max[b]);
    worst = std::max(worst, max_err[b]);
    mean_all += mean / 32;
    EXPECT_LT(max_err[b], 0.2) << "band " << b;
  }
  std::printf("  all bands: mean %.4f  max %.4f\n", mean_all, worst);
}

// The loudest band a full-scale input can give: a sine's 20 log10(32768 * 200 / 2) = 130.3 dB under
// the narrowest band's area gain (-18.3 dB), ~113 dB (a square wave's harmonics add a little):
// inside int16's 128 dB in Q8.
TEST(EmbeddingFrontEnd, FullScaleInputStaysInsideQ8AndMatchesReference) {
  const FrontEndConfig config = EmbeddingFrontEndConfig();
  std::vector<int16_t> sine(8000), square(8000);
  for (size_t n = 0; n < sine.size(); ++n) {
    sine[n] = static_cast<int16_t>(std::lround(
        32767 * std::sin(2 * std::numbers::pi * 1000 * static_cast<double>(n) / 16000)));
    square[n] = (n / 20) % 2 ? -32768 : 32767;  // 400 Hz
  }
  for (const auto* signal : {&sine, &square}) {
    auto fixed = FrontEnd::Create(config);
    auto reference = ReferenceFrontEnd::Create(config);
    ASSERT_TRUE(fixed.ok() && reference.ok());
    int16_t loudest = 0;
    double max_err = 0;
    for (size_t start = 0; start + 160 <= signal->size(); start += 160) {
      const auto hop = std::span<const int16_t>(*signal).subspan(start, 160);
      (*fixed)->Process(hop);
      (*reference)->Process(hop);
      const auto ref = (*reference)->logmel_db();
      const float ref_loudest = *std::max_element(ref.begin(), ref.end());
      for (size_t b = 0; b < 32; ++b) {
        const int16_t v = (*fixed)->logmel_db_q8()[b];
        loudest = std::max(loudest, v);
        // Bands over 60 dB below a pure tone meet the Q15 window's quantisation floor (as in
        // features_accuracy_test); speech never spans that much in a frame (RealSpeech above).
        if (ref[b] < ref_loudest - 60) continue;
        max_err = std::max(max_err, std::abs(v / 256.0 - ref[b]));
      }
    }
    EXPECT_GT(loudest, 100 * 256);
    EXPECT_LT(loudest, 120 * 256);
    EXPECT_LT(max_err, 0.2) << (signal == &sine ? "sine" : "square");
    std::printf("full-scale %s: loudest band %.2f dB, max error %.4f dB (bands within 60 dB)\n",
                signal == &sine ? "sine 1 kHz" : "square 400 Hz", loudest / 256.0, max_err);
  }
}

TEST(EmbeddingFrontEnd, PresetIsValidAndDigitalSilenceGivesTheFloor) {
  const FrontEndConfig c = EmbeddingFrontEndConfig();
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().error().message;
  EXPECT_EQ(c.window_samples(), 400);
  auto fixed = FrontEnd::Create(c);
  std::vector<int16_t> zeros(160, 0);
  for (int i = 0; i < 5; ++i) (*fixed)->Process(zeros);
  for (int16_t v : (*fixed)->logmel_db_q8()) EXPECT_EQ(v, 0);
  FrontEndConfig bad = c;
  bad.log_floor_db = -110;
  EXPECT_NE(bad.Validate().error().message.find("[-100, 60] dB re int16 power"), std::string::npos);
  bad.log_floor_db = 20;  // fine for the absolute reference, not re full scale
  EXPECT_TRUE(bad.Validate().ok());
  bad.log_reference = LogReference::kFullScale;
  EXPECT_FALSE(bad.Validate().ok());
}

models::FeatureSpec EmbeddingSpec() {
  const FrontEndConfig c = EmbeddingFrontEndConfig();
  models::FeatureSpec spec;
  spec.sample_rate = c.sample_rate_hz;
  spec.window_ms = c.window_ms;
  spec.hop_ms = c.hop_ms;
  spec.fft_size = c.fft_size;
  spec.mel_bands = c.mel_bands;
  spec.mel_low_hz = c.mel_low_hz;
  spec.mel_high_hz = c.mel_high_hz;
  spec.kind = static_cast<int32_t>(models::FeatureKind::kEmbeddingMel);
  return spec;
}

std::string CheckMessage(const models::FeatureSpec& spec, const FrontEndConfig& fe) {
  Status s = spec.Check(fe);
  return s.ok() ? "ok" : s.error().message;
}

TEST(EmbeddingFrontEnd, FeatureSpecKind2NeedsThePreset) {
  const models::FeatureSpec spec = EmbeddingSpec();
  EXPECT_EQ(CheckMessage(spec, EmbeddingFrontEndConfig()), "ok");
  EXPECT_NE(CheckMessage(spec, FrontEndConfig{}).find("mel_bands = 32"), std::string::npos)
      << CheckMessage(spec, FrontEndConfig{});
  // The preset's numbers with each other setting of the main front end.
  const std::pair<const char*, void (*)(FrontEndConfig&)> changes[] = {
      {"mel_scale", [](FrontEndConfig& c) { c.mel_scale = MelScale::kHtk; }},
      {"mel_norm", [](FrontEndConfig& c) { c.mel_norm = MelNorm::kPeak; }},
      {"log_reference", [](FrontEndConfig& c) { c.log_reference = LogReference::kFullScale; }},
      {"dc_removal", [](FrontEndConfig& c) { c.dc_removal = true; }},
      {"preemphasis", [](FrontEndConfig& c) { c.preemphasis_q15 = 31785; }},
      {"log_floor_db", [](FrontEndConfig& c) { c.log_floor_db = -10; }}};
  for (const auto& [field, change] : changes) {
    FrontEndConfig fe = EmbeddingFrontEndConfig();
    change(fe);
    const std::string message = CheckMessage(spec, fe);
    EXPECT_NE(message.find("speech embedding's log-mel"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("differs in ") + field), std::string::npos) << message;
  }
  // A kind-2 file whose numbers are not the preset's is wrong whatever the front end.
  models::FeatureSpec wrong = spec;
  wrong.mel_bands = 40;
  FrontEndConfig matching = EmbeddingFrontEndConfig();
  matching.mel_bands = 40;
  EXPECT_NE(CheckMessage(wrong, matching).find("feature kind 2"), std::string::npos)
      << CheckMessage(wrong, matching);
  // Kind 0 with the embedding's numbers: the main front end's mel, not the embedding's.
  models::FeatureSpec logmel = spec;
  logmel.kind = static_cast<int32_t>(models::FeatureKind::kLogMel);
  EXPECT_NE(CheckMessage(logmel, EmbeddingFrontEndConfig()).find("differs in mel_scale"),
            std::string::npos);
}

}  // namespace
}  // namespace earshot::features
