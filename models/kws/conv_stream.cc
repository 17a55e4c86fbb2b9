#include "models/kws/conv_stream.h"

#include <algorithm>

namespace earshot::kws {

std::optional<ConvStream> ConvStream::For(const models::Int8Mlp& mlp,
                                          std::span<const int32_t> context, int frame_width) {
  const models::Int8Dense& conv = mlp.layers().front();
  if (mlp.layers().size() < 2 || conv.positions < 2 || conv.frame_width != frame_width ||
      static_cast<size_t>(conv.input_frames) != context.size()) {
    return std::nullopt;
  }
  const int32_t spacing = context[1] - context[0];
  for (size_t i = 1; i < context.size(); ++i) {
    if (context[i] - context[i - 1] != spacing) return std::nullopt;
  }
  return ConvStream(mlp, spacing * conv.stride_frames);
}

ConvStream::ConvStream(const models::Int8Mlp& mlp, int hop_step)
    : positions_(mlp.layers().front().positions),
      channels_(mlp.layers().front().outputs),
      kernel_frames_(mlp.layers().front().kernel_frames),
      hop_step_(hop_step),
      newest_first_(static_cast<size_t>(positions_ - 1) *
                    static_cast<size_t>(mlp.layers().front().stride_frames)),
      ring_hops_(int64_t{positions_ - 1} * hop_step + 1),
      ring_(static_cast<size_t>(ring_hops_) * static_cast<size_t>(channels_)),
      zeros_out_(static_cast<size_t>(channels_)),
      gathered_(static_cast<size_t>(positions_) * static_cast<size_t>(channels_)) {
  const std::vector<int8_t> zeros(static_cast<size_t>(mlp.layers().front().inputs));
  mlp.RunWindow(0, zeros, zeros_out_);
}

uint16_t ConvStream::Run(const models::Int8Mlp& mlp, int64_t t, models::ContextStack& stack,
                         models::Int8Mlp::Scratch& scratch) {
  const auto c = static_cast<size_t>(channels_);
  std::span<int8_t> newest =
      std::span<int8_t>(ring_).subspan(static_cast<size_t>(t % ring_hops_) * c, c);
  mlp.RunWindow(0, stack.Stack(t, newest_first_, static_cast<size_t>(kernel_frames_)), newest);
  for (int p = 0; p < positions_; ++p) {
    const int64_t hop = t - int64_t{positions_ - 1 - p} * hop_step_;
    const int8_t* from =
        hop < 0 ? zeros_out_.data() : &ring_[static_cast<size_t>(hop % ring_hops_) * c];
    std::copy_n(from, c, gathered_.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(p) * c));
  }
  return mlp.RunFrom(1, gathered_, scratch);
}

}  // namespace earshot::kws
