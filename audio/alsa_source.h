// AlsaSource: live capture from an ALSA PCM, converted to 16 kHz mono int16 frames.
// The device is opened with whatever it offers: S16, S32 or FLOAT samples (in that order of
// preference), the channel count nearest to one and the rate nearest to 16 kHz; Converter (the
// same as for files) averages the channels and resamples. Non-blocking: the owner polls
// poll_fds() (the daemon registers them as sd-event IO sources), then calls Read().
// Overruns (xruns) are recovered with snd_pcm_recover and counted, never fatal. Any other read
// error means the device is gone (e.g. a USB microphone unplugged): Read returns it and the owner
// closes this source and opens a new one later.
// Not thread-safe: one thread owns it.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audio/converter.h"
#include "audio/format.h"
#include "base/result.h"

typedef struct _snd_pcm snd_pcm_t;

namespace earshot::audio {

struct AlsaOptions {
  std::string device = "default";
  int buffer_ms = 500;                     // ALSA ring requested from the device
  int period_ms = 20;                      // wake-up interval
  std::string resampler_quality = "high";  // libsoxr recipe
};

enum class SampleFormat { kS16, kS32, kFloat };

class AlsaSource {
 public:
  // Opens and starts the capture; the error names the device and ALSA's reason.
  static Result<std::unique_ptr<AlsaSource>> Open(const AlsaOptions& options);
  ~AlsaSource();
  AlsaSource(const AlsaSource&) = delete;
  AlsaSource& operator=(const AlsaSource&) = delete;

  // The descriptors to poll, with their events.
  const std::vector<pollfd>& poll_fds() const { return fds_; }
  // Records that `fd` reported `revents`; true when the PCM has data or an error to handle.
  bool Ready(int fd, short revents);

  // Delivers up to `max_frames` complete frames of what the device has, in order, to `on_frame`;
  // returns how many (0: nothing available now). Samples beyond a complete frame are kept for the
  // next call. An error means the device is lost.
  Result<int> Read(int max_frames, const std::function<void(const Frame&)>& on_frame);

  uint64_t xruns() const { return xruns_; }
  // What the device delivers, e.g. "hw:1: 48000 Hz, 2 channels, S32".
  const std::string& description() const { return description_; }

 private:
  AlsaSource(snd_pcm_t* pcm, std::string device);
  Status Configure(const AlsaOptions& options);
  Status Start();
  // Reads one period from the device into pending_ (converted); false when none is available.
  Result<bool> ReadPeriod();
  Status Recover(int err);
  void ToFloat(size_t samples);

  snd_pcm_t* pcm_;
  std::string device_;
  std::string description_;
  SampleFormat format_ = SampleFormat::kS16;
  int channels_ = 1;
  size_t period_frames_ = 0;
  std::vector<pollfd> fds_;
  std::vector<uint8_t> raw_;   // one period as the device delivers it
  std::vector<float> floats_;  // the same, as floats in [-1, 1)
  std::unique_ptr<Converter> converter_;
  std::vector<int16_t> pending_;  // converted samples not yet handed out as a frame
  uint64_t xruns_ = 0;
};

}  // namespace earshot::audio
