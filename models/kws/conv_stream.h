// ConvStream: a keyword spotter whose first layer is a convolution over its evenly spaced context
// frames, run one hop at a time with each window computed once. With context frames every d hops
// and a stride of s frames, the window at position p of hop t is the newest window of hop
// t - (P - 1 - p) * d * s: each hop computes only its newest window, keeps it in a ring, and reads
// the other P - 1 positions from the ring (a window of a hop before the stream is all zeros, as the
// context stack makes it). The scores are those of the whole network on the stacked input, bit for
// bit, at the cost of one position of the convolution per hop instead of P.
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
  // values at the evenly spaced `context` offsets.
  static std::optional<ConvStream> For(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                                       int frame_width);

  // The score (Q15) of hop t, every hop fed in order from 0, reading its newest window's frames
  // from `stack` (the context frames of `For`).
  uint16_t Run(const models::Int8Mlp& mlp, int64_t t, models::ContextStack& stack,
               models::Int8Mlp::Scratch& scratch);

 private:
  ConvStream(const models::Int8Mlp& mlp, int hop_step);

  int positions_, channels_, kernel_frames_, hop_step_;
  size_t newest_first_;       // the context offset where the newest window starts
  int64_t ring_hops_;         // (P - 1) * hop_step + 1: the oldest position's lag, and this hop
  std::vector<int8_t> ring_;  // [ring_hops][channels]: each hop's newest window's outputs
  std::vector<int8_t> zeros_out_;  // the outputs of an all-zero window
  std::vector<int8_t> gathered_;   // [positions][channels]: the next layer's input
};

}  // namespace earshot::kws
