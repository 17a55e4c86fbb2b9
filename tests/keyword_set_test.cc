// Several keywords at once (models/kws/keyword_set.h): models of one trunk are grouped and their
// scores, over a real recording, are each model's alone bit for bit; a model that shares nothing
// runs alone. And the model file's phrase and default threshold.
#include "models/kws/keyword_set.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "tests/model_writer.h"
#include "tests/trunk_models.h"

namespace earshot::kws {
namespace {

using testing_util::Int32;
using testing_util::Tensor;
using testing_util::TrunkModelTensors;

const std::string kSource = EARSHOT_SOURCE_DIR;
const std::string kComputer = kSource + "/models/kws/computer.eshm";

std::shared_ptr<const KwsModel> Load(const std::string& path) {
  auto model = KwsModel::Load(path, features::FrontEndConfig{});
  EXPECT_TRUE(model.ok()) << model.error().message;
  return model.ok() ? *model : nullptr;
}

// A trunk model written to the test's scratch file `file`, with `extra` tensors.
std::shared_ptr<const KwsModel> TrunkModel(uint32_t trunk_seed, uint32_t head_seed,
                                           const std::string& file,
                                           const std::vector<Tensor>& extra = {}) {
  std::vector<Tensor> tensors = TrunkModelTensors(trunk_seed, head_seed);
  tensors.insert(tensors.end(), extra.begin(), extra.end());
  return Load(testing_util::WriteModel("kws-mlp", tensors, file));
}

// The front end's log-mel of the bundled recording, one frame per hop.
std::vector<std::vector<int16_t>> SampleLogMel() {
  auto front_end = features::FrontEnd::Create(features::FrontEndConfig{});
  auto source = audio::FileSource::Open(kSource + "/tools/samples/computer_request.flac", {});
  EXPECT_TRUE(front_end.ok() && source.ok());
  std::vector<std::vector<int16_t>> frames;
  audio::Frame frame;
  while (*(*source)->Next(frame)) {
    (*front_end)->Process(frame);
    const auto logmel = (*front_end)->logmel_db_q8();
    frames.emplace_back(logmel.begin(), logmel.end());
  }
  return frames;
}

Keyword Named(const std::string& name, std::shared_ptr<const KwsModel> model) {
  return Keyword{name, std::move(model), name + ".eshm"};
}

TEST(SharesTrunk, OnlyModelsOfTheSameTrunkBytes) {
  auto a = TrunkModel(1, 10, "a.eshm"), b = TrunkModel(1, 11, "b.eshm");
  auto other = TrunkModel(2, 10, "other.eshm");
  auto computer = Load(kComputer);
  ASSERT_TRUE(a && b && other && computer);
  EXPECT_EQ(a->trunk_layers(), 3);
  EXPECT_EQ(computer->trunk_layers(), 2);
  EXPECT_TRUE(SharesTrunk(*a, *b));
  EXPECT_TRUE(SharesTrunk(*a, *a));
  EXPECT_FALSE(SharesTrunk(*a, *other));  // the same shapes, other weights
  EXPECT_FALSE(SharesTrunk(*a, *computer));
  // One requantisation shift of the last trunk layer's last channel differs: no longer shared.
  std::vector<Tensor> tensors = TrunkModelTensors(1, 12);
  for (Tensor& t : tensors) {
    if (t.name == "l2.shift") t.data[t.data.size() - 4] += 1;
  }
  auto shifted = Load(testing_util::WriteModel("kws-mlp", tensors, "shifted.eshm"));
  ASSERT_TRUE(shifted);
  EXPECT_FALSE(SharesTrunk(*a, *shifted));
}

TEST(KeywordSet, GroupsByTrunkAndRefusesARepeatedName) {
  auto a = TrunkModel(1, 10, "a.eshm"), b = TrunkModel(1, 11, "b.eshm");
  auto c = TrunkModel(1, 12, "c.eshm"), computer = Load(kComputer);
  auto set = KeywordSet::Create(
      {Named("a", a), Named("computer", computer), Named("b", b), Named("c", c)});
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ((*set)->groups(), (std::vector<std::vector<size_t>>{{0, 2, 3}, {1}}));
  EXPECT_EQ((*set)->Find("b"), 2u);
  EXPECT_EQ((*set)->Find("d"), std::nullopt);
  auto twice = KeywordSet::Create({Named("a", a), Named("computer", computer), Named("a", b)});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "keywords 1 and 3 are both named 'a' (a.eshm, a.eshm)");
  EXPECT_FALSE(KeywordSet::Create({}).ok());
}

// The group's scores against each model in a session of its own, on every hop of the recording,
// with and without smoothing.
TEST(KeywordSetSession, ScoresAreEachModelAloneBitForBit) {
  std::vector<std::shared_ptr<const KwsModel>> models = {
      TrunkModel(1, 10, "a.eshm"), Load(kComputer), TrunkModel(1, 11, "b.eshm"),
      TrunkModel(1, 12, "c.eshm"), TrunkModel(2, 13, "d.eshm")};
  std::vector<Keyword> keywords;
  for (size_t k = 0; k < models.size(); ++k) {
    ASSERT_NE(models[k], nullptr);
    keywords.push_back(Named(std::string(1, static_cast<char>('a' + k)), models[k]));
  }
  auto set = KeywordSet::Create(keywords);
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ((*set)->groups().size(), 3u);  // {a, c, d}'s trunk, the computer's, e's
  const std::vector<std::vector<int16_t>> frames = SampleLogMel();
  ASSERT_GT(frames.size(), 400u);
  for (const int smooth : {1, 5}) {
    SCOPED_TRACE("smooth_frames " + std::to_string(smooth));
    KwsConfig config;
    config.smooth_frames = smooth;
    KeywordSetSession shared(*set, config);
    std::vector<KwsSession> alone;
    for (const auto& model : models) alone.emplace_back(model, config);
    std::vector<std::set<uint16_t>> seen(models.size());
    for (int pass = 0; pass < 2; ++pass) {  // and again after Reset()
      for (size_t h = 0; h < frames.size(); ++h) {
        shared.Process(frames[h]);
        for (size_t k = 0; k < models.size(); ++k) {
          ASSERT_EQ(shared.scores()[k], alone[k].Process(frames[h]))
              << "keyword " << k << ", hop " << h << ", pass " << pass;
          seen[k].insert(shared.scores()[k]);
        }
      }
      shared.Reset();
      for (KwsSession& session : alone) session.Reset();
    }
    for (size_t k = 0; k < models.size(); ++k) {
      EXPECT_GT(seen[k].size(), 50u) << "keyword " << k << "'s scores hardly vary: a weak test";
    }
  }
}

TEST(KwsModel, ReadsThePhraseAndTheDefaultThreshold) {
  const std::vector<int32_t> phrase = {'h', 'e', 'y', ' ', 0x00E9, 'c', 'o', 0x4E16};
  auto model = TrunkModel(1, 10, "phrase.eshm",
                          {Int32("kws_phrase", phrase), Int32("kws_default_threshold", {20000})});
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->phrase(),
            "hey \xC3\xA9"
            "co\xE4\xB8\x96");
  EXPECT_EQ(model->default_threshold_q15(), 20000);
  auto plain = TrunkModel(1, 10, "plain.eshm");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->phrase(), "");
  EXPECT_EQ(plain->default_threshold_q15(), 26214);  // 0.8
}

TEST(KwsModel, RefusesABadPhraseOrThreshold) {
  std::vector<int32_t> long_phrase(65, 'a');
  const std::vector<std::pair<Tensor, std::string>> cases = {
      {Int32("kws_phrase", {'a', '\t', 'b'}),
       "kws_phrase is no phrase: a control character (U+0009)"},
      {Int32("kws_phrase", {' ', 'a'}), "a space first or last"},
      {Int32("kws_phrase", {'a', 0xD800}), "is no Unicode scalar value"},
      {Int32("kws_phrase", {'a', 0xFFFF}), "a noncharacter (U+FFFF)"},
      {Int32("kws_phrase", long_phrase), "65 characters, more than 64"},
      {Int32("kws_phrase", {}), "kws_phrase"},
      {Int32("kws_default_threshold", {0}), "kws_default_threshold = 0: expected"},
      {Int32("kws_default_threshold", {32768}), "in [1, 32767]"},
      {Int32("kws_default_threshold", {100, 200}), "kws_default_threshold"},
  };
  for (const auto& [tensor, cause] : cases) {
    std::vector<Tensor> tensors = TrunkModelTensors(1, 10);
    tensors.push_back(tensor);
    const std::string path = testing_util::WriteModel("kws-mlp", tensors, "bad.eshm");
    auto model = KwsModel::Load(path, features::FrontEndConfig{});
    ASSERT_FALSE(model.ok()) << cause;
    EXPECT_NE(model.error().message.find(path + ": "), std::string::npos) << model.error().message;
    EXPECT_NE(model.error().message.find(cause), std::string::npos) << model.error().message;
  }
}

std::vector<int32_t> Chars(const std::string& text) { return {text.begin(), text.end()}; }

TEST(KwsModel, ReadsItsSecondStage) {
  auto model = TrunkModel(1, 10, "verify.eshm",
                          {Int32("kws_verify", {13107, 23920}),
                           Int32("kws_verify_phones", Chars("S N OW B OY"))});
  ASSERT_NE(model, nullptr);
  ASSERT_TRUE(model->verify().has_value());
  EXPECT_EQ(model->verify()->phones, "S N OW B OY");
  EXPECT_EQ(model->verify()->candidate_threshold_q15, 13107);
  EXPECT_EQ(model->verify()->default_threshold_q15, 23920);
  EXPECT_EQ(model->verify()->narrowband_penalty_q15, 0);  // absent: none
  EXPECT_FALSE(model->verify()->run_weight_milli);        // absent: the verifier's, no offset
  EXPECT_EQ(model->verify()->run_offset_milli, 0);
  auto narrowband = TrunkModel(
      1, 10, "narrowband.eshm",
      {Int32("kws_verify", {13107, 23920}), Int32("kws_verify_phones", Chars("S N OW B OY")),
       Int32("kws_verify_narrowband", {1475}), Int32("kws_verify_run", {1100, -16947})});
  ASSERT_NE(narrowband, nullptr);
  EXPECT_EQ(narrowband->verify()->narrowband_penalty_q15, 1475);
  EXPECT_EQ(narrowband->verify()->run_weight_milli, 1100);
  EXPECT_EQ(narrowband->verify()->run_offset_milli, -16947);
  auto plain = TrunkModel(1, 10, "plain.eshm");
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(plain->verify().has_value());
}

TEST(KwsModel, RefusesABadSecondStage) {
  const Tensor phones = Int32("kws_verify_phones", Chars("K AH M"));
  const Tensor verify = Int32("kws_verify", {13107, 23920});
  const std::vector<std::pair<std::vector<Tensor>, std::string>> cases = {
      {{verify}, "kws_verify without kws_verify_phones"},
      {{phones}, "kws_verify_phones without kws_verify"},
      {{Int32("kws_verify", {0, 23920}), phones}, "kws_verify = 0: expected"},
      {{Int32("kws_verify", {13107, 32768}), phones}, "in [1, 32767]"},
      {{Int32("kws_verify", {13107}), phones}, "kws_verify"},
      {{verify, Int32("kws_verify_phones", Chars("K ah"))}, "upper-case letters"},
      {{verify, Int32("kws_verify_phones", Chars("K  AH"))}, "between single spaces"},
      {{verify, Int32("kws_verify_phones", Chars(" K"))}, "between single spaces"},
      {{verify, Int32("kws_verify_phones", {})}, "between single spaces"},
      {{Int32("kws_verify_narrowband", {100})}, "kws_verify_narrowband without kws_verify"},
      {{verify, phones, Int32("kws_verify_narrowband", {-1})}, "kws_verify_narrowband = -1"},
      {{verify, phones, Int32("kws_verify_narrowband", {16385})}, "in [0, 16384]"},
      {{verify, phones, Int32("kws_verify_narrowband", {1, 2})}, "kws_verify_narrowband"},
      {{Int32("kws_verify_run", {400, 0})}, "kws_verify_run without kws_verify"},
      {{verify, phones, Int32("kws_verify_run", {-1, 0})}, "kws_verify_run = {-1, 0}: expected"},
      {{verify, phones, Int32("kws_verify_run", {5001, 0})}, "a weight in [0, 5000]"},
      {{verify, phones, Int32("kws_verify_run", {400, 100001})}, "an offset in [-100000, 100000]"},
      {{verify, phones, Int32("kws_verify_run", {400})}, "kws_verify_run"},
  };
  for (const auto& [extra, cause] : cases) {
    std::vector<Tensor> tensors = TrunkModelTensors(1, 10);
    tensors.insert(tensors.end(), extra.begin(), extra.end());
    const std::string path = testing_util::WriteModel("kws-mlp", tensors, "bad_verify.eshm");
    auto model = KwsModel::Load(path, features::FrontEndConfig{});
    ASSERT_FALSE(model.ok()) << cause;
    EXPECT_NE(model.error().message.find(path + ": "), std::string::npos) << model.error().message;
    EXPECT_NE(model.error().message.find(cause), std::string::npos) << model.error().message;
  }
}

}  // namespace
}  // namespace earshot::kws
