// SpeechEmbedding: Google's speech embedding (the backbone of openWakeWord), as an int8 network of
// earshot's engine. It reads 76 frames (760 ms) of the front end's embedding log-mel (32 bands,
// features::EmbeddingFrontEndConfig) and gives 96 values; streamed, one embedding every 8 frames
// (80 ms), each window's convolutions computed once.
//
// The network (tools/train/embedding_import.py writes it and specifies its integers): 20
// convolutions over rows of frames (time) x mel positions x channels; each reads k_t rows x k_w mel
// positions (1x3 across the mel axis, padded with zeros; 3x1 across time, unpadded; the first 3x3),
// int8 weights per output channel, int32 accumulation (int8_dot.h), requantisation (requantize.h),
// a leaky ReLU of slope 0.2 clipped below at -0.4 in integers, then a max-pool (2x2, or 1x2 across
// mel) after five of them; the last convolution has no activation and leaves one mel position of
// 96 channels: the embedding, int8, whose real values are `out_scale` times the integers.
//
// Tensors: "input" int32 [3] = {offset_q8, window_frames, step_frames}: the first layer reads
// logmel_db_q8 + offset_q8 as int32; per layer l: "l{l}.weight" int8 [C_out][k_t * k_w * C_in]
// ([C_out][k_t][k_w][C_in], oldest row first), "l{l}.bias", "l{l}.mult", "l{l}.shift" int32
// [C_out], "l{l}.geometry" int32 [6] = {k_t, k_w, C_in, pad_w, pool_t, pool_w}, "l{l}.activation"
// int32 [2] = {slope_q16 (0: none), floor}; "out_scale" float32 [1].
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"
#include "models/model_file.h"

namespace earshot::embedding {

// One convolution with what follows it.
struct EmbeddingLayer {
  int kernel_rows = 1, kernel_width = 1, in_channels = 1, pad_width = 0;
  int pool_rows = 1, pool_width = 1;
  int in_width = 0;  // mel positions of its input rows
  int out_channels = 0;
  std::vector<int8_t> weight;  // [out_channels][kernel_rows][kernel_width][in_channels]
  std::vector<int32_t> bias, mult, shift;
  int32_t slope_q16 = 0;  // leaky ReLU's slope for z < 0 (0: no activation)
  int32_t floor = -128;   // the activation's lower clip, in output steps

  int conv_width() const { return in_width + 2 * pad_width - kernel_width + 1; }
  int out_width() const { return conv_width() / pool_width; }
  int window() const { return kernel_rows * kernel_width * in_channels; }  // K
};

class SpeechEmbedding {
 public:
  static constexpr int kBands = 32;
  static constexpr int kDims = 96;
  static constexpr const char* kKind = "speech-embedding";

  // Reads and checks `path`; `front_end` is the front end that will feed it (its features must
  // be the ones the model states: EmbeddingFrontEndConfig()).
  static Result<SpeechEmbedding> Load(const std::string& path,
                                      const features::FrontEndConfig& front_end);

  const std::vector<EmbeddingLayer>& layers() const { return layers_; }
  int32_t input_offset_q8() const { return input_offset_q8_; }
  int window_frames() const { return window_frames_; }
  int step_frames() const { return step_frames_; }
  float out_scale() const { return out_scale_; }
  // The first layer's weights as int32, [K][C_out]: its channels innermost for the stream's loop.
  const std::vector<int32_t>& first_weight_t() const { return first_weight_t_; }
  size_t weight_bytes() const;

 private:
  std::vector<EmbeddingLayer> layers_;
  std::vector<int32_t> first_weight_t_;
  int32_t input_offset_q8_ = 0;
  int window_frames_ = 0, step_frames_ = 0;
  float out_scale_ = 0;
};

// The streaming state of one audio stream. Push every frame of the front end's log-mel in order;
// the embedding of frames t - window + 1 .. t comes out at every step-th frame from the window's
// first (t = window - 1, window - 1 + step, ...), identical to that window computed afresh.
// Allocates in its constructor only. `allow_simd` false: the plain C++ dot products and
// requantisation (tests).
class EmbeddingStream {
 public:
  explicit EmbeddingStream(const SpeechEmbedding& model, bool allow_simd = true);

  // The embedding (int8, kDims) when this frame completes one; it stays valid until the next Push.
  std::optional<std::span<const int8_t>> Push(std::span<const int16_t> logmel_db_q8);
  void Reset();

  size_t state_bytes() const;

 private:
  // Layer l's input rows: a ring of kernel_rows rows of (in_width + 2 pad_width) x in_channels
  // values, the padding zeros; the first layer's are int32 (the log-mel), the others' int8.
  struct Rows {
    std::vector<int32_t> wide;
    std::vector<int8_t> narrow;
    int64_t pushed = 0;        // rows pushed so far
    std::vector<int8_t> held;  // a max-pool over time: its first row of the pair
  };
  bool PushRow(size_t l);  // after layer l's newest input row is in place: runs layer l on
                           // (and on down the stack); true when the last layer gave a row
  void Convolve(size_t l, std::span<int8_t> out);
  void ConvolveFirst(std::span<int8_t> out);
  const int8_t* WindowAt(size_t l, size_t x, int8_t* gather) const;
  std::span<int8_t> NewestRow(size_t l);  // where layer l's next input row goes (between pads)

  const SpeechEmbedding* model_;
  bool simd_;
  std::vector<Rows> rows_;
  std::vector<int8_t> window_, conv_out_, pooled_;
  std::vector<int32_t> acc_;
  std::vector<int8_t> embedding_;
};

}  // namespace earshot::embedding
