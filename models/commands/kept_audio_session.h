// KeptAudioSession: a session over a decoder's session that also keeps the utterance's audio, for
// the command classifier's second look at End (command_fusion.h, command_sequence.h). Begin,
// Feed and Partial are the decoder's; a subclass's End reads decoder() and samples().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/stt/stt.h"

namespace earshot::commands {

class KeptAudioSession : public stt::SttSession {
 public:
  explicit KeptAudioSession(std::unique_ptr<stt::SttSession> decoder)
      : decoder_(std::move(decoder)) {}

  Status Begin() override {
    samples_.clear();
    return decoder_->Begin();
  }
  Status Feed(std::span<const int16_t> samples) override {
    samples_.insert(samples_.end(), samples.begin(), samples.end());
    return decoder_->Feed(samples);
  }
  std::string Partial() override { return decoder_->Partial(); }

 protected:
  stt::SttSession& decoder() { return *decoder_; }
  const std::vector<int16_t>& samples() const { return samples_; }

 private:
  std::unique_ptr<stt::SttSession> decoder_;
  std::vector<int16_t> samples_;  // the utterance so far
};

}  // namespace earshot::commands
