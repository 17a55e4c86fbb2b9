#include "models/commands/command_model.h"

#include <algorithm>
#include <cmath>

#include "features/front_end.h"
#include "features/front_end_config.h"
#include "models/model_file.h"
#include "models/stt/stt.h"
#include "models/stt/voiced_hops.h"

namespace earshot::commands {
namespace {

constexpr size_t kMaxWords = 256;
constexpr int kPooled = 2 * embedding::SpeechEmbedding::kDims;  // the maximum, then the mean

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
  std::vector<std::string> words = stt::SplitWords(text);  // stt.words' own format
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
  const std::vector<int64_t> power = stt::HopPowers(samples);
  const size_t hops = power.size();
  const int64_t loudest = hops == 0 ? 0 : *std::max_element(power.begin(), power.end());
  size_t first = 0, last = hops == 0 ? 0 : hops - 1;  // no voice: all of it
  if (loudest > 0) {
    auto voiced = [&](int64_t p) { return p * 10000 > loudest; };  // within 40 dB
    first = static_cast<size_t>(std::find_if(power.begin(), power.end(), voiced) - power.begin());
    last = hops - 1 -
           static_cast<size_t>(std::find_if(power.rbegin(), power.rend(), voiced) - power.rbegin());
  }
  return {first * stt::kVoicedHop, std::min(samples.size(), (last + 1) * stt::kVoicedHop)};
}

std::vector<VoicedSpan> SplitAtPauses(std::span<const int16_t> samples, size_t min_pause) {
  const std::vector<bool> voiced = stt::VoicedHops(samples);
  std::vector<VoicedSpan> runs;  // in hops
  for (size_t h = 0; h < voiced.size(); ++h) {
    if (!voiced[h]) continue;
    if (!runs.empty() && (h - runs.back().end) * stt::kVoicedHop < min_pause) {
      runs.back().end = h + 1;  // a pause too short to part words
    } else {
      runs.push_back({h, h + 1});
    }
  }
  std::vector<VoicedSpan> pieces;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t begin = i == 0 ? 0 : (runs[i - 1].end + runs[i].begin) / 2 * stt::kVoicedHop;
    const size_t end = i + 1 == runs.size()
                           ? samples.size()
                           : (runs[i].end + runs[i + 1].begin) / 2 * stt::kVoicedHop;
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
    const std::string& path, const std::string& embedding_path) {
  const features::FrontEndConfig front_end = features::EmbeddingFrontEndConfig();
  Result<embedding::SpeechEmbedding> embedding =
      embedding::SpeechEmbedding::Load(embedding_path, front_end);
  if (!embedding.ok()) return embedding.error();
  Result<models::ModelFile> file =
      models::ModelFile::Load(path, kKind, models::FeatureKind::kEmbeddingMel, front_end);
  if (!file.ok()) return file.error();
  size_t commands = 0;
  Result<std::vector<std::string>> classes = ReadClasses(*file, &commands);
  if (!classes.ok()) return classes.error();
  if (classes->size() < 2) return file->Fail("needs two classes or more (words, other_words)");
  Result<std::vector<int32_t>> input = file->Read<int32_t>("command_input", {3});
  if (!input.ok()) return input.error();
  const int frames = (*input)[0], pad_frames = (*input)[1], logit_q = (*input)[2];
  if (frames < embedding->window_frames() || frames > 1000 || pad_frames < 0 ||
      pad_frames > 1000 || logit_q < 0 || logit_q > 10) {
    return file->Fail(
        "command_input {frames, pad_frames, logit_q} out of range (the embedding's window..1000, "
        "0..1000, 0..10)");
  }
  Result<models::Int8Mlp> head =
      models::Int8Mlp::Load(*file, kPooled, static_cast<int>(classes->size()));
  if (!head.ok()) return head.error();
  std::vector<std::string> words(classes->begin(), classes->begin() + static_cast<long>(commands));
  std::vector<std::string> others(classes->begin() + static_cast<long>(commands), classes->end());
  return std::shared_ptr<const CommandModel>(
      new CommandModel(std::move(embedding).value(), std::move(head).value(), std::move(words),
                       std::move(others), frames, pad_frames, logit_q));
}

size_t CommandModel::window_samples() const {
  return static_cast<size_t>(frames_) *
         static_cast<size_t>(features::EmbeddingFrontEndConfig().hop_samples());
}

double CommandModel::sample_rate() const {
  return features::EmbeddingFrontEndConfig().sample_rate_hz;
}

std::vector<int8_t> CommandModel::Pooled(std::span<const int16_t> samples) const {
  // Created here, once per command: the front end and the stream allocate, and the model stays
  // immutable.
  const features::FrontEndConfig config = features::EmbeddingFrontEndConfig();
  auto front_end = features::FrontEnd::Create(config).value();  // a fixed, valid config
  embedding::EmbeddingStream stream(embedding_);
  const auto hop = static_cast<size_t>(config.hop_samples());
  const size_t pad = static_cast<size_t>(pad_frames_) * hop;
  std::vector<int16_t> padded(pad, 0);
  const std::vector<int16_t> window = CommandWindow(samples, window_samples());
  padded.insert(padded.end(), window.begin(), window.end());
  padded.resize(padded.size() + pad, 0);
  constexpr int kDims = embedding::SpeechEmbedding::kDims;
  std::vector<int32_t> top(kDims, -128), sum(kDims, 0);
  int32_t n = 0;
  for (size_t t = 0; t + hop <= padded.size(); t += hop) {
    front_end->Process(std::span<const int16_t>(padded).subspan(t, hop));
    const auto e = stream.Push(front_end->logmel_db_q8());
    if (!e) continue;
    for (int i = 0; i < kDims; ++i) {
      top[i] = std::max<int32_t>(top[i], (*e)[i]);
      sum[i] += (*e)[i];
    }
    ++n;
  }
  std::vector<int8_t> pooled(kPooled, 0);
  if (n == 0) return pooled;  // shorter than the embedding's window: frames_ forbids it
  for (int i = 0; i < kDims; ++i) {
    pooled[i] = static_cast<int8_t>(top[i]);
    const int32_t twice = 2 * sum[i] + n;  // the mean rounded half up: floor(twice / (2 n))
    const int32_t mean = twice >= 0 ? twice / (2 * n) : -((-twice + 2 * n - 1) / (2 * n));
    pooled[kDims + i] = static_cast<int8_t>(mean);
  }
  return pooled;
}

std::vector<float> CommandModel::LogProbs(std::span<const int16_t> samples) const {
  return HeadLogProbs(Pooled(samples));
}

std::vector<float> CommandModel::HeadLogProbs(std::span<const int8_t> pooled) const {
  models::Int8Mlp::Scratch scratch = head_.MakeScratch();
  std::vector<int32_t> logits(words_.size() + others_.size());
  head_.RunLogits(pooled, scratch, logits);
  const double quantum = std::ldexp(1.0, -logit_q_);
  const int32_t top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (const int32_t z : logits) sum += std::exp((z - top) * quantum);
  const double log_sum = std::log(sum);
  std::vector<float> log_probs(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    log_probs[i] = static_cast<float>((logits[i] - top) * quantum - log_sum);
  }
  return log_probs;
}

}  // namespace earshot::commands
