// pipe:PATH[:RATE[:CHANNELS]]: a FIFO the player writes raw 16-bit little-endian PCM into. It is
// opened for reading and writing, so that a player that comes and goes neither blocks it nor ends
// it.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/log.h"
#include "daemon/reference.h"

namespace earshot::daemon {
namespace {

constexpr size_t kChunkBytes = 16384;  // read from the FIFO at a time

class PipeSource final : public ReferenceSource {
 public:
  PipeSource(int fd, const ReferenceSpec& spec, std::unique_ptr<audio::PcmStream> pcm)
      : fd_(fd), spec_(spec), pcm_(std::move(pcm)), bytes_(kChunkBytes) {}
  ~PipeSource() override { close(fd_); }

  void ReadSome(std::vector<audio::Frame>& frames) override {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) return;
    const ssize_t got = read(fd_, bytes_.data(), bytes_.size());
    if (got <= 0) {
      if (got < 0 && errno != EAGAIN && errno != EINTR && !failed_) {
        Log(LOG_ERR, "reference %s: read: %s", spec_.path.c_str(), std::strerror(errno));
        failed_ = true;  // said once; the microphone passes unchanged meanwhile
      }
      return;
    }
    (void)pcm_->Push(std::span<const uint8_t>(bytes_.data(), static_cast<size_t>(got)),
                     [&frames](const audio::Frame& f) { frames.push_back(f); });
  }

  std::string description() const override {
    const audio::PcmFormat& f = spec_.format;
    return "pipe:" + spec_.path + " (" + std::to_string(f.rate) + " Hz, " +
           std::to_string(f.channels) + " channel" + (f.channels > 1 ? "s" : "") + ", 16-bit)";
  }

 private:
  int fd_;
  ReferenceSpec spec_;
  std::unique_ptr<audio::PcmStream> pcm_;
  std::vector<uint8_t> bytes_;
  bool failed_ = false;
};

}  // namespace

Result<std::unique_ptr<ReferenceSource>> OpenPipeSource(const ReferenceSpec& spec,
                                                        const config::Config& config) {
  const std::string& path = spec.path;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT || mkfifo(path.c_str(), 0660) != 0) {
      return Error{"--reference '" + path + "': cannot create the FIFO: " + std::strerror(errno)};
    }
  } else if (!S_ISFIFO(st.st_mode)) {
    return Error{"--reference '" + path + "': not a FIFO (mkfifo it, or name a new path)"};
  }
  // Read and write: opening never waits for a player, and a player that closes is no end.
  const int fd = open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{"--reference '" + path + "': " + std::strerror(errno)};
  auto pcm = audio::PcmStream::Create(spec.format, config.String("audio.resampler_quality"));
  if (!pcm.ok()) {
    close(fd);
    return Error{"--reference '" + path + "': " + pcm.error().message};
  }
  return std::unique_ptr<ReferenceSource>(new PipeSource(fd, spec, std::move(pcm).value()));
}

}  // namespace earshot::daemon
