// ContextStack: the last frames' int8 inputs in a ring, and the model input of one frame made of
// the frames at fixed offsets around it (zeros outside the stream). Shared by the VAD and the
// keyword spotter; allocates only at construction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::models {

class ContextStack {
 public:
  // `width` inputs per frame; `offsets` ascending, within [-history, +lookahead].
  ContextStack(int width, std::vector<int32_t> offsets);

  // The slot of the next frame, to be filled by the caller before Commit().
  std::span<int8_t> Next();
  void Commit(bool real_frame = true);  // a frame past the stream's end reads as zeros anyway

  // Model input of frame k (0-based) from the frames at k + offset; frames before 0 or past the
  // last real frame are zeros. Valid once frame k + lookahead() was committed.
  std::span<const int8_t> Stack(int64_t k);
  // The same for the `count` offsets from offsets[first] on only (a streamed layer's newest
  // window).
  std::span<const int8_t> Stack(int64_t k, size_t first, size_t count);
  std::span<const int8_t> Newest() const;  // the last committed frame's inputs

  int64_t committed() const { return committed_; }
  int64_t real_frames() const { return real_frames_; }
  int lookahead() const { return offsets_.back(); }
  void Reset();

 private:
  int width_;
  std::vector<int32_t> offsets_;
  int ring_frames_;
  std::vector<int8_t> ring_;
  std::vector<int8_t> stacked_;
  int64_t committed_ = 0;
  int64_t real_frames_ = 0;
};

}  // namespace earshot::models
