// The pocketsphinx backend (Debian libpocketsphinx 5prealpha, en-us model by default).
// One ps_decoder_t holds the loaded acoustic model, dictionary and language model; it is made once
// per SttModel and reused by every session (pocketsphinx reads the models with mmap where it can).
// Profiles trade accuracy for speed (measured in the README):
//   large: pocketsphinx's defaults (full beams, fwdflat and bestpath passes)
//   small: every other frame scored (-ds 2), 2 Gaussians per mixture (-topn 2), narrower beams and
//          no fwdflat pass
#pragma once

#include <memory>
#include <string>

#include "models/stt/stt.h"

struct ps_decoder_s;

namespace earshot::stt {

class PocketsphinxModel final : public SttModel {
 public:
  static Result<std::shared_ptr<const PocketsphinxModel>> Load(const SttConfig& config);
  ~PocketsphinxModel() override;
  std::unique_ptr<SttSession> NewSession() const override;

 private:
  explicit PocketsphinxModel(ps_decoder_s* decoder) : decoder_(decoder) {}
  ps_decoder_s* decoder_;  // owned; sessions borrow it one utterance at a time
};

}  // namespace earshot::stt
