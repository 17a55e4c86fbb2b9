#include "models/stt/command_decoder.h"

namespace earshot::stt {
namespace {

class CommandSetsSession final : public SttSession {
 public:
  CommandSetsSession(std::unique_ptr<SttSession> decoder,
                     std::shared_ptr<const CommandGrammar> grammar)
      : decoder_(std::move(decoder)), grammar_(std::move(grammar)) {}

  Status Begin() override { return decoder_->Begin(); }
  Status Feed(std::span<const int16_t> samples) override { return decoder_->Feed(samples); }
  std::string Partial() override { return decoder_->Partial(); }
  Result<SttResult> End() override {
    Result<SttResult> result = decoder_->End();
    if (result.ok()) JudgeCommand(*grammar_, *result);
    return result;
  }

 private:
  std::unique_ptr<SttSession> decoder_;
  std::shared_ptr<const CommandGrammar> grammar_;
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
  return std::make_unique<CommandSetsSession>(decoder_->NewSession(), grammar_);
}

}  // namespace earshot::stt
