#include "models/kws/conv_stream.h"

#include <algorithm>

namespace earshot::kws {
namespace {

// The leading layers streamed: convolutions, each over the previous one's positions, never the
// last layer. A dense layer, or one whose frames are not the previous layer's positions, ends it.
size_t ChainLength(const std::vector<models::Int8Dense>& layers) {
  size_t l = 0;
  while (l + 1 < layers.size() && layers[l].positions >= 2 &&
         (l == 0 || layers[l].frame_width == layers[l - 1].outputs)) {
    ++l;
  }
  return l;
}

}  // namespace

int32_t ConvStream::Spacing(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                            int frame_width) {
  const models::Int8Dense& conv = mlp.layers().front();
  if (mlp.layers().size() < 2 || conv.positions < 2 || conv.frame_width != frame_width ||
      static_cast<size_t>(conv.input_frames) != context.size()) {
    return 0;
  }
  const int32_t spacing = context[1] - context[0];
  for (size_t i = 1; i < context.size(); ++i) {
    if (context[i] - context[i - 1] != spacing) return 0;
  }
  return spacing;
}

std::optional<ConvStream> ConvStream::For(const models::Int8Mlp& mlp,
                                          std::span<const int32_t> context, int frame_width) {
  const int32_t spacing = Spacing(mlp, context, frame_width);
  if (spacing <= 0) return std::nullopt;
  return ConvStream(mlp, spacing);
}

int ConvStream::StreamedLayers(const models::Int8Mlp& mlp, std::span<const int32_t> context,
                               int frame_width) {
  if (Spacing(mlp, context, frame_width) <= 0) return 0;
  return static_cast<int>(ChainLength(mlp.layers()));
}

ConvStream::ConvStream(const models::Int8Mlp& mlp, int spacing) {
  const std::vector<models::Int8Dense>& layers = mlp.layers();
  int64_t hop_step = spacing;
  const size_t chain = ChainLength(layers);
  for (size_t l = 0; l < chain; ++l) {
    const models::Int8Dense& conv = layers[l];
    hop_step *= conv.stride_frames;
    stages_.push_back(Stage{.positions = conv.positions,
                            .channels = conv.outputs,
                            .kernel_frames = conv.kernel_frames,
                            .hop_step = hop_step,
                            .newest_first = static_cast<size_t>(conv.positions - 1) *
                                            static_cast<size_t>(conv.stride_frames)});
  }
  size_t widest_window = 0;
  for (size_t l = 0; l < stages_.size(); ++l) {
    Stage& s = stages_[l];
    // Every position of the last stage is read; of an earlier one, those of the next one's newest
    // window.
    const auto oldest_read =
        l + 1 < stages_.size() ? static_cast<int64_t>(stages_[l + 1].newest_first) : 0;
    s.ring_hops = (s.positions - 1 - oldest_read) * s.hop_step + 1;
    s.ring.resize(static_cast<size_t>(s.ring_hops) * static_cast<size_t>(s.channels));
    s.zeros.resize(static_cast<size_t>(s.channels));
    widest_window = std::max(widest_window, static_cast<size_t>(layers[l].inputs));
  }
  window_.resize(widest_window);
  // A window of a hop before the stream: the first stage's reads zeros, a later one's the zeros
  // outputs of the stage before.
  mlp.RunWindow(0, std::span<const int8_t>(window_.data(), static_cast<size_t>(layers[0].inputs)),
                stages_[0].zeros);
  for (size_t l = 1; l < stages_.size(); ++l) {
    const std::vector<int8_t>& before = stages_[l - 1].zeros;
    for (int k = 0; k < stages_[l].kernel_frames; ++k) {
      std::copy(before.begin(), before.end(),
                window_.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(k) * before.size()));
    }
    mlp.RunWindow(static_cast<int>(l),
                  std::span<const int8_t>(window_.data(), static_cast<size_t>(layers[l].inputs)),
                  stages_[l].zeros);
  }
  gathered_.resize(static_cast<size_t>(stages_.back().positions) *
                   static_cast<size_t>(stages_.back().channels));
}

std::span<int8_t> ConvStream::Stage::Newest(int64_t t) {
  return std::span<int8_t>(ring).subspan(
      static_cast<size_t>(t % ring_hops) * static_cast<size_t>(channels),
      static_cast<size_t>(channels));
}

void ConvStream::Stage::Gather(int64_t t, size_t first, size_t count, int8_t* out) const {
  const auto c = static_cast<size_t>(channels);
  for (size_t i = 0; i < count; ++i) {
    const int64_t hop = t - (positions - 1 - static_cast<int64_t>(first + i)) * hop_step;
    const int8_t* from = hop < 0 ? zeros.data() : &ring[static_cast<size_t>(hop % ring_hops) * c];
    std::copy_n(from, c, out + i * c);
  }
}

uint16_t ConvStream::Run(const models::Int8Mlp& mlp, int64_t t, models::ContextStack& stack,
                         models::Int8Mlp::Scratch& scratch) {
  return mlp.RunFrom(layers(), RunTrunk(mlp, t, stack), scratch);
}

std::span<const int8_t> ConvStream::RunTrunk(const models::Int8Mlp& mlp, int64_t t,
                                             models::ContextStack& stack) {
  Stage& first = stages_.front();
  mlp.RunWindow(0, stack.Stack(t, first.newest_first, static_cast<size_t>(first.kernel_frames)),
                first.Newest(t));
  for (size_t l = 1; l < stages_.size(); ++l) {
    Stage& stage = stages_[l];
    const Stage& before = stages_[l - 1];
    const size_t k = static_cast<size_t>(stage.kernel_frames);
    before.Gather(t, stage.newest_first, k, window_.data());
    mlp.RunWindow(static_cast<int>(l),
                  std::span<const int8_t>(window_.data(), k * static_cast<size_t>(before.channels)),
                  stage.Newest(t));
  }
  const Stage& last = stages_.back();
  last.Gather(t, 0, static_cast<size_t>(last.positions), gathered_.data());
  return gathered_;
}

}  // namespace earshot::kws
