// earshotd --reference: what the device plays, converted to 16 kHz mono frames as the microphone
// is, for the echo canceller (echo/echo_canceller.h). Two sources:
//   pipe:PATH[:RATE[:CHANNELS]]  raw 16-bit little-endian PCM that the player writes into a FIFO
//                                (default 16000 Hz, 1 channel; reference_pipe.cc);
//   alsa:DEVICE                  an ALSA capture PCM that carries the playback: an ALSA loopback
//                                (snd-aloop) or a PipeWire/PulseAudio monitor through their ALSA
//                                plugins, any rate and channels (reference_alsa.cc).
//
// A reader thread of its own reads the source into a ring of frames, each stamped with the
// CLOCK_MONOTONIC time it was played at: a source delivers as it plays, so the first frame of a
// stretch is stamped with its arrival, and each one after it 10 ms later, for as long as the
// source keeps up. The pipeline's worker takes, for each microphone frame, the reference frame
// played a fixed 50 ms before that frame was captured: two clocks' frames paired by time,
// whatever bursts either arrives in, at a constant offset that the canceller's delay absorbs.
// Nothing waits on the source: when no frame is due the microphone passes unchanged, and a ring
// the worker does not empty keeps only its newest frames.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "audio/format.h"
#include "audio/pcm_stream.h"  // PcmFormat
#include "base/result.h"
#include "config/config.h"

namespace earshot::daemon {

struct ReferenceSpec {
  enum class Kind { kPipe, kAlsa };
  Kind kind = Kind::kPipe;
  std::string path;                                   // the FIFO, or the ALSA device
  audio::PcmFormat format{audio::kSampleRate, 2, 1};  // pipe: 16-bit; RATE and CHANNELS
};

// pipe:PATH, pipe:PATH:RATE, pipe:PATH:RATE:CHANNELS (PcmFormat's rates and channels) or
// alsa:DEVICE; anything else is an error naming it.
Result<ReferenceSpec> ParseReferenceSpec(std::string_view spec);

// Where a reference's audio comes from, read by the Reference's thread alone.
class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;
  // Waits at most about kPollMs for audio and appends the frames it reads to `frames`. Faults
  // (a read error, a lost device) are logged and outlived: the source then delivers nothing, or
  // comes back by itself.
  virtual void ReadSome(std::vector<audio::Frame>& frames) = 0;
  virtual std::string description() const = 0;
  static constexpr int kPollMs = 100;  // the reader sees a stop this often
};

// An error names the spec and the cause (a path that is no FIFO, an ALSA device that cannot be
// opened).
Result<std::unique_ptr<ReferenceSource>> OpenPipeSource(const ReferenceSpec& spec,
                                                        const config::Config& config);
Result<std::unique_ptr<ReferenceSource>> OpenAlsaSource(const ReferenceSpec& spec,
                                                        const config::Config& config);

class Reference {
 public:
  // Opens the source and starts its reader. `backlog_frames`: how far behind capture the worker
  // may be (the frame queue's capacity).
  static Result<std::unique_ptr<Reference>> Open(const ReferenceSpec& spec,
                                                 const config::Config& config,
                                                 size_t backlog_frames);
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

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
  static constexpr uint64_t kAnchorUsec = 50000;  // a source this far behind starts a stretch
  static constexpr size_t kLeadFrames = 30;       // the ring beyond the backlog: 300 ms

 private:
  struct Stamped {
    audio::Frame frame;
    uint64_t played_usec;
  };
  Reference(std::unique_ptr<ReferenceSource> source, std::string description, size_t capacity);
  void Read();
  // Appends the frames of one read, `now_usec` their arrival.
  void Keep(std::span<const audio::Frame> frames, uint64_t now_usec);

  std::unique_ptr<ReferenceSource> source_;  // reader thread only
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
