// KeywordSet: the keywords a stream listens for, each a name and a model, grouped by shared trunk.
// Keyword models trained from text share their leading convolutions byte for byte (SharesTrunk,
// kws.h); a group runs its transform, context and trunk once per hop and then each member's own
// layers, so a keyword added to a group costs only its head. A model that shares nothing is a
// group of its own. The scores are each model's alone, bit for bit.
// KeywordSet is immutable and shared (like the models); KeywordSetSession is one stream's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "models/kws/kws.h"

namespace earshot::kws {

struct Keyword {
  std::string name;  // unique in its set: wake events and D-Bus name the keyword by it
  std::shared_ptr<const KwsModel> model;
  std::string path;    // the model's file
  bool small = false;  // the keyword's small model (the governor's small profiles)
  int refractory_frames = 100;
};

class KeywordSet {
 public:
  // At least one keyword, no name twice (an error naming both files otherwise).
  static Result<std::shared_ptr<const KeywordSet>> Create(std::vector<Keyword> keywords);

  const std::vector<Keyword>& keywords() const { return keywords_; }
  // Keyword indices by trunk: each group's models share one, in the order of their first keyword.
  const std::vector<std::vector<size_t>>& groups() const { return groups_; }
  std::optional<size_t> Find(std::string_view name) const;

 private:
  KeywordSet() = default;
  std::vector<Keyword> keywords_;
  std::vector<std::vector<size_t>> groups_;
};

class KeywordSetSession {
 public:
  // Only config.smooth_frames matters here (detection is detector.h's, per keyword).
  KeywordSetSession(std::shared_ptr<const KeywordSet> set, const KwsConfig& config);

  // Feeds one frame's log-mel (dB Q8) to every group: scores() then holds that hop's score (Q15)
  // of each keyword, by its index in the set.
  void Process(std::span<const int16_t> logmel_db_q8);
  std::span<const uint16_t> scores() const { return scores_; }
  void Reset();

 private:
  std::shared_ptr<const KeywordSet> set_;
  std::vector<KwsSession> sessions_;  // one per group
  std::vector<uint16_t> scores_;
};

}  // namespace earshot::kws
