#include "models/stt/command_decoder.h"

#include <vector>

namespace earshot::stt {
namespace {

class CommandSetsSession final : public SttSession {
 public:
  CommandSetsSession(std::unique_ptr<SttSession> decoder,
                     std::shared_ptr<const CommandGrammar> grammar,
                     std::unique_ptr<SttSession> open)
      : decoder_(std::move(decoder)), grammar_(std::move(grammar)), open_(std::move(open)) {}

  Status Begin() override {
    samples_.clear();
    return decoder_->Begin();
  }
  Status Feed(std::span<const int16_t> samples) override {
    if (open_) samples_.insert(samples_.end(), samples.begin(), samples.end());
    return decoder_->Feed(samples);
  }
  std::string Partial() override { return decoder_->Partial(); }
  Result<SttResult> End() override {
    Result<SttResult> result = decoder_->End();
    if (!result.ok()) return result;
    JudgeCommand(*grammar_, *result);
    if (result->rejected && open_) return Transcribe();
    return result;
  }

 private:
  // The kept audio decoded by the open decoder: its words, still rejected as a command.
  Result<SttResult> Transcribe() {
    if (Status s = open_->Begin(); !s.ok()) return s.error();
    if (Status s = open_->Feed(samples_); !s.ok()) return s.error();
    Result<SttResult> open = open_->End();
    if (!open.ok()) return open;
    open->rejected = true;
    open->command.reset();
    return open;
  }

  std::unique_ptr<SttSession> decoder_;
  std::shared_ptr<const CommandGrammar> grammar_;
  std::unique_ptr<SttSession> open_;
  std::vector<int16_t> samples_;  // the utterance so far, kept only for the open decoder
};

}  // namespace

void JudgeCommand(const CommandGrammar& grammar, SttResult& result) {
  result.command.reset();
  if (result.rejected || result.text.empty()) {
    result.rejected = true;
    return;
  }
  result.command = grammar.Match(result.text);
  result.rejected = !result.command.has_value();
}

std::unique_ptr<SttSession> CommandSetsModel::NewSession() const {
  return std::make_unique<CommandSetsSession>(decoder_->NewSession(), grammar_,
                                              open_ ? open_->NewSession() : nullptr);
}

}  // namespace earshot::stt
