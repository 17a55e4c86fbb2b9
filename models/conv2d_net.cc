#include "models/conv2d_net.h"

#include <algorithm>
#include <string>

namespace earshot::models {
namespace {

constexpr int kMaxLayers = 16, kMaxChannels = 1024, kMaxKernel = 15, kMaxStride = 8;

// PyTorch's output size of a convolution: floor((n + 2 padding - kernel) / stride) + 1.
int OutputSize(int n, const Conv2dLayer& l) {
  const int span = n + 2 * l.padding - l.kernel;
  return span < 0 ? 0 : span / l.stride + 1;
}

// Convolution l's name, its tensors' names up to the dot: "c0", "m1.c0", ...
std::string LayerName(const std::string& net_prefix, int l) {
  return net_prefix + "c" + std::to_string(l);
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
  layer.weight = std::move(weight).value();
  layer.bias = std::move(bias).value();
  return layer;
}

// One convolution and its ReLU: in [C_in][rows][cols] -> out [C_out][out_rows][out_cols].
void Convolve(const Conv2dLayer& l, const std::vector<float>& in, int rows, int cols,
              std::vector<float>& out, int out_rows, int out_cols) {
  const int k = l.kernel;
  out.assign(static_cast<size_t>(l.out_channels) * out_rows * out_cols, 0.0F);
  for (int o = 0; o < l.out_channels; ++o) {
    float* plane = &out[static_cast<size_t>(o) * out_rows * out_cols];
    for (int c = 0; c < l.in_channels; ++c) {
      const float* w = &l.weight[(static_cast<size_t>(o) * l.in_channels + c) * k * k];
      const float* src = &in[static_cast<size_t>(c) * rows * cols];
      for (int y = 0; y < out_rows; ++y) {
        const int top = y * l.stride - l.padding;  // the window's first row, maybe outside
        const int i0 = std::max(0, -top), i1 = std::min(k, rows - top);
        for (int x = 0; x < out_cols; ++x) {
          const int left = x * l.stride - l.padding;
          const int j0 = std::max(0, -left), j1 = std::min(k, cols - left);
          float sum = 0;
          for (int i = i0; i < i1; ++i) {
            const float* wi = &w[i * k + j0];
            const float* si = &src[(top + i) * cols + left + j0];
            for (int j = 0; j < j1 - j0; ++j) sum += wi[j] * si[j];
          }
          plane[y * out_cols + x] += sum;
        }
      }
    }
    for (int i = 0; i < out_rows * out_cols; ++i) plane[i] = std::max(0.0F, plane[i] + l.bias[o]);
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
  std::vector<float> a(input.begin(), input.end()), b;
  int rows = rows_, cols = cols_;
  for (const Conv2dLayer& l : layers_) {
    const int out_rows = OutputSize(rows, l), out_cols = OutputSize(cols, l);
    Convolve(l, a, rows, cols, b, out_rows, out_cols);
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
