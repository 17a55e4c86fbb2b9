#include "models/int8_mlp.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "base/q15.h"
#include "models/int8_dot.h"
#include "models/requantize.h"

namespace earshot::models {
namespace {

// A bound on any layer's outputs (P * C) and so on the scratch buffers: far above any model's,
// it keeps a damaged file's geometry from asking for gigabytes.
constexpr int64_t kMaxLayerOutputs = int64_t{1} << 24;
constexpr int kMaxRowInputs = 1 << 16;
constexpr int64_t kMaxBias = int64_t{1} << 30;

// Layer l's inputs: the model's own (any int8), or the previous layer's ReLU outputs (0 .. 127).
Int8Inputs InputsOf(size_t l) { return l == 0 ? Int8Inputs::kAny : Int8Inputs::kNonNegative; }

// One position: the layer's C channels of one window of K inputs, a block of channels at a time
// (the accumulators on the stack: no allocation).
void Dense(const Int8Dense& layer, std::span<const int8_t> in, Int8Inputs kind,
           std::span<int8_t> out) {
  constexpr size_t kBlock = 64;
  int32_t acc[kBlock];
  const auto k = static_cast<size_t>(layer.inputs), c = static_cast<size_t>(layer.outputs);
  for (size_t first = 0; first < c; first += kBlock) {
    const size_t n = std::min(kBlock, c - first);
    DotRows(&layer.weight[first * k], n, k, in.data(), kind, acc);
    for (size_t j = 0; j < n; ++j) {
      const size_t o = first + j;
      const int64_t v = Requantize(acc[j] + layer.bias[o], layer.mult[o], layer.shift[o]);
      out[o] = static_cast<int8_t>(std::clamp<int64_t>(v, 0, 127));  // ReLU and int8
    }
  }
}

// Every position of a hidden layer (a dense layer has one), position-major.
void Hidden(const Int8Dense& layer, std::span<const int8_t> in, Int8Inputs kind,
            std::span<int8_t> out) {
  const auto k = static_cast<size_t>(layer.inputs), c = static_cast<size_t>(layer.outputs);
  for (size_t p = 0; p < static_cast<size_t>(layer.positions); ++p) {
    Dense(layer, in.subspan(p * layer.window_step(), k), kind, out.subspan(p * c, c));
  }
}

// The geometry of layer l over `input_size` inputs: a dense layer's (one frame of K, one
// position) without "l{l}.conv", else the convolution's, checked against the weight rows.
Status SetGeometry(const ModelFile& file, int l, int input_size, Int8Dense& layer) {
  const std::string name = "l" + std::to_string(l) + ".conv";
  const std::string at = "layer " + std::to_string(l);
  if (!file.Has(name)) {
    if (layer.inputs != input_size) {
      return file.Fail(at + " takes " + std::to_string(layer.inputs) + " inputs, expected " +
                       std::to_string(input_size));
    }
    layer.frame_width = input_size;
    return OkStatus();
  }
  Result<std::vector<int32_t>> conv = file.Read<int32_t>(name, {3});
  if (!conv.ok()) return conv.error();
  const int32_t k = (*conv)[0], s = (*conv)[1], w = (*conv)[2];
  if (k < 1 || s < 1 || w < 1) {
    return file.Fail("tensor '" + name + "' = {" + std::to_string(k) + ", " + std::to_string(s) +
                     ", " + std::to_string(w) +
                     "}: kernel_frames, stride_frames and frame_width must be at least 1");
  }
  if (input_size % w != 0) {
    return file.Fail(at + " takes " + std::to_string(input_size) +
                     " inputs, not a whole number of frames of " + std::to_string(w));
  }
  if (int64_t{k} * w != layer.inputs) {
    return file.Fail(at + " has weight rows of " + std::to_string(layer.inputs) +
                     " values, expected kernel_frames x frame_width = " + std::to_string(k) +
                     " x " + std::to_string(w));
  }
  const int frames = input_size / w;
  if (k > frames) {
    return file.Fail(at + "'s kernel of " + std::to_string(k) +
                     " frames is longer than its input of " + std::to_string(frames) + " frame" +
                     (frames == 1 ? "" : "s"));
  }
  layer.kernel_frames = k;
  layer.stride_frames = s;
  layer.frame_width = w;
  layer.input_frames = frames;
  layer.positions = (frames - k) / s + 1;
  return OkStatus();
}

// Layer l's tensors, over `input_size` inputs (the model's, or the previous layer's outputs).
Result<Int8Dense> LoadLayer(const ModelFile& file, int l, int input_size) {
  const std::string prefix = "l" + std::to_string(l) + ".";
  Result<std::vector<uint32_t>> dims = file.Dims(prefix + "weight");
  if (!dims.ok()) return dims.error();
  if (dims->size() != 2) return file.Fail("tensor '" + prefix + "weight' must be 2-D");
  Int8Dense layer;
  layer.outputs = static_cast<int>((*dims)[0]);
  layer.inputs = static_cast<int>((*dims)[1]);
  if (Status s = SetGeometry(file, l, input_size, layer); !s.ok()) return s.error();
  // |acc| < 2^31 (Requantize): a row's products are at most 128 * 128 each, so 2^16 inputs and
  // a bias under 2^30 keep the int32 accumulator from overflowing.
  if (layer.inputs > kMaxRowInputs) {
    return file.Fail("layer " + std::to_string(l) + " reads " + std::to_string(layer.inputs) +
                     " inputs per row, more than 2^16");
  }
  if (int64_t{layer.positions} * layer.outputs > kMaxLayerOutputs) {
    return file.Fail("layer " + std::to_string(l) + " has " + std::to_string(layer.positions) +
                     " x " + std::to_string(layer.outputs) + " outputs, more than 2^24");
  }
  const auto out = static_cast<uint32_t>(layer.outputs);
  auto weight = file.Read<int8_t>(prefix + "weight", *dims);
  auto bias = file.Read<int32_t>(prefix + "bias", {out});
  auto mult = file.Read<int32_t>(prefix + "mult", {out});
  auto shift = file.Read<int32_t>(prefix + "shift", {out});
  for (const Error* e :
       {weight.ok() ? nullptr : &weight.error(), bias.ok() ? nullptr : &bias.error(),
        mult.ok() ? nullptr : &mult.error(), shift.ok() ? nullptr : &shift.error()}) {
    if (e != nullptr) return *e;
  }
  layer.weight = std::move(weight).value();
  layer.bias = std::move(bias).value();
  layer.mult = std::move(mult).value();
  layer.shift = std::move(shift).value();
  for (int o = 0; o < layer.outputs; ++o) {
    if (layer.mult[o] <= 0 || layer.shift[o] < 1 || layer.shift[o] > 62) {
      return file.Fail("layer " + std::to_string(l) + " has an invalid requantisation");
    }
    if (std::abs(int64_t{layer.bias[o]}) >= kMaxBias) {
      return file.Fail("layer " + std::to_string(l) + " has a bias beyond 2^30");
    }
  }
  return layer;
}

}  // namespace

Result<Int8Mlp> Int8Mlp::Load(const ModelFile& file, int inputs, int outputs) {
  Int8Mlp mlp;
  for (int l = 0; file.Has("l" + std::to_string(l) + ".weight"); ++l) {
    const int input_size = l == 0 ? inputs : mlp.layers_.back().total_outputs();
    Result<Int8Dense> layer = LoadLayer(file, l, input_size);
    if (!layer.ok()) return layer.error();
    mlp.layers_.push_back(std::move(layer).value());
  }
  if (mlp.layers_.empty()) return file.Fail("tensor 'l0.weight' is missing");
  const std::string last = "l" + std::to_string(mlp.layers_.size() - 1) + ".conv";
  if (file.Has(last)) {
    return file.Fail("the last layer must be dense, yet it has a tensor '" + last + "'");
  }
  if (mlp.layers_.back().outputs != outputs) {
    return file.Fail("the last layer has " + std::to_string(mlp.layers_.back().outputs) +
                     " outputs, expected " + std::to_string(outputs));
  }
  if (outputs != 1) return mlp;  // a classifier: logits, no table
  auto sigmoid = file.Read<uint16_t>("sigmoid", {2 * kLogitHalfRange});
  if (!sigmoid.ok()) return sigmoid.error();
  // Scores are probabilities in Q15 (a threshold of 32768 is never reached: kws.h).
  if (*std::max_element(sigmoid->begin(), sigmoid->end()) > kQ15Max) {
    return file.Fail("the sigmoid table holds scores above 32767, 1.0 in Q15");
  }
  mlp.sigmoid_q15_ = std::move(sigmoid).value();
  return mlp;
}

Int8Mlp::Scratch Int8Mlp::MakeScratch() const {
  int widest = 0;
  for (const Int8Dense& l : layers_) widest = std::max(widest, l.total_outputs());
  return Scratch{std::vector<int8_t>(widest), std::vector<int8_t>(widest)};
}

int32_t Int8Mlp::RunLogit(std::span<const int8_t> input, Scratch& scratch) const {
  return RunLogitFrom(0, input, scratch);
}

std::span<const int8_t> Int8Mlp::HiddenFrom(size_t first, std::span<const int8_t> input,
                                            Scratch& scratch) const {
  std::span<const int8_t> in = input;
  for (size_t l = first; l + 1 < layers_.size(); ++l) {
    std::vector<int8_t>& out = (l % 2 == 0) ? scratch.a : scratch.b;
    Hidden(layers_[l], in, InputsOf(l), out);
    in = std::span<const int8_t>(out.data(), static_cast<size_t>(layers_[l].total_outputs()));
  }
  return in;
}

// The last layer's output o over its input `in`: requantised to the logit's Q-format, clamped.
int32_t Int8Mlp::OutputLogit(std::span<const int8_t> in, size_t o) const {
  const Int8Dense& last = layers_.back();
  const auto k = static_cast<size_t>(last.inputs);
  int32_t acc = 0;
  DotRows(&last.weight[o * k], 1, k, in.data(), InputsOf(layers_.size() - 1), &acc);
  acc += last.bias[o];
  return static_cast<int32_t>(std::clamp<int64_t>(Requantize(acc, last.mult[o], last.shift[o]),
                                                  -kLogitHalfRange, kLogitHalfRange - 1));
}

int32_t Int8Mlp::RunLogitFrom(size_t first, std::span<const int8_t> input, Scratch& scratch) const {
  return OutputLogit(HiddenFrom(first, input, scratch), 0);
}

void Int8Mlp::RunLogits(std::span<const int8_t> input, Scratch& scratch,
                        std::span<int32_t> logits) const {
  const std::span<const int8_t> in = HiddenFrom(0, input, scratch);
  for (size_t o = 0; o < logits.size(); ++o) logits[o] = OutputLogit(in, o);
}

uint16_t Int8Mlp::Run(std::span<const int8_t> input, Scratch& scratch) const {
  return RunFrom(0, input, scratch);
}

void Int8Mlp::RunWindow(int l, std::span<const int8_t> window, std::span<int8_t> out) const {
  Dense(layers_[static_cast<size_t>(l)], window, InputsOf(static_cast<size_t>(l)), out);
}

uint16_t Int8Mlp::RunFrom(int first, std::span<const int8_t> input, Scratch& scratch) const {
  const int32_t logit = RunLogitFrom(static_cast<size_t>(first), input, scratch);
  return sigmoid_q15_[static_cast<size_t>(logit + kLogitHalfRange)];
}

}  // namespace earshot::models
