#include "daemon/request_audio.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "audio/format.h"

namespace earshot::daemon {
namespace {

constexpr size_t kHeaderBytes = 24;
constexpr size_t kFrameSamples = audio::kFrameSamples;  // at most one 10 ms frame per write

void PutLittleEndian(uint8_t* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

RequestAudioPipes::~RequestAudioPipes() {
  for (int fd : fds_) close(fd);
}

int RequestAudioPipes::Open(int* read_fd) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -errno;
  // The reader's end blocks as a pipe usually does; only the daemon's side must not.
  fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) & ~O_NONBLOCK);
  *read_fd = ends[0];
  std::lock_guard lock(mutex_);
  fds_.push_back(ends[1]);
  return 0;
}

size_t RequestAudioPipes::readers() const {
  std::lock_guard lock(mutex_);
  return fds_.size();
}

void RequestAudioPipes::RequestStarted(uint64_t request, int64_t first_sample) {
  Write(RequestAudioKind::kStart, request, first_sample, {});
}

void RequestAudioPipes::RequestAudio(uint64_t request, int64_t sample,
                                     std::span<const int16_t> samples) {
  Write(RequestAudioKind::kAudio, request, sample, samples);
}

void RequestAudioPipes::RequestEnded(uint64_t request, int64_t end_sample, bool cancelled) {
  Write(cancelled ? RequestAudioKind::kCancelled : RequestAudioKind::kEnd, request, end_sample, {});
}

void RequestAudioPipes::Write(RequestAudioKind kind, uint64_t request, int64_t sample,
                              std::span<const int16_t> samples) {
  std::lock_guard lock(mutex_);
  if (fds_.empty()) return;
  uint8_t frame[kHeaderBytes + 2 * kFrameSamples];
  const size_t payload = std::min(samples.size(), kFrameSamples) * 2;
  PutLittleEndian(frame, static_cast<uint32_t>(kind), 4);
  PutLittleEndian(frame + 4, payload, 4);
  PutLittleEndian(frame + 8, request, 8);
  PutLittleEndian(frame + 16, static_cast<uint64_t>(sample), 8);
  for (size_t i = 0; i < payload / 2; ++i) {
    PutLittleEndian(frame + kHeaderBytes + 2 * i, static_cast<uint16_t>(samples[i]), 2);
  }
  for (auto it = fds_.begin(); it != fds_.end();) {
    const ssize_t n = write(*it, frame, kHeaderBytes + payload);
    if (n < 0 && errno == EPIPE) {  // the reader closed its end
      close(*it);
      it = fds_.erase(it);
      continue;
    }
    if (n < 0) ++dropped_;  // EAGAIN: full; the frame is dropped, never half written
    ++it;
  }
}

}  // namespace earshot::daemon
