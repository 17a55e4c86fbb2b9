// The command classifier: its window, its network, its loader's checks, the fusion rule, and the
// bundled model against the training script's own log-probabilities.
#include "models/commands/command_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "models/commands/command_fusion.h"
#include "models/commands/command_sequence.h"
#include "models/conv2d_net.h"
#include "tests/from_env.h"
#include "tests/model_writer.h"
#include "tests/read_samples.h"

namespace earshot::stt {
namespace {

using testing_util::FromEnv;
using testing_util::Int32;
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

Tensor Float(const std::string& name, std::vector<uint32_t> dims, const std::vector<float>& v) {
  return Make(name, models::TensorType::kFloat32, std::move(dims), v);
}

Tensor Words(const std::string& text) {
  std::vector<int8_t> bytes(text.begin(), text.end());
  return Make("words", models::TensorType::kInt8, {static_cast<uint32_t>(bytes.size())}, bytes);
}

// A one-convolution model: a 3x3 kernel with only its centre (weight 1), stride 1,
// padding 1, then two outputs.
std::vector<Tensor> TinyModel() {
  std::vector<float> kernel(9, 0.0F);
  kernel[4] = 1.0F;
  return {Words("yes|no"),
          Int32("command_input", {100, 60, 10}),
          Float("c0.weight", {1, 1, 3, 3}, kernel),
          Float("c0.bias", {1}, {0.5F}),
          Int32("c0.conv", {1, 1}),
          Float("out.weight", {2, 1}, {2.0F, -1.0F}),
          Float("out.bias", {2}, {0.0F, 1.0F})};
}

TEST(Conv2dNet, ConvolvesRectifiesAveragesAndMaps) {
  const std::string path = WriteModel("command-cnn", TinyModel(), "tiny.eshm");
  auto file = models::ModelFile::Load(path, "command-cnn", models::FeatureKind::kLogMel, {});
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto net = models::Conv2dNet::Load(*file, "", 2, 3, 2);
  ASSERT_TRUE(net.ok()) << net.error().message;
  // relu(x + 0.5) of {1, -2, 3, 0, -1, 4}: {1.5, 0, 3.5, 0.5, 0, 4.5}, mean 10 / 6.
  const std::vector<float> logits = net->Run(std::vector<float>{1, -2, 3, 0, -1, 4});
  ASSERT_EQ(logits.size(), 2u);
  EXPECT_NEAR(logits[0], 2.0 * 10 / 6, 1e-6);
  EXPECT_NEAR(logits[1], 1.0 - 10.0 / 6, 1e-6);
}

// Convolution by its definition (PyTorch's Conv2d, then ReLU): in [c_in][rows][cols], w
// [c_out][c_in][k][k].
std::vector<float> ReferenceConv(const std::vector<float>& in, int c_in, int rows, int cols,
                                 const std::vector<float>& w, const std::vector<float>& bias, int k,
                                 int stride, int pad, int& out_rows, int& out_cols) {
  out_rows = (rows + 2 * pad - k) / stride + 1;
  out_cols = (cols + 2 * pad - k) / stride + 1;
  const int c_out = static_cast<int>(bias.size());
  std::vector<float> out(static_cast<size_t>(c_out * out_rows * out_cols));
  for (int o = 0; o < c_out; ++o) {
    for (int y = 0; y < out_rows; ++y) {
      for (int x = 0; x < out_cols; ++x) {
        double sum = bias[o];
        for (int c = 0; c < c_in; ++c) {
          for (int i = 0; i < k; ++i) {
            for (int j = 0; j < k; ++j) {
              const int r = y * stride - pad + i, s = x * stride - pad + j;
              if (r < 0 || r >= rows || s < 0 || s >= cols) continue;
              sum += w[((o * c_in + c) * k + i) * k + j] * in[(c * rows + r) * cols + s];
            }
          }
        }
        out[(o * out_rows + y) * out_cols + x] = std::max(0.0F, static_cast<float>(sum));
      }
    }
  }
  return out;
}

// Sizes that fill no block of the inner loop whole (5 and 3 channels, 20 and 20 positions).
TEST(Conv2dNet, MatchesConvolutionByItsDefinition) {
  auto values = [](size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7919 % 23)) - scale * 11;
    return v;
  };
  const std::vector<float> w0 = values(5 * 9, 0.1F), b0 = values(5, 0.05F);
  const std::vector<float> w1 = values(3 * 5 * 25, 0.02F), b1 = values(3, 0.01F);
  const std::vector<float> w_out = values(2 * 3, 0.3F), b_out = {0.25F, -0.5F};
  const std::string path = WriteModel(
      "command-cnn",
      {Words("yes|no"), Int32("command_input", {100, 60, 10}), Float("c0.weight", {5, 1, 3, 3}, w0),
       Float("c0.bias", {5}, b0), Int32("c0.conv", {2, 1}), Float("c1.weight", {3, 5, 5, 5}, w1),
       Float("c1.bias", {3}, b1), Int32("c1.conv", {1, 2}), Float("out.weight", {2, 3}, w_out),
       Float("out.bias", {2}, b_out)},
      "odd.eshm");
  auto file = models::ModelFile::Load(path, "command-cnn", models::FeatureKind::kLogMel, {});
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto net = models::Conv2dNet::Load(*file, "", 7, 9, 2);
  ASSERT_TRUE(net.ok()) << net.error().message;
  const std::vector<float> input = values(7 * 9, 0.5F);
  int r0 = 0, c0 = 0, r1 = 0, c1 = 0;
  const std::vector<float> a = ReferenceConv(input, 1, 7, 9, w0, b0, 3, 2, 1, r0, c0);
  const std::vector<float> b = ReferenceConv(a, 5, r0, c0, w1, b1, 5, 1, 2, r1, c1);
  ASSERT_EQ(r1 * c1, 20);
  std::vector<float> want(b_out);
  for (size_t k = 0; k < want.size(); ++k) {
    for (int o = 0; o < 3; ++o) {
      double mean = 0;
      for (int p = 0; p < r1 * c1; ++p) mean += b[static_cast<size_t>(o * r1 * c1 + p)];
      want[k] += w_out[k * 3 + static_cast<size_t>(o)] * static_cast<float>(mean / (r1 * c1));
    }
  }
  const std::vector<float> got = net->Run(input);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_GT(std::abs(want[0] - want[1]), 0.1F);  // the outputs say something
  for (size_t k = 0; k < 2; ++k) EXPECT_NEAR(got[k], want[k], 1e-5) << k;
}

std::string LoadError(std::vector<Tensor> tensors, const std::string& file) {
  auto model = CommandModel::Load(WriteModel("command-cnn", tensors, file), {});
  return model.ok() ? "" : model.error().message;
}

void Replace(std::vector<Tensor>& tensors, Tensor t) {
  for (Tensor& old : tensors) {
    if (old.name == t.name) old = std::move(t);
  }
}

TEST(CommandModel, BrokenFilesAreClearErrors) {
  EXPECT_EQ(LoadError(TinyModel(), "ok.eshm"), "");
  const struct {
    Tensor tensor;
    std::string error;
  } cases[] = {
      {Words("yes||no"), "empty word"},
      {Words("yes|yes"), "names 'yes' twice"},
      {Words("yes|n\no"), "printable"},
      {Words("yes|no|up"), "out.weight' is [2x1], expected [3x1]"},
      {Int32("command_input", {100, 0, 10}), "out of range"},
      {Int32("c0.conv", {0, 1}), "stride 0"},
      {Int32("c0.conv", {1, 3}), "padding under the kernel"},
      {Float("c0.weight", {1, 1, 3, 3}, std::vector<float>(9, std::nanf(""))), "NaN"},
      {Float("out.bias", {2}, {0.0F, std::numeric_limits<float>::infinity()}), "infinity"},
      {Float("c0.weight", {1, 2, 3, 3}, std::vector<float>(18, 0.0F)), "reads 2 channels"},
  };
  int i = 0;
  for (const auto& c : cases) {
    std::vector<Tensor> tensors = TinyModel();
    Replace(tensors, c.tensor);
    const std::string error = LoadError(tensors, "case" + std::to_string(i++) + ".eshm");
    EXPECT_NE(error.find(c.error), std::string::npos) << c.error << " <- " << error;
    EXPECT_NE(error.find(".eshm"), std::string::npos) << "names the file: " << error;
  }
  // A kernel larger than what is left of the input leaves no output.
  std::vector<Tensor> deep = TinyModel();
  deep.push_back(Float("c1.weight", {1, 1, 15, 15}, std::vector<float>(225, 0.0F)));
  deep.push_back(Float("c1.bias", {1}, {0.0F}));
  deep.push_back(Int32("c1.conv", {8, 0}));
  auto file = models::ModelFile::Load(WriteModel("command-cnn", deep, "deep.eshm"), "command-cnn",
                                      models::FeatureKind::kLogMel, {});
  ASSERT_TRUE(file.ok());
  auto net = models::Conv2dNet::Load(*file, "", 4, 100, 2);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.error().message.find("leaves no output"), std::string::npos);
  // One whose unfolded input would take more memory than a command needs (14400 taps x 4000
  // positions: 230 MB).
  std::vector<Tensor> wide = TinyModel();
  Replace(wide, Float("c0.weight", {64, 1, 3, 3}, std::vector<float>(576, 0.0F)));
  Replace(wide, Float("c0.bias", {64}, std::vector<float>(64, 0.0F)));
  wide.push_back(Float("c1.weight", {1, 64, 15, 15}, std::vector<float>(14400, 0.0F)));
  wide.push_back(Float("c1.bias", {1}, {0.0F}));
  wide.push_back(Int32("c1.conv", {1, 7}));
  auto wide_file = models::ModelFile::Load(WriteModel("command-cnn", wide, "wide.eshm"),
                                           "command-cnn", models::FeatureKind::kLogMel, {});
  ASSERT_TRUE(wide_file.ok());
  auto wide_net = models::Conv2dNet::Load(*wide_file, "", 40, 100, 2);
  ASSERT_FALSE(wide_net.ok());
  EXPECT_NE(wide_net.error().message.find("c1 would unfold its input to 57600000 values"),
            std::string::npos)
      << wide_net.error().message;
  EXPECT_TRUE(models::Conv2dNet::Load(*wide_file, "", 8, 10, 2).ok());  // a smaller input unfolds
  // Another kind of model is not a command model.
  auto wrong_kind = CommandModel::Load(kSource + "/models/kws/computer.eshm", {});
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_NE(wrong_kind.error().message.find("computer.eshm"), std::string::npos);
}

// "other_words": words it knows that are no command, an output each after the command words'.
TEST(CommandModel, OtherWordsAreOutputsAfterTheCommandWords) {
  std::vector<Tensor> tensors = TinyModel();
  tensors.push_back(Make("other_words", models::TensorType::kInt8, {3},
                         std::vector<int8_t>{'d', 'o', 'g'}));
  Replace(tensors, Float("out.weight", {3, 1}, {2.0F, -1.0F, 0.5F}));
  Replace(tensors, Float("out.bias", {3}, {0.0F, 1.0F, 0.0F}));
  auto model = CommandModel::Load(WriteModel("command-cnn", tensors, "other.eshm"), {});
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ((*model)->words(), (std::vector<std::string>{"yes", "no"}));
  EXPECT_EQ((*model)->others(), (std::vector<std::string>{"dog"}));
  const std::vector<float> lp = (*model)->LogProbs(std::vector<int16_t>(16000, 100));
  ASSERT_EQ(lp.size(), 3u);
  double sum = 0;
  for (const float v : lp) sum += std::exp(v);
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // Without a row of its own, or named twice, it is refused.
  std::vector<Tensor> short_rows = TinyModel();
  short_rows.push_back(tensors.back());
  EXPECT_NE(LoadError(short_rows, "short.eshm").find("expected [3x1]"), std::string::npos);
  std::vector<Tensor> twice = tensors;
  Replace(twice, Make("other_words", models::TensorType::kInt8, {3},
                      std::vector<int8_t>{'y', 'e', 's'}));
  EXPECT_NE(LoadError(twice, "twice.eshm").find("names 'yes' twice"), std::string::npos);
}

// TinyModel's network under `prefix`, with other output weights.
std::vector<Tensor> SecondNetwork(const std::string& prefix) {
  std::vector<Tensor> net = TinyModel();
  net.erase(net.begin(), net.begin() + 2);  // words, command_input
  Replace(net, Float("out.weight", {2, 1}, {-0.5F, 1.5F}));
  for (Tensor& t : net) t.name = prefix + t.name;
  return net;
}

TEST(CommandModel, AnEnsembleAveragesItsNetworksProbabilities) {
  std::vector<Tensor> second = TinyModel();
  second.resize(2);
  for (Tensor& t : SecondNetwork("")) second.push_back(t);
  std::vector<Tensor> both = TinyModel();
  for (Tensor& t : SecondNetwork("m1.")) both.push_back(t);
  auto a = CommandModel::Load(WriteModel("command-cnn", TinyModel(), "a.eshm"), {});
  auto b = CommandModel::Load(WriteModel("command-cnn", second, "b.eshm"), {});
  auto ab = CommandModel::Load(WriteModel("command-cnn", both, "ab.eshm"), {});
  ASSERT_TRUE(a.ok() && b.ok() && ab.ok());
  std::vector<int16_t> samples(16000);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<int16_t>((i * 7919) % 8000);
  const std::vector<float> pa = (*a)->LogProbs(samples), pb = (*b)->LogProbs(samples),
                           pab = (*ab)->LogProbs(samples);
  ASSERT_EQ(pab.size(), 2u);
  EXPECT_GT(std::abs(pa[0] - pb[0]), 0.1F);  // the networks disagree
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(std::exp(pab[i]), (std::exp(pa[i]) + std::exp(pb[i])) / 2, 1e-6) << i;
  }
  // Eight networks load; a ninth is refused.
  std::vector<Tensor> many = both;
  for (int m = 2; m <= 8; ++m) {
    for (Tensor& t : SecondNetwork("m" + std::to_string(m) + ".")) many.push_back(t);
    const std::string error = LoadError(many, "many.eshm");  // networks 0..m
    if (m < 8) {
      EXPECT_EQ(error, "") << m;
    } else {
      EXPECT_NE(error.find("many.eshm: more than 8 networks"), std::string::npos) << error;
    }
  }
  // A broken second network is an error naming its tensor.
  Replace(both, Float("m1.out.weight", {3, 1}, {0.0F, 0.0F, 0.0F}));
  const std::string error = LoadError(both, "broken_member.eshm");
  EXPECT_NE(error.find("m1.out.weight"), std::string::npos) << error;
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
class FixedDecoder final : public SttModel {
 public:
  explicit FixedDecoder(SttResult result) : result_(std::move(result)) {}
  std::unique_ptr<SttSession> NewSession() const override {
    struct Session final : SttSession {
      SttResult result;
      Status Begin() override { return OkStatus(); }
      Status Feed(std::span<const int16_t>) override { return OkStatus(); }
      std::string Partial() override { return ""; }
      Result<SttResult> End() override { return result; }
    };
    auto session = std::make_unique<Session>();
    session->result = result_;
    return session;
  }

 private:
  SttResult result_;
};

// The fused session on `samples` with `decoder`'s result and a classifier of yes, no and the
// other word dog whose probabilities are its biases' softmax (its weights 0).
std::shared_ptr<const CommandModel> BiasClassifier(std::vector<float> biases) {
  std::vector<Tensor> tensors = TinyModel();
  tensors.push_back(Make("other_words", models::TensorType::kInt8, {3},
                         std::vector<int8_t>{'d', 'o', 'g'}));
  Replace(tensors, Float("out.weight", {3, 1}, {0.0F, 0.0F, 0.0F}));
  Replace(tensors, Float("out.bias", {3}, std::move(biases)));
  auto classifier = CommandModel::Load(WriteModel("command-cnn", tensors, "biases.eshm"), {});
  EXPECT_TRUE(classifier.ok()) << classifier.error().message;
  return *classifier;
}

// `model`'s session over `samples`.
SttResult Decoded(const SttModel& model, const std::vector<int16_t>& samples) {
  auto session = model.NewSession();
  EXPECT_TRUE(session->Begin().ok());
  EXPECT_TRUE(session->Feed(samples).ok());
  Result<SttResult> result = session->End();
  EXPECT_TRUE(result.ok());
  return *result;
}

// `words_alone`: the command words alone hear this (none: no such decoder).
SttResult Fused(const SttResult& decoder, std::vector<float> biases, double bonus, double rescue,
                const std::vector<int16_t>& samples,
                std::optional<std::string> words_alone = std::nullopt) {
  std::shared_ptr<const SttModel> alone;
  if (words_alone) {
    alone = std::make_shared<FixedDecoder>(SttResult{*words_alone, 1, {}, false, {}});
  }
  const CommandFusionModel model(std::make_shared<FixedDecoder>(decoder),
                                 BiasClassifier(std::move(biases)), bonus, rescue, alone);
  return Decoded(model, samples);
}

TEST(CommandFusion, ASessionRejectsAnotherWordAndRescuesAConfidentCommand) {
  std::vector<int16_t> word(16000, 1);  // 0.3 s of voice in a second
  for (size_t i = 4800; i < 9600; ++i) word[i] = static_cast<int16_t>(i % 2 ? 3000 : -3000);
  const SttResult yes{"yes", 1, {SttWord{"yes", 0.3, 0.6}}, false, {}};
  const SttResult rejected{"", 0, {}, true, {}};
  // "dog" at 0.7 over "yes" at 0.2 e^1 = 0.54: rejected; at bonus 2, 0.2 e^2 = 1.48: yes.
  const std::vector<float> dog = {std::log(0.2F), std::log(0.1F), std::log(0.7F)};
  const SttResult other = Fused(yes, dog, 1.0, 1.0, word);
  EXPECT_TRUE(other.rejected);
  EXPECT_EQ(other.text, "");
  EXPECT_TRUE(other.words.empty());
  EXPECT_EQ(Fused(yes, dog, 2.0, 1.0, word).text, "yes");
  // Rejected by the decoder, "yes" at 0.9: a command at rescue 0.8, timed by its voice; not at 1.
  const std::vector<float> sure = {std::log(0.9F), std::log(0.05F), std::log(0.05F)};
  const SttResult rescued = Fused(rejected, sure, 1.5, 0.8, word);
  EXPECT_FALSE(rescued.rejected);
  EXPECT_EQ(rescued.text, "yes");
  ASSERT_EQ(rescued.words.size(), 1u);
  EXPECT_NEAR(rescued.words[0].start, 0.3, 1e-9);
  EXPECT_NEAR(rescued.words[0].end, 0.6, 1e-9);
  EXPECT_NEAR(rescued.confidence, 0.9, 1e-5);
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
  const SttResult rejected{"", 0, {}, true, {}};
  const std::vector<float> half = {std::log(0.5F), std::log(0.3F), std::log(0.2F)};  // yes 0.5
  const SttResult agreed = Fused(rejected, half, 1.5, 0.8, word, "yes");
  EXPECT_FALSE(agreed.rejected);
  EXPECT_EQ(agreed.text, "yes");
  EXPECT_NEAR(agreed.confidence, 0.5, 1e-5);
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
  Result<CommandSet> set = ParseCommandSet("pair", "intent pair\n  yes (yes | no)\n", "pair");
  ASSERT_TRUE(set.ok()) << set.error().message;
  const CommandGrammar grammar({*set});
  // Every piece is "yes" at 0.9, 0.9 / 0.95 among the set's words yes and no (the classifier's
  // probabilities are its biases; dog is no word of the set).
  const auto classifier =
      BiasClassifier({std::log(0.9F), std::log(0.05F), std::log(0.05F)});
  const std::vector<int16_t> two = Bursts(16000, 1, {{1600, 3200}, {8000, 1600}});
  const std::optional<SttResult> heard = WordsApart(*classifier, grammar, two, 0.8);
  ASSERT_TRUE(heard.has_value());
  EXPECT_EQ(heard->text, "yes yes");
  EXPECT_FALSE(heard->rejected);
  EXPECT_NEAR(heard->confidence, (0.9 / 0.95) * (0.9 / 0.95), 1e-5);
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
  Result<CommandSet> single = ParseCommandSet("single", "intent single\n  (yes | no)\n", "single");
  ASSERT_TRUE(single.ok()) << single.error().message;
  EXPECT_FALSE(WordsApart(*classifier, CommandGrammar({*single}), one, 0.8).has_value());
  const std::vector<int16_t> long_word = Bursts(40000, 1, {{1600, 20000}, {30000, 1600}});
  EXPECT_FALSE(WordsApart(*classifier, grammar, long_word, 0.8).has_value());  // over a second
  // In a session it takes the place of the decoder's result; where it hears nothing the set
  // says, the decoder's result stands.
  const SttResult rejected{"", 0, {}, true, {}};
  const CommandSequenceModel model(std::make_shared<FixedDecoder>(rejected), classifier,
                                   std::make_shared<const CommandGrammar>(grammar), 0.8);
  EXPECT_EQ(Decoded(model, two).text, "yes yes");
  EXPECT_TRUE(Decoded(model, one).rejected);
}

TEST(CommandSequence, UnknownWordIsTheFirstWordTheClassifierDoesNotKnow) {
  const auto classifier = BiasClassifier({0.0F, 0.0F, 0.0F});  // yes, no; dog
  Result<CommandSet> known = ParseCommandSet("k", "intent k\n  (yes | dog) no\n", "k");
  Result<CommandSet> cat = ParseCommandSet("c", "intent c\n  yes cat\n", "c");
  ASSERT_TRUE(known.ok() && cat.ok());
  EXPECT_EQ(UnknownWord(*classifier, CommandGrammar({*known})), std::nullopt);
  EXPECT_EQ(UnknownWord(*classifier, CommandGrammar({*known, *cat})), "cat");
}

TEST(CommandModel, MatchesTheTrainingScript) {
  // The bundled model and its vectors, or a model the training smoke test just wrote.
  auto model = CommandModel::Load(
      FromEnv("EARSHOT_COMMAND_MODEL", kSource + "/models/commands/commands.eshm"), {});
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
      EXPECT_NEAR(v, want, 1e-3) << line;  // float32 here and in PyTorch, summed in other orders
    }
    float extra = 0;
    EXPECT_FALSE(s >> extra) << "more values than classes: " << line;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace earshot::stt
