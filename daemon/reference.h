// earshotd --reference pipe:PATH[:RATE[:CHANNELS]]: what the device plays, as raw 16-bit
// little-endian PCM that the player writes into a FIFO (default 16000 Hz, 1 channel), converted
// to 16 kHz mono as the microphone is, for the echo canceller (echo/echo_canceller.h).
//
// A reader thread of its own reads the FIFO (opened for reading and writing, so that a player
// that comes and goes neither blocks it nor ends it) into a ring of frames, each stamped with the
// CLOCK_MONOTONIC time it was played at: a player writes as it plays, so the first frame of a
// stretch is stamped with its arrival, and each one after it 10 ms later, for as long as the
// player keeps up. The pipeline's worker takes, for each microphone frame, the reference frame
// played a fixed 50 ms before that frame was captured: two clocks' frames paired by time,
// whatever bursts either arrives in, at a constant offset that the canceller's delay absorbs.
// Nothing waits on the player: when no frame is due the microphone passes unchanged, and a ring the
// worker does not empty keeps only its newest frames.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "audio/format.h"
#include "audio/pcm_stream.h"
#include "base/result.h"
#include "config/config.h"

namespace earshot::daemon {

struct ReferenceSpec {
  std::string path;
  audio::PcmFormat format{audio::kSampleRate, 2, 1};  // 16-bit; RATE and CHANNELS
};

// pipe:PATH, pipe:PATH:RATE or pipe:PATH:RATE:CHANNELS (PcmFormat's rates and channels);
// anything else is an error naming it.
Result<ReferenceSpec> ParseReferenceSpec(std::string_view spec);

class PipeReference {
 public:
  // Opens (creates, when missing) the FIFO and starts its reader; an error names the path.
  // `backlog_frames`: how far behind capture the worker may be (the frame queue's capacity).
  static Result<std::unique_ptr<PipeReference>> Open(const ReferenceSpec& spec,
                                                     const config::Config& config,
                                                     size_t backlog_frames);
  ~PipeReference();
  PipeReference(const PipeReference&) = delete;
  PipeReference& operator=(const PipeReference&) = delete;

  // Worker thread: the frame played kLagUsec before a microphone frame stamped `captured_usec`
  // was captured (within half a frame), or nothing when none is. Older frames are let go.
  std::optional<audio::Frame> Pop(uint64_t captured_usec);
  uint64_t dropped() const;  // frames let go: never due, or the ring full
  const std::string& description() const { return description_; }

  // A reference frame may reach the reader up to this long after it was played: each microphone
  // frame is paired with the one played this long before it, which adds as much to the delay the
  // canceller finds (it searches 0-300 ms).
  static constexpr uint64_t kLagUsec = 50000;
  static constexpr uint64_t kHalfFrameUsec = audio::kFrameMs * 500;
  static constexpr uint64_t kAnchorUsec = 50000;  // a player this far behind starts a stretch
  static constexpr size_t kLeadFrames = 30;       // the ring beyond the backlog: 300 ms

 private:
  struct Stamped {
    audio::Frame frame;
    uint64_t played_usec;
  };
  PipeReference(int fd, const ReferenceSpec& spec, std::unique_ptr<audio::PcmStream> pcm,
                size_t capacity);
  void Read();
  // Appends the frames of one read, `now_usec` their arrival.
  void Keep(std::span<const audio::Frame> frames, uint64_t now_usec);

  int fd_;
  ReferenceSpec spec_;
  std::unique_ptr<audio::PcmStream> pcm_;  // reader thread only
  std::string description_;
  mutable std::mutex mutex_;
  size_t capacity_;
  std::deque<Stamped> ring_;
  uint64_t dropped_ = 0;
  bool stop_ = false;
  std::thread reader_;
  // Reader thread only: the frames of the read in hand, the play time of the next one.
  std::vector<audio::Frame> read_frames_;
  uint64_t next_usec_ = 0;
};

}  // namespace earshot::daemon
