// Speech-to-text, built for streaming: a model (immutable, loaded once, shared; the governor swaps
// models between utterances) and per-utterance sessions: Begin, feed 10 ms frames, read partial
// hypotheses, End for the final text with a confidence and word timings. Backends implement
// SttModel; pocketsphinx is the first (pocketsphinx_backend.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"
#include "models/stt/command_grammar.h"

namespace earshot::stt {

struct SttWord {
  std::string word;
  double start = 0;  // seconds from the utterance's first frame
  double end = 0;
};

struct SttResult {
  std::string text;
  // The hypothesis's posterior probability, [0, 1], as the backend computes it (pocketsphinx: over
  // its lattice, so 1 under a grammar, whose lattice holds one path; the command classifier's
  // fused probability when it joins the decoder).
  double confidence = 0;
  std::vector<SttWord> words;
  // Command sets (stt.commands): rejected when the decoder's out-of-grammar path won or the words
  // say no set's command; the set, intent and slots of an accepted one.
  bool rejected = false;
  std::optional<CommandMatch> command;
};

// One audio stream's decoding, an utterance at a time (Begin, Feed..., End). A backend may carry
// what it learnt of the stream from one utterance to the next (pocketsphinx: the cepstral mean),
// never from one session to another.
class SttSession {
 public:
  virtual ~SttSession() = default;
  virtual Status Begin() = 0;
  // One frame of 16 kHz mono int16 audio (any length; 10 ms in the pipeline).
  virtual Status Feed(std::span<const int16_t> samples) = 0;
  // The best hypothesis so far (empty if none).
  virtual std::string Partial() = 0;
  virtual Result<SttResult> End() = 0;
};

class SttModel {
 public:
  virtual ~SttModel() = default;
  // A session decoding with this model. Sessions of one model take turns, one utterance at a time
  // per model: a session's Begin while another's utterance is in progress is an error (the
  // pocketsphinx backend leases its one decoder from Begin to End); concurrent streams each load
  // their own model.
  virtual std::unique_ptr<SttSession> NewSession() const = 0;
};

// The Debian package's English model (pocketsphinx-en-us), the default of the model files.
inline constexpr const char* kDebianModel = "/usr/share/pocketsphinx/model/en-us";

// Where the model files are and how hard to search (the [stt] section binds it:
// options/stage_options.h).
struct SttConfig {
  std::string acoustic_model = std::string(kDebianModel) + "/en-us";  // directory (mdef, ...)
  std::string language_model = std::string(kDebianModel) + "/en-us.lm.bin";  // ARPA or binary
  std::string dictionary = std::string(kDebianModel) + "/cmudict-en-us.dict";
  std::string grammar;  // JSGF file: decode with it instead of the language model
  std::string words;    // "yes|no|up": a command list, decoded as a one-word grammar
  // Command sets (stt.commands, or registered at run time): decoded as one grammar beside a loop
  // of any phones, each word costing command_word_cost (natural log): what the loop explains
  // better is no command. The command_* weights here are measured (docs/research/stt.md), not
  // options: the command classifier's card states what they give.
  std::vector<CommandSet> command_sets;
  double command_word_cost = 7;
  int command_garbage_ms = 500;  // the most voice beside a command's words (a click, a breath)
  int command_pause_ms = 1000;   // the longest pause between two words of a command
  // A rejected utterance decoded again with the language model (stt.command_open_transcript).
  bool command_open_transcript = false;
  // stt.profile binds it: "large" or "small"; "": pocketsphinx's own search.
  std::string profile;
  // Or "earshot": cepstra from features/ (sphinx_cepstra.h), for its benchmark; not an option.
  std::string front_end = "pocketsphinx";
  // The command classifier joined to the command words (command_fusion.h): stt.command_model, by
  // default the bundled models/commands/commands.eshm, used when the words are its words; "none":
  // never. The words are stt.words, or those of a grammar whose one rule says one of them
  // (jsgf_check.h).
  std::string command_model;
  bool command_model_named = false;  // set in the config: the words must then be its words
  // The classifier's log-probability bonus for the decoder's word (0: the classifier alone
  // decides among the words; 1000: the decoder does).
  double command_bonus = 3;
  // A rejected utterance of the classifier's words is the command the classifier finds at this
  // probability or more (or half of it when the words decoded alone agree; 1: off).
  double command_rescue = 0.6;
  // Words said apart (digits): each piece's word at this probability or more (1: off;
  // command_sequence.h).
  double command_apart = 0.3;
  std::string embedding_model;  // the speech embedding the command classifier reads

  // The grammar, the words and the command sets exclude each other.
  Status Validate() const;
};

// The sets of stt.commands: each file, and each directory's *.commands files in name order.
Result<std::vector<CommandSet>> ReadCommandSets(const std::vector<std::string>& paths);

// stt.words split at each '|' (empty words kept, for the checks to name).
std::vector<std::string> SplitWords(const std::string& words);
// Its inverse: the words separated by '|'.
std::string JoinWords(const std::vector<std::string>& words);

}  // namespace earshot::stt
