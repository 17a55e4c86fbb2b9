// CommandModel: the command classifier, a second opinion on one short spoken command among the
// words it was trained on (tools/train/train_commands.py; the bundled models/commands/commands.eshm
// knows the ten Speech Commands words). command_fusion.h joins it to the decoder's word.
//
// Its input, as train_commands.py specifies it: the window of the command's audio that
// CommandWindow picks (`frames` hops), with `pad_frames` hops of silence before and after it,
// through the speech embedding (models/embedding/speech_embedding.h, its own front end): of the
// int8 embeddings that come out, the maximum of each of the 96 values, then their mean (the sum
// over n embeddings, rounded half up: floor((2 sum + n) / (2 n))), 192 int8 values at the
// embedding's scale; an int8 MLP (models/int8_mlp.h) gives a logit per class in Q(logit_q); the
// log-probabilities are their log-softmax.
//
// Tensors besides the MLP's: "words" int8 [n] (the command words, '|'-separated, an output each),
// optionally "other_words" (words it knows that are no command, an output each after the command
// words': what the decoder takes for a command and the classifier knows as another word is
// rejected), "command_input" int32 [3] = {frames, pad_frames, logit_q}. Immutable and shared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "models/embedding/speech_embedding.h"
#include "models/int8_mlp.h"

namespace earshot::commands {

// `length` samples of `samples` (zeros after them where they run out): audio of at most that
// length stays where it is; longer audio is cut around its voiced span (the 10 ms hops within
// 40 dB of the loudest), centred.
std::vector<int16_t> CommandWindow(std::span<const int16_t> samples, size_t length);
// The voiced span of `samples` in samples, [begin, end): from the first to the last 10 ms hop
// within 40 dB of the loudest (all of it when every sample is 0).
struct VoicedSpan {
  size_t begin = 0, end = 0;
};
VoicedSpan FindVoicedSpan(std::span<const int16_t> samples);
// Words said apart: the pieces of `samples` that each hold one run of voice, the runs parted by
// pauses of `min_pause` samples or more (voiced: a 10 ms hop louder than the middle, in dB, of the
// quietest tenth of the hops and the loudest, and within 40 dB of the loudest), each piece from the
// middle of the pause before it to the middle of the pause after it (the first from the start, the
// last to the end). One piece when no such pause parts the voice; none for no samples.
std::vector<VoicedSpan> SplitAtPauses(std::span<const int16_t> samples, size_t min_pause);

class CommandModel {
 public:
  static constexpr const char* kKind = "command-embed";

  // The classifier `path` over the speech embedding `embedding_path`.
  static Result<std::shared_ptr<const CommandModel>> Load(const std::string& path,
                                                          const std::string& embedding_path);

  // The command words; the other words it knows (none in a model without "other_words").
  const std::vector<std::string>& words() const { return words_; }
  const std::vector<std::string>& others() const { return others_; }
  // Class i of LogProbs: words() then others().
  const std::string& class_name(size_t i) const {
    return i < words_.size() ? words_[i] : others_[i - words_.size()];
  }
  // Whether `word` is one of its classes.
  bool Knows(const std::string& word) const {
    return std::find(words_.begin(), words_.end(), word) != words_.end() ||
           std::find(others_.begin(), others_.end(), word) != others_.end();
  }
  // Log-probabilities over words() then others() of the command in `samples` (16 kHz, mono).
  std::vector<float> LogProbs(std::span<const int16_t> samples) const;
  // The head's input: the pooled embeddings of `samples` (the window and padding above), and its
  // log-probabilities of such an input (LogProbs is the two).
  std::vector<int8_t> Pooled(std::span<const int16_t> samples) const;
  std::vector<float> HeadLogProbs(std::span<const int8_t> pooled) const;
  // The window it reads (CommandWindow's length), in samples at sample_rate().
  size_t window_samples() const;
  double sample_rate() const;

 private:
  CommandModel(embedding::SpeechEmbedding embedding, models::Int8Mlp head,
               std::vector<std::string> words, std::vector<std::string> others, int frames,
               int pad_frames, int logit_q)
      : embedding_(std::move(embedding)),
        head_(std::move(head)),
        words_(std::move(words)),
        others_(std::move(others)),
        frames_(frames),
        pad_frames_(pad_frames),
        logit_q_(logit_q) {}

  embedding::SpeechEmbedding embedding_;
  models::Int8Mlp head_;
  std::vector<std::string> words_;
  std::vector<std::string> others_;
  int frames_, pad_frames_, logit_q_;
};

}  // namespace earshot::commands
