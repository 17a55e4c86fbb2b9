#include "models/conv2d_net.h"

#include <algorithm>
#include <string>

namespace earshot::models {
namespace {

constexpr int kMaxLayers = 16, kMaxChannels = 1024, kMaxKernel = 15, kMaxStride = 8;
constexpr size_t kMaxUnfolded = size_t{1} << 22;  // floats of one convolution's unfolded input
constexpr int kPositionBlock = 8;                 // the output positions computed together

// n rounded up to whole blocks.
int RoundUp(int n, int block) { return (n + block - 1) / block * block; }

// Columns per row of an unfolded input (see Unfold) for `positions` outputs: whole position blocks.
int RowLength(int positions) { return RoundUp(positions, kPositionBlock); }

// Floats of convolution l's unfolded input for `positions` outputs.
size_t UnfoldedSize(const Conv2dLayer& l, int positions) {
  return static_cast<size_t>(l.in_channels) * l.kernel * l.kernel *
         static_cast<size_t>(RowLength(positions));
}

// PyTorch's output size of a convolution: floor((n + 2 padding - kernel) / stride) + 1.
int OutputSize(int n, const Conv2dLayer& l) {
  const int span = n + 2 * l.padding - l.kernel;
  return span < 0 ? 0 : span / l.stride + 1;
}

// Convolution l's name, its tensors' names up to the dot: "c0", "m1.c0", ...
std::string LayerName(const std::string& net_prefix, int l) {
  return net_prefix + "c" + std::to_string(l);
}

// Weights [out][taps] -> [out / kConvChannelBlock, rounded up][taps][kConvChannelBlock].
std::vector<float> Pack(const std::vector<float>& weight, int out, int taps) {
  std::vector<float> packed(static_cast<size_t>(RoundUp(out, kConvChannelBlock)) * taps, 0.0F);
  for (int o = 0; o < out; ++o) {
    for (int q = 0; q < taps; ++q) {
      packed[(static_cast<size_t>(o / kConvChannelBlock) * taps + q) * kConvChannelBlock +
             o % kConvChannelBlock] = weight[static_cast<size_t>(o) * taps + q];
    }
  }
  return packed;
}

Result<Conv2dLayer> LoadLayer(const ModelFile& file, const std::string& net_prefix, int l,
                              int in_channels) {
  const std::string name = LayerName(net_prefix, l), prefix = name + ".";
  Result<std::vector<uint32_t>> dims = file.Dims(prefix + "weight");
  if (!dims.ok()) return dims.error();
  if (dims->size() != 4 || (*dims)[2] != (*dims)[3]) {
    return file.Fail("tensor '" + prefix + "weight' must be [out][in][k][k]");
  }
  Conv2dLayer layer;
  layer.out_channels = static_cast<int>(std::min<uint32_t>((*dims)[0], kMaxChannels + 1));
  layer.in_channels = static_cast<int>(std::min<uint32_t>((*dims)[1], kMaxChannels + 1));
  layer.kernel = static_cast<int>(std::min<uint32_t>((*dims)[2], kMaxKernel + 1));
  if (layer.in_channels != in_channels) {
    return file.Fail("convolution " + name + " reads " + std::to_string(layer.in_channels) +
                     " channels, the input has " + std::to_string(in_channels));
  }
  if (layer.out_channels > kMaxChannels || layer.kernel > kMaxKernel) {
    return file.Fail("convolution " + name + " is too large (at most " +
                     std::to_string(kMaxChannels) + " channels, kernels of " +
                     std::to_string(kMaxKernel) + ")");
  }
  Result<std::vector<int32_t>> conv = file.Read<int32_t>(prefix + "conv", {2});
  if (!conv.ok()) return conv.error();
  layer.stride = (*conv)[0];
  layer.padding = (*conv)[1];
  if (layer.stride < 1 || layer.stride > kMaxStride || layer.padding < 0 ||
      layer.padding >= layer.kernel) {
    return file.Fail("convolution " + name + " has stride " + std::to_string(layer.stride) +
                     " and padding " + std::to_string(layer.padding) + " (stride 1.." +
                     std::to_string(kMaxStride) + ", padding under the kernel's " +
                     std::to_string(layer.kernel) + ")");
  }
  auto weight = file.Read<float>(prefix + "weight", *dims);
  if (!weight.ok()) return weight.error();
  auto bias = file.Read<float>(prefix + "bias", {static_cast<uint32_t>(layer.out_channels)});
  if (!bias.ok()) return bias.error();
  layer.weight = Pack(*weight, layer.out_channels, layer.in_channels * layer.kernel * layer.kernel);
  layer.bias = std::move(bias).value();
  return layer;
}

// The input windows of one convolution, unfolded: row q = (c, i, j) of the kernel, column p = the
// output position (y, x), `row_length` columns per row (a whole number of position blocks); zero
// where a window reaches outside the input or past the last position.
void Unfold(const Conv2dLayer& l, const std::vector<float>& in, int rows, int cols, int out_rows,
            int out_cols, int row_length, std::vector<float>& patches) {
  const int k = l.kernel;
  patches.assign(UnfoldedSize(l, out_rows * out_cols), 0.0F);
  float* row = patches.data();
  for (int c = 0; c < l.in_channels; ++c) {
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < k; ++j, row += row_length) {
        for (int y = 0; y < out_rows; ++y) {
          const int r = y * l.stride - l.padding + i;
          if (r < 0 || r >= rows) continue;
          const float* src = &in[(static_cast<size_t>(c) * rows + r) * cols];
          for (int x = 0; x < out_cols; ++x) {
            const int s = x * l.stride - l.padding + j;
            if (s >= 0 && s < cols) row[y * out_cols + x] = src[s];
          }
        }
      }
    }
  }
}

// One convolution and its ReLU: in [C_in][rows][cols] -> out [C_out][out_rows][out_cols]. Each
// block of kConvChannelBlock channels x kPositionBlock positions is summed in registers over the
// kernel's taps, every loop of fixed length, so that the compiler vectorises it.
void Convolve(const Conv2dLayer& l, const std::vector<float>& in, int rows, int cols,
              std::vector<float>& patches, std::vector<float>& out, int out_rows, int out_cols) {
  const int n = out_rows * out_cols, taps = l.in_channels * l.kernel * l.kernel;
  const int row_length = RowLength(n);
  Unfold(l, in, rows, cols, out_rows, out_cols, row_length, patches);
  out.resize(static_cast<size_t>(l.out_channels) * n);  // every value is written below
  for (int o0 = 0; o0 < l.out_channels; o0 += kConvChannelBlock) {
    const float* w = &l.weight[static_cast<size_t>(o0) * taps];
    for (int p0 = 0; p0 < n; p0 += kPositionBlock) {
      float acc[kConvChannelBlock][kPositionBlock] = {};
      for (int q = 0; q < taps; ++q) {
        const float* row = &patches[static_cast<size_t>(q) * row_length + p0];
        const float* wq = &w[static_cast<size_t>(q) * kConvChannelBlock];
#pragma GCC unroll 4  // whole, so that acc stays in registers
        for (int o = 0; o < kConvChannelBlock; ++o) {
#pragma GCC unroll 8
          for (int p = 0; p < kPositionBlock; ++p) acc[o][p] += wq[o] * row[p];
        }
      }
      for (int o = 0; o < std::min(kConvChannelBlock, l.out_channels - o0); ++o) {
        float* plane = &out[static_cast<size_t>(o0 + o) * n];
        for (int p = 0; p < std::min(kPositionBlock, n - p0); ++p) {
          plane[p0 + p] = std::max(0.0F, acc[o][p] + l.bias[o0 + o]);
        }
      }
    }
  }
}

}  // namespace

Result<Conv2dNet> Conv2dNet::Load(const ModelFile& file, const std::string& prefix, int rows,
                                  int cols, int classes) {
  Conv2dNet net;
  net.rows_ = rows;
  net.cols_ = cols;
  int channels = 1, r = rows, c = cols;
  for (int l = 0; file.Has(LayerName(prefix, l) + ".weight"); ++l) {
    if (l == kMaxLayers) return file.Fail("more than 16 convolutions");
    Result<Conv2dLayer> layer = LoadLayer(file, prefix, l, channels);
    if (!layer.ok()) return layer.error();
    r = OutputSize(r, *layer);
    c = OutputSize(c, *layer);
    if (r < 1 || c < 1) {
      return file.Fail("convolution " + LayerName(prefix, l) + " leaves no output of a " +
                       std::to_string(rows) + " x " + std::to_string(cols) + " input");
    }
    const size_t unfolded = UnfoldedSize(*layer, r * c);
    if (unfolded > kMaxUnfolded) {
      return file.Fail("convolution " + LayerName(prefix, l) + " would unfold its input to " +
                       std::to_string(unfolded) + " values (at most " +
                       std::to_string(kMaxUnfolded) + ")");
    }
    channels = layer->out_channels;
    net.layers_.push_back(std::move(layer).value());
  }
  if (net.layers_.empty()) {
    return file.Fail("tensor '" + LayerName(prefix, 0) + ".weight' is missing");
  }
  const auto out = static_cast<uint32_t>(classes);
  auto weight = file.Read<float>(prefix + "out.weight", {out, static_cast<uint32_t>(channels)});
  if (!weight.ok()) return weight.error();
  auto bias = file.Read<float>(prefix + "out.bias", {out});
  if (!bias.ok()) return bias.error();
  net.out_weight_ = std::move(weight).value();
  net.out_bias_ = std::move(bias).value();
  return net;
}

std::vector<float> Conv2dNet::Run(std::span<const float> input) const {
  std::vector<float> a(input.begin(), input.end()), b, patches;
  int rows = rows_, cols = cols_;
  for (const Conv2dLayer& l : layers_) {
    const int out_rows = OutputSize(rows, l), out_cols = OutputSize(cols, l);
    Convolve(l, a, rows, cols, patches, b, out_rows, out_cols);
    std::swap(a, b);
    rows = out_rows;
    cols = out_cols;
  }
  const int channels = layers_.back().out_channels;
  std::vector<float> mean(static_cast<size_t>(channels));
  for (int ch = 0; ch < channels; ++ch) {
    double sum = 0;
    for (int i = 0; i < rows * cols; ++i) sum += a[static_cast<size_t>(ch) * rows * cols + i];
    mean[static_cast<size_t>(ch)] = static_cast<float>(sum / (rows * cols));
  }
  std::vector<float> logits(out_bias_);
  for (size_t k = 0; k < logits.size(); ++k) {
    for (int ch = 0; ch < channels; ++ch) {
      logits[k] += out_weight_[k * static_cast<size_t>(channels) + static_cast<size_t>(ch)] *
                   mean[static_cast<size_t>(ch)];
    }
  }
  return logits;
}

}  // namespace earshot::models
