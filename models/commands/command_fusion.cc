#include "models/commands/command_fusion.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/commands/kept_audio_session.h"

namespace earshot::commands {
namespace {

class CommandFusionSession final : public KeptAudioSession {
 public:
  CommandFusionSession(std::unique_ptr<stt::SttSession> decoder,
                       std::shared_ptr<const CommandModel> classifier, double bonus, double rescue,
                       std::shared_ptr<const stt::SttModel> words)
      : KeptAudioSession(std::move(decoder)),
        classifier_(std::move(classifier)),
        bonus_(bonus),
        rescue_(rescue),
        words_(std::move(words)) {}

  Result<stt::SttResult> End() override {
    Result<stt::SttResult> result = decoder().End();
    if (!result.ok()) return result;
    if (result->text.empty()) {
      if (result->rejected) Rescued(*result);
      return result;
    }
    const FusedWord fused =
        FuseCommand(classifier_->words(), classifier_->LogProbs(samples()), result->text, bonus_);
    if (fused.other) {  // the classifier knows it as a word that is no command
      result->text.clear();
      result->words.clear();
      result->confidence = fused.probability;
      result->rejected = true;
      return result;
    }
    if (fused.index < 0) return result;
    const std::string& word = classifier_->words()[static_cast<size_t>(fused.index)];
    result->text = word;
    result->confidence = fused.probability;
    if (result->words.size() == 1) result->words[0].word = word;  // the decoder's timing
    return result;
  }

 private:
  // A rejected utterance the classifier knows as a command (Rescue) at rescue_, or at half of it
  // where the command words alone hear that command too: that command.
  void Rescued(stt::SttResult& result) const {
    if (rescue_ >= 1.0) return;
    const VoicedSpan span = FindVoicedSpan(samples());
    if (span.end - span.begin > classifier_->window_samples()) return;  // longer than a command
    const FusedWord rescued =
        Rescue(classifier_->words(), classifier_->LogProbs(samples()), rescue_ / 2);
    if (rescued.index < 0) return;
    const std::string& word = classifier_->words()[static_cast<size_t>(rescued.index)];
    if (rescued.probability < rescue_ && WordsHeard() != word) return;
    const double rate = classifier_->sample_rate();
    const stt::SttWord said{word, static_cast<double>(span.begin) / rate,
                            static_cast<double>(span.end) / rate};
    result = stt::SttResult{word, rescued.probability, {said}, false, {}};
  }

  // The command words' decoder on the utterance: its word, or empty (none; or an error, and the
  // rejection stands). Its session is made here, for the few utterances that ask.
  std::string WordsHeard() const {
    if (!words_) return "";
    const std::unique_ptr<stt::SttSession> session = words_->NewSession();
    if (!session->Begin().ok() || !session->Feed(samples()).ok()) return "";
    Result<stt::SttResult> heard = session->End();
    return heard.ok() ? heard->text : "";
  }

  std::shared_ptr<const CommandModel> classifier_;
  double bonus_;
  double rescue_;
  std::shared_ptr<const stt::SttModel> words_;  // the command words alone (null: none)
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
  const auto index = static_cast<size_t>(best - score.begin());
  if (index >= words.size()) return FusedWord{-1, 1.0 / sum, true};
  return FusedWord{static_cast<int>(index), 1.0 / sum};
}

FusedWord Rescue(const std::vector<std::string>& words, const std::vector<float>& log_probs,
                 double rescue) {
  const auto best = std::max_element(log_probs.begin(), log_probs.end());
  if (best == log_probs.end()) return {};
  const auto index = static_cast<size_t>(best - log_probs.begin());
  const double probability = std::exp(static_cast<double>(*best));
  if (index >= words.size() || probability < rescue) return {};
  return FusedWord{static_cast<int>(index), probability};
}

std::unique_ptr<stt::SttSession> CommandFusionModel::NewSession() const {
  return std::make_unique<CommandFusionSession>(decoder_->NewSession(), classifier_, bonus_,
                                                rescue_, words_decoder_);
}

}  // namespace earshot::commands
