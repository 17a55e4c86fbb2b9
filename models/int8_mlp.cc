#include "models/int8_mlp.h"

#include <algorithm>

namespace earshot::models {
namespace {

// acc * mult / 2^shift, rounded: |acc| < 2^31 and mult < 2^31, so the product fits in int64.
inline int64_t Requantize(int32_t acc, int32_t mult, int32_t shift) {
  return (int64_t{acc} * mult + (int64_t{1} << (shift - 1))) >> shift;
}

void Dense(const Int8Dense& layer, std::span<const int8_t> in, std::span<int8_t> out) {
  for (int o = 0; o < layer.outputs; ++o) {
    const int8_t* w = &layer.weight[static_cast<size_t>(o) * layer.inputs];
    int32_t acc = layer.bias[o];
    for (int i = 0; i < layer.inputs; ++i) acc += int32_t{w[i]} * in[i];
    const int64_t v = Requantize(acc, layer.mult[o], layer.shift[o]);
    out[o] = static_cast<int8_t>(std::clamp<int64_t>(v, 0, 127));  // ReLU and int8
  }
}

}  // namespace

Result<Int8Mlp> Int8Mlp::Load(const ModelFile& file, int inputs) {
  Int8Mlp mlp;
  for (int l = 0;; ++l) {
    const std::string prefix = "l" + std::to_string(l) + ".";
    Result<std::vector<uint32_t>> dims = file.Dims(prefix + "weight");
    if (!dims.ok()) break;
    if (dims->size() != 2) return file.Fail("tensor '" + prefix + "weight' must be 2-D");
    Int8Dense layer;
    layer.outputs = static_cast<int>((*dims)[0]);
    layer.inputs = static_cast<int>((*dims)[1]);
    const int expected_inputs = l == 0 ? inputs : mlp.layers_.back().outputs;
    if (layer.inputs != expected_inputs) {
      return file.Fail("layer " + std::to_string(l) + " takes " + std::to_string(layer.inputs) +
                       " inputs, expected " + std::to_string(expected_inputs));
    }
    const auto out = static_cast<uint32_t>(layer.outputs);
    auto weight = file.Read<int8_t>(prefix + "weight", *dims);
    auto bias = file.Read<int32_t>(prefix + "bias", {out});
    auto mult = file.Read<int32_t>(prefix + "mult", {out});
    auto shift = file.Read<int32_t>(prefix + "shift", {out});
    for (const Error* e : {weight.ok() ? nullptr : &weight.error(), bias.ok() ? nullptr : &bias.error(),
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
    }
    mlp.layers_.push_back(std::move(layer));
  }
  if (mlp.layers_.empty()) return file.Fail("tensor 'l0.weight' is missing");
  if (mlp.layers_.back().outputs != 1) return file.Fail("the last layer must have one output");
  auto sigmoid = file.Read<uint16_t>("sigmoid", {2 * kLogitHalfRange});
  if (!sigmoid.ok()) return sigmoid.error();
  mlp.sigmoid_q15_ = std::move(sigmoid).value();
  return mlp;
}

Int8Mlp::Scratch Int8Mlp::MakeScratch() const {
  int widest = 0;
  for (const Int8Dense& l : layers_) widest = std::max(widest, l.outputs);
  return Scratch{std::vector<int8_t>(widest), std::vector<int8_t>(widest)};
}

int32_t Int8Mlp::RunLogit(std::span<const int8_t> input, Scratch& scratch) const {
  std::span<const int8_t> in = input;
  for (size_t l = 0; l + 1 < layers_.size(); ++l) {
    std::vector<int8_t>& out = (l % 2 == 0) ? scratch.a : scratch.b;
    Dense(layers_[l], in, out);
    in = std::span<const int8_t>(out.data(), static_cast<size_t>(layers_[l].outputs));
  }
  const Int8Dense& last = layers_.back();
  int32_t acc = last.bias[0];
  for (int i = 0; i < last.inputs; ++i) acc += int32_t{last.weight[i]} * in[i];
  return static_cast<int32_t>(std::clamp<int64_t>(Requantize(acc, last.mult[0], last.shift[0]),
                                                  -kLogitHalfRange, kLogitHalfRange - 1));
}

uint16_t Int8Mlp::Run(std::span<const int8_t> input, Scratch& scratch) const {
  return sigmoid_q15_[static_cast<size_t>(RunLogit(input, scratch) + kLogitHalfRange)];
}

}  // namespace earshot::models
