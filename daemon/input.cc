#include "daemon/input.h"

#include <time.h>

namespace earshot::daemon {

uint64_t MonotonicUsec() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

Result<std::unique_ptr<Input>> MakeInput(std::string_view spec, const config::Config& config,
                                         sd_event* event, InputHooks hooks) {
  if (spec.starts_with("alsa:") && spec.size() > 5) {
    return MakeAlsaInput(std::string(spec.substr(5)), config, event, std::move(hooks));
  }
  if (spec == "wav:-") return MakePipeInput(config, event, std::move(hooks));
  if (spec.starts_with("wav:") && spec.size() > 4) {
    return MakeWavInput(std::string(spec.substr(4)), config, event, std::move(hooks));
  }
  return Error{"input '" + std::string(spec) + "': expected alsa:DEVICE or wav:PATH"};
}

}  // namespace earshot::daemon
