// Int8Mlp: a stack of int8 dense layers with ReLU, ending in one logit and a sigmoid table: the
// integer arithmetic specified in tools/train/vad_export.py, in plain loops (int32 accumulation,
// per-channel requantisation by a Q31-style multiplier and shift, clamping). The logit's Q-format
// and the table are the model file's (the VAD: Q6 logits, a plain sigmoid; the keyword spotter:
// Q4 logits, sigmoid(logit / 4)). Immutable; callers own the scratch buffers, so one model serves
// any number of sessions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "config/result.h"
#include "models/model_file.h"

namespace earshot::models {

struct Int8Dense {
  int inputs = 0;
  int outputs = 0;
  std::vector<int8_t> weight;  // [outputs][inputs]
  std::vector<int32_t> bias;   // at the accumulator's scale
  std::vector<int32_t> mult;   // requantisation: (acc * mult + 2^(shift-1)) >> shift
  std::vector<int32_t> shift;
};

class Int8Mlp {
 public:
  static constexpr int kLogitHalfRange = 1024;  // logits clamped to [-1024, 1024) of their quantum

  // Layers "l0.*", "l1.*", ... and "sigmoid" from `file`; the first layer must take `inputs`.
  static Result<Int8Mlp> Load(const ModelFile& file, int inputs);

  struct Scratch {
    std::vector<int8_t> a, b;
  };
  Scratch MakeScratch() const;

  // The score in Q15 (0 .. 32767) of one input vector.
  uint16_t Run(std::span<const int8_t> input, Scratch& scratch) const;
  // The output logit in the model's Q-format, clamped to [-kLogitHalfRange, kLogitHalfRange).
  int32_t RunLogit(std::span<const int8_t> input, Scratch& scratch) const;

  int inputs() const { return layers_.front().inputs; }
  const std::vector<Int8Dense>& layers() const { return layers_; }

 private:
  std::vector<Int8Dense> layers_;
  std::vector<uint16_t> sigmoid_q15_;  // [2 * kLogitHalfRange]
};

}  // namespace earshot::models
