#include "models/kws/kws.h"

#include <algorithm>
#include <utility>

#include "base/q15.h"
#include "models/kws/phrase.h"
#include "models/model_file.h"

namespace earshot::kws {
namespace {

Result<bool> ReadNoiseSuppression(const models::ModelFile& file) {
  if (!file.Has("kws_noise_suppression")) return false;
  Result<std::vector<int32_t>> v = file.Read<int32_t>("kws_noise_suppression", {1});
  if (!v.ok()) return v.error();
  if ((*v)[0] != 0 && (*v)[0] != 1) return file.Fail("kws_noise_suppression must be 0 or 1");
  return (*v)[0] == 1;
}

// kws_phrase in UTF-8, or "" when the file has none.
Result<std::string> ReadPhrase(const models::ModelFile& file) {
  if (!file.Has("kws_phrase")) return std::string();
  Result<std::vector<uint32_t>> dims = file.Dims("kws_phrase");
  if (!dims.ok()) return dims.error();
  if (dims->size() != 1) return file.Fail("tensor 'kws_phrase' must be 1-D: one code point each");
  Result<std::vector<int32_t>> code_points = file.Read<int32_t>("kws_phrase", *dims);
  if (!code_points.ok()) return code_points.error();
  if (const std::string problem = PhraseProblem(*code_points); !problem.empty()) {
    return file.Fail("kws_phrase is no phrase: " + problem);
  }
  return EncodeUtf8(*code_points);
}

// An optional int32[1] tensor: `absent` when the file has none, else its value, which must lie in
// [min, max] (`what` says what it is in the error: "a Q15 score threshold").
Result<int32_t> ReadOptionalScalar(const models::ModelFile& file, const std::string& name,
                                   int32_t absent, int32_t min, int32_t max,
                                   const std::string& what) {
  if (!file.Has(name)) return absent;
  Result<std::vector<int32_t>> v = file.Read<int32_t>(name, {1});
  if (!v.ok()) return v.error();
  if ((*v)[0] < min || (*v)[0] > max) {
    return file.Fail(name + " = " + std::to_string((*v)[0]) + ": expected " + what + " in [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return (*v)[0];
}

// kws_verify_run into `verify`, when the file has it.
Status ReadRun(const models::ModelFile& file, KwsVerify& verify) {
  if (!file.Has("kws_verify_run")) return OkStatus();
  Result<std::vector<int32_t>> v = file.Read<int32_t>("kws_verify_run", {2});
  if (!v.ok()) return v.error();
  const int32_t weight = (*v)[0], offset = (*v)[1];
  if (weight < 0 || weight > 5000 || offset < -100000 || offset > 100000) {
    return file.Fail("kws_verify_run = {" + std::to_string(weight) + ", " + std::to_string(offset) +
                     "}: expected a weight in [0, 5000] and an offset in [-100000, 100000], "
                     "thousandths");
  }
  verify.run_weight_milli = weight;
  verify.run_offset_milli = offset;
  return OkStatus();
}

// kws_verify and kws_verify_phones, both or neither; kws_verify_narrowband and kws_verify_run
// only with them.
Result<std::optional<KwsVerify>> ReadVerify(const models::ModelFile& file) {
  const bool has_phones = file.Has("kws_verify_phones");
  if (!file.Has("kws_verify")) {
    if (has_phones) return file.Fail("kws_verify_phones without kws_verify");
    for (const char* name : {"kws_verify_narrowband", "kws_verify_run"}) {
      if (file.Has(name)) return file.Fail(std::string(name) + " without kws_verify");
    }
    return std::optional<KwsVerify>();
  }
  if (!has_phones) return file.Fail("kws_verify without kws_verify_phones");
  Result<std::vector<int32_t>> v = file.Read<int32_t>("kws_verify", {2});
  if (!v.ok()) return v.error();
  for (const int32_t threshold : *v) {
    if (threshold < 1 || threshold > kQ15Max) {
      return file.Fail("kws_verify = " + std::to_string(threshold) +
                       ": expected Q15 thresholds in [1, 32767]");
    }
  }
  Result<std::vector<uint32_t>> dims = file.Dims("kws_verify_phones");
  if (!dims.ok()) return dims.error();
  if (dims->size() != 1 || (*dims)[0] > 512) {
    return file.Fail("tensor 'kws_verify_phones' must be 1-D, at most 512 characters");
  }
  Result<std::vector<int32_t>> text = file.Read<int32_t>("kws_verify_phones", *dims);
  if (!text.ok()) return text.error();
  Result<int32_t> narrowband =
      ReadOptionalScalar(file, "kws_verify_narrowband", 0, 0, 16384, "a Q15 confidence");
  if (!narrowband.ok()) return narrowband.error();
  KwsVerify verify{std::string(), (*v)[0], (*v)[1], *narrowband, std::nullopt, 0};
  if (Status run = ReadRun(file, verify); !run.ok()) return run.error();
  for (const int32_t c : *text) {
    const bool space = c == ' ';
    if (!(c >= 'A' && c <= 'Z') && !space) {
      return file.Fail("kws_verify_phones: phones are upper-case letters between single spaces");
    }
    verify.phones += static_cast<char>(c);
  }
  const std::string& p = verify.phones;
  if (p.empty() || p.front() == ' ' || p.back() == ' ' || p.find("  ") != std::string::npos) {
    return file.Fail("kws_verify_phones: phones are upper-case letters between single spaces");
  }
  return std::optional<KwsVerify>(std::move(verify));
}

bool SameLayer(const models::Int8Dense& a, const models::Int8Dense& b) {
  return a.inputs == b.inputs && a.outputs == b.outputs && a.kernel_frames == b.kernel_frames &&
         a.stride_frames == b.stride_frames && a.frame_width == b.frame_width &&
         a.input_frames == b.input_frames && a.positions == b.positions && a.weight == b.weight &&
         a.bias == b.bias && a.mult == b.mult && a.shift == b.shift;
}

}  // namespace

Result<std::shared_ptr<const KwsModel>> KwsModel::Load(const std::string& path,
                                                       const features::FrontEndConfig& front_end) {
  Result<models::ModelFile> file =
      models::ModelFile::Load(path, "kws-mlp", models::FeatureKind::kLogMel, front_end);
  if (!file.ok()) return file.error();
  if (file->features().mel_bands % 2 != 0) {
    return file->Fail("the keyword spotter pools bands in pairs: it needs an even number");
  }
  std::shared_ptr<KwsModel> model(new KwsModel());
  Result<std::vector<uint32_t>> dims = file->Dims("context");
  if (!dims.ok()) return dims.error();
  Result<std::vector<int32_t>> context = file->Read<int32_t>("context", *dims);
  if (!context.ok()) return context.error();
  if (context->empty() || context->size() > 256 ||
      !std::is_sorted(context->begin(), context->end()) || context->front() < -400 ||
      context->back() != 0) {
    return file->Fail("context offsets must ascend within [-400, 0] and end at 0");
  }
  model->context_ = std::move(context).value();
  Result<std::vector<int32_t>> t = file->Read<int32_t>("kws_transform", {4});
  if (!t.ok()) return t.error();
  model->transform_ = KwsTransform{(*t)[0], (*t)[1], (*t)[2], (*t)[3]};
  const KwsTransform& transform = model->transform_;
  if (transform.mean_shift < 0 || transform.mean_shift > 15 || transform.step_shift < 0 ||
      transform.step_shift > 15 || transform.min < -128 || transform.max > 127 ||
      transform.min > transform.max) {
    return file->Fail("kws_transform constants out of range");
  }
  Result<bool> noise_suppression = ReadNoiseSuppression(*file);
  if (!noise_suppression.ok()) return noise_suppression.error();
  Result<std::string> phrase = ReadPhrase(*file);
  if (!phrase.ok()) return phrase.error();
  Result<int32_t> threshold = ReadOptionalScalar(
      *file, "kws_default_threshold", kDefaultThresholdQ15, 1, kQ15Max, "a Q15 score threshold");
  if (!threshold.ok()) return threshold.error();
  Result<std::optional<KwsVerify>> verify = ReadVerify(*file);
  if (!verify.ok()) return verify.error();
  model->pooled_bands_ = file->features().mel_bands / 2;
  Result<models::Int8Mlp> mlp = models::Int8Mlp::Load(
      *file, model->pooled_bands_ * static_cast<int>(model->context_.size()));
  if (!mlp.ok()) return mlp.error();
  model->mlp_ = std::move(mlp).value();
  model->noise_suppression_ = *noise_suppression;
  model->log_floor_db_q8_ = static_cast<int16_t>(front_end.log_floor_db * 256);
  model->phrase_ = std::move(phrase).value();
  model->default_threshold_q15_ = *threshold;
  model->verify_ = std::move(verify).value();
  model->trunk_layers_ =
      ConvStream::StreamedLayers(model->mlp_, model->context_, model->pooled_bands_);
  return std::shared_ptr<const KwsModel>(std::move(model));
}

bool SharesTrunk(const KwsModel& a, const KwsModel& b) {
  if (a.trunk_layers() == 0 || a.trunk_layers() != b.trunk_layers() ||
      !std::ranges::equal(a.context(), b.context()) || a.transform() != b.transform() ||
      a.noise_suppression() != b.noise_suppression() || a.pooled_bands() != b.pooled_bands() ||
      a.log_floor_db_q8() != b.log_floor_db_q8()) {
    return false;
  }
  for (size_t l = 0; l < static_cast<size_t>(a.trunk_layers()); ++l) {
    if (!SameLayer(a.mlp().layers()[l], b.mlp().layers()[l])) return false;
  }
  return true;
}

Status KwsConfig::Validate() const {
  auto fail = [](const std::string& what) { return Status(Error{"kws: " + what}); };
  if (threshold_q15 < 0 || threshold_q15 > kQ15One) {
    return fail("threshold " + std::to_string(threshold_q15) + " / 32768 must be in [0, 1]");
  }
  if (refractory_frames < 0) return fail("refractory period must be >= 0 frames of 10 ms");
  if (max_hold_frames < 1 || max_hold_frames > 200) {
    return fail("max hold must be in [1, 200] frames of 10 ms (10-2000 ms)");
  }
  if (gap_frames < 0 || gap_frames > 100) {
    return fail("gap must be in [0, 100] frames of 10 ms (0-1000 ms)");
  }
  if (smooth_frames < 1 || smooth_frames > 50) {
    return fail("smoothing must be in [1, 50] frames of 10 ms (10-500 ms)");
  }
  return OkStatus();
}

KwsSession::KwsSession(std::shared_ptr<const KwsModel> model, const KwsConfig& config)
    : KwsSession(std::vector<std::shared_ptr<const KwsModel>>{std::move(model)}, config) {}

KwsSession::KwsSession(std::vector<std::shared_ptr<const KwsModel>> models,
                       const KwsConfig& config)
    : scores_(models.size()),
      mean_q8_(static_cast<size_t>(models.front()->pooled_bands())),
      stack_(models.front()->pooled_bands(),
             std::vector<int32_t>(models.front()->context().begin(),
                                  models.front()->context().end())),
      stream_(ConvStream::For(models.front()->mlp(), models.front()->context(),
                              models.front()->pooled_bands())) {
  heads_.reserve(models.size());
  for (std::shared_ptr<const KwsModel>& model : models) {
    models::Int8Mlp::Scratch scratch = model->mlp().MakeScratch();
    const auto smooth = static_cast<size_t>(std::max(1, config.smooth_frames));
    heads_.push_back(Head{std::move(model), std::move(scratch), std::vector<uint16_t>(smooth), 0});
  }
  if (trunk().noise_suppression()) {
    noise_.emplace(2 * trunk().pooled_bands(), trunk().log_floor_db_q8());
    denoised_q8_.resize(static_cast<size_t>(2 * trunk().pooled_bands()));
  }
}

void KwsSession::Reset() {
  stack_.Reset();
  if (noise_) noise_->Reset();
  for (Head& head : heads_) {
    std::fill(head.recent_q15.begin(), head.recent_q15.end(), 0);
    head.recent_sum_q15 = 0;
  }
  primed_ = false;
}

uint16_t KwsSession::Process(std::span<const int16_t> logmel_db_q8) {
  if (noise_) {
    std::copy(logmel_db_q8.begin(), logmel_db_q8.end(), denoised_q8_.begin());
    noise_->Process(denoised_q8_);
    logmel_db_q8 = denoised_q8_;
  }
  const KwsTransform& p = trunk().transform();
  std::span<int8_t> inputs = stack_.Next();
  for (size_t b = 0; b < mean_q8_.size(); ++b) {
    const int32_t pooled = (int32_t{logmel_db_q8[2 * b]} + logmel_db_q8[2 * b + 1]) >> 1;
    if (!primed_) mean_q8_[b] = pooled;
    mean_q8_[b] += (pooled - mean_q8_[b]) >> p.mean_shift;
    inputs[b] =
        static_cast<int8_t>(std::clamp((pooled - mean_q8_[b]) >> p.step_shift, p.min, p.max));
  }
  primed_ = true;
  stack_.Commit();
  const int64_t hop = stack_.committed() - 1;
  if (!stream_) {  // nothing streamed: each whole network on the stacked context
    const std::span<const int8_t> stacked = stack_.Stack(hop);
    for (size_t m = 0; m < heads_.size(); ++m) {
      scores_[m] = Smoothed(heads_[m], hop, heads_[m].model->mlp().Run(stacked, heads_[m].scratch));
    }
    return scores_[0];
  }
  // The trunk once (the first model's layers, the same bytes as the others'), then each head.
  const std::span<const int8_t> trunk_out = stream_->RunTrunk(trunk().mlp(), hop, stack_);
  for (size_t m = 0; m < heads_.size(); ++m) {
    Head& head = heads_[m];
    scores_[m] =
        Smoothed(head, hop, head.model->mlp().RunFrom(stream_->layers(), trunk_out, head.scratch));
  }
  return scores_[0];
}

// The ring holds the scores of the last n hops (zeros before the first): n * 32767 < 2^31.
uint16_t KwsSession::Smoothed(Head& head, int64_t hop, uint16_t network_q15) {
  const auto n = static_cast<int32_t>(head.recent_q15.size());
  uint16_t& slot = head.recent_q15[static_cast<size_t>(hop % n)];
  head.recent_sum_q15 += int32_t{network_q15} - slot;
  slot = network_q15;
  return static_cast<uint16_t>((head.recent_sum_q15 + n / 2) / n);
}

uint16_t KwsSession::last_network_score(size_t model) const {
  const Head& head = heads_[model];
  const auto n = static_cast<int64_t>(head.recent_q15.size());
  return head.recent_q15[static_cast<size_t>((stack_.committed() + n - 1) % n)];
}

}  // namespace earshot::kws
