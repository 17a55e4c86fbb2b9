#include "models/stt/pocketsphinx_backend.h"

#include <pocketsphinx.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

namespace earshot::stt {
namespace {

constexpr double kFrameSeconds = 0.01;  // pocketsphinx's frame rate (-frate 100)

bool Exists(const std::string& path, bool directory) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && (directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

// Profiles (see the header): pocketsphinx arguments on top of its defaults.
std::vector<std::string> ProfileArgs(const std::string& profile) {
  // Both stream: live cepstral mean normalisation (from the model's -cmninit), and no fwdflat
  // second pass, which would redo the whole utterance after its end (measured: 250 ms median
  // latency for 1.3 points of WER).
  std::vector<std::string> args = {"-cmn", "live", "-fwdflat", "no"};
  if (profile == "small") {
    args.insert(args.end(), {"-ds", "2", "-topn", "2", "-maxhmmpf", "3000", "-maxwpf", "5",
                             "-pl_window", "10", "-beam", "1e-40", "-wbeam", "1e-24"});
  }
  return args;
}

// The last "ERROR" line pocketsphinx logged, to say why loading failed.
std::string LastLoggedError(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("ERROR") != std::string::npos || line.find("FATAL") != std::string::npos) last = line;
  }
  return last;
}

// "yes|no|up" -> a JSGF grammar accepting any one of the words.
std::string WordsGrammar(const std::string& words) {
  std::string alternatives;
  for (char c : words) alternatives += c == '|' ? std::string(" | ") : std::string(1, c);
  return "#JSGF V1.0;\ngrammar commands;\npublic <command> = " + alternatives + " ;\n";
}

class PocketsphinxSession final : public SttSession {
 public:
  explicit PocketsphinxSession(ps_decoder_t* decoder) : decoder_(decoder) {}

  Status Begin() override {
    // A fresh stream per utterance: frame numbers (word timings) count from its start, and the
    // live cepstral mean starts from the model's -cmninit, so results do not depend on history.
    if (ps_start_stream(decoder_) < 0 || ps_start_utt(decoder_) < 0) {
      return Error{"stt: pocketsphinx could not start an utterance"};
    }
    return OkStatus();
  }

  Status Feed(std::span<const int16_t> samples) override {
    if (ps_process_raw(decoder_, samples.data(), samples.size(), FALSE, FALSE) < 0) {
      return Error{"stt: pocketsphinx failed to decode a frame"};
    }
    return OkStatus();
  }

  std::string Partial() override {
    const char* hyp = ps_get_hyp(decoder_, nullptr);
    return hyp != nullptr ? hyp : "";
  }

  Result<SttResult> End() override {
    if (ps_end_utt(decoder_) < 0) return Error{"stt: pocketsphinx could not end the utterance"};
    SttResult result;
    int32 score = 0;
    const char* hyp = ps_get_hyp(decoder_, &score);
    result.text = hyp != nullptr ? hyp : "";
    result.confidence = logmath_exp(ps_get_logmath(decoder_), ps_get_prob(decoder_));
    for (ps_seg_t* seg = ps_seg_iter(decoder_); seg != nullptr; seg = ps_seg_next(seg)) {
      const std::string word = ps_seg_word(seg);
      if (word.empty() || word[0] == '<' || word[0] == '[' || word == "(NULL)") continue;
      int start = 0, end = 0;
      ps_seg_frames(seg, &start, &end);
      // "word(2)" is the dictionary's second pronunciation of "word".
      result.words.push_back(SttWord{word.substr(0, word.find('(')), start * kFrameSeconds,
                                     (end + 1) * kFrameSeconds});
    }
    return result;
  }

 private:
  ps_decoder_t* decoder_;  // borrowed from the model
};

}  // namespace

Result<std::shared_ptr<const PocketsphinxModel>> PocketsphinxModel::Load(const SttConfig& c) {
  if (!Exists(c.acoustic_model, true) || !Exists(c.acoustic_model + "/mdef", false)) {
    return Error{c.acoustic_model + ": not a pocketsphinx acoustic model directory (no mdef)"};
  }
  if (!Exists(c.dictionary, false)) return Error{c.dictionary + ": dictionary not found"};
  const bool use_lm = c.grammar.empty() && c.words.empty();
  if (use_lm && !Exists(c.language_model, false)) {
    return Error{c.language_model + ": language model not found"};
  }
  if (!c.grammar.empty() && !Exists(c.grammar, false)) {
    return Error{c.grammar + ": grammar not found"};
  }
  char log_path[] = "/tmp/earshot-pocketsphinx-XXXXXX";
  const int log_fd = mkstemp(log_path);
  if (log_fd >= 0) close(log_fd);
  std::vector<std::string> args = {"-hmm", c.acoustic_model, "-dict", c.dictionary,
                                   "-logfn", log_fd >= 0 ? log_path : "/dev/null"};
  if (use_lm) args.insert(args.end(), {"-lm", c.language_model});
  if (!c.grammar.empty()) args.insert(args.end(), {"-jsgf", c.grammar});
  for (std::string& a : ProfileArgs(c.profile)) args.push_back(std::move(a));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  cmd_ln_t* cmd = cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), argv.data(), FALSE);
  ps_decoder_t* decoder = cmd != nullptr ? ps_init(cmd) : nullptr;
  if (cmd != nullptr) cmd_ln_free_r(cmd);
  if (decoder != nullptr && !c.words.empty()) {
    if (ps_set_jsgf_string(decoder, "words", WordsGrammar(c.words).c_str()) < 0 ||
        ps_set_search(decoder, "words") < 0) {
      ps_free(decoder);
      decoder = nullptr;
    }
  }
  const std::string logged = log_fd >= 0 ? LastLoggedError(log_path) : "";
  if (log_fd >= 0) std::remove(log_path);
  if (decoder == nullptr) {
    return Error{"stt: pocketsphinx could not load " + c.acoustic_model + " / " +
                 (use_lm ? c.language_model : c.grammar.empty() ? "stt.words" : c.grammar) + " / " +
                 c.dictionary + (logged.empty() ? "" : ": " + logged)};
  }
  return std::shared_ptr<const PocketsphinxModel>(new PocketsphinxModel(decoder));
}

PocketsphinxModel::~PocketsphinxModel() { ps_free(decoder_); }

std::unique_ptr<SttSession> PocketsphinxModel::NewSession() const {
  return std::make_unique<PocketsphinxSession>(decoder_);
}

}  // namespace earshot::stt
