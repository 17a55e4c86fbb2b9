// OpenRequestAudio's pipes (earshotd): each request's audio, as the speech-to-text reads it, to
// every app that asked for it, in the framing of docs/dbus.md. The pipeline's thread writes
// without blocking: a frame that does not fit in a pipe (its reader is slow, or never reads) is
// dropped and counted, so no reader ever holds capture back; a pipe whose reader closed it is
// dropped. A frame is at most 24 + 320 bytes, under PIPE_BUF: each write is whole or nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "statemachine/pipeline.h"

namespace earshot::daemon {

// The frame header: little-endian, 24 bytes, then `bytes` of payload.
enum class RequestAudioKind : uint32_t {
  kStart = 1,      // a request starts; `sample` is its first sample's index in the stream
  kAudio = 2,      // `bytes` / 2 samples (16 kHz, 16-bit mono), the first at `sample`
  kEnd = 3,        // the request reached its endpoint; `sample`: one past its last
  kCancelled = 4,  // it ended before (Mute, CancelRequest, a decoder error)
};

class RequestAudioPipes final : public statemachine::RequestAudioSink {
 public:
  RequestAudioPipes() = default;
  ~RequestAudioPipes() override;
  RequestAudioPipes(const RequestAudioPipes&) = delete;
  RequestAudioPipes& operator=(const RequestAudioPipes&) = delete;

  // Any thread: a new pipe; its read end in `read_fd`, the caller's to close. Negative errno.
  int Open(int* read_fd);
  uint64_t dropped_frames() const { return dropped_; }  // frames a full pipe did not take
  size_t readers() const;

  // The pipeline's thread.
  void RequestStarted(uint64_t request, int64_t first_sample) override;
  void RequestAudio(uint64_t request, int64_t sample, std::span<const int16_t> samples) override;
  void RequestEnded(uint64_t request, int64_t end_sample, bool cancelled) override;

 private:
  void Write(RequestAudioKind kind, uint64_t request, int64_t sample,
             std::span<const int16_t> samples);

  mutable std::mutex mutex_;  // guards fds_
  std::vector<int> fds_;      // write ends, non-blocking
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace earshot::daemon
