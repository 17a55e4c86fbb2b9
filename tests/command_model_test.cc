// The command classifier: its window, its pooled embeddings, its loader's checks, the fusion
// rule, and the bundled model against the training script's own log-probabilities.
#include "models/commands/command_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "models/commands/command_fusion.h"
#include "models/commands/command_sequence.h"
#include "features/front_end.h"
#include "tests/from_env.h"
#include "tests/model_writer.h"
#include "tests/read_samples.h"

namespace earshot::commands {
namespace {

using testing_util::FromEnv;
using testing_util::Int32;
using testing_util::Int8;
using testing_util::Make;
using testing_util::ReadSamples;
using testing_util::Tensor;
using testing_util::WriteModel;

const std::string kSource = EARSHOT_SOURCE_DIR;

TEST(CommandWindow, AShortCommandStaysWhereItIs) {
  std::vector<int16_t> x(800, 0);
  for (size_t i = 300; i < 500; ++i) x[i] = 1000;
  const std::vector<int16_t> w = CommandWindow(x, 1600);
  ASSERT_EQ(w.size(), 1600u);
  for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(w[i], i < x.size() ? x[i] : 0) << i;
}

TEST(CommandWindow, ALongRequestIsCutAroundItsVoice) {
  // 3000 samples: a quiet hum (over 40 dB down: not voice) and loud voice in hops 10 .. 13.
  std::vector<int16_t> x(3000, 5);
  for (size_t i = 1600; i < 2240; ++i) x[i] = static_cast<int16_t>(i);
  const std::vector<int16_t> w = CommandWindow(x, 1600);
  // The voiced span (640 samples) is centred: it starts (1600 - 640) / 2 = 480 samples in.
  ASSERT_EQ(w.size(), 1600u);
  for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(w[i], x[i + 1600 - 480]) << i;
  // Voice longer than the window: the window's middle is the span's.
  std::vector<int16_t> y(4000, 1000);
  const std::vector<int16_t> v = CommandWindow(y, 1600);
  EXPECT_EQ(v, std::vector<int16_t>(1600, 1000));
  EXPECT_EQ(CommandWindow(std::vector<int16_t>(), 160), std::vector<int16_t>(160, 0));
}

const std::string kEmbedding = kSource + "/models/embedding/speech_embedding.eshm";
constexpr uint32_t kPooled = 192;  // the embedding's 96 maxima, then its 96 means

Tensor Words(const std::string& name, const std::string& text) {
  std::vector<int8_t> bytes(text.begin(), text.end());
  return Make(name, models::TensorType::kInt8, {static_cast<uint32_t>(bytes.size())}, bytes);
}

// A head whose logits are `logits` (in Q8) whatever it hears: one hidden unit of weight 0, then
// output weights 0 and the logits as biases, requantised by 1 (mult 2^30, shift 30).
std::vector<Tensor> TinyModel(const std::vector<int32_t>& logits, const std::string& words,
                              const std::string& others = "") {
  const auto n = static_cast<uint32_t>(logits.size());
  std::vector<Tensor> t = {Words("words", words),
                           Int32("command_input", {100, 30, 8}),
                           Int8("l0.weight", {1, kPooled}, std::vector<int8_t>(kPooled, 0)),
                           Int32("l0.bias", {0}),
                           Int32("l0.mult", {1 << 30}),
                           Int32("l0.shift", {30}),
                           Int8("l1.weight", {n, 1}, std::vector<int8_t>(n, 0)),
                           Int32("l1.bias", logits),
                           Int32("l1.mult", std::vector<int32_t>(n, 1 << 30)),
                           Int32("l1.shift", std::vector<int32_t>(n, 30))};
  if (!others.empty()) t.push_back(Words("other_words", others));
  return t;
}

std::string Write(const std::vector<Tensor>& tensors, const std::string& file) {
  return WriteModel(CommandModel::kKind, tensors, file, models::FeatureKind::kEmbeddingMel);
}

std::string LoadError(const std::vector<Tensor>& tensors, const std::string& file) {
  auto model = CommandModel::Load(Write(tensors, file), kEmbedding);
  return model.ok() ? "" : model.error().message;
}

void Replace(std::vector<Tensor>& tensors, Tensor t) {
  for (Tensor& old : tensors) {
    if (old.name == t.name) old = std::move(t);
  }
}

TEST(CommandModel, BrokenFilesAreClearErrors) {
  EXPECT_EQ(LoadError(TinyModel({0, 0}, "yes|no"), "ok.eshm"), "");
  const struct {
    Tensor tensor;
    std::string error;
  } cases[] = {
      {Words("words", "yes||no"), "empty word"},
      {Words("words", "yes|yes"), "names 'yes' twice"},
      {Words("words", "yes|n\no"), "printable"},
      {Words("words", "yes|no|up"), "the last layer has 2 outputs, expected 3"},
      {Int32("command_input", {50, 30, 8}), "out of range"},  // under the embedding's window
      {Int32("command_input", {100, -1, 8}), "out of range"},
      {Int32("command_input", {100, 30, 11}), "out of range"},
      {Int8("l0.weight", {1, 96}, std::vector<int8_t>(96, 0)), "takes 96 inputs, expected 192"},
      {Int32("l1.shift", {30, 0}), "invalid requantisation"},
  };
  int i = 0;
  for (const auto& c : cases) {
    std::vector<Tensor> tensors = TinyModel({0, 0}, "yes|no");
    Replace(tensors, c.tensor);
    const std::string error = LoadError(tensors, "case" + std::to_string(i++) + ".eshm");
    EXPECT_NE(error.find(c.error), std::string::npos) << c.error << " <- " << error;
    EXPECT_NE(error.find(".eshm"), std::string::npos) << "names the file: " << error;
  }
  // One class is no classifier (its log-probability would always be 0).
  EXPECT_NE(LoadError(TinyModel({0}, "yes"), "one.eshm").find("needs two classes or more"),
            std::string::npos);
  // Another kind of model is not a command model, nor is a file of the main log-mel; and the
  // embedding it reads must be one.
  auto wrong_kind = CommandModel::Load(kSource + "/models/kws/computer.eshm", kEmbedding);
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_NE(wrong_kind.error().message.find("computer.eshm"), std::string::npos);
  const std::string logmel =
      WriteModel(CommandModel::kKind, TinyModel({0, 0}, "yes|no"), "logmel.eshm");
  EXPECT_FALSE(CommandModel::Load(logmel, kEmbedding).ok());
  auto no_embedding = CommandModel::Load(Write(TinyModel({0, 0}, "yes|no"), "ok.eshm"),
                                         kSource + "/models/vad/vad.eshm");
  ASSERT_FALSE(no_embedding.ok());
  EXPECT_NE(no_embedding.error().message.find("vad.eshm"), std::string::npos);
}

// "other_words": words it knows that are no command, an output each after the command words'.
TEST(CommandModel, OtherWordsAreOutputsAfterTheCommandWords) {
  auto model = CommandModel::Load(Write(TinyModel({256, 0, -256}, "yes|no", "dog"), "other.eshm"),
                                  kEmbedding);
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ((*model)->words(), (std::vector<std::string>{"yes", "no"}));
  EXPECT_EQ((*model)->others(), (std::vector<std::string>{"dog"}));
  const std::vector<float> lp = (*model)->LogProbs(std::vector<int16_t>(16000, 100));
  ASSERT_EQ(lp.size(), 3u);
  // The logits 1, 0 and -1 (Q8): their log-softmax.
  const double log_sum = std::log(std::exp(1.0) + 1.0 + std::exp(-1.0));
  EXPECT_NEAR(lp[0], 1.0 - log_sum, 1e-6);
  EXPECT_NEAR(lp[1], -log_sum, 1e-6);
  EXPECT_NEAR(lp[2], -1.0 - log_sum, 1e-6);
  // Without a row of its own, or named twice, it is refused.
  EXPECT_NE(LoadError(TinyModel({0, 0}, "yes|no", "dog"), "short.eshm")
                .find("the last layer has 2 outputs, expected 3"),
            std::string::npos);
  EXPECT_NE(LoadError(TinyModel({0, 0, 0}, "yes|no", "yes"), "twice.eshm")
                .find("names 'yes' twice"),
            std::string::npos);
}

// The head's input: the maximum and the mean (rounded half up) of the embeddings of the padded
// window, the embeddings those of the stream over it.
TEST(CommandModel, PoolsTheEmbeddingsOfThePaddedWindow) {
  auto model =
      CommandModel::Load(Write(TinyModel({0, 0}, "yes|no"), "pooled.eshm"), kEmbedding);
  auto embedding =
      embedding::SpeechEmbedding::Load(kEmbedding, features::EmbeddingFrontEndConfig());
  ASSERT_TRUE(model.ok() && embedding.ok());
  const std::vector<int16_t> x = ReadSamples(kSource + "/tools/samples/computer_request.flac");
  const std::span<const int16_t> command = std::span<const int16_t>(x).subspan(8000, 16000);
  std::vector<int16_t> padded(4800, 0);  // 30 hops of silence, the second, 30 hops
  padded.insert(padded.end(), command.begin(), command.end());
  padded.resize(padded.size() + 4800, 0);
  auto front_end = features::FrontEnd::Create(features::EmbeddingFrontEndConfig()).value();
  embedding::EmbeddingStream stream(*embedding);
  std::vector<std::vector<int>> seen;
  for (size_t t = 0; t + 160 <= padded.size(); t += 160) {
    front_end->Process(std::span<const int16_t>(padded).subspan(t, 160));
    if (const auto e = stream.Push(front_end->logmel_db_q8())) seen.emplace_back(e->begin(), e->end());
  }
  ASSERT_EQ(seen.size(), 11u);  // frames 75, 83, ..., 155 of 160
  const std::vector<int8_t> pooled = (*model)->Pooled(command);
  ASSERT_EQ(pooled.size(), kPooled);
  for (size_t i = 0; i < 96; ++i) {
    int top = -128, sum = 0;
    for (const auto& e : seen) {
      top = std::max(top, e[i]);
      sum += e[i];
    }
    EXPECT_EQ(pooled[i], top) << i;
    EXPECT_EQ(pooled[96 + i], static_cast<int>(std::floor((sum + 5.5) / 11.0))) << i;
  }
}

TEST(CommandFusion, TheDecodersWordGetsABonus) {
  const std::vector<std::string> words = {"yes", "no", "up"};
  const std::vector<float> lp = {std::log(0.2F), std::log(0.7F), std::log(0.1F)};
  EXPECT_EQ(FuseCommand(words, lp, "yes", 0.0).index, 1);      // the classifier alone
  const FusedWord fused = FuseCommand(words, lp, "yes", 2.0);  // 0.2 e^2 = 1.48 > 0.7
  EXPECT_EQ(fused.index, 0);
  EXPECT_NEAR(fused.probability, 0.2 * std::exp(2.0) / (0.2 * std::exp(2.0) + 0.8), 1e-6);
  EXPECT_EQ(FuseCommand(words, lp, "up", 1.0).index, 1);  // 0.1 e < 0.7
  EXPECT_EQ(FuseCommand(words, lp, "up", 1000.0).index, 2);
  EXPECT_EQ(FuseCommand(words, lp, "go", 2.0).index, -1);  // not a command word
  EXPECT_EQ(FuseCommand(words, lp, "", 2.0).index, -1);
}

// A word the classifier knows that is no command ("dog", after the command words) rejects what
// the decoder took for a command, unless the bonus carries the decoder's word past it.
TEST(CommandFusion, AnotherWordItKnowsRejects) {
  const std::vector<std::string> words = {"go", "down"};
  const std::vector<float> lp = {std::log(0.2F), std::log(0.1F), std::log(0.7F)};  // go down dog
  const FusedWord dog = FuseCommand(words, lp, "go", 1.0);  // 0.2 e = 0.54 < 0.7
  EXPECT_EQ(dog.index, -1);
  EXPECT_TRUE(dog.other);
  EXPECT_NEAR(dog.probability, 0.7 / (0.2 * std::exp(1.0) + 0.1 + 0.7), 1e-6);
  const FusedWord go = FuseCommand(words, lp, "go", 2.0);  // 0.2 e^2 = 1.48 > 0.7
  EXPECT_EQ(go.index, 0);
  EXPECT_FALSE(go.other);
  EXPECT_FALSE(FuseCommand(words, lp, "", 2.0).other);  // the decoder heard nothing: it stands
}

// A rejected utterance is a command only when the classifier's most probable class is a command
// word at the rescue probability or more.
TEST(CommandFusion, RescueTakesOnlyAConfidentCommandWord) {
  const std::vector<std::string> words = {"go", "down"};
  const std::vector<float> lp = {std::log(0.85F), std::log(0.05F), std::log(0.1F)};  // go down dog
  const FusedWord go = Rescue(words, lp, 0.8);
  EXPECT_EQ(go.index, 0);
  EXPECT_NEAR(go.probability, 0.85, 1e-6);
  EXPECT_EQ(Rescue(words, lp, 0.9).index, -1);  // not that sure
  const std::vector<float> dog = {std::log(0.05F), std::log(0.05F), std::log(0.9F)};
  EXPECT_EQ(Rescue(words, dog, 0.5).index, -1);  // another word it knows
  EXPECT_EQ(Rescue(words, {}, 0.5).index, -1);
}

TEST(CommandWindow, TheVoicedSpanIsWithin40dBOfTheLoudestHop) {
  std::vector<int16_t> x(3200, 1);  // 20 hops; hops 5..9 loud
  for (size_t i = 800; i < 1600; ++i) x[i] = 1000;
  const VoicedSpan span = FindVoicedSpan(x);
  EXPECT_EQ(span.begin, 800u);
  EXPECT_EQ(span.end, 1600u);
  const VoicedSpan silent = FindVoicedSpan(std::vector<int16_t>(480, 0));
  EXPECT_EQ(silent.end - silent.begin, 480u);  // all of it
}

// A decoder that gives one result, whatever it hears.
class FixedDecoder final : public stt::SttModel {
 public:
  explicit FixedDecoder(stt::SttResult result) : result_(std::move(result)) {}
  std::unique_ptr<stt::SttSession> NewSession() const override {
    struct Session final : stt::SttSession {
      stt::SttResult result;
      Status Begin() override { return OkStatus(); }
      Status Feed(std::span<const int16_t>) override { return OkStatus(); }
      std::string Partial() override { return ""; }
      Result<stt::SttResult> End() override { return result; }
    };
    auto session = std::make_unique<Session>();
    session->result = result_;
    return session;
  }

 private:
  stt::SttResult result_;
};

// A classifier of yes, no and the other word dog whose log-probabilities are `log_probs` (to
// within its logits' Q8 quantum).
std::shared_ptr<const CommandModel> BiasClassifier(const std::vector<float>& log_probs) {
  std::vector<int32_t> logits;
  for (const float v : log_probs) logits.push_back(static_cast<int32_t>(std::lround(v * 256)));
  auto classifier = CommandModel::Load(Write(TinyModel(logits, "yes|no", "dog"), "biases.eshm"),
                                       kEmbedding);
  EXPECT_TRUE(classifier.ok()) << classifier.error().message;
  return *classifier;
}

// `model`'s session over `samples`.
stt::SttResult Decoded(const stt::SttModel& model, const std::vector<int16_t>& samples) {
  auto session = model.NewSession();
  EXPECT_TRUE(session->Begin().ok());
  EXPECT_TRUE(session->Feed(samples).ok());
  Result<stt::SttResult> result = session->End();
  EXPECT_TRUE(result.ok());
  return *result;
}

// `words_alone`: the command words alone hear this (none: no such decoder).
stt::SttResult Fused(const stt::SttResult& decoder, std::vector<float> biases, double bonus,
                     double rescue, const std::vector<int16_t>& samples,
                     std::optional<std::string> words_alone = std::nullopt) {
  std::shared_ptr<const stt::SttModel> alone;
  if (words_alone) {
    alone = std::make_shared<FixedDecoder>(stt::SttResult{*words_alone, 1, {}, false, {}});
  }
  const CommandFusionModel model(std::make_shared<FixedDecoder>(decoder),
                                 BiasClassifier(std::move(biases)), bonus, rescue, alone);
  return Decoded(model, samples);
}

TEST(CommandFusion, ASessionRejectsAnotherWordAndRescuesAConfidentCommand) {
  std::vector<int16_t> word(16000, 1);  // 0.3 s of voice in a second
  for (size_t i = 4800; i < 9600; ++i) word[i] = static_cast<int16_t>(i % 2 ? 3000 : -3000);
  const stt::SttResult yes{"yes", 1, {stt::SttWord{"yes", 0.3, 0.6}}, false, {}};
  const stt::SttResult rejected{"", 0, {}, true, {}};
  // "dog" at 0.7 over "yes" at 0.2 e^1 = 0.54: rejected; at bonus 2, 0.2 e^2 = 1.48: yes.
  const std::vector<float> dog = {std::log(0.2F), std::log(0.1F), std::log(0.7F)};
  const stt::SttResult other = Fused(yes, dog, 1.0, 1.0, word);
  EXPECT_TRUE(other.rejected);
  EXPECT_EQ(other.text, "");
  EXPECT_TRUE(other.words.empty());
  EXPECT_EQ(Fused(yes, dog, 2.0, 1.0, word).text, "yes");
  // Rejected by the decoder, "yes" at 0.9: a command at rescue 0.8, timed by its voice; not at 1.
  const std::vector<float> sure = {std::log(0.9F), std::log(0.05F), std::log(0.05F)};
  const stt::SttResult rescued = Fused(rejected, sure, 1.5, 0.8, word);
  EXPECT_FALSE(rescued.rejected);
  EXPECT_EQ(rescued.text, "yes");
  ASSERT_EQ(rescued.words.size(), 1u);
  EXPECT_NEAR(rescued.words[0].start, 0.3, 1e-9);
  EXPECT_NEAR(rescued.words[0].end, 0.6, 1e-9);
  EXPECT_NEAR(rescued.confidence, 0.9, 3e-3);
  EXPECT_TRUE(Fused(rejected, sure, 1.5, 1.0, word).rejected);
  // Voice longer than the classifier's second is no command to rescue.
  std::vector<int16_t> sentence(48000, 3000);
  EXPECT_TRUE(Fused(rejected, sure, 1.5, 0.8, sentence).rejected);
}

// Under the rescue probability but at half of it or more, a command the decoder rejected is
// rescued only when the command words decoded alone (a forced choice) hear that word too.
TEST(CommandFusion, AHalfSureRescueNeedsTheWordsAloneToAgree) {
  std::vector<int16_t> word(16000, 1);
  for (size_t i = 4800; i < 9600; ++i) word[i] = static_cast<int16_t>(i % 2 ? 3000 : -3000);
  const stt::SttResult rejected{"", 0, {}, true, {}};
  const std::vector<float> half = {std::log(0.5F), std::log(0.3F), std::log(0.2F)};  // yes 0.5
  const stt::SttResult agreed = Fused(rejected, half, 1.5, 0.8, word, "yes");
  EXPECT_FALSE(agreed.rejected);
  EXPECT_EQ(agreed.text, "yes");
  EXPECT_NEAR(agreed.confidence, 0.5, 3e-3);
  EXPECT_TRUE(Fused(rejected, half, 1.5, 0.8, word, "no").rejected);  // they disagree
  EXPECT_TRUE(Fused(rejected, half, 1.5, 0.8, word, "").rejected);    // it heard nothing
  EXPECT_TRUE(Fused(rejected, half, 1.5, 0.8, word).rejected);        // no second opinion
  const std::vector<float> low = {std::log(0.38F), std::log(0.32F), std::log(0.3F)};
  EXPECT_TRUE(Fused(rejected, low, 1.5, 0.8, word, "yes").rejected);  // under half of 0.8
  // At the rescue probability or more the classifier needs no second opinion.
  EXPECT_EQ(Fused(rejected, half, 1.5, 0.45, word, "no").text, "yes");
}

// `bursts` of loud voice (start, length in samples) over a floor of `floor` (alternating sign).
std::vector<int16_t> Bursts(size_t length, int16_t floor,
                            const std::vector<std::pair<size_t, size_t>>& bursts) {
  std::vector<int16_t> x(length);
  for (size_t i = 0; i < length; ++i) x[i] = static_cast<int16_t>(i % 2 ? floor : -floor);
  for (const auto& [start, n] : bursts) {
    for (size_t i = start; i < start + n; ++i) x[i] = static_cast<int16_t>(i % 2 ? 3000 : -3000);
  }
  return x;
}

TEST(CommandWindow, SplitAtPausesPartsWordsSaidApart) {
  // Three words, 200 ms apart; the second has a 50 ms gap inside (a stop's closure).
  const std::vector<int16_t> x =
      Bursts(16000, 1, {{1600, 3200}, {8000, 1600}, {10400, 1600}, {15200, 320}});
  std::vector<VoicedSpan> pieces = SplitAtPauses(x, 1600);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].begin, 0u);
  EXPECT_EQ(pieces[0].end, 6400u);  // the middle of the pause from 4800 to 8000
  EXPECT_EQ(pieces[1].begin, 6400u);
  EXPECT_EQ(pieces[1].end, 13600u);  // 12000 .. 15200
  EXPECT_EQ(pieces[2].begin, 13600u);
  EXPECT_EQ(pieces[2].end, 16000u);
  // Over a noise floor 30 dB down the pauses still part them; a least pause longer than any of
  // them joins all the voice in one piece.
  EXPECT_EQ(SplitAtPauses(Bursts(16000, 95, {{1600, 3200}, {8000, 1600}}), 1600).size(), 2u);
  EXPECT_EQ(SplitAtPauses(x, 4000).size(), 1u);
  EXPECT_EQ(SplitAtPauses(std::vector<int16_t>(), 1600).size(), 0u);
}

TEST(CommandSequence, WordsSaidApartAreTheClassifiersWhenASetSaysThem) {
  Result<stt::CommandSet> set =
      stt::ParseCommandSet("pair", "intent pair\n  yes (yes | no)\n", "pair");
  ASSERT_TRUE(set.ok()) << set.error().message;
  const stt::CommandGrammar grammar({*set});
  // Every piece is "yes" at 0.9, 0.9 / 0.95 among the set's words yes and no (the classifier's
  // probabilities are its biases; dog is no word of the set).
  const auto classifier =
      BiasClassifier({std::log(0.9F), std::log(0.05F), std::log(0.05F)});
  const std::vector<int16_t> two = Bursts(16000, 1, {{1600, 3200}, {8000, 1600}});
  const std::optional<stt::SttResult> heard = WordsApart(*classifier, grammar, two, 0.8);
  ASSERT_TRUE(heard.has_value());
  EXPECT_EQ(heard->text, "yes yes");
  EXPECT_FALSE(heard->rejected);
  EXPECT_NEAR(heard->confidence, (0.9 / 0.95) * (0.9 / 0.95), 3e-3);
  ASSERT_EQ(heard->words.size(), 2u);
  EXPECT_NEAR(heard->words[0].start, 0.1, 1e-9);
  EXPECT_NEAR(heard->words[0].end, 0.3, 1e-9);
  EXPECT_NEAR(heard->words[1].start, 0.5, 1e-9);
  EXPECT_NEAR(heard->words[1].end, 0.6, 1e-9);
  EXPECT_FALSE(WordsApart(*classifier, grammar, two, 0.95).has_value());  // not sure enough
  const std::vector<int16_t> one = Bursts(16000, 1, {{1600, 3200}});
  EXPECT_FALSE(WordsApart(*classifier, grammar, one, 0.8).has_value());  // "yes": no set says it
  // One word alone is the decoder's, even where a set says it: among a set's few words the
  // classifier's most probable is always probable, so only the decoder can reject it.
  Result<stt::CommandSet> single =
      stt::ParseCommandSet("single", "intent single\n  (yes | no)\n", "single");
  ASSERT_TRUE(single.ok()) << single.error().message;
  EXPECT_FALSE(WordsApart(*classifier, stt::CommandGrammar({*single}), one, 0.8).has_value());
  const std::vector<int16_t> long_word = Bursts(40000, 1, {{1600, 20000}, {30000, 1600}});
  EXPECT_FALSE(WordsApart(*classifier, grammar, long_word, 0.8).has_value());  // over a second
  // In a session it takes the place of the decoder's result; where it hears nothing the set
  // says, the decoder's result stands.
  const stt::SttResult rejected{"", 0, {}, true, {}};
  const CommandSequenceModel model(std::make_shared<FixedDecoder>(rejected), classifier,
                                   std::make_shared<const stt::CommandGrammar>(grammar), 0.8);
  EXPECT_EQ(Decoded(model, two).text, "yes yes");
  EXPECT_TRUE(Decoded(model, one).rejected);
}

TEST(CommandSequence, UnknownWordIsTheFirstWordTheClassifierDoesNotKnow) {
  const auto classifier = BiasClassifier({0.0F, 0.0F, 0.0F});  // yes, no; dog
  Result<stt::CommandSet> known = stt::ParseCommandSet("k", "intent k\n  (yes | dog) no\n", "k");
  Result<stt::CommandSet> cat = stt::ParseCommandSet("c", "intent c\n  yes cat\n", "c");
  ASSERT_TRUE(known.ok() && cat.ok());
  EXPECT_EQ(UnknownWord(*classifier, stt::CommandGrammar({*known})), std::nullopt);
  EXPECT_EQ(UnknownWord(*classifier, stt::CommandGrammar({*known, *cat})), "cat");
}

TEST(CommandModel, MatchesTheTrainingScript) {
  // The bundled model and its vectors, or a model the training smoke test just wrote.
  auto model = CommandModel::Load(
      FromEnv("EARSHOT_COMMAND_MODEL", kSource + "/models/commands/commands.eshm"), kEmbedding);
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ((*model)->words().size(), 10u);
  const std::vector<int16_t> x = ReadSamples(kSource + "/tools/samples/computer_request.flac");
  const std::string vectors =
      FromEnv("EARSHOT_COMMAND_VECTORS", kSource + "/tests/data/command_vectors.txt");
  std::ifstream in(vectors);
  ASSERT_TRUE(in) << vectors;
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    size_t first = 0, count = 0;
    std::string bar;
    s >> first >> count >> bar;
    ASSERT_LE(first + count, x.size());
    const std::vector<float> lp =
        (*model)->LogProbs(std::span<const int16_t>(x).subspan(first, count));
    ASSERT_EQ(lp.size(), (*model)->words().size() + (*model)->others().size());
    for (const float v : lp) {
      float want = 0;
      s >> want;
      EXPECT_NEAR(v, want, 1e-4) << line;  // the same integer logits: their log-softmax
    }
    float extra = 0;
    EXPECT_FALSE(s >> extra) << "more values than classes: " << line;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace earshot::commands
