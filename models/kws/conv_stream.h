// ConvStream: a keyword spotter whose first layers are convolutions over time, run one hop at a
// time with each window computed once. The first convolution reads the evenly spaced context
// frames (every d hops) with a stride of s0 frames; each later one reads the positions of the one
// before it (kernel k_l, stride s_l). Stage l's positions are then h_l = d * s0 * ... * s_l hops
// apart, and its window at position p of hop t is its newest window of hop t - (P_l - 1 - p) h_l:
// each hop computes only the newest window of each stage, keeps its outputs in a ring, and reads
// the other positions from the rings (a window of a hop before the stream reads only zeros, as
// the context stack makes them, or the stage before's outputs of such windows). The scores are
// those of the whole network on the stacked input, bit for bit, at the cost of one position of
// each convolution per hop instead of all of them.
//
// The streamed layers are the network's trunk: keyword models whose trunks are the same bytes run
// it once per hop (RunTrunk) and each its own remaining layers on its outputs (kws.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/context_stack.h"
#include "models/int8_mlp.h"

namespace earshot::kws {

class ConvStream {
 public:
  // nullopt unless the network's first layer is a convolution over frames of `frame_width`
  // values at the evenly spaced `context` offsets. The convolutions right after it whose frames
  // are the previous layer's positions are streamed too.
  static std::optional<ConvStream> For(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                                       int frame_width);
  // How many leading layers `For` streams: 0 where it gives nullopt.
  static int StreamedLayers(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                            int frame_width);

  // The score (Q15) of hop t, every hop fed in order from 0, reading its newest window's frames
  // from `stack` (the context frames of `For`).
  uint16_t Run(const models::Int8Mlp& mlp, int64_t t, models::ContextStack& stack,
               models::Int8Mlp::Scratch& scratch);
  // The trunk alone: the streamed layers' outputs at hop t, every position of the last one
  // (0 .. 127, position-major), which layer layers() reads (Int8Mlp::RunFrom). `mlp` may be any
  // network whose streamed layers are those of the one `For` was given.
  std::span<const int8_t> RunTrunk(const models::Int8Mlp& mlp, int64_t t,
                                   models::ContextStack& stack);
  int layers() const { return static_cast<int>(stages_.size()); }

 private:
  // One streamed convolution (layer l of the network).
  struct Stage {
    int positions, channels, kernel_frames;
    int64_t hop_step;             // hops between two of its positions: h_l
    size_t newest_first;          // the input frame (or position) where its newest window starts
    int64_t ring_hops = 0;        // 1 + the lag of the oldest of its outputs still read
    std::vector<int8_t> ring{};   // [ring_hops][channels]: each hop's newest window's outputs
    std::vector<int8_t> zeros{};  // the outputs of a window of a hop before the stream

    std::span<int8_t> Newest(int64_t t);  // where hop t >= 0 writes its newest window's outputs
    // Its outputs at positions first .. first + count - 1 of hop t, position-major, into out.
    void Gather(int64_t t, size_t first, size_t count, int8_t* out) const;
  };

  ConvStream(const models::Int8Mlp& mlp, int spacing);
  // The context's spacing if the first layer convolves its evenly spaced frames, else 0.
  static int32_t Spacing(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                         int frame_width);

  std::vector<Stage> stages_;  // layer l is stage l
  // A stage's newest window (the first stage's: zeros, at construction).
  std::vector<int8_t> window_;
  std::vector<int8_t> gathered_;  // [positions][channels] of the last stage: the next layer's input
};

}  // namespace earshot::kws
