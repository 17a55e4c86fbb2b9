// Fuzz target: a model file (ESHM) loaded as a VAD, a keyword model (twice: two keywords), a
// command classifier (over the bundled speech embedding) and a speech embedding, each one that
// loads then run (over two seconds of frames; the classifier's head on a 1.2 s command's pooled
// embeddings), so a file that passes the loader's checks but lies about its shapes is caught
// where it would crash the device: in the session. Each input is tried as it is and with its
// checksum made right, so that edits reach the parser behind the CRC check.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "features/front_end_config.h"
#include "models/commands/command_model.h"
#include "models/embedding/speech_embedding.h"
#include "models/kws/keyword_set.h"
#include "models/kws/kws.h"
#include "models/model_file.h"
#include "models/vad/vad.h"
#include "tests/fuzz/mem_file.h"

namespace {

constexpr int kFrames = 200;  // more than the bundled keyword models' 1.5 s context

// Log-mel frames that swing between the floor and full scale, so every input clamp is reached.
std::vector<int16_t> Frame(int t, int bands) {
  std::vector<int16_t> logmel(static_cast<size_t>(bands));
  for (int b = 0; b < bands; ++b) {
    logmel[static_cast<size_t>(b)] = static_cast<int16_t>(((t * 7 + b * 13) % 101 - 100) * 256);
  }
  return logmel;
}

void RunVad(const std::string& path, const earshot::features::FrontEndConfig& front_end) {
  auto model = earshot::vad::VadModel::Load(path, front_end);
  if (!model.ok()) return;
  earshot::vad::VadSession session(model.value(), earshot::vad::VadConfig{});
  std::vector<earshot::vad::VadFrame> out;
  for (int t = 0; t < kFrames; ++t) session.Process(Frame(t, front_end.mel_bands), out);
  session.Flush(out);
}

// The keyword model twice, as two keywords: a model with a streamed trunk shares it with itself
// (one trunk, two heads), one without runs twice alone.
void RunKws(const std::string& path, const earshot::features::FrontEndConfig& front_end) {
  auto model = earshot::kws::KwsModel::Load(path, front_end);
  if (!model.ok()) return;
  auto set = earshot::kws::KeywordSet::Create({earshot::kws::Keyword{"a", *model, path},
                                               earshot::kws::Keyword{"b", *model, path}});
  if (!set.ok()) return;
  earshot::kws::KeywordSetSession session(set.value(), earshot::kws::KwsConfig{});
  for (int t = 0; t < kFrames; ++t) session.Process(Frame(t, front_end.mel_bands));
}

void RunCommand(const std::string& path) {
  static const std::string embedding =
      std::string(EARSHOT_SOURCE_DIR) + "/models/embedding/speech_embedding.eshm";
  auto model = earshot::commands::CommandModel::Load(path, embedding);
  if (!model.ok()) return;
  // The pooled embeddings depend on the audio and the (bundled) embedding alone: computed once,
  // with the first head that loads, and every head runs on them.
  static const std::vector<int8_t> pooled = [&] {
    std::vector<int16_t> command(19200);
    for (size_t n = 0; n < command.size(); ++n) {
      command[n] = static_cast<int16_t>((n * n / 7 + n * 31) % 20000 - 10000);  // a rising buzz
    }
    return (*model)->Pooled(command);
  }();
  (*model)->HeadLogProbs(pooled);
}

void RunEmbedding(const std::string& path) {
  const earshot::features::FrontEndConfig front_end = earshot::features::EmbeddingFrontEndConfig();
  auto model = earshot::embedding::SpeechEmbedding::Load(path, front_end);
  if (!model.ok()) return;
  earshot::embedding::EmbeddingStream stream(*model);
  for (int t = 0; t < kFrames; ++t) stream.Push(Frame(t, front_end.mel_bands));
}

void RunAll(const uint8_t* data, size_t size) {
  const earshot::fuzz::MemFile file(data, size);
  const earshot::features::FrontEndConfig front_end;
  RunVad(file.path(), front_end);
  RunKws(file.path(), front_end);
  RunCommand(file.path());
  RunEmbedding(file.path());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  RunAll(data, size);
  if (size < 4) return 0;
  std::vector<uint8_t> fixed(data, data + size);
  const uint32_t crc = earshot::models::Crc32(std::span(fixed).first(size - 4));
  for (size_t i = 0; i < 4; ++i) fixed[size - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
  RunAll(fixed.data(), size);
  return 0;
}
