#include "models/commands/command_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "features/front_end.h"
#include "models/model_file.h"
#include "models/stt/stt.h"
#include "models/stt/voiced_hops.h"

namespace earshot::stt {
namespace {

constexpr size_t kMaxWords = 256;
constexpr int kMaxMembers = 8;

// Member m's tensor names start with this: none for the first, "m1.", "m2.", ... after it.
std::string MemberPrefix(int m) { return m == 0 ? "" : "m" + std::to_string(m) + "."; }

// The names of tensor `name` ('|'-separated printable ASCII).
Result<std::vector<std::string>> ReadNames(const models::ModelFile& file, const std::string& name) {
  Result<std::vector<uint32_t>> dims = file.Dims(name);
  if (!dims.ok()) return dims.error();
  if (dims->size() != 1) return file.Fail("tensor '" + name + "' must be 1-D");
  Result<std::vector<int8_t>> bytes = file.Read<int8_t>(name, *dims);
  if (!bytes.ok()) return bytes.error();
  const std::string text(bytes->begin(), bytes->end());
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < 0x7f; })) {
    return file.Fail("tensor '" + name + "' holds a byte that is not a printable ASCII letter");
  }
  std::vector<std::string> words = SplitWords(text);  // stt.words' own format
  if (std::any_of(words.begin(), words.end(), [](const std::string& w) { return w.empty(); })) {
    return file.Fail("tensor '" + name + "' has an empty word");
  }
  return words;
}

// The command words ("words"), then the other classes ("other_words", optional): one output each.
Result<std::vector<std::string>> ReadClasses(const models::ModelFile& file, size_t* commands) {
  Result<std::vector<std::string>> words = ReadNames(file, "words");
  if (!words.ok()) return words.error();
  *commands = words->size();
  if (file.Has("other_words")) {
    Result<std::vector<std::string>> others = ReadNames(file, "other_words");
    if (!others.ok()) return others.error();
    words->insert(words->end(), others->begin(), others->end());
  }
  if (words->size() > kMaxWords) return file.Fail("more than 256 words");
  for (size_t i = 0; i < words->size(); ++i) {
    const auto before = words->begin() + static_cast<long>(i);
    if (std::find(words->begin(), before, (*words)[i]) != before) {
      return file.Fail("tensor 'words' or 'other_words' names '" + (*words)[i] + "' twice");
    }
  }
  return words;
}

}  // namespace

VoicedSpan FindVoicedSpan(std::span<const int16_t> samples) {
  const std::vector<int64_t> power = HopPowers(samples);
  const size_t hops = power.size();
  const int64_t loudest = hops == 0 ? 0 : *std::max_element(power.begin(), power.end());
  size_t first = 0, last = hops == 0 ? 0 : hops - 1;  // no voice: all of it
  if (loudest > 0) {
    auto voiced = [&](int64_t p) { return p * 10000 > loudest; };  // within 40 dB
    first = static_cast<size_t>(std::find_if(power.begin(), power.end(), voiced) - power.begin());
    last = hops - 1 -
           static_cast<size_t>(std::find_if(power.rbegin(), power.rend(), voiced) - power.rbegin());
  }
  return {first * kVoicedHop, std::min(samples.size(), (last + 1) * kVoicedHop)};
}

std::vector<VoicedSpan> SplitAtPauses(std::span<const int16_t> samples, size_t min_pause) {
  const std::vector<bool> voiced = VoicedHops(samples);
  std::vector<VoicedSpan> runs;  // in hops
  for (size_t h = 0; h < voiced.size(); ++h) {
    if (!voiced[h]) continue;
    if (!runs.empty() && (h - runs.back().end) * kVoicedHop < min_pause) {
      runs.back().end = h + 1;  // a pause too short to part words
    } else {
      runs.push_back({h, h + 1});
    }
  }
  std::vector<VoicedSpan> pieces;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t begin = i == 0 ? 0 : (runs[i - 1].end + runs[i].begin) / 2 * kVoicedHop;
    const size_t end =
        i + 1 == runs.size() ? samples.size() : (runs[i].end + runs[i + 1].begin) / 2 * kVoicedHop;
    pieces.push_back({begin, end});
  }
  return pieces;
}

std::vector<int16_t> CommandWindow(std::span<const int16_t> samples, size_t length) {
  const auto [a, b] = FindVoicedSpan(samples);
  std::vector<int16_t> out(length, 0);
  const size_t span = b > a ? b - a : 0;
  if (span >= length) {  // centred on the span's middle
    const size_t start = (a + b) / 2 >= length / 2 ? (a + b) / 2 - length / 2 : 0;
    const size_t n = std::min(length, samples.size() - start);
    std::copy_n(samples.begin() + static_cast<long>(start), n, out.begin());
    return out;
  }
  // The span starts at p in the window: where it was if the audio fits, else centred.
  const size_t p = samples.size() <= length ? a : (length - span) / 2;
  for (size_t i = 0; i < length; ++i) {
    const int64_t src = static_cast<int64_t>(i) + static_cast<int64_t>(a) - static_cast<int64_t>(p);
    if (src >= 0 && src < static_cast<int64_t>(samples.size()))
      out[i] = samples[static_cast<size_t>(src)];
  }
  return out;
}

Result<std::shared_ptr<const CommandModel>> CommandModel::Load(
    const std::string& path, const features::FrontEndConfig& front_end) {
  Result<models::ModelFile> file =
      models::ModelFile::Load(path, "command-cnn", models::FeatureKind::kLogMel, front_end);
  if (!file.ok()) return file.error();
  if (Status valid = front_end.Validate(); !valid.ok()) return valid.error();
  size_t commands = 0;
  Result<std::vector<std::string>> classes = ReadClasses(*file, &commands);
  if (!classes.ok()) return classes.error();
  Result<std::vector<int32_t>> input = file->Read<int32_t>("command_input", {3});
  if (!input.ok()) return input.error();
  const int frames = (*input)[0], range_db = (*input)[1], step_db = (*input)[2];
  if (frames < 10 || frames > 1000 || range_db < 1 || range_db > 200 || step_db < 1 ||
      step_db > 100) {
    return file->Fail(
        "command_input {frames, range_db, step_db} out of range (10..1000, "
        "1..200, 1..100)");
  }
  std::vector<models::Conv2dNet> members;
  for (int m = 0; m == 0 || file->Has(MemberPrefix(m) + "c0.weight"); ++m) {
    if (m == kMaxMembers) return file->Fail("more than 8 networks");
    Result<models::Conv2dNet> net =
        models::Conv2dNet::Load(*file, MemberPrefix(m), file->features().mel_bands, frames,
                                static_cast<int>(classes->size()));
    if (!net.ok()) return net.error();
    members.push_back(std::move(net).value());
  }
  std::vector<std::string> words(classes->begin(), classes->begin() + static_cast<long>(commands));
  std::vector<std::string> others(classes->begin() + static_cast<long>(commands), classes->end());
  return std::shared_ptr<const CommandModel>(new CommandModel(std::move(members), std::move(words),
                                                              std::move(others), front_end, frames,
                                                              range_db, step_db));
}

std::vector<float> CommandModel::Inputs(std::span<const int16_t> window) const {
  // Created here, once per command: the front end allocates, and the model stays immutable.
  auto front_end = features::FrontEnd::Create(front_end_).value();  // Load validated it
  const int bands = front_end_.mel_bands;
  const auto hop = static_cast<size_t>(front_end_.hop_samples());
  std::vector<float> db(static_cast<size_t>(bands) * frames_);  // [band][frame]
  for (int t = 0; t < frames_; ++t) {
    front_end->Process(window.subspan(static_cast<size_t>(t) * hop, hop));
    const std::span<const int16_t> logmel = front_end->logmel_db_q8();
    for (int m = 0; m < bands; ++m) db[static_cast<size_t>(m * frames_ + t)] = logmel[m] / 256.0F;
  }
  const float floor = *std::max_element(db.begin(), db.end()) - static_cast<float>(range_db_);
  for (float& v : db) v = std::max(v, floor);
  for (int m = 0; m < bands; ++m) {
    float* row = &db[static_cast<size_t>(m * frames_)];
    double sum = 0;
    for (int t = 0; t < frames_; ++t) sum += row[t];
    const auto mean = static_cast<float>(sum / frames_);
    for (int t = 0; t < frames_; ++t) row[t] = (row[t] - mean) / static_cast<float>(step_db_);
  }
  return db;
}

std::vector<float> CommandModel::LogProbs(std::span<const int16_t> samples) const {
  const std::vector<float> inputs = Inputs(CommandWindow(samples, window_samples()));
  std::vector<double> mean(words_.size() + others_.size(), 0.0);  // the members' mean, per class
  for (const models::Conv2dNet& net : members_) {
    const std::vector<float> logits = net.Run(inputs);
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> odds(logits.size());  // e^(z - top), the softmax before normalising
    for (size_t i = 0; i < logits.size(); ++i) odds[i] = std::exp(logits[i] - top);
    const double sum = std::accumulate(odds.begin(), odds.end(), 0.0);
    for (size_t i = 0; i < odds.size(); ++i) mean[i] += odds[i] / sum;
  }
  std::vector<float> log_probs(mean.size());
  for (size_t i = 0; i < mean.size(); ++i) {
    log_probs[i] = static_cast<float>(std::log(mean[i] / static_cast<double>(members_.size())));
  }
  return log_probs;
}

}  // namespace earshot::stt
