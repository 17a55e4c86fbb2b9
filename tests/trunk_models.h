// Keyword models that share a trunk, made by hand for the shared-trunk tests and the benchmark (and
// their random layers for conv_stream_test): the shape of tools/train/kws_trunk.py. 77 context
// frames (every 2nd hop, 1.5 s) x 20 pooled bands -> a convolution over 5 frames every 2 to 64
// channels (37 positions) -> over 5 positions every 2 to 64 (17) -> over 5 every 2 to 64 (7) ->
// dense 448 -> 16 -> the logit (Q4), a sigmoid table. The trunk (the three convolutions, the
// context and the transform) comes from one seed, the head (the two dense layers) from another:
// models of one trunk seed share their trunk byte for byte, and the heads differ.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/int8_mlp.h"
#include "tests/model_bytes.h"

namespace earshot::testing_util {

struct TrunkLayer {
  int kernel, stride, channels;
};
inline constexpr int kTrunkFrames = 77;
inline constexpr int kTrunkBands = 20;
inline constexpr TrunkLayer kTrunkLayers[] = {{5, 2, 64}, {5, 2, 64}, {5, 2, 64}};
inline constexpr int kHeadHidden = 16;

// Layer l's random weights and biases, requantised by 2^-shift (mult 2^30 / 2^shift): the shifts
// below keep the ReLU outputs of real audio's inputs within 0 .. 127 and varied.
inline void AddRandomLayer(std::vector<Tensor>& tensors, int l, int outputs, int inputs, int shift,
                           const std::vector<int32_t>& conv, std::mt19937& rng) {
  std::uniform_int_distribution<int> weight(-40, 40), bias(-1500, 3000);
  std::vector<int8_t> w(static_cast<size_t>(outputs) * static_cast<size_t>(inputs));
  for (int8_t& v : w) v = static_cast<int8_t>(weight(rng));
  std::vector<int32_t> b(static_cast<size_t>(outputs));
  for (int32_t& v : b) v = bias(rng);
  const std::string p = "l" + std::to_string(l) + ".";
  tensors.push_back(
      Int8(p + "weight", {static_cast<uint32_t>(outputs), static_cast<uint32_t>(inputs)}, w));
  tensors.push_back(Int32(p + "bias", b));
  tensors.push_back(Int32(p + "mult", std::vector<int32_t>(static_cast<size_t>(outputs), 1 << 30)));
  tensors.push_back(
      Int32(p + "shift", std::vector<int32_t>(static_cast<size_t>(outputs), shift + 30)));
  if (!conv.empty()) tensors.push_back(Int32(p + "conv", conv));
}

// The tensors of a keyword model ("kws-mlp") of trunk `trunk_seed` and head `head_seed`.
inline std::vector<Tensor> TrunkModelTensors(uint32_t trunk_seed, uint32_t head_seed) {
  std::vector<Tensor> tensors;
  std::vector<int32_t> context;
  for (int f = kTrunkFrames - 1; f >= 0; --f) context.push_back(-2 * f);
  tensors.push_back(Int32("context", context));
  tensors.push_back(Int32("kws_transform", {6, 7, -24, 63}));
  std::mt19937 trunk_rng(trunk_seed), head_rng(head_seed);
  int positions = kTrunkFrames, width = kTrunkBands, l = 0;
  for (const TrunkLayer& c : kTrunkLayers) {
    // Requantisation (2^-shift): the first layer's inputs are -24 .. 63, the others' 0 .. 127.
    const int shift = l == 0 ? 6 : 9;
    AddRandomLayer(tensors, l, c.channels, c.kernel * width, shift, {c.kernel, c.stride, width},
                   trunk_rng);
    ++l;
    positions = (positions - c.kernel) / c.stride + 1;
    width = c.channels;
  }
  AddRandomLayer(tensors, l, kHeadHidden, positions * width, 8, {}, head_rng);
  AddRandomLayer(tensors, l + 1, 1, kHeadHidden, 6, {}, head_rng);
  // sigmoid(logit / 16): the logit in Q4, as the bundled models' table.
  std::vector<uint16_t> sigmoid(2 * models::Int8Mlp::kLogitHalfRange);
  for (size_t k = 0; k < sigmoid.size(); ++k) {
    const double logit = (static_cast<double>(k) - models::Int8Mlp::kLogitHalfRange) / 16.0;
    sigmoid[k] = static_cast<uint16_t>(std::lround(32767.0 / (1.0 + std::exp(-logit))));
  }
  tensors.push_back(Make("sigmoid", models::TensorType::kUint16,
                         {static_cast<uint32_t>(sigmoid.size())}, sigmoid));
  return tensors;
}

}  // namespace earshot::testing_util
