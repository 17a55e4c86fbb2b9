// The keywords' second stage (models/pocketsphinx/keyphrase_verifier.h) on the bundled
// three-keyword sample (tools/samples/three_keywords.flac: "computer", "snowboy" and "view glass"
// said by espeak-ng, each followed by a request), with Debian's en-us acoustic model.
#include "models/pocketsphinx/keyphrase_verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "models/stt/stt.h"
#include "tests/read_samples.h"

namespace earshot::pocketsphinx {
namespace {

const std::string kModel = stt::SttConfig{}.acoustic_model;  // Debian's en-us
const std::string kDictionary = stt::SttConfig{}.dictionary;
constexpr int kRate = 16000;

// The sample's audio from `from` to `to` seconds.
std::span<const int16_t> Cut(const std::vector<int16_t>& samples, double from, double to) {
  return std::span<const int16_t>(samples).subspan(static_cast<size_t>(from * kRate),
                                                   static_cast<size_t>((to - from) * kRate));
}

// A ring of 300 frames, as the pipeline holds them, fed `samples` up to frame `end` (or their end).
audio::FrameRing RingUpTo(const std::vector<int16_t>& samples, int64_t end) {
  audio::FrameRing ring(300, 0);
  const int64_t frames = static_cast<int64_t>(samples.size()) / audio::kFrameSamples;
  for (int64_t f = 0; f < std::min(frames, end); ++f) {
    audio::Frame frame;
    std::copy_n(samples.begin() + f * audio::kFrameSamples, audio::kFrameSamples, frame.begin());
    ring.Push(frame, {});
  }
  return ring;
}

class KeyphraseVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    samples_ = testing_util::ReadSamples(std::string(EARSHOT_SOURCE_DIR) +
                                         "/tools/samples/three_keywords.flac");
    auto loaded =
        KeyphraseVerifier::Load(kModel, kDictionary, {"S N OW B OY", "", "V Y UW G L AE S"});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    verifier_ = std::move(loaded).value();
  }
  std::vector<int16_t> samples_;
  std::shared_ptr<const KeyphraseVerifier> verifier_;
};

// Each phrase scores higher where it is said (the golden's wakes: computer ends by 1.0 s,
// snowboy by 6.2 s, view glass by 10.4 s) than where another phrase is.
TEST_F(KeyphraseVerifierTest, ScoresAPhraseHigherWhereItIsSaid) {
  const auto computer = Cut(samples_, 0.0, 1.4);
  const auto snowboy = Cut(samples_, 4.8, 6.6);
  const auto view_glass = Cut(samples_, 8.9, 10.7);
  const std::optional<double> snowboy_there = verifier_->Score(0, snowboy);
  const std::optional<double> view_glass_there = verifier_->Score(2, view_glass);
  ASSERT_TRUE(snowboy_there && view_glass_there);
  EXPECT_LE(*snowboy_there, 0.0);
  for (const auto& other : {computer, view_glass}) {
    const std::optional<double> score = verifier_->Score(0, other);
    EXPECT_TRUE(!score || *score < *snowboy_there) << *score << " vs " << *snowboy_there;
  }
  for (const auto& other : {computer, snowboy}) {
    const std::optional<double> score = verifier_->Score(2, other);
    EXPECT_TRUE(!score || *score < *view_glass_there) << *score << " vs " << *view_glass_there;
  }
}

TEST_F(KeyphraseVerifierTest, ChecksOnlyTheKeywordsWithPhones) {
  EXPECT_EQ(verifier_->acoustic_model(), kModel);  // the files a reload compares
  EXPECT_EQ(verifier_->dictionary(), kDictionary);
  EXPECT_TRUE(verifier_->checks(0));
  EXPECT_FALSE(verifier_->checks(1));
  EXPECT_FALSE(verifier_->checks(3));
  EXPECT_FALSE(verifier_->Score(1, Cut(samples_, 0.0, 1.4)).has_value());
  EXPECT_FALSE(verifier_->Score(0, {}).has_value());
}

// Confidence reads the candidate's audio from a ring of frames, as the pipeline holds it.
TEST_F(KeyphraseVerifierTest, ConfidenceIsTheScoreOfTheRingsFramesAroundTheCandidate) {
  const int64_t candidate = 620;  // snowboy's end, 6.2 s
  const audio::FrameRing ring = RingUpTo(samples_, candidate + 100);
  std::vector<int16_t> scratch;
  const double confidence = verifier_->Confidence(0, candidate, 30, ring, scratch);
  const auto window = std::span<const int16_t>(samples_).subspan(
      static_cast<size_t>((candidate - kVerifyFramesBefore) * audio::kFrameSamples),
      static_cast<size_t>((kVerifyFramesBefore + kVerifyFramesAfter + 1) * audio::kFrameSamples));
  EXPECT_EQ(scratch.size(), window.size());
  // Each verifier's first window (the noise estimate carries from one window to the next).
  auto fresh = KeyphraseVerifier::Load(kModel, kDictionary, {"S N OW B OY"});
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_DOUBLE_EQ(confidence, VerifiedConfidence(30, (*fresh)->Score(0, window)));
  EXPECT_GT(confidence, 0.0);
  // The keyword's own terms (kws_verify_run) weigh the same score and run.
  const ConfidenceTerms terms{.run_weight = 1.0, .run_offset = 12.0};
  auto weighed = KeyphraseVerifier::Load(kModel, kDictionary, {"S N OW B OY"}, {terms});
  ASSERT_TRUE(weighed.ok()) << weighed.error().message;
  const Verdict verdict = (*weighed)->Check(0, candidate, 30, ring, scratch);
  ASSERT_TRUE(verdict.score.has_value());
  EXPECT_DOUBLE_EQ(*verdict.score, *(*fresh)->Score(0, window));
  EXPECT_FALSE(verdict.narrowband);
  EXPECT_DOUBLE_EQ(verdict.confidence, VerifiedConfidence(30, verdict.score, terms));
  EXPECT_NE(verdict.confidence, confidence);
}

// A window with an empty high band (the sample in the telephone band) loses the keyword's
// narrowband penalty from its confidence; a full-band window loses nothing. Each verifier scores
// the window first (the noise estimate carries from window to window).
TEST_F(KeyphraseVerifierTest, ANarrowbandWindowLosesItsKeywordsPenalty) {
  std::vector<int16_t> low;
  TelephoneBand(samples_, low);
  const int64_t candidate = 1040;  // view glass's end, 10.4 s
  auto confidence = [candidate](const std::vector<int16_t>& samples, double penalty) {
    auto verifier = KeyphraseVerifier::Load(kModel, kDictionary, {"V Y UW G L AE S"},
                                            {ConfidenceTerms{.narrowband_penalty = penalty}});
    EXPECT_TRUE(verifier.ok()) << verifier.error().message;
    std::vector<int16_t> scratch;
    return (*verifier)->Confidence(0, candidate, 50, RingUpTo(samples, candidate + 100), scratch);
  };
  auto window = [candidate](const std::vector<int16_t>& samples) {
    return std::span<const int16_t>(samples).subspan(
        static_cast<size_t>((candidate - kVerifyFramesBefore) * audio::kFrameSamples),
        static_cast<size_t>((kVerifyFramesBefore + kVerifyFramesAfter + 1) * audio::kFrameSamples));
  };
  ASSERT_TRUE(HighBandIsEmpty(window(low)));
  ASSERT_FALSE(HighBandIsEmpty(window(samples_)));
  const double narrow = confidence(low, 0.0);
  ASSERT_GT(narrow, 0.1) << narrow;
  EXPECT_NEAR(confidence(low, 0.1), narrow - 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(confidence(low, 1.0), 0.0);  // never under 0
  const double full = confidence(samples_, 0.0);
  ASSERT_GT(full, 0.0);
  EXPECT_DOUBLE_EQ(confidence(samples_, 0.1), full);
}

// Clatter above the telephone band (bursts that pocketsphinx's noise estimate cannot follow)
// drowns the upper band of a full-band window; the window's telephone band keeps the phrase, and
// its score is the better one. The sample's snowboy with bursts of white noise high-passed at
// 4 kHz, 30 ms of every 100, as loud as the speech (a fixed seed): it scores near the clean window
// (-47.5 against -36.0 here), where the window as it is scores far lower (-110.4).
TEST_F(KeyphraseVerifierTest, ClatterAboveTheTelephoneBandDoesNotTakeThePhraseAway) {
  const auto clean = Cut(samples_, 4.8, 6.6);
  double power = 0;
  for (const int16_t x : clean) power += static_cast<double>(x) * x;
  const double rms = std::sqrt(power / static_cast<double>(clean.size()));
  std::vector<int16_t> noise(clean.size(), 0);
  AddHighBandFloor(noise);  // white noise high-passed at 4 kHz, RMS about 7
  std::vector<int16_t> noisy(clean.begin(), clean.end());
  for (size_t i = 0; i < noisy.size(); ++i) {
    const bool burst = (i / audio::kFrameSamples) % 10 < 3;
    noisy[i] = static_cast<int16_t>(
        std::clamp(std::lround(noisy[i] + (burst ? rms / 7.0 * noise[i] : 0.0)), -32768L, 32767L));
  }
  ASSERT_FALSE(HighBandIsEmpty(noisy));
  const std::optional<double> clean_score = verifier_->Score(0, clean);
  const std::optional<double> noisy_score = verifier_->Score(0, noisy);
  ASSERT_TRUE(clean_score && noisy_score);
  EXPECT_GT(*noisy_score, *clean_score - 20.0) << *noisy_score << " vs " << *clean_score;
}

// The telephone band passes speech's band below 3.4 kHz and stops the band above 3.65 kHz:
// 1 kHz and 3 kHz tones keep their level, 4 kHz and 6 kHz ones lose 50 dB and more.
TEST(KeyphraseVerifier, TelephoneBandStopsAbove3400Hz) {
  auto rms_after = [](double hz) {
    std::vector<int16_t> tone(kRate);
    for (size_t i = 0; i < tone.size(); ++i) {
      tone[i] = static_cast<int16_t>(
          std::lround(8000 * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / kRate)));
    }
    std::vector<int16_t> low;
    TelephoneBand(tone, low);
    EXPECT_EQ(low.size(), tone.size());
    double square = 0;
    for (size_t i = kRate / 4; i < 3 * kRate / 4; ++i) {  // the middle half: no edges
      square += static_cast<double>(low[i]) * low[i];
    }
    return std::sqrt(square / (kRate / 2));
  };
  const double level = 8000 / std::sqrt(2.0);
  EXPECT_NEAR(rms_after(1000), level, 0.01 * level);
  EXPECT_NEAR(rms_after(3000), level, 0.02 * level);
  EXPECT_LT(rms_after(4000), level / 316);  // -50 dB
  EXPECT_LT(rms_after(6000), level / 316);
}

// The floor is quiet, above 4 kHz alone, and the same on every call.
TEST(KeyphraseVerifier, HighBandFloorIsQuietHighAndTheSameEachTime) {
  constexpr size_t kCount = 16000;
  std::vector<int16_t> floor(kCount, 0);
  AddHighBandFloor(floor);
  std::vector<int16_t> again(kCount, 0);
  AddHighBandFloor(again);
  EXPECT_EQ(floor, again);
  // Power in a band: the mean square of the floor mixed down by a tone at `hz`, then averaged
  // over 10 ms (a 100 Hz wide look at `hz`).
  auto band_power = [&floor](double hz) {
    double sum = 0;
    constexpr size_t kSpan = 160;
    for (size_t start = 0; start + kSpan <= kCount; start += kSpan) {
      double re = 0, im = 0;
      for (size_t i = start; i < start + kSpan; ++i) {
        const double phase = 2 * std::numbers::pi * hz * static_cast<double>(i) / kRate;
        re += floor[i] * std::cos(phase);
        im += floor[i] * std::sin(phase);
      }
      sum += re * re + im * im;
    }
    return sum;
  };
  EXPECT_GT(band_power(6000), 100 * band_power(1000));  // 20 dB and more
  EXPECT_GT(band_power(6000), 100 * band_power(2500));
  double square = 0;
  for (const int16_t x : floor) square += static_cast<double>(x) * x;
  const double rms = std::sqrt(square / kCount);
  EXPECT_GT(rms, 0.5 * kHighBandFloorRms);  // half the white noise's power is above 4 kHz
  EXPECT_LT(rms, kHighBandFloorRms);
}

// A tone at 1 kHz leaves the band above 4 kHz empty; a tone at 6 kHz 30 dB under it fills it, as
// the floor does under a quiet one (the floor is 20 dB under a tone of RMS 71). Silence has no
// band.
TEST(KeyphraseVerifier, HighBandIsEmptyUnderFortyDecibels) {
  auto tone = [](double hz, double amplitude, std::vector<double>& out) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] += amplitude * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / kRate);
    }
  };
  std::vector<double> loud(kRate, 0.0), quiet(kRate, 0.0), both(kRate, 0.0);
  tone(1000, 8000, loud);
  tone(1000, 100, quiet);
  tone(1000, 8000, both);
  tone(6000, 8000 / 31.6, both);  // -30 dB
  auto samples = [](const std::vector<double>& x) {
    std::vector<int16_t> out;
    for (const double v : x) out.push_back(static_cast<int16_t>(std::lround(v)));
    return out;
  };
  EXPECT_TRUE(HighBandIsEmpty(samples(loud)));
  std::vector<int16_t> floored = samples(quiet);
  EXPECT_TRUE(HighBandIsEmpty(floored));
  AddHighBandFloor(floored);
  EXPECT_FALSE(HighBandIsEmpty(floored));
  EXPECT_FALSE(HighBandIsEmpty(samples(both)));
  EXPECT_FALSE(HighBandIsEmpty(std::vector<int16_t>(kRate, 0)));
}

TEST(KeyphraseVerifier, RefusesPhonesTheModelDoesNotHave) {
  auto loaded = KeyphraseVerifier::Load(kModel, kDictionary, {"", "S N QQ B OY"});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("keyword 2: phones 'S N QQ B OY'"), std::string::npos)
      << loaded.error().message;
}

TEST(KeyphraseVerifier, RefusesAMissingModel) {
  auto loaded = KeyphraseVerifier::Load("/nonexistent/en-us", kDictionary, {"K AH M"});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("/nonexistent/en-us"), std::string::npos)
      << loaded.error().message;
}

TEST(KeyphraseVerifier, ConfidenceJoinsTheSpottersRunAndTheScore) {
  EXPECT_DOUBLE_EQ(VerifiedConfidence(25, -30.0), 0.8);  // 1 + (-30 + 0.4 * 25) / 100
  EXPECT_DOUBLE_EQ(VerifiedConfidence(50, 0.0), 1.0);    // clamped
  EXPECT_DOUBLE_EQ(VerifiedConfidence(0, -150.0), 0.0);
  EXPECT_DOUBLE_EQ(VerifiedConfidence(40, std::nullopt), 0.0);
  // A model's own weight and offset (kws_verify_run): 1 + (-30 + 1.1 * 25 - 17.5) / 100.
  const ConfidenceTerms terms{.run_weight = 1.1, .run_offset = 17.5};
  EXPECT_DOUBLE_EQ(VerifiedConfidence(25, -30.0, terms), 0.8);
  EXPECT_DOUBLE_EQ(VerifiedConfidence(0, -30.0, terms), 1 - 0.475);
  EXPECT_DOUBLE_EQ(VerifiedConfidence(40, std::nullopt, terms), 0.0);
}

}  // namespace
}  // namespace earshot::pocketsphinx
