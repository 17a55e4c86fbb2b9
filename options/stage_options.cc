#include "options/stage_options.h"

#include <algorithm>
#include <string>
#include <utility>

#include "audio/format.h"
#include "base/q15.h"
#include "config/paths.h"
#include "options/keywords.h"

namespace earshot::options {
namespace {

int Int(const config::Config& config, const char* name) {
  return static_cast<int>(config.Int(name));
}

// A path option's value, or the struct's default where it is empty.
std::string OrDefault(const std::string& value, const std::string& fallback) {
  return value.empty() ? fallback : value;
}

}  // namespace

audio::FileSourceOptions BindFileSource(const config::Config& config) {
  audio::FileSourceOptions options;
  options.read_chunk_ms = Int(config, "audio.read_chunk_ms");
  options.resampler_quality = config.String("audio.resampler_quality");
  return options;
}

Result<vad::VadConfig> BindVad(const config::Config& config) {
  vad::VadConfig c;
  c.smooth_half_frames = Int(config, "vad.smooth_ms") / 20;
  c.threshold_q15 = static_cast<int32_t>(config.Float("vad.threshold") * kQ15Max + 0.5);
  c.min_speech_frames = audio::MsToFrames(Int(config, "vad.min_speech_ms"));
  c.hangover_frames = audio::MsToFrames(Int(config, "vad.hangover_ms"));
  if (Status s = c.Validate(); !s.ok()) return s.error();
  return c;
}

Result<kws::KwsConfig> BindKws(const config::Config& config) {
  kws::KwsConfig c;
  c.gap_frames = audio::MsToFrames(Int(config, "kws.gap_ms"));
  c.smooth_frames = std::max(1, audio::MsToFrames(Int(config, "kws.smooth_ms")));
  if (Status s = c.Validate(); !s.ok()) return s.error();
  return c;
}

Result<std::vector<kws::KeywordSpec>> BindKeywords(const config::Config& config) {
  if (Status s = config.Check(); !s.ok()) return s.error();
  KeywordLists lists;
  lists.models = config.StringList("kws.models");
  lists.small_models = config.StringList("kws.small_models");
  lists.names = config.StringList("kws.names");
  lists.sensitivities = config.FloatList("kws.sensitivities");
  lists.refractory_ms = config.IntList("kws.refractory_ms");
  return KeywordSpecs(lists);
}

Result<stt::SttConfig> BindStt(const config::Config& config) {
  stt::SttConfig c;
  c.acoustic_model = OrDefault(config.String("stt.acoustic_model"), c.acoustic_model);
  c.language_model = OrDefault(config.String("stt.language_model"), c.language_model);
  c.dictionary = OrDefault(config.String("stt.dictionary"), c.dictionary);
  c.grammar = config.String("stt.grammar");
  c.words = config.String("stt.words");
  c.profile = config.String("stt.profile");
  c.command_model = config::ModelPath(config, "stt.command_model");
  c.command_model_named = !config.String("stt.command_model").empty();
  c.command_open_transcript = config.Bool("stt.command_open_transcript");
  Result<std::vector<stt::CommandSet>> sets =
      stt::ReadCommandSets(config.StringList("stt.commands"));
  if (!sets.ok()) return sets.error();
  c.command_sets = std::move(sets).value();
  c.embedding_model = config::BundledModelPath("embedding/speech_embedding.eshm");
  if (Status s = c.Validate(); !s.ok()) return s.error();
  return c;
}

}  // namespace earshot::options
