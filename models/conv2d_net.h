// Conv2dNet: a small float32 convolutional classifier over a one-channel rows x cols input (the
// command classifier's bands x frames): convolutions over both axes (square kernels, zeros outside
// the input, batch norm folded into their weights, ReLU), the mean of the last one's outputs over
// rows and columns, then one linear layer to one logit per class; as PyTorch's Conv2d, ReLU,
// mean and Linear compute them (tools/train/train_commands.py writes the file).
//
// Tensors of convolution l (c0, c1, ...): "c{l}.weight" float32 [C_out][C_in][k][k], "c{l}.bias"
// float32 [C_out], "c{l}.conv" int32 [2] = {stride, padding}; then "out.weight" float32
// [classes][C_last] and "out.bias" float32 [classes]; each name may start with a prefix, so one
// file can hold several networks. Immutable; Run allocates its buffers (it runs once per command,
// not per frame), among them each convolution's input unfolded into rows of its kernel's taps: at
// most 4M floats, which Load checks.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "models/model_file.h"

namespace earshot::models {

// The output channels a convolution computes together (Conv2dLayer::weight's blocks).
inline constexpr int kConvChannelBlock = 4;

struct Conv2dLayer {
  int in_channels = 0, out_channels = 0, kernel = 0, stride = 1, padding = 0;
  // Packed at load for the inner loop: [out / kConvChannelBlock, rounded up][in][kernel][kernel]
  // [kConvChannelBlock], zeros for the channels past `out_channels`.
  std::vector<float> weight;
  std::vector<float> bias;  // [out]
};

class Conv2dNet {
 public:
  // The convolutions and the output layer of `file` whose tensor names start with `prefix`, for
  // inputs of rows x cols (every layer must leave at least one output) and `classes` outputs.
  static Result<Conv2dNet> Load(const ModelFile& file, const std::string& prefix, int rows,
                                int cols, int classes);

  // The logits of one input, rows x cols, row-major.
  std::vector<float> Run(std::span<const float> input) const;

 private:
  std::vector<Conv2dLayer> layers_;
  std::vector<float> out_weight_;  // [classes][C_last]
  std::vector<float> out_bias_;
  int rows_ = 0, cols_ = 0;
};

}  // namespace earshot::models
