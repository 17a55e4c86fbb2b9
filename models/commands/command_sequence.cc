#include "models/commands/command_sequence.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "models/commands/kept_audio_session.h"

namespace earshot::commands {
namespace {

class CommandSequenceSession final : public KeptAudioSession {
 public:
  CommandSequenceSession(std::unique_ptr<stt::SttSession> decoder,
                         std::shared_ptr<const CommandModel> classifier,
                         std::shared_ptr<const stt::CommandGrammar> grammar, double min_probability)
      : KeptAudioSession(std::move(decoder)),
        classifier_(std::move(classifier)),
        grammar_(std::move(grammar)),
        min_probability_(min_probability) {}

  Result<stt::SttResult> End() override {
    Result<stt::SttResult> result = decoder().End();
    if (!result.ok()) return result;
    std::optional<stt::SttResult> apart =
        WordsApart(*classifier_, *grammar_, samples(), min_probability_);
    if (apart) return *std::move(apart);
    return result;
  }

 private:
  std::shared_ptr<const CommandModel> classifier_;
  std::shared_ptr<const stt::CommandGrammar> grammar_;
  double min_probability_;
};

// The word of `vocabulary` that `log_probs` (the classifier's, over all its classes) makes most
// probable, and its probability among the vocabulary's words.
std::pair<std::string, double> MostProbable(const CommandModel& classifier,
                                            const std::map<std::string, std::string>& vocabulary,
                                            const std::vector<float>& log_probs) {
  double total = 0, best = 0;
  size_t index = 0;
  for (size_t i = 0; i < log_probs.size(); ++i) {
    if (vocabulary.count(classifier.class_name(i)) == 0) continue;
    const double p = std::exp(static_cast<double>(log_probs[i]));
    total += p;
    if (p > best) {
      best = p;
      index = i;
    }
  }
  if (total <= 0) return {"", 0.0};
  return {classifier.class_name(index), best / total};
}

}  // namespace

std::optional<stt::SttResult> WordsApart(const CommandModel& classifier,
                                         const stt::CommandGrammar& grammar,
                                         std::span<const int16_t> samples, double min_probability) {
  const double rate = classifier.sample_rate();
  const auto min_pause = static_cast<size_t>(rate * kMinPauseMs / 1000);
  const std::map<std::string, std::string> vocabulary = grammar.Words();
  stt::SttResult out{"", 1.0, {}, false, {}};
  const std::vector<VoicedSpan> pieces = SplitAtPauses(samples, min_pause);
  // One piece is one word, or words run together: the decoder's, which can reject it (among a
  // set's few words the classifier's most probable one is always probable).
  if (pieces.size() < 2) return std::nullopt;
  for (const VoicedSpan& piece : pieces) {
    const std::span<const int16_t> audio = samples.subspan(piece.begin, piece.end - piece.begin);
    const VoicedSpan voice = FindVoicedSpan(audio);
    if (voice.end - voice.begin > classifier.window_samples()) return std::nullopt;
    const auto [word, probability] =
        MostProbable(classifier, vocabulary, classifier.LogProbs(audio));
    if (word.empty() || probability < min_probability) return std::nullopt;
    out.text += (out.text.empty() ? "" : " ") + word;
    out.words.push_back({word, static_cast<double>(piece.begin + voice.begin) / rate,
                         static_cast<double>(piece.begin + voice.end) / rate});
    out.confidence *= probability;
  }
  if (!grammar.Match(out.text)) return std::nullopt;
  return out;
}

std::optional<std::string> UnknownWord(const CommandModel& classifier,
                                       const stt::CommandGrammar& grammar) {
  for (const auto& [word, where] : grammar.Words()) {
    if (!classifier.Knows(word)) return word;
  }
  return std::nullopt;
}

std::unique_ptr<stt::SttSession> CommandSequenceModel::NewSession() const {
  return std::make_unique<CommandSequenceSession>(decoder_->NewSession(), classifier_, grammar_,
                                                  min_probability_);
}

}  // namespace earshot::commands
