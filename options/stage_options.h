// The options table bound to the stages' plain configs: the one place below the hosts (the
// cascade, the daemon, the tools) that reads config::Config by name for the audio sources, the
// VAD, the keyword spotter and speech-to-text. (The front end has no options: every bundled model
// states features::FrontEndConfig's defaults, so the device runs those.) The stages themselves take
// their Config structs only, so features/ and models/ never see the string-keyed table. Each
// binding checks the result with the struct's Validate(); errors name the option or the unit.
#pragma once

#include <vector>

#include "audio/frame_source.h"
#include "base/result.h"
#include "config/config.h"
#include "models/kws/keywords.h"
#include "models/kws/kws.h"
#include "models/stt/stt.h"
#include "models/vad/vad.h"

namespace earshot::options {

// [audio]: how a file or stream is read and resampled (read_chunk_ms, resampler_quality).
audio::FileSourceOptions BindFileSource(const config::Config& config);

// [vad]: smoothing, threshold, minimum speech and hangover, from ms to 10 ms frames.
Result<vad::VadConfig> BindVad(const config::Config& config);

// [kws]: gap_ms and smooth_ms, in 10 ms frames (the keywords' own: BindKeywords).
Result<kws::KwsConfig> BindKws(const config::Config& config);

// [kws]: one spec per kws.models entry with the lists parallel to it (keywords.h). The
// table is checked first (Config::Check), so the lists' lengths agree.
Result<std::vector<kws::KeywordSpec>> BindKeywords(const config::Config& config);

// [stt] and the front end the command classifier reads: the model files (the Debian package's
// where unset), the grammar or words, the command sets (their files read here) and the search.
Result<stt::SttConfig> BindStt(const config::Config& config);

}  // namespace earshot::options
