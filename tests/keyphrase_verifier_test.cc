// The keywords' second stage (models/pocketsphinx/keyphrase_verifier.h) on the bundled three-keyword sample
// (tools/samples/three_keywords.flac: "computer", "snowboy" and "view glass" said by espeak-ng,
// each followed by a request), with Debian's en-us acoustic model.
#include "models/pocketsphinx/keyphrase_verifier.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "tests/read_samples.h"

namespace earshot::stt {
namespace {

const std::string kModel = "/usr/share/pocketsphinx/model/en-us/en-us";
const std::string kDictionary = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict";
constexpr int kRate = 16000;

// The sample's audio from `from` to `to` seconds.
std::span<const int16_t> Cut(const std::vector<int16_t>& samples, double from, double to) {
  return std::span<const int16_t>(samples).subspan(static_cast<size_t>(from * kRate),
                                                   static_cast<size_t>((to - from) * kRate));
}

class KeyphraseVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    samples_ = testing_util::ReadSamples(std::string(EARSHOT_SOURCE_DIR) +
                                         "/tools/samples/three_keywords.flac");
    auto loaded = KeyphraseVerifier::Load(kModel, kDictionary,
                                          {"S N OW B OY", "", "V Y UW G L AE S"});
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
  audio::FrameRing ring(300, 0);
  const int64_t frames = static_cast<int64_t>(samples_.size()) / audio::kFrameSamples;
  const int64_t candidate = 620;  // snowboy's end, 6.2 s
  for (int64_t f = 0; f < std::min(frames, candidate + 100); ++f) {
    audio::Frame frame;
    std::copy_n(samples_.begin() + f * audio::kFrameSamples, audio::kFrameSamples, frame.begin());
    ring.Push(frame, {});
  }
  std::vector<int16_t> scratch;
  const double confidence = verifier_->Confidence(0, candidate, 0.6, ring, scratch);
  const auto window = std::span<const int16_t>(samples_).subspan(
      static_cast<size_t>((candidate - kVerifyFramesBefore) * audio::kFrameSamples),
      static_cast<size_t>((kVerifyFramesBefore + kVerifyFramesAfter + 1) * audio::kFrameSamples));
  EXPECT_EQ(scratch.size(), window.size());
  EXPECT_DOUBLE_EQ(confidence, VerifiedConfidence(0.6, verifier_->Score(0, window)));
  EXPECT_GT(confidence, 0.0);
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

TEST(KeyphraseVerifier, ConfidenceJoinsTheSpotterAndTheScore) {
  EXPECT_DOUBLE_EQ(VerifiedConfidence(0.5, -30.0), 0.8);  // 1 + (-30 + 20 * 0.5) / 100
  EXPECT_DOUBLE_EQ(VerifiedConfidence(1.0, 0.0), 1.0);    // clamped
  EXPECT_DOUBLE_EQ(VerifiedConfidence(0.0, -150.0), 0.0);
  EXPECT_DOUBLE_EQ(VerifiedConfidence(0.9, std::nullopt), 0.0);
}

}  // namespace
}  // namespace earshot::stt
