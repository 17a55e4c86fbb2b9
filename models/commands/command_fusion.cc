#include "models/commands/command_fusion.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace earshot::stt {
namespace {

class CommandFusionSession final : public SttSession {
 public:
  CommandFusionSession(std::unique_ptr<SttSession> decoder,
                       std::shared_ptr<const CommandModel> classifier, double bonus)
      : decoder_(std::move(decoder)), classifier_(std::move(classifier)), bonus_(bonus) {}

  Status Begin() override {
    samples_.clear();
    return decoder_->Begin();
  }
  Status Feed(std::span<const int16_t> samples) override {
    samples_.insert(samples_.end(), samples.begin(), samples.end());
    return decoder_->Feed(samples);
  }
  std::string Partial() override { return decoder_->Partial(); }
  Result<SttResult> End() override {
    Result<SttResult> result = decoder_->End();
    if (!result.ok() || result->text.empty()) return result;
    const FusedWord fused =
        FuseCommand(classifier_->words(), classifier_->LogProbs(samples_), result->text, bonus_);
    if (fused.index < 0) return result;
    const std::string& word = classifier_->words()[static_cast<size_t>(fused.index)];
    result->text = word;
    result->confidence = fused.probability;
    if (result->words.size() == 1) result->words[0].word = word;  // the decoder's timing
    return result;
  }

 private:
  std::unique_ptr<SttSession> decoder_;
  std::shared_ptr<const CommandModel> classifier_;
  double bonus_;
  std::vector<int16_t> samples_;  // the utterance so far
};

}  // namespace

FusedWord FuseCommand(const std::vector<std::string>& words, const std::vector<float>& log_probs,
                      const std::string& heard, double bonus) {
  const auto it = std::find(words.begin(), words.end(), heard);
  if (it == words.end()) return {};
  std::vector<double> score(log_probs.begin(), log_probs.end());
  score[static_cast<size_t>(it - words.begin())] += bonus;
  const auto best = std::max_element(score.begin(), score.end());
  double sum = 0;
  for (const double s : score) sum += std::exp(s - *best);
  return FusedWord{static_cast<int>(best - score.begin()), 1.0 / sum};
}

std::unique_ptr<SttSession> CommandFusionModel::NewSession() const {
  return std::make_unique<CommandFusionSession>(decoder_->NewSession(), classifier_, bonus_);
}

}  // namespace earshot::stt
