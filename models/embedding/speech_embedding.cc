#include "models/embedding/speech_embedding.h"

#include <algorithm>
#include <cmath>

#include "models/int8_dot.h"
#include "models/requantize.h"

namespace earshot::embedding {
namespace {

constexpr int kMaxLayers = 64;
constexpr int kMaxChannels = 1024;
constexpr int kMaxKernel = 8;
// Sums stay under 2^30 and, with a bias under 2^30, under 2^31: the first layer multiplies int8
// weights by int32 log-mel values under 2^16 in magnitude (dB Q8 plus an offset under 2^15), so
// 128 taps; later layers int8 by int8 (2^14 at most), so 2^16 taps.
constexpr int kMaxFirstWindow = 128;
constexpr int kMaxWindow = 1 << 16;
constexpr int64_t kMaxBias = int64_t{1} << 30;
constexpr int32_t kMaxOffsetQ8 = 1 << 15;

Result<std::vector<int32_t>> ReadInts(const models::ModelFile& file, const std::string& name,
                                      uint32_t n) {
  return file.Read<int32_t>(name, {n});
}

// Layer l's geometry and activation, checked against the layer before it (C_in, width).
Status ReadGeometry(const models::ModelFile& file, int l, int in_channels, int in_width,
                    EmbeddingLayer& layer) {
  const std::string at = "l" + std::to_string(l) + ".";
  auto geometry = ReadInts(file, at + "geometry", 6);
  if (!geometry.ok()) return geometry.error();
  auto activation = ReadInts(file, at + "activation", 2);
  if (!activation.ok()) return activation.error();
  const std::vector<int32_t>& g = *geometry;
  layer.kernel_rows = g[0];
  layer.kernel_width = g[1];
  layer.in_channels = g[2];
  layer.pad_width = g[3];
  layer.pool_rows = g[4];
  layer.pool_width = g[5];
  layer.in_width = in_width;
  layer.slope_q16 = (*activation)[0];
  layer.floor = (*activation)[1];
  const auto bad = [&](const std::string& what) {
    return Status(file.Fail(at + "geometry: " + what));
  };
  if (g[0] < 1 || g[0] > kMaxKernel || g[1] < 1 || g[1] > kMaxKernel)
    return bad("kernel out of range");
  if (g[2] != in_channels) {
    return bad("reads " + std::to_string(g[2]) + " channels, the layer before gives " +
               std::to_string(in_channels));
  }
  if (g[3] < 0 || g[3] >= g[1]) return bad("padding out of range");
  if (g[4] < 1 || g[4] > 2 || g[5] < 1 || g[5] > 2) return bad("max-pool must be 1 or 2 each way");
  if (layer.conv_width() < 1 || layer.out_width() < 1) return bad("leaves no mel position");
  if (layer.slope_q16 < 0 || layer.slope_q16 > 65536 || layer.floor < -128 || layer.floor > 0) {
    return file.Fail(at + "activation out of range");
  }
  return OkStatus();
}

// Layer l's weights and requantisation, once its geometry is known.
Status ReadWeights(const models::ModelFile& file, int l, EmbeddingLayer& layer) {
  const std::string at = "l" + std::to_string(l) + ".";
  auto dims = file.Dims(at + "weight");
  if (!dims.ok()) return dims.error();
  if (dims->size() != 2 || (*dims)[0] < 1 || (*dims)[0] > kMaxChannels) {
    return file.Fail(at + "weight must be [C_out][K] with C_out in [1, 1024]");
  }
  const uint32_t out = (*dims)[0];
  const int limit = l == 0 ? kMaxFirstWindow : kMaxWindow;
  if (layer.window() > limit) return file.Fail(at + "weight rows are too long");
  auto weight = file.Read<int8_t>(at + "weight", {out, static_cast<uint32_t>(layer.window())});
  if (!weight.ok()) return weight.error();
  auto bias = ReadInts(file, at + "bias", out);
  if (!bias.ok()) return bias.error();
  auto mult = ReadInts(file, at + "mult", out);
  if (!mult.ok()) return mult.error();
  auto shift = ReadInts(file, at + "shift", out);
  if (!shift.ok()) return shift.error();
  for (uint32_t o = 0; o < out; ++o) {
    if ((*mult)[o] <= 0 || (*shift)[o] < 1 || (*shift)[o] > 62 ||
        std::abs(int64_t{(*bias)[o]}) >= kMaxBias) {
      return file.Fail("layer " + std::to_string(l) +
                       "'s bias, mult or shift out of range at channel " + std::to_string(o));
    }
  }
  layer.out_channels = static_cast<int>(out);
  layer.weight = std::move(weight).value();
  layer.bias = std::move(bias).value();
  layer.mult = std::move(mult).value();
  layer.shift = std::move(shift).value();
  return OkStatus();
}

// The frames one output needs, and the frames between two outputs, as the layers compute them.
std::pair<int, int> WindowAndStep(const std::vector<EmbeddingLayer>& layers) {
  int rows = 1, step = 1;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    rows = rows * it->pool_rows + it->kernel_rows - 1;
    step *= it->pool_rows;
  }
  return {rows, step};
}

// One position's C outputs from their accumulators: requantised, the clipped leaky ReLU, int8.
// Without an activation the slope is 1 (65536) and the floor -128.
void ActivateRow(const EmbeddingLayer& layer, const int32_t* acc, bool simd, int8_t* out) {
  const bool active = layer.slope_q16 != 0;
  const models::RequantizeParams params{layer.bias.data(), layer.mult.data(), layer.shift.data(),
                                        active ? layer.slope_q16 : 65536,
                                        active ? layer.floor : -128};
  const auto n = static_cast<size_t>(layer.out_channels);
  (simd ? models::RequantizeRow : models::RequantizeRowPlain)(acc, n, params, out);
}

}  // namespace

Result<SpeechEmbedding> SpeechEmbedding::Load(const std::string& path,
                                              const features::FrontEndConfig& front_end) {
  auto file = models::ModelFile::Load(path, kKind, models::FeatureKind::kEmbeddingMel, front_end);
  if (!file.ok()) return file.error();
  if (file->features().mel_bands != kBands) return file->Fail("expects 32 mel bands");
  SpeechEmbedding m;
  auto input = ReadInts(*file, "input", 3);
  if (!input.ok()) return input.error();
  m.input_offset_q8_ = (*input)[0];
  m.window_frames_ = (*input)[1];
  m.step_frames_ = (*input)[2];
  if (std::abs(m.input_offset_q8_) >= kMaxOffsetQ8) return file->Fail("input offset out of range");
  int channels = 1, width = kBands;
  for (int l = 0; file->Has("l" + std::to_string(l) + ".weight"); ++l) {
    if (l == kMaxLayers) return file->Fail("more than 64 layers");
    EmbeddingLayer layer;
    if (Status s = ReadGeometry(*file, l, channels, width, layer); !s.ok()) return s.error();
    if (Status s = ReadWeights(*file, l, layer); !s.ok()) return s.error();
    channels = layer.out_channels;
    width = layer.out_width();
    m.layers_.push_back(std::move(layer));
  }
  if (m.layers_.empty() || width != 1 || channels != kDims) {
    return file->Fail("the layers must end in one mel position of 96 channels");
  }
  if (WindowAndStep(m.layers_) != std::pair{m.window_frames_, m.step_frames_}) {
    return file->Fail("the layers' window and step differ from the 'input' tensor's");
  }
  const EmbeddingLayer& first = m.layers_.front();  // [C_out][K] -> [K][C_out], int32
  const auto k = static_cast<size_t>(first.window()), c = static_cast<size_t>(first.out_channels);
  m.first_weight_t_.resize(k * c);
  for (size_t o = 0; o < c; ++o) {
    for (size_t j = 0; j < k; ++j) m.first_weight_t_[j * c + o] = first.weight[o * k + j];
  }
  auto scale = file->Read<float>("out_scale", {1});
  if (!scale.ok()) return scale.error();
  m.out_scale_ = (*scale)[0];
  if (!(m.out_scale_ > 0)) return file->Fail("out_scale must be positive");
  return m;
}

size_t SpeechEmbedding::weight_bytes() const {
  size_t bytes = 0;
  for (const EmbeddingLayer& l : layers_) {
    bytes += l.weight.size() + 4 * (l.bias.size() + l.mult.size() + l.shift.size());
  }
  return bytes + 4 * first_weight_t_.size();
}

EmbeddingStream::EmbeddingStream(const SpeechEmbedding& model, bool allow_simd)
    : model_(&model), simd_(allow_simd), embedding_(SpeechEmbedding::kDims) {
  size_t window = 0, conv = 0, acc = 0;
  for (const EmbeddingLayer& l : model.layers()) {
    Rows rows;
    const size_t row = static_cast<size_t>(l.in_width + 2 * l.pad_width) * l.in_channels;
    (rows_.empty() ? rows.wide.resize(row * l.kernel_rows)
                   : rows.narrow.resize(row * l.kernel_rows));
    if (l.pool_rows > 1) rows.held.resize(static_cast<size_t>(l.out_width()) * l.out_channels);
    rows_.push_back(std::move(rows));
    window = std::max(window, static_cast<size_t>(l.window()));
    conv = std::max(conv, static_cast<size_t>(l.conv_width()) * l.out_channels);
    acc = std::max(acc, static_cast<size_t>(l.out_channels));
  }
  window_.resize(2 * window);  // two positions' windows (Convolve)
  conv_out_.resize(conv);
  pooled_.resize(conv);
  acc_.resize(2 * acc);
}

void EmbeddingStream::Reset() {
  for (Rows& r : rows_) {
    std::fill(r.wide.begin(), r.wide.end(), 0);
    std::fill(r.narrow.begin(), r.narrow.end(), 0);
    r.pushed = 0;
  }
}

size_t EmbeddingStream::state_bytes() const {
  size_t bytes =
      window_.size() + conv_out_.size() + pooled_.size() + 4 * acc_.size() + embedding_.size();
  for (const Rows& r : rows_) bytes += 4 * r.wide.size() + r.narrow.size() + r.held.size();
  return bytes;
}

std::optional<std::span<const int8_t>> EmbeddingStream::Push(
    std::span<const int16_t> logmel_db_q8) {
  const EmbeddingLayer& first = model_->layers().front();
  Rows& rows = rows_.front();
  const size_t row = static_cast<size_t>(first.in_width + 2 * first.pad_width);
  int32_t* out = rows.wide.data() + static_cast<size_t>(rows.pushed % first.kernel_rows) * row +
                 first.pad_width;
  for (int b = 0; b < first.in_width; ++b) out[b] = logmel_db_q8[b] + model_->input_offset_q8();
  ++rows.pushed;
  if (!PushRow(0)) return std::nullopt;
  return std::span<const int8_t>(embedding_);
}

std::span<int8_t> EmbeddingStream::NewestRow(size_t l) {
  const EmbeddingLayer& layer = model_->layers()[l];
  Rows& rows = rows_[l];
  const size_t row = static_cast<size_t>(layer.in_width + 2 * layer.pad_width) * layer.in_channels;
  const size_t pad = static_cast<size_t>(layer.pad_width) * layer.in_channels;
  return {rows.narrow.data() + static_cast<size_t>(rows.pushed % layer.kernel_rows) * row + pad,
          static_cast<size_t>(layer.in_width) * layer.in_channels};
}

bool EmbeddingStream::PushRow(size_t first) {
  const std::vector<EmbeddingLayer>& layers = model_->layers();
  for (size_t l = first; l < layers.size(); ++l) {
    const EmbeddingLayer& layer = layers[l];
    Rows& rows = rows_[l];
    if (rows.pushed < layer.kernel_rows) return false;
    const auto channels = static_cast<size_t>(layer.out_channels);
    const size_t conv = static_cast<size_t>(layer.conv_width()) * channels;
    Convolve(l, {conv_out_.data(), conv});
    // The max-pool across mel: pairs of positions (a lone last one is dropped, as the graph's).
    const size_t width = static_cast<size_t>(layer.out_width()) * channels;
    if (layer.pool_width == 1) {
      std::copy_n(conv_out_.begin(), width, pooled_.begin());
    } else {  // pairs: position x takes 2x and 2x + 1
      for (size_t x = 0; x < width; x += channels) {
        const int8_t* a = conv_out_.data() + 2 * x;
        for (size_t c = 0; c < channels; ++c) pooled_[x + c] = std::max(a[c], a[channels + c]);
      }
    }
    // The max-pool across time: the first row of each pair is held until the second.
    if (layer.pool_rows == 2) {
      if ((rows.pushed - layer.kernel_rows) % 2 == 0) {
        std::copy_n(pooled_.begin(), width, rows.held.begin());
        return false;
      }
      for (size_t i = 0; i < width; ++i) pooled_[i] = std::max(pooled_[i], rows.held[i]);
    }
    if (l + 1 == layers.size()) {
      std::copy_n(pooled_.begin(), width, embedding_.begin());
      return true;
    }
    std::span<int8_t> next = NewestRow(l + 1);
    std::copy_n(pooled_.begin(), width, next.begin());
    ++rows_[l + 1].pushed;
  }
  return false;
}

// The first layer: int32 log-mel inputs, a few taps, the channels innermost (weights transposed
// at construction) so that the compiler vectorises across them.
void EmbeddingStream::ConvolveFirst(std::span<int8_t> out) {
  const EmbeddingLayer& layer = model_->layers().front();
  const Rows& rows = rows_.front();
  const auto kt = static_cast<size_t>(layer.kernel_rows),
             kw = static_cast<size_t>(layer.kernel_width);
  const size_t row = static_cast<size_t>(layer.in_width + 2 * layer.pad_width);
  const auto c = static_cast<size_t>(layer.out_channels);
  const int64_t oldest = rows.pushed - layer.kernel_rows;
  int32_t* __restrict acc = acc_.data();  // apart from the weights: the loop vectorises
  for (size_t x = 0; x < static_cast<size_t>(layer.conv_width()); ++x) {
    std::fill_n(acc, c, 0);
    for (size_t t = 0; t < kt; ++t) {
      const int32_t* in =
          rows.wide.data() + static_cast<size_t>((oldest + int64_t(t)) % int64_t(kt)) * row + x;
      for (size_t j = 0; j < kw; ++j) {
        const int32_t v = in[j];
        const int32_t* __restrict w = model_->first_weight_t().data() + (t * kw + j) * c;
        for (size_t o = 0; o < c; ++o) acc[o] += w[o] * v;
      }
    }
    ActivateRow(layer, acc, simd_, out.data() + x * c);
  }
}

// Position x's window of layer l's newest rows (l > 0): the row itself where the kernel reads one
// row (contiguous), else its rows gathered into `gather`.
const int8_t* EmbeddingStream::WindowAt(size_t l, size_t x, int8_t* gather) const {
  const EmbeddingLayer& layer = model_->layers()[l];
  const Rows& rows = rows_[l];
  const auto kt = static_cast<int64_t>(layer.kernel_rows);
  const auto cin = static_cast<size_t>(layer.in_channels);
  const auto span = static_cast<size_t>(layer.kernel_width) * cin;  // one row's part of a window
  const size_t row = static_cast<size_t>(layer.in_width + 2 * layer.pad_width) * cin;
  const int64_t oldest = rows.pushed - kt;
  if (kt == 1) return rows.narrow.data() + static_cast<size_t>(oldest % kt) * row + x * cin;
  for (int64_t t = 0; t < kt; ++t) {
    const int8_t* src = rows.narrow.data() + static_cast<size_t>((oldest + t) % kt) * row + x * cin;
    std::copy_n(src, span, gather + static_cast<size_t>(t) * span);
  }
  return gather;
}

// Layer l > 0 at every position: with SIMD, two positions per pass through the weights.
void EmbeddingStream::Convolve(size_t l, std::span<int8_t> out) {
  if (l == 0) return ConvolveFirst(out);
  const EmbeddingLayer& layer = model_->layers()[l];
  const auto k = static_cast<size_t>(layer.window()), c = static_cast<size_t>(layer.out_channels);
  const auto width = static_cast<size_t>(layer.conv_width());
  const int8_t* w = layer.weight.data();
  size_t x = 0;
  for (; simd_ && x + 2 <= width; x += 2) {
    const int8_t* in0 = WindowAt(l, x, window_.data());
    const int8_t* in1 = WindowAt(l, x + 1, window_.data() + k);
    models::DotRows2(w, c, k, in0, in1, acc_.data(), acc_.data() + c);
    ActivateRow(layer, acc_.data(), true, out.data() + x * c);
    ActivateRow(layer, acc_.data() + c, true, out.data() + (x + 1) * c);
  }
  for (; x < width; ++x) {
    const int8_t* in = WindowAt(l, x, window_.data());
    if (simd_) {
      models::DotRows(w, c, k, in, models::Int8Inputs::kAny, acc_.data());
    } else {
      models::DotRowsPlain(w, c, k, in, acc_.data());
    }
    ActivateRow(layer, acc_.data(), simd_, out.data() + x * c);
  }
}

}  // namespace earshot::embedding
