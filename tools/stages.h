// What the single-stage commands (`earshot vad`, `kws`, `features`) build from the config: the
// source, the front end, the VAD alone. The cascade itself is statemachine/pipeline.h.
#pragma once

#include <functional>
#include <memory>

#include "audio/frame_source.h"
#include "config/config.h"
#include "echo/echo_canceller.h"
#include "features/front_end.h"
#include "models/vad/vad.h"

namespace earshot::tools {

// The front end of `config` (the device's: the defaults), with NoiseSuppression on its log-mel if
// asked (`earshot features --noise-suppression`).
Result<std::unique_ptr<features::FrontEnd>> MakeFrontEnd(features::FrontEndConfig config,
                                                         bool noise_suppression = false);

// Streams `source` into `on_frame`, one 10 ms frame at a time, in order.
Status ForEachAudioFrame(audio::FrameSource& source,
                         const std::function<void(const audio::Frame&)>& on_frame);

// Streams `source` through `front_end`; `on_frame` sees each frame's front end, in order, and
// `on_end` runs after the last one.
Status ForEachFrame(audio::FrameSource& source, features::FrontEnd& front_end,
                    const std::function<void(const features::FrontEnd&)>& on_frame,
                    const std::function<void()>& on_end = [] {});

// What the device played (`--reference PLAYED`) and the canceller that removes its echo from the
// recording it was played into, frame by frame; past PLAYED's end the recording passes unchanged.
struct Playback {
  std::unique_ptr<audio::FileSource> source;
  std::unique_ptr<echo::EchoCanceller> canceller;
  bool ended = false;
  audio::Frame played{};  // PLAYED's frame of the last Cancel (silence past its end)

  static Result<Playback> Open(const std::string& path, const config::Config& config);
  // `frame` less the echo of PLAYED's next frame.
  Status Cancel(audio::Frame& frame);
  bool active() const { return canceller->stats().active; }
};

struct VadStage {
  std::unique_ptr<features::FrontEnd> front_end;
  std::unique_ptr<vad::VadSession> session;

  // Builds the stage from the config; errors name the model file or the option.
  static Result<VadStage> Create(const config::Config& config);

  // Streams `source` through the stage; `on_frame` sees every decided frame, in order.
  Status Run(audio::FrameSource& source, const std::function<void(const vad::VadFrame&)>& on_frame);
};

}  // namespace earshot::tools
