// The int8 engine's layers on tiny hand-made models: a convolution over time as the first layer,
// its integers worked out by hand, the float reference within its error bound, the loader's
// checks of the convolution's geometry, and a classifier's logits (one per class).
#include "models/int8_mlp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "features/front_end_config.h"
#include "models/float_mlp.h"
#include "models/model_file.h"
#include "tests/model_writer.h"

namespace earshot::models {
namespace {

using testing_util::Int32;
using testing_util::Int8;
using testing_util::Make;
using testing_util::Tensor;

std::string WriteModel(const std::vector<Tensor>& tensors) {
  return testing_util::WriteModel("test-mlp", tensors, "int8_mlp_test.eshm");
}

constexpr int32_t kHalf = 1 << 30;  // mult 2^30, shift 31: x 1/2

// The hand-made model: l0 a convolution {kernel 2 frames, stride `stride`, frames of 2 values} with
// C = 2 channels (weight rows of K = 4), then l1 dense to the logit over the P * 2 hidden values.
//   l0 channel 0: w = [1, 0, -1, 2], bias 3, x 1/2 (mult 2^30, shift 31)
//   l0 channel 1: w = [0, 1, 1, -1], bias -2, x 3/4 (mult 3 * 2^28, shift 30)
//   l1: w = l1_weight, bias 5, x 1/2
// The sigmoid table is the identity ramp sigmoid[k] = k, so Run() shows the logit it looked up.
std::vector<Tensor> ConvModel(int32_t stride, const std::vector<int8_t>& l1_weight) {
  std::vector<uint16_t> ramp(2 * Int8Mlp::kLogitHalfRange);
  for (size_t k = 0; k < ramp.size(); ++k) ramp[k] = static_cast<uint16_t>(k);
  return {Int8(std::string("l0.weight"), {2, 4}, {1, 0, -1, 2, 0, 1, 1, -1}),
          Int32("l0.bias", {3, -2}),
          Int32("l0.mult", {kHalf, 3 << 28}),
          Int32("l0.shift", {31, 30}),
          Int32("l0.conv", {2, stride, 2}),
          Int8("l1.weight", {1, static_cast<uint32_t>(l1_weight.size())}, l1_weight),
          Int32("l1.bias", {5}),
          Int32("l1.mult", {kHalf}),
          Int32("l1.shift", {31}),
          Make("sigmoid", TensorType::kUint16, {static_cast<uint32_t>(ramp.size())}, ramp)};
}
std::vector<Tensor> StridedModel() { return ConvModel(2, {2, -3, 1, 4}); }

std::vector<Tensor> With(std::vector<Tensor> tensors, Tensor replacement) {
  for (Tensor& t : tensors) {
    if (t.name == replacement.name) {
      t = std::move(replacement);
      return tensors;
    }
  }
  tensors.push_back(std::move(replacement));
  return tensors;
}

Result<Int8Mlp> Load(const std::vector<Tensor>& tensors, int inputs, std::string* path = nullptr) {
  const std::string written = WriteModel(tensors);
  if (path != nullptr) *path = written;
  auto file =
      ModelFile::Load(written, "test-mlp", FeatureKind::kLogMel, features::FrontEndConfig{});
  if (!file.ok()) return file.error();
  return Int8Mlp::Load(*file, inputs);
}

// The loader's error for a malformed model: it must name the file.
std::string LoadError(const std::vector<Tensor>& tensors, int inputs) {
  std::string path;
  auto mlp = Load(tensors, inputs, &path);
  EXPECT_FALSE(mlp.ok());
  if (mlp.ok()) return "";
  EXPECT_NE(mlp.error().message.find(path), std::string::npos) << mlp.error().message;
  return mlp.error().message;
}

// 4 frames of 2 values.
const std::vector<int8_t> kInput = {10, -4, 6, 2, -8, 12, 3, 5};

// Stride 2: P = (4 - 2) / 2 + 1 = 2 windows, x[0..4) = [10, -4, 6, 2] and x[4..8) = [-8, 12, 3, 5].
//   p0 c0: 3 + 10 + 0 - 6 + 4 = 11,   (11 * 2^30 + 2^30) >> 31 = 6       (5.5 rounded up)
//   p0 c1: -2 + 0 - 4 + 6 - 2 = -2,   (-2 * 3 * 2^28 + 2^29) >> 30 = -1  -> ReLU 0
//   p1 c0: 3 - 8 + 0 - 3 + 10 = 2,    (2 * 2^30 + 2^30) >> 31 = 1
//   p1 c1: -2 + 0 + 12 + 3 - 5 = 8,   (8 * 3 * 2^28 + 2^29) >> 30 = 6
// hidden, position-major: [6, 0, 1, 6]; l1: 5 + 2 * 6 - 3 * 0 + 1 * 1 + 4 * 6 = 42, x 1/2 = 21.
TEST(Int8MlpConv, StridedWindowsByHand) {
  auto mlp = Load(StridedModel(), 8);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  EXPECT_EQ(mlp->inputs(), 8);
  const Int8Dense& conv = mlp->layers()[0];
  EXPECT_EQ(conv.inputs, 4);
  EXPECT_EQ(conv.input_frames, 4);
  EXPECT_EQ(conv.positions, 2);
  EXPECT_EQ(conv.total_outputs(), 4);
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  EXPECT_EQ(scratch.a.size(), 4u);
  EXPECT_EQ(mlp->RunLogit(kInput, scratch), 21);
  EXPECT_EQ(scratch.a, (std::vector<int8_t>{6, 0, 1, 6}));
  EXPECT_EQ(mlp->Run(kInput, scratch), 21 + Int8Mlp::kLogitHalfRange);
}

// The float network: hidden [5.5, 0, 1, 6], logit (5 + 2 * 5.5 + 1 + 4 * 6) / 2 = 20.5. Its
// bound: every hidden value within 1/2, l1's real weights [1, -1.5, 0.5, 2] carry them to
// 5 * 1/2 = 2.5, plus 1/2 for the logit's rounding: 3. Its rms: (1 + 2.25 + 0.25 + 4) / 12 + 1
// / 12.
TEST(Int8MlpConv, FloatReferenceByHand) {
  auto mlp = Load(StridedModel(), 8);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  const FloatMlp reference(*mlp);
  EXPECT_DOUBLE_EQ(reference.Logit(kInput), 20.5);
  EXPECT_DOUBLE_EQ(reference.ErrorBound(), 3.0);
  EXPECT_DOUBLE_EQ(reference.ErrorRms(), std::sqrt(8.5 / 12));
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  EXPECT_LE(std::abs(mlp->RunLogit(kInput, scratch) - reference.Logit(kInput)),
            reference.ErrorBound());
}

// Stride 1: P = 3 overlapping windows, the middle one x[2..6) = [6, 2, -8, 12]:
//   p1 c0: 3 + 6 + 0 + 8 + 24 = 41,       (41 * 2^30 + 2^30) >> 31 = 21  (float 20.5)
//   p1 c1: -2 + 0 + 2 - 8 - 12 = -20,     negative -> ReLU 0
// hidden [6, 0, 21, 0, 1, 6]; l1 w = [2, -3, 1, 4, -1, 1]: 5 + 12 + 21 - 1 + 6 = 43, x 1/2 = 22
// (43 / 2 = 21.5 rounded up). Float: (5 + 11 + 20.5 - 1 + 6) / 2 = 20.75; bound 12 / 4 + 1/2 = 3.5.
TEST(Int8MlpConv, OverlappingWindowsByHand) {
  auto mlp = Load(ConvModel(1, {2, -3, 1, 4, -1, 1}), 8);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  EXPECT_EQ(mlp->layers()[0].positions, 3);
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  EXPECT_EQ(mlp->RunLogit(kInput, scratch), 22);
  EXPECT_EQ(scratch.a, (std::vector<int8_t>{6, 0, 21, 0, 1, 6}));
  const FloatMlp reference(*mlp);
  EXPECT_DOUBLE_EQ(reference.Logit(kInput), 20.75);
  EXPECT_DOUBLE_EQ(reference.ErrorBound(), 3.5);
  EXPECT_LE(std::abs(22 - reference.Logit(kInput)), reference.ErrorBound());
}

// 5 frames with kernel 2 and stride 2: P = (5 - 2) / 2 + 1 = 2, so the last frame is never read.
TEST(Int8MlpConv, FramesPastTheLastWindowAreUnread) {
  auto mlp = Load(StridedModel(), 10);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  EXPECT_EQ(mlp->inputs(), 10);
  EXPECT_EQ(mlp->layers()[0].positions, 2);
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  for (int tail : {-128, 0, 127}) {
    std::vector<int8_t> input = kInput;
    input.insert(input.end(), 2, static_cast<int8_t>(tail));
    EXPECT_EQ(mlp->RunLogit(input, scratch), 21) << "last frame " << tail;
    EXPECT_EQ(FloatMlp(*mlp).Logit(input), 20.5);
  }
}

// Without "l0.conv" the same weights are a dense layer: one position over all K inputs.
TEST(Int8MlpConv, WithoutConvTheLayerIsDense) {
  std::vector<Tensor> tensors = StridedModel();
  std::erase_if(tensors, [](const Tensor& t) { return t.name == "l0.conv"; });
  tensors = With(tensors, Int8("l1.weight", {1, 2}, {2, -3}));
  auto mlp = Load(tensors, 4);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  const Int8Dense& dense = mlp->layers()[0];
  EXPECT_EQ(mlp->inputs(), 4);
  EXPECT_EQ(dense.positions, 1);
  EXPECT_EQ(dense.frame_width, 4);
  EXPECT_EQ(dense.total_outputs(), 2);
  // The first window above: hidden [6, 0], logit (5 + 12) / 2 = 8.5, rounded up to 9.
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  EXPECT_EQ(mlp->RunLogit(std::vector<int8_t>{10, -4, 6, 2}, scratch), 9);
  EXPECT_NE(LoadError(tensors, 8).find("layer 0 takes 4 inputs, expected 8"), std::string::npos);
}

// Malformed convolutions: each rejected with the file's name and the cause.
TEST(Int8MlpConvFile, ConvTensorMustBeThreeInt32) {
  const auto int16 = Make("l0.conv", TensorType::kInt16, {3}, std::vector<int16_t>{2, 2, 2});
  EXPECT_NE(LoadError(With(StridedModel(), int16), 8).find("tensor 'l0.conv' has the wrong type"),
            std::string::npos);
  EXPECT_NE(LoadError(With(StridedModel(), Int32("l0.conv", {2, 2, 2, 1})), 8)
                .find("tensor 'l0.conv' is [4], expected [3]"),
            std::string::npos);
  EXPECT_NE(LoadError(With(StridedModel(), Int32("l0.conv", {2, 2})), 8)
                .find("tensor 'l0.conv' is [2], expected [3]"),
            std::string::npos);
}

TEST(Int8MlpConvFile, GeometryMustBePositive) {
  for (const std::vector<int32_t>& conv :
       std::vector<std::vector<int32_t>>{{0, 2, 2}, {2, 0, 2}, {2, 2, 0}, {2, -1, 2}}) {
    const std::string e = LoadError(With(StridedModel(), Int32("l0.conv", conv)), 8);
    EXPECT_NE(e.find("kernel_frames, stride_frames and frame_width must be at least 1"),
              std::string::npos)
        << e;
  }
}

TEST(Int8MlpConvFile, InputsMustBeWholeFrames) {
  EXPECT_NE(LoadError(StridedModel(), 9)
                .find("layer 0 takes 9 inputs, not a whole number of "
                      "frames of 2"),
            std::string::npos);
}

TEST(Int8MlpConvFile, WeightRowsMustBeTheKernel) {
  EXPECT_NE(LoadError(With(StridedModel(), Int32("l0.conv", {1, 2, 2})), 8)
                .find("layer 0 has weight rows of 4 values, expected kernel_frames x frame_width "
                      "= 1 x 2"),
            std::string::npos);
}

TEST(Int8MlpConvFile, KernelMustFitTheInput) {
  // 2 inputs are 1 frame of 2: the weight rows (4) match kernel x width, the input does not.
  EXPECT_NE(LoadError(StridedModel(), 2)
                .find("layer 0's kernel of 2 frames is longer than its "
                      "input of 1 frame"),
            std::string::npos);
}

TEST(Int8MlpConvFile, LastLayerMustBeDense) {
  EXPECT_NE(LoadError(With(StridedModel(), Int32("l1.conv", {1, 1, 4})), 8)
                .find("the last layer must be dense, yet it has a tensor 'l1.conv'"),
            std::string::npos);
}

TEST(Int8MlpConvFile, NextLayerTakesEveryPosition) {
  // l0 gives P * C = 2 * 2 = 4 values; an l1 over 2 of them (one position's) is refused.
  EXPECT_NE(LoadError(With(StridedModel(), Int8("l1.weight", {1, 2}, {2, -3})), 8)
                .find("layer 1 takes 2 inputs, expected 4"),
            std::string::npos);
}

TEST(Int8MlpConvFile, OutputsAreBounded) {
  // Frames of one value, kernel 1, stride 1: 2^24 positions x 2 channels.
  std::vector<Tensor> tensors = With(StridedModel(), Int32("l0.conv", {1, 1, 1}));
  tensors = With(tensors, Int8("l0.weight", {2, 1}, {1, 1}));
  EXPECT_NE(LoadError(tensors, 1 << 24).find("layer 0 has 16777216 x 2 outputs, more than 2^24"),
            std::string::npos);
}

TEST(Int8MlpFile, AccumulatorsCannotOverflow) {
  // Found by model_fuzz: a bias near 2^31 overflowed the int32 sum of the dot product and the bias.
  EXPECT_NE(LoadError(With(StridedModel(), Int32("l0.bias", {3, 2147385342})), 8)
                .find("layer 0 has a bias beyond 2^30"),
            std::string::npos);
  // Rows of 2^16 + 1 inputs (one frame of that many, kernel 1): 128 * 128 products could overflow.
  constexpr int kWide = (1 << 16) + 1;
  std::vector<Tensor> tensors = With(StridedModel(), Int32("l0.conv", {1, 1, kWide}));
  tensors = With(tensors, Int8("l0.weight", {2, kWide}, std::vector<int8_t>(2 * kWide, 1)));
  EXPECT_NE(LoadError(tensors, kWide).find("layer 0 reads 65537 inputs per row, more than 2^16"),
            std::string::npos);
}

// A classifier: the last layer has a row per class and no sigmoid table; each of its logits is
// the one the same row gives as a model of one output.
TEST(Int8MlpClassifier, EachLogitIsItsRowsAsAModelOfOneOutput) {
  const std::vector<std::vector<int8_t>> rows = {{2, -3, 1, 4}, {1, 1, 1, 1}, {-1, 0, 0, 2}};
  const std::vector<int32_t> biases = {5, 0, -4};
  std::vector<Tensor> classifier;
  for (const Tensor& t : StridedModel()) {
    if (t.name.rfind("l1.", 0) != 0 && t.name != "sigmoid") classifier.push_back(t);
  }
  classifier.push_back(Int8("l1.weight", {3, 4}, {2, -3, 1, 4, 1, 1, 1, 1, -1, 0, 0, 2}));
  classifier.push_back(Int32("l1.bias", biases));
  classifier.push_back(Int32("l1.mult", {kHalf, kHalf, kHalf}));
  classifier.push_back(Int32("l1.shift", {31, 31, 31}));
  const std::string path = WriteModel(classifier);
  auto file = ModelFile::Load(path, "test-mlp", FeatureKind::kLogMel, features::FrontEndConfig{});
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto mlp = Int8Mlp::Load(*file, 8, 3);
  ASSERT_TRUE(mlp.ok()) << mlp.error().message;
  EXPECT_EQ(mlp->outputs(), 3);
  Int8Mlp::Scratch scratch = mlp->MakeScratch();
  std::vector<int32_t> logits(3);
  mlp->RunLogits(kInput, scratch, logits);
  for (size_t o = 0; o < rows.size(); ++o) {
    auto one = Load(With(With(ConvModel(2, rows[o]), Int32("l1.bias", {biases[o]})),
                         Int32("l1.mult", {kHalf})), 8);
    ASSERT_TRUE(one.ok()) << one.error().message;
    Int8Mlp::Scratch s = one->MakeScratch();
    EXPECT_EQ(logits[o], one->RunLogit(kInput, s)) << o;
  }
  EXPECT_EQ(logits[0], 21);  // StridedWindowsByHand's
  // Loaded as a model of one output, or of two, it is refused.
  for (int outputs : {1, 2}) {
    auto wrong = Int8Mlp::Load(*file, 8, outputs);
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.error().message.find("the last layer has 3 outputs, expected " +
                                         std::to_string(outputs)),
              std::string::npos)
        << wrong.error().message;
  }
}

}  // namespace
}  // namespace earshot::models
