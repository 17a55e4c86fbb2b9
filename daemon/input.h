// The daemon's audio inputs, driven by the manager's sd-event loop: `alsa:DEVICE` (live capture,
// IO sources on the PCM's poll descriptors, reopened with back-off when the device is lost) and
// `wav:PATH` (a recording played through the same queue, paced in real time by a timer, or as fast
// as the pipeline takes it with daemon.realtime = false). Both push 10 ms frames into the
// FrameQueue and stop reading while it is full, until Resume().
#pragma once

#include <systemd/sd-event.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "audio/alsa_source.h"
#include "base/result.h"
#include "config/config.h"
#include "daemon/frame_queue.h"

namespace earshot::daemon {

struct EventSourceDeleter {
  void operator()(sd_event_source* s) const { sd_event_source_disable_unref(s); }
};
using EventSourcePtr = std::unique_ptr<sd_event_source, EventSourceDeleter>;

uint64_t MonotonicUsec();

struct InputHooks {
  FrameQueue* queue = nullptr;
  std::function<void()> want_space;  // the queue is full: call Resume() once it has room
  // The input has no more audio (wav only); `failed`: it could not be read to its end.
  std::function<void(bool failed)> on_end;
  std::function<void()> on_change;  // xruns() or capturing() changed
};

class Input {
 public:
  virtual ~Input() = default;
  // Opens the input and starts reading; an error here is fatal at start-up.
  virtual Status Start() = 0;
  virtual void Resume() = 0;
  virtual uint64_t xruns() const = 0;
  virtual uint64_t reopens() const = 0;
  virtual bool capturing() const = 0;
  virtual std::string description() const = 0;
};

// `spec` is alsa:DEVICE or wav:PATH; anything else is an error naming it.
Result<std::unique_ptr<Input>> MakeInput(std::string_view spec, const config::Config& config,
                                         sd_event* event, InputHooks hooks);

// The config's ALSA capture settings (daemon.alsa_buffer_ms, daemon.alsa_period_ms,
// audio.resampler_quality) for `device`, as the microphone and an alsa: reference open it.
audio::AlsaOptions AlsaCaptureOptions(std::string device, const config::Config& config);
// The waits before reopening a lost device: daemon.reopen_min_ms, then doubling up to
// daemon.reopen_max_ms (at least the first), in microseconds.
struct ReopenWaits {
  uint64_t min_usec = 0;
  uint64_t max_usec = 0;
  static ReopenWaits FromConfig(const config::Config& config);
};

std::unique_ptr<Input> MakeAlsaInput(std::string device, const config::Config& config,
                                     sd_event* event, InputHooks hooks);
// wav:- : standard input, read by a thread of its own (input_pipe.cc).
std::unique_ptr<Input> MakePipeInput(const config::Config& config, sd_event* event,
                                     InputHooks hooks);
std::unique_ptr<Input> MakeWavInput(std::string path, const config::Config& config, sd_event* event,
                                    InputHooks hooks);

}  // namespace earshot::daemon
