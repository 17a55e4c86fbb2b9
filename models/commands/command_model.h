// CommandModel: the command classifier, a second opinion on one short spoken command among the
// words it was trained on (tools/train/train_commands.py; the bundled models/commands/commands.eshm
// knows the ten Speech Commands words). command_fusion.h joins it to the decoder's word.
//
// The input, as train_commands.py specifies it: the one-second window of the command's audio that
// CommandWindow picks, through the device's front end (log-mel, dB Q8), then in float: floored at
// the window's loudest value minus range_db, minus each band's mean over the window, over step_db;
// an ensemble of Conv2dNets (models/conv2d_net.h) over bands x frames, each with a softmax over the
// words; the log of their mean probability.
//
// Tensors besides the networks': "words" int8 [n] (the command words, '|'-separated, an output
// each), optionally "other_words" (words it knows that are no command, an output each after the
// command words': what the decoder takes for a command and the classifier knows as another word is
// rejected), "command_input" int32 [3] = {frames, range_db, step_db}. The first network's names
// have no prefix, the others' "m1.", "m2.", ... (at most 8 networks). Immutable and shared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"
#include "models/conv2d_net.h"

namespace earshot::stt {

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
  static Result<std::shared_ptr<const CommandModel>> Load(
      const std::string& path, const features::FrontEndConfig& front_end);

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
  // Log-probabilities over words() then others() of the command in `samples` (the front end's
  // rate, mono).
  std::vector<float> LogProbs(std::span<const int16_t> samples) const;
  // The window it reads (CommandWindow's length), in samples; the front end's rate.
  size_t window_samples() const {
    return static_cast<size_t>(frames_) * static_cast<size_t>(front_end_.hop_samples());
  }
  double sample_rate() const { return front_end_.sample_rate_hz; }

 private:
  CommandModel(std::vector<models::Conv2dNet> members, std::vector<std::string> words,
               std::vector<std::string> others, const features::FrontEndConfig& front_end,
               int frames, int range_db, int step_db)
      : members_(std::move(members)),
        words_(std::move(words)),
        others_(std::move(others)),
        front_end_(front_end),
        frames_(frames),
        range_db_(range_db),
        step_db_(step_db) {}
  std::vector<float> Inputs(std::span<const int16_t> window) const;  // bands x frames

  std::vector<models::Conv2dNet> members_;
  std::vector<std::string> words_;
  std::vector<std::string> others_;
  features::FrontEndConfig front_end_;
  int frames_, range_db_, step_db_;
};

}  // namespace earshot::stt
