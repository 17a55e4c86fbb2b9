// Int8Mlp: a stack of int8 dense layers with ReLU, ending in one logit and a sigmoid table: the
// integer arithmetic specified in tools/train/vad_export.py (int32 accumulation, per-channel
// requantisation by a Q31-style multiplier and shift, clamping), its dot products those of
// int8_dot.h (plain loops, or AVX2 where the CPU has it: the same integers). The logit's Q-format
// and the table are the model file's (the VAD: Q6 logits, a plain sigmoid; the keyword spotter:
// Q4 logits, sigmoid(logit / 4)). Immutable; callers own the scratch buffers, so one model serves
// any number of sessions.
//
// Tensors of layer l (l0, l1, ...): "l{l}.weight" int8 [C][K], "l{l}.bias", "l{l}.mult" and
// "l{l}.shift" int32 [C], and optionally "l{l}.conv" int32 [3] = {kernel_frames k, stride_frames s,
// frame_width w}, which makes a hidden layer a 1-D convolution over time (a TDNN or "patch dense"
// layer). Such a layer reads its N_in inputs as N_in / w frames of w values, frame-major, and
// applies the same C weight rows (K = k * w) at each of P = (N_in / w - k) / s + 1 positions:
// position p's window is in[p * s * w .. (p * s + k) * w), its channel c goes to out[p * C + c]
// (position-major, P * C outputs). Without "l{l}.conv" the layer is dense: one position whose
// window is the whole input (K = N_in). The last layer is always dense: one output, the logit a
// sigmoid table turns into a score (Run), or, in a classifier (Load's `outputs` > 1), a logit per
// class (RunLogits) and no table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"
#include "models/model_file.h"

namespace earshot::models {

// One layer; a dense one has the geometry of a single frame of K values, read at one position.
struct Int8Dense {
  int inputs = 0;              // K, a weight row's length: kernel_frames * frame_width
  int outputs = 0;             // C, the channels of each position
  int kernel_frames = 1;       // frames read at each position
  int stride_frames = 1;       // frames between one position's window and the next
  int frame_width = 0;         // values per input frame
  int input_frames = 1;        // N_in / frame_width
  int positions = 1;           // P = (input_frames - kernel_frames) / stride_frames + 1
  std::vector<int8_t> weight;  // [outputs][inputs]
  std::vector<int32_t> bias;   // at the accumulator's scale
  std::vector<int32_t> mult;   // requantisation: (acc * mult + 2^(shift-1)) >> shift
  std::vector<int32_t> shift;

  int total_inputs() const { return input_frames * frame_width; }  // N_in
  int total_outputs() const { return positions * outputs; }        // P * C
  // Values between the starts of two positions' windows (size_t: a stride past the input's end,
  // allowed when there is one position, must not overflow).
  size_t window_step() const { return static_cast<size_t>(stride_frames) * frame_width; }
};

class Int8Mlp {
 public:
  static constexpr int kLogitHalfRange = 1024;  // logits clamped to [-1024, 1024) of their quantum

  // Layers "l0.*", "l1.*", ... from `file`; the first layer must take `inputs`, the last give
  // `outputs`; with one output, also the table "sigmoid".
  static Result<Int8Mlp> Load(const ModelFile& file, int inputs, int outputs = 1);

  struct Scratch {
    std::vector<int8_t> a, b;
  };
  Scratch MakeScratch() const;

  // The score in Q15 (0 .. 32767) of one input vector (a model of one output).
  uint16_t Run(std::span<const int8_t> input, Scratch& scratch) const;
  // The output logit in the model's Q-format, clamped to [-kLogitHalfRange, kLogitHalfRange).
  int32_t RunLogit(std::span<const int8_t> input, Scratch& scratch) const;
  // A classifier's logits, one per output, each in the model's Q-format and clamped as above.
  void RunLogits(std::span<const int8_t> input, Scratch& scratch, std::span<int32_t> logits) const;

  // For streaming (a caller that keeps a convolution's outputs from one hop to the next):
  // hidden layer l at one position, its window of inputs K -> its C outputs;
  void RunWindow(int l, std::span<const int8_t> window, std::span<int8_t> out) const;
  // and the score of the layers from `first` on, given layer first - 1's P * C outputs (0 .. 127,
  // as RunWindow writes them).
  uint16_t RunFrom(int first, std::span<const int8_t> input, Scratch& scratch) const;

  int inputs() const { return layers_.front().total_inputs(); }  // the model's input size
  int outputs() const { return layers_.back().outputs; }
  const std::vector<Int8Dense>& layers() const { return layers_; }

 private:
  int32_t RunLogitFrom(size_t first, std::span<const int8_t> input, Scratch& scratch) const;
  // The last layer's input: the hidden layers from `first` on, over `input`.
  std::span<const int8_t> HiddenFrom(size_t first, std::span<const int8_t> input,
                                     Scratch& scratch) const;
  int32_t OutputLogit(std::span<const int8_t> in, size_t o) const;

  std::vector<Int8Dense> layers_;
  std::vector<uint16_t> sigmoid_q15_;  // [2 * kLogitHalfRange]; empty in a classifier
};

}  // namespace earshot::models
