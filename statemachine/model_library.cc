#include "statemachine/model_library.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "base/q15.h"
#include "config/paths.h"
#include "models/stt_factory/load_model.h"
#include "options/stage_options.h"

namespace earshot::statemachine {

ModelLibrary::FileStamp ModelLibrary::StampOf(const std::string& path) {
  FileStamp stamp{path};
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return stamp;
  stamp.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  stamp.size = static_cast<int64_t>(st.st_size);
  stamp.inode = static_cast<uint64_t>(st.st_ino);
  return stamp;
}

void ModelLibrary::Stamp(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    stamps_.push_back(StampOf(path));
    return;
  }
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) stamps_.push_back(StampOf(it->path().string()));
  }
}

bool ModelLibrary::Serves(const config::Config& config) const {
  if (config.ToToml() != config_.ToToml()) return false;
  for (const FileStamp& stamp : stamps_) {
    if (!(StampOf(stamp.path) == stamp)) return false;
  }
  return true;
}

std::shared_ptr<ModelLibrary> ModelLibrary::WithCommandSets(std::vector<stt::CommandSet> sets,
                                                            std::string key) const {
  auto library = std::make_shared<ModelLibrary>(*this);
  library->command_sets_ = std::move(sets);
  library->command_sets_key_ = std::move(key);
  library->stt_ = {};
  return library;
}

Result<PipelineModels> ModelLibrary::For(const ProfileModels& sizes, const CancelFlag* cancel) {
  if (!vad_) {
    const std::string path = config::ModelPath(config_, "vad.model");
    auto vad = vad::VadModel::Load(path, front_end_);
    if (!vad.ok()) return vad.error();
    Stamp(path);
    vad_ = std::move(vad).value();
  }
  PipelineModels models;
  models.vad = vad_;
  if (stages_.kws) {
    auto kws = Keywords(sizes.kws);
    if (!kws.ok()) return kws.error();
    models.kws = std::move(kws).value();
    for (const kws::KeywordSpec& spec : *keyword_specs_) {
      models.sensitivities.push_back(spec.sensitivity);
    }
    auto verifier = Verifier(sizes.kws);
    if (!verifier.ok()) return verifier.error();
    models.verifier = std::move(verifier).value();
  }
  if (stages_.kws && stages_.stt && sizes.stt != SttSize::kOff) {
    auto stt = Speech(sizes.stt, cancel);
    if (!stt.ok()) return stt.error();
    models.stt = std::move(stt).value();
  }
  return models;
}

Result<std::shared_ptr<const kws::KeywordSet>> ModelLibrary::Keywords(KwsSize size) {
  std::shared_ptr<const kws::KeywordSet>& slot = kws_[static_cast<size_t>(size)];
  if (slot) return slot;
  if (!keyword_specs_) {
    Result<std::vector<kws::KeywordSpec>> specs = options::BindKeywords(config_);
    if (!specs.ok()) return specs.error();
    keyword_specs_ = std::move(specs).value();
  }
  auto set = kws::LoadKeywordSet(*keyword_specs_, size == KwsSize::kSmall,
                                 [this](const std::string& path) { return KeywordModel(path); });
  if (!set.ok()) return set.error();
  slot = std::move(set).value();
  return slot;
}

// A keyword's model file, loaded once: the sizes' sets share the models of the keywords that
// have no small one.
Result<std::shared_ptr<const kws::KwsModel>> ModelLibrary::KeywordModel(const std::string& path) {
  std::shared_ptr<const kws::KwsModel>& model = kws_files_[path];
  if (model) return model;
  auto loaded = kws::KwsModel::Load(path, front_end_);
  if (!loaded.ok()) {
    kws_files_.erase(path);
    return loaded.error();
  }
  model = std::move(loaded).value();
  Stamp(path);
  return model;
}

Result<std::shared_ptr<const pocketsphinx::KeyphraseVerifier>> LoadKeywordVerifier(
    const config::Config& config, const kws::KeywordSet& set) {
  std::vector<std::string> phones;
  std::vector<pocketsphinx::ConfidenceTerms> terms;
  for (const kws::Keyword& keyword : set.keywords()) {
    const std::optional<kws::KwsVerify>& verify = keyword.model->verify();
    phones.push_back(verify ? verify->phones : "");
    pocketsphinx::ConfidenceTerms t;  // the verifier's defaults, where the model states none
    if (verify) {
      if (verify->run_weight_milli) t.run_weight = *verify->run_weight_milli / 1000.0;
      t.run_offset = verify->run_offset_milli / 1000.0;
      t.narrowband_penalty = ScoreFromQ15(verify->narrowband_penalty_q15);
    }
    terms.push_back(t);
  }
  if (std::ranges::all_of(phones, [](const std::string& p) { return p.empty(); })) {
    return std::shared_ptr<const pocketsphinx::KeyphraseVerifier>();
  }
  Result<stt::SttConfig> stt_config = options::BindStt(config);
  if (!stt_config.ok()) return stt_config.error();
  auto verifier = pocketsphinx::KeyphraseVerifier::Load(
      stt_config->acoustic_model, stt_config->dictionary, phones, std::move(terms));
  if (!verifier.ok()) return Error{"kws: a keyword's second stage: " + verifier.error().message};
  return verifier;
}

// The second stage of the keywords of size `size` (loaded before) whose models ask for one.
Result<std::shared_ptr<const pocketsphinx::KeyphraseVerifier>> ModelLibrary::Verifier(
    KwsSize size) {
  std::shared_ptr<const pocketsphinx::KeyphraseVerifier>& slot =
      verifiers_[static_cast<size_t>(size)];
  if (slot) return slot;
  auto verifier = LoadKeywordVerifier(config_, *kws_[static_cast<size_t>(size)]);
  if (!verifier.ok() || !*verifier) return verifier;
  Stamp((*verifier)->acoustic_model());
  Stamp((*verifier)->dictionary());
  slot = std::move(verifier).value();
  return slot;
}

Result<std::shared_ptr<const stt::SttModel>> ModelLibrary::Speech(SttSize size,
                                                                 const CancelFlag* cancel) {
  const size_t index = size == SttSize::kLarge ? 0 : 1;
  if (stt_[index]) return stt_[index];
  Result<stt::SttConfig> stt_config = options::BindStt(config_);
  if (!stt_config.ok()) return stt_config.error();
  stt_config->profile = std::string(SttSizeName(size));
  if (!command_sets_.empty()) {
    if (!stt_config->grammar.empty() || !stt_config->words.empty()) {
      return Error{"command sets cannot be registered while stt.grammar or stt.words is set"};
    }
    stt_config->command_sets.insert(stt_config->command_sets.end(), command_sets_.begin(),
                                    command_sets_.end());
  }
  auto model = stt_factory::LoadModel(*stt_config, cancel);
  if (!model.ok()) return model.error();
  for (const std::string* path : {&stt_config->acoustic_model, &stt_config->language_model,
                                  &stt_config->dictionary, &stt_config->grammar,
                                  &stt_config->command_model}) {
    Stamp(*path);
  }
  stt_[index] = std::move(model).value();
  return stt_[index];
}

}  // namespace earshot::statemachine
