// The VAD stage as the offline commands run it: config -> front end -> VAD session, over a source.
// (The cascade of statemachine/ will own this once it lands; `earshot vad` and `earshot run` share
// it meanwhile.)
#pragma once

#include <functional>
#include <memory>

#include "audio/frame_source.h"
#include "config/config.h"
#include "features/front_end.h"
#include "models/vad/vad.h"

namespace earshot::cli {

struct VadStage {
  std::unique_ptr<features::FrontEnd> front_end;
  std::unique_ptr<vad::VadSession> session;

  // Builds the stage from the config; errors name the model file or the option.
  static Result<VadStage> Create(const config::Config& config);

  // Streams `source` through the stage; `on_frame` sees every decided frame, in order.
  Status Run(audio::FrameSource& source, const std::function<void(const vad::VadFrame&)>& on_frame);
};

// The source options of the [audio] section.
audio::FileSourceOptions SourceOptions(const config::Config& config);

}  // namespace earshot::cli
