// `earshot features`: the device's fixed-point front end over a file, one frame per line, so
// training scripts read exactly the features the device computes (no train/serve skew).
#include <cstdio>
#include <string>

#include "audio/frame_source.h"
#include "config/paths.h"
#include "features/front_end.h"
#include "models/embedding/speech_embedding.h"
#include "models/pocketsphinx/sphinx_cepstra.h"
#include "models/stt/stt.h"
#include "options/stage_options.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot features --kind logmel|mfcc|cepstra|embedding-mel|embedding\n"
    "                        [--front-end KEY=VALUE[,KEY=VALUE...]] [--noise-suppression]\n"
    "                        [--model F] [--config F] FILE\n"
    "\n"
    "Prints the fixed-point front end's output for FILE, one 10 ms frame per line, values\n"
    "separated by spaces:\n"
    "  logmel  mel_bands integers: band energy in dB re full scale, Q8 (divide by 256)\n"
    "  mfcc    mfcc_count integers: DCT-II (orthonormal) of the log-mel, dB units, Q8\n"
    "  cepstra floats: the cepstra pocketsphinx can decode from earshot's front end\n"
    "          (models/pocketsphinx/sphinx_cepstra.h; set by stt.acoustic_model's feat.params,\n"
    "          not by --front-end; noise suppression always on, as pocketsphinx's -remove_noise)\n"
    "  embedding-mel  32 integers: the speech embedding's log-mel (openWakeWord's\n"
    "          melspectrogram), 10 log10 of the area-normalised Slaney band power of the int16\n"
    "          samples, in dB Q8 (divide by 256), floored at 0 dB (features::\n"
    "          EmbeddingFrontEndConfig; not set by --front-end, no noise suppression)\n"
    "  embedding  96 floats every 8th frame (80 ms): Google's speech embedding of the last 76\n"
    "          frames of embedding-mel, int8 (models/embedding/speech_embedding.h) times its\n"
    "          scale; the first line is frame 75's. --model F: another embedding model (default:\n"
    "          the bundled models/embedding/speech_embedding.eshm)\n"
    "Frame k is the analysis window ending at the end of hop k (the stream starts from silence).\n"
    "--noise-suppression: logmel and mfcc after the front end's noise suppression (features/\n"
    "noise_suppression.h), as keyword models trained on it see the log-mel.\n"
    "--front-end: logmel and mfcc of another front end than the device's (the one every\n"
    "bundled model states: 25 ms window, 512-point FFT, 40 bands over 20-7600 Hz, 13 MFCCs, no\n"
    "lifter, no mean normalisation): keys window_ms, fft_size, mel_bands, mel_low_hz,\n"
    "mel_high_hz, mfcc_count, lifter (integers) and mean_norm (none|running).\n";

template <typename T>
void PrintFrame(std::span<const T> values, std::string& line) {
  line.clear();
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) line += ' ';
    line += std::to_string(values[i]);
  }
  line += '\n';
  std::fputs(line.c_str(), stdout);
}

// --kind cepstra: SphinxCepstra over the whole file, one line of floats per hop.
int Cepstra(const config::Config& cfg, const std::string& path) {
  Result<stt::SttConfig> stt = options::BindStt(cfg);
  if (!stt.ok()) {
    PrintError(stt.error().message);
    return cli::kExitRuntime;
  }
  auto cepstra = pocketsphinx::SphinxCepstra::FromFeatParams(stt->acoustic_model + "/feat.params");
  if (!cepstra.ok()) {
    PrintError(cepstra.error().message);
    return cli::kExitRuntime;
  }
  auto source = audio::FileSource::Open(path, options::BindFileSource(cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return cli::kExitRuntime;
  }
  const size_t n = static_cast<size_t>(cepstra->coefficients());
  std::vector<float> out;
  std::string line;
  Status s = ForEachAudioFrame(**source, [&](const audio::Frame& frame) {
    out.clear();
    cepstra->Process(frame, out);
    for (size_t i = 0; i < out.size(); i += n)
      PrintFrame(std::span<const float>(out).subspan(i, n), line);
  });
  if (!s.ok()) {  // frames already printed stay valid lines; the error says where it stopped
    PrintError(s.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

// --kind embedding: the speech embedding's stream over the whole file, a line per embedding.
int Embeddings(const config::Config& cfg, const std::string& path, const std::string& model_path) {
  const features::FrontEndConfig config = features::EmbeddingFrontEndConfig();
  auto model = embedding::SpeechEmbedding::Load(model_path, config);
  if (!model.ok()) {
    PrintError(model.error().message);
    return cli::kExitRuntime;
  }
  auto front_end = features::FrontEnd::Create(config);
  auto source = audio::FileSource::Open(path, options::BindFileSource(cfg));
  if (!front_end.ok() || !source.ok()) {
    PrintError(front_end.ok() ? source.error().message : front_end.error().message);
    return cli::kExitRuntime;
  }
  embedding::EmbeddingStream stream(*model);
  std::vector<float> values(embedding::SpeechEmbedding::kDims);
  std::string line;
  Status s = ForEachFrame(**source, **front_end, [&](const features::FrontEnd& fe) {
    const auto e = stream.Push(fe.logmel_db_q8());
    if (!e) return;
    for (size_t i = 0; i < values.size(); ++i) values[i] = (*e)[i] * model->out_scale();
    PrintFrame(std::span<const float>(values), line);
  });
  if (!s.ok()) {
    PrintError(s.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

int Features(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  const std::string kind = args.Option("--kind", "");
  if (kind != "logmel" && kind != "mfcc" && kind != "cepstra" && kind != "embedding-mel" &&
      kind != "embedding") {
    PrintError(
        "features: --kind must be logmel, mfcc, cepstra, embedding-mel or embedding (see earshot "
        "features --help)");
    return cli::kExitUsage;
  }
  if (args.positional.size() != 1) {
    PrintError("features: expected one FILE (see earshot features --help)");
    return cli::kExitUsage;
  }
  const bool noise_suppression = args.Option("--noise-suppression", "") == "1";
  if (kind == "cepstra" && noise_suppression) {
    PrintError("features: --noise-suppression is for logmel and mfcc (cepstra always have it)");
    return cli::kExitUsage;
  }
  if (kind.starts_with("embedding") && noise_suppression) {
    PrintError(
        "features: --noise-suppression is for logmel and mfcc (the embedding's log-mel has none)");
    return cli::kExitUsage;
  }
  if (args.Has("--front-end") && kind != "logmel" && kind != "mfcc") {
    PrintError("features: --front-end is for logmel and mfcc (" + kind +
               " has a front end of its own)");
    return cli::kExitUsage;
  }
  const std::string model = args.Option("--model", "");
  if (!model.empty() && kind != "embedding") {
    PrintError("features: --model is for --kind embedding");
    return cli::kExitUsage;
  }
  if (kind == "cepstra") return Cepstra(*cfg, args.positional[0]);
  if (kind == "embedding") {
    return Embeddings(
        *cfg, args.positional[0],
        model.empty() ? config::BundledModelPath("embedding/speech_embedding.eshm") : model);
  }
  // The embedding's log-mel is its own front end: --front-end changes the main one.
  Result<features::FrontEndConfig> settings =
      features::WithSettings({}, args.Option("--front-end", ""));
  if (!settings.ok()) {
    PrintError("features: " + settings.error().message);
    return cli::kExitUsage;
  }
  auto front_end = kind == "embedding-mel"
                       ? features::FrontEnd::Create(features::EmbeddingFrontEndConfig())
                       : MakeFrontEnd(*settings, noise_suppression);
  if (!front_end.ok()) {
    PrintError(front_end.error().message);
    return cli::kExitRuntime;
  }
  auto source = audio::FileSource::Open(args.positional[0], options::BindFileSource(*cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return cli::kExitRuntime;
  }
  std::string line;
  Status s = ForEachFrame(**source, **front_end, [&](const features::FrontEnd& fe) {
    if (kind == "logmel" || kind == "embedding-mel") {
      PrintFrame(fe.logmel_db_q8(), line);
    } else {
      PrintFrame(fe.mfcc_q8(), line);
    }
  });
  if (!s.ok()) {  // frames already printed stay valid lines; the error says where it stopped
    PrintError(s.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

}  // namespace

const cli::Command kFeaturesCommand{
    "features",
    "print the fixed-point log-mel or MFCC frames, or the speech embedding, of a file",
    kUsage,
    {"--kind", "--model", "--front-end"},
    {"--noise-suppression"},
    Features};

}  // namespace earshot::tools
