// ModelLibrary: the models the governor's profiles use, each loaded once and shared, so a swap
// reuses what is loaded. Keywords (models/kws/keywords.h): at size large each keyword's kws.models
// file, at size small its kws.small_models file (the bundled keyword's small model; a keyword
// without one keeps its large model); STT large and small are the pocketsphinx profiles of that
// name, off is no decoding.
//
// A reload (earshotd's Reload, SIGHUP) whose configuration and model files are those of the library
// in use reuses it (Serves): loading the same files again only grew the resident set (105 -> 315 MB
// over six reloads, the freed copies kept by malloc).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "config/config.h"
#include "features/front_end_config.h"
#include "models/kws/keywords.h"
#include "statemachine/model_sizes.h"
#include "statemachine/pipeline.h"

namespace earshot::statemachine {

// The second stage of the keywords of `set` whose models ask for one (kws_verify), on the
// acoustic model and dictionary the config's stt options name; null if none asks for one.
Result<std::shared_ptr<const pocketsphinx::KeyphraseVerifier>> LoadKeywordVerifier(
    const config::Config& config, const kws::KeywordSet& set);

class ModelLibrary {
 public:
  ModelLibrary(const config::Config& config, StageSet stages) : config_(config), stages_(stages) {}

  // The models of `sizes`, for the stages this library serves; loads those not loaded yet.
  // Errors name the file; what was loaded before stays usable. Once `cancel` is raised, a
  // speech-to-text load stops at its next step (models/stt_factory/load_model.h).
  Result<PipelineModels> For(const ProfileModels& sizes, const CancelFlag* cancel = nullptr);

  // True when `config` is this library's configuration and every file it loaded (a directory: each
  // file in it) has the size, modification time and inode it had when loaded.
  bool Serves(const config::Config& config) const;

  // Command sets registered at run time (earshotd's RegisterCommands), decoded beside
  // stt.commands': a library that shares every model but the speech-to-text, which it loads
  // with `sets`. `key` names the sets (compared by the caller to tell whether a library has them).
  std::shared_ptr<ModelLibrary> WithCommandSets(std::vector<stt::CommandSet> sets,
                                                std::string key) const;
  const std::string& command_sets_key() const { return command_sets_key_; }

 private:
  // A file as it was when loaded.
  struct FileStamp {
    std::string path;
    int64_t mtime_ns = -1;  // -1: could not be read
    int64_t size = -1;
    uint64_t inode = 0;
    bool operator==(const FileStamp&) const = default;
  };
  static FileStamp StampOf(const std::string& path);
  // Records `path` (each regular file in it when a directory) as loaded.
  void Stamp(const std::string& path);

  Result<std::shared_ptr<const kws::KeywordSet>> Keywords(KwsSize size);
  Result<std::shared_ptr<const kws::KwsModel>> KeywordModel(const std::string& path);
  Result<std::shared_ptr<const pocketsphinx::KeyphraseVerifier>> Verifier(KwsSize size);
  Result<std::shared_ptr<const stt::SttModel>> Speech(SttSize size, const CancelFlag* cancel);

  config::Config config_;
  features::FrontEndConfig front_end_;  // the device's: every model is checked against it
  StageSet stages_;
  std::shared_ptr<const vad::VadModel> vad_;
  std::optional<std::vector<kws::KeywordSpec>> keyword_specs_;
  std::array<std::shared_ptr<const kws::KeywordSet>, 2> kws_;  // by KwsSize
  std::map<std::string, std::shared_ptr<const kws::KwsModel>> kws_files_;  // by path
  std::array<std::shared_ptr<const pocketsphinx::KeyphraseVerifier>, 2> verifiers_;  // by KwsSize
  std::array<std::shared_ptr<const stt::SttModel>, 2> stt_;  // large, small
  std::vector<FileStamp> stamps_;  // every file loaded
  std::vector<stt::CommandSet> command_sets_;  // registered at run time
  std::string command_sets_key_;
};

}  // namespace earshot::statemachine
