#include "models/kws/keyword_set.h"

#include <algorithm>

namespace earshot::kws {

Result<std::shared_ptr<const KeywordSet>> KeywordSet::Create(std::vector<Keyword> keywords) {
  if (keywords.empty()) return Error{"no keyword to listen for"};
  std::shared_ptr<KeywordSet> set(new KeywordSet());
  for (size_t k = 0; k < keywords.size(); ++k) {
    for (size_t before = 0; before < k; ++before) {
      if (keywords[before].name == keywords[k].name) {
        return Error{"keywords " + std::to_string(before + 1) + " and " + std::to_string(k + 1) +
                     " are both named '" + keywords[k].name + "' (" + keywords[before].path + ", " +
                     keywords[k].path + ")"};
      }
    }
    auto group = std::find_if(set->groups_.begin(), set->groups_.end(), [&](const auto& g) {
      return SharesTrunk(*keywords[g.front()].model, *keywords[k].model);
    });
    if (group == set->groups_.end()) {
      set->groups_.push_back({k});
    } else {
      group->push_back(k);
    }
  }
  set->keywords_ = std::move(keywords);
  return std::shared_ptr<const KeywordSet>(std::move(set));
}

std::optional<size_t> KeywordSet::Find(std::string_view name) const {
  for (size_t k = 0; k < keywords_.size(); ++k) {
    if (keywords_[k].name == name) return k;
  }
  return std::nullopt;
}

KeywordSetSession::KeywordSetSession(std::shared_ptr<const KeywordSet> set, const KwsConfig& config)
    : set_(std::move(set)), scores_(set_->keywords().size()) {
  sessions_.reserve(set_->groups().size());
  for (const std::vector<size_t>& group : set_->groups()) {
    std::vector<std::shared_ptr<const KwsModel>> models;
    for (size_t k : group) models.push_back(set_->keywords()[k].model);
    sessions_.emplace_back(std::move(models), config);
  }
}

void KeywordSetSession::Process(std::span<const int16_t> logmel_db_q8) {
  for (size_t g = 0; g < sessions_.size(); ++g) {
    sessions_[g].Process(logmel_db_q8);
    const std::vector<size_t>& members = set_->groups()[g];
    for (size_t m = 0; m < members.size(); ++m) scores_[members[m]] = sessions_[g].scores()[m];
  }
}

void KeywordSetSession::Reset() {
  for (KwsSession& session : sessions_) session.Reset();
}

}  // namespace earshot::kws
