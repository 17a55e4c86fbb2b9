// The streamed convolutions (models/kws/conv_stream.h) against the whole network on each hop's
// stacked inputs, on random hand-made networks of one, two and three convolutions: the same
// scores, bit for bit, from the stream's first hop on.
#include "models/kws/conv_stream.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "features/front_end_config.h"
#include "models/model_file.h"
#include "tests/model_writer.h"
#include "tests/trunk_models.h"

namespace earshot::kws {
namespace {

using testing_util::Tensor;

using Conv = testing_util::TrunkLayer;

// A network over `frames` frames of `width` values: the convolutions, a dense hidden layer of 8,
// the logit; the sigmoid table a ramp, so scores show the logit.
models::Int8Mlp RandomNetwork(int frames, int width, const std::vector<Conv>& convs,
                              uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Tensor> tensors;
  int positions = frames, frame_width = width, l = 0;
  for (const Conv& c : convs) {
    testing_util::AddRandomLayer(tensors, l++, c.channels, c.kernel * frame_width, 6,
                                 {c.kernel, c.stride, frame_width}, rng);
    positions = (positions - c.kernel) / c.stride + 1;
    frame_width = c.channels;
  }
  testing_util::AddRandomLayer(tensors, l++, 8, positions * frame_width, 8, {}, rng);
  testing_util::AddRandomLayer(tensors, l, 1, 8, 4, {}, rng);
  std::vector<uint16_t> ramp(2 * models::Int8Mlp::kLogitHalfRange);
  for (size_t k = 0; k < ramp.size(); ++k) ramp[k] = static_cast<uint16_t>(k);
  tensors.push_back(testing_util::Make("sigmoid", models::TensorType::kUint16,
                                       {static_cast<uint32_t>(ramp.size())}, ramp));
  const std::string path = testing_util::WriteModel("test-mlp", tensors, "conv_stream_test.eshm");
  auto file = models::ModelFile::Load(path, "test-mlp", models::FeatureKind::kLogMel,
                                      features::FrontEndConfig{});
  EXPECT_TRUE(file.ok()) << file.error().message;
  auto mlp = models::Int8Mlp::Load(*file, frames * width);
  EXPECT_TRUE(mlp.ok()) << mlp.error().message;
  return std::move(mlp).value();
}

// Streams `hops` random frames through the network over `frames` context frames every `spacing`
// hops; the scores must be the whole network's on each hop's stacked frames.
void ExpectStreamIsWholeNetwork(int frames, int spacing, const std::vector<Conv>& convs) {
  constexpr int kWidth = 4;
  const models::Int8Mlp mlp = RandomNetwork(frames, kWidth, convs, 7);
  std::vector<int32_t> context;
  for (int f = frames - 1; f >= 0; --f) context.push_back(-f * spacing);
  std::optional<ConvStream> stream = ConvStream::For(mlp, context, kWidth);
  ASSERT_TRUE(stream.has_value());
  models::ContextStack stack(kWidth, context);
  models::Int8Mlp::Scratch scratch = mlp.MakeScratch(), whole_scratch = mlp.MakeScratch();
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<uint16_t> streamed, whole;
  const int hops = 3 * frames * spacing;  // past the longest lag, and before it
  for (int t = 0; t < hops; ++t) {
    for (int8_t& v : stack.Next()) v = static_cast<int8_t>(value(rng));
    stack.Commit();
    streamed.push_back(stream->Run(mlp, t, stack, scratch));
    whole.push_back(mlp.Run(stack.Stack(t), whole_scratch));
  }
  EXPECT_EQ(streamed, whole);
  // Not a degenerate network: its scores vary.
  EXPECT_GT(std::set<uint16_t>(whole.begin(), whole.end()).size(), static_cast<size_t>(hops / 4));
}

TEST(ConvStream, OneConvolutionIsTheWholeNetwork) {
  ExpectStreamIsWholeNetwork(23, 2, {{5, 2, 6}});
}

TEST(ConvStream, TwoConvolutionsAreTheWholeNetwork) {
  ExpectStreamIsWholeNetwork(23, 2, {{5, 2, 6}, {3, 2, 5}});  // 10 then 4 positions
  ExpectStreamIsWholeNetwork(30, 3, {{4, 3, 6}, {2, 1, 5}});  // 9 then 8
}

TEST(ConvStream, ThreeConvolutionsAreTheWholeNetwork) {
  ExpectStreamIsWholeNetwork(41, 2, {{5, 2, 6}, {3, 2, 5}, {2, 3, 4}});  // 19, 9, 3 positions
}

}  // namespace
}  // namespace earshot::kws
