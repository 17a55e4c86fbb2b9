// The pocketsphinx backend (Debian libpocketsphinx 5prealpha, en-us model by default).
// One ps_decoder_t holds the loaded acoustic model, dictionary and language model; it is made once
// per SttModel and leased to one session's utterance at a time, Begin to End (another session's
// Begin meanwhile is an error; pocketsphinx reads the models with mmap where it can).
// Profiles trade accuracy for speed (measured in the README):
//   large: pocketsphinx's beams, no fwdflat pass, bestpath rescoring of a lattice kept small
//          (at most 10 word exits per frame) and at most 7000 active HMMs per frame, so the final
//          result comes soon after the last frame
//   small: every other frame scored (-ds 2), 2 Gaussians per mixture (-topn 2), narrower beams
// With a language model, sessions decode as the frames come (partial hypotheses). With a grammar
// (stt.grammar, stt.words: short commands) a session keeps the utterance and decodes it whole at
// End, normalised by its own cepstral mean, which is far more accurate on one-second commands;
// Partial is then empty. Command sets (stt.commands) decode as one grammar whose other path is a
// loop of any phones (words of one phone each, kPhoneWordPrefix): an utterance it explains better
// than any command is rejected (SttResult::rejected). A session is one stream: its utterances carry
// the live cepstral mean over. When every sentence of the sets is one word the same decoder also
// holds those words as a second search without the loop (WordsAlone: a forced choice among them,
// a second opinion for the command classifier's rescue, command_fusion.h); each session selects
// its model's search at Begin.
// front_end = "earshot": the cepstra come from earshot's fixed-point front end set to the
// acoustic model's feat.params (sphinx_cepstra.h) instead of pocketsphinx's own.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "models/pocketsphinx/sphinx_cepstra.h"
#include "models/stt/stt.h"

namespace earshot::pocketsphinx {
struct PocketsphinxDecoder;  // the decoder and its lease, shared by the model and its sessions
}

namespace earshot::pocketsphinx {

// Command sets: the most voice a command may have beside its words, and its longest pause.
struct CommandLimits {
  int garbage_ms = 500;
  int pause_ms = 1000;
};

class PocketsphinxModel final : public stt::SttModel {
 public:
  // Stops at its next step once `cancel` is raised (models/stt_factory/load_model.h).
  static Result<std::shared_ptr<const PocketsphinxModel>> Load(const stt::SttConfig& config,
                                                               const CancelFlag* cancel = nullptr);
  ~PocketsphinxModel() override;
  std::unique_ptr<stt::SttSession> NewSession() const override;
  // Command sets whose every sentence is one word (the ten command words as one set): those words
  // alone, decoded as stt.words would be, on this model's decoder (its sessions take turns with
  // this model's); null otherwise.
  std::shared_ptr<const stt::SttModel> WordsAlone() const;

 private:
  PocketsphinxModel(std::shared_ptr<PocketsphinxDecoder> decoder, bool whole_utterance,
                    std::optional<CommandLimits> limits, std::optional<SphinxCepstra> cepstra,
                    std::string search = "")
      : decoder_(std::move(decoder)),
        whole_utterance_(whole_utterance),
        command_limits_(limits),
        cepstra_(std::move(cepstra)),
        search_(std::move(search)) {}
  // One decoder, leased to one session's utterance at a time (Begin to End): another session's
  // Begin is refused meanwhile, so two streams never decode on it at once. Sessions share its
  // ownership: one dropped mid-utterance ends that utterance, whatever became of the model.
  std::shared_ptr<PocketsphinxDecoder> decoder_;
  bool whole_utterance_;            // grammars: buffer the utterance, decode it at End
  std::optional<CommandLimits> command_limits_;  // command sets: what a command may have
  std::vector<float> initial_cmn_;  // live cepstral mean before any utterance (-cmninit)
  std::optional<SphinxCepstra> cepstra_;  // front_end = "earshot": each session copies it
  // The search its sessions select (empty: the decoder's only one; the command search: the
  // decoder holds the words-alone search too).
  std::string search_;
};

}  // namespace earshot::pocketsphinx
