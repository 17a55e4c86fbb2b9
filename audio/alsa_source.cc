#include "audio/alsa_source.h"

#include <alsa/asoundlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace earshot::audio {
namespace {

struct FormatChoice {
  snd_pcm_format_t alsa;
  SampleFormat format;
  const char* name;
};

// In order of preference: 16-bit needs no more, 32-bit and float are what many USB and
// built-in codecs offer.
constexpr FormatChoice kFormats[] = {{SND_PCM_FORMAT_S16, SampleFormat::kS16, "S16"},
                                     {SND_PCM_FORMAT_S32, SampleFormat::kS32, "S32"},
                                     {SND_PCM_FORMAT_FLOAT, SampleFormat::kFloat, "FLOAT"}};

size_t BytesPerSample(SampleFormat format) { return format == SampleFormat::kS16 ? 2 : 4; }

Error AlsaError(const std::string& device, const char* what, int err) {
  return Error{"ALSA device " + device + ": " + what + ": " + snd_strerror(err)};
}

struct HwParamsDeleter {
  void operator()(snd_pcm_hw_params_t* p) const { snd_pcm_hw_params_free(p); }
};

}  // namespace

Result<std::unique_ptr<AlsaSource>> AlsaSource::Open(const AlsaOptions& options) {
  snd_pcm_t* pcm = nullptr;
  int err = snd_pcm_open(&pcm, options.device.c_str(), SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK);
  if (err < 0) return AlsaError(options.device, "cannot open for capture", err);
  std::unique_ptr<AlsaSource> source(new AlsaSource(pcm, options.device));
  Status configured = source->Configure(options);
  if (!configured.ok()) return configured.error();
  Status started = source->Start();
  if (!started.ok()) return started.error();
  return source;
}

AlsaSource::AlsaSource(snd_pcm_t* pcm, std::string device)
    : pcm_(pcm), device_(std::move(device)) {}

AlsaSource::~AlsaSource() { snd_pcm_close(pcm_); }

// Any format of kFormats, the channels nearest to 1, the rate nearest to 16 kHz, then the ring
// and the period nearest to the options.
Status AlsaSource::Configure(const AlsaOptions& options) {
  snd_pcm_hw_params_t* raw_params = nullptr;
  if (snd_pcm_hw_params_malloc(&raw_params) < 0) return Error{"out of memory"};
  std::unique_ptr<snd_pcm_hw_params_t, HwParamsDeleter> params(raw_params);
  int err = snd_pcm_hw_params_any(pcm_, raw_params);
  if (err < 0) return AlsaError(device_, "no configuration", err);
  err = snd_pcm_hw_params_set_access(pcm_, raw_params, SND_PCM_ACCESS_RW_INTERLEAVED);
  if (err < 0) return AlsaError(device_, "no interleaved access", err);
  const FormatChoice* chosen = nullptr;
  for (const FormatChoice& f : kFormats) {
    if (snd_pcm_hw_params_test_format(pcm_, raw_params, f.alsa) == 0) {
      chosen = &f;
      break;
    }
  }
  if (chosen == nullptr)
    return Error{"ALSA device " + device_ + ": offers none of S16, S32, FLOAT"};
  snd_pcm_hw_params_set_format(pcm_, raw_params, chosen->alsa);
  format_ = chosen->format;
  unsigned channels = 1;
  err = snd_pcm_hw_params_set_channels_near(pcm_, raw_params, &channels);
  if (err < 0) return AlsaError(device_, "cannot set channels", err);
  unsigned rate = kSampleRate;
  err = snd_pcm_hw_params_set_rate_near(pcm_, raw_params, &rate, nullptr);
  if (err < 0) return AlsaError(device_, "cannot set a rate", err);
  unsigned buffer_us = static_cast<unsigned>(options.buffer_ms) * 1000;
  unsigned period_us = static_cast<unsigned>(options.period_ms) * 1000;
  snd_pcm_hw_params_set_buffer_time_near(pcm_, raw_params, &buffer_us, nullptr);
  snd_pcm_hw_params_set_period_time_near(pcm_, raw_params, &period_us, nullptr);
  err = snd_pcm_hw_params(pcm_, raw_params);
  if (err < 0) return AlsaError(device_, "cannot apply the hardware parameters", err);
  snd_pcm_uframes_t period = 0;
  snd_pcm_hw_params_get_period_size(raw_params, &period, nullptr);
  period_frames_ = std::max<snd_pcm_uframes_t>(period, 1);
  channels_ = static_cast<int>(channels);
  raw_.resize(period_frames_ * channels * BytesPerSample(format_));
  floats_.resize(period_frames_ * channels);
  auto converter = Converter::Create(static_cast<int>(rate), channels_, options.resampler_quality,
                                     period_frames_);
  if (!converter.ok()) return Error{"ALSA device " + device_ + ": " + converter.error().message};
  converter_ = std::move(converter).value();
  pending_.reserve(period_frames_ * 4 + 2 * kFrameSamples);
  description_ = device_ + ": " + std::to_string(rate) + " Hz, " + std::to_string(channels) +
                 " channel" + (channels == 1 ? "" : "s") + ", " + chosen->name;
  return OkStatus();
}

Status AlsaSource::Start() {
  const int count = snd_pcm_poll_descriptors_count(pcm_);
  if (count <= 0) return AlsaError(device_, "no poll descriptors", count < 0 ? count : -EINVAL);
  fds_.resize(static_cast<size_t>(count));
  int err = snd_pcm_poll_descriptors(pcm_, fds_.data(), static_cast<unsigned>(count));
  if (err < 0) return AlsaError(device_, "poll descriptors", err);
  err = snd_pcm_start(pcm_);
  if (err < 0) return AlsaError(device_, "cannot start capture", err);
  return OkStatus();
}

bool AlsaSource::Ready(int fd, short revents) {
  for (pollfd& p : fds_) p.revents = p.fd == fd ? revents : 0;
  unsigned short events = 0;
  if (snd_pcm_poll_descriptors_revents(pcm_, fds_.data(), static_cast<unsigned>(fds_.size()),
                                       &events) < 0) {
    return true;  // let Read find out what is wrong
  }
  return (events & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) != 0;
}

// -EPIPE (overrun) and -ESTRPIPE (suspend) are recoverable; anything else is a lost device.
Status AlsaSource::Recover(int err) {
  if (err != -EPIPE && err != -ESTRPIPE) return AlsaError(device_, "capture failed", err);
  ++xruns_;
  int recovered = snd_pcm_recover(pcm_, err, 1);
  if (recovered < 0) return AlsaError(device_, "cannot recover from an overrun", recovered);
  recovered = snd_pcm_start(pcm_);
  if (recovered < 0) return AlsaError(device_, "cannot restart after an overrun", recovered);
  return OkStatus();
}

void AlsaSource::ToFloat(size_t samples) {
  switch (format_) {
    case SampleFormat::kS16: {
      const auto* in = reinterpret_cast<const int16_t*>(raw_.data());
      for (size_t i = 0; i < samples; ++i) floats_[i] = static_cast<float>(in[i]) / 32768.0f;
      break;
    }
    case SampleFormat::kS32: {
      const auto* in = reinterpret_cast<const int32_t*>(raw_.data());
      for (size_t i = 0; i < samples; ++i) {
        floats_[i] = static_cast<float>(static_cast<double>(in[i]) / 2147483648.0);
      }
      break;
    }
    case SampleFormat::kFloat:
      std::memcpy(floats_.data(), raw_.data(), samples * sizeof(float));
      break;
  }
}

Result<bool> AlsaSource::ReadPeriod() {
  snd_pcm_sframes_t got = snd_pcm_readi(pcm_, raw_.data(), period_frames_);
  if (got == -EAGAIN || got == 0) return false;  // 0: a plugin with nothing now
  if (got < 0) {
    Status recovered = Recover(static_cast<int>(got));
    if (!recovered.ok()) return recovered.error();
    // Nothing read, but the stream runs again: the next wake-up reads it. Reading again at once
    // never returned on a device that overruns on every read (228k xruns in 4 s, the loop stuck).
    return false;
  }
  const size_t samples = static_cast<size_t>(got) * static_cast<size_t>(channels_);
  ToFloat(samples);
  auto converted = converter_->Process({floats_.data(), samples});
  if (!converted.ok()) return Error{"ALSA device " + device_ + ": " + converted.error().message};
  pending_.insert(pending_.end(), converted->begin(), converted->end());
  return true;
}

Result<int> AlsaSource::Read(int max_frames, const std::function<void(const Frame&)>& on_frame) {
  int delivered = 0;
  size_t pos = 0;
  Frame frame;
  while (delivered < max_frames) {
    if (pending_.size() - pos >= frame.size()) {
      std::copy_n(pending_.begin() + static_cast<ptrdiff_t>(pos), frame.size(), frame.begin());
      pos += frame.size();
      on_frame(frame);
      ++delivered;
      continue;
    }
    // Less than a frame left: keep it at the front, then append a period (within the capacity
    // reserved in Configure, so no allocation).
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(pos));
    pos = 0;
    Result<bool> more = ReadPeriod();
    if (!more.ok()) return more.error();
    if (!*more) break;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(pos));
  return delivered;
}

}  // namespace earshot::audio
